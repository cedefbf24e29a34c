import torch


def casts_dtypes(x):
    i = x.to(torch.int64)
    f = i.float()
    l = (x * 10).long()
    d = torch.zeros(3, dtype=torch.float64)
    return i, f, l, d


def on_device(x):
    dev = torch.device("cpu")
    y = torch.ones(x.shape, dtype=torch.float32, device=dev)
    return (x.to(dev) + y).to(dtype=torch.float16)


def as_bool_and_half(x):
    b = x.to(torch.bool)
    h = x.half().double()
    n = x.type_as(torch.zeros(1, dtype=torch.int32))
    return b, h, n, x.dtype == torch.float32


inputs = (torch.tensor([[0.5, 1.7, 2.2], [3.9, -1.2, 4.4]]),)
check_inputs = [(torch.arange(6, dtype=torch.float32),), (torch.tensor([[1.5, -2.5]]),)]
