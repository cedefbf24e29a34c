import torch


def while_tensor_cond(x):
    steps = 0
    while x.norm() > 1.0:
        x = x / 2
        steps += 1
    return x, steps


def countdown(x, n: int):
    while n > 0 and bool(x.max() < 100):
        x = x * 3
        n -= 1
    return x


inputs = (torch.full((2, 3), 4.0),)
check_inputs = [(torch.rand(3),), (torch.zeros(1),)]
