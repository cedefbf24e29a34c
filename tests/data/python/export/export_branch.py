# A branch on a tensor's data (torchvision's `if boxes.numel() == 0:` in small): the trace freezes it, torch.export
# cannot guard on it.
import torch


class KeepBright(torch.nn.Module):
    def forward(self, x):
        bright = x[x > 0.5]
        if bright.numel() == 0:
            return x
        return x * 2


torch.manual_seed(0)
model = KeepBright()
traced = torch.jit.trace(model, (torch.rand(4, 3),), check_inputs=[(torch.rand(5, 3),)])
