#!/usr/bin/env python3
"""Record what torch.jit.trace does, per input set, for the cases of tests/oracle/trace_cases.py.

Run from the repo root (it chdirs there anyway):

    .venv/bin/python tests/oracle/generate_traces.py [NAME ...]

With names, only those cases are regenerated. Deterministic and idempotent: files whose content
would not change are left alone ("unchanged").

Outputs (committed; tests never regenerate them):

  tests/data/traces/<name>.json     one per case, see below
  tests/data/archives/<x>.pt        torch.jit.script of a module case's module (torch.jit.trace on its first set
                                    with "archive_by": "trace"), built like
                                    generate.py builds archives (child process, PYTHONHASHSEED=0,
                                    torch.manual_seed(0) before construction). An archive that
                                    already exists is reused and never rewritten; it is checked
                                    to hold the same weights and forward code.

Per case, for every set k (SET syntax, see inputsets.py):
  * inputs: torch.manual_seed(seed), then the set's values created left to right
    (inputsets.create_set). "inputs" in the JSON describes them (dtype, shape, sum) so the C++
    side can check that it created the same values.
  * output: the eager function/module called on freshly created inputs (RNG state: right after
    creating them, i.e. the state torch.jit.trace runs the function in).
  * trace: fresh inputs again, torch.jit.trace(fn, inputs, check_trace=False); "graph" is
    str(traced.graph) with "# file:line:col" comments and ___torch_mangle_N. prefixes removed
    (module cases also get "inlined_graph"); "warnings" lists every warning raised while tracing,
    in order, duplicates kept: category, first line of the message, and "line" = the innermost
    line of the traced source file (corpus file or tests/oracle/modules.py) on the Python stack
    when the warning was raised (null if that file is not on the stack).
  * check: all sets created (each from a fresh seed), then torch.manual_seed(seed) once more and
    torch.jit.trace(fn, set0, check_inputs=[set1, set2, ...]) with check_trace=True.
    verdict "diverged" if it raised TracingCheckError or warned "Output nr N. ... does not
    match ...", "error" if it raised anything else (e.g. set 0 cannot be traced at all),
    else "consistent".

Sums are sum() in float64 of the tensor converted to float64; non-finite values are written
as the strings "nan", "inf", "-inf".
"""
import argparse
import importlib
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402

import inputsets  # noqa: E402
from generate import dtype_name, load_source_module, start_generator, strip_graph, write_json  # noqa: E402

ROOT = HERE.parents[1]
DATA_DIR = Path("tests/data")
TRACES_DIR = DATA_DIR / "traces"
MODULES_PY = Path("tests/oracle/modules.py")

_MANGLE = re.compile(r"___torch_mangle_\d+\.")

_seen_warnings = {}  # (category, message) -> [case names], for the summary


# --------------------------------------------------------------------------
# helpers


def graph_text(graph):
    return strip_graph(_MANGLE.sub("", str(graph)))


def first_line(text):
    lines = str(text).strip().splitlines()
    return lines[0].strip() if lines else ""


def number(x):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def describe(v):
    """JSON description of an input or output value; tuples become JSON lists."""
    if isinstance(v, torch.Tensor):
        t = v.detach()
        return {"kind": "tensor", "dtype": dtype_name(t.dtype), "shape": list(t.shape),
                "sum": number(t.to(torch.float64).sum().item())}
    if isinstance(v, tuple):
        return [describe(x) for x in v]
    if isinstance(v, list):
        return {"kind": "list", "items": [describe(x) for x in v]}
    if isinstance(v, dict):
        return {"kind": "dict", "items": [[describe(k), describe(x)] for k, x in v.items()]}
    if v is None:
        return {"kind": "none"}
    if isinstance(v, bool):
        return {"kind": "bool", "value": v}
    if isinstance(v, int):
        return {"kind": "int", "value": v}
    if isinstance(v, float):
        return {"kind": "float", "value": number(v)}
    return {"kind": "other", "type": type(v).__name__, "repr": repr(v)}


class CaptureWarnings:
    """Records every warning (filter "always") with the innermost line of `source` on the stack."""

    def __init__(self, source):
        self.source = str(source)
        self.records = []

    def __enter__(self):
        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("always")
        warnings.showwarning = self._show
        return self.records

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)

    def _show(self, message, category, filename, lineno, file=None, line=None):
        if inputsets.is_torchscript_deprecation(category, message):
            return
        src_line = None
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_filename == self.source:
                src_line = frame.f_lineno
                break
            frame = frame.f_back
        self.records.append({"category": category.__name__,
                             "message": first_line(message),
                             "line": src_line})


