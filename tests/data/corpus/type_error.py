import torch


def annotated_mismatch(x: torch.Tensor, n: int):
    label: str = n
    return x, label


def fine(x: torch.Tensor, n: int):
    return x * n


inputs = (torch.rand(2, 3), 4)
