#!/usr/bin/env python3
"""Differential testing at scale: many small functions over the tensor API, traced by real torch.jit.trace.

Run from anywhere (it chdirs to the repo root):

    .venv/bin/python tests/oracle/gen_differential.py [FAMILY ...]

With family names, only those families are written (the others are still drawn, so the output is the same).

Writes (committed; tests never regenerate them):

  tests/data/differential/<family>.py            the generated functions of one family
  tests/data/differential/expected/<family>.json per function: its input sets, per set what
                                                 torch.jit.trace recorded (graph, normalised as
                                                 generate_traces.py does; TracerWarnings with
                                                 their kind and line) and the check_inputs verdict

Deterministic: the functions come from fixed templates, the choices among them from
random.Random(SEED), the inputs from torch.manual_seed(0) per set (inputsets.create_set), so two runs
write the same bytes. Every function is kept only if torch.jit.script compiles it (JitScope runs the
script graph; the generator says how many templates it dropped).

Per set k: fresh inputs, torch.jit.trace(fn, inputs, check_trace=False); per function: all sets
created, torch.manual_seed(0), torch.jit.trace(fn, set0, check_inputs=[set1, ...]) with the verdict
rule of generate_traces.py ("diverged": TracingCheckError or an "Output nr" warning; "error": any
other exception; else "consistent") and the kinds of the check's own TracerWarnings
("nondeterministic-op", "output-mismatch"). tests/core/tst_differential.cpp compares JitScope's traces,
warnings and verdicts with these.

The families of the tensor API (unary to control) and their input sets are in differential_cases.py; the
library-code families of issue 21 and the table of all families are here.
"""
import random
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402

import inputsets  # noqa: E402
from differential_cases import (  # noqa: E402
    binary, casts, control, factories, fn, indexing, inplace, numbers, reductions, shapes, unary)
from generate import load_source_module, start_generator, write_json, write_text  # noqa: E402
from generate_traces import CaptureWarnings, error_text, graph_text  # noqa: E402

SEED = 11
OUT_DIR = Path("tests/data/differential")
EXPECTED_DIR = OUT_DIR / "expected"


def warning_kind(message):
    """PyTorch's TracerWarning first lines, by JitScope kind (as tests/core/testutil.h maps them)."""
    prefixes = [
        ("Converting a tensor to a Python boolean", "tensor-to-bool"),
        ("Converting a tensor to a Python index", "tensor-to-index"),
        ("Converting a tensor to a Python", "tensor-to-number"),
        ("Using len to get tensor shape", "len-of-tensor"),
        ("Iterating over a tensor", "iterating-tensor"),
        ("torch.tensor results are registered as constants", "baked-constant"),
        ("torch.as_tensor results are registered as constants", "baked-constant"),
        ("Output nr", "output-mismatch"),
        ("Trace had nondeterministic nodes", "nondeterministic-op"),
    ]
    for prefix, kind in prefixes:
        if message.startswith(prefix):
            return kind
    return "other"



# ---- library code (issue 21): what Python's lists, builtins and binding wrappers do with traced sizes ----------

SIZE2 = ["f32[2,3]", "f32[4,5]", "f32[3,3]", "f32[2,4]=full:2"]


