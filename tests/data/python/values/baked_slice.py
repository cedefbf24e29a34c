# A crop whose width is a Python number: math.floor() of the traced size makes an int, so trace 1 slices
# `x[:, :28]` with 28 baked in as a constant, where Python slices each input's own 70%. At width 41 both keep 28
# columns; at width 60 the values part ways at the slice itself (28 columns in the trace, 42 in Python), not at the
# relu after it: the slice's operand agrees, its `end` does not.
import math

import torch


def crop(x):
    n = math.floor(x.size(1) * 0.7)
    return x[:, :n].relu() * 2


torch.manual_seed(0)
traced = torch.jit.trace(crop, torch.rand(3, 40), check_inputs=[(torch.rand(3, 41),), (torch.rand(3, 60),)])
