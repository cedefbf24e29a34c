#!/usr/bin/env python3
"""The graphs real torch.jit.trace's own check compared, for the model files in tests/data/python/models/.

    .venv/bin/python tests/oracle/generate_recorded.py [NAME ...]

For every torch.jit.trace / trace_module call a model file makes, torch.jit._trace._check_trace compares the
traced result's graph with the one it traces for each check input: graph_diagnostic_info() canonicalizes both
(torch._C._jit_pass_canonicalize), inlines them and erases their shapes. This script records those two graphs by
wrapping torch._C._jit_pass_canonicalize while the file runs (nothing of JitScope's bridge is used), and writes
tests/data/python/models/<name>.expected.json (torch 1.13's in models/torch-1.13/): per call, per compared pair, each graph's nodes depth first as
"kind[attributes]" (what tst_pythonmodels compares with the bridge's recorded traces, node for node), the module
scope of each node (`__module.model/__module.model.rpn`), and whether PyTorch's check raised.

Fixtures hold no machine paths: scopes and kinds only, no source comments.
"""
import json
import os
import re
import sys
import warnings

HERE = os.path.dirname(os.path.realpath(__file__))
MODELS = os.path.join(HERE, "..", "data", "python", "models")
_MANGLE = re.compile(r"___torch_mangle_\d+\.")


def node_rows(graph):
    """Every node depth first: its kind and the attribute text libtorch prints between kind and inputs."""
    rows, scopes = [], []

    def walk(block):
        for n in block.nodes():
            first = _MANGLE.sub("", str(n).split("\n", 1)[0])
            head = " = " + n.kind()
            start = first.find(head)
            attrs = ""
            if n.attributeNames():
                args = "(" + ", ".join("%" + v.debugName() for v in n.inputs()) + ")"
                end = first.rfind(args)
                attrs = first[start + len(head):end] if start >= 0 and end > start else ""
            rows.append(n.kind() + attrs)
            scopes.append(n.scopeName())
            for b in n.blocks():
                walk(b)

    walk(graph)
    return rows, scopes


def record(path):
    import torch
    import torch.jit._trace as trace_module
    calls = []
    real_canonicalize = torch._C._jit_pass_canonicalize
    real_check = trace_module._check_trace
    pending = []

    def canonicalize(graph, *args, **kwargs):
        out = real_canonicalize(graph, *args, **kwargs)
        if sys._getframe(1).f_code.co_name == "graph_diagnostic_info":
            pending.append(out)  # inlined and shape-erased in place by the caller right after
        return out

    def check(*args, **kwargs):
        call = {"pairs": [], "raised": False}
        calls.append(call)
        try:
            return real_check(*args, **kwargs)
        except trace_module.TracingCheckError:
            call["raised"] = True
            raise
        finally:
            for k in range(0, len(pending) - 1, 2):
                first, first_scopes = node_rows(pending[k])
                other, other_scopes = node_rows(pending[k + 1])
                # What graph_diagnostic_info compares: the texts, mangled class names aside.
                equal = _MANGLE.sub("", str(pending[k])) == _MANGLE.sub("", str(pending[k + 1]))
                call["pairs"].append({"trace": first, "check": other, "trace_scopes": first_scopes,
                                      "check_scopes": other_scopes, "equal": equal})
            pending.clear()

    torch._C._jit_pass_canonicalize = canonicalize
    trace_module._check_trace = check
    folder = os.path.dirname(path)
    sys.path.insert(0, folder)
    cwd = os.getcwd()
    os.chdir(folder)
    namespace = {"__name__": "__main__", "__file__": path}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with open(path, encoding="utf-8") as f:
                exec(compile(f.read(), path, "exec"), namespace)
        status = "ok"
    except Exception as e:  # noqa: BLE001 (a TracingCheckError is the file's finding)
        status = type(e).__name__
    finally:
        os.chdir(cwd)
        sys.path.remove(folder)
        torch._C._jit_pass_canonicalize = real_canonicalize
        trace_module._check_trace = real_check
    return {"status": status, "calls": calls}


def fixture_dir():
    """The engine's torch (2.x) writes beside the models; Debian's torch 1.13, the older PyTorch the bridge is
    tested under too, into torch-1.13/."""
    import torch
    if torch.__version__.startswith("1."):
        folder = os.path.join(MODELS, "torch-" + ".".join(torch.__version__.split(".")[:2]))
        os.makedirs(folder, exist_ok=True)
        return folder
    return MODELS


def main():
    names = sys.argv[1:] or sorted(f[:-3] for f in os.listdir(MODELS) if f.endswith(".py"))
    for name in names:
        path = os.path.realpath(os.path.join(MODELS, name + ".py"))
        # Each file in a process of its own: one file's modules and random state do not reach the next.
        if len(names) > 1:
            import subprocess
            subprocess.run([sys.executable, os.path.realpath(__file__), name], check=True)
            continue
        result = record(path)
        out = os.path.join(fixture_dir(), name + ".expected.json")
        if not any(c["pairs"] for c in result["calls"]):  # nothing compared: no fixture (threads, trace_raises)
            print("%s: %s, nothing compared" % (name, result["status"]))
            if os.path.exists(out):
                os.remove(out)
            continue
        with open(out, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=0, sort_keys=True)
            f.write("\n")
        print("%s: %s, %d checked call(s), %s pair(s)" % (name, result["status"], len(result["calls"]),
                                                         [len(c["pairs"]) for c in result["calls"]]))


if __name__ == "__main__":
    main()
