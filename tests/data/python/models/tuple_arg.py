# A function taking a tensor and a tuple of tensors, which torch.jit.trace takes as it is.
import torch


def blend(x, pair):
    a, b = pair
    return x * a + b


torch.manual_seed(0)
inputs = (torch.rand(2, 3), (torch.rand(2, 3), torch.rand(2, 3)))
traced = torch.jit.trace(blend, inputs)
