import torch
import torch.nn.functional as F


def functional_overloads(x):
    up = F.interpolate(x, scale_factor=2.0, mode="nearest")
    down = F.interpolate(up, size=[x.size(2), x.size(3)], mode="bilinear", align_corners=False)
    return F.gelu(down) + F.max_pool2d(F.relu(x), 1) + F.pad(x, [1, 1])[:, :, :, 1:-1]


inputs = (torch.rand(1, 2, 4, 4),)
