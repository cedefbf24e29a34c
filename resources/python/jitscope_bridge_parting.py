"""Where the Python of two traces of one call went different ways, observed in the runs themselves.

When a recorded call's trace k differs from trace 1, the bridge traces the example inputs and set k once more (no
check, the result thrown away) under a line tracer limited to the code of the files the differing nodes were
recorded in (their stacks), and compares the lines the two runs executed, frame by frame, in order. The last line
both ran before their paths part is where the Python went different ways: an `if` (an early `return`, a `continue` or
`break` under it), a loop's header (its trip count), a conditional expression, an exception caught. At that line the
tracer has kept the values of the condition's operands in each run (names, attributes and subscripts of them,
never a call), so the report can say `num_new_tokens == num_pos_tokens`: `197 == 197` in trace 1, `257 == 197` in
trace 2. What it writes is the trace's `parting` (jitscope_record_schema.json); JitScope's explainer
(core/check/explainsource.cpp) puts it before what it infers from the graphs."""
import ast
import collections
import inspect
import linecache
import os
import sys
import textwrap
import time
import warnings

# Frames never observed: nn.Module's call machinery and torch.jit's own code run the same lines for any input.
_SKIPS = ("/torch/nn/modules/module.py", "/torch/jit/", "/torch/_ops.py", "/torch/_jit_internal.py")
_MAX_EVENTS = 2000000  # lines per run: past it the observation gives up (a long run is not worth its memory)
_MAX_VALUE = 60
# Calls a condition's operand may make and still be evaluated at the line: they read a size or a length.
_PURE_METHODS = frozenset(("size", "dim", "numel", "nelement", "ndimension", "is_floating_point", "is_complex",
                           "sum", "mean", "max", "min", "amax", "amin", "any", "all", "item", "abs", "norm"))
_PURE_FUNCTIONS = frozenset(("len", "range", "int", "float", "bool", "abs", "min", "max", "isinstance"))


def _node_frames(g):
    """(kind, frames) of each node of IrGraph JSON @p g that records an op, its frames ((file, line), innermost
    first) from its stack: the graph's files are real paths already (jitscope_bridge_graphs.py)."""
    files = g.get("files", [])
    for n in g.get("node_table", []):
        if not n or n.get("kind") in ("prim::Constant", "prim::GetAttr"):
            continue
        stack = n.get("stack") or []
        yield n.get("kind"), tuple((files[stack[i]], stack[i + 1]) for i in range(0, len(stack) - 1, 2)
                                   if 0 <= stack[i] < len(files))


def differing_files(a, b):
    """The files of the stacks of the nodes in one graph only."""
    ca = collections.Counter(_node_frames(a))
    cb = collections.Counter(_node_frames(b))
    return {f for key in set(ca) | set(cb) if ca[key] != cb[key] for f, _ in key[1]}


def exclusive_lines(a, b):
    """The lines (real path, line) where graph @p a records nodes and @p b none: a run of @p a's inputs that reaches
    one has parted from @p b's already (at that line or before it)."""
    def lines(g):
        return {frames[0] for _, frames in _node_frames(g) if frames}

    return lines(a) - lines(b)


