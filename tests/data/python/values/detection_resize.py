# torchvision's Faster R-CNN (no weights), exported as people do: wrapped to return tensors, warmed up by one call,
# traced at 320x320 and checked at 100x303, where its resize rounds differently in the trace (float32 tensor
# arithmetic) and in Python (floats).
import torch
import torchvision


class Detector(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
            weights=None, weights_backbone=None, num_classes=3).eval()

    def forward(self, image):
        out = self.model([image])[0]
        return out["boxes"], out["scores"], out["labels"]


torch.manual_seed(0)
model = Detector().eval()
model(torch.rand(3, 320, 320))
traced = torch.jit.trace(model, torch.rand(3, 320, 320), check_inputs=[(torch.rand(3, 100, 303),)])
