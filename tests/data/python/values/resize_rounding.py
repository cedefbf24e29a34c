# A resize as torchvision's GeneralizedRCNNTransform makes it: the scale is a Python float, and
# interpolate(recompute_scale_factor=True) computes the output size from it. Traced, that size is tensor
# arithmetic in float32; in Python it is float64: at width 90, 90 * 0.7 floors to 63 in the trace and to 62 in
# Python (at width 60 both give 42). All traces record the same graph; on the third set the values part ways at
# the interpolate.
import torch
import torch.nn.functional as F


class Resize(torch.nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return F.interpolate(x[None], scale_factor=self.scale, mode="linear", recompute_scale_factor=True)[0]


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.resize = Resize(0.7)
        self.head = torch.nn.Conv1d(3, 4, 3)

    def forward(self, x):
        return self.head(self.resize(x).relu())


torch.manual_seed(0)
model = Model().eval()
traced = torch.jit.trace(model, torch.rand(3, 40), check_inputs=[(torch.rand(3, 60),), (torch.rand(3, 90),)])
