# Python crashes inside its second torch.jit.trace call, as PyTorch's check does on a trace of a 20,000-step loop
# (here a read of address 0 while tracing): the first call is recorded and kept, and the place is the crash's.
import ctypes

import torch


def scale(x):
    return x * 2


def crash(x):
    ctypes.string_at(0)
    return x


first = torch.jit.trace(scale, torch.rand(2))
second = torch.jit.trace(crash, torch.rand(2))