def sizelists():
    """Sizes put in Python lists (literals, append, setitem, insert, extend, pop, comprehensions, enumerate over
    x.shape), max()/min() of sizes, split sizes from a list: Python keeps each a traced 0-dim tensor."""
    out = []
    lists = [
        ("lit", ["sizes = [x.size(0), x.size(1)]"]),
        ("shape_list", ["sizes = list(x.shape)"]),
        ("append", ["sizes: List[int] = []", "sizes.append(x.size(0))", "sizes.append(x.size(1))"]),
        ("enumerate_shape", ["sizes: List[int] = []", "for i, s in enumerate(x.shape):", "    sizes.append(s + i - i)"]),
        ("comprehension", ["sizes = [s for s in x.shape]"]),
        ("comp_range", ["sizes = [x.size(i) for i in range(2)]"]),
        ("setitem", ["sizes = [1, 1]", "sizes[0] = x.size(0)", "sizes[1] = x.size(1)"]),
        ("insert", ["sizes = [x.size(1)]", "sizes.insert(0, x.size(0))"]),
        ("extend", ["sizes: List[int] = []", "sizes.extend([x.size(0), x.size(1)])"]),
        ("concat", ["sizes = [x.size(0)] + [x.size(1)]"]),
        ("pop", ["sizes = [x.size(0), x.size(1), 7]", "sizes.pop()"]),
        ("max_by_axis", ["sizes = [0, 0]", "for index, item in enumerate(x.shape):",
                         "    sizes[index] = max(sizes[index], item)"]),
        ("unpacked", ["h, w = x.shape[0], x.shape[1]", "sizes = [h, w]"]),
        ("augmented", ["sizes = [x.size(0)]", "sizes += [x.size(1)]"]),
        ("reversed", ["sizes = list(x.shape)", "sizes.reverse()"]),
    ]
    sinks = [
        ("new_zeros", "return x.new_zeros(sizes)"),
        ("reshape", "return x.reshape(sizes) * 2"),
        ("view_items", "return x.view(sizes[0], sizes[1])"),
        ("zeros_like_dtype", "return torch.zeros(sizes, dtype=x.dtype) + x"),
        ("expand", "return x.expand(sizes)"),
        ("new_ones_swapped", "return x.new_ones(sizes[1], sizes[0])"),
    ]
    for lname, lines in lists:
        for sname, ret in sinks:
            out.append(fn(f"{lname}_{sname}", "x", lines + [ret], SIZE2))
    ints = [
        ("max2", ["n = max(x.size(0), x.size(1))"]),
        ("min2", ["n = min(x.size(0), x.size(1))"]),
        ("max_list", ["n = max([x.size(0), x.size(1)])"]),
        ("min_list", ["n = min([x.size(0), x.size(1)])"]),
        ("max_shape", ["n = max(x.shape)"]),
        ("list_index", ["n = [x.size(0), x.size(1)][1]"]),
        ("pop_last", ["sizes = list(x.shape)", "n = sizes.pop()"]),
        ("sum_loop", ["n = 0", "for s in x.shape:", "    n = n + s"]),
        ("max_loop", ["n = 1", "for s in x.shape:", "    n = max(n, s)"]),
        ("sum_shape", ["n = sum(x.shape)"]),
        ("sum_list", ["n = sum([x.size(0), 2, x.size(1)])"]),
        ("min_shape_tail", ["n = min(x.shape[-2:])"]),
    ]
    int_sinks = [
        ("new_zeros", "return x.new_zeros(n)"),
        ("flat_prefix", "return x.reshape(-1)[:n]"),
        ("new_full", "return x.new_full([n, 2], 1.5)"),
        ("arange", "return torch.arange(n, dtype=x.dtype) + x.sum()"),
    ]
    for iname, lines in ints:
        for sname, ret in int_sinks:
            out.append(fn(f"{iname}_{sname}", "x", lines + [ret], SIZE2))
    splits = [
        ("split_list", ["sizes = [x.size(0) // 2, x.size(0) - x.size(0) // 2]", "a, b = torch.split(x, sizes)",
                        "return a.sum() + b.sum()"]),
        ("split_append", ["sizes: List[int] = []", "sizes.append(x.size(1) - 1)", "sizes.append(1)",
                          "parts = x.split(sizes, 1)", "return parts[0] * 2"]),
        ("split_comp", ["sizes = [1 for _ in range(x.size(0))]", "parts = x.split(sizes)",
                        "return torch.cat([p * 2 for p in parts])"]),
        ("split_with_sizes", ["sizes = [x.size(1) - 1, 1]", "return torch.split(x, sizes, dim=1)[1]"]),
    ]
    for name, body in splits:
        out.append(fn(name, "x", body, SIZE2))
    return out


INTERP4 = ["f32[1,2,4,4]", "f32[2,1,3,5]", "f32[1,1,6,6]"]
INTERP3 = ["f32[1,2,5]", "f32[2,1,3]", "f32[1,3,4]"]


