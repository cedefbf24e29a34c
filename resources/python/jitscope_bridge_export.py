"""JitScope's Python bridge (jitscope_bridge.py): each recorded torch.jit.trace call exported with torch.export too.

`export_call()` runs torch.export.export (non-strict) on the traced module (a function or a bound method in a
module of its own) with the call's example inputs, the dimensions that differ between the example and the check
inputs made dynamic. torch.export.AdditionalInputs (torch 2.7+) marks each of them Dim.DYNAMIC; an older torch gets
Dim.AUTO on the same dimensions. DYNAMIC is the better answer for the user: a dimension the code specializes fails
the export at once, named, with the line that specialized it, while AUTO specializes it silently and the user only
learns it when the program rejects a check set (the specializations are then said with their lines all the same).

Where export fails, the failure is one finding (kind, the user's line, the library line, the stack between, the
expression in the source's words, export's own suggested fix); draft_export (where torch has it) lists every issue
of the run. Where it succeeds, the exported program runs on the example and on every check set against the Python
code (the check's tolerance), its range constraints and specializations in words at their lines, and it is saved
with torch.export.save beside the record. The model's parameters, buffers, training flags and the random state are
put back afterwards: the rest of the file sees the model as the trace left it.
"""
import contextlib
import linecache
import os
import random
import re
import sys
import time
import traceback

MIN_TORCH = (2, 5)
_KEEP_FRAMES = 40


def _version(torch):
    m = re.match(r"(\d+)\.(\d+)", torch.__version__)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def skipped_reason(torch):
    """Why this torch cannot export, or None."""
    if _version(torch) < MIN_TORCH or not hasattr(torch, "export") or not hasattr(torch.export, "export"):
        return "torch.export needs torch 2.5 or later; this Python has torch %s" % torch.__version__
    return None


@contextlib.contextmanager
def _silenced():
    """export prints graphs and logs warnings of its own on failure, and raises torch's own deprecation notices
    (torch.jit.trace_method's): not the file's output, nor its warnings."""
    import logging
    import warnings
    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull), contextlib.redirect_stderr(
            devnull), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        level = logging.root.manager.disable
        logging.disable(logging.WARNING)
        try:
            yield
        finally:
            logging.disable(level)


class _SavedState:
    """A module's parameters, buffers and training flags and the random state, put back by restore()."""

    def __init__(self, obj):
        import torch
        self.module = obj if isinstance(obj, torch.nn.Module) else getattr(obj, "__self__", None)
        if not isinstance(self.module, torch.nn.Module):
            self.module = None
        self.tensors = []
        self.training = []
        if self.module is not None:
            for _, t in list(self.module.named_parameters()) + list(self.module.named_buffers()):
                self.tensors.append((t, t.detach().clone()))
            self.training = [(m, m.training) for m in self.module.modules()]
        self.rng = torch.random.get_rng_state()
        self.py_rng = random.getstate()

    def restore(self):
        import torch
        with torch.no_grad():
            for t, saved in self.tensors:
                if t.shape == saved.shape:
                    t.copy_(saved)
        for m, training in self.training:
            m.training = training
        torch.random.set_rng_state(self.rng)
        random.setstate(self.py_rng)


def _as_args(inputs):
    import torch
    if isinstance(inputs, torch.Tensor):
        return (inputs,)
    if isinstance(inputs, list):
        return tuple(inputs)
    return inputs if isinstance(inputs, tuple) else (inputs,)


def _module_of(obj, torch):
    """What torch.export exports: the module itself, or a module calling the function or bound method."""
    if isinstance(obj, torch.nn.Module):
        return obj

    class Exported(torch.nn.Module):
        def __init__(self):
            super().__init__()
            owner = getattr(obj, "__self__", None)
            if isinstance(owner, torch.nn.Module):
                self.owner = owner  # its parameters are the program's, not constants

        def forward(self, *args):
            return obj(*args)

    return Exported()


def _parameter_names(obj):
    import inspect
    try:
        target = obj.forward if hasattr(obj, "forward") else obj
        return [p for p in inspect.signature(target).parameters if p != "self"]
    except (TypeError, ValueError):
        return []


