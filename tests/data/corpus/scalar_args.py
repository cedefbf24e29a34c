import torch
from typing import List


def repeat_rows(x, times: int):
    return x.repeat(times, 1)


def sum_dims(x, dims: List[int], keepdim: bool = False):
    return x.sum(dims, keepdim)


def describe(name: str, n: int) -> str:
    return name + ":" + str(n)


def scale(x, factor: float, mode: str = "mul"):
    if mode == "mul":
        return x * factor
    elif mode == "add":
        return x + factor
    return x


inputs = (torch.rand(2, 3), 3.0, "add")
check_inputs = [(torch.rand(4), 0.5, "mul"), (torch.rand(1, 1), 2.0, "other")]
