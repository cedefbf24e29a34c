import torch


# Factories whose sizes, dtypes or devices come from a traced input.
def factories(x):
    z = torch.zeros(x.size(0), 3)
    o = torch.ones_like(x)
    r = torch.arange(x.size(1))
    n = x.new_zeros((x.size(0), 2))
    return z, o + r, n


def like_and_device(x):
    a = torch.zeros_like(x)
    b = torch.full_like(x, 2.0)
    d = torch.zeros(2, device=x.device)
    e = torch.ones(x.shape, dtype=x.dtype, device=x.device)
    return a + b + e, d


inputs = (torch.rand(2, 3),)
check_inputs = [(torch.rand(4, 5),), (torch.rand(1, 1),)]