def _shapes(args):
    import torch
    out = []
    for a in args:
        out.append(tuple(a.shape) if isinstance(a, torch.Tensor) else None)
    return out


def _dynamic_dims(example, checks):
    """{argument index: [dims]} of the tensors whose sizes differ between the example and any check set."""
    base = _shapes(example)
    dims = {}
    for c in checks:
        for k, (s, o) in enumerate(zip(base, _shapes(c))):
            if s is not None and o is not None and len(s) == len(o):
                for d, (a, b) in enumerate(zip(s, o)):
                    if a != b and d not in dims.setdefault(k, []):
                        dims[k].append(d)
    return {k: sorted(v) for k, v in dims.items() if v}


def _dynamic_shapes(torch, example, checks, dims):
    """(dynamic_shapes argument, how) for the export."""
    if not dims:
        return None, "static"
    if hasattr(torch.export, "AdditionalInputs"):
        additional = torch.export.AdditionalInputs()
        for c in checks:
            additional.add(c)
        return additional, "AdditionalInputs"
    auto = torch.export.Dim.AUTO
    return tuple({d: auto for d in dims[k]} if k in dims else None for k in range(len(example))), "Dim.AUTO"


class _Frames:
    """Which frames are the user's, the library's (outside torch), and torch's own."""

    def __init__(self, places):
        self.places = places
        self.bridge_dir = os.path.dirname(os.path.realpath(__file__))
        # torch.nn's modules are library code to the user (an LSTM's forward), not export's machinery.
        self.torch_nn = os.path.join(places.torch_dir, "nn") + os.sep
        self.machinery = (os.path.join(self.torch_nn, "modules", "module.py"),)

    def outside_torch(self, filename):
        if not filename or filename.startswith("<"):
            return False
        path = os.path.realpath(filename)
        if path.startswith(self.torch_nn):
            return path not in self.machinery
        return self.places.is_user(path) and os.path.dirname(path) != self.bridge_dir

    def of_summaries(self, summaries):
        """Frames outside torch, innermost first: [(file, line, function)]."""
        out = [(os.path.realpath(f.filename), f.lineno, f.name) for f in summaries
               if f.lineno and self.outside_torch(f.filename)]
        out.reverse()
        return out[:_KEEP_FRAMES]

    def here(self):
        f = sys._getframe(2)
        out = []
        while f is not None and len(out) < _KEEP_FRAMES:
            if os.path.dirname(os.path.realpath(f.f_code.co_filename)) == self.bridge_dir:
                break  # the export's caller: the frames above are the bridge's and the trace call's
            if self.outside_torch(f.f_code.co_filename):
                out.append((os.path.realpath(f.f_code.co_filename), f.f_lineno, f.f_code.co_name))
            f = f.f_back
        return out


def _place(frames, places, call_place):
    """The user's place (the innermost frame in the user's own files, else the call's line), the library place (the
    innermost frame outside torch when it is not the user's own) and the stack, as the record writes them."""
    d = {}
    own = next(((p, n) for p, n, _ in frames if places.is_own(p)), None)
    user = own or call_place
    d["file"], d["line"] = user[0], user[1]
    d["text"] = linecache.getline(user[0], user[1]).strip()
    if frames and not places.is_own(frames[0][0]):
        d["library_file"], d["library_line"] = frames[0][0], frames[0][1]
        d["library_text"] = linecache.getline(frames[0][0], frames[0][1]).strip()
    d["stack"] = [{"file": p, "line": n, "function": fn} for p, n, fn in frames]
    return d


_CONDITION = re.compile(r"^(?:el)?if\s+(.*?):?\s*(#.*)?$|^while\s+(.*?):?\s*(#.*)?$|^assert\s+(.*?)\s*(#.*)?$")


def source_expression(text):
    """The condition a guard comes from in the source's words: `boxes.numel() == 0` of `if boxes.numel() == 0:`,
    else the statement itself."""
    text = text.strip()
    m = _CONDITION.match(text)
    if m:
        expr = next(g for g in (m.group(1), m.group(3), m.group(5)) if g is not None)
        return expr.split(",")[0].strip() if text.startswith("assert") else expr.strip()
    return text


def _symbolic_expression(message):
    m = re.search(r"data-dependent expression (.+?) \(unhinted", message) or re.search(
        r"data-dependent expression (\S+)", message)
    return m.group(1).strip() if m else ""


