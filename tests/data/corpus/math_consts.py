import math

import torch


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def circle_area(r: float) -> float:
    return math.pi * r * r


def math_consts(x):
    scale = math.sqrt(float(x.size(-1)))
    return gelu_tanh(x) / scale + math.e + math.log(2.0)


inputs = (torch.randn(2, 4),)
check_inputs = [(torch.randn(3, 9),)]
