# A loop over a shape traced with two check inputs of other lengths: every pair of the three traces unrolls it
# another number of times.
import torch


def accumulate(x):
    y = x[0]
    for i in range(x.size(0)):
        y = y + x[i]
    return y


t = torch.jit.trace(accumulate, torch.rand(2, 3), check_inputs=[torch.rand(3, 3), torch.rand(4, 3)])
