"""The bridge's comparison of values: the first value where trace 1 and the Python code part ways, for a check input
set whose outputs differ (whatever the graphs do). Trace 1 runs on the set with every node's value seen (a probe
operator after each node), the Python code on the same set with every torch call's result recorded (a
TorchFunctionMode) under the module running it (forward hooks), and the two are compared in execution order.

What is kept: a tensor of up to WHOLE elements whole, a bigger one as its shape, dtype, mean and a strided sample
of SAMPLE elements, so that memory stays bounded on a detection model (a few hundred KB per value at most).

The answer, a dict for the record: the first trace node (its id as graph_json numbers trace 1's nodes) whose value
Python never computes while its tensor operands agree, both values, the operand that explains it and the cause's
kind: `size` (a size or number computed by tensor arithmetic in the trace, with Python floats in the code),
`constant` (a value trace 1 baked in, another in Python on this set), `nondeterministic` (the code run twice differs
too: the check cannot pass as written), `op` (the same operands, other values: a fast path or a branch the graph
kept that chose otherwise)."""

import functools
import os
import sys
import weakref

from jitscope_bridge_places import BRIDGE_FILES  # loaded before this module by jitscope_bridge.py

WHOLE = 1 << 16  # elements kept whole: 256 KB of float32
SAMPLE = 4096  # elements of a bigger tensor's sample
PROBE = 64  # elements compared first

@functools.lru_cache(maxsize=None)
def _torch_dir():
    import torch
    return os.path.dirname(os.path.dirname(os.path.realpath(torch.__file__)))


