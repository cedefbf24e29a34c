import torch


def spin(x):
    i = 0
    while True:
        x = x + 1
        i += 1
        if i < 0:
            break
    return x


inputs = (torch.rand(2, 2),)
