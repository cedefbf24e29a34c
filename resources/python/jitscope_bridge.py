#!/usr/bin/python3
"""JitScope's bridge to the system's PyTorch: runs a user's .py file as Python would and records what PyTorch does.

    python3 jitscope_bridge.py FILE --out DIR

JitScope starts this script in its own process, only after the user consented to running the file. The file runs
as `__main__`, with its folder first on sys.path and as the working directory, and its own stdout and stderr (read
by JitScope from the pipes). Every torch.jit.trace, torch.jit.trace_module and torch.jit.script call the file makes
is recorded: its line, target, example and check inputs, the real graph of every trace (one per check input, as
torch.jit.trace's check traces them), the TracerWarnings with the user's line, PyTorch's own check verdict and
message, the script graphs, and an archive (torch.jit.save) of each result. After the file ran, the nn.Module
classes, their instances, the plain functions and the `inputs` / `check_inputs` variables are listed, each module
scripted as torch.jit.script would compile it.

Everything goes into DIR/result.json (written once, at the end; its "protocol" says the format's version) and the
archives beside it. Graphs use JitScope's IR snapshot form (IrGraph::toJson in core/ir), numbered the way
core/ir/irsnapshot.cpp numbers a libtorch graph, so that JitScope diffs them like its own.
"""
import argparse
import contextlib
import inspect
import json
import os
import random
import re
import sys
import threading
import traceback
import types
import warnings

PROTOCOL = 1
BRIDGE_FILE = os.path.realpath(__file__)


# ----------------------------------------------------------------------------------------------------------------
# Graphs in JitScope's IR snapshot form


def _num(v):
    """A number as C++'s ostream prints a double (%g, 6 significant digits) or an int."""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    return "%g" % v


