# x.numel() is a plain number to the tracer (baked: trace 1 fails on the other sizes) and a symbol to torch.export
# (the exported program passes every set).
import torch


def flatten_all(x):
    return x.reshape(x.numel()) * 2


inputs = (torch.rand(3, 4),)
check_inputs = [(torch.rand(5, 4),), (torch.rand(2, 4),)]
traced = torch.jit.trace(flatten_all, inputs, check_inputs=check_inputs)