def error_text(exc, lines=1):
    text = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()][:lines]
    return "\n".join(text) if text else type(exc).__name__


# --------------------------------------------------------------------------
# targets


_loaded_sources = {}


def corpus_target(case):
    src = DATA_DIR / case["source"]
    key = str(src)
    if key not in _loaded_sources:
        torch.manual_seed(0)
        mod, _ = load_source_module(f"jitscope_trace_{src.stem}", src)
        _loaded_sources[key] = mod
    fn = getattr(_loaded_sources[key], case["function"])
    return fn, src


_modules_mod = None


def modules_module():
    global _modules_mod
    if _modules_mod is None:
        _modules_mod, _ = load_source_module("modules", MODULES_PY)
    return _modules_mod


def make_module(case):
    cls = getattr(modules_module(), case["module"])
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = cls(**case.get("ctor", {}))
    m.train(not case.get("eval", False))
    return m


# Same recipe as generate.py's _CHILD_CODE: a fresh process per archive keeps the bytes
# independent of this script and of the other archives.
_CHILD_CODE = """\
import json, sys, types, warnings
import torch
cls_name, ctor, train, out = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
trace_set = sys.argv[5] if len(sys.argv) > 5 else None  # archive by torch.jit.trace on this set, made with seed argv[6]
path = "tests/oracle/modules.py"
mod = types.ModuleType("modules")
mod.__file__ = path
sys.modules["modules"] = mod
exec(compile(open(path).read(), path, "exec"), mod.__dict__)
torch.set_num_threads(1)
torch.manual_seed(0)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    m = getattr(mod, cls_name)(**ctor)
    m.train(train)
    if trace_set is None:
        s = torch.jit.script(m)
    else:
        sys.path.insert(0, "tests/oracle")
        import inputsets
        s = torch.jit.trace(m, tuple(inputsets.create_set(trace_set, int(sys.argv[6]))), check_trace=False)
torch.jit.save(s, out)
"""


def ensure_archive(case, eager):
    """Build the scripted archive of a module case (or reuse the existing one); with "archive_by": "trace", the
    archive is torch.jit.trace of the module on the case's first set (made with the case's seed) instead."""
    archive = DATA_DIR / case["archive"]
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir) / archive.name  # same basename: it names the zip's root folder
        env = dict(os.environ, PYTHONHASHSEED="0")
        subprocess.run([sys.executable, "-c", _CHILD_CODE, case["module"],
                        json.dumps(case.get("ctor", {}), sort_keys=True),
                        "0" if case.get("eval", False) else "1", str(tmp)]
                       + ([case["sets"][0], str(case.get("seed", 0))] if case.get("archive_by") == "trace" else []),
                       check=True, env=env, cwd=ROOT)
        new = tmp.read_bytes()
        if archive.exists():
            old = archive.read_bytes()
            if old == new:
                print(f"unchanged {archive}")
            else:
                # never rewrite an existing archive: check it is the same scripted module
                a, b = torch.jit.load(str(archive)), torch.jit.load(str(tmp))
                same = a.code == b.code and a.state_dict().keys() == b.state_dict().keys() and \
                    all(torch.equal(v, b.state_dict()[k]) for k, v in a.state_dict().items())
                if not same:
                    sys.exit(f"{archive} exists but is not torch.jit.script({case['module']}) "
                             f"with seed 0; remove it or rename the case's archive")
                print(f"reused    {archive} (same code and weights, other bytes)")
        else:
            archive.parent.mkdir(parents=True, exist_ok=True)
            archive.write_bytes(new)
            print(f"wrote     {archive} ({len(new)} bytes)")
    # the eager module that Python traces has the archive's weights
    loaded = torch.jit.load(str(archive))
    sd = loaded.state_dict()
    for k, v in eager.state_dict().items():
        if k not in sd or not torch.equal(v, sd[k]):
            sys.exit(f"{archive}: {k} differs from the eager {case['module']}")
    if loaded.training != eager.training:
        sys.exit(f"{archive}: training={loaded.training}, eager module training={eager.training}")


# --------------------------------------------------------------------------
# one case


