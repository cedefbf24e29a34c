#!/usr/bin/env python3
"""Regenerate JitScope's oracle fixtures with real PyTorch.

Run from anywhere (it chdirs to the repo root):

    .venv/bin/python tests/oracle/generate.py [--prune]

Outputs (all committed; tests never regenerate them):

  tests/data/expected/<stem>.<fn>.script.txt   str(torch.jit.script(fn).graph)
  tests/data/expected/<stem>.<fn>.trace.txt    graph of torch.jit.trace(...) calls
                                               made at the top level of a corpus file
  tests/data/expected/<stem>.functions.json    functions, compile errors, inputs
  tests/data/archives/<name>.pt                torch.jit.save of tests/oracle/modules.py
  tests/data/expected/<name>.<qual>.graph.txt  graphs of every method of the
                                               re-loaded archive (qual = layer1.0.forward)
  tests/data/expected/<name>.list.json         methods/submodules/params/buffers/attrs

Every graph has its "# <path>:<line>:<col>" source comments removed and
trailing whitespace stripped, so fixtures hold no machine paths.

Corpus files are executed with __name__ set to the file stem (so
`if __name__ == "__main__":` blocks do not run) and with torch.jit.trace
replaced by a recording stub (so `traced = torch.jit.trace(...)` lines are
cheap and cannot raise at import time); the recorded calls are then replayed
for real and their outcome is written to the JSON.

Each archive is built in its own `python -c` subprocess (see _CHILD_CODE) so
that the bytes do not depend on generate.py or on the other archives.
Archives are byte-for-byte reproducible (PYTHONHASHSEED is pinned to 0).
"""
import argparse
import ast
import json
import os
import re
import subprocess
import sys
import types
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import inputsets  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# Where a generator run from a virtual environment sees it (start_generator): torch's own files as archives name them.
ORACLE_PREFIX = "/tmp/jitscope-oracle"
CORPUS_DIR = Path("tests/data/corpus")
EXPECTED_DIR = Path("tests/data/expected")
ARCHIVE_DIR = Path("tests/data/archives")
MODULES_PY = Path("tests/oracle/modules.py")

# " # <path>:<line>:<col>" at the end of a node line (path may not contain '#').
_SOURCE_COMMENT = re.compile(r" # [^#\n]*:\d+:\d+$")

_written = []  # paths written (or confirmed unchanged) in this run


# --------------------------------------------------------------------------
# helpers


