"""JitScope's Python bridge (jitscope_bridge.py): what the file defines, and the state a call changes.

After the file ran: its nn.Module classes (each scripted as torch.jit.script would compile it, saved beside
result.json), their instances, its plain functions and its `inputs` / `check_inputs` variables. Around each trace:
the traced module's own attributes before and after, as text, and those the call changed.
"""
import inspect
import os
import types
import warnings

from jitscope_bridge_calls import _line_of, _producer
from jitscope_bridge_graphs import describe_args, graph_json


# ----------------------------------------------------------------------------------------------------------------
# What the file defines


_MODULE_INTERNALS = None


def _state_value(v, depth=0):
    """An attribute's value as text to compare before and after a call: tensors by dtype, shape and sum (not their
    address), containers item by item, other objects by class."""
    import torch
    if isinstance(v, torch.Tensor):
        text = "Tensor%s %s" % (list(v.shape), str(v.dtype).replace("torch.", ""))
        if v.numel() <= 1 << 20 and not v.is_complex() and v.device.type == "cpu":
            try:
                text += " sum=%g" % float(v.detach().double().sum())
            except Exception:  # noqa: BLE001
                pass
        return text
    if v is None or isinstance(v, (bool, int, float, str)):
        return repr(v)[:120]
    if isinstance(v, (list, tuple)) and depth < 2:
        items = [_state_value(x, depth + 1) for x in v[:8]]
        more = ", ..." if len(v) > 8 else ""
        return ("[%s%s]" if isinstance(v, list) else "(%s%s)") % (", ".join(items), more)
    if isinstance(v, dict) and depth < 2:
        return "{%s}" % ", ".join("%r: %s" % (k, _state_value(x, depth + 1)) for k, x in list(v.items())[:8])
    return "<%s>" % type(v).__name__


def _module_state(obj):
    """Every submodule's own attributes (not its parameters, buffers or children, nor nn.Module's bookkeeping), as
    text by module path and name: what a call may change (a cached grid, torchvision's MultiScaleRoIAlign scales)."""
    import torch
    global _MODULE_INTERNALS
    if not isinstance(obj, torch.nn.Module):
        return None
    if _MODULE_INTERNALS is None:
        _MODULE_INTERNALS = set(torch.nn.Module().__dict__)
    state = {}
    try:
        for path, m in obj.named_modules():
            for name, v in vars(m).items():
                if name in _MODULE_INTERNALS or isinstance(v, (types.FunctionType, types.MethodType,
                                                               types.BuiltinFunctionType)):
                    continue
                state[(path, name)] = _state_value(v)
    except Exception:  # noqa: BLE001 (a module whose attributes cannot be read: no state evidence)
        return None
    return state


def _state_changes(before, after):
    if before is None or after is None:
        return []
    out = []
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key, "(unset)"), after.get(key, "(unset)")
        if a != b:
            out.append({"module": key[0], "attribute": key[1], "before": a, "after": b})
    return out[:50]


def _constant_type(cls, name, value):
    """A constant's type as TorchScript takes it: `Final[int]`'s int, else (`__constants__`) its value's."""
    for klass in cls.__mro__:
        annotation = getattr(klass, "__annotations__", {}).get(name)
        if annotation is not None:
            args = getattr(annotation, "__args__", None)
            inner = args[0] if args else annotation
            return inner.__name__ if isinstance(inner, type) else str(inner).replace("typing.", "")
    return type(value).__name__


def _modifier(fn):
    import torch._jit_internal as ji
    m = ji.get_torchscript_modifier(fn)
    return {ji.FunctionModifiers.EXPORT: "export", ji.FunctionModifiers.IGNORE: "ignore",
            ji.FunctionModifiers.UNUSED: "unused"}.get(m, "")


