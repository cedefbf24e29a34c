# 8 GiB made inside the function: refused at its line by the run's memory budget (--max-memory, default 2G).
import torch


def f(x):
    y = torch.ones(2048, 1024, 1024, dtype=torch.float32)
    return x + y.sum()


def grow(x):
    # Each pass keeps a bigger tensor alive: refused when the run holds more than the budget.
    parts = [x]
    for i in range(100):
        parts.append(torch.zeros(64, 1024, 1024))
    return parts[-1].sum() + x
