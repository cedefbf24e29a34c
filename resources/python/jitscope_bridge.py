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

Everything goes into DIR/result.json (written once, at the end) and the archives beside it. Its fields, and those of
calls.jsonl and progress.json, are listed in jitscope_record_schema.json (docs/python-record.md): a field the schema
lacks is a new minor version of the record there, a changed or removed one a new major version; the record says its
version as record_version. With JITSCOPE_BRIDGE_VALIDATE=1 (the tests) the bridge checks each file against the
schema before it writes it, and writes no result.json when it does not match. Graphs use JitScope's IR snapshot form
(IrGraph::toJson in core/report), numbered the way core/ir/irsnapshot.cpp numbers a libtorch graph, so that JitScope
diffs them like its own.

The bridge's other modules are files beside this one (in the folder of its real path), loaded by path before
anything of the user's runs: jitscope_bridge_places (which code is the user's), jitscope_bridge_graphs (graphs and
values as JSON), jitscope_bridge_calls (the parts of a recorded call), jitscope_bridge_definitions (what the file
defines), jitscope_bridge_requests (the values of a request), jitscope_bridge_values (where trace 1 and the
Python code compute other values), jitscope_bridge_export (each traced call exported with torch.export too, with
--export), jitscope_bridge_record (the record's schema and version), jitscope_bridge_parting (where two traces' Python
went different ways) and jitscope_bridge_serve (the bridge kept warm: `--serve`, each run a fork of it). This file
records the calls (Recorder), serves a request and runs the file.
"""
import argparse
import contextlib
import importlib.util
import inspect
import json
import os
import random
import sys
import threading
import time
import types
import warnings

BRIDGE_FILE = os.path.realpath(__file__)


def _load_modules():
    """The bridge's modules, each from its file beside this one: found by its path, not on sys.path (where the user's
    folder comes first once the file runs), and loaded before the file runs, each under its jitscope_bridge_* name,
    by which the modules loaded after it import it. No __pycache__ is written beside them: an installed bridge's
    folder is its package's, and the bridge left nothing there when it was one file."""
    def load(name):
        spec = importlib.util.spec_from_file_location(name, os.path.join(os.path.dirname(BRIDGE_FILE), name + ".py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    dont_write_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        for name in load("jitscope_bridge_places").BRIDGE_MODULES[1:]:
            load(name)
    finally:
        sys.dont_write_bytecode = dont_write_bytecode


_load_modules()

from jitscope_bridge_calls import (  # noqa: E402 (loaded above)
    _CallCapture, _method_inputs, _producer, _quiet, _same_graph, _target, _traced_forward)
from jitscope_bridge_definitions import _module_state, _state_changes, collect_definitions  # noqa: E402
from jitscope_bridge_graphs import describe, describe_args, graph_json  # noqa: E402
from jitscope_bridge_places import (  # noqa: E402
    Places, _filtered, _frames_of_warning, _is_torchscript_deprecation, _without_bridge_frames)
from jitscope_bridge_requests import (  # noqa: E402
    RequestError, _file_sets, _plain, flatten, make_set, rebuild, resolve_target, summary)
from jitscope_bridge_values import first_divergence  # noqa: E402
from jitscope_bridge_export import export_call  # noqa: E402
from jitscope_bridge_parting import observe_parting  # noqa: E402
from jitscope_bridge_record import RECORD_VERSION, checked_json  # noqa: E402


# ----------------------------------------------------------------------------------------------------------------
# Recording torch.jit's entry points


_THREAD = threading.local()


class Recorder:
    def __init__(self, places, out_dir, returned=False, archives=True, export=False):
        self.places = places
        self.out_dir = out_dir
        self.returned = returned  # run each trace on its own set for what it returns (`trace --python` prints it)
        self.archives = archives  # torch.jit.save each result (the window opens them for debugging)
        self.export = export  # torch.export each traced call too (jitscope_bridge_export), its program saved
        self.calls = []
        self.traced = set()  # ids of what recorded trace calls returned: not the file's own definitions
        # One recorded call at a time: warnings' filters and hooks are the process's, not a thread's. Calls from
        # any thread are recorded; PyTorch's own nested calls (its check) are not the file's.
        self.lock = threading.RLock()
        self.serving = False  # answering a request after the file ran
        self.notices = {}  # TorchScript's deprecation notices, in order, once each
        self.expected_calls = 0  # torch.jit calls written in the file (progress.json: "call 2/3"), 0: unknown
        self.check_sets = 0  # the running call's check sets (progress.json: "check set 2 of 3")

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
        # PyTorch's check traces each check input, or the example inputs again when there are none.
        checks = check_inputs is not None and len(check_inputs) or (kwargs.get("check_trace", True) is not False)
        self.check_sets = int(checks) if api != "script" else 0
        self.progress(call, "tracing")
        if api != "script" and isinstance(obj, torch.nn.Module):
            # Each submodule's class by path, as the traced graph's scopes name them (`rpn.head`).
            call["module_types"] = {name: getattr(m, "original_name", type(m).__name__)
                                    for name, m in obj.named_modules() if name}
        state_before = _module_state(obj) if api != "script" else None
        error = None
        with self._catch() as caught, self._capturing(caught, obj) as capture:
            capture.on_progress = lambda phase, step, k: self.progress(call, phase, step, k)
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
        if self.export and api != "script" and obj is not None and isinstance(example, (torch.Tensor, tuple, list)):
            self._export(call, obj, example, check_inputs, kwargs.get("check_tolerance", 1e-5))
        self.completed(call)
        if not call["ok"]:
            raise error
        return result

    def _export(self, call, obj, example, check_inputs, tolerance):
        """The call exported with torch.export beside its trace (after it: the trace is undisturbed)."""
        sets = len(check_inputs or ())

        def progress(k):
            if k < 0:
                self.progress(call, "exporting", "exporting")
            else:
                self.progress(call, "running the exported program on %s" % (
                    "the example inputs" if k == 0 else "check set %d" % k), "export-checking", k, sets)

        try:
            call["export"] = export_call(call, obj, example, check_inputs, tolerance, self.places, self.out_dir,
                                         self.archives, progress)
        except Exception as e:  # noqa: BLE001 (the bridge's own failure: the trace stays recorded)
            call["export"] = {"status": "error", "torch": sys.modules["torch"].__version__,
                              "reason": (type(e).__name__ + ": " + str(e).strip().split("\n")[0])[:500]}

    def progress(self, call, phase, step="tracing", check=0, checks=None):
        """Where the recording is, for a crash of the interpreter (PyTorch's check segfaults on huge traces) and
        for the CLI's progress line: the call running and what it was doing, replaced at each step. step: tracing
        (the example inputs), check-tracing, check-comparing (PyTorch's check on check set `check`), values."""
        record = {"index": call["index"], "api": call["api"], "file": call["file"], "line": call["line"],
                  "phase": phase, "step": step, "target": call.get("target", {}).get("name", "?")}
        if self.expected_calls and not self.serving:
            record["calls_expected"] = self.expected_calls
        if check:
            record["check"] = check
            record["checks"] = max(check, self.check_sets if checks is None else checks)
        try:
            tmp = os.path.join(self.out_dir, "progress.json.part")
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(checked_json(record, "progress.json"))
            os.replace(tmp, os.path.join(self.out_dir, "progress.json"))
        except OSError:
            pass

    def completed(self, call):
        """A recorded call, complete: one line of calls.jsonl, so that a later crash loses none of it."""
        if self.serving:
            return  # a request's call is the request's answer, not one of the file's
        with open(os.path.join(self.out_dir, "calls.jsonl"), "a", encoding="utf-8") as f:
            f.write(checked_json(call, "calls.jsonl") + "\n")

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
                if not is_repeat:
                    self.progress(call, "tracing check input %d" % k, "check-tracing", k)
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
        # Where the Python of trace 1's run and of trace k's went different ways, for each trace k whose graph
        # differs from trace 1's: only there (JITSCOPE_BRIDGE_NO_PARTING: the baseline of the benchmarks).
        if first is not None and not adapter and not os.environ.get("JITSCOPE_BRIDGE_NO_PARTING"):
            def trace_once(inputs):
                if isinstance(inputs, torch.Tensor):
                    inputs = (inputs,)
                with _quiet():
                    torch.jit.trace(obj, _clone_inputs(inputs), check_trace=False, strict=kwargs.get("strict", True))

            for k, (entry, module) in enumerate(zip(traces, modules)):
                if k == 0 or module is None or entry.get("repeat") or "graph" not in entry:
                    continue
                if _same_graph(first.graph, module.graph):
                    continue
                if state is None:
                    state = torch.random.get_rng_state(), random.getstate()
                self.progress(call, "observing where trace %d's Python parts from trace 1's" % (k + 1), "parting", k)
                try:
                    parting = observe_parting(trace_once, sets[0], sets[k], traces[0]["graph"], entry["graph"],
                                              self.places)
                except Exception:  # noqa: BLE001 (an observation is a detail: the call stays recorded)
                    parting = None
                if parting:
                    entry["parting"] = parting
        # Where trace 1 and the Python code part ways on each set whose outputs differ: only there, so that a model
        # whose outputs agree pays nothing for it. (JITSCOPE_BRIDGE_NO_VALUES: the baseline of bench_python --values.)
        compare_values = not os.environ.get("JITSCOPE_BRIDGE_NO_VALUES")
        for k, (entry, inputs) in enumerate(zip(traces, sets) if compare_values else ()):
            compared = entry.get("output_check")
            if k == 0 or first is None or not compared or not compared.get("ran") or compared.get("equal", True):
                continue
            if state is None:
                state = torch.random.get_rng_state(), random.getstate()
            if isinstance(inputs, torch.Tensor):
                inputs = (inputs,)
            if adapter:
                obj.current = k
            self.progress(call, "comparing trace 1's values with the Python code's on check input %d" % k, "values", k)
            started = time.monotonic()
            try:
                with _quiet():
                    found = first_divergence(first, obj, inputs, tolerance, call.get("module_types"))
            except Exception as e:  # noqa: BLE001 (a detail of the record: the call stays recorded)
                found = {"error": (type(e).__name__ + ": " + str(e).strip().split("\n")[0])[:500]}
            if found:
                found["seconds"] = round(time.monotonic() - started, 3)  # what it cost, for the benchmarks
                entry["value_divergence"] = found
                if self.archives and found.get("node", -1) >= 0 and "replay" not in entry:
                    # For the debugger: trace 1 run on this set, stopped before the node.
                    entry["replay"] = self._save_replay(call["index"], first, k, inputs, saved)
            if adapter:
                obj.current = 0
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
# Serving a request: the file's target traced (through a TracingAdapter when its inputs are rich) or run on the
# request's sets. make_adapter stays in this file: TracingAdapter is a class of __main__, as the traced module's type
# (__torch__.TracingAdapter) and its archives name it.


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


def _count_jit_calls(code):
    """The torch.jit.trace, trace_module and script calls written in the file's code (not those of what it
    imports, nor a loop's repeats): "call 2/3" while it runs."""
    import dis
    names = ("trace", "trace_module", "script")
    count = 0
    stack = [code]
    while stack:
        c = stack.pop()
        instructions = list(dis.get_instructions(c))
        for i, ins in enumerate(instructions):
            if ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and ins.argval in names and i > 0 \
                    and instructions[i - 1].argval == "jit":
                count += 1
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return count


def run(user_file, out_dir, request=None, returned=False, definitions=True, archives=True, export=False):
    user_file = os.path.realpath(user_file)
    result = {"record_version": RECORD_VERSION, "file": user_file, "python": sys.version.split()[0]}
    try:
        import torch
    except ImportError as e:
        result.update(status="error", error={"type": "ImportError", "message": "this Python has no torch: %s (%s)"
                                             % (e, sys.executable)})
        return result
    result["torch"] = torch.__version__
    places = Places(user_file)
    recorder = Recorder(places, out_dir, returned, archives, export)
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
        recorder.expected_calls = _count_jit_calls(code)
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


def main(argv=None, before_exit=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--out", required=True, help="folder for result.json and the archives")
    ap.add_argument("--request", help="a JSON file: trace, check or run one target on input sets")
    ap.add_argument("--returned", action="store_true", help="run each trace on its own set for what it returns")
    ap.add_argument("--no-definitions", action="store_true", help="do not list (and script) the file's classes and "
                    "functions")
    ap.add_argument("--no-archives", action="store_true", help="do not torch.jit.save the recorded results")
    ap.add_argument("--export", action="store_true", help="export each traced call with torch.export too")
    a = ap.parse_args(argv)
    out_dir = os.path.realpath(a.out)
    os.makedirs(out_dir, exist_ok=True)
    request = None
    if a.request:
        with open(a.request, encoding="utf-8") as f:
            request = json.load(f)
    result = run(a.file, out_dir, request, a.returned, not a.no_definitions, not a.no_archives, a.export)
    tmp = os.path.join(out_dir, "result.json.part")
    text = checked_json(result, "result.json")  # one shot, compact: the C encoder (json.dump is Python's)
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, os.path.join(out_dir, "result.json"))
    sys.stdout.flush()
    if before_exit is not None:
        before_exit()
    # The user's file may leave threads or atexit handlers behind; the record is complete.
    os._exit(0)


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        sys.modules["jitscope_bridge_serve"].serve(main)  # kept warm: each run a fork of it (that module's doc)
    main()
