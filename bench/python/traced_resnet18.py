# bench_python --warm: a torchvision model as people trace it, with check inputs (no weights downloaded).
import torch
import torchvision

model = torchvision.models.resnet18(weights=None).eval()
inputs = (torch.rand(1, 3, 64, 64),)
check_inputs = [(torch.rand(1, 3, 96, 96),), (torch.rand(2, 3, 64, 64),)]
traced = torch.jit.trace(model, inputs, check_inputs=check_inputs)
