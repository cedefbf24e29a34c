import torch


# Python numbers mixed into tensor arithmetic: what does the tracer record for
# the constant operand (a scalar overload, a wrapped tensor, an alpha)?
def python_numbers(x):
    a = x + 1
    b = 2 * x
    c = x / 3.0
    d = 1 - x
    return a * b - c + d


def scalar_ops(x, y):
    z = (x * 0.5 + y) ** 2
    return z - 3, z.clamp(min=0.25) % 3, -z


inputs = (torch.rand(2, 3), torch.rand(2, 3))
check_inputs = [(torch.rand(4), torch.rand(1))]
