import torch
from typing import Tuple


def min_max(x) -> Tuple[torch.Tensor, torch.Tensor]:
    return x.min(), x.max()


def topk_pair(x, k: int = 2):
    values, indices = torch.topk(x, k)
    return values, indices


def tuple_returns(x):
    lo, hi = min_max(x)
    v, i = topk_pair(x.flatten(), 3)
    shape = (x.size(0), x.size(1))
    return (hi - lo, v), i, shape


inputs = (torch.rand(3, 4),)
check_inputs = [(torch.rand(2, 2),)]
