import torch


def shape_branches(x):
    if x.dim() == 1:
        return x.unsqueeze(0)
    elif x.size(0) > 3:
        return x[:3]
    elif x.shape[-1] == 1:
        return x.squeeze(-1).unsqueeze(0)
    else:
        return x.t()


def pad_to(x, n: int):
    if x.numel() >= n:
        return x.flatten()[:n]
    rest = torch.zeros(n - x.numel(), dtype=x.dtype)
    return torch.cat([x.flatten(), rest])


inputs = (torch.rand(2, 3),)
check_inputs = [(torch.rand(5),), (torch.rand(6, 2),), (torch.rand(2, 1),)]
