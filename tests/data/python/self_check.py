# Functions that also compile as TorchScript, traced by the file: JitScope's own tracer should record what
# torch.jit.trace records. For `scale_rows` it does. For `floor_step` it does not (found by --self-check): PyTorch
# records the Python float of `x // 0.3` as a 0-dim Double tensor constant, JitScope as a float constant. When
# JitScope's tracer learns that, tst_pythoncli's self-check test needs another known difference here.
import torch


def scale_rows(x):
    return x * x.size(0)


def floor_step(x):
    return x // 0.3


a = torch.jit.trace(scale_rows, torch.rand(3, 4), check_inputs=[torch.rand(5, 4)])
b = torch.jit.trace(floor_step, torch.rand(3, 4))
