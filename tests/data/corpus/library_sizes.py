import torch
import torch.nn.functional as F
from typing import List


# Sizes that travel through Python lists and builtins, as library code passes them (torchvision's transforms,
# anchor grids and box coders): Python keeps each one a traced 0-dim tensor.
def shape_into_list(x):
    sizes: List[int] = []
    for i, s in enumerate(x.shape):
        sizes.append(s * (i + 1))
    return x.new_zeros(sizes)


def max_of_sizes(x):
    n = max([x.size(0), x.size(1)])
    return x.new_zeros(n) + x.sum()


def max_by_axis(x, y):
    maxes = list(x.shape)
    for index, item in enumerate(y.shape):
        maxes[index] = max(maxes[index], item)
    return x.new_zeros(maxes)


def split_sizes_from_list(x):
    n = x.size(0)
    sizes = [n // 2, n - n // 2]
    a, b = torch.split(x, sizes)
    return a.sum(0) + b.sum(0)


def interpolate_to_size(x):
    return F.interpolate(x, size=x.size(-1) * 2, mode="nearest")


# A one-element tensor where an int is expected: Python's argument parser reads it with item() while tracing.
def zeros_from_tensor(x, t):
    return torch.zeros(t) + x.sum()


def view_from_tensor(x, t):
    return x.view(t, -1)


# Tensor.split (torch/_tensor.py) calls int() on a split size that is a tensor: the size is baked.
def split_by_traced_size(x):
    parts = torch.split(x, x.size(0) // 2)
    return parts[0] * 2


inputs = (torch.rand(4, 3),)
