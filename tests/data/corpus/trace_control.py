import torch


# Python control flow that tracing unrolls or bakes in.
def loop_over_size(x):
    acc = torch.zeros_like(x[0])
    for i in range(x.size(0)):
        acc = acc + x[i] * i
    return acc


def iterate_rows(x):
    total = torch.zeros(x.size(1))
    for row in x:
        total = total + row.relu()
    return total


def halve_until_small(x):
    while x.norm() > 1.0:
        x = x / 2
    return x


def dim_branch(x):
    if x.dim() == 2:
        return x.sum(1)
    return x.flatten()


def size_branch(x):
    if x.size(0) > 3:
        return x[:3] * 2
    return x + 1


def normalize_rows(x):
    return x / (x.abs().sum(dim=-1, keepdim=True) + 1e-6)


def calls_helpers(x):
    y = normalize_rows(x)
    return size_branch(y) + dim_branch(y).sum()


inputs = (torch.rand(2, 3),)
check_inputs = [(torch.rand(5, 3),), (torch.rand(4, 1),)]