class Value:
    """A tensor as compared: its shape, dtype, mean, a strided probe of PROBE elements and its data (whole, or a
    strided sample)."""
    __slots__ = ("shape", "dtype", "data", "whole", "mean", "probe")

    def __init__(self, t):
        import torch
        t = t.detach()
        self.shape = tuple(t.shape)
        self.dtype = t.dtype
        n = t.numel()
        self.whole = n <= WHOLE
        if self.whole:
            self.data = t.reshape(-1).clone()
        else:
            flat = t.reshape(-1) if t.is_contiguous() else t.flatten()
            self.data = flat[::max(1, n // SAMPLE)][:SAMPLE].clone()
        if not self.data.is_floating_point():
            self.data = self.data.to(torch.float64)
        self.mean = float(self.data.mean(dtype=torch.float64)) if n else 0.0  # of the sample: the same places
        m = self.data.numel()
        self.probe = self.data[::max(1, m // PROBE)][:PROBE] if m > PROBE else self.data

    def close(self, other, tol):
        import torch
        if self.shape != other.shape or self.whole != other.whole:
            return False
        if not (abs(self.mean - other.mean) <= tol + tol * abs(other.mean)) and not (
                self.mean != self.mean and other.mean != other.mean):
            return False
        a, b = self.data, other.data
        if a.numel() == 0:
            return True
        try:
            same = a.dtype == b.dtype
            a, b = (a, b) if same else (a.to(torch.float64), b.to(torch.float64))
            pa, pb = (self.probe, other.probe) if same else (a[:0], b[:0])
            if torch.equal(a, b):
                return True
            # A spread of elements first: most values of the same shape differ there already.
            if pa.numel() and not torch.allclose(pa, pb, rtol=tol, atol=tol, equal_nan=True):
                return False
            return bool(torch.allclose(a, b, rtol=tol, atol=tol, equal_nan=True))
        except (RuntimeError, TypeError):
            return False

    def text(self):
        dtype = str(self.dtype).replace("torch.", "")
        shape = "x".join(str(d) for d in self.shape) if self.shape else "scalar"
        out = "%s[%s]" % (dtype, shape)
        if self.data.numel() == 0:
            return out
        if self.whole and self.data.numel() <= 6:
            items = self.data.tolist()
            if not self.dtype.is_floating_point:
                return out + " " + str([int(v) for v in items])
            return out + " [" + ", ".join("%.7g" % v for v in items) + "]"
        return out + " mean=%.6g min=%.6g max=%.6g" % (self.mean, float(self.data.min()), float(self.data.max()))


def _values_of(x, out, depth=0, make=Value):
    """The tensors of a result (tuples, lists and dicts looked into), in order, as @p make makes their Values."""
    import torch
    if isinstance(x, torch.Tensor):
        if x.layout == torch.strided and not x.is_quantized:
            out.append(make(x))
    elif depth < 4 and isinstance(x, (tuple, list)):
        for v in x:
            _values_of(v, out, depth + 1, make)
    elif depth < 4 and isinstance(x, dict):
        for v in x.values():
            _values_of(v, out, depth + 1, make)
    return out


def _plain(x, depth=0):
    """A Python number or a list of them as the code passed it, else None (a tensor argument is a Value)."""
    if isinstance(x, (int, float)):  # bool too
        return x
    if depth < 2 and isinstance(x, (tuple, list)) and all(isinstance(v, (bool, int, float)) for v in x):
        return list(x)
    return None


def _argument(a, value=Value):
    """An argument as recorded, before the call runs: a tensor's Value (as @p value makes it), a list's tensors'
    Values, a number or a list of numbers, else None."""
    import torch
    if isinstance(a, torch.Tensor):
        return value(a) if a.layout == torch.strided and not a.is_quantized else None
    if isinstance(a, (tuple, list)) and any(isinstance(t, torch.Tensor) for t in a):
        return [_argument(t, value) for t in a]
    return _plain(a)


_REAL_PATHS = {}


def _user_place():
    """The nearest frame outside torch's own files and the bridge's (torchvision's count: they are the code being
    traced)."""
    torch_files = _torch_dir() + os.sep + "torch" + os.sep
    f = sys._getframe(2)
    while f is not None:
        path = f.f_code.co_filename
        if not path.startswith(torch_files):
            real = _REAL_PATHS.get(path)
            if real is None:
                real = _REAL_PATHS[path] = os.path.realpath(path)  # once per file, not per call
            if real not in BRIDGE_FILES:
                return real, f.f_lineno
        f = f.f_back
    return "", 0


_METHOD_NAMES = {"__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub", "__rsub__": "rsub",
                 "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_", "__truediv__": "div",
                 "__rtruediv__": "div", "__itruediv__": "div_", "__floordiv__": "floor_divide",
                 "__matmul__": "matmul", "__pow__": "pow", "__rpow__": "pow", "__neg__": "neg", "__and__": "__and__",
                 "__or__": "__or__", "__getitem__": "getitem", "__setitem__": "copy_", "__gt__": "gt", "__lt__": "lt",
                 "__ge__": "ge", "__le__": "le", "__eq__": "eq", "__ne__": "ne", "__invert__": "bitwise_not",
                 "__mod__": "remainder"}


def op_name(func):
    """A torch call's name as the trace's op would have it (`x + y` is `add`)."""
    name = getattr(func, "__name__", "") or str(func)
    return _METHOD_NAMES.get(name, name)


class _Recording:
    """One run of the Python code: every torch call's tensors (TorchFunctionMode, top-level calls only: the mode is
    off inside its own handler) with the module running it (forward pre and post hooks on every submodule)."""

    def __init__(self, obj):
        import torch
        self.ops = []  # {"module", "func", "outs": [Value], "args": [Value | [Value] | plain | None], "place"}
        self.known = {}  # id(tensor) -> (weakref, version, Value): what a call made, its Value kept once
        self.stack = [""]
        self.handles = []
        for name, m in obj.named_modules() if isinstance(obj, torch.nn.Module) else ():
            if name:
                self.handles += [m.register_forward_pre_hook(self._pre(name)),
                                 m.register_forward_hook(self._post(name))]

    def _pre(self, name):
        def hook(module, args):
            self.stack.append(name)
        return hook

    def _post(self, name):
        def hook(module, args, output):
            if self.stack and self.stack[-1] == name:
                self.stack.pop()
        return hook

    def close(self):
        for h in self.handles:
            h.remove()

    def value(self, t):
        """@p t's Value: the one kept when a call made it and nothing wrote to it since, else a new one."""
        try:
            seen, key = self.known.get(id(t)), (weakref.ref(t), t._version)
        except (RuntimeError, TypeError):  # an inference tensor counts no versions
            return Value(t)
        if seen is None or seen[0]() is not t or seen[1] != key[1]:
            seen = self.known[id(t)] = key + (Value(t),)
        return seen[2]

    def mode(self):
        import torch
        from torch.overrides import TorchFunctionMode
        recording = self

        class Mode(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                flat = list(args) + list((kwargs or {}).values())
                taken = [_argument(a, recording.value) for a in flat]  # what a call made costs nothing more
                out = func(*args, **(kwargs or {}))
                outs = _values_of(out, [], make=recording.value)
                name = op_name(func)
                if (name.endswith("_") or name == "copy_") and args and isinstance(args[0], torch.Tensor):
                    # In place: what it wrote into, whole (the tensor a view of it belongs to).
                    base = args[0]._base
                    if base is not None and base.layout == torch.strided:
                        outs.append(Value(base))
                if outs:
                    recording.ops.append({
                        "module": recording.stack[-1], "func": name, "outs": outs,
                        "args": taken, "place": _user_place()})
                return out

        return Mode()


def _run_python(obj, inputs):
    import torch
    from torch.jit._trace import _clone_inputs
    rec = _Recording(obj)
    try:
        with torch.no_grad(), rec.mode():
            out = obj(*_clone_inputs(inputs))
        return rec, _values_of(out, [])
    finally:
        rec.close()


_NUMBER_OPS = {"aten::size", "aten::_shape_as_tensor", "prim::NumToTensor", "aten::Int", "aten::Float", "aten::ScalarImplicit",
               "prim::ListConstruct", "prim::TupleConstruct", "aten::floor", "aten::ceil", "aten::round"}
# Number arguments that say how, not how much: never a size or an index the trace could have baked.
_HOW = {"dtype", "layout", "device", "pin_memory", "memory_format", "non_blocking", "copy", "align_corners"}
_PROBED_KINDS = {"TensorType", "IntType", "FloatType", "BoolType", "NumberType"}


def _probed(v):
    ty = v.type()
    return ty.kind() in _PROBED_KINDS or ty.kind() == "ListType" and ty.getElementType().kind() in (
        "IntType", "FloatType", "BoolType", "TensorType")


def _count_nodes(node):
    """The nodes inside a node's blocks, as graph_json numbers them (depth first)."""
    return sum(1 + _count_nodes(n) for b in node.blocks() for n in b.nodes())


_PROBE = {"library": None, "sink": None}


def _probe_op():
    """jitscope::probe(x, id) -> x: an operator the probed graph calls after each node's tensor output, which keeps
    the tensor's Value as it is made (no intermediate tensor is kept alive by the probe)."""
    import torch
    if _PROBE["library"] is None:
        lib = torch.library.Library("jitscope", "DEF")
        lib.define("probe(Tensor(a) x, int id) -> Tensor(a)")

        def probe(x, id):
            sink = _PROBE["sink"]
            if sink is not None:
                sink[id] = Value(x) if isinstance(x, torch.Tensor) else x
            return x

        lib.impl("probe", probe, "CompositeExplicitAutograd")
        _PROBE["library"] = lib
    return "jitscope::probe"


def _run_trace(first, inputs):
    """Trace 1 run on the set with every top-level node's outputs seen: tensors by a probe after the node, numbers
    and lists returned. [(node id, node, [values])] and the graph's inputs."""
    import torch
    from torch.jit._trace import _clone_inputs
    graph = first.inlined_graph
    nodes = []
    nid = 0
    for n in graph.nodes():
        nodes.append((nid, n))
        nid += 1 + _count_nodes(n)
    probe = _probe_op()
    probed = []  # (node id, node, output) in order
    returned = []  # indexes into probed of the values the graph returns
    for i, n in nodes:
        if n.kind() == "prim::Constant":
            continue  # its value is its attribute (_constant)
        for o in n.outputs():
            if not _probed(o):
                continue
            k = len(probed)
            probed.append((i, n, o))
            if o.type().kind() == "TensorType":
                c = graph.create("prim::Constant")
                c.i_("value", k)
                c.output().setType(torch._C.IntType.get())
                c.insertAfter(n)
                p = graph.create(probe, [o, c.output()], 1)
                p.output().setType(o.type())
                p.insertAfter(c)
                o.replaceAllUsesAfterNodeWith(p, p.output())
            else:
                returned.append(k)
    # What the graph returned stays returned (a probe no value depends on would be dropped as dead code).
    kept = [graph.return_node().inputsAt(0)] + [probed[k][2] for k in returned]
    tup = graph.create("prim::TupleConstruct", kept)
    tup.output().setType(torch._C.TupleType([v.type() for v in kept]))
    tup.insertBefore(graph.return_node())
    graph.eraseOutput(0)
    graph.registerOutput(tup.output())
    fn = torch._C._create_function_from_graph("jitscope_probe", graph)
    args = _clone_inputs(inputs)
    # The module the graph's `self` is: a ScriptModule's C++ object (PyTorch's check keeps trace 1 as that object
    # when it raises), a traced method's owner's; a traced function has none.
    if isinstance(first, torch._C.ScriptModule):
        owner = first
    else:
        owner = first if isinstance(first, torch.jit.ScriptModule) else getattr(first, "owner", None)
        owner = getattr(owner, "_c", owner) if owner is not None else None
    sink = {}
    _PROBE["sink"] = sink
    try:
        with torch.no_grad():
            results = fn(owner, *args) if owner is not None else fn(*args)
    finally:
        _PROBE["sink"] = None
    for k, r in zip(returned, results[1:]):
        if isinstance(r, list) and r and isinstance(r[0], torch.Tensor):
            r = [Value(t) for t in r]
        sink[k] = r
    out = {}
    for i, n in nodes:
        if n.kind() == "prim::Constant" and _probed(n.output()):
            value = n.output().toIValue()
            out[i] = [Value(value) if isinstance(value, torch.Tensor) else value]
    for k, (i, n, o) in enumerate(probed):
        if k in sink:
            out.setdefault(i, []).append(sink[k])
    return [(i, n, out.get(i, [])) for i, n in nodes], list(graph.inputs())


def _operands(node):
    """A node's inputs as the traced graph had them (past the probes)."""
    out = []
    for v in node.inputs():
        while v.node().kind() == "jitscope::probe":
            v = v.node().inputsAt(0)
        out.append(v)
    return out


def _module_of(node):
    scope = node.scopeName()
    last = scope.split("/")[-1] if scope else ""
    return last[len("__module."):] if last.startswith("__module.") else ""


def _text(v):
    if isinstance(v, Value):
        return v.text()
    if isinstance(v, list) and v and isinstance(v[0], Value):
        return "[" + ", ".join(x.text() for x in v) + "]"
    if isinstance(v, float):
        return "%.7g" % v
    return repr(v)


def _matches(value, pool, tol, module=None):
    """Whether Python computed @p value too: among the values of the calls made in the same module first, then of
    any."""
    near = pool.get((module, value.shape), ())
    return any(value.close(candidate, tol) for candidate in near) or any(
        value.close(candidate, tol) for candidate in pool.get(value.shape, ()) if candidate not in near)


def _key(node):
    """A node's identity across Python wrappers (each .node() call makes a new one): its first output's."""
    return node.outputsAt(0).unique() if node.outputsSize() else None


def _constant(node):
    """Whether a node's output is a constant of the trace: a prim::Constant, or a list of them."""
    return node.kind() == "prim::Constant" or node.kind() == "prim::ListConstruct" and all(
        i.node().kind() == "prim::Constant" for i in node.inputs())


def _numbers(v):
    """A number or a list of numbers as a list, else None."""
    v = v if isinstance(v, list) else [v]
    return v if all(isinstance(x, (int, float)) for x in v) else None


def _differs(a, b, tol):
    """Whether two numbers, or two lists of numbers, differ (anything else, None among them: not known to)."""
    if isinstance(a, list) != isinstance(b, list) or _numbers(a) is None or _numbers(b) is None:
        return False
    a, b = _numbers(a), _numbers(b)
    return len(a) != len(b) or any(abs(x - y) > tol + tol * abs(y) for x, y in zip(a, b))


def _arithmetic(value_node, produced, numbers, order):
    """The tensor arithmetic the trace computed a number with, in execution order, from the sizes it read (the
    producers up its number nodes), and the floating dtypes it computed in."""
    ops, dtypes, seen, todo = set(), [], set(), [value_node]
    while todo and len(seen) < 200:
        n = todo.pop()
        key = order.get(_key(n))
        if key is None or key in seen or (key not in numbers and _key(n) != _key(value_node)):
            continue
        seen.add(key)
        kind = n.kind()
        if kind not in ("prim::ListConstruct", "prim::TupleConstruct", "prim::NumToTensor", "aten::Int",
                        "aten::ScalarImplicit", "aten::to", "aten::detach", "prim::Constant"):
            ops.add((key, kind))
        for o in n.outputs():
            v = produced.get(o.debugName(), (None, None))[1]
            if isinstance(v, Value) and v.dtype.is_floating_point:
                dtypes.append(str(v.dtype).replace("torch.", ""))
        if kind in ("aten::size", "aten::_shape_as_tensor"):
            continue  # the tensor it reads the size of is not arithmetic
        for i in _operands(n):
            todo.append(i.node())
    return list(dict.fromkeys(kind for _, kind in sorted(ops))), list(dict.fromkeys(dtypes))


def _python_op(record, module, kind, occurrence):
    """The Python call that matches a trace node: the occurrence-th call of the same op in the same module."""
    want = kind.split("::", 1)[-1].rstrip("_")
    seen = 0
    for op in record.ops:
        if op["module"] != module:
            continue
        name = op["func"].rstrip("_")
        if name == want or name.replace("_", "") == want.replace("_", "") or \
                (want.startswith("upsample") and name == "interpolate") or \
                (want in ("slice", "select", "index") and name == "getitem") or \
                (want == "_convolution" and name.startswith("conv")):
            if seen == occurrence:
                return op
            seen += 1
    return None


def _same_op(py, kind):
    """Whether a Python call is the trace node's op itself, its arguments the node's operands one for one (not
    `getitem` for a slice: the tensor and an index tuple)."""
    return py is not None and py["func"].rstrip("_") == kind.split("::", 1)[-1].rstrip("_")


def _nondeterministic(first_run, second_run, tol):
    """The first torch call whose result differs between two runs of the code on the same inputs, or None."""
    for a, b in zip(first_run.ops, second_run.ops):
        if a["func"] != b["func"]:
            return None
        for x, y in zip(a["outs"], b["outs"]):
            if not x.close(y, tol):
                return a, x, y
    return None


def _node_of(trace, op):
    """The trace node of a Python call: the first of its op's name in its module, or -1."""
    want = op["func"].rstrip("_")
    return next((i for i, n, _ in trace if _module_of(n) == op["module"] and
                 n.kind().split("::")[-1].rstrip("_") in (want, "feature_" + want)), -1)


def first_divergence(first, obj, inputs, tolerance=1e-5, module_types=None):
    """Where trace 1 and the Python code part ways on @p inputs (a tuple of arguments), or None when they agree
    everywhere this can see. When a run raises, {"error": ...} says why."""
    import torch
    from torch.jit._trace import _clone_inputs
    module_types = module_types or {}
    try:
        state = torch.random.get_rng_state()
        python, python_out = _run_python(obj, inputs)
        with torch.no_grad():
            again_out = _values_of(obj(*_clone_inputs(inputs)), [])  # the random state moved on
        moved = torch.random.get_rng_state()
        torch.random.set_rng_state(state)
        trace, trace_inputs = _run_trace(first, inputs)
        torch.random.set_rng_state(state)
    except Exception as e:  # noqa: BLE001 (the analysis is a detail of the record: say why it stopped)
        return {"error": (type(e).__name__ + ": " + str(e).strip().split("\n")[0])[:500]}

    def module_text(name):
        return "module `%s` (%s)" % (name, module_types[name]) if name in module_types else (
            "module `%s`" % name if name else "the top module")

    random_op = randomly = None
    if any(not a.close(b, tolerance) for a, b in zip(python_out, again_out)):
        # Another result from the same inputs: which call is random, from a second recorded run.
        try:
            torch.random.set_rng_state(moved)
            again, _ = _run_python(obj, inputs)
            random_op = _nondeterministic(python, again, tolerance)
        except Exception:  # noqa: BLE001 (it ran once already: the finding stands without its op)
            random_op = None
        torch.random.set_rng_state(state)
    if random_op is not None:
        op, a, b = random_op
        randomly = {"cause": "nondeterministic", "random_op": op["func"], "random_module": op["module"],
                    "random_node": _node_of(trace, op),
                    "message": "the Python code run twice on this set differs too: `%s` in %s gives other values "
                               "each run (%s, then %s), so the check cannot pass as written"
                               % (op["func"], module_text(op["module"]), a.text(), b.text())}
        if op["place"][0]:
            randomly["python_file"], randomly["python_line"] = op["place"]
    # What Python computed: its calls' results and the tensors they took (a view made without a call of its own,
    # `x[None]` under torch 1.13, is known where the next call takes it), its inputs and outputs. A view is not
    # vouched for by the values it was made of: `x[:, :28]` of an x that agrees is not Python's `x[:, :42]`.
    pool, pooled = {}, set()  # shape -> Values; (module, shape) -> the Values of the calls made in that module
    for module, v in [(op["module"], v) for op in python.ops for a in op["outs"] + op["args"]
                      for v in (a if isinstance(a, list) else [a]) if isinstance(v, Value)] + [
            (None, v) for v in _values_of(list(inputs), []) + python_out]:
        if id(v) not in pooled:
            pooled.add(id(v))
            pool.setdefault(v.shape, []).append(v)
            if module is not None:
                pool.setdefault((module, v.shape), []).append(v)
    produced = {}  # torch._C.Value debug name -> (node id, value); the graph's inputs: node -1
    graph_inputs = [v for v in trace_inputs if v.type().kind() == "TensorType"]
    for v, arg in zip(graph_inputs, _values_of(list(inputs), [])):
        produced[v.debugName()] = (-1, arg)
    numbers = set()  # node ids whose outputs are numbers computed in the trace (sizes and their arithmetic)
    occurrences = {}
    order = {_key(node): nid for nid, node, _ in trace}
    by_id = {nid: node for nid, node, _ in trace}
    status = {}  # node id -> "number", "match" (Python computed the value too) or "other"
    occurrence_of = {}  # node id -> how many nodes of its kind its module ran before it
    consumers = {}  # node id -> the nodes that read its values
    for nid, node, values in trace:
        kind = node.kind()
        module = _module_of(node)
        occurrence_of[nid] = occurrences.get((module, kind), 0)
        occurrences[(module, kind)] = occurrence_of[nid] + 1
        for i in _operands(node):
            if i.debugName() in produced:
                consumers.setdefault(produced[i.debugName()][0], []).append(nid)
        for o, v in zip([o for o in node.outputs() if _probed(o)], values):
            produced[o.debugName()] = (nid, v)
        if kind in ("prim::Constant", "prim::GetAttr"):
            continue
        tensor_inputs = [i for i in _operands(node) if i.type().kind() == "TensorType"]
        from_numbers = kind in _NUMBER_OPS or (tensor_inputs and all(
            produced.get(i.debugName(), (None,))[0] in numbers or i.node().kind() == "prim::Constant"
            for i in tensor_inputs) and all(isinstance(v, Value) and v.data.numel() <= 8 for v in values))
        if from_numbers:
            numbers.add(nid)
            status[nid] = "number"
            continue
        outs = [v for v in values if isinstance(v, Value)]
        if outs:
            status[nid] = "match" if all(_matches(v, pool, tolerance, module) for v in outs) else "other"

    def passing(nid, depth=3):
        """A value Python never computed on its own (the [3, 1] between two unsqueezes where Python indexes once)
        that a later value Python did compute is made of: a step of the same computation, not a divergence."""
        return any(status.get(c) == "match" or (depth > 0 and status.get(c) == "other" and passing(c, depth - 1))
                   for c in consumers.get(nid, ()))

    def small(values):
        return all(not isinstance(v, Value) or v.data.numel() <= 8 for v in values)

    def taken_instead(nid, node):
        """What Python's call of the op that takes the node's value took in its place, as (Value, words), or None:
        its argument there, or its first (the input, `conv1d`'s for `aten::_convolution`) when it is another op."""
        for c in consumers.get(nid, ()):
            pc = _python_op(python, _module_of(by_id[c]), by_id[c].kind(), occurrence_of[c])
            for k, i in enumerate(_operands(by_id[c]) if pc else ()):
                if _key(i.node()) == _key(node) and (k == 0 or _same_op(pc, by_id[c].kind())) and \
                        k < len(pc["args"]) and isinstance(pc["args"][k], Value):
                    return pc["args"][k], "operand %d of %s" % (k, pc["func"])
        return None

    # A few numbers Python never computed are a size's arithmetic, seen where a tensor they shape differs: the
    # first such tensor is the divergence; the numbers only when no tensor differs.
    candidates = [t for t in trace if status.get(t[0]) == "other" and not passing(t[0])]
    candidates = [t for t in candidates if not small(t[2])] or candidates
    for nid, node, values in candidates[:1]:
        kind = node.kind()
        module = _module_of(node)
        outs = [v for v in values if isinstance(v, Value)]
        # The first value Python never computed: this node's.
        value = next(v for v in outs if not _matches(v, pool, tolerance, module))
        py = _python_op(python, module, kind, occurrence_of[nid])
        answer = {"node": nid, "kind": kind, "module": module, "trace": value.text()}
        py_out = py["outs"][0] if py and py["outs"] else None
        if py_out is not None:
            answer["python"], answer["python_op"] = py_out.text(), py["func"]
        if py and py["place"][0]:
            answer["python_file"], answer["python_line"] = py["place"]
        operands = []
        cause = None
        same_op = _same_op(py, kind)
        try:  # the operands' names and defaults in the op's schema ("end" for aten::slice's operand 3)
            schema = [(a.name, a.default_value) for a in torch._C.parse_schema(node.schema()).arguments]
        except (RuntimeError, ValueError):  # a prim node has none
            schema = []
        baked = []  # number constants of the trace with no Python argument to compare them with
        for k, i in enumerate(_operands(node)):
            producer = i.node()
            pid, pv = produced.get(i.debugName(), (-1, None))
            py_arg = py["args"][k] if same_op and k < len(py["args"]) else None
            if isinstance(pv, list) and isinstance(py_arg, (int, float)):  # `x.view(3, n, -1)`: the list spread
                py_arg = py["args"][k:k + len(pv)]
            name, default = schema[k] if k < len(schema) else ("", None)
            entry = {"index": k, "node": pid, "trace": _text(pv) if pv is not None else ""}
            if py_arg is not None:
                entry["python"] = _text(py_arg)
            if isinstance(pv, Value):
                agrees = _matches(pv, pool, tolerance) or producer.kind() == "prim::GetAttr"
                if producer.kind() == "prim::Constant" and not (isinstance(py_arg, Value) and pv.close(py_arg, tolerance)):
                    agrees = False
                    entry["what"] = "constant"
                    if cause is None:
                        cause = ("constant", entry)
                entry["agrees"] = agrees
            elif _constant(producer) and _differs(pv, py_arg, tolerance):
                entry["what"] = "constant"
                if cause is None:
                    cause = ("constant", entry)
            elif not same_op and name and "dim" not in name and name not in _HOW and _constant(producer) and \
                    pv not in ([], default) and not isinstance(pv, bool) and _numbers(pv):
                # A size or an index as the traced input had it (`end = 28`, not a default `step = 1`); what Python
                # passed instead is not this op's argument (getitem's index tuple) or not seen at all.
                baked.append((entry, _numbers(pv), name))
            elif pid in numbers:
                entry["what"] = "number"
                entry["arithmetic"], entry["dtypes"] = _arithmetic(producer, produced, numbers, order)
                if cause is None and entry["arithmetic"] and (py_arg is None or _text(py_arg) != entry["trace"]):
                    cause = ("size", entry)
            operands.append(entry)
        answer["operands"] = operands
        if cause is None and baked and all(e.get("agrees", True) for e in operands):
            # The operands that are values agree, the numbers are the trace's own: they make the other value when
            # they are sizes of the trace's value and not of Python's (a slice's `end = 28` to [3, 28] where Python
            # makes [3, 42], not its `start = 0`), or when Python made the value by indexing or by no call at all. (A
            # conv's stride, the same in Python, is no cause: its other values are a fast path's.)
            instead = (py_out, py["func"]) if py_out is not None else taken_instead(nid, node)
            baked = [b for b in baked if instead and set(b[1]) & set(value.shape) - set(instead[0].shape)] or (
                baked if py is None or py["func"] == "getitem" else [])
            for e, _, name in baked:
                e["what"], e["name"] = "constant", name
            if baked and instead and py_out is None:
                answer["python"], answer["python_op"] = instead[0].text(), instead[1]
            short = (lambda v: v.text() if instead[0].shape == value.shape else v.text().split(" ")[0])
            cause = ("constant", {"index": ", ".join(str(e["index"]) for e, _, _ in baked),
                                  "trace": ", ".join("%s = %s" % (name, e["trace"]) for e, _, name in baked),
                                  "python": "%s here (%s; %s in the trace)" % (short(instead[0]), instead[1],
                                                                               short(value)) if instead else None
                                  }) if baked else None
        if randomly:
            answer.update(randomly)
        elif cause and cause[0] == "size":
            e = cause[1]
            answer["cause"] = "size"
            answer["message"] = ("`%s` in %s: %s in the trace, %s in Python: its operand %d is a number the trace "
                                 "computes with tensor arithmetic (%s%s) where Python computes it with floats "
                                 "(trace: %s%s)"
                                 % (kind, module_text(module), value.text().split(" ")[0],
                                    py_out.text().split(" ")[0] if py_out else "no such value",
                                    e["index"], ", ".join(e["arithmetic"][:6]),
                                    (", in " + "/".join(e["dtypes"])) if e["dtypes"] else "", e["trace"],
                                    (", Python: " + e["python"]) if "python" in e else ""))
        elif cause and cause[0] == "constant":
            e = cause[1]
            several = "," in str(e["index"])
            answer["cause"] = "constant"
            answer["message"] = ("`%s` in %s: its operand%s %s %s trace 1 baked in from the traced input (%s) where "
                                 "Python computes %s on this set"
                                 % (kind, module_text(module), "s" if several else "", e["index"],
                                    "are constants" if several else "is a constant", e["trace"],
                                    e.get("python") or "another value"))
        else:
            answer["cause"] = "op"
            answer["message"] = ("`%s` in %s computes other values from operands that agree (%s in the trace, %s in "
                                 "Python): a fast path or a branch the graph kept chose otherwise"
                                 % (kind, module_text(module), value.text().split(" ")[0],
                                    py_out.text().split(" ")[0] if py_out else "no such value"))
        return answer
    return dict(randomly, node=randomly["random_node"], module=randomly["random_module"]) if randomly else None
