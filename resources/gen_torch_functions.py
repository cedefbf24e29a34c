#!/usr/bin/env python3
"""Writes resources/torch_functions.txt: how Python's torch.jit.script resolves names of torch,
torch.nn.functional, math, ... so that JitScope's .py compiler resolves them the same way.

    .venv/bin/python resources/gen_torch_functions.py

Run with the engine's torch (.venv/bin/python, the same torch 2.x the build links). The output is committed; the build
embeds it, so neither building nor running JitScope needs Python.

Format, one record per block:
  builtin MODULE.NAME aten::op            -- the name resolves to a builtin operator
  function MODULE.NAME QUALNAME           -- a Python function that torch.jit.script compiles
  schema SCHEMA                           -- its schema, with default values
  graph                                   -- its inlined graph, until a line "end"
  overload MODULE.NAME QUALNAME           -- one overload of an @overload-ed function (F.interpolate), as
  schema / graph / end                       `function`; a name has several of these records
  dispatch MODULE.NAME ARG INDEX DEFAULT TRUE FALSE
                                          -- a boolean_dispatch function: calls MODULE.TRUE or MODULE.FALSE
                                             depending on the constant bool argument ARG (position INDEX)
"""
import inspect
import math
import os
import re
import sys
import warnings

import torch
import torch.nn.functional as F
import torch._jit_internal as jit_internal
from torch._jit_internal import boolean_dispatched
from torch.jit._script import _compile_function_with_overload
from torch.jit._builtins import _find_builtin

MODULES = [
    ("torch", torch),
    ("torch.nn.functional", F),
    ("torch.functional", torch.functional),
    ("torch.linalg", torch.linalg),
    ("torch.fft", torch.fft),
    ("torch.special", torch.special),
    ("math", math),
]

COMMENT = re.compile(r"\s+# .*:\d+:\d+$")
FUNCTION_CONSTANT = re.compile(r"^\s*(%[\w.]+) : Function = prim::Constant\[name=\"\w+\"\]\(\)$")


def graph_text(graph):
    """The graph without source comments and without the dead Function constants Inline leaves behind."""
    lines = [COMMENT.sub("", l).rstrip() for l in str(graph).splitlines()]
    out = []
    for line in lines:
        m = FUNCTION_CONSTANT.match(line)
        if m and not any(m.group(1) + ")" in l or m.group(1) + "," in l for l in lines if l is not line):
            continue
        out.append(line)
    return "\n".join(out)


def default_text(value):
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, str):
        return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(default_text(v) for v in value) + "]"
    return repr(value)


def split_top(s):
    parts, depth, cur = [], 0, ""
    for c in s:
        if c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += c == "["
        depth -= c == "]"
        cur += c
    parts.append(cur.strip())
    return parts


def schema_type(t):
    """Python's spelling of a type (List[int], Optional[Tensor], Tuple[..]) in schema syntax (int[], Tensor?, (..))."""
    def convert(s):
        for prefix, suffix in (("List[", "[]"), ("Optional[", "?")):
            if s.startswith(prefix) and s.endswith("]"):
                return convert(s[len(prefix):-1]) + suffix
        if s.startswith("Tuple[") and s.endswith("]"):
            return "(" + ", ".join(convert(p) for p in split_top(s[6:-1])) + ")"
        return s
    return convert(str(t))


def schema_text(scripted):
    """str(schema) asserts on BroadcastingList defaults (`int[2] dilation=1`): spell those out by hand."""
    try:
        return str(scripted.schema)
    except Exception:
        pass
    schema = scripted.schema
    args = []
    for arg in schema.arguments:
        t = schema_type(arg.type)
        if arg.N is not None and "[]" in t:
            t = t.replace("[]", "[%d]" % arg.N, 1)
        text = "%s %s" % (t, arg.name)
        if arg.has_default_value():
            text += "=" + default_text(arg.default_value)
        args.append(text)
    rets = [schema_type(r.type) for r in schema.returns]
    ret = "(" + ", ".join(rets) + ")" if len(rets) != 1 or rets[0].startswith("(") else rets[0]
    return "%s(%s) -> %s" % (schema.name, ", ".join(args), ret)


def script_function(obj):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            scripted = torch.jit.script(obj)
            return scripted, graph_text(scripted.inlined_graph), schema_text(scripted)
        except Exception:
            return None


ADDED = set()


def add_function(lines, modname, name, obj):
    key = "%s.%s" % (modname, name)
    if key in ADDED:
        return False
    result = script_function(obj)
    if result is None:
        return False
    scripted, text, schema = result
    if "Function = prim::Constant" in text or "prim::PythonOp" in text:
        return False
    ADDED.add(key)
    lines.append("function %s %s" % (key, scripted.qualified_name))
    lines.append("schema " + schema)
    lines.append("graph")
    lines.append(text)
    lines.append("end")
    return True


def add_overloads(lines, modname, name, impl, overloads):
    """Each @overload of a function, compiled with the implementation's body as torch.jit.script does."""
    records = []
    qualified = jit_internal._qualified_name(impl)
    for ov in overloads:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                scripted = _compile_function_with_overload(ov, qualified, impl)
                text = graph_text(scripted.inlined_graph)
                schema = schema_text(scripted)
            except Exception:
                return 0
        if "Function = prim::Constant" in text or "prim::PythonOp" in text:
            return 0
        records += ["overload %s.%s %s" % (modname, name, scripted.qualified_name), "schema " + schema, "graph", text,
                    "end"]
    lines += records
    return len(overloads)


def main():
    out_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_functions.txt")
    lines = ["# Generated by resources/gen_torch_functions.py from PyTorch %s. Do not edit." % torch.__version__]
    builtins = 0
    functions = 0
    for modname, module in MODULES:
        for name in sorted(dir(module)):
            if name.startswith("__"):
                continue
            obj = getattr(module, name)
            try:
                op = _find_builtin(obj)
            except Exception:
                op = None
            if op is not None:
                lines.append("builtin %s.%s %s" % (modname, name, op))
                builtins += 1
                continue
            try:
                dispatch = boolean_dispatched.get(obj)
            except TypeError:
                dispatch = None
            if dispatch is not None:
                if any(dispatch[k] in boolean_dispatched for k in ("if_true", "if_false")):
                    continue  # nested dispatch (torch.unique): not resolved
                targets = []
                for key in ("if_true", "if_false"):
                    target = dispatch[key]
                    if add_function(lines, modname, target.__name__, target):
                        functions += 1
                    targets.append(target.__name__)
                lines.append("dispatch %s.%s %s %d %s %s %s" % (modname, name, dispatch["arg_name"], dispatch["index"],
                                                               int(bool(dispatch["default"])), targets[0], targets[1]))
                continue
            if not inspect.isfunction(obj) or name.startswith("_"):
                continue
            try:
                overloads = jit_internal._get_fn_overloads(jit_internal._qualified_name(obj))
            except Exception:
                overloads = None
            if overloads:
                functions += add_overloads(lines, modname, name, obj, overloads)
                continue
            if add_function(lines, modname, name, obj):
                functions += 1
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %s: %d builtins, %d functions" % (out_path, builtins, functions), file=sys.stderr)


if __name__ == "__main__":
    main()
