# A fast path taken only while tracing, as ONNX-minded code writes one (torchvision's _is_tracing() paths): the
# trace records the rounding of x / 0.1 with floor, the code run plainly rounds to the nearest. Every trace records
# the same graph; on the second set trace 1 computes other values than the script function, at the floor.
import torch


def quantize(x):
    if torch.jit.is_tracing():
        q = torch.floor(x / 0.1)
    else:
        q = torch.round(x / 0.1)
    return q * 0.1 + x.mean()


inputs = (torch.full((2, 3), 0.44),)
check_inputs = [(torch.full((4, 3), 0.46),)]
