# A traced model that calls a scripted helper: the helper's loop stays a loop, the rest is traced.
import torch
import torch.nn as nn


@torch.jit.script
def decode(scores: torch.Tensor, k: int):
    out = []
    for i in range(scores.size(0)):
        out.append(scores[i].topk(k).values)
    return torch.stack(out)


class Ranker(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 6)

    def forward(self, x):
        return decode(self.proj(x), 2)


torch.manual_seed(0)
traced = torch.jit.trace(Ranker().eval(), torch.rand(3, 4), check_inputs=[(torch.rand(5, 4),)])
