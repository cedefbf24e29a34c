# For the model worker's tests: JITSCOPE_WORKER_FAULT=KIND@aten::mul#N stops the worker at the N-th
# multiplication (line 7), the first of input set N.
import torch


def f(x):
    y = x * 2
    return y + 1


inputs = (torch.rand(3),)
check_inputs = [(torch.rand(4),), (torch.rand(2, 2),)]