def _first_line(message):
    return message.strip().split("\n", 1)[0].strip()


def _suggested_fix(message):
    """export's own suggestion: its dynamic_shapes fixes, the torch._check it asks for, its advice line."""
    if "Suggested fixes:" in message:
        fix = message.split("Suggested fixes:", 1)[1]
        lines = []
        for line in fix.split("\n"):
            if not line.strip() and lines:
                break
            if line.strip():
                lines.append(line.strip())
        return "\n".join(lines)
    checks = re.findall(r"torch\._check\w*\([^\n]*\)", message)
    if checks:
        return "\n".join(dict.fromkeys(checks))
    m = re.search(r"^(consider [^\n]+)$", message, re.M)
    return m.group(1).strip() if m else ""


def _kind(e):
    name = type(e).__name__
    message = str(e)
    if name == "GuardOnDataDependentSymNode" or "data-dependent expression" in message:
        return "data-dependent"
    if "Constraints violated" in message or name == "ConstraintViolationError" or \
            "conflicts between user-specified ranges and inferred ranges" in message:
        return "constraint"
    if name in ("Unsupported", "UnsupportedOperatorException", "NotImplementedError") or \
            (name == "TypeError" and "FakeTensor" in message) or \
            "not supported" in message.lower() or "fake impl" in message.lower() \
            or "meta kernel" in message.lower():
        return "unsupported"
    return "other"


_INPUT_DIM = re.compile(r"inputs\['(\w+)'\]((?:\[\d+\])*)\.shape\[(\d+)\]")
_DEBUG_NAME = re.compile(r"L\['(\w+)'\]((?:\[\d+\])*)\.size\(\)\[(\d+)\]")


def dimension_words(name, parameters, varargs=None):
    """L['x'].size()[0] as `x.size(0)`; the wrapper's L['args'][1].size()[0] as the function's own argument's."""
    m = _DEBUG_NAME.search(name)
    if not m:
        return name
    base, index, dim = m.group(1), m.group(2), m.group(3)
    if base in ("args", "a") and index:
        first = int(re.match(r"\[(\d+)\]", index).group(1))
        if first < len(parameters):
            base, index = parameters[first], index[len("[%d]" % first):]
    return "%s%s.size(%s)" % (base, index, dim)


class _Observer:
    """The guards export adds and the sizes it specializes, each with the Python frames outside torch where it
    happened (ShapeEnv._set_replacement and _log_guard wrapped while the export runs)."""

    def __init__(self, frames):
        self.frames = frames
        self.specializations = []  # {symbol, value, sources, frames}
        self.guards = []  # (expression, frames)

    @contextlib.contextmanager
    def watching(self):
        try:
            from torch.fx.experimental.symbolic_shapes import ShapeEnv
        except ImportError:
            yield
            return
        observer = self
        real_replace = getattr(ShapeEnv, "_set_replacement", None)
        real_guard = getattr(ShapeEnv, "_log_guard", None)

        def set_replacement(env, a, tgt, *args, **kwargs):
            try:
                import sympy
                if isinstance(tgt, sympy.Integer) and str(a) not in {s["symbol"] for s in observer.specializations}:
                    sources = [s.name() if callable(getattr(s, "name", None)) else str(s.name)
                               for s in env.var_to_sources.get(a, [])]
                    observer.specializations.append({"symbol": str(a), "value": int(tgt), "sources": sources,
                                                     "frames": observer.frames.here()})
            except Exception:  # noqa: BLE001 (observing only)
                pass
            return real_replace(env, a, tgt, *args, **kwargs)

        def log_guard(env, prefix, g, *args, **kwargs):
            if len(observer.guards) < 500:
                observer.guards.append((str(g), observer.frames.here()))
            return real_guard(env, prefix, g, *args, **kwargs)

        if real_replace is not None:
            ShapeEnv._set_replacement = set_replacement
        if real_guard is not None:
            ShapeEnv._log_guard = log_guard
        try:
            yield
        finally:
            if real_replace is not None:
                ShapeEnv._set_replacement = real_replace
            if real_guard is not None:
                ShapeEnv._log_guard = real_guard


