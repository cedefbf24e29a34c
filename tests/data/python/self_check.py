# Functions that also compile as TorchScript, traced by the file: JitScope's own tracer should record what
# torch.jit.trace records. For `scale_rows` it does. For `as_int` it cannot (a known difference of
# tests/data/differential/expected-misses): TorchScript compiles x.view(torch.int32) as view(int[] [3]), dtypes being
# ints to TorchScript, so the script graph JitScope traces from has lost the dtype view that Python's eager call
# (view.dtype) records. (`x // 0.3`, the first difference the self-check found, is fixed.) When JitScope learns
# this one, tst_pythoncli's and tst_pythonwindow's self-check tests need another known difference here.
import torch


def scale_rows(x):
    return x * x.size(0)


def as_int(x):
    return x.view(torch.int32)


a = torch.jit.trace(scale_rows, torch.rand(3, 4), check_inputs=[torch.rand(5, 4)])
b = torch.jit.trace(as_int, torch.rand(3))
