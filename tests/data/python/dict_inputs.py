# A detection model as detectron2 writes one: forward takes a list of dicts, each an image tensor with its height
# (an int), and returns a list of dicts. torch.jit.trace cannot take that directly; jitscope-cli flattens it.
import torch
import torch.nn as nn


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 2, 3, padding=1)

    def forward(self, batched_inputs):
        outputs = []
        for item in batched_inputs:
            features = self.conv(item["image"].unsqueeze(0))
            scale = item["height"] / item["image"].shape[1]
            outputs.append({"scores": features.mean(dim=(2, 3)) * scale, "height": item["height"]})
        return outputs


model = Detector()
