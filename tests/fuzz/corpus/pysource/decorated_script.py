import torch
from typing import Dict, List, Tuple


@torch.jit.script
def softclip(x, limit: float = 3.0):
    return limit * torch.tanh(x / limit)


@torch.jit.script
def group_by_sign(x: torch.Tensor) -> Dict[str, torch.Tensor]:
    out: Dict[str, torch.Tensor] = {}
    out["pos"] = x[x > 0]
    out["neg"] = x[x <= 0]
    return out


def count_keys(d: Dict[str, torch.Tensor]) -> List[Tuple[str, int]]:
    res: List[Tuple[str, int]] = []
    for k, v in d.items():
        res.append((k, v.numel()))
    return res


@torch.jit.script
def decorated_script(x):
    groups = group_by_sign(softclip(x))
    return groups["pos"].sum() - groups["neg"].sum()


inputs = (torch.randn(10),)
check_inputs = [(torch.randn(3),), (torch.ones(4),)]
