# A module returning a dict of tensors (torch.jit.trace takes it with strict=False), traced at two sizes.
import torch
import torch.nn as nn


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
        self.cls = nn.Conv2d(4, 2, 1)
        self.box = nn.Conv2d(4, 4, 1)

    def forward(self, x):
        f = self.body(x)
        return {"cls": self.cls(f), "box": self.box(f).flatten(1)}


torch.manual_seed(0)
model = Heads().eval()
traced = torch.jit.trace(model, torch.rand(1, 3, 8, 8), check_inputs=[(torch.rand(1, 3, 6, 10),)], strict=False)
