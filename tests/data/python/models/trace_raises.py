# A torchvision detection model traced as it is: it returns a list of dicts, which torch.jit.trace refuses
# (pytorch#91738). The export is broken; the file stops at the call.
import torch
import torchvision

torch.manual_seed(0)
model = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
    weights=None, weights_backbone=None, num_classes=3).eval()
traced = torch.jit.trace(model, ([torch.rand(3, 96, 96)],))
