import torch


# The PyTorch docs trace this in-place version and get a graph that ignores
# the input shape; the fixed version below builds a new tensor with torch.cat.
def fill_row_zero_inplace(x):
    x[0] = torch.rand(x.shape[1])
    return x


def fill_row_zero(x):
    x = torch.cat((torch.rand(1, x.shape[1]), x[1:x.shape[0]]), dim=0)
    return x


inputs = (torch.rand(3, 4),)
check_inputs = [(torch.rand(5, 6),), (torch.rand(2, 2),)]

traced = torch.jit.trace(fill_row_zero, inputs)
