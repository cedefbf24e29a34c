# A write through NumPy: the tracer cannot see it, so every input set records the same graph, yet the traced
# function computes something else than the Python code.
import torch


def poke(x):
    y = x * 2
    y.numpy()[0] = 0.0
    return y


t = torch.jit.trace(poke, torch.rand(3), check_inputs=[torch.rand(3)])
