"""JitScope's Python bridge (jitscope_bridge.py): which code is the user's.

Frames, errors and warnings sorted out: the file run and the files beside it, against torch's own code and the
bridge's files (jitscope_bridge.py and the modules it loads from its folder, this one among them), whose frames are
never the user's; an exception as JitScope shows it; whether Python's filters would have hidden a warning; and
TorchScript's own deprecation notice, which is the run's, never one of a call's warnings.
"""
import os
import re
import sys
import traceback

# The bridge's modules beside jitscope_bridge.py, in the order it loads them (each imports only those before it).
BRIDGE_MODULES = ("jitscope_bridge_places", "jitscope_bridge_graphs", "jitscope_bridge_calls",
                  "jitscope_bridge_definitions", "jitscope_bridge_requests", "jitscope_bridge_values",
                  "jitscope_bridge_export", "jitscope_bridge_record",
                  "jitscope_bridge_parting", "jitscope_bridge_serve")
# The bridge's files by their real paths (jitscope_bridge.py's is its BRIDGE_FILE): no frame of theirs is the user's,
# in a stack, a traceback or a message of PyTorch's that quotes one.
BRIDGE_FILES = tuple(os.path.realpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), name + ".py"))
                     for name in ("jitscope_bridge",) + BRIDGE_MODULES)


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
        return path not in BRIDGE_FILES and not path.startswith(self.torch_dir + os.sep) \
            and "/importlib/" not in path and os.path.basename(path) != "runpy.py"

    def is_own(self, filename):
        """The user's own code: the file run or a file beside it, not an installed package."""
        if not filename or filename.startswith("<"):
            return False
        path = os.path.realpath(filename)
        return self.is_user(path) and path.startswith(self.user_dir + os.sep) and "-packages" + os.sep not in path

    def caller(self, depth=2):
        """The nearest frame above this bridge's wrapper: (file, line) if it is the user's, else None."""
        f = sys._getframe(depth)
        while f is not None and os.path.realpath(f.f_code.co_filename) in BRIDGE_FILES:
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


def _without_bridge_frames(message):
    """PyTorch's check message quotes the Python stack of the trace: this bridge's frames are not the user's."""
    return "\n".join(line for line in message.split("\n") if not any(path in line for path in BRIDGE_FILES))


_TRACE_MACHINERY = (os.sep + os.path.join("torch", "jit", "_trace.py"),)
_CALL_MACHINERY = (os.sep + os.path.join("torch", "nn", "modules", "module.py"), os.sep + "warnings.py",
                   os.sep + os.path.join("torch", "autograd", "grad_mode.py"))


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
        if inside and len(frames) < 40 and not path.endswith(_CALL_MACHINERY) and path not in BRIDGE_FILES \
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


_TORCHSCRIPT_APIS = ("`torch.jit.trace`", "`torch.jit.script`", "`torch.jit.save`", "`torch.jit.load`",
                     "`torch.jit.trace_method`", "`torch.jit.script_method`")


def _is_torchscript_deprecation(category, message):
    """torch 2.11+'s "`torch.jit.trace` is deprecated. Please switch to `torch.compile` or `torch.export`." (and
    script, save, load...): about TorchScript itself, not the user's model; never one of a call's warnings."""
    text = str(message)
    return issubclass(category, (FutureWarning, DeprecationWarning)) and text.startswith(_TORCHSCRIPT_APIS) and (
        " is deprecated. Please switch to " in text or " is not supported in Python 3.14+" in text)
