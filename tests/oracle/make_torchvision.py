#!/usr/bin/env python3
"""Script torchvision models (random init) and save them: for benchmarks and tests, never committed.

    .venv/bin/python tests/oracle/make_torchvision.py MODEL OUT.pt   (MODEL: resnet18, resnet50, ...)
    .venv/bin/python tests/oracle/make_torchvision.py --all DIR      every model of torchvision.models.list_models()
                                                                    into DIR/MODEL.pt (existing files are kept)

With --all, a model torch.jit.script rejects (or that cannot be built) is listed in DIR/unscriptable.txt with
the first line of its error, and the run goes on.
"""
import os
import sys
import warnings

import torch
import torchvision


def build(name):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:  # detection and segmentation models would download an ImageNet backbone
            model = torchvision.models.get_model(name, weights=None, weights_backbone=None)
        except TypeError:
            model = torchvision.models.get_model(name, weights=None)
    model.eval()
    return torch.jit.script(model)


def make_all(directory):
    os.makedirs(directory, exist_ok=True)
    failed = {}
    for name in torchvision.models.list_models():
        out = os.path.join(directory, name + ".pt")
        if os.path.exists(out):
            continue
        try:
            scripted = build(name)
        except Exception as e:  # noqa: BLE001 - any failure is reported and skipped
            failed[name] = (str(e).strip().splitlines() or [type(e).__name__])[0]
            print(f"cannot script {name}: {failed[name]}", flush=True)
            continue
        torch.jit.save(scripted, out + ".part")
        os.replace(out + ".part", out)
        print(f"wrote {out}", flush=True)
    with open(os.path.join(directory, "unscriptable.txt"), "w", encoding="utf-8") as f:
        for name, error in failed.items():
            f.write(f"{name}\t{error}\n")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    if sys.argv[1] == "--all":
        make_all(sys.argv[2])
        return
    name, out = sys.argv[1], sys.argv[2]
    torch.jit.save(build(name), out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
