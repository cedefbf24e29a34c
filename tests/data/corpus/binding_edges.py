import torch


# Where Python's bindings record something other than what the script graph does.
def to_other(x, y):
    # Tensor.to(other): aten::to with the other's device and dtype as constants.
    return x.to(y) + 1


def tensor_of_numbers(x):
    # torch.tensor of Python numbers: a constant, aten::to and aten::detach.
    return x + torch.tensor([1.0, 2.0, 3.0])


def tensor_of_sizes(x):
    # torch.tensor of sizes: the sizes baked into the constant.
    n = torch.tensor([x.size(0), x.size(1)])
    return x.sum(1) * n[0]


def topk_tensor_k(x, k):
    # A 0-dim tensor where the schema wants an int: aten::Int recorded, the trace stays dynamic.
    return torch.topk(x, k)[0]


def setitem_leading_ones(x, v):
    # x[idx] = v with extra leading size-1 dims in v: viewed to the indexed shape first.
    x[0] = v
    return x * 2


def setitem_index_leading_ones(x, i, v):
    x[i] = v
    return x


def tuple_argument(pair):
    # A parameter without annotation that receives a tuple.
    a, b = pair
    return a * b + a


def list_argument(xs):
    return torch.cat(xs, 0).sum(0)


def as_tensor_of_numbers(x):
    # torch.as_tensor: the constant and aten::to, no detach and no warning.
    return torch.as_tensor([1.0, 2.0, 3.0]) * x


def scalar_tensor(x):
    return x + torch.tensor(3.0)


def new_methods(x):
    b = x.new_full((x.size(0),), 3.0)
    c = x.new_zeros(2, 3)
    d = x.new_ones(x.shape)
    return b, c, d
