#!/usr/bin/env python3
"""An archive as a torch newer than the engine's would write it, for tests: never committed.

    .venv/bin/python tests/oracle/make_newer_torch_archive.py OUT.pt [PRODUCER]

A scripted module whose code calls an operator the engine's libtorch lacks (aten::relu_of_2_99, as a newer torch's
aten::rms_norm was to libtorch 1.13), with the extra file JitScope's bridge writes into the archives it saves
(jitscope_producer: PRODUCER, default "torch 2.99.0"; "" leaves it out, as torch.jit.save of a user's own does).
"""
import io
import sys
import warnings
import zipfile

import torch


class Module(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) + 1


def main():
    out = sys.argv[1]
    producer = sys.argv[2] if len(sys.argv) > 2 else "torch 2.99.0"
    saved = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.jit.save(torch.jit.script(Module()), saved,
                       _extra_files={"jitscope_producer": producer} if producer else {})
    with zipfile.ZipFile(saved) as zin, zipfile.ZipFile(out, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename.endswith(".py"):
                data = data.replace(b"torch.relu(", b"torch.relu_of_2_99(")
            zout.writestr(item, data)


if __name__ == "__main__":
    main()
