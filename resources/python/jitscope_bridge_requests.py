"""JitScope's Python bridge (jitscope_bridge.py): the values of a request from the command line.

A request traces, checks or runs one target of the file on input sets given in JitScope's SET syntax: here the
sets are made (as core/execute makes them), the target is found in what the file defined, what it returned is
summed up, and rich inputs are flattened and rebuilt. jitscope_bridge.py serves the request with them
(serve_request, and make_adapter, whose TracingAdapter must stay a class of that __main__ module).
"""
import inspect

from jitscope_bridge_calls import _line_of


# ----------------------------------------------------------------------------------------------------------------
# A request from the command line: trace or run one function of the file on input sets given in JitScope's SET
# syntax (`--fn NAME --inputs SET ...`), parsed by JitScope and passed here as values (request.json).

_DTYPES = {"f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16", "i64": "int64",
           "i32": "int32", "i16": "int16", "i8": "int8", "u8": "uint8", "bool": "bool"}


def make_value(v):
    """One argument of an input set, made as core/execute makes it (and tests/oracle/inputsets.py): the same
    random numbers after the same torch.manual_seed, consumed left to right, depth first."""
    import math
    import torch
    kind = v["kind"]
    if kind in ("int", "float", "bool"):
        return v["value"]
    if kind == "none":
        return None
    if kind == "tuple":
        return tuple(make_value(i) for i in v["items"])
    if kind == "list":
        return [make_value(i) for i in v["items"]]
    if kind == "dict":
        return {k: make_value(i) for k, i in zip(v["keys"], v["items"])}
    short = v["dtype"]
    dt = getattr(torch, _DTYPES[short])
    shape = tuple(v["shape"])
    fill = v.get("fill", "rand")
    floating = short in ("f32", "f64")
    low_float = short in ("f16", "bf16")
    if fill == "rand":
        if floating:
            return torch.rand(shape, dtype=dt)
        if low_float:
            return torch.rand(shape, dtype=torch.float32).to(dt)
        if short == "bool":
            return torch.rand(shape) < 0.5
        return torch.randint(0, 10, shape, dtype=dt)
    if fill == "randn":
        if floating:
            return torch.randn(shape, dtype=dt)
        if low_float:
            return torch.randn(shape, dtype=torch.float32).to(dt)
        if short == "bool":
            return torch.randn(shape) > 0
        if short == "u8":
            return torch.randint(0, 10, shape, dtype=dt)
        return torch.randint(-10, 10, shape, dtype=dt)
    if fill == "zeros":
        return torch.zeros(shape, dtype=dt)
    if fill == "ones":
        return torch.ones(shape, dtype=dt)
    if fill == "full":
        return torch.full(shape, v.get("fill_value", 0.0), dtype=dt)
    if fill == "arange":
        a = torch.arange(math.prod(shape), dtype=torch.int64).reshape(shape)
        return (a % 2) == 1 if short == "bool" else a.to(dt)
    if fill == "values":
        return torch.tensor(v["values"], dtype=torch.float64).reshape(shape).to(dt)
    raise ValueError("unknown fill %r" % fill)


def make_set(args, seed):
    import torch
    torch.manual_seed(seed)
    return tuple(make_value(a) for a in args)


