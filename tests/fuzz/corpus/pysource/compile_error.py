import torch


def works(x):
    return x.relu() + 1


def uses_undefined(x):
    y = x * 2
    return y + undefined_scale


inputs = (torch.rand(2, 3),)
