# A module whose state its runs change (BatchNorm's running statistics in training mode, dropout's random numbers):
# exporting it beside the trace must leave the file's model and random state as the trace left them.
import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)
        self.norm = torch.nn.BatchNorm1d(4)
        self.drop = torch.nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.norm(self.linear(x)))


torch.manual_seed(0)
model = Block().train()
traced = torch.jit.trace(model, (torch.rand(3, 4),), check_trace=False)
print("running_mean", [round(v, 6) for v in model.norm.running_mean.tolist()])
print("batches", int(model.norm.num_batches_tracked))
print("training", model.training, model.norm.training)
print("next random", [round(v, 6) for v in torch.rand(3).tolist()])