def intwrappers():
    """Python wrappers that call int() on a size (Tensor.split), and F.interpolate's sizes built by a comprehension."""
    out = []
    exprs = [("half", "x.size(0) // 2"), ("less_one", "x.shape[0] - 1"), ("whole", "x.size(0)"),
             ("max_half", "max(x.size(0) // 2, 1)"), ("literal", "2"), ("var", "n")]
    callers = [("torch_split", "parts = torch.split(x, {e})"), ("method_split", "parts = x.split({e})"),
               ("split_dim0", "parts = torch.split(x, {e}, dim=0)")]
    for ename, e in exprs:
        for cname, call in callers:
            body = (["n = x.size(0) // 2"] if ename == "var" else []) + [call.format(e=e), "return parts[0] * 2"]
            out.append(fn(f"{cname}_{ename}", "x", body, SIZE2))
    for ename, e in [("half", "x.size(1) // 2"), ("last", "x.shape[-1] - 1")]:
        out.append(fn(f"split_dim1_{ename}", "x", [f"parts = x.split({e}, 1)", "return parts[-1] + 1"], SIZE2))
        out.append(fn(f"split_cat_{ename}", "x", [f"parts = torch.split(x, {e}, 1)", "return torch.cat(parts, 1)"],
                      SIZE2))
    sizes = [("int_of_size", "x.size(2) * 2"), ("int_last", "x.shape[-1]"), ("int_max", "max(x.size(2), x.size(3))"),
             ("list_sizes", "[x.size(2) * 2, x.size(3)]"), ("tuple_sizes", "(x.shape[2], x.shape[3] * 2)"),
             ("int_literal", "8"), ("int_var", "n")]
    modes = [("nearest", "mode=\"nearest\""), ("bilinear", "mode=\"bilinear\", align_corners=False"),
             ("bicubic", "mode=\"bicubic\", align_corners=True"), ("area", "mode=\"area\"")]
    for sname, size in sizes:
        for mname, mode in modes:
            body = (["n = x.size(-1) + 1"] if sname == "int_var" else []) + [
                f"return F.interpolate(x, size={size}, {mode})"]
            out.append(fn(f"interp_{mname}_{sname}", "x", body, INTERP4))
    for sname, size in [("int_of_size", "x.size(2) * 2"), ("list_of_size", "[x.shape[-1] + 1]"),
                        ("int_max", "max(x.size(1), x.size(2))")]:
        for mname, mode in [("linear", "mode=\"linear\", align_corners=False"), ("nearest", "mode=\"nearest\"")]:
            out.append(fn(f"interp1d_{mname}_{sname}", "x", f"return F.interpolate(x, size={size}, {mode})",
                          INTERP3))
    out.append(fn("interp_scale", "x", "return F.interpolate(x, scale_factor=2.0)", INTERP4))
    out.append(fn("upsample_size_of", "x", "return F.upsample(x, size=x.size(2) + 1)", INTERP4))
    return out


def tensorints():
    """A one-element tensor where an int is expected: Python's argument parser reads int-list elements with item()
    while tracing and records aten::Int of the tensor."""
    out = []
    kinds = [("i64", "i64[1]"), ("i32", "i32[1]"), ("i64_2d", "i64[1,1]"), ("i64_0d", "i64[]")]
    sinks = [
        ("zeros", "return torch.zeros(t) + x.sum()"),
        ("ones_square", "return torch.ones(t, t) * x.mean()"),
        ("new_zeros", "return x.new_zeros(t)"),
        ("new_ones_pair", "return x.new_ones(t, 2)"),
        ("view", "return x.view(t, -1)"),
        ("reshape", "return x.reshape(t, -1) + 1"),
        ("expand", "return x.unsqueeze(0).expand(t, -1, -1)"),
        ("repeat", "return x.repeat(t, 1)"),
        ("empty_fill", "return torch.empty(t, 3).fill_(0.5) + x.sum()"),
    ]
    for kname, kind in kinds:
        sets = [f"f32[4,3]; {kind}=full:2", f"f32[2,5]; {kind}=full:1", f"f32[6,2]; {kind}=full:3"]
        for sname, ret in sinks:
            out.append(fn(f"{sname}_{kname}", "x, t", ret, sets))
    return out


