#!/usr/bin/env python3
"""Print torch.jit.trace's graph of a torchvision model (random init, eval mode) on a rand input, its submodule
calls inlined (traced.inlined_graph, what the trace's check compares).

    .venv/bin/python tests/oracle/trace_torchvision.py MODEL D0,D1,...   (e.g. resnet18 1,3,64,64)

The input is made as JitScope makes `f32[D0,D1,...]` with seed 0 (torch.manual_seed(0); torch.rand).
Used by tests at test time next to make_torchvision.py; nothing is committed.
"""
import re
import sys
import warnings

import torch
import torchvision


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    name, dims = sys.argv[1], [int(d) for d in sys.argv[2].split(",")]
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = getattr(torchvision.models, name)(weights=None)
    model.eval()
    torch.manual_seed(0)
    x = torch.rand(dims)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(model, (x,), check_trace=False)
    text = re.sub(r"___torch_mangle_\d+\.", "", str(traced.inlined_graph))
    # Source comments and module scopes aside (JitScope's dump prints neither).
    text = "\n".join(re.sub(r"\s+# .*:\d+:\d+$", "", l).rstrip() for l in text.splitlines())
    print(re.sub(r", scope: \S+", "", text))


if __name__ == "__main__":
    main()
