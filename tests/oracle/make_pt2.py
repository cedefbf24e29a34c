"""The .pt2 fixtures of tests/data/pt2 (and the hostile ones of tests/data/hostile), made by real torch.export.

Run from the repository root with the engine's Python (torch 2.14):
    .venv/bin/python tests/oracle/make_pt2.py

For each model: NAME.pt2, written by torch.export.save, and NAME.oracle.json, what torch says of the program
(ep.graph's placeholders, call_function nodes with their kinds, outputs; the graph signature; the range
constraints; the class of each module of nn_module_stack), which tst_exportedprogram holds JitScope's reader to.

The older layout (serialized_exported_program.json beside serialized_state_dict.pt, serialized_constants.pt,
serialized_example_inputs.pt and a version file, as torch.export.save wrote from torch 2.1 to 2.7): no torch on
this machine writes it any more (torch 2.13.0's save calls package_pt2 as 2.14's does; Debian's 1.13 has no
torch.export), so legacy_linear_relu.pt2 is this torch's serialize() of the program, packed as torch 2.5's save()
packed it (torch/export/__init__.py at v2.5.0: zipfile.ZipFile(f, "w"), writestr of the four artifacts and
"version" = ".".join(SCHEMA_VERSION)). Its JSON is therefore schema 8.x, as torch 2.6 and 2.7 wrote it.

Stack traces name files by absolute paths; before saving, the generator makes them relative (this repository's
files to the repository, torch's to its site-packages folder) so that the fixtures hold no machine paths. torch
saves what it finds in node.meta, so the rest of each file is what torch wrote.

The hostile packages (tests/data/hostile/pt2_*.pt2) are made from linear_relu.pt2: truncated, its JSON cut, its
schema major version raised past the reader's, a central directory declaring a 4 GiB entry, and a package laid
out as torch._inductor.aoti_compile_and_package lays out an AOTInductor package (archive_format, its
data/aotinductor/model/ entries; the compiled library is a stand-in, since compiling one takes a C++ toolchain
and minutes).
"""

import json
import operator
import os
import struct
import sys
import sysconfig
import zipfile

import torch

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "data", "pt2")
HOSTILE = os.path.join(ROOT, "tests", "data", "hostile")
SEEDS = os.path.join(ROOT, "tests", "fuzz", "corpus", "pt2")
SITE = os.path.dirname(os.path.dirname(torch.__file__))


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)
        self.act = torch.nn.ReLU()

    def forward(self, x):
        return self.act(self.lin(x))


class LinearRelu(torch.nn.Module):
    """Linear and ReLU in a submodule."""

    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        return self.block(x) + 1


class DynamicBatch(torch.nn.Module):
    """A batch dimension given as dynamic, with its range."""

    def __init__(self):
        super().__init__()
        self.encoder = Block()
        self.head = torch.nn.Linear(3, 2)

    def forward(self, x):
        h = self.encoder(x)
        return self.head(h).softmax(dim=-1), h.shape[0] * 2


