"""What real torch.export does with the fixtures of tests/data/python/export/: the oracle of `check --python --export`.

    .venv/bin/python tests/oracle/generate_export.py     (writes tests/data/python/export/expected.json)

Each fixture makes one torch.jit.trace call; it is run here with torch.jit.trace replaced by a recorder of its
arguments, and its target exported as the bridge exports it (non-strict; the dimensions that differ between the
example and the check inputs made Dim.DYNAMIC through torch.export.AdditionalInputs). What is written comes from
torch itself, not from the bridge's code: the exception's class, the data-dependent guard's expression
(GuardOnDataDependentSymNode.cond) and the innermost frame of the fixture in its traceback; for a dimension that
cannot be dynamic, the constant from export's own message and the line of the guard that specialized it, as torch's
`dynamic` log names it ("eval Eq(s0, 3) [guard added] (export_loop.py:9 in ...)"); for an exported program, whether
it runs each set (ep.module()) to the Python code's outputs. No paths: the fixtures are named by their file names.
"""
import json
import logging
import os
import re
import sys
import traceback

import torch

HERE = os.path.dirname(os.path.realpath(__file__))
FIXTURES = os.path.join(HERE, "..", "data", "python", "export")
FILES = ("export_loop.py", "export_branch.py", "export_passes.py")


class _GuardLog(logging.Handler):
    """torch's `dynamic` log at INFO: each guard added, with the line it names."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.guards = []

    def emit(self, record):
        m = re.search(r"eval (.+?) \[guard added\] \(.*?:(\d+) in (\w+)\)", record.getMessage())
        if m:
            self.guards.append((m.group(1), int(m.group(2)), m.group(3)))


def record_call(path):
    calls = []

    def trace(fn, example, check_inputs=None, **kwargs):
        calls.append((fn, example if isinstance(example, tuple) else (example,), [
            c if isinstance(c, tuple) else (c,) for c in check_inputs or []]))

    real = torch.jit.trace
    torch.jit.trace = trace
    try:
        namespace = {"__name__": "__main__", "__file__": path}
        with open(path) as f:
            exec(compile(f.read(), path, "exec"), namespace)
    finally:
        torch.jit.trace = real
    return calls[0]


def exported(path):
    target, example, checks = record_call(path)
    module = target if isinstance(target, torch.nn.Module) else type(
        "Function", (torch.nn.Module,), {"forward": lambda self, *a: target(*a)})()
    dynamic = torch.export.AdditionalInputs()
    for c in checks:
        dynamic.add(c)
    log = _GuardLog()
    logger = logging.getLogger("torch.fx.experimental.symbolic_shapes")
    level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(log)
    out = {}
    try:
        ep = torch.export.export(module, example, dynamic_shapes=dynamic, strict=False)
    except Exception as e:  # noqa: BLE001 (export's failure is what is recorded)
        out["status"] = "failed"
        out["type"] = type(e).__name__
        frames = [f for f in traceback.extract_tb(e.__traceback__) if os.path.realpath(f.filename) == path]
        if hasattr(e, "cond"):
            out["kind"] = "data-dependent"
            out["guard"] = str(e.cond)
            out["line"] = frames[-1].lineno
            out["source"] = frames[-1].line.strip()
        m = re.search(r"specialized it to be a constant \((\d+)\)", str(e))
        if m:
            out["kind"] = "constraint"
            out["value"] = int(m.group(1))
            out["line"] = next(line for g, line, _ in log.guards if g.endswith(", %s)" % m.group(1)))
        return out
    finally:
        logger.removeHandler(log)
        logger.setLevel(level)
    out["status"] = "exported"
    out["sets"] = []
    for args in [example] + checks:
        try:
            got = ep.module()(*args)
        except Exception as e:  # noqa: BLE001
            out["sets"].append("guard" if "Guard failed" in str(e) else "error")
            continue
        try:
            torch.testing.assert_close(got, target(*args), rtol=1e-5, atol=1e-5)
            out["sets"].append("passes")
        except AssertionError:
            out["sets"].append("outputs-differ")
    return out


def main():
    expected = {"torch": torch.__version__}
    for name in FILES:
        expected[name] = exported(os.path.realpath(os.path.join(FIXTURES, name)))
    with open(os.path.join(FIXTURES, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    json.dump(expected, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
