import torch
from typing import List, Tuple


def chunk_sum(x):
    a, b = x.chunk(2, dim=0)
    return a + b


def split_sizes(x) -> List[torch.Tensor]:
    return torch.split(x, [1, x.size(1) - 1], dim=1)


def unbind_max(x):
    best = x[0]
    for row in x.unbind(0):
        best = torch.max(best, row)
    return best


def chunk_split_unbind(x) -> Tuple[torch.Tensor, torch.Tensor, int]:
    halves = torch.chunk(x, 2, 0)
    pieces = x.split(2, dim=1)
    return chunk_sum(x), unbind_max(halves[0]), len(pieces)


inputs = (torch.rand(4, 5),)
check_inputs = [(torch.rand(6, 2),), (torch.rand(2, 3),)]
