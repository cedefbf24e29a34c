# For the crash handler's test: JITSCOPE_TEST_CRASH=segv|fpe|abort makes the first operator run (aten::add, line 7)
# crash for real.
import torch


def f(x):
    y = x + 1
    return y * 2
