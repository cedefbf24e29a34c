#!/usr/bin/python3
"""Script a torchvision model (random init) and save it: for benchmarks and tests, never committed.

    /usr/bin/python3 tests/oracle/make_torchvision.py MODEL OUT.pt   (MODEL: resnet18, resnet50, ...)
"""
import sys
import warnings

import torch
import torchvision


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    name, out = sys.argv[1], sys.argv[2]
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = getattr(torchvision.models, name)(weights=None)
    model.eval()
    torch.jit.save(torch.jit.script(model), out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
