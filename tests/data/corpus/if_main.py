import torch
import torch.nn.functional as F


def residual(x, w):
    return x + F.linear(x, w)


def if_main(x, w):
    for _ in range(2):
        x = residual(x, w)
    return x


inputs = (torch.randn(2, 3), torch.eye(3))
check_inputs = [(torch.randn(5, 3), torch.eye(3))]

if __name__ == "__main__":
    scripted = torch.jit.script(if_main)
    print(scripted.graph)
    print(scripted(*inputs))
