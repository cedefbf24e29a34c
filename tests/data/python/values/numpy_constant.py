# A statistic taken through NumPy is a Python number to the tracer: trace 1 bakes the traced input's mean in as a
# constant, while Python takes each input's own mean. The graphs agree; the subtraction computes other values.
import torch


class Normalize(torch.nn.Module):
    def forward(self, x):
        mean = float(x.mean().numpy())
        return x - mean


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = Normalize()
        self.fc = torch.nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(self.norm(x))


torch.manual_seed(0)
model = Model().eval()
traced = torch.jit.trace(model, torch.rand(4, 8), check_inputs=[(torch.rand(4, 8) + 1,)])
