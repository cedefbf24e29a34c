#!/usr/bin/env python3
"""Small TorchScript archives that call torchvision's custom operators (torchvision::nms, torchvision::roi_align),
as every torchvision detection model does: for the tests of the operator-library search, never committed.

    .venv/bin/python tests/oracle/make_custom_ops.py DIR

writes DIR/ops_scripted.pt (torch.jit.script) and DIR/ops_traced.pt (torch.jit.trace) of the same module.
"""
import os
import sys

import torch
import torchvision


class Detect(torch.nn.Module):
    """Boxes from a feature map: roi_align over the boxes, a score per box, nms on the scores."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x, boxes):
        features = torch.relu(self.conv(x))
        pooled = torchvision.ops.roi_align(features, [boxes], output_size=(2, 2), spatial_scale=1.0)
        scores = pooled.mean(dim=(1, 2, 3))
        keep = torchvision.ops.nms(boxes, scores, 0.5)
        return boxes[keep], scores[keep]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    model = Detect().eval()
    x = torch.rand(1, 3, 16, 16)
    boxes = torch.tensor([[0.0, 0.0, 8.0, 8.0], [1.0, 1.0, 9.0, 9.0], [6.0, 6.0, 15.0, 15.0]])
    torch.jit.save(torch.jit.script(model), os.path.join(out, "ops_scripted.pt"))
    torch.jit.save(torch.jit.trace(model, (x, boxes)), os.path.join(out, "ops_traced.pt"))
    print(f"wrote {out}/ops_scripted.pt, {out}/ops_traced.pt")


if __name__ == "__main__":
    main()
