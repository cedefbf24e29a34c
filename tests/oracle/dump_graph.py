#!/usr/bin/env python3
"""Print the comment-stripped TorchScript graph of one function or method.

    .venv/bin/python tests/oracle/dump_graph.py ARCHIVE.pt [--fn layer1.0.forward]
    .venv/bin/python tests/oracle/dump_graph.py FILE.py    [--fn NAME]

For an archive, --fn is a qualified method name (default: forward).
For a .py file (executed like generate.py does it: __name__ = file stem,
torch.jit.trace stubbed out), --fn is a top-level function (default: the
file's entry point: the traced function, else the function named like the
file, else the last function); the function is compiled with torch.jit.script.
Options: --raw keeps the "# path:line:col" comments, --inlined prints the
inlined graph, --trace traces the .py function on the file's `inputs` instead
of scripting it, --list lists the available names.
"""
import argparse
import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import torch  # noqa: E402

from generate import load_source_module, strip_graph, top_level_functions  # noqa: E402


def archive_graph(path, fn, inlined, list_only):
    m = torch.jit.load(path)
    names = []
    for mpath, sub in m.named_modules():
        for mname in sub._c._method_names():
            names.append((f"{mpath}.{mname}" if mpath else mname, sub, mname))
    if list_only:
        return "\n".join(n for n, _, _ in names) + "\n"
    for qual, sub, mname in names:
        if qual == fn:
            meth = sub._c._get_method(mname)
            return meth.inlined_graph if inlined else meth.graph
    sys.exit(f"no method {fn!r}; have: {', '.join(n for n, _, _ in names)}")


def py_graph(path, fn, inlined, list_only, trace):
    path = Path(path)
    mod, traces = load_source_module(path.stem, path)
    funcs = [n for n, _ in top_level_functions(path)]
    if list_only:
        return "\n".join(funcs) + "\n"
    if fn is None:
        traced = [getattr(t["func"], "__name__", None) for t in traces]
        fn = next((n for n in traced if n in funcs), None) or \
            (path.stem if path.stem in funcs else funcs[-1])
    if fn not in mod.__dict__:
        sys.exit(f"no function {fn!r}; have: {', '.join(funcs)}")
    obj = mod.__dict__[fn]
    if trace:
        inputs = mod.__dict__.get("inputs")
        if inputs is None:
            sys.exit("--trace needs a top-level `inputs = (...)` in the file")
        if not isinstance(inputs, tuple):
            inputs = (inputs,)
        g = torch.jit.trace(obj, inputs, check_trace=False).graph
    else:
        s = obj if isinstance(obj, torch.jit.ScriptFunction) else torch.jit.script(obj)
        g = s.inlined_graph if inlined else s.graph
    return g


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", help="archive (.pt/.zip) or Python source (.py)")
    ap.add_argument("--fn", help="function / qualified method name")
    ap.add_argument("--raw", action="store_true", help="keep source comments")
    ap.add_argument("--inlined", action="store_true", help="print the inlined graph")
    ap.add_argument("--trace", action="store_true", help="trace (.py only) on `inputs`")
    ap.add_argument("--list", action="store_true", help="list functions / methods")
    a = ap.parse_args()
    if a.file.endswith(".py"):
        g = py_graph(a.file, a.fn, a.inlined, a.list, a.trace)
    else:
        g = archive_graph(a.file, a.fn or "forward", a.inlined, a.list)
    text = str(g)
    if not a.list and not a.raw:
        text = strip_graph(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