def strip_graph(text):
    """Remove source-location comments and trailing whitespace per line."""
    lines = [_SOURCE_COMMENT.sub("", ln).rstrip() for ln in str(text).splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def write_text(path, text, quiet=False):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text() if path.exists() else None
    if old != text:
        path.write_text(text)
        status = "wrote    "
    else:
        status = "unchanged"
    _written.append(str(path))
    if not quiet:
        print(f"{status} {path}")


_FLAT_ARRAY = re.compile(r"\[\s*((?:-?[\w.+\"-]+|\"[^\"\n]*\")(?:,\s*(?:-?[\w.+-]+|\"[^\"\n]*\"))*)\s*\]")


def write_json(path, obj):
    text = json.dumps(obj, indent=2, ensure_ascii=False)
    # put arrays of scalars (shapes, args, method lists) on one line
    text = _FLAT_ARRAY.sub(lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
    assert json.loads(text) == obj
    write_text(path, text + "\n")


def dtype_name(dt):
    return str(dt).replace("torch.", "")


def load_source_module(name, path):
    """exec a .py file as module `name`, keeping `path` (repo-relative) as
    co_filename so TorchScript source ranges never contain absolute paths.
    Returns (module, recorded torch.jit.trace calls)."""
    path = Path(path)
    src = path.read_text()
    mod = types.ModuleType(name)
    mod.__file__ = str(path)
    traces = []
    real_trace = torch.jit.trace

    def trace_stub(func, example_inputs=None, *args, **kwargs):
        frame = sys._getframe(1)
        line = frame.f_lineno if frame.f_code.co_filename == str(path) else None
        traces.append({"func": func, "example_inputs": example_inputs,
                       "args": args, "kwargs": kwargs, "line": line})
        return func

    old_mod = sys.modules.get(name)
    sys.modules[name] = mod
    torch.jit.trace = trace_stub
    try:
        exec(compile(src, str(path), "exec"), mod.__dict__)
    finally:
        torch.jit.trace = real_trace
    mod._jitscope_restore = old_mod
    return mod, traces


def top_level_functions(path):
    """[(name, def_line)] of top-level defs in source order."""
    tree = ast.parse(Path(path).read_text())
    return [(n.name, n.lineno) for n in tree.body if isinstance(n, ast.FunctionDef)]


def script_error_info(exc):
    """Split a TorchScript frontend error into message/line/col/file."""
    msg = str(exc).strip("\n")
    lines = msg.splitlines()
    head, err_line, err_file, err_col = [], None, None, None
    file_re = re.compile(r'^\s*File "(.*)", line (\d+)')
    i = 0
    while i < len(lines):
        m = file_re.match(lines[i])
        if m:
            err_file, err_line = m.group(1), int(m.group(2))
            for ln in lines[i + 1:]:
                if "<--- HERE" in ln and "~" in ln:
                    err_col = ln.index("~")
                    break
                if file_re.match(ln):
                    break
            break
        head.append(lines[i])
        i += 1
    message = "\n".join(h.rstrip() for h in head).strip()
    if not message:
        message = lines[0] if lines else type(exc).__name__
    return {"error": message, "error_line": err_line, "error_col": err_col,
            "error_file": err_file, "error_type": type(exc).__name__}


# --------------------------------------------------------------------------
# input description


def _literal(node):
    try:
        return ast.literal_eval(node)
    except Exception:
        return None


def _jsonable(v):
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, torch.dtype):
        return dtype_name(v)
    if isinstance(v, torch.device):
        return str(v)
    return v


def _kwarg_value(node):
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.value.id == "torch":
        return node.attr  # torch.float64 -> "float64"
    if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "device":
        return _literal(node.args[0]) if node.args else None
    return _jsonable(_literal(node))


def describe_value(value, node=None, is_input=False):
    """JSON description of an input/output value; `node` is its AST (if any).
    Input tensors also get "factory"/"args"/"kwargs" from the literal call."""
    if isinstance(value, torch.Tensor):
        d = {"kind": "tensor", "dtype": dtype_name(value.dtype),
             "shape": list(value.shape)}
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "torch"):
            d["factory"] = node.func.attr
            d["args"] = [_jsonable(_literal(a)) for a in node.args]
            if node.keywords:
                d["kwargs"] = {k.arg: _kwarg_value(k.value) for k in node.keywords}
        elif is_input:
            d["factory"] = None
            if node is not None:
                d["expr"] = ast.unparse(node)
        return d
    if value is None:
        return {"kind": "none"}
    if isinstance(value, bool):
        return {"kind": "bool", "value": value}
    if isinstance(value, int):
        return {"kind": "int", "value": value}
    if isinstance(value, float):
        return {"kind": "float", "value": value}
    if isinstance(value, str):
        return {"kind": "str", "value": value}
    if isinstance(value, torch.dtype):
        return {"kind": "dtype", "value": dtype_name(value)}
    if isinstance(value, torch.device):
        return {"kind": "device", "value": str(value)}
    if isinstance(value, (list, tuple)):
        elts = node.elts if isinstance(node, (ast.List, ast.Tuple)) and \
            len(node.elts) == len(value) else [None] * len(value)
        return {"kind": "list" if isinstance(value, list) else "tuple",
                "items": [describe_value(v, n, is_input) for v, n in zip(value, elts)]}
    if isinstance(value, dict):
        return {"kind": "dict",
                "items": [[describe_value(k), describe_value(v)] for k, v in value.items()]}
    return {"kind": "other", "type": type(value).__name__, "repr": repr(value)}


