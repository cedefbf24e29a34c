# A branch on data: traced on positive inputs, checked on negative ones.
import torch


def sign_scale(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 1
    return y


t = torch.jit.trace(sign_scale, torch.ones(3), check_inputs=[-torch.ones(3)])
