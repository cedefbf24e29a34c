#!/usr/bin/python3
"""Script torchvision's resnet18 (random init) and save it for tests.

    /usr/bin/python3 tests/oracle/make_resnet18.py OUT.pt

Called by tests at test time; the archive (~45 MB) is not committed.
"""
import sys
import warnings

import torch
import torchvision


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            model = torchvision.models.resnet18(weights=None)
        except TypeError:  # torchvision < 0.13
            model = torchvision.models.resnet18(pretrained=False)
    model.eval()
    scripted = torch.jit.script(model)
    torch.jit.save(scripted, sys.argv[1])
    print(f"wrote {sys.argv[1]}")


if __name__ == "__main__":
    main()