def _assign_node(tree, name):
    for n in tree.body:
        if isinstance(n, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in n.targets):
            return n
    return None


def describe_input_sets(tree, mod):
    """(inputs, check_inputs, inputs_line, check_inputs_line)"""
    out = []
    for var, is_list in (("inputs", False), ("check_inputs", True)):
        if var not in mod.__dict__:
            out.append((None, None))
            continue
        value = mod.__dict__[var]
        node = _assign_node(tree, var)
        vnode = node.value if node is not None else None
        sets = list(value) if is_list else [value]
        set_nodes = (vnode.elts if is_list and isinstance(vnode, (ast.List, ast.Tuple))
                     else [vnode] if not is_list else [None] * len(sets))
        if len(set_nodes) != len(sets):
            set_nodes = [None] * len(sets)
        described = []
        for s, sn in zip(sets, set_nodes):
            if not isinstance(s, tuple):
                s, sn = (s,), None
            elts = sn.elts if isinstance(sn, ast.Tuple) and len(sn.elts) == len(s) \
                else [None] * len(s)
            described.append([describe_value(v, n, True) for v, n in zip(s, elts)])
        out.append((described, node.lineno if node is not None else None))
    (inp, inp_line), (chk, chk_line) = out
    return (inp[0] if inp else None), chk, inp_line, chk_line


def _clone(args):
    return tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)


def _warning_text(w):
    return f"{w.category.__name__}: {str(w.message).strip().splitlines()[0]}"


# --------------------------------------------------------------------------
# corpus


def process_corpus_file(path):
    stem = path.stem
    torch.manual_seed(0)
    mod, traces = load_source_module(stem, path)
    tree = ast.parse(path.read_text())
    try:
        functions = []
        ok_fns = {}
        for name, line in top_level_functions(path):
            obj = mod.__dict__[name]
            entry = {"name": name, "line": line,
                     "decorated": isinstance(obj, torch.jit.ScriptFunction)}
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    scripted = obj if isinstance(obj, torch.jit.ScriptFunction) \
                        else torch.jit.script(obj)
                graph = strip_graph(scripted.graph)
                fixture = f"{stem}.{name}.script.txt"
                write_text(EXPECTED_DIR / fixture, graph)
                entry.update({"ok": True, "error": None, "error_line": None,
                              "error_col": None, "fixture": fixture,
                              "schema": str(scripted.schema)})
                ok_fns[name] = scripted
            except Exception as exc:  # TorchScript frontend errors
                info = script_error_info(exc)
                if info["error_file"] is not None:
                    try:
                        info["error_file"] = os.path.relpath(info["error_file"])
                    except ValueError:
                        pass
                entry.update({"ok": False, "fixture": None})
                entry.update(info)
            functions.append(entry)

        inputs, check_inputs, inputs_line, check_line = describe_input_sets(tree, mod)

        # entry point that `inputs` are meant for
        names = [f["name"] for f in functions]
        traced_names = [getattr(t["func"], "__name__", None) for t in traces]
        entry_name = next((n for n in traced_names if n in names), None) \
            or (stem if stem in names else (names[-1] if names else None))

        # run the scripted entry point on every input set (validates the corpus)
        runs = []
        if entry_name in ok_fns and "inputs" in mod.__dict__:
            sets = [mod.inputs] + list(mod.__dict__.get("check_inputs", []))
            for s in sets:
                s = s if isinstance(s, tuple) else (s,)
                try:
                    out = ok_fns[entry_name](*_clone(s))
                    runs.append({"ok": True, "output": describe_value(out)})
                except Exception as exc:
                    runs.append({"ok": False,
                                 "error": str(exc).strip().splitlines()[0]})

        trace_entries = []
        for t in traces:
            trace_entries.append(replay_trace(stem, t))

        doc = {
            "file": path.name,
            "module": stem,
            "entry": entry_name,
            "functions": functions,
            "inputs_line": inputs_line,
            "inputs": inputs,
            "check_inputs_line": check_line,
            "check_inputs": check_inputs,
            "entry_runs": runs,
            "traces": trace_entries,
        }
        write_json(EXPECTED_DIR / f"{stem}.functions.json", doc)
        bad_runs = [r for r in runs if not r["ok"]]
        if bad_runs:
            print(f"WARNING {path}: entry {entry_name} failed on inputs: {bad_runs}")
        return doc
    finally:
        old = getattr(mod, "_jitscope_restore", None)
        if old is None:
            sys.modules.pop(stem, None)
        else:
            sys.modules[stem] = old