class BufferConstant(torch.nn.Module):
    """A buffer, a tensor constant and constant arguments (int lists, a float, a bool)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.register_buffer("scale", torch.full((4, 1, 1), 0.5))
        self.offset = torch.tensor([1.0, 2.0, 3.0, 4.0])

    def forward(self, x):
        y = self.bn(self.conv(x)) * self.scale
        y = torch.nn.functional.adaptive_avg_pool2d(y, (1, 1)).flatten(1)
        return torch.clamp(y + self.offset, min=-0.5, max=6.0), y.mean(dim=[1], keepdim=True)


class Branch(torch.nn.Module):
    """torch.cond: two subgraphs."""

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: t.sin(), lambda t: t.cos(), (x,))


def models():
    batch = torch.export.Dim("batch", min=2, max=1024)
    yield "linear_relu", LinearRelu(), (torch.randn(2, 4),), None
    yield "dynamic_batch", DynamicBatch(), (torch.randn(8, 4),), {"x": {0: batch}}
    yield "buffer_constant", BufferConstant().eval(), (torch.randn(1, 3, 8, 8),), None
    yield "branch", Branch(), (torch.randn(3),), None


def relative(path):
    for base in (ROOT, SITE):
        if path.startswith(base + os.sep):
            return os.path.relpath(path, base)
    return path


def strip_machine_paths(ep):
    def fix(graph):
        for node in graph.nodes:
            st = node.meta.get("stack_trace")
            if st:
                node.meta["stack_trace"] = st.replace(ROOT + os.sep, "").replace(SITE + os.sep, "")

    fix(ep.graph)
    for _, sub in ep.graph_module.named_modules():
        if isinstance(sub, torch.fx.GraphModule):
            fix(sub.graph)


def kind_of(target):
    if isinstance(target, torch._ops.OpOverload):
        return f"{target.namespace}::{target._opname}", target._overloadname
    if isinstance(target, torch._ops.HigherOrderOperator):
        return f"higher_order::{target.name()}", ""
    return f"{target.__module__}::{target.__name__}", ""


def bound(v):
    if v is None:
        return None
    try:
        i = int(v)
    except (TypeError, ValueError):
        return None
    return i if abs(i) < 2**62 else None


def oracle(ep):
    g = ep.graph
    placeholders = [n.name for n in g.nodes if n.op == "placeholder"]
    nodes = []
    modules = {}
    for n in g.nodes:
        if n.op != "call_function":
            continue
        # torch's serializer writes a getitem of an op's result as that op's output, not as a node
        # (serialize.py: "getitem has been handled in the producer node").
        if n.target is operator.getitem and isinstance(n.args[0], torch.fx.Node) and n.args[0].op == "call_function":
            continue
        kind, overload = kind_of(n.target)
        stack = dict(n.meta.get("nn_module_stack") or {})
        # The key torch's passes give a node they make with no module (torch/_export/passes/_node_metadata_hook.py).
        stack.pop("_empty_nn_module_stack_from_metadata_hook", None)
        path = list(stack.values())[-1][0] if stack else ""
        for p, ty in stack.values():
            modules.setdefault(p, ty.__module__ + "." + ty.__qualname__ if isinstance(ty, type) else str(ty))
        nodes.append({"name": n.name, "kind": kind, "overload": overload, "module": path})
    out = next(n for n in g.nodes if n.op == "output")
    outputs = [a.name if isinstance(a, torch.fx.Node) else repr(a) for a in out.args[0]]
    sig = ep.graph_signature
    kinds = {
        "USER_INPUT": "user input",
        "PARAMETER": "parameter",
        "BUFFER": "buffer",
        "CONSTANT_TENSOR": "constant",
        "CUSTOM_OBJ": "custom object",
        "TOKEN": "token",
    }
    inputs = [[kinds[s.kind.name], s.arg.name, s.target or ""] for s in sig.input_specs]
    ranges = {str(k): [bound(v.lower), bound(v.upper)] for k, v in ep.range_constraints.items()}
    return {
        "torch": torch.__version__,
        "placeholders": placeholders,
        "nodes": nodes,
        "outputs": outputs,
        "inputs": inputs,
        "range_constraints": ranges,
        "modules": modules,
    }


def save_legacy(ep, path):
    from torch._export.serde.schema import SCHEMA_VERSION
    from torch._export.serde.serialize import serialize

    artifact = serialize(ep)
    with zipfile.ZipFile(path, "w") as zipf:
        zipf.writestr("serialized_exported_program.json", artifact.exported_program)
        zipf.writestr("serialized_state_dict.pt", artifact.state_dict)
        zipf.writestr("serialized_constants.pt", artifact.constants)
        zipf.writestr("serialized_example_inputs.pt", artifact.example_inputs)
        zipf.writestr("version", ".".join(map(str, SCHEMA_VERSION)))


def rewrite(src, dst, change):
    """The package with change(name, data) -> data (None drops the entry) applied to each entry, stored."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = change(info.filename, zin.read(info.filename))
            if data is not None:
                zout.writestr(info.filename, data)


