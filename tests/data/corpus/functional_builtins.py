import torch
import torch.nn.functional as F


def linear_relu(x, w, b):
    return torch.relu(F.linear(x, w, b))


def conv_pool(x, w):
    y = F.conv2d(x, w, None, 1, 1)
    return F.avg_pool2d(y, 2)


def gelu_softmax(x):
    return torch.softmax(F.gelu(x), dim=-1)


def functional_builtins(x, w, b):
    h = linear_relu(x, w, b)
    return gelu_softmax(h)


inputs = (torch.rand(2, 4), torch.rand(3, 4), torch.zeros(3))
check_inputs = [(torch.rand(5, 4), torch.rand(3, 4), torch.ones(3))]
