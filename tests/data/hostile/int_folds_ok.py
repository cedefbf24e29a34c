# Python's floor division and modulo of negative constants, folded as Python does.
def f(x):
    a = -7
    b = a // -2
    c = a % 3
    return x + b + c