_TENSOR_TYPE_NAMES = {
    "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
    "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
    "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}


def _attribute_value(node, name):
    """An attribute's value as core/ir/irsnapshot.cpp's attributeValue() prints it."""
    kind = node.kindOf(name)
    if kind in ("i", "f"):
        return _num(getattr(node, kind)(name))
    if kind == "s":
        return node.s(name)
    if kind in ("is", "fs", "ss"):
        values = getattr(node, {"is": "is_"}.get(kind, kind))(name)
        return "[" + ", ".join(_num(v) if kind != "ss" else v for v in values) + "]"
    if kind == "ty":
        return node.ty(name).annotation_str if hasattr(node.ty(name), "annotation_str") else str(node.ty(name))
    if kind == "t":
        t = node.t(name)
        if t.numel() == 1:
            return _num(t.item())
        scalar = _TENSOR_TYPE_NAMES.get(str(t.dtype).replace("torch.", ""), str(t.dtype))
        return "CPU%sType[%s]" % (scalar, ", ".join(str(d) for d in t.shape))
    if kind == "ival":
        return str(node.ival(name))
    return "<%s>" % kind


def _attribute_data(node, name):
    """IrAttribute::data: a tensor attribute's values, flattened, up to 64 of them, else a CRC-32 of its bytes (as
    core/ir/irsnapshot.cpp's attributeData() writes it)."""
    if node.kindOf(name) != "t":
        return None
    t = node.t(name)
    if t.numel() <= 1 or t.is_complex() or t.device.type != "cpu" or t.is_quantized or t.is_sparse:
        return None
    if t.numel() > 64:
        import zlib
        c = t.contiguous()
        try:
            raw = c.view(-1).view(_torch_module().uint8).numpy().tobytes()
        except Exception:
            return None
        return "n=%d crc=%08x" % (c.numel(), zlib.crc32(raw))
    values = t.reshape(-1).tolist()
    if t.is_floating_point():
        return "[" + ", ".join("%g" % v for v in values) + "]"
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def _torch_module():
    import torch
    return torch


_LOCATION = re.compile(r" # (.*):(\d+):(\d+)$")
_STACK_FRAME = re.compile(r"^(.*)\((\d+)\): (.*)$")
# The frames a node's Python stack leaves out: nn.Module's call machinery and torch.jit's own code.
_NODE_STACK_SKIPS = ("/torch/nn/modules/module.py", "/torch/jit/", "/torch/_ops.py")


def _node_stack(n, files, file_index):
    """The Python stack that recorded node @p n (its source range holds it, innermost first), down to the frame that
    called torch.jit.trace: [file index, line, ...] with the files in @p files."""
    try:
        text = n.sourceRange()
    except Exception:
        return None
    out = []
    for line in text.split("\n"):
        m = _STACK_FRAME.match(line)
        if not m:
            continue
        path = m.group(1)
        if "/torch/jit/_trace.py" in path:
            break
        if path == BRIDGE_FILE or any(part in path for part in _NODE_STACK_SKIPS):
            continue
        index = file_index.get(path)
        if index is None:
            index = file_index[path] = len(files)
            files.append(os.path.realpath(path))  # as warnings name their files
        out += [index, int(m.group(2))]
    return out or None


class _Snapshot:
    """A torch._C.Graph as IrGraph JSON: node ids depth-first, value ids in the order the C++ snapshot meets them."""

    def __init__(self):
        self.values = []
        self.nodes = []
        self.ids = {}
        self.lines = None  # each node's line of the graph's text, in the order node() meets them
        self.files = []  # the files of the nodes' stacks
        self.file_index = {}

    def value_id(self, v, producer):
        key = v.unique()
        if key in self.ids:
            return self.ids[key]
        ty = v.type()
        # Type.str() is what C++ prints (str() gives the annotation: "Tensor" for every tensor type).
        value = {"id": len(self.values), "name": v.debugName(), "type": ty.str(), "producer": producer}
        if isinstance(ty, _torch().TensorType):
            tensor = {}
            if ty.scalarType() is not None:
                tensor["dtype"] = ty.scalarType()
            sizes = ty.varyingSizes()
            if sizes is not None:
                tensor["sizes"] = sizes  # None for a dimension of unknown size, as toJson() writes it
            if ty.device() is not None:
                tensor["device"] = str(ty.device())
            value["tensor"] = tensor
        self.ids[key] = value["id"]
        self.values.append(value)
        return value["id"]

    def block(self, b, parent, parent_block):
        out = {"inputs": [self.value_id(v, -1) for v in b.inputs()]}
        out["nodes"] = [self.node(n, parent, parent_block) for n in b.nodes()]
        out["outputs"] = [self.value_id(v, -1) for v in b.outputs()]
        return out

    def node(self, n, parent, parent_block):
        nid = len(self.nodes)
        self.nodes.append(None)
        o = {"id": nid, "kind": n.kind(), "parent": parent, "parent_block": parent_block}
        schema = n.schema()
        if schema != "(no schema)":
            o["schema"] = schema
        o["inputs"] = [self.value_id(v, -1) for v in n.inputs()]
        o["outputs"] = [self.value_id(v, nid) for v in n.outputs()]
        first = next(self.lines, None) if self.lines is not None else None
        if first is None:
            first = str(n).split("\n", 1)[0]
        names = list(n.attributeNames())
        if names:
            head = " = " + n.kind()
            args = "(" + ", ".join("%" + v.debugName() for v in n.inputs()) + ")"
            start = first.find(head)
            end = first.rfind(args)
            o["attribute_text"] = first[start + len(head):end] if start >= 0 and end > start else ""
            o["attributes"] = [{"name": a, "kind": n.kindOf(a), "value": _attribute_value(n, a)} for a in names]
            for a in o["attributes"]:
                data = _attribute_data(n, a["name"])
                if data is not None:
                    a["data"] = data
        m = _LOCATION.search(first)
        if m:
            o["source"] = {"file": m.group(1), "line": int(m.group(2)), "column": int(m.group(3))}
        stack = _node_stack(n, self.files, self.file_index)
        if stack:
            o["stack"] = stack
        scope = n.scopeName()
        if scope:
            o["scope"] = scope
            last = scope.split("/")[-1]
            if last.startswith("__module."):
                o["module"] = last[len("__module."):]
        blocks = [self.block(b, nid, k) for k, b in enumerate(n.blocks())]
        if blocks:
            o["blocks"] = blocks
        self.nodes[nid] = o
        return nid


def _node_lines(text):
    """The node lines of a graph's text, depth first as the graph prints them (its header, block headers, block
    outputs and the return left out): str(node) for each node costs a print of the node (and its blocks)."""
    lines = text.split("\n")
    start = next((k for k, line in enumerate(lines) if line.endswith("):")), None)
    if start is None:
        return None
    out = []
    for line in lines[start + 1:]:
        body = line.strip()
        if not body or body.startswith(("block", "-> (", "return (")):
            continue
        out.append(body)
    return out


def _count_nodes(block):
    return sum(1 + sum(_count_nodes(b) for b in n.blocks()) for n in block.nodes())


def graph_json(graph):
    s = _Snapshot()
    text = str(graph)
    lines = _node_lines(text)
    if lines is not None and len(lines) == _count_nodes(graph):
        s.lines = iter(lines)
    top = s.block(graph, -1, -1)
    return {"inputs": top["inputs"], "outputs": top["outputs"], "nodes": top["nodes"], "values": s.values,
            "node_table": s.nodes, "files": s.files, "text": text}


# ----------------------------------------------------------------------------------------------------------------
# Values, errors and places


def _torch():
    import torch
    return torch._C


_SHORT_DTYPES = {
    "float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int64": "i64", "int32": "i32",
    "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "bool",
}


def describe(value, depth=0):
    """A short, JSON-able description of a runtime value: kind, dtype and shape, items of containers."""
    import torch
    if depth > 20:
        return {"kind": "other", "repr": "..."}
    if isinstance(value, torch.Tensor):
        dtype = str(value.dtype).replace("torch.", "")
        d = {"kind": "tensor", "dtype": dtype, "shape": list(value.shape), "device": str(value.device)}
        short = _SHORT_DTYPES.get(dtype)
        if short:
            d["set"] = "%s[%s]" % (short, ",".join(str(s) for s in value.shape))
        return d
    if isinstance(value, bool):
        return {"kind": "bool", "value": value, "set": "true" if value else "false"}
    if isinstance(value, int):
        return {"kind": "int", "value": value, "set": str(value)}
    if isinstance(value, float):
        return {"kind": "float", "value": value, "set": repr(value)}
    if value is None:
        return {"kind": "none", "set": "none"}
    if isinstance(value, str):
        return {"kind": "str", "value": value[:200]}
    if isinstance(value, (tuple, list)):
        items = [describe(v, depth + 1) for v in value[:1000]]
        d = {"kind": "tuple" if isinstance(value, tuple) else "list", "items": items}
        if all("set" in i for i in items):
            d["set"] = ("(%s)" if isinstance(value, tuple) else "[%s]") % ",".join(i["set"] for i in items)
        return d
    if isinstance(value, dict):
        items = {str(k): describe(v, depth + 1) for k, v in list(value.items())[:1000]}
        d = {"kind": "dict", "items": items}
        if all("set" in i for i in items.values()):
            d["set"] = "{%s}" % ", ".join("%s: %s" % (k, i["set"]) for k, i in items.items())
        return d
    return {"kind": "other", "type": type(value).__name__, "repr": repr(value)[:200]}


def describe_args(args):
    """An example-inputs argument as torch.jit.trace takes it: a tensor stands for a 1-tuple."""
    import torch
    if isinstance(args, torch.Tensor):
        args = (args,)
    d = describe(args)
    if d.get("kind") == "tuple" and "set" in d:
        d["set"] = "; ".join(i["set"] for i in d["items"])
    return d


_TS_PLACE = re.compile(r'File "(.*?)", line (\d+)')


class Places:
    """Which frames and error places are the user's (the file run, or any file outside torch and this bridge)."""

    def __init__(self, user_file):
        import torch
        self.user_file = os.path.realpath(user_file)
        self.user_dir = os.path.dirname(self.user_file)
        self.torch_dir = os.path.dirname(os.path.realpath(torch.__file__))

    def is_user(self, filename):
        if not filename or filename.startswith("<"):
            return False
        path = os.path.realpath(filename)
        return path != BRIDGE_FILE and not path.startswith(self.torch_dir + os.sep) and "/importlib/" not in path \
            and os.path.basename(path) != "runpy.py"

    def is_own(self, filename):
        """The user's own code: the file run or a file beside it, not an installed package."""
        if not filename or filename.startswith("<"):
            return False
        path = os.path.realpath(filename)
        return self.is_user(path) and path.startswith(self.user_dir + os.sep) and "-packages" + os.sep not in path

    def caller(self, depth=2):
        """The nearest frame above this bridge's wrapper: (file, line) if it is the user's, else None."""
        f = sys._getframe(depth)
        while f is not None and os.path.realpath(f.f_code.co_filename) == BRIDGE_FILE:
            f = f.f_back
        if f is None or not self.is_user(f.f_code.co_filename):
            return None
        return os.path.realpath(f.f_code.co_filename), f.f_lineno

    def error(self, exc):
        """An exception as JitScope shows it: type, message, the user's line and column, the user's frames."""
        message = _without_bridge_frames(str(exc)).strip()
        d = {"type": type(exc).__name__, "message": message}
        frames = [fr for fr in traceback.extract_tb(exc.__traceback__) if self.is_user(fr.filename)]
        d["traceback"] = [{"file": os.path.realpath(fr.filename), "line": fr.lineno, "function": fr.name,
                           "text": fr.line or ""} for fr in frames]
        if frames:
            d["file"], d["line"] = os.path.realpath(frames[-1].filename), frames[-1].lineno
        if isinstance(exc, SyntaxError) and exc.lineno:
            d["file"], d["line"], d["column"] = os.path.realpath(exc.filename or self.user_file), exc.lineno, \
                max(0, (exc.offset or 1) - 1)
        # TorchScript's compile errors quote the user's source: 'File "x.py", line 5', the line, a caret line.
        places = [(m.group(1), int(m.group(2)), m.end()) for m in _TS_PLACE.finditer(message)]
        user_places = [p for p in places if self.is_user(p[0])]
        if user_places:
            path, line, end = user_places[-1] if "<--- HERE" not in message else next(
                (p for p in user_places if "<--- HERE" in message[p[2]:]), user_places[-1])
            d["file"], d["line"] = os.path.realpath(path), line
            rest = message[end:].split("\n")
            for k in range(1, len(rest)):
                if "<--- HERE" in rest[k] or re.match(r"^\s*~+\s*$", rest[k]):
                    caret = len(rest[k]) - len(rest[k].lstrip(" "))
                    d["column"] = caret
                    break
            first = message.split("\n", 1)[0].strip()
            d["summary"] = first.rstrip(":")
        return d


# ----------------------------------------------------------------------------------------------------------------
# Recording torch.jit's entry points


def _without_bridge_frames(message):
    """PyTorch's check message quotes the Python stack of the trace: this bridge's frames are not the user's."""
    return "\n".join(line for line in message.split("\n") if BRIDGE_FILE not in line)


def _target(obj):
    import torch
    if isinstance(obj, torch.nn.Module):
        cls = type(obj)
        return {"kind": "module", "class": cls.__name__, "name": cls.__name__ + ".forward",
                "line": _line_of(cls)}
    if inspect.ismethod(obj) and isinstance(obj.__self__, torch.nn.Module):
        cls = type(obj.__self__)
        return {"kind": "method", "class": cls.__name__, "name": cls.__name__ + "." + obj.__name__,
                "line": _line_of(obj)}
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__name__
    return {"kind": "function", "name": name, "line": _line_of(obj)}


def _line_of(obj):
    try:
        return inspect.getsourcelines(obj)[1]
    except (OSError, TypeError):
        return 0


def _method_inputs(example, check_inputs):
    """trace_module's inputs are per method ({"forward": x}): the forward's (or the one method's)."""
    def pick(d):
        if not isinstance(d, dict) or not d:
            return d
        return d["forward"] if "forward" in d else next(iter(d.values()))
    return pick(example), None if check_inputs is None else [pick(c) for c in check_inputs]


def _same_graph(a, b):
    """What torch.jit._trace's check compares: the graphs canonicalized, inlined, without shapes or mangles."""
    import torch

    def text(graph):
        g = torch._C._jit_pass_canonicalize(graph)
        torch._C._jit_pass_inline(g)
        torch._C._jit_pass_erase_shape_information(g)
        return re.sub(r"___torch_mangle_[0-9]+\.", "", str(g))

    return text(a) == text(b)


def _traced_forward(result):
    """What holds the graph torch.jit.trace recorded (a ScriptModule's forward, a ScriptFunction), or None."""
    # On the type: hasattr on the object would compute the property (seconds for a big graph).
    return result if result is not None and hasattr(type(result), "inlined_graph") else None


class _CallCapture:
    """What PyTorch's own check makes inside one recorded torch.jit.trace call: the module it traced for each check
    input (torch.jit._trace._check_trace calls torch.jit.trace or trace_module again, through the names this bridge
    wraps), where in the call's warnings each of those traces begins and ends, and the outputs it compared
    (torch.testing.assert_close, called by _check_trace's compare_outputs)."""

    def __init__(self, caught, adapter=None):
        self.caught = caught
        self.adapter = adapter  # a TracingAdapter rebuilds each check input with that set's own structure
        self.on_progress = None  # called with what PyTorch's check does next
        self.first = None  # what _check_trace checks: the call's own trace (a ScriptMethod or ScriptFunction)
        self.checks = []  # (module or function PyTorch's check traced, or None, error) per check input reached
        self.spans = []  # (first, end) indexes into caught of each check trace's warnings
        self.compares = []  # per check input reached: {"ran", "equal", "message", "elements"}

    def check_trace(self, real, args, kwargs):
        first = len(self.caught)
        if self.on_progress is not None:
            self.on_progress("PyTorch's check tracing check input %d" % (len(self.checks) + 1))
        self.compares.append({"ran": True, "equal": True, "elements": 0})
        if self.adapter is not None:
            self.adapter.current = len(self.checks) + 1  # stays for the check's run of the Python code
        try:
            result = real(*args, **kwargs)
            self.checks.append((result, None))
            if self.on_progress is not None:
                self.on_progress("PyTorch's check comparing trace 1 with the trace of check input %d"
                                 % len(self.checks))
            return result
        except Exception as e:  # noqa: BLE001 (the check trace fails as PyTorch makes it fail)
            self.checks.append((None, e))
            raise
        finally:
            self.spans.append((first, len(self.caught)))

    def compared(self, real, what, actual, expected, args, kwargs):
        """assert_close as _check_trace's compare_outputs calls it: trace 1 against the Python function."""
        entry = self.compares[-1] if self.compares and what == "Python function" else None
        try:
            real(actual, expected, *args, **kwargs)
            if entry is not None:
                entry["elements"] += actual.numel()
        except AssertionError as e:
            if entry is not None and entry["equal"]:
                entry["equal"] = False
                entry["message"] = " ".join(str(e).split())[:1000]
            raise


_THREAD = threading.local()


@contextlib.contextmanager
def _quiet():
    """What the file prints while JitScope runs its code again is not the file's output."""
    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
        yield


def _frames_of_warning(msg):
    """The Python stack where a warning is raised, innermost first, up to the torch.jit code that ran the trace:
    (file, line, function) of each frame, without this bridge's, the warnings module's and nn.Module's call
    machinery; and the module Python's filters match the warning against (its frame's __name__)."""
    frames = []
    module = None
    inside = True  # below the torch.jit code that runs the trace
    f = sys._getframe(2)
    while f is not None and (inside or module is None):
        path = f.f_code.co_filename
        if module is None and path == msg.filename and f.f_lineno == msg.lineno:
            module = f.f_globals.get("__name__")
        inside = inside and not path.endswith(_TRACE_MACHINERY)
        if inside and len(frames) < 40 and not path.endswith(_CALL_MACHINERY) and path != BRIDGE_FILE \
                and not path.startswith("<"):
            frames.append((path, f.f_lineno, f.f_code.co_name))
        f = f.f_back
    return frames, module


def _filtered(filters, msg, module):
    """Whether @p filters (warnings.filters as they were) ignore the warning: Python would not have shown it."""
    text = str(msg.message)
    for action, message_re, category, module_re, lineno in filters:
        if (message_re is None or message_re.match(text)) and issubclass(msg.category, category) \
                and (module_re is None or module is None or module_re.match(module)) \
                and (lineno == 0 or lineno == msg.lineno):
            return action == "ignore"
    return False


def _producer():
    """The extra file of every archive the bridge saves: which torch wrote it (JitScope names it when its own
    libtorch is older and cannot read the archive)."""
    import torch
    return {"jitscope_producer": "torch " + torch.__version__}


_TORCHSCRIPT_APIS = ("`torch.jit.trace`", "`torch.jit.script`", "`torch.jit.save`", "`torch.jit.load`",
                     "`torch.jit.trace_method`", "`torch.jit.script_method`")


def _is_torchscript_deprecation(category, message):
    """torch 2.11+'s "`torch.jit.trace` is deprecated. Please switch to `torch.compile` or `torch.export`." (and
    script, save, load...): about TorchScript itself, not the user's model; never one of a call's warnings."""
    text = str(message)
    return issubclass(category, (FutureWarning, DeprecationWarning)) and text.startswith(_TORCHSCRIPT_APIS) and (
        " is deprecated. Please switch to " in text or " is not supported in Python 3.14+" in text)


_TRACE_MACHINERY = (os.sep + os.path.join("torch", "jit", "_trace.py"),)
_CALL_MACHINERY = (os.sep + os.path.join("torch", "nn", "modules", "module.py"), os.sep + "warnings.py",
                   os.sep + os.path.join("torch", "autograd", "grad_mode.py"))


class Recorder:
    def __init__(self, places, out_dir, returned=False, archives=True):
        self.places = places
        self.out_dir = out_dir
        self.returned = returned  # run each trace on its own set for what it returns (`trace --python` prints it)
        self.archives = archives  # torch.jit.save each result (the window opens them for debugging)
        self.calls = []
        self.traced = set()  # ids of what recorded trace calls returned: not the file's own definitions
        # One recorded call at a time: warnings' filters and hooks are the process's, not a thread's. Calls from
        # any thread are recorded; PyTorch's own nested calls (its check) are not the file's.
        self.lock = threading.RLock()
        self.serving = False  # answering a request after the file ran
        self.notices = {}  # TorchScript's deprecation notices, in order, once each

    @staticmethod
    def _depth():
        return getattr(_THREAD, "depth", 0)

    def _warning(self, w, stack, hidden):
        path = os.path.realpath(w.filename) if w.filename else ""
        d = {"category": w.category.__name__, "message": str(w.message), "file": path, "line": w.lineno,
             "user": self.places.is_user(w.filename)}
        if hidden:
            d["hidden"] = True
        if stack:
            d["stack"] = [{"file": os.path.realpath(p), "line": n, "function": fn} for p, n, fn in stack]
            own = next(((os.path.realpath(p), n) for p, n, _ in stack if self.places.is_own(p)), None)
            if own is not None and (own[0], own[1]) != (path, w.lineno):
                d["user_file"], d["user_line"] = own
        return d

    @staticmethod
    def _fold(warnings_list):
        """Duplicates (the same category, message, place and stack) folded into one with a count, in order."""
        out, seen = [], {}
        for d in warnings_list:
            key = (d["category"], d["message"], d["file"], d["line"],
                   tuple((f["file"], f["line"]) for f in d.get("stack", ())))
            if key in seen:
                seen[key]["count"] = seen[key].get("count", 1) + 1
                continue
            seen[key] = d
            out.append(d)
        return out

    def _warnings(self, caught, first=0, end=None):
        return self._fold([self._warning(w, stack, hidden) for w, stack, hidden in caught[first:end]])

    @contextlib.contextmanager
    def _catch(self):
        """Every warning raised inside, each time it is raised (duplicates are folded with a count later), with its
        stack and whether Python's filters as they stood would have hidden it (PyTorch's own filter hides the
        TracerWarnings of every module named torch* but torch.jit: torch.nn's, torchvision's)."""
        with warnings.catch_warnings(record=True) as log:
            filters = list(warnings.filters)
            warnings.simplefilter("always")
            caught = []

            def shown(msg):
                # Called as each warning is shown (Python's and libtorch's, which warn through Python): its stack
                # is still there. TorchScript's own deprecation notice (torch 2.11+) is the run's, said once.
                if _is_torchscript_deprecation(msg.category, msg.message):
                    self.notices.setdefault(str(msg.message).strip(), None)
                    return
                stack, module = _frames_of_warning(msg)
                caught.append((msg, stack, _filtered(filters, msg, module)))

            warnings._showwarnmsg_impl = shown
            del log
            yield caught

    def _save(self, result, index):
        import torch
        path = os.path.join(self.out_dir, "call-%d.pt" % index)
        try:
            torch.jit.save(result, path, _extra_files=_producer())
            return os.path.basename(path)
        except Exception as e:  # noqa: BLE001 (anything PyTorch raises: the archive is optional)
            return {"error": str(e).strip().split("\n")[0]}

    def _save_replay(self, index, first, k, inputs, saved):
        """Trace 1 and the inputs of set k + 1, which it fails on, saved for the window's debugger to run trace 1
        on them node by node: a traced module (or the module of a traced method) with its save(), a traced function
        with its own; the inputs with torch.save, as the tuple of arguments."""
        import torch
        from torch.jit._trace import _clone_inputs
        try:
            if "archive" not in saved:
                path = os.path.join(self.out_dir, "call-%d-trace1.pt" % index)
                if isinstance(first, torch.jit.ScriptModule):
                    torch.jit.save(first, path, _extra_files=_producer())
                    saved["method"] = "forward"
                elif isinstance(first, torch.ScriptMethod):
                    first.owner.save(path, _extra_files=_producer())
                    saved["method"] = first.name
                else:
                    first.save(path, _extra_files=_producer())
                    saved["method"] = "forward"
                saved["archive"] = os.path.basename(path)
            path = os.path.join(self.out_dir, "call-%d-set%d.pt" % (index, k + 1))
            args = inputs if isinstance(inputs, tuple) else (inputs,)
            torch.save(tuple(_clone_inputs(args)), path)
            return {"archive": saved["archive"], "method": saved["method"], "inputs": os.path.basename(path)}
        except Exception as e:  # noqa: BLE001 (anything PyTorch raises: the replay is optional)
            return {"error": str(e).strip().split("\n")[0]}

    def wrap(self, api, real):
        recorder = self

        def wrapper(*args, **kwargs):
            capture = getattr(_THREAD, "capture", None)
            caller = sys._getframe(1)
            if capture is not None and api != "script" and caller.f_code.co_name == "_check_trace":
                if capture.first is None:
                    capture.first = caller.f_locals.get("traced_func")  # trace 1, kept when the check raises
                return capture.check_trace(real, args, kwargs)
            place = recorder.places.caller() if recorder._depth() == 0 else None
            if place is None:
                return real(*args, **kwargs)
            with recorder.lock:
                _THREAD.depth = 1
                try:
                    return recorder.record(api, real, place, args, kwargs)
                finally:
                    _THREAD.depth = 0

        wrapper.__wrapped__ = real
        wrapper.__doc__ = real.__doc__
        return wrapper

    @contextlib.contextmanager
    def _capturing(self, caught, obj):
        """PyTorch's check inside the call observed: its traces and its output comparisons."""
        import torch
        capture = _CallCapture(caught, obj if getattr(obj, "jitscope_adapter", False) else None)
        real_assert_close = torch.testing.assert_close

        def assert_close(actual, expected, *args, **kwargs):
            caller = sys._getframe(1)
            if caller.f_code.co_name == "compare_outputs" and "match_what" in caller.f_locals:
                return capture.compared(real_assert_close, caller.f_locals["match_what"], actual, expected, args,
                                        kwargs)
            return real_assert_close(actual, expected, *args, **kwargs)

        _THREAD.capture = capture
        torch.testing.assert_close = assert_close
        try:
            yield capture
        finally:
            torch.testing.assert_close = real_assert_close
            _THREAD.capture = None
            if capture.adapter is not None:
                capture.adapter.current = 0

    def record(self, api, real, place, args, kwargs):
        import torch
        call = {"index": len(self.calls), "api": api, "file": place[0], "line": place[1]}
        self.calls.append(call)
        self.progress(call, "tracing")
        obj = args[0] if args else kwargs.get("func", kwargs.get("mod", kwargs.get("obj")))
        call["target"] = _target(obj) if obj is not None else {"kind": "unknown", "name": "?"}
        call["kwargs"] = {k: repr(v)[:200] for k, v in kwargs.items() if k not in ("example_inputs", "check_inputs",
                                                                                  "inputs")}
        example = args[1] if len(args) > 1 else kwargs.get("example_inputs", kwargs.get("inputs"))
        check_inputs = kwargs.get("check_inputs") if api != "script" else None
        if api == "trace_module":
            example, check_inputs = _method_inputs(example, check_inputs)
        if api != "script":
            call["example_inputs"] = describe_args(example)
            if check_inputs is not None:
                call["check_inputs"] = [describe_args(c) for c in check_inputs]
        if api != "script" and isinstance(obj, torch.nn.Module):
            # Each submodule's class by path, as the traced graph's scopes name them (`rpn.head`).
            call["module_types"] = {name: getattr(m, "original_name", type(m).__name__)
                                    for name, m in obj.named_modules() if name}
        state_before = _module_state(obj) if api != "script" else None
        error = None
        with self._catch() as caught, self._capturing(caught, obj) as capture:
            capture.on_progress = lambda phase: self.progress(call, phase)
            try:
                result = real(*args, **kwargs)
                call["ok"] = True
            except Exception as e:  # noqa: BLE001 (the file's call fails the way PyTorch makes it fail)
                call["ok"] = False
                call["error"] = self.places.error(e)
                err = call["error"]
                if err.get("file") != place[0] or not err.get("line"):
                    # Raised inside a library (or libtorch): the user's line is the call's, and the library's
                    # place, where Python knows one, is said beside the message.
                    if err.get("file") and err.get("line"):
                        err["message"] = "%s (raised at %s:%d)" % (err["message"].split("\n", 1)[0], err["file"],
                                                                   err["line"])
                    err.pop("column", None)
                    err.pop("summary", None)
                    err["file"], err["line"] = place
                if isinstance(e, torch.jit.TracingCheckError):
                    call["verdict"] = {"checked": True, "ok": False, "check_error": True,
                                       "message": _without_bridge_frames(str(e).strip())}
                else:
                    # Not the check's finding: the trace itself (or the check's run of it) raised.
                    call["verdict"] = {"checked": False, "ok": False, "raised": True}
                result = None
                error = e
            trace_end = capture.spans[0][0] if capture.spans else len(caught)
            call["warnings"] = self._warnings(caught)
        if api != "script" and "verdict" not in call and call["ok"] and kwargs.get("check_trace", True) is not False:
            mismatch = [w for w in call["warnings"] if w["message"].startswith("Output nr ")]
            call["verdict"] = {"checked": True, "ok": not mismatch,
                               "message": "\n".join(w["message"] for w in mismatch)}
        if result is not None:
            if api != "script":
                self.traced.add(id(result))
            self._describe_result(call, api, result)
            if self.archives:
                call["archive"] = self._save(result, call["index"])
        if api != "script" and isinstance(example, (torch.Tensor, tuple, list, dict)) and obj is not None:
            if isinstance(error, torch.jit.TracingCheckError) or error is None:
                self._check_traces(call, obj, example, check_inputs, kwargs, result, caught, trace_end, capture)
            else:
                call["traces"] = [{"inputs": describe_args(example), "error": call["error"],
                                   "warnings": self._warnings(caught)}]
        if state_before is not None:
            changes = _state_changes(state_before, _module_state(obj))
            if changes:
                call["state_changes"] = changes
        self.completed(call)
        if not call["ok"]:
            raise error
        return result

    def progress(self, call, phase):
        """Where the recording is, for a crash of the interpreter (PyTorch's check segfaults on huge traces): the
        call running and what it was doing, replaced at each step."""
        try:
            tmp = os.path.join(self.out_dir, "progress.json.part")
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump({"index": call["index"], "api": call["api"], "file": call["file"], "line": call["line"],
                           "phase": phase}, f)
            os.replace(tmp, os.path.join(self.out_dir, "progress.json"))
        except OSError:
            pass

    def completed(self, call):
        """A recorded call, complete: one line of calls.jsonl, so that a later crash loses none of it."""
        if self.serving:
            return  # a request's call is the request's answer, not one of the file's
        with open(os.path.join(self.out_dir, "calls.jsonl"), "a", encoding="utf-8") as f:
            f.write(json.dumps(call, default=str) + "\n")

    def _describe_result(self, call, api, result):
        import torch
        if isinstance(result, torch.jit.ScriptFunction):
            call["graph"] = graph_json(result.graph)
        elif isinstance(result, torch.jit.ScriptModule):
            if result._c._has_method("forward"):
                call["graph"] = graph_json(result.graph)
            if api == "script":  # a trace's methods are its forward, recorded above and in its traces
                call["methods"] = {name: graph_json(result._c._get_method(name).graph)
                                   for name in result._c._method_names()}

    def _check_traces(self, call, obj, example, check_inputs, kwargs, result, caught, trace_end, capture):
        """The graphs torch.jit.trace compared: the traced result's (trace 1, the example inputs) and the one its
        check traced for each check input, each inlined, with the warnings raised while it was traced. Only the
        check inputs PyTorch's check did not reach (it stops at the first difference; check_trace=False traces
        none) are traced here, and trace 1 is run on them against the Python code as the check would have.

        The random state is put back afterwards: the rest of the file sees the numbers it would have seen."""
        import torch
        from torch.jit._trace import _clone_inputs
        sets = [example] + list(check_inputs or [])
        # Without check inputs PyTorch traces the example inputs again: when that trace differs (the model changed
        # between the two calls: its state, not its inputs), it is shown as trace 2 on the same set.
        repeat = check_inputs is None and bool(capture.checks) and call.get("verdict", {}).get("check_error", False)
        if repeat:
            sets.append(example)
        # With check inputs, a check that found another graph is traced once more on the example inputs: a graph
        # that differs from trace 1 again is the model's state (a cache made by the first call), not the shapes.
        again = check_inputs is not None and call.get("verdict", {}).get("check_error", False)
        if again:
            sets.append(example)
        tolerance = kwargs.get("check_tolerance", 1e-5)
        adapter = getattr(obj, "jitscope_adapter", False)
        first = _traced_forward(result) or _traced_forward(capture.first)
        failed_message = call["verdict"].get("message", "") if call.get("verdict") else ""
        traces = []
        modules = [first]  # what recorded each trace, to run it on its own set
        entry = {"inputs": describe_args(example), "warnings": self._warnings(caught, 0, trace_end)}
        if first is not None:
            entry["graph"] = graph_json(first.inlined_graph)
        else:
            entry["error"] = call.get("error", {"type": "", "message": "no trace"})
        traces.append(entry)
        state = None
        reached = len(capture.checks) if check_inputs is not None or repeat else 0
        saved = {}  # trace 1's archive, once saved for a set it fails on
        for k, inputs in enumerate(sets[1:], 1):
            if isinstance(inputs, torch.Tensor):
                inputs = (inputs,)
            entry = {"inputs": describe_args(inputs)}
            is_repeat = repeat or (again and k == len(sets) - 1)
            if is_repeat:
                entry["repeat"] = True
            if k <= reached and not (again and k == len(sets) - 1):
                module, error = capture.checks[k - 1]
                modules.append(_traced_forward(module))
                span = capture.spans[k - 1]
                entry["warnings"] = self._warnings(caught, span[0], span[1])
                if module is not None:
                    entry["graph"] = graph_json(_traced_forward(module).inlined_graph)
                else:
                    entry["error"] = self.places.error(error)
                compare = capture.compares[k - 1]
                if "encountered an exception while running the trace" in failed_message and k == reached:
                    # Whole: a TorchScript interpreter error lists the failing node's Python stack.
                    exception = failed_message.split("Exception:", 1)[-1]
                    # The exception's own lines are indented; PyTorch's graph diff follows them.
                    exception = exception.split("\nERROR: ", 1)[0]
                    compare = {"ran": False, "error": "\n".join(line.strip() for line in
                                                                exception.strip().split("\n"))[:8000]}
                entry["output_check"] = compare
            else:
                if state is None:
                    state = torch.random.get_rng_state(), random.getstate()
                if adapter:
                    obj.current = 0 if is_repeat else k
                modules.append(None)
                with self._catch() as own, _quiet():
                    try:
                        t = torch.jit.trace(obj, _clone_inputs(inputs), check_trace=False,
                                            strict=kwargs.get("strict", True))
                        modules[-1] = _traced_forward(t)
                        if is_repeat and again and first is not None and _same_graph(first.graph, modules[-1].graph):
                            # The example inputs again record trace 1's graph: not state. Said on the call, not
                            # shown as a trace (and not snapshotted).
                            call["state_checked"] = True
                            modules.pop()
                            break
                        entry["graph"] = graph_json(modules[-1].inlined_graph)
                    except Exception as e:  # noqa: BLE001
                        entry["error"] = self.places.error(e)
                    if first is not None and not is_repeat:
                        entry["output_check"] = self._compare_outputs(first, obj, inputs, tolerance)
                entry["warnings"] = self._warnings(own)
                entry["traced_here"] = True
            compared = entry.get("output_check")
            if self.archives and first is not None and compared is not None and not compared.get("ran", True):
                entry["replay"] = self._save_replay(call["index"], first, k, inputs, saved)
            traces.append(entry)
        if adapter or self.returned:
            if state is None:
                state = torch.random.get_rng_state(), random.getstate()
            for k, (entry, inputs, t) in enumerate(zip(traces, sets, modules)):
                if t is None:
                    continue
                if isinstance(inputs, torch.Tensor):
                    inputs = (inputs,)
                if adapter:
                    obj.current = k
                try:
                    with _quiet():
                        outputs = t(*_clone_inputs(inputs))
                    entry["outputs"] = describe(outputs)
                    entry["returned"] = summary(rebuild(obj.output_schema, outputs) if adapter else outputs)
                except Exception:  # noqa: BLE001 (what it returned is a detail; the trace is recorded)
                    pass
            if adapter:
                obj.current = 0
        if state is not None:
            torch.random.set_rng_state(state[0])
            random.setstate(state[1])
        call["traces"] = traces

    @staticmethod
    def _compare_outputs(first, obj, inputs, tolerance):
        """Trace 1 run on this set against the Python code, as torch.jit.trace's check compares them (the same
        random state for both runs, assert_close with check_tolerance)."""
        import torch
        from torch.jit._trace import _clone_inputs
        try:
            state = torch.random.get_rng_state()
            traced = first(*_clone_inputs(inputs))
            torch.random.set_rng_state(state)
            expected = obj(*_clone_inputs(inputs))
        except Exception as e:  # noqa: BLE001
            return {"ran": False, "error": str(e).strip()[:8000]}
        try:
            torch.testing.assert_close(traced, expected, rtol=tolerance, atol=tolerance, equal_nan=True,
                                       check_dtype=False, check_device=False)
            leaves = []
            flatten(expected, "", leaves)
            return {"ran": True, "equal": True, "elements": sum(t.numel() for _, t in leaves)}
        except (AssertionError, TypeError, ValueError, RuntimeError) as e:
            return {"ran": True, "equal": False, "message": " ".join(str(e).split())[:1000]}


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


def make_adapter(target, sets):
    """A TracingAdapter for @p target over @p sets (argument tuples): the module and each set's flat tensors."""
    import torch

    class TracingAdapter(torch.nn.Module):
        jitscope_adapter = True

        def __init__(self):
            super().__init__()
            if isinstance(target, torch.nn.Module):
                self.model = target  # its parameters and submodules stay the traced module's
            elif inspect.ismethod(target) and isinstance(target.__self__, torch.nn.Module):
                self.model = target.__self__
            self.schemas = []
            self.current = 0  # the set being traced: each set rebuilds with its own schema
            self.output_schema = None

        def forward(self, *flat):
            args = rebuild(self.schemas[self.current], flat)
            leaves = []
            self.output_schema = flatten(target(*args), "", leaves)
            return tuple(t for _, t in leaves)

    adapter = TracingAdapter()
    flats, paths = [], []
    for args in sets:
        leaves = []
        adapter.schemas.append(flatten(tuple(args), "", leaves))
        flats.append(tuple(t for _, t in leaves))
        paths.append([p for p, _ in leaves])
    return adapter, flats, paths


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


def serve_request(request, namespace, recorder, real_trace, places):
    """Traces (mode "trace" or "check") or runs (mode "run") the requested target on the requested sets."""
    import torch
    out = {"mode": request["mode"], "target": request["target"]}
    try:
        target, name, line = resolve_target(request["target"], namespace)
        out["target"] = name
        given = request.get("sets") or []
        sets = [make_set(s, request.get("seed", 0)) for s in given] if given else _file_sets(namespace)
        if request["mode"] == "run":
            with recorder._catch() as caught:
                try:
                    result = target(*sets[0])
                except Exception as e:  # noqa: BLE001 (the function's own failure)
                    out["ok"] = False
                    out["error"] = places.error(e)
                    return out
            out["ok"] = True
            out["outputs"] = summary(result)
            out["warnings"] = recorder._warnings(caught)
            return out
        kwargs = {"strict": request.get("strict", True)}
        adapter = None
        traced_sets = sets
        if not all(_plain(s) for s in sets):
            adapter, traced_sets, paths = make_adapter(target, sets)
            out["flattened"] = paths[0]
        kwargs["check_inputs"] = traced_sets[1:] or None
        if request["mode"] != "check":
            kwargs["check_trace"] = False
        try:
            recorder.record("trace", real_trace, (places.user_file, line),
                            (adapter if adapter is not None else target, traced_sets[0]), kwargs)
        except Exception:  # noqa: BLE001 (recorded: a failed check or trace is the call's finding)
            pass
        call = recorder.calls.pop()
        call["requested"] = True
        call["target"] = _target(target)
        call["target"]["name"] = name
        if adapter is not None:
            # The user's structure, not the flat tensors the adapter took.
            call["example_inputs"] = describe_args(sets[0])
            call["check_inputs"] = [describe_args(c) for c in sets[1:]]
            for t, args in zip(call.get("traces", []), sets):
                t["inputs"] = describe_args(args)
        out["ok"] = True
        out["call"] = call
    except RequestError as e:
        out["ok"] = False
        out["error"] = {"type": "", "message": str(e)}
    except Exception as e:  # noqa: BLE001 (making the inputs, PyTorch's own failure)
        out["ok"] = False
        out["error"] = places.error(e)
    return out


# ----------------------------------------------------------------------------------------------------------------


def run(user_file, out_dir, request=None, returned=False, definitions=True, archives=True):
    user_file = os.path.realpath(user_file)
    result = {"protocol": PROTOCOL, "file": user_file, "python": sys.version.split()[0]}
    try:
        import torch
    except ImportError as e:
        result.update(status="error", error={"type": "ImportError", "message": "this Python has no torch: %s (%s)"
                                             % (e, sys.executable)})
        return result
    result["torch"] = torch.__version__
    places = Places(user_file)
    recorder = Recorder(places, out_dir, returned, archives)
    # TorchScript's deprecation notice raised anywhere in the run (the file's own torch.jit.script, the bridge's
    # torch.jit.save of what it recorded) is the run's, said once, not printed on stderr each time.
    shown_before = warnings._showwarnmsg_impl

    def run_notice(msg):
        if _is_torchscript_deprecation(msg.category, msg.message):
            recorder.notices.setdefault(str(msg.message).strip(), None)
            return
        shown_before(msg)

    warnings._showwarnmsg_impl = run_notice
    originals = {"trace": torch.jit.trace, "trace_module": torch.jit.trace_module, "script": torch.jit.script}
    for api, real in originals.items():
        setattr(torch.jit, api, recorder.wrap(api, real))
    folder = os.path.dirname(user_file)
    sys.path[0] = folder  # as `python3 FILE` sets it (this bridge's own folder was there)
    os.chdir(folder)
    sys.argv = [user_file]
    # The file runs as `python3 FILE` runs it, in a fresh __main__ module; unlike runpy, what it defined before
    # it raised stays available for the listing.
    main_module = types.ModuleType("__main__")
    main_module.__file__ = user_file
    main_module.__builtins__ = __builtins__
    sys.modules["__main__"] = main_module
    namespace = main_module.__dict__
    try:
        with open(user_file, "rb") as f:
            code = compile(f.read(), user_file, "exec")
        exec(code, namespace)
        result["status"] = "ok"
    except SystemExit as e:
        result["status"] = "exit"
        result["exit_code"] = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException as e:  # noqa: BLE001 (the user's exception, reported with the user's frames)
        result["status"] = "error"
        result["error"] = places.error(e)
    if request and result["status"] != "exit" and (result["status"] == "ok" or any(
            c.get("ok") is False and c["line"] == result.get("error", {}).get("line") for c in recorder.calls)):
        # Still wrapped: PyTorch's check of the requested trace is observed as the file's calls are.
        recorder.serving = True
        result["request"] = serve_request(request, namespace, recorder, originals["trace"], places)
    for api, real in originals.items():
        setattr(torch.jit, api, real)
    result["calls"] = recorder.calls
    result["notices"] = list(recorder.notices)
    if namespace.get("__name__") == "__main__":
        modules, functions, inputs = collect_definitions(namespace, places, out_dir, recorder.traced, definitions)
        result.update(modules=modules, functions=functions, input_sets=inputs)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--out", required=True, help="folder for result.json and the archives")
    ap.add_argument("--request", help="a JSON file: trace, check or run one target on input sets")
    ap.add_argument("--returned", action="store_true", help="run each trace on its own set for what it returns")
    ap.add_argument("--no-definitions", action="store_true", help="do not list (and script) the file's classes and "
                    "functions")
    ap.add_argument("--no-archives", action="store_true", help="do not torch.jit.save the recorded results")
    a = ap.parse_args()
    out_dir = os.path.realpath(a.out)
    os.makedirs(out_dir, exist_ok=True)
    request = None
    if a.request:
        with open(a.request, encoding="utf-8") as f:
            request = json.load(f)
    result = run(a.file, out_dir, request, a.returned, not a.no_definitions, not a.no_archives)
    tmp = os.path.join(out_dir, "result.json.part")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(result, default=str))  # one shot, compact: the C encoder (json.dump is Python's)
    os.replace(tmp, os.path.join(out_dir, "result.json"))
    sys.stdout.flush()
    # The user's file may leave threads or atexit handlers behind; the record is complete.
    os._exit(0)


if __name__ == "__main__":
    main()