def collect_definitions(namespace, places, out_dir, traced, script=True):
    """The file's modules, functions and input sets; without @p script, the input sets only (scripting every class
    of a big model costs seconds, and a check of the file's calls needs none of it)."""
    import torch
    modules, functions = [], []
    for name, obj in list(namespace.items()) if script else ():
        if inspect.isclass(obj) and issubclass(obj, torch.nn.Module) and obj.__module__ == "__main__":
            modules.append(_module_record(name, obj, namespace, places, out_dir, len(modules)))
        elif isinstance(obj, torch.jit.ScriptFunction) and id(obj) in traced:
            continue  # a trace's result (`a = torch.jit.trace(f, ...)`): listed with its call
        elif isinstance(obj, torch.jit.ScriptFunction):
            functions.append({"name": name, "line": _line_of(obj), "scripted": True, "script_ok": True,
                              "graph": graph_json(obj.graph)})
        elif inspect.isfunction(obj) and obj.__module__ == "__main__" and places.is_user(obj.__code__.co_filename):
            rec = {"name": name, "line": obj.__code__.co_firstlineno, "scripted": False}
            modifier = _modifier(obj)
            if modifier:
                rec["modifier"] = modifier
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    rec["graph"] = graph_json(torch.jit.script(obj).graph)
                rec["script_ok"] = True
            except Exception as e:  # noqa: BLE001
                rec["script_ok"] = False
                rec["script_error"] = places.error(e)
            functions.append(rec)
    inputs = {}
    for var in ("inputs", "check_inputs"):
        if var in namespace:
            value = namespace[var]
            inputs[var] = [describe_args(v) for v in value] if var == "check_inputs" and isinstance(
                value, (list, tuple)) else describe_args(value)
    return modules, functions, inputs


def _module_record(name, cls, namespace, places, out_dir, index):
    import torch
    rec = {"class": name, "line": _line_of(cls), "qualname": cls.__qualname__}
    instances = [var for var, v in namespace.items() if type(v) is cls]
    rec["instances"] = instances
    methods = []
    for attr, fn in cls.__dict__.items():
        if inspect.isfunction(fn) and not attr.startswith("__"):
            m = {"name": attr, "line": fn.__code__.co_firstlineno}
            modifier = _modifier(fn)
            if modifier:
                m["modifier"] = modifier
            methods.append(m)
    rec["methods"] = methods
    instance = namespace[instances[0]] if instances else None
    if instance is None:
        try:
            instance = cls()
            rec["instance"] = "fresh"
        except Exception as e:  # noqa: BLE001 (a constructor that needs arguments)
            rec["script_error"] = {"type": type(e).__name__, "message": "no instance to script: the file creates "
                                   "none and %s() raised: %s" % (name, str(e).strip().split("\n")[0])}
            return rec
    else:
        rec["instance"] = instances[0]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                scripted = torch.jit.script(instance)
            except RuntimeError as e:
                # A script call of the file that failed leaves its half-compiled type cached ("Can't redefine
                # method"): compile afresh, as a new process would, to get PyTorch's own error.
                if "Can't redefine method" not in str(e):
                    raise
                torch.jit._recursive.concrete_type_store = torch.jit._recursive.ConcreteTypeStore()
                scripted = torch.jit.script(instance)
    except Exception as e:  # noqa: BLE001
        rec["script_error"] = places.error(e)
        return rec
    compiled = list(scripted._c._method_names())
    by_name = {m["name"]: m for m in methods}
    for mname in compiled:
        m = by_name.setdefault(mname, {"name": mname})
        if mname not in [x["name"] for x in methods]:
            methods.append(m)
        m["compiled"] = True
        m["how"] = "forward" if mname == "forward" else (
            "export" if m.get("modifier") == "export" else "implicit")
        if m.get("modifier") != "unused":
            m["graph"] = graph_json(scripted._c._get_method(mname).graph)
    ct = scripted._concrete_type
    rec["attributes"] = [{"name": a, "type": str(t[0]), "value": repr(getattr(instance, a, None))[:200]}
                         for a, t in ct.get_attributes().items() if not a.startswith("_")]
    rec["constants"] = [{"name": k, "type": _constant_type(type(instance), k, v), "value": repr(v)[:200]}
                        for k, v in ct.get_constants().items()]
    rec["parameters"] = [{"name": n, "dtype": str(p.dtype).replace("torch.", ""), "shape": list(p.shape),
                          "kind": "parameter"} for n, p in instance.named_parameters()]
    rec["parameters"] += [{"name": n, "dtype": str(b.dtype).replace("torch.", ""), "shape": list(b.shape),
                           "kind": "buffer"} for n, b in instance.named_buffers()]
    path = os.path.join(out_dir, "module-%d.pt" % index)
    try:
        torch.jit.save(scripted, path, _extra_files=_producer())
        rec["archive"] = os.path.basename(path)
    except Exception as e:  # noqa: BLE001
        rec["archive_error"] = str(e).strip().split("\n")[0]
    return rec
