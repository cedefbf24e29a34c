import torch


def pairwise_sum(x):
    n = x.size(0)
    out = torch.zeros(n, n)
    for i in range(n):
        for j in range(n):
            out[i, j] = x[i].sum() + x[j].sum()
    return out


def triangle_count(n: int) -> int:
    total = 0
    for i in range(n):
        for j in range(i):
            if (i + j) % 2 == 0:
                continue
            total += 1
    return total


def nested_loops(x):
    acc = x.clone()
    for i in range(x.size(0)):
        for j in range(x.size(1)):
            acc[i, j] = acc[i, j] * (i + 1) + j
        if i > 2:
            break
    return acc


inputs = (torch.rand(4, 3),)
check_inputs = [(torch.rand(2, 2),), (torch.rand(6, 1),)]
