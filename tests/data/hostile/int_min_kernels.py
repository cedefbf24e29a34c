# INT64_MIN divided by -1 in a kernel (issue #14, class 7): SIGFPE when traced or run, before JitScope checked it.
import torch


def floor_div(x):
    a = torch.tensor([-9223372036854775807 - 1, 4])
    return a // x


def mod(x):
    a = torch.tensor([-9223372036854775807 - 1, 4])
    return a % x


def div_floor(x):
    a = torch.tensor([-9223372036854775807 - 1, 4])
    return torch.div(a, x, rounding_mode="floor")


def div_trunc(x):
    a = torch.tensor([-9223372036854775807 - 1, 4])
    return torch.div(a, -1, rounding_mode="trunc")


def fmod(x):
    a = torch.tensor([-9223372036854775807 - 1, 4])
    return torch.fmod(a, x)


def remainder(x):
    a = torch.tensor([-9223372036854775807 - 1, 4])
    return torch.remainder(a, -1)


def int32(x):
    a = torch.tensor([-2147483647 - 1], dtype=torch.int32)
    return a // -1


def ints(x: int):
    a = -9223372036854775807 - 1
    return a // x


def fine(x):
    # -1 and INT64_MIN, but never divided together in int64: float division, and int32 promoted to int64.
    a = torch.tensor([-9223372036854775807 - 1, 4])
    b = torch.tensor([-2147483647 - 1], dtype=torch.int32)
    return a / x, b // torch.tensor([-1]), a // 2