class _Statements:
    """The statements of one function by their first line (in its file): what kind each is, the condition of an
    if/while, the iterable of a for. Parsed from the function's own lines, when a run first enters it."""

    _cache = {}  # code object -> _Statements, for the bridge's life (a file's functions are parsed once)

    @classmethod
    def of(cls, code):
        st = cls._cache.get(code)
        if st is None:
            st = cls._cache[code] = cls(code)
        return st

    def __init__(self, code):
        self.kinds = {}  # line -> "if", "while", "for", "ifexp", "assert", "except"
        self.conditions = {}  # line -> ast expression
        self.bodies = {}  # line of an `if` -> what its body leaves by: "return", "continue", "break", or None
        self.source = ""
        try:
            lines = linecache.getlines(code.co_filename)
            first = code.co_firstlineno
            block = inspect.getblock(lines[first - 1:])
            # Dedented for ast, padded with blank lines so that its line numbers are the file's.
            self.source = "\n" * (first - 1) + textwrap.dedent("".join(block))
            tree = ast.parse(self.source)
        except Exception:  # noqa: BLE001 (a lambda, a generated function, source that moved: no statements)
            return
        for node in ast.walk(tree):
            line = getattr(node, "lineno", None)
            if isinstance(node, ast.If):
                self.kinds[line] = "if"
                self.conditions[line] = node.test
                self.bodies[line] = self._leaves(node.body)
                if node.orelse and not self.bodies[line]:
                    self.bodies[line] = self._leaves(node.orelse)
            elif isinstance(node, ast.While):
                self.kinds[line] = "while"
                self.conditions[line] = node.test
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                self.kinds[line] = "for"
                self.conditions[line] = node.iter
            elif isinstance(node, ast.IfExp) and line not in self.kinds:
                self.kinds[line] = "ifexp"
                self.conditions[line] = node.test
            elif isinstance(node, ast.Assert) and line not in self.kinds:
                self.kinds[line] = "assert"
                self.conditions[line] = node.test
            elif isinstance(node, ast.ExceptHandler):
                self.kinds[line] = "except"

    @classmethod
    def _leaves(cls, body):
        """How a branch's body leaves what follows the `if`: by a `return`, `continue`, `break` or `raise` of its own
        or of an `if` nested in it (timm's `if num_new_tokens == num_pos_tokens: if ...: return posemb`)."""
        for stmt in body:
            if isinstance(stmt, ast.Return):
                return "return"
            if isinstance(stmt, ast.Continue):
                return "continue"
            if isinstance(stmt, ast.Break):
                return "break"
            if isinstance(stmt, ast.Raise):
                return "raise"
        for stmt in body:
            if isinstance(stmt, ast.If):
                inner = cls._leaves(stmt.body) or cls._leaves(stmt.orelse)
                if inner:
                    return inner
        return None

    def text(self, expr):
        try:
            return ast.get_source_segment(self.source, expr) or ast.unparse(expr)
        except Exception:  # noqa: BLE001
            return ""


def _operands(expr):
    """The parts of a condition whose values are worth showing: the sides of comparisons, the operands of `and`,
    `or` and `not`, the whole when it is a name or attribute; evaluable without calling anything."""
    out = []

    def pure(n):
        """A call that only reads (a size, a length): evaluated; any other is not."""
        if not isinstance(n, ast.Call):
            return True
        if isinstance(n.func, ast.Attribute):
            return n.func.attr in _PURE_METHODS
        return isinstance(n.func, ast.Name) and n.func.id in _PURE_FUNCTIONS

    def safe(e):
        return all(pure(n) and not isinstance(n, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom,
                                                  ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))
                   for n in ast.walk(e))

    def visit(e):
        if isinstance(e, ast.BoolOp):
            for v in e.values:
                visit(v)
        elif isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            visit(e.operand)
        elif isinstance(e, ast.Compare):
            for side in [e.left] + list(e.comparators):
                if safe(side) and not isinstance(side, ast.Constant):
                    out.append(side)
        elif safe(e) and not isinstance(e, ast.Constant):
            out.append(e)

    visit(expr)
    return out


def _shown(value):
    """A value as the report shows it: a one-element tensor as its number (a traced size is a 0-dim tensor)."""
    try:
        import torch
        if isinstance(value, torch.Tensor):
            if value.numel() == 1:
                return repr(value.item())
            return "Tensor%s" % (list(value.shape),)
        if isinstance(value, (list, tuple)) and len(value) <= 8:
            items = [_shown(v) for v in value]
            return ("(%s)" if isinstance(value, tuple) else "[%s]") % ", ".join(items)
        text = repr(value)
    except Exception:  # noqa: BLE001
        return "?"
    return text if len(text) <= _MAX_VALUE else text[:_MAX_VALUE - 3] + "..."


class _Parted(BaseException):
    """Raised by the line tracer into the second run once it has gone past where it parts from the first: the rest of
    that trace is not needed. A BaseException, so that the traced code's own `except Exception` lets it through."""


