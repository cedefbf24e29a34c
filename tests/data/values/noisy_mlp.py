# An MLP written as a function with dropout left on (training=True), as code copied from a training loop is: every
# run draws another mask, so trace 1 and the script function never compute the same outputs, and neither do two
# runs of the script function. The graphs agree; the values part ways at the first dropout.
import torch
import torch.nn.functional as F


def mlp(x, w1, w2, w3):
    h = F.relu(torch.matmul(x, w1))
    h = F.dropout(h, 0.1, True)
    h = F.relu(torch.matmul(h, w2))
    h = F.dropout(h, 0.1, True)
    return torch.matmul(h, w3).softmax(-1)


inputs = (torch.rand(64, 256), torch.rand(256, 512), torch.rand(512, 512), torch.rand(512, 10))
check_inputs = [(torch.rand(128, 256), torch.rand(256, 512), torch.rand(512, 512), torch.rand(512, 10))]
