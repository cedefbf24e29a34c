# The seed example's loop over x.size(0): the trace unrolls it, and torch.export cannot make x.size(0) dynamic
# (range() of it specializes it to the example's 3).
import torch


def product_of_rows(x):
    result = x[0]
    for i in range(x.size(0)):
        result = result * x[i]
    return result


inputs = (torch.rand(3, 4),)
check_inputs = [(torch.rand(4, 4),), (torch.rand(2, 4),)]
traced = torch.jit.trace(product_of_rows, inputs, check_inputs=check_inputs)
