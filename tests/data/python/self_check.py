# Functions that also compile as TorchScript, traced by the file: JitScope's own tracer should record what
# torch.jit.trace records. For `scale_rows` it does. For `as_flag` it cannot (a known difference of
# tests/data/differential/expected-misses): TorchScript folds `True` into the int 1 of mul(Tensor, Scalar), so the
# script graph no longer says it was a bool, which torch 2.x's argument parser wraps as a Bool tensor. (`x // 0.3`
# and x.view(torch.int32), view.dtype in TorchScript 2.x, are fixed.) When JitScope learns this one,
# tst_pythoncli's and tst_pythonwindow's self-check tests need another known difference here.
import torch


def scale_rows(x):
    return x * x.size(0)


def as_flag(x):
    return x * True


a = torch.jit.trace(scale_rows, torch.rand(3, 4), check_inputs=[torch.rand(5, 4)])
b = torch.jit.trace(as_flag, torch.rand(3), check_trace=False)