def run_case(case):
    name = case["name"]
    seed = case.get("seed", 0)
    sets = case["sets"]
    for s in sets:
        if inputsets.canonical(s) != s:
            sys.exit(f"case {name}: write set {s!r} canonically: {inputsets.canonical(s)!r}")
    is_module = "module" in case
    if is_module:
        target = make_module(case)
        ensure_archive(case, target)
        source = MODULES_PY
    else:
        target, source = corpus_target(case)

    traces = []
    for k, s in enumerate(sets):
        entry = {"set": k}
        # inputs + eager output (the RNG state is the one the trace runs in)
        args = inputsets.create_set(s, seed)
        entry["inputs"] = [describe(a) for a in args]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = target(*args)
            entry["output"] = describe(out)
        except Exception as exc:
            entry["output"] = None
            entry["eager_error"] = error_text(exc)
        # the trace itself, from fresh inputs
        args = inputsets.create_set(s, seed)
        cap = CaptureWarnings(source)
        traced, error = None, None
        with cap as records:
            try:
                traced = torch.jit.trace(target, args, check_trace=False)
            except Exception as exc:
                error = error_text(exc)
        entry["ok"] = traced is not None
        entry["graph"] = graph_text(traced.graph) if traced is not None else None
        if is_module:
            entry["inlined_graph"] = graph_text(traced.inlined_graph) if traced is not None else None
        entry["warnings"] = records
        entry["error"] = error
        # keep a stable key order
        traces.append({k2: entry[k2] for k2 in
                       ["set", "ok", "graph", "inlined_graph", "warnings", "error", "inputs",
                        "output", "eager_error"] if k2 in entry})
        for w in records:
            _seen_warnings.setdefault((w["category"], w["message"]), []).append(name)

    # check_inputs verdict
    all_args = [inputsets.create_set(s, seed) for s in sets]
    torch.manual_seed(seed)
    cap = CaptureWarnings(source)
    check = {"verdict": "consistent", "error": None}
    with cap as records:
        try:
            torch.jit.trace(target, all_args[0], check_inputs=all_args[1:])
        except torch.jit.TracingCheckError as exc:
            check = {"verdict": "diverged", "error": error_text(exc, 2)}
        except Exception as exc:
            check = {"verdict": "error", "error": error_text(exc, 2)}
    if check["verdict"] == "consistent" and any(
            w["message"].startswith("Output nr") for w in records):
        check["verdict"] = "diverged"
    check["warnings"] = records
    for w in records:
        _seen_warnings.setdefault((w["category"], w["message"]), []).append(name + " (check)")

    doc = {
        "name": name,
        "source": None if is_module else case["source"],
        "function": "forward" if is_module else case["function"],
        "archive": case["archive"] if is_module else None,
    }
    if is_module:
        doc["module"] = case["module"]
        doc["ctor"] = case.get("ctor", {})
        doc["eval"] = bool(case.get("eval", False))
    doc.update({"seed": seed, "sets": sets, "traces": traces, "check": check})
    write_json(TRACES_DIR / f"{name}.json", doc)
    return doc


# --------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="only these cases")
    ap.add_argument("--quiet-summary", action="store_true", help="no per-case summary table")
    opts = ap.parse_args()
    start_generator(__file__)

    import trace_cases
    importlib.reload(trace_cases)
    cases = trace_cases.CASES
    names = [c["name"] for c in cases]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        sys.exit(f"duplicate case names: {sorted(dupes)}")
    if opts.names:
        unknown = set(opts.names) - set(names)
        if unknown:
            sys.exit(f"unknown cases: {sorted(unknown)}")
        cases = [c for c in cases if c["name"] in opts.names]

    rows = []
    for case in cases:
        doc = run_case(case)
        ws = sorted({w["message"][:40] for t in doc["traces"] for w in t["warnings"]})
        errs = [t["set"] for t in doc["traces"] if not t["ok"]]
        rows.append((doc["name"], len(doc["sets"]), doc["check"]["verdict"], errs, ws))

    if not opts.names:
        known = {f"{n}.json" for n in names}
        for p in sorted(TRACES_DIR.glob("*.json")):
            if p.name not in known:
                print(f"STALE     {p} (no case of that name)")
    if not opts.quiet_summary:
        print()
        for name, n, verdict, errs, ws in rows:
            e = f" trace errors on sets {errs}" if errs else ""
            print(f"{name:28} {n} sets  {verdict:10}{e}  {'; '.join(ws)}")
        print()
        for (cat, msg), where in sorted(_seen_warnings.items()):
            print(f"{cat}: {msg}\n    in {', '.join(sorted(set(where)))}")
    print(f"{len(cases)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
