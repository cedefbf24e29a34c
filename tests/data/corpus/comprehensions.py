import torch


# Comprehensions with a tuple target, as library code writes them (torchvision's box coders, anchor grids).
def pair_products(x, y):
    return torch.stack([a * b for a, b in zip(x.unbind(0), y.unbind(0))])


def scaled_rows(x):
    return torch.stack([row * i for i, row in enumerate(x.unbind(0))], dim=0)


def indexed_pairs(x, y):
    return torch.stack([a * b + i for i, (a, b) in enumerate(zip(x.unbind(0), y.unbind(0)))])


inputs = (torch.rand(3, 4), torch.rand(3, 4))
