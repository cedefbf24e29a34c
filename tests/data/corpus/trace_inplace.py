import torch


# In-place ops on an input and on views of it.
def add_inplace_input(x):
    x.add_(1)
    return x * 2


def inplace_views(x):
    x[0].mul_(2)
    x[:, 1] = 0
    return x


def inplace_on_copy(x):
    y = x.clone()
    y[0].mul_(2)
    y[:, 1] = 0
    y.add_(1)
    return y


inputs = (torch.rand(3, 4),)
check_inputs = [(torch.rand(2, 2),), (torch.rand(5, 3),)]
