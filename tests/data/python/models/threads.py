# Eight threads each tracing a small module: every call is recorded.
import threading

import torch
import torch.nn as nn

torch.manual_seed(0)
models = [nn.Sequential(nn.Linear(4, 4), nn.ReLU()).eval() for _ in range(8)]
inputs = [torch.rand(2, 4) for _ in range(8)]
results = [None] * 8


def export(k):
    results[k] = torch.jit.trace(models[k], inputs[k], check_trace=False)


threads = [threading.Thread(target=export, args=(k,)) for k in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
