# s.item() is a plain number to the tracer (baked: trace 1 computes other outputs on the other sets) and a symbol to
# torch.export (the exported program passes every set, the rows of x dynamic).
import torch


def scale_all(x, s):
    return x.reshape(x.numel()) * s.item()


inputs = (torch.rand(3, 4), torch.tensor(2.0))
check_inputs = [(torch.rand(5, 4), torch.tensor(3.0)), (torch.rand(2, 4), torch.tensor(0.5))]
traced = torch.jit.trace(scale_all, inputs, check_inputs=check_inputs)
