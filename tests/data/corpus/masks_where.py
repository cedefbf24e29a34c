import torch


def masks_where(x):
    mask = x > 0.5
    y = torch.where(mask, x, torch.zeros_like(x))
    return y.masked_fill(x < 0.1, -1.0)


def select_positive(x):
    return x[x > 0]


def clip_by_mask(x, lo: float, hi: float):
    m = (x >= lo) & (x <= hi)
    return torch.where(m, x, torch.full_like(x, lo)), m.sum()


inputs = (torch.rand(3, 4),)
check_inputs = [(torch.randn(2, 2),), (torch.zeros(5),)]
