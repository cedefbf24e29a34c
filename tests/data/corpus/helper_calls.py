import torch
from typing import Tuple


def normalize(x, eps: float = 1e-6):
    return (x - x.mean()) / (x.std() + eps)


def affine(x, w: float, b: float):
    return x * w + b


def stats(x) -> Tuple[torch.Tensor, torch.Tensor]:
    return x.mean(dim=-1), x.var(dim=-1)


def helper_calls(x):
    y = affine(normalize(x), 2.0, 0.5)
    mean, var = stats(y)
    return y, mean, var


inputs = (torch.randn(3, 5),)
check_inputs = [(torch.randn(2, 7),)]