class _Run:
    """One run's lines in the observed files: (frame path, line) in order, and the condition operands' values at
    each line that starts a statement with a condition. With @p reference (the first run's lines), the run stops
    once it has parted from it: at once after an `if`, after the frame returns for a loop (its iterations)."""

    def __init__(self, files, codes, reference=None, stop_lines=None):
        self.files = files
        self.codes = codes  # frame path -> its code object (shared by both runs)
        self.stop_lines = stop_lines or set()  # (real path, line): the run has parted once it gets there
        self.real = {}  # a code's file name -> its real path
        self.events = []
        self.values = {}  # event index -> [value text per operand]
        self.full = False
        self.seen = {}  # a code's file name -> observed (its real path among the files)
        self.reference = reference
        self.stop_after = None  # the frame path whose return ends the run (a loop that parted)

    def _path(self, frame):
        path = []
        f = frame.f_back
        while f is not None:
            name = f.f_code.co_filename
            if self.seen.get(name):
                path.append((name, f.f_code.co_name, f.f_lineno))
            f = f.f_back
        path.reverse()
        return tuple(path) + ((frame.f_code.co_filename, frame.f_code.co_name),)

    def tracer(self, frame, event, arg):
        if event != "call" or self.full:
            return None
        name = frame.f_code.co_filename
        observed = self.seen.get(name)
        if observed is None:
            real = os.path.realpath(name)
            observed = self.seen[name] = real in self.files and not any(s in real for s in _SKIPS)
            self.real[name] = real
        if not observed:
            return None
        path = self._path(frame)
        self.codes[path] = frame.f_code
        statements = _Statements.of(frame.f_code)
        events = self.events

        reference = self.reference
        stop_lines = {line for file, line in self.stop_lines if file == self.real.get(name)}

        def local(frame, event, arg):
            if event == "line":
                line = frame.f_lineno
                if statements is not None and line in statements.conditions:
                    self.values[len(events)] = [self._value(frame, statements, e)
                                                for e in _operands(statements.conditions[line])]
                at = len(events)
                events.append((path, line))
                if len(events) > _MAX_EVENTS:
                    self.full = True
                    return None
                if line in stop_lines:
                    raise _Parted()
                if reference is not None and self.stop_after is None and at > 0 \
                        and (at >= len(reference) or reference[at] != events[at]):
                    last_path, last_line = events[at - 1]
                    code = self.codes.get(last_path)
                    if code is not None and _Statements.of(code).kinds.get(last_line) in ("for", "while"):
                        self.stop_after = last_path  # count the loop's iterations to its end
                    else:
                        raise _Parted()
            elif event == "return" and self.stop_after is not None and path == self.stop_after:
                raise _Parted()
            return local

        return local

    @staticmethod
    def _value(frame, statements, expr):
        try:
            code = compile(ast.Expression(expr), "<jitscope>", "eval")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return _shown(eval(code, frame.f_globals, dict(frame.f_locals)))  # noqa: S307 (no calls in it)
        except Exception:  # noqa: BLE001
            return "?"


def _observe(trace_once, inputs, files, codes, reference=None, stop_lines=None):
    run = _Run(set(files), codes, reference, stop_lines)
    previous = sys.gettrace()
    sys.settrace(run.tracer)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            trace_once(inputs)
    except _Parted:
        pass
    except Exception:  # noqa: BLE001 (the run's own failure is recorded elsewhere; its lines up to it still count)
        pass
    finally:
        sys.settrace(previous)
    return run


def _render(statements, expr, operands, values):
    """The condition with each operand replaced by its value in one run (`not is_exporting() and 197 == 197`)."""
    try:
        text = statements.text(expr)
        segments = []
        for e, v in zip(operands, values):
            seg = statements.text(e)
            if seg and v != "?":
                segments.append((seg, v))
        for seg, v in segments:
            text = text.replace(seg, v, 1)
        return text
    except Exception:  # noqa: BLE001
        return ""


