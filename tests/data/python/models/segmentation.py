# A torchvision segmentation model exported as people do: its dict output unpacked, traced at one size and
# checked at another (no weights: weights=None).
import torch
import torchvision


class Segmenter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.model = torchvision.models.segmentation.lraspp_mobilenet_v3_large(
            weights=None, weights_backbone=None, num_classes=4)

    def forward(self, images):
        return self.model(images)["out"]


torch.manual_seed(0)
model = Segmenter().eval()
traced = torch.jit.trace(model, torch.rand(1, 3, 64, 64), check_inputs=[(torch.rand(1, 3, 48, 80),)])
