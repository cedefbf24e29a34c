import torch


def view_reshape(x):
    b = x.size(0)
    flat = x.view(b, -1)
    n = flat.size(1)
    half = n // 2
    y = flat[:, : half * 2].reshape(b, half, 2)
    return y.permute(2, 0, 1).contiguous()


def to_matrix(x, cols: int):
    rows = x.numel() // cols
    return x.reshape(rows, cols)


def merge_last(x):
    shape = x.shape
    return x.view(list(shape[:-2]) + [shape[-2] * shape[-1]])


inputs = (torch.rand(2, 3, 4),)
check_inputs = [(torch.rand(1, 5, 2),), (torch.rand(3, 2, 3),)]