def replay_trace(stem, t):
    """Run a recorded top-level torch.jit.trace call for real."""
    func = t["func"]
    name = getattr(func, "__name__", repr(func))
    ex = t["example_inputs"]
    ex = ex if isinstance(ex, tuple) else (ex,)
    kwargs = dict(t["kwargs"])
    res = {"func": name, "line": t["line"],
           "check_inputs_given": "check_inputs" in kwargs,
           "check_trace": kwargs.get("check_trace", True)}
    # 1. the graph, traced without checks
    torch.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = torch.jit.trace(func, _clone(ex), check_trace=False)
    fixture = f"{stem}.{name}.trace.txt"
    write_text(EXPECTED_DIR / fixture, strip_graph(traced.graph))
    res["fixture"] = fixture
    res["trace_warnings"] = sorted({_warning_text(w) for w in caught
                                    if not inputsets.is_torchscript_deprecation(w.category, w.message)})
    # 2. the call exactly as written (checks included)
    torch.manual_seed(0)
    if "check_inputs" in kwargs:
        kwargs["check_inputs"] = [_clone(c if isinstance(c, tuple) else (c,))
                                  for c in kwargs["check_inputs"]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            torch.jit.trace(func, _clone(ex), *t["args"], **kwargs)
            res["check_ok"] = True
            res["check_error"] = None
        except Exception as exc:
            lines = [ln.strip() for ln in str(exc).strip().splitlines()[:2]]
            res["check_ok"] = False
            res["check_error_type"] = type(exc).__name__
            res["check_error"] = "\n".join(lines)
    res["check_warnings"] = sorted({_warning_text(w) for w in caught
                                    if not inputsets.is_torchscript_deprecation(w.category, w.message)})
    return res


# --------------------------------------------------------------------------
# archives


def parse_archive_classes(archive_path):
    """Class declarations from the archive's serialized code:
    {qualified class name: {"attrs": [(name, type)], "constants": [(name, type, value)],
                            "parameters": [...], "buffers": [...]}}"""
    import zipfile
    classes = {}
    with zipfile.ZipFile(archive_path) as z:
        for info in z.infolist():
            fn = info.filename
            if "/code/" not in fn or not fn.endswith(".py"):
                continue
            modpath = fn.split("/code/", 1)[1][:-3].replace("/", ".")
            cur = None
            for line in z.read(info).decode().splitlines():
                if not line.startswith(" "):  # top-level statement
                    m = re.match(r"^class (\w+)\(", line)
                    cur = None
                    if m:
                        cur = {"attrs": [], "constants": [], "parameters": [], "buffers": []}
                        classes[f"{modpath}.{m.group(1)}"] = cur
                    continue
                if cur is None or line.startswith("   "):  # not a class-body line
                    continue
                body = line[2:]
                if body.startswith("def "):
                    continue
                m = re.match(r"^__(parameters|buffers)__ = \[(.*)\]$", body)
                if m:
                    cur[m.group(1)] = re.findall(r'"([^"]*)"', m.group(2))
                    continue
                m = re.match(r'^__annotations__\["([^"]+)"\] = (.+)$', body)
                if m:
                    cur["attrs"].append((m.group(1), m.group(2)))
                    continue
                m = re.match(r"^(\w+) : (Final\[.*\]) = (.+)$", body)
                if m:
                    cur["constants"].append((m.group(1), m.group(2), m.group(3)))
                    continue
                m = re.match(r"^(\w+) : (.+)$", body)
                if m:
                    cur["attrs"].append((m.group(1), m.group(2)))
    return classes


def describe_attr_value(v):
    if isinstance(v, torch.Tensor):
        return {"shape": list(v.shape), "dtype": dtype_name(v.dtype)}
    if isinstance(v, torch.jit.ScriptModule) or isinstance(v, torch._C.ScriptModule):
        return {}
    if isinstance(v, (bool, int, float, str)) or v is None:
        return {"value": v}
    if isinstance(v, (list, tuple)) and all(isinstance(x, (bool, int, float, str)) for x in v):
        return {"value": list(v)}
    if isinstance(v, dict):
        items = {}
        for k, x in v.items():
            items[str(k)] = ({"shape": list(x.shape), "dtype": dtype_name(x.dtype)}
                             if isinstance(x, torch.Tensor) else x)
        return {"value": items}
    return {"repr": repr(v)}


# Runs in a fresh `python -c` child per archive. Traced modules store the whole
# Python call stack of every traced op in their debug info, so the builder is
# called from this tiny top-level script (frame "<string>") rather than from
# generate.py: that keeps absolute paths and generate.py line numbers out of
# the archives. A fresh process also keeps ___torch_mangle_N numbering
# independent of the other archives.
_CHILD_CODE = """\
import sys, types, warnings
import torch
name, out = sys.argv[1], sys.argv[2]
path = "tests/oracle/modules.py"
mod = types.ModuleType("modules")
mod.__file__ = path
sys.modules["modules"] = mod
exec(compile(open(path).read(), path, "exec"), mod.__dict__)
torch.set_num_threads(1)
torch.manual_seed(0)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    m = mod.ARCHIVES[name][0]()
torch.jit.save(m, out)
"""


def build_archive(name, example):
    """Build + save one archive in a child process, reload it, dump fixtures."""
    import tempfile
    archive = ARCHIVE_DIR / f"{name}.pt"
    archive.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir) / archive.name  # same basename: it names the zip's root folder
        env = dict(os.environ, PYTHONHASHSEED="0")
        subprocess.run([sys.executable, "-c", _CHILD_CODE, name, str(tmp)],
                       check=True, env=env, cwd=ROOT)
        new = tmp.read_bytes()
    old = archive.read_bytes() if archive.exists() else None
    if old != new:
        archive.write_bytes(new)
        print(f"wrote     {archive} ({len(new)} bytes)")
    else:
        print(f"unchanged {archive} ({len(new)} bytes)")
    _written.append(str(archive))

    loaded = torch.jit.load(str(archive))
    classes = parse_archive_classes(archive)
    params = {n: p for n, p in loaded.named_parameters()}
    buffers = {n: b for n, b in loaded.named_buffers()}

    modules, methods, attributes, constants = [], [], [], []
    for path, sub in loaded.named_modules():
        ctype = sub._c._type()
        qual_type = ctype.qualified_name()
        mnames = list(sub._c._method_names())
        modules.append({"path": path, "type": ctype.name(),
                        "qualified_type": qual_type,
                        "original_name": sub.original_name,
                        "methods": mnames})
        for mname in mnames:
            qual = f"{path}.{mname}" if path else mname
            method = sub._c._get_method(mname)
            fixture = f"{name}.{qual}.graph.txt"
            write_text(EXPECTED_DIR / fixture, strip_graph(method.graph))
            entry = {"name": qual, "module": path, "method": mname,
                     "schema": str(method.schema), "fixture": fixture}
            if not path or "prim::Call" in str(method.graph):
                # root methods, and submodule methods that call others, also get the
                # fully inlined graph (CallMethod / CallFunction expanded), e.g. to see
                # a wrapped traced function
                inl = f"{name}.{qual}.inlined.txt"
                write_text(EXPECTED_DIR / inl, strip_graph(method.inlined_graph))
                entry["inlined_fixture"] = inl
            methods.append(entry)
        decl = classes.get(qual_type, {"attrs": [], "constants": [],
                                       "parameters": [], "buffers": []})
        for aname, atype in decl["attrs"]:
            qn = f"{path}.{aname}" if path else aname
            kind = ("parameter" if aname in decl["parameters"] else
                    "buffer" if aname in decl["buffers"] else
                    "module" if atype.startswith("__torch__.") and
                    isinstance(sub._c.getattr(aname), torch._C.ScriptModule) else
                    "attribute")
            a = {"name": qn, "type": atype, "kind": kind}
            if kind != "module":
                a.update(describe_attr_value(sub._c.getattr(aname)))
            attributes.append(a)
        for cname, ctype_s, cval in decl["constants"]:
            constants.append({"name": f"{path}.{cname}" if path else cname,
                              "type": ctype_s, "value": cval})

    torch.manual_seed(0)
    args = example()
    out = loaded(*args)
    doc = {
        "archive": archive.name,
        "archive_bytes": len(new),
        "root_type": loaded._c._type().qualified_name(),
        "modules": modules,
        "methods": methods,
        "parameters": [{"name": n, "type": "Tensor", "shape": list(p.shape),
                        "dtype": dtype_name(p.dtype), "requires_grad": p.requires_grad}
                       for n, p in params.items()],
        "buffers": [{"name": n, "type": "Tensor", "shape": list(b.shape),
                     "dtype": dtype_name(b.dtype)} for n, b in buffers.items()],
        "attributes": attributes,
        "constants": constants,
        "example_inputs": [describe_value(a) for a in args],
        "example_output": describe_value(out),
    }
    write_json(EXPECTED_DIR / f"{name}.list.json", doc)