def comprehensions():
    """Comprehensions with a tuple target, as torchvision's box coders and anchor grids write them."""
    out = []
    two = ["f32[3,4]; f32[3,4]", "f32[2,5]; f32[2,5]", "f32[4,2]; f32[4,2]"]
    bodies = [
        ("zip_products", "x, y", ["return torch.stack([a * b for a, b in zip(x.unbind(0), y.unbind(0))])"], two),
        ("zip_sums", "x, y", ["return torch.cat([a + b for a, b in zip(x.split(1), y.split(1))])"], two),
        ("enumerate_scale", "x", ["return torch.stack([r * i for i, r in enumerate(x.unbind(0))], 0)"], SIZE2),
        ("enumerate_shape", "x", ["sizes = [s * (i + 1) for i, s in enumerate(x.shape)]", "return x.new_zeros(sizes)"],
         SIZE2),
        ("zip_shapes", "x, y", ["sizes = [a + b for a, b in zip(x.shape, y.shape)]", "return x.new_ones(sizes)"], two),
        ("zip_tuple_list", "x, y", ["pairs = [(a, b) for a, b in zip(x.unbind(1), y.unbind(1))]",
                                    "return torch.stack([a - b for a, b in pairs], 1)"], two),
        ("nested_tuple", "x, y", ["return torch.stack([a * b + i for i, (a, b) in enumerate(zip(x, y))])"], two),
    ]
    for name, params, body, sets in bodies:
        out.append(fn(name, params, body, sets))
    return out


def tensorvalues():
    """torch.tensor as an index, an assigned value and in augmented assignment on a subscript: Python evaluates it
    first (the right-hand side before setitem), records constant, aten::to and aten::detach, and warns."""
    out = []
    rows = ["f32[4,3]", "f32[5,3]", "f32[3,3]"]
    gets = [
        ("col_index", "return x[:, torch.tensor([0, 2])]"),
        ("row_index", "return x[torch.tensor([1, 0])]"),
        ("row_index_then_slice", "return x[torch.tensor([2, 0]), 1:]"),
        ("long_index", "return x[torch.tensor([0, 1], dtype=torch.long)] * 2"),
        ("as_tensor_index", "return x[:, torch.as_tensor([1])]"),
        ("list_index", "return x[[0, 2]]"),
        ("bool_mask", "return x[:, torch.tensor([True, False, True])]"),
    ]
    for name, ret in gets:
        out.append(fn(f"get_{name}", "x", ret, rows))
    sets = [
        ("row_value", "y[0] = torch.tensor([1.0, 2.0, 3.0])"),
        ("slice_scalar", "y[1:3] = torch.tensor(5.0)"),
        ("column_scalar", "y[:, 0] = torch.tensor(2.0)"),
        ("index_number", "y[torch.tensor([0, 1])] = 0.0"),
        ("index_value", "y[torch.tensor([0])] = torch.tensor(1.5)"),
        ("slice_row_value", "y[1:, 1] = torch.tensor([4.0])"),
        ("number", "y[1] = 3.0"),
        ("list_index_number", "y[[0, 2]] = 1.0"),
    ]
    for name, stmt in sets:
        out.append(fn(f"set_{name}", "x", ["y = x.clone()", stmt, "return y"], rows))
    augs = [
        ("slice_index", "x, u", "y[1:2, 1:3, torch.tensor([1])] += u",
         ["f32[3,4,5]; f32[1,2,1]", "f32[2,3,4]; f32[1,2,1]", "f32[4,4,2]; f32[1,2,1]"]),
        ("index_rows", "x, u", "y[torch.tensor([0, 2])] *= u", ["f32[4,3]; f32[3]", "f32[3,2]; f32[2]", "f32[5,1]; f32[1]"]),
        ("row_tensor", "x", "y[0] += torch.tensor(1.0)", rows),
        ("slice_tensor", "x", "y[:, 1:] *= torch.tensor(2.0)", rows),
        ("index_tensor_value", "x", "y[torch.tensor([1])] -= torch.tensor([0.5, 0.5, 0.5])", rows),
        ("slice_slice", "x, u", "y[1:2, 1:3] += u", ["f32[3,4,5]; f32[1,2,1]", "f32[2,3,4]; f32[1,2,1]"]),
    ]
    for name, params, stmt, sets_ in augs:
        out.append(fn(f"aug_{name}", params, ["y = x.clone()", stmt, "return y"], sets_))
    return out


