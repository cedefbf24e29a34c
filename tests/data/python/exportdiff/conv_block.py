# A small conv block traced and exported (tst_exportdiff): the trace records aten::_convolution where the export has
# aten.conv2d, and bakes the batch of the example where the export keeps it symbolic; the loop over a fixed count is
# unrolled by both.
import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        for _ in range(2):
            y = y * 2
        return y


torch.manual_seed(0)
model = Block().eval()
traced = torch.jit.trace(model, (torch.rand(2, 3, 8, 8),), check_inputs=[(torch.rand(5, 3, 8, 8),)])