def summary(value, depth=0):
    """A value as `jitscope-cli run` prints one: float32[3,4] sum=1.234567, containers item by item."""
    import torch
    if depth > 20:
        return "..."
    if isinstance(value, torch.Tensor):
        text = "%s[%s]" % (str(value.dtype).replace("torch.", ""), ",".join(str(d) for d in value.shape))
        if value.numel() > 0 and not value.is_complex():
            text += " sum=%.7g" % value.detach().double().sum().item()
        return text
    if isinstance(value, tuple):
        return "(%s)" % ", ".join(summary(v, depth + 1) for v in value)
    if isinstance(value, list):
        return "[%s]" % ", ".join(summary(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return "{%s}" % ", ".join("%s: %s" % (k, summary(v, depth + 1)) for k, v in value.items())
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class RequestError(Exception):
    pass


# Rich inputs as detectron2's TracingAdapter handles them: torch.jit.trace takes tensors (and tuples, lists and
# dicts of tensors only), so a forward taking a list of dicts with ints in them is traced through an adapter module
# whose inputs are the flat tensors; it rebuilds the structure (the schema, non-tensor values kept in it) and
# flattens what the target returns, whose schema rebuilds the outputs in the user's structure.


def flatten(value, path, leaves):
    """The schema of @p value, its tensors appended to @p leaves as (path, tensor)."""
    import torch
    if isinstance(value, torch.Tensor):
        leaves.append((path, value))
        return ("tensor", len(leaves) - 1)
    if isinstance(value, (tuple, list)):
        return ("tuple" if isinstance(value, tuple) else "list",
                [flatten(v, "%s[%d]" % (path, i), leaves) for i, v in enumerate(value)])
    if isinstance(value, dict):
        return ("dict", [(k, flatten(v, "%s[%r]" % (path, k), leaves)) for k, v in value.items()])
    return ("value", value)


def rebuild(schema, flat):
    kind, data = schema
    if kind == "tensor":
        return flat[data]
    if kind == "tuple":
        return tuple(rebuild(s, flat) for s in data)
    if kind == "list":
        return [rebuild(s, flat) for s in data]
    if kind == "dict":
        return {k: rebuild(s, flat) for k, s in data}
    return data


def _plain(args, depth=0):
    """Arguments torch.jit.trace takes as they are: tensors, and tuples, lists and string-keyed dicts of them."""
    import torch
    if isinstance(args, torch.Tensor):
        return depth > 0
    if isinstance(args, (tuple, list)):
        return all(_plain(a, depth + 1) for a in args) and (depth > 0 or isinstance(args, tuple))
    if isinstance(args, dict):
        return depth > 0 and all(isinstance(k, str) and _plain(v, depth + 1) for k, v in args.items())
    return False


def resolve_target(name, namespace):
    """`fn`, `MyModule.forward` (the instance the file creates, or a fresh one when the constructor needs no
    arguments) or a variable holding a module: what to call, and the line it is defined at."""
    import torch
    functions = sorted(k for k, v in namespace.items() if inspect.isfunction(v) and v.__module__ == "__main__")
    classes = sorted(k for k, v in namespace.items()
                     if inspect.isclass(v) and issubclass(v, torch.nn.Module) and v.__module__ == "__main__")
    known = ", ".join(functions + ["%s.forward" % c for c in classes]) or "none"
    head, _, method = name.partition(".")
    obj = namespace.get(head)
    if obj is None:
        raise RequestError("the file defines no function or module named '%s' (have: %s)" % (head, known))
    if inspect.isclass(obj) and issubclass(obj, torch.nn.Module):
        instance = next((v for v in namespace.values() if type(v) is obj), None)
        if instance is None:
            try:
                instance = obj()
            except Exception as e:  # noqa: BLE001 (a constructor that needs arguments)
                raise RequestError("the file creates no %s and %s() raised: %s"
                                   % (head, head, str(e).strip().split("\n")[0]))
        method = method or "forward"
        if not callable(getattr(instance, method, None)):
            raise RequestError("%s has no method '%s'" % (head, method))
        target = instance if method == "forward" else getattr(instance, method)
        fn = getattr(type(instance), method, None)
        return target, "%s.%s" % (head, method), _line_of(fn) if fn is not None else _line_of(obj)
    if isinstance(obj, torch.nn.Module) and not method:
        return obj, type(obj).__name__ + ".forward", _line_of(type(obj))
    if method or not callable(obj):
        raise RequestError("'%s' is not a function or module of the file (have: %s)" % (name, known))
    return obj, name, _line_of(obj)


def _file_sets(namespace):
    """The file's own `inputs` and `check_inputs`, as they are: the sets of a request that gives none."""
    import torch
    if "inputs" not in namespace:
        raise RequestError("no input sets: give --inputs SET, or define `inputs = (...)` in the file")
    sets = [namespace["inputs"]] + list(namespace.get("check_inputs") or [])
    return [s if isinstance(s, tuple) else (s,) if isinstance(s, torch.Tensor) else tuple(s) for s in sets]