# --------------------------------------------------------------------------


def start_generator(script):
    """What every fixture generator does first: runs again (as @p script) with string hashing pinned, works from
    the repository root, on one thread, and says which torch made the fixtures."""
    if sys.prefix != sys.base_prefix and sys.prefix != ORACLE_PREFIX:
        # Archives record the files of torch.nn's code they compiled. A virtual environment (the project's .venv)
        # runs again through a link of a fixed name, so that fixtures hold no machine's paths.
        link = Path(ORACLE_PREFIX)
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(sys.prefix)
        os.environ["PYTHONHASHSEED"] = "0"
        python = str(link / "bin" / "python")
        os.execv(python, [python, str(Path(script).resolve())] + sys.argv[1:])
    if os.environ.get("PYTHONHASHSEED") != "0":
        # TorchScript serializes Final constants in Python set order, which
        # depends on string hashing: pin it so archives are byte-identical.
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, str(Path(script).resolve())] + sys.argv[1:])
    os.chdir(ROOT)
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prune", action="store_true",
                    help="delete fixtures in tests/data/expected|archives not produced by this run")
    opts = ap.parse_args()
    start_generator(__file__)
    corpus = sorted(CORPUS_DIR.glob("*.py"))
    failed = []
    for path in corpus:
        doc = process_corpus_file(path)
        for f in doc["functions"]:
            if not f["ok"]:
                failed.append(f"{path.name}:{f['error_line']}: {f['name']}: "
                              f"{f['error'].splitlines()[0]}")

    mod, _ = load_source_module("modules", MODULES_PY)
    for name, (_, example) in mod.ARCHIVES.items():
        build_archive(name, example)

    written = set(_written)
    # archives of module cases are built by generate_traces.py: not stale
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from trace_cases import CASES as trace_cases
    written |= {str(Path("tests/data") / c["archive"]) for c in trace_cases if c.get("archive")}
    stale = [str(p) for d in (EXPECTED_DIR, ARCHIVE_DIR) if d.exists()
             for p in sorted(d.iterdir()) if p.is_file() and str(p) not in written]
    for p in stale:
        if opts.prune:
            os.unlink(p)
            print(f"pruned    {p}")
        else:
            print(f"STALE     {p} (not produced by this run; use --prune)")
    print(f"{len(corpus)} corpus files, {len(mod.ARCHIVES)} archives, "
          f"{len(written)} outputs")
    for f in failed:
        print(f"expected script failure: {f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
