import torch


def inplace_ops(x):
    y = x.clone()
    y.add_(1.0)
    y.mul_(2)
    y.clamp_(min=0.0, max=3.0)
    y[0] = 0.0
    y[:, 1] += 5
    return y


def relu_inplace(x):
    x.relu_()
    x -= 0.5
    return x


def fill_diag(x):
    n = min(x.size(0), x.size(1))
    for i in range(n):
        x[i, i] = i
    return x


inputs = (torch.randn(3, 4),)
check_inputs = [(torch.randn(2, 2),), (torch.randn(5, 3),)]
