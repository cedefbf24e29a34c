# A loop over a size: bool[9223372036854775807,0] needs no memory and loops 2^63 times; --timeout stops it.
import torch


def f(x):
    s = 0
    for i in range(x.size(0)):
        s += 1
    return x.sum() + s