def _specialization_words(spec, parameters):
    name = next((dimension_words(s, parameters) for s in spec["sources"]), spec["symbol"])
    return name


def _failure(e, places, frames_of, observer, call_place, parameters):
    """A failed export as one finding."""
    message = str(e)
    kind = _kind(e)
    finding = {"kind": kind, "type": type(e).__name__, "message": _first_line(message)[:1000]}
    frames = frames_of.of_summaries(traceback.extract_tb(e.__traceback__))
    if kind == "constraint":
        m = re.search(r"You marked (\S+) as dynamic but your code specialized it to be a constant \((-?\d+)\)",
                      message)
        if m:
            spec = next((s for s in observer.specializations if m.group(1) in s["sources"]), None) or next(
                (s for s in observer.specializations if s["value"] == int(m.group(2))), None)
            words = dimension_words(m.group(1), parameters)
            finding["message"] = "%s cannot be dynamic: the code specialized it to %s" % (words, m.group(2))
            finding["expression"] = words
            if spec is not None:
                frames = spec["frames"]
                finding["guard"] = "%s == %s (%s)" % (words, spec["value"], spec["symbol"])
        else:
            lines = [line.strip(" -") for line in message.split("\n")[1:] if line.strip().startswith("-")]
            if lines:
                finding["message"] = lines[0][:1000]
                dim = _INPUT_DIM.search(lines[0])
                if dim:
                    words = dimension_words("L['%s']%s.size()[%s]" % dim.groups(), parameters)
                    finding["expression"] = words
                    if "0/1 specialized" in lines[0]:
                        finding["message"] = "%s cannot be dynamic: export specializes a size of 0 or 1 in the " \
                                             "example inputs (%s)" % (words, lines[0])
    finding.update(_place(frames, places, call_place))
    if kind == "data-dependent":
        symbolic = _symbolic_expression(message)
        finding["guard"] = symbolic
        if symbolic:
            finding["message"] = "Could not guard on data-dependent expression %s" % symbolic
        text = finding.get("library_text") or finding.get("text", "")
        finding["expression"] = source_expression(text) if text else symbolic
    fix = _suggested_fix(message)
    if fix:
        finding["suggested_fix"] = fix
    return finding


def _draft_issues(torch, module, example, dynamic, places, frames_of, call_place):
    """Every issue draft_export finds (torch 2.7+), each as a finding."""
    from torch.export import _draft_export
    with _silenced():
        ep = torch.export.draft_export(module, example, dynamic_shapes=dynamic)
    report = getattr(ep, "_report", None)
    issues = []
    for failure in getattr(report, "failures", []) if report is not None else []:
        data = failure.data if isinstance(failure.data, dict) else {}
        names = getattr(report, "str_to_filename", {})
        stack = []
        for f in reversed(data.get("user_stack") or data.get("stack") or []):
            filename = names.get(f.get("filename"), f.get("filename"))
            if isinstance(filename, str) and frames_of.outside_torch(filename):
                stack.append((os.path.realpath(filename), int(f.get("line", 0)), str(f.get("name", ""))))
        kind = {_draft_export.FailureType.DATA_DEPENDENT_ERROR: "data-dependent",
                _draft_export.FailureType.GUARD_ADDED: "constraint",
                _draft_export.FailureType.MISSING_FAKE_KERNEL: "unsupported",
                _draft_export.FailureType.MISMATCHED_FAKE_KERNEL: "unsupported"}.get(failure.failure_type, "other")
        issue = {"kind": kind, "type": str(failure.failure_type), "message": _first_line(failure.print(names))}
        if data.get("expr"):
            issue["guard"] = str(data["expr"])
        if data.get("op"):
            issue["message"] += " torch.ops.%s" % data["op"]
        issue.update(_place(stack, places, call_place))
        if kind == "data-dependent":
            issue["expression"] = source_expression(issue.get("library_text") or issue.get("text", ""))
        issues.append(issue)
    return issues


_STACK_PLACE = re.compile(r'File "([^"]+)", line (\d+)')


