import torch


def slices(x):
    return x[:, 1:3], x[..., 0:1], x[-1], x[:, None]


def index_mixed(x, idx):
    return x[idx, 1:], x[1:, -1]


def index_tensor(x, idx):
    return x[idx] * 2


inputs = (torch.rand(5, 3), torch.tensor([0, 4]))
check_inputs = [(torch.rand(4, 2), torch.tensor([3, 1, 0]))]
