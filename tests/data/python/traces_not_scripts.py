# PyTorch's docs' example of a module that traces but does not script: with return_b it returns a tuple on one
# path and a tensor on the other.
import torch
import torch.nn as nn


class MyModule(nn.Module):
    def __init__(self, return_b=False):
        super().__init__()
        self.return_b = return_b

    def forward(self, x):
        a = x + x
        b = x * x
        if self.return_b:
            return a, b
        return a


model = MyModule(return_b=True)
traced = torch.jit.trace(model, torch.rand(3), check_inputs=[torch.rand(5)])
scripted = torch.jit.script(model)
