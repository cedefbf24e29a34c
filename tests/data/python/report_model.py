# An export script as people write one: a function that scales by the batch size (traced consistently) and a
# module whose loop runs over the batch, traced with check inputs of another batch size (the check fails, as it
# does in PyTorch). Its outputs agree whatever the trip count (relu is idempotent, the weight is ones), so the
# reports hold no floating-point digits that could change from one processor to another.
import torch
import torch.nn as nn

torch.manual_seed(0)


def scale_rows(x):
    return x * x.size(0)


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(4))

    def forward(self, x):
        for i in range(x.size(0)):
            x = torch.relu(x) * self.weight
        return x


scaled = torch.jit.trace(scale_rows, torch.rand(3, 4), check_inputs=[torch.rand(5, 4)])
model = Stack()
traced = torch.jit.trace(model, torch.rand(2, 4), check_inputs=[(torch.rand(3, 4),)])
