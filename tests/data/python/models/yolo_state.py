# The YOLO-style head without a dry run, traced without check inputs: PyTorch's check traces the same input again,
# and the module is not the same any more (its first call cached the grid), so the two traces differ: state, not
# shape.
import torch
from yolo_grid import Model

torch.manual_seed(0)
model = Model().eval()
traced = torch.jit.trace(model, torch.rand(1, 3, 384, 640))