def make_hostile(good):
    def model_json(change):
        return lambda name, data: change(data) if name.endswith("models/model.json") else data

    with open(good, "rb") as f:
        whole = f.read()
    with open(os.path.join(HOSTILE, "pt2_truncated.pt2"), "wb") as f:
        f.write(whole[: len(whole) // 2])
    rewrite(good, os.path.join(HOSTILE, "pt2_corrupt_json.pt2"), model_json(lambda d: d[: len(d) // 3]))

    def newer(d):
        j = json.loads(d)
        j["schema_version"]["major"] += 1
        return json.dumps(j).encode()

    rewrite(good, os.path.join(HOSTILE, "pt2_newer_schema.pt2"), model_json(newer))

    # An AOTInductor package: what aoti_compile_and_package writes for a model named "model" (archive_format,
    # archive_version, data/aotinductor/model/ with the compiled wrapper, its metadata and the weights' blobs).
    aoti = os.path.join(HOSTILE, "pt2_aotinductor.pt2")
    with zipfile.ZipFile(aoti, "w") as z:
        z.writestr("model/archive_format", "pt2")
        z.writestr("model/archive_version", "0")
        z.writestr("model/data/aotinductor/model/cxyz.wrapper.so", b"\x7fELF stand-in for the compiled model")
        z.writestr("model/data/aotinductor/model/cxyz_metadata.json", json.dumps({"AOTI_DEVICE_KEY": "cpu"}))
        z.writestr("model/data/aotinductor/model/cxyz.wrapper.cpp", "// generated by AOTInductor\n")

    # The central directory says model.json inflates to 4 GiB (its zip64 field): a zip bomb's claim.
    huge = os.path.join(HOSTILE, "pt2_huge_entry.pt2")
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(huge, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info.filename))
    with open(huge, "rb") as f:
        data = bytearray(f.read())
    end = data.rfind(b"PK\x05\x06")
    (dir_offset,) = struct.unpack_from("<I", data, end + 16)
    pos = dir_offset
    while data[pos : pos + 4] == b"PK\x01\x02":
        name_len, extra_len, comment_len = struct.unpack_from("<HHH", data, pos + 28)
        name = bytes(data[pos + 46 : pos + 46 + name_len])
        if name.endswith(b"models/model.json"):
            struct.pack_into("<I", data, pos + 24, 0xFFFFFFF0)
        pos += 46 + name_len + extra_len + comment_len
    with open(huge, "wb") as f:
        f.write(data)


def write_seeds(name, path):
    """fuzz_pt2's seeds (tests/fuzz/fuzz_pt2.cpp: byte 0 says what follows): the program's JSON alone (1), packed
    by the fuzzer in either layout (2), and for linear_relu the whole package (0)."""
    with zipfile.ZipFile(path) as z:
        program = z.read(next(n for n in z.namelist() if n.endswith(".json") and "/models/" in n or n.startswith("serialized")))
    seeds = {"json_" + name: b"\x01\x00" + program, "zip_" + name: b"\x02\x00" + program}
    if name == "linear_relu":
        seeds["legacy_" + name] = b"\x02\x01" + program
        with open(path, "rb") as f:
            seeds["package_" + name] = b"\x00" + f.read()
    for seed, data in seeds.items():
        with open(os.path.join(SEEDS, seed), "wb") as f:
            f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(SEEDS, exist_ok=True)
    torch.manual_seed(0)
    for name, module, args, dynamic in models():
        ep = torch.export.export(module, args, dynamic_shapes=dynamic)
        strip_machine_paths(ep)
        path = os.path.join(OUT, name + ".pt2")
        torch.export.save(ep, path)
        with open(os.path.join(OUT, name + ".oracle.json"), "w") as f:
            json.dump(oracle(ep), f, indent=1, sort_keys=True)
            f.write("\n")
        if name == "linear_relu":
            legacy = os.path.join(OUT, "legacy_linear_relu.pt2")
            save_legacy(ep, legacy)
            with open(os.path.join(OUT, "legacy_linear_relu.oracle.json"), "w") as f:
                json.dump(oracle(ep), f, indent=1, sort_keys=True)
                f.write("\n")
            make_hostile(path)
        write_seeds(name, path)
        print(name, len(ep.graph.nodes), "nodes")


if __name__ == "__main__":
    sys.exit(main())
