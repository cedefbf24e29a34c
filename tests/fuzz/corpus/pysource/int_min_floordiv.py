# INT64_MIN // -1 folded at compile time: SIGFPE on every command.
import torch


def f(x):
    a = -9223372036854775807 - 1
    b = a // -1
    return x + b


def g(x):
    return x + 1
