# A module as PyTorch's TorchScript docs write one: export, an implicitly compiled helper, ignore, unused,
# attributes with types, a Final constant; traced with check inputs of another batch size.
import torch
import torch.nn as nn
from typing import Dict, Final


class MyModule(nn.Module):
    scale: Final[int] = 2

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.counts: Dict[str, int] = {"a": 1}
        self.steps = 3

    def forward(self, x):
        for i in range(x.size(0)):
            x = self.lin(x) + i
        if x.sum() > 0:
            x = x * self.scale
        return x

    @torch.jit.export
    def another_forward(self, x):
        return self.helper(x)

    def helper(self, x):
        return x + self.steps

    @torch.jit.ignore
    def show(self, x):
        print(x)

    @torch.jit.unused
    def unused_path(self, x):
        return x.numpy()


model = MyModule()
scripted = torch.jit.script(model)
print("tracing MyModule")
traced = torch.jit.trace(model, torch.rand(3, 4), check_inputs=[(torch.rand(4, 4),)])