def tracingstate():
    """torch._C._get_tracing_state() (torchvision's _is_tracing()) and torch.jit.is_tracing(): truthy while
    torch.jit.trace runs the function, so a trace takes the tracing branch; PyTorch's script compiler folds them to
    False."""
    out = []
    bodies = [
        ("if_tracing", ["if torch._C._get_tracing_state():", "    return x * 2", "return x + 1"]),
        ("if_not_tracing", ["if not torch._C._get_tracing_state():", "    return x.clamp(min=0.5)",
                            "return torch.max(x, torch.tensor(0.5))"]),
        ("clip_like_torchvision", ["w = x.size(1)", "if torch._C._get_tracing_state():",
                                   "    y = torch.min(x, torch.tensor(w, dtype=x.dtype))",
                                   "else:", "    y = x.clamp(max=w)", "return y"]),
        ("ternary", ["return x.sum(0) if torch._C._get_tracing_state() else x.sum(1)"]),
        ("and_size", ["if torch._C._get_tracing_state() and x.size(0) > 2:", "    return x[:2]", "return x"]),
        ("or_size", ["if x.size(0) > 100 or torch._C._get_tracing_state():", "    return x.t()", "return x"]),
        ("assigned", ["tracing = torch._C._get_tracing_state()", "y = x", "if tracing:", "    y = y * 3",
                      "return y"]),
        ("in_loop", ["y = x", "for i in range(x.size(0)):", "    if torch._C._get_tracing_state():",
                     "        y = y + x[i]", "return y"]),
        ("size_tensor", ["if torch._C._get_tracing_state():",
                         "    n = torch.tensor(x.size(0), dtype=torch.float32)", "    return x / n",
                         "return x / x.size(0)"]),
        ("jit_is_tracing", ["if torch.jit.is_tracing():", "    return x * 2", "return x + 1"]),
        ("torchvision_logging", ["y = x", "if not torch.jit.is_scripting() and not torch.jit.is_tracing():",
                                 "    y = x - 1", "return y + 1"]),
        ("is_tracing_size", ["n = x.size(0)", "if torch.jit.is_tracing():", "    n = n * 2", "return x.new_zeros(n)"]),
    ]
    for name, body in bodies:
        out.append(fn(name, "x", body, SIZE2))
    return out


FAMILIES = [
    ("unary", "unary element-wise ops (torch.*, methods, F.*)", unary),
    ("binary", "binary ops, broadcasting, type promotion, Python operators", binary),
    ("reductions", "reductions, scans, sort and top-k", reductions),
    ("shapes", "shape and view ops, chunk/split/stack/cat", shapes),
    ("indexing", "indexing and setitem", indexing),
    ("factories", "factories, torch.tensor/as_tensor and new_*", factories),
    ("casts", "casts and to", casts),
    ("inplace", "in-place ops and augmented assignment", inplace),
    ("numbers", "Python numbers and sizes mixed in", numbers),
    ("control", "loops and branches on sizes and on data", control),
    ("sizelists", "sizes through Python lists, max()/min() and split sizes (issue 21)", sizelists),
    ("intwrappers", "int() in Python wrappers: Tensor.split, F.interpolate's sizes (issue 21)", intwrappers),
    ("tensorints", "one-element tensors where ints are expected (issue 21)", tensorints),
    ("comprehensions", "comprehensions with tuple targets (issue 21)", comprehensions),
    ("tensorvalues", "torch.tensor as an index, a value and in augmented assignment (issue 21)", tensorvalues),
    ("tracingstate", "torch._C._get_tracing_state(): the tracing branch (issue 21)", tracingstate),
]

# Families whose source needs more than torch and F.
IMPORTS = {"sizelists": ["from typing import List"]}


# --------------------------------------------------------------------------


def source_of(family, functions):
    lines = [f'"""Generated by tests/oracle/gen_differential.py (family: {family}); do not edit."""',
             "import torch", "import torch.nn.functional as F"] + IMPORTS.get(family, []) + [""]
    for f in functions:
        lines += ["", f"def {f['name']}({f['params']}):"] + ["    " + b for b in f["body"]] + [""]
    return "\n".join(lines).rstrip() + "\n"


