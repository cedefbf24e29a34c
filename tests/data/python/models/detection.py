# A torchvision detection model exported as people do: wrapped to return tensors, traced at 320x320 and checked
# at 256x384 (no weights: weights=None).
import torch
import torchvision


class Detector(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
            weights=None, weights_backbone=None, num_classes=3)
        self.model.eval()

    def forward(self, image):
        out = self.model([image])[0]
        return out["boxes"], out["scores"], out["labels"]


torch.manual_seed(0)
model = Detector().eval()
traced = torch.jit.trace(model, torch.rand(3, 320, 320), check_inputs=[(torch.rand(3, 256, 384),)])
