import torch
from typing import List


def list_stack(x):
    rows: List[torch.Tensor] = []
    for i in range(x.size(0)):
        rows.append(x[i] * i)
    return torch.stack(rows, dim=0)


def running_sums(xs: List[torch.Tensor]) -> List[torch.Tensor]:
    out: List[torch.Tensor] = []
    acc = torch.zeros_like(xs[0])
    for t in xs:
        acc = acc + t
        out.append(acc)
    return out


def sizes_of(x) -> List[int]:
    sizes: List[int] = []
    for d in range(x.dim()):
        sizes.append(x.size(d))
    sizes.insert(0, len(sizes))
    return sizes


inputs = (torch.rand(3, 4),)
check_inputs = [(torch.rand(1, 2),), (torch.rand(5, 5),)]