def _range_words(ep, parameters, observer, frames_of):
    """Each dynamic dimension's range ("x.size(0) (s0) in 2..inf") at the line of the first guard on it."""
    out = []
    names = {}
    try:
        placeholders = [n for n in ep.graph.nodes if n.op == "placeholder"]
        user_inputs = list(ep.graph_signature.user_inputs)
        for node in placeholders:
            if node.name not in user_inputs:
                continue
            val = node.meta.get("val")
            k = user_inputs.index(node.name)
            for d, size in enumerate(getattr(val, "shape", ())):
                symbol = str(size)
                if not symbol.isdigit() and symbol not in names:
                    arg = parameters[k] if k < len(parameters) else "input %d" % (k + 1)
                    names[symbol] = "%s.size(%d)" % (arg, d)
        # A number the program computes from data (s.item(): an unbacked symbol): where the graph makes it.
        places = {}
        for node in ep.graph.nodes:
            val = node.meta.get("val")
            trace = node.meta.get("stack_trace") or ""
            symbol = str(val) if type(val).__name__ in ("SymInt", "SymFloat", "SymBool") else ""
            if symbol and symbol not in places:
                found = [(p, int(n)) for p, n in _STACK_PLACE.findall(trace) if frames_of.outside_torch(p)]
                if found:
                    places[symbol] = found[-1]
    except Exception:  # noqa: BLE001 (words only)
        places = {}
    for symbol, vr in ep.range_constraints.items():
        s = str(symbol)
        lower, upper = str(vr.lower), str(vr.upper)
        upper = "inf" if upper in ("int_oo", "oo") else upper
        lower = "-inf" if lower in ("-int_oo", "-oo") else lower
        d = {"symbol": s, "name": names.get(s, s), "min": lower, "max": upper,
             "text": "%s (%s) in %s..%s" % (names.get(s, s), s, lower, upper)}
        at = next((fr for g, frames in observer.guards if re.search(r"\b%s\b" % re.escape(s), g)
                   for fr in frames[:1]), None) or places.get(s)
        if s in places and s not in names:
            text = linecache.getline(places[s][0], places[s][1]).strip()
            d["text"] = "%s (a number computed from data: %s) in %s..%s" % (s, text, lower, upper)
        if at is not None:
            d["file"], d["line"] = at[0], at[1]
        out.append(d)
    out.sort(key=lambda d: d["symbol"] not in names)  # the inputs' dimensions first, then numbers from data
    return out


def _compare(torch, got, expected, tolerance):
    try:
        torch.testing.assert_close(got, expected, rtol=tolerance, atol=tolerance, equal_nan=True,
                                   check_dtype=False, check_device=False)
        return None
    except (AssertionError, TypeError, ValueError, RuntimeError) as e:
        return " ".join(str(e).split())[:1000]


def _verify(torch, ep, obj, sets, tolerance, progress):
    """The exported program run on each set against the Python code (the same random state for both)."""
    from torch.jit._trace import _clone_inputs
    rows = []
    program = ep.module()
    for k, args in enumerate(sets):
        progress(k)
        row = {"set": k + 1}
        state = torch.random.get_rng_state()
        try:
            # In the grad mode the file has: under no_grad, nn.MultiheadAttention's fast path computes what the
            # exported program does not at padded positions.
            with _silenced():
                got = program(*_clone_inputs(args))
        except Exception as e:  # noqa: BLE001 (a guard the set fails, or the program's own error)
            message = " ".join(_first_line(str(e)).split())[:1000]
            guard = "guard" in message.lower() or "expected input" in message.lower() or isinstance(
                e, AssertionError)
            row.update(status="guard" if guard else "error", message=message)
            rows.append(row)
            continue
        torch.random.set_rng_state(state)
        try:
            with _silenced():
                expected = obj(*_clone_inputs(args))
        except Exception as e:  # noqa: BLE001
            row.update(status="error", message="the Python code raised: " + _first_line(str(e))[:1000])
            rows.append(row)
            continue
        differs = _compare(torch, got, expected, tolerance)
        row.update(status="outputs-differ", message=differs) if differs else row.update(status="passes")
        rows.append(row)
    return rows


def _specialization_list(observer, parameters, places, call_place):
    out = []
    for spec in observer.specializations:
        d = {"symbol": spec["symbol"], "name": _specialization_words(spec, parameters), "value": spec["value"]}
        if spec["frames"]:
            d.update(_place(spec["frames"], places, call_place))
            d.pop("stack", None)
            d["source"] = d.pop("text")
        d["text"] = "%s specialized to %d" % (d["name"], spec["value"])
        out.append(d)
    return out


