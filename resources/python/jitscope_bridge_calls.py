"""JitScope's Python bridge (jitscope_bridge.py): the parts of a recorded torch.jit call.

What a call targets and the line it is defined at, a trace_module call's inputs, whether two graphs are the same
to PyTorch's check, what holds a traced graph, what PyTorch's own check does inside the call (_CallCapture), the
file's output silenced while its code runs again, and the extra file of every archive the bridge saves.
"""
import contextlib
import inspect
import os
import re


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
            self.on_progress("PyTorch's check tracing check input %d" % (len(self.checks) + 1), "check-tracing",
                             len(self.checks) + 1)
        self.compares.append({"ran": True, "equal": True, "elements": 0})
        if self.adapter is not None:
            self.adapter.current = len(self.checks) + 1  # stays for the check's run of the Python code
        try:
            result = real(*args, **kwargs)
            self.checks.append((result, None))
            if self.on_progress is not None:
                self.on_progress("PyTorch's check comparing trace 1 with the trace of check input %d"
                                 % len(self.checks), "check-comparing", len(self.checks))
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



@contextlib.contextmanager
def _quiet():
    """What the file prints while JitScope runs its code again is not the file's output."""
    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
        yield


def _producer():
    """The extra file of every archive the bridge saves: which torch wrote it (JitScope names it when its own
    libtorch is older and cannot read the archive)."""
    import torch
    return {"jitscope_producer": "torch " + torch.__version__}
