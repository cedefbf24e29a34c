import torch


def arange_shape(x):
    return torch.arange(x.shape[0])


def arange_len(x):
    return torch.arange(len(x))


def arange_steps(x, step: int = 2):
    idx = torch.arange(0, x.size(0), step)
    return x[idx]


inputs = (torch.rand(5, 2),)
check_inputs = [(torch.rand(7, 3),), (torch.rand(1, 1),)]