def observe_parting(trace_once, first_inputs, other_inputs, first_graph, other_graph, places):
    """Where the Python of @p trace_once on @p first_inputs and on @p other_inputs went different ways, or None
    (nothing observed: the same lines in both, no differing node with a stack, the line tracer taken by a debugger).
    @p trace_once(inputs) traces once and throws the result away; the caller keeps the random state."""
    if sys.gettrace() is not None:
        return None  # a debugger or coverage owns the tracer: not taken from them
    started = time.monotonic()
    files = differing_files(first_graph, other_graph)
    files = {f for f in files if not any(s in f for s in _SKIPS)}
    if not files:
        return None
    codes = {}
    # The run that records nodes at lines the other never does goes first, and stops at the first of them (it has
    # parted there or before); the other stops once it has left the first's lines (or finished the loop that
    # parted). Neither traces the rest of the model.
    only_other = exclusive_lines(other_graph, first_graph)
    if only_other:
        b = _observe(trace_once, other_inputs, files, codes, stop_lines=only_other)
        a = _observe(trace_once, first_inputs, files, codes, reference=b.events)
    else:
        a = _observe(trace_once, first_inputs, files, codes, stop_lines=exclusive_lines(first_graph, other_graph))
        b = _observe(trace_once, other_inputs, files, codes, reference=a.events)
    if a.full or b.full or not a.events or not b.events:
        return None
    n = min(len(a.events), len(b.events))
    i = 0
    while i < n and a.events[i] == b.events[i]:
        i += 1
    if i == n and len(a.events) == len(b.events):
        return None  # the same lines: the traces differ by values, not by the path
    if i == 0:
        return None
    path, line = a.events[i - 1]
    file = path[-1][0]
    code = codes.get(path)
    if code is None:
        return None
    st = _Statements.of(code)
    kind = st.kinds.get(line, "other")
    statement = {"if": "if", "while": "loop", "for": "loop", "ifexp": "conditional-expression",
                 "assert": "assert", "except": "exception"}.get(kind, "other")
    if kind == "if" and st.bodies.get(line) in ("return", "continue", "break"):
        statement = {"return": "early-return", "continue": "continue", "break": "break"}[st.bodies[line]]
    nexts = [a.events[i][1] if i < len(a.events) and a.events[i][0] == path else None,
             b.events[i][1] if i < len(b.events) and b.events[i][0] == path else None]
    if statement == "other" and (a.events[i:i + 1] and a.events[i][0][:-1] != path[:-1]
                                 or b.events[i:i + 1] and b.events[i][0][:-1] != path[:-1]):
        # One run went into a callee, or raised out of the frame, where the other went on.
        for other_run in (a, b):
            if i < len(other_run.events) and codes.get(other_run.events[i][0]) is not None:
                k = _Statements.of(codes[other_run.events[i][0]]).kinds.get(other_run.events[i][1])
                if k == "except":
                    statement = "exception"
    out = {"file": os.path.realpath(file), "line": line, "function": path[-1][1], "statement": statement,
           "text": linecache.getline(file, line).strip()[:300], "next_lines": nexts}
    condition = st.conditions.get(line)
    if condition is not None:
        out["condition"] = st.text(condition)[:300]
        operands = _operands(condition)
        va, vb = a.values.get(i - 1, []), b.values.get(i - 1, [])
        out["operands"] = [{"text": st.text(e)[:120], "values": [x, y]}
                           for e, x, y in zip(operands, va, vb)]
        out["values"] = [_render(st, condition, operands, va)[:300], _render(st, condition, operands, vb)[:300]]
    if kind in ("for", "while"):
        out["iterations"] = [sum(1 for e in a.events if e == (path, line)) - 1,
                             sum(1 for e in b.events if e == (path, line)) - 1]
    # The stack from the user's call down to the frame: the observed frames' call lines, outermost first.
    out["stack"] = [{"file": os.path.realpath(f), "line": ln, "function": fn} for f, fn, ln in path[:-1]] \
        + [{"file": os.path.realpath(file), "line": line, "function": path[-1][1]}]
    out["seconds"] = round(time.monotonic() - started, 3)
    return out
