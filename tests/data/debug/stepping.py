import torch


def stepping(x):
    total = x[0] * 0
    for i in range(x.size(0)):
        row = x[i]
        total = total + row
    out = total * 2
    return out


inputs = (torch.rand(3, 4),)