def _specialized_program(torch, module, wrapped, example, dims, call, out, places, frames_of, call_place, parameters,
                         out_dir):
    """A dimension the code specializes cannot be dynamic (the failure stands): the program export makes when it may
    specialize it (Dim.AUTO on the same dimensions), saved for the window's Export tab and Compare. The loop the
    trace unrolled is unrolled there too, for the example only, and guarded; its specializations say which."""
    auto = torch.export.Dim.AUTO
    dynamic = tuple({d: auto for d in dims[k]} if k in dims else None for k in range(len(example)))
    if wrapped:  # forward(*args): one argument, the tuple
        dynamic = (dynamic,)
    observer = _Observer(frames_of)
    try:
        with observer.watching(), _silenced():
            ep = torch.export.export(module, example, dynamic_shapes=dynamic, strict=False)
        out["specializations"] = _specialization_list(observer, parameters, places, call_place)
        path = os.path.join(out_dir, "export_%d.pt2" % call["index"])
        torch.export.save(ep, path)
        out["program"] = os.path.basename(path)
    except Exception as e:  # noqa: BLE001 (the specialized program is optional)
        out["program_error"] = _first_line(str(e))[:500]


def export_call(call, obj, example, check_inputs, tolerance, places, out_dir, save, progress):
    """The call exported beside its trace: call["export"] as the record's schema describes it."""
    import torch
    started = time.monotonic()
    out = {"torch": torch.__version__}
    reason = skipped_reason(torch)
    if reason:
        out.update(status="skipped", reason=reason)
        return out
    frames_of = _Frames(places)
    call_place = (call["file"], call["line"])
    parameters = _parameter_names(obj)
    example = _as_args(example)
    checks = [_as_args(c) for c in (check_inputs or [])]
    dims = _dynamic_dims(example, checks)
    out["dynamic"] = [{"input": k + 1, "name": parameters[k] if k < len(parameters) else "input %d" % (k + 1),
                       "dims": v} for k, v in sorted(dims.items())]
    saved = _SavedState(obj)
    observer = _Observer(frames_of)
    try:
        module = _module_of(obj, torch)
        dynamic, out["dynamic_by"] = _dynamic_shapes(torch, example, checks, dims)
        progress(-1)
        try:
            with observer.watching(), _silenced():
                ep = torch.export.export(module, example, dynamic_shapes=dynamic, strict=False)
        except Exception as e:  # noqa: BLE001 (export's failure is the finding)
            out["status"] = "failed"
            out["findings"] = [_failure(e, places, frames_of, observer, call_place, parameters)]
            if out["findings"][0]["kind"] != "constraint" and hasattr(torch.export, "draft_export") \
                    and not os.environ.get("JITSCOPE_BRIDGE_NO_DRAFT"):
                saved.restore()
                try:
                    out["draft"] = _draft_issues(torch, module, example, dynamic, places, frames_of, call_place)
                except Exception as e:  # noqa: BLE001 (draft_export's own failure: the first issue stands)
                    out["draft_error"] = (type(e).__name__ + ": " + _first_line(str(e)))[:500]
            elif out["findings"][0]["kind"] == "constraint" and save:
                saved.restore()
                _specialized_program(torch, module, module is not obj, example, dims, call, out, places, frames_of,
                                     call_place, parameters, out_dir)
            return out
        out["status"] = "exported"
        out["ranges"] = _range_words(ep, parameters, observer, frames_of)
        out["specializations"] = _specialization_list(observer, parameters, places, call_place)
        saved.restore()
        out["sets"] = _verify(torch, ep, obj, [example] + checks, tolerance, progress)
        if save:
            path = os.path.join(out_dir, "export_%d.pt2" % call["index"])
            try:
                torch.export.save(ep, path)
                out["program"] = os.path.basename(path)
            except Exception as e:  # noqa: BLE001 (the program file is optional)
                out["program_error"] = _first_line(str(e))[:500]
        return out
    finally:
        saved.restore()
        out["seconds"] = round(time.monotonic() - started, 3)
