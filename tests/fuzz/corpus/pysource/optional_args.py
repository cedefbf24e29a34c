import torch
from typing import Optional


def optional_args(x, bias: Optional[torch.Tensor] = None, scale: Optional[float] = None):
    if bias is not None:
        x = x + bias
    if scale is None:
        scale = 1.0
    return x * scale


def first_or_default(x, default: Optional[int] = None) -> int:
    if x.numel() > 0:
        return int(x.flatten()[0].item())
    if default is None:
        return -1
    return default


def maybe_mask(x, mask: Optional[torch.Tensor]):
    if mask is None:
        return x
    return x.masked_fill(mask, 0.0)


inputs = (torch.rand(2, 3), torch.ones(3), 0.5)
check_inputs = [(torch.rand(4, 3), torch.zeros(3), 2.0)]
