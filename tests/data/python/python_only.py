# Python that TorchScript cannot compile but torch.jit.trace records: star-unpacking of a shape, len() baked.
import torch


def fill_row_zero(x):
    x[0] = torch.rand(*x.shape[1:2])
    return x


def count_rows(x):
    return torch.arange(len(x))


a = torch.jit.trace(fill_row_zero, (torch.rand(3, 4),))
b = torch.jit.trace(count_rows, torch.rand(1), check_inputs=[torch.rand(2)])
