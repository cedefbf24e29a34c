# INT64_MIN % -1 folded at compile time: SIGFPE.
def f(x):
    a = -9223372036854775807 - 1
    return x + a % -1
