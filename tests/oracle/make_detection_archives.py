#!/usr/bin/env python3
"""The real-model archives of issue 22 (torchvision, weights=None): for tests and by hand, never committed (13-76 MB).

    .venv/bin/python tests/oracle/make_detection_archives.py DIR [NAME ...]

writes into DIR (existing archives are kept):
    det_traced.pt     fasterrcnn_mobilenet_v3_large_320_fpn traced at 320x320 through a wrapper returning tensors
                      (boxes, scores, labels of the one image), as a user exports a detection model with torch.jit.trace
    det_scripted.pt   the same model scripted
    lraspp_scripted.pt  lraspp_mobilenet_v3_large scripted
    det_traced.json   what PyTorch computes for each input set of det_traced.pt, eagerly and with the traced archive
                      loaded back (torch.jit.load): the shapes of its outputs, and the size transform.py resizes the
                      image to (the oracle of `jitscope-cli check det_traced.pt`)
    resize_traced.pt  a user's preprocessing traced at 320x320 (no torchvision, a few KB): the image scaled so
                      that its short side is 320, its size through int(), so the trace bakes [320, 320] into
                      upsample_bilinear2d, and a 3x3 convolution
    reshape_traced.pt the image reshaped to rows of its width through int(): [3, 320, -1] baked, which fails on
                      an image of another width
    resize_traced.json, reshape_traced.json  per set, the archive's output shapes or its error under PyTorch, and
                      the eager module's output shapes

Images are made as JitScope makes `f32[3,H,W]` (torch.manual_seed(0); torch.rand), the sets of the JSON being
f32[3,320,320] (the trace's input) and f32[3,256,384]. Nothing is downloaded: weights and weights_backbone are None.
"""
import json
import os
import sys
import warnings

import torch
import torchvision
from torchvision.models.detection import transform as detection_transform

SETS = [[3, 320, 320], [3, 256, 384]]
NAMES = ["det_traced", "det_scripted", "lraspp_scripted", "resize_traced", "reshape_traced"]


class Resize(torch.nn.Module):
    """The image scaled so that its short side is 320, as a user's preprocessing often does it."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, image):
        h, w = int(image.shape[-2]), int(image.shape[-1])
        scale = 320 / min(h, w)
        size = [int(h * scale), int(w * scale)]
        x = torch.nn.functional.interpolate(image[None], size=size, mode="bilinear", align_corners=False)
        return self.conv(x)


class Reshape(torch.nn.Module):
    """The image as rows of its width."""

    def forward(self, image):
        width = int(image.shape[-1])
        return image.reshape(3, width, -1).sum(-1)


SMALL = {"resize_traced": Resize, "reshape_traced": Reshape}


class Detections(torch.nn.Module):
    """The model on one image, its first result as tensors: what torch.jit.trace can record."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, image):
        result = self.model([image])[0]
        return result["boxes"], result["scores"], result["labels"]


def detection_model():
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # Every detection kept (the random weights score below the default 0.05): up to 100 boxes an image.
        model = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
            weights=None, weights_backbone=None, box_score_thresh=0.0
        )
    return model.eval()


def image(dims):
    torch.manual_seed(0)
    return torch.rand(dims)


def resized_sizes(module, x):
    """The image sizes transform.py's resize gives, in order: interpolate's output as the model runs."""
    sizes = []
    original = detection_transform._resize_image_and_masks

    def record(*args, **kwargs):
        out = original(*args, **kwargs)
        sizes.append(list(out[0].shape[-2:]))
        return out

    detection_transform._resize_image_and_masks = record
    try:
        with torch.no_grad():
            outputs = module(x)
    finally:
        detection_transform._resize_image_and_masks = original
    return sizes, [list(o.shape) for o in outputs]


def first_convolution_input(module, x):
    """The shape the first convolution sees (the resized, padded batch), from the profiler: what a loaded archive
    resizes to."""
    with torch.no_grad(), torch.autograd.profiler.profile(record_shapes=True) as prof:
        module(x)
    for event in prof.function_events:
        if event.name == "aten::_convolution":
            return event.input_shapes[0]
    return None


def traced_oracle(wrapper, path):
    """Eager and loaded-archive output shapes per set, and the image size each resizes to."""
    loaded = torch.jit.load(path)
    sets = []
    for dims in SETS:
        x = image(dims)
        eager_resize, eager_shapes = resized_sizes(wrapper, x)
        with torch.no_grad():
            archive_shapes = [list(o.shape) for o in loaded(image(dims))]
        sets.append(
            {
                "set": "f32[%s]" % ",".join(str(d) for d in dims),
                "eager_resize": eager_resize[0],
                "eager_backbone_input": first_convolution_input(wrapper, image(dims)),
                "archive_backbone_input": first_convolution_input(loaded, image(dims)),
                "eager_outputs": eager_shapes,
                "archive_outputs": archive_shapes,
            }
        )
    return {"model": "fasterrcnn_mobilenet_v3_large_320_fpn", "traced_at": SETS[0], "sets": sets}


def small_oracle(module, path):
    loaded = torch.jit.load(path)
    sets = []
    for dims in SETS:
        entry = {"set": "f32[%s]" % ",".join(str(d) for d in dims)}
        with torch.no_grad():
            entry["eager_outputs"] = [list(module(image(dims)).shape)]
            try:
                entry["archive_outputs"] = [list(loaded(image(dims)).shape)]
            except RuntimeError as e:
                entry["archive_error"] = str(e).strip().splitlines()[-1]
        sets.append(entry)
    return {"traced_at": SETS[0], "sets": sets}


def save(module, out):
    torch.jit.save(module, out + ".part")
    os.replace(out + ".part", out)
    print(f"wrote {out}", flush=True)


def make(name, directory):
    out = os.path.join(directory, name + ".pt")
    if name == "det_traced":
        oracle = os.path.join(directory, name + ".json")
        if os.path.exists(out) and os.path.exists(oracle):
            return
        wrapper = Detections(detection_model())
        if not os.path.exists(out):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                traced = torch.jit.trace(wrapper, (image(SETS[0]),), check_trace=False)
            save(traced, out)
        with open(oracle, "w", encoding="utf-8") as f:
            json.dump(traced_oracle(wrapper, out), f, indent=1)
            f.write("\n")
        return
    if name in SMALL:
        oracle = os.path.join(directory, name + ".json")
        if os.path.exists(out) and os.path.exists(oracle):
            return
        torch.manual_seed(0)
        module = SMALL[name]().eval()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            save(torch.jit.trace(module, (image(SETS[0]),), check_trace=False), out)
        with open(oracle, "w", encoding="utf-8") as f:
            json.dump(small_oracle(module, out), f, indent=1)
            f.write("\n")
        return
    if os.path.exists(out):
        return
    if name == "det_scripted":
        model = detection_model()
    else:
        torch.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = torchvision.models.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None)
        model.eval()
    save(torch.jit.script(model), out)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    directory = sys.argv[1]
    names = sys.argv[2:] or NAMES
    for name in names:
        if name not in NAMES:
            sys.exit(f"unknown archive '{name}': one of {', '.join(NAMES)}")
    os.makedirs(directory, exist_ok=True)
    for name in names:
        make(name, directory)


if __name__ == "__main__":
    main()
