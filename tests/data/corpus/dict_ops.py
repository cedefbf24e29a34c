import torch
from typing import Dict, List


def dict_ops(x):
    stats: Dict[str, torch.Tensor] = {"mean": x.mean(), "max": x.max()}
    stats["min"] = x.min()
    total = torch.zeros(())
    for k in stats.keys():
        total = total + stats[k]
    return total, len(stats)


def histogram(xs: List[int]) -> Dict[int, int]:
    h: Dict[int, int] = {}
    for v in xs:
        h[v] = h.get(v, 0) + 1
    return h


inputs = (torch.rand(4),)
check_inputs = [(torch.arange(5, dtype=torch.float32),)]