def scripts(f, family):
    """True when torch.jit.script compiles the function (checked on a scratch file of its own)."""
    path = OUT_DIR / f".probe_{family}.py"
    path.write_text(source_of(family, [f]))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mod, _ = load_source_module(f"probe_{family}_{f['name']}", path)
            torch.jit.script(getattr(mod, f["name"]))
        return True
    except Exception:
        return False
    finally:
        path.unlink()


def trace_function(fn_obj, source, sets):
    traces = []
    for s in sets:
        args = inputsets.create_set(s, 0)
        cap = CaptureWarnings(source)
        traced, error = None, None
        with cap as records:
            try:
                traced = torch.jit.trace(fn_obj, args, check_trace=False)
            except Exception as exc:
                error = error_text(exc)
        entry = {"ok": traced is not None, "graph": graph_text(traced.graph) if traced is not None else None,
                 "warnings": [{"kind": warning_kind(w["message"]), "line": w["line"]} for w in records
                              if w["category"] == "TracerWarning"],
                 "error": error}
        traces.append(entry)
    all_args = [inputsets.create_set(s, 0) for s in sets]
    torch.manual_seed(0)
    cap = CaptureWarnings(source)
    verdict = "consistent"
    with cap as records:
        try:
            torch.jit.trace(fn_obj, all_args[0], check_inputs=all_args[1:])
        except torch.jit.TracingCheckError:
            verdict = "diverged"
        except Exception:
            verdict = "error"
    if verdict == "consistent" and any(w["message"].startswith("Output nr") for w in records):
        verdict = "diverged"
    # The check's own TracerWarnings (nondeterministic nodes, output mismatch), by kind.
    kinds = sorted({warning_kind(w["message"]) for w in records if w["category"] == "TracerWarning"}
                   & {"nondeterministic-op", "output-mismatch"})
    return traces, {"verdict": verdict, "warnings": kinds}


def main():
    start_generator(__file__)
    only = set(sys.argv[1:])
    unknown = only - {family for family, _, _ in FAMILIES}
    if unknown:
        sys.exit(f"unknown families: {sorted(unknown)}")
    rng = random.Random(SEED)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    EXPECTED_DIR.mkdir(parents=True, exist_ok=True)
    total, dropped, rows = 0, [], 0
    summary = []
    for family, title, make in FAMILIES:
        candidates = make()
        names = [f["name"] for f in candidates]
        dupes = {n for n in names if names.count(n) > 1}
        if dupes:
            sys.exit(f"{family}: duplicate names {sorted(dupes)}")
        kept = []
        for f in candidates:
            if scripts(f, family):
                kept.append(f)
            else:
                dropped.append(f"{family}.{f['name']}")
        # A seeded shuffle of the input-set order per function: set 0 (the traced one) varies across functions.
        for f in kept:
            if len(f["sets"]) > 2 and rng.random() < 0.3:
                first = rng.randrange(len(f["sets"]))
                f["sets"] = [f["sets"][first]] + [s for i, s in enumerate(f["sets"]) if i != first]
            for s in f["sets"]:
                if inputsets.canonical(s) != s:
                    sys.exit(f"{family}.{f['name']}: write set {s!r} canonically: {inputsets.canonical(s)!r}")
        if only and family not in only:
            continue  # its choices drawn above all the same, so the families after it come out as in a full run
        src_path = OUT_DIR / f"{family}.py"
        write_text(src_path, source_of(family, kept), quiet=True)
        torch.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mod, _ = load_source_module(f"differential_{family}", src_path)
        doc = {"family": family, "title": title, "source": f"differential/{family}.py", "functions": []}
        for f in kept:
            traces, check = trace_function(getattr(mod, f["name"]), src_path, f["sets"])
            doc["functions"].append({"name": f["name"], "sets": f["sets"], "traces": traces, "check": check})
            rows += len(f["sets"])
        write_json(EXPECTED_DIR / f"{family}.json", doc)
        total += len(kept)
        summary.append(f"{family:12} {len(kept):4} functions")
    for line in summary:
        print(line)
    if dropped:
        print(f"dropped (torch.jit.script cannot compile them): {len(dropped)}: {', '.join(dropped)}")
    print(f"{total} functions, {rows} input sets")
    return 0


if __name__ == "__main__":
    sys.exit(main())
