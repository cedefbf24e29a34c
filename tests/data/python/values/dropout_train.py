# A model left in train mode: its dropout draws another mask on every run, so trace 1 and the Python code never
# compute the same outputs, and neither do two runs of the Python code.
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.drop = torch.nn.Dropout(0.5)
        self.fc2 = torch.nn.Linear(16, 2)

    def forward(self, x):
        return self.fc2(self.drop(self.fc1(x).relu()))


torch.manual_seed(0)
model = Model()  # not .eval()
traced = torch.jit.trace(model, torch.rand(4, 8), check_inputs=[(torch.rand(6, 8),)])
