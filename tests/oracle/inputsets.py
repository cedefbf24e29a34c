"""Python twin of core/inputs/inputset.{h,cpp} and core/inputs/dtype.{h,cpp}: parse JitScope's SET syntax and create the values.

    f32[3,4,5]; i64[2]=zeros; 3; 2.5; true; none; (f32[2],3); [i64[1],i64[2]]

Arguments are separated by ';'. A tensor is DTYPE[d0,d1,...] with an optional "=FILL":
rand (default), randn, zeros, ones, arange, full:V, values:a,b,c. Scalars: ints, floats,
true/false, none. Tuples (...), lists [...] and dicts {key: value, ...} (keys are names or quoted
strings) nest.

Creation contract (the C++ executor implements the identical rule; keep both in step):
`torch.manual_seed(seed)` once before a set, then arguments are created left to right,
depth first inside tuples/lists/dicts:

  rand    f32/f64: torch.rand(shape, dtype)        f16/bf16: torch.rand(shape, f32).to(dt)
          integers: torch.randint(0, 10, shape, dtype)   bool: torch.rand(shape) < 0.5
  randn   f32/f64: torch.randn(shape, dtype)       f16/bf16: torch.randn(shape, f32).to(dt)
          i64/i32/i16/i8: torch.randint(-10, 10, shape, dtype)   u8: torch.randint(0, 10, ...)
          bool: torch.randn(shape) > 0
  zeros / ones / full:V   torch.zeros/ones/full(shape[, V], dtype)
  arange  torch.arange(numel, dtype=int64).reshape(shape).to(dt)   bool: (arange % 2) == 1
  values  torch.tensor([a, b, ...], dtype=float64).reshape(shape).to(dt)

Only zeros/ones/full/arange/values consume no random numbers.
"""
import math
import re
from dataclasses import dataclass, field
from typing import List, Optional

import torch

DTYPES = {
    "f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16,
    "i64": torch.int64, "i32": torch.int32, "i16": torch.int16, "i8": torch.int8,
    "u8": torch.uint8, "bool": torch.bool,
}

# spellings accepted by canonicalDtype() (the dtype table in core/inputs/dtype.cpp)
_ALIASES = {
    "f32": "f32", "float": "f32", "float32": "f32", "f64": "f64", "double": "f64",
    "float64": "f64", "f16": "f16", "half": "f16", "float16": "f16", "bf16": "bf16",
    "bfloat16": "bf16", "i64": "i64", "long": "i64", "int64": "i64", "i32": "i32",
    "int": "i32", "int32": "i32", "i16": "i16", "short": "i16", "int16": "i16",
    "i8": "i8", "int8": "i8", "u8": "u8", "uint8": "u8", "bool": "bool",
}

FILLS = ("rand", "randn", "zeros", "ones", "arange", "full", "values")


def canonical_dtype(name):
    n = name.strip()
    if n.startswith("torch."):
        n = n[6:]
    return _ALIASES.get(n, "")


@dataclass
class Value:
    kind: str  # tensor int float bool none tuple list dict
    dtype: str = "f32"
    shape: List[int] = field(default_factory=list)
    fill: str = "rand"
    fill_value: float = 0.0
    values: List[float] = field(default_factory=list)
    scalar: object = None
    items: List["Value"] = field(default_factory=list)
    keys: List[str] = field(default_factory=list)  # dict

    def __str__(self):
        if self.kind == "tensor":
            s = f"{self.dtype}[{','.join(str(d) for d in self.shape)}]"
            if self.fill == "full":
                s += "=full:" + _num(self.fill_value)
            elif self.fill == "values":
                s += "=values:" + ",".join(_num(v) for v in self.values)
            elif self.fill != "rand":
                s += "=" + self.fill
            return s
        if self.kind == "int":
            return str(self.scalar)
        if self.kind == "float":
            t = _num(self.scalar)
            return t if any(c in t for c in ".en") else t + ".0"  # e, inf, nan
        if self.kind == "bool":
            return "true" if self.scalar else "false"
        if self.kind == "none":
            return "none"
        if self.kind == "dict":
            return "{" + ", ".join("%s: %s" % (k if re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", k) else "'%s'" % k, i)
                                   for k, i in zip(self.keys, self.items)) + "}"
        inner = ",".join(str(i) for i in self.items)
        if self.kind == "tuple":
            return "(" + inner + (",)" if len(self.items) == 1 else ")")
        return "[" + inner + "]"


def _num(x):
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if math.isnan(x):
        return "nan"
    if x == int(x) and abs(x) < 1e16:
        return str(int(x))
    return repr(x)


class ParseError(ValueError):
    def __init__(self, message, position):
        super().__init__(f"{message} (at {position})")
        self.message = message
        self.position = position


class _Parser:
    def __init__(self, s):
        self.s = s
        self.pos = 0

    def at_end(self):
        return self.pos >= len(self.s)

    def peek(self):
        return "" if self.at_end() else self.s[self.pos]

    def skip(self):
        while not self.at_end() and self.s[self.pos].isspace():
            self.pos += 1

    def fail(self, msg, pos=None):
        raise ParseError(msg, self.pos if pos is None else pos)

    def word(self):
        start = self.pos
        while not self.at_end() and (self.s[self.pos].isalnum() or self.s[self.pos] == "_"):
            self.pos += 1
        return self.s[start:self.pos]

    def number(self):
        start = self.pos
        if self.peek() in ("-", "+") and self.peek():
            self.pos += 1
        while not self.at_end():
            c = self.s[self.pos]
            if c.isdigit() or c in ".eE" or (c in "+-" and self.s[self.pos - 1] in "eE"):
                self.pos += 1
            else:
                break
        t = self.s[start:self.pos]
        try:
            return t, float(t)
        except ValueError:
            self.fail("expected a number", start)

    def parse(self):
        args = []
        self.skip()
        if self.at_end():
            self.fail("empty input set")
        while True:
            args.append(self.value())
            self.skip()
            if self.at_end():
                break
            if self.peek() != ";":
                self.fail("expected ';' between arguments")
            self.pos += 1
        return args

    def sequence(self, close, kind):
        v = Value(kind)
        self.pos += 1
        self.skip()
        if self.peek() == close:
            self.pos += 1
            return v
        while True:
            v.items.append(self.value())
            self.skip()
            if self.peek() == ",":
                self.pos += 1
                self.skip()
                if self.peek() == close:
                    self.pos += 1
                    return v
                continue
            if self.peek() == close:
                self.pos += 1
                return v
            self.fail(f"missing '{close}'" if self.at_end() else f"expected ',' or '{close}'")

    def key(self):
        self.skip()
        c = self.peek()
        if c in ("'", '"'):
            start = self.pos
            end = self.s.find(c, self.pos + 1)
            if end < 0:
                self.fail(f"missing closing {c}", start)
            self.pos = end + 1
            return self.s[start + 1:end]
        if not (c.isalpha() or c == "_"):
            self.fail("expected a key (a name or a quoted string)")
        return self.word()

    def dict(self):
        v = Value("dict")
        self.pos += 1
        self.skip()
        if self.peek() == "}":
            self.pos += 1
            return v
        while True:
            self.skip()
            start = self.pos
            k = self.key()
            if k in v.keys:
                self.fail(f"key '{k}' given twice", start)
            self.skip()
            if self.peek() != ":":
                self.fail("expected ':' after the key")
            self.pos += 1
            v.keys.append(k)
            v.items.append(self.value())
            self.skip()
            if self.peek() == ",":
                self.pos += 1
                self.skip()
                if self.peek() == "}":
                    self.pos += 1
                    return v
                continue
            if self.peek() == "}":
                self.pos += 1
                return v
            self.fail("missing '}'" if self.at_end() else "expected ',' or '}'")

    def value(self):
        self.skip()
        if self.at_end():
            self.fail("expected a value")
        c = self.peek()
        if c == "(":
            return self.sequence(")", "tuple")
        if c == "[":
            return self.sequence("]", "list")
        if c == "{":
            return self.dict()
        if c.isdigit() or c in "-+.":
            start = self.pos
            t, d = self.number()
            if not any(ch in t for ch in ".eE") and math.isfinite(d):
                return Value("int", scalar=int(t))
            return Value("float", scalar=d)
        if not c.isalpha():
            self.fail(f"unexpected '{c}'")
        start = self.pos
        w = self.word()
        if w in ("true", "True"):
            return Value("bool", scalar=True)
        if w in ("false", "False"):
            return Value("bool", scalar=False)
        if w in ("none", "None"):
            return Value("none")
        if w in ("inf", "nan"):
            return Value("float", scalar=float(w))
        dtype = canonical_dtype(w)
        if not dtype:
            self.fail(f"unknown dtype '{w}'", start)
        self.skip()
        if self.peek() != "[":
            self.fail("expected '[' after dtype")
        self.pos += 1
        t = Value("tensor", dtype=dtype)
        self.skip()
        if self.peek() != "]":
            while True:
                self.skip()
                ds = self.pos
                while not self.at_end() and self.s[self.pos].isdigit():
                    self.pos += 1
                if ds == self.pos:
                    self.fail("negative dimension" if self.peek() == "-" else "expected a dimension")
                t.shape.append(int(self.s[ds:self.pos]))
                self.skip()
                if self.peek() == ",":
                    self.pos += 1
                    continue
                if self.peek() == "]":
                    break
                self.fail("missing ']'" if self.at_end() else "expected ',' or ']'")
        self.pos += 1  # ']'
        self.skip()
        if self.peek() == "=":
            self.pos += 1
            self.skip()
            fs = self.pos
            fill = self.word()
            if fill not in FILLS:
                self.fail(f"unknown fill '{fill}'", fs)
            t.fill = fill
            if fill in ("full", "values"):
                if self.peek() != ":":
                    self.fail(f"expected ':' and a value after '{fill}'")
                self.pos += 1
                while True:
                    _, d = self.number()
                    if fill == "full":
                        t.fill_value = d
                        break
                    t.values.append(d)
                    if self.peek() != ",":
                        break
                    self.pos += 1
                if fill == "values" and len(t.values) != math.prod(t.shape):
                    self.fail(f"{len(t.values)} values given for a shape of "
                              f"{math.prod(t.shape)} elements", fs)
        return t


def parse_set(text) -> List[Value]:
    """The arguments of one SET string."""
    return _Parser(text).parse()


def canonical(text) -> str:
    """The SET string as InputSet::toString() writes it."""
    return "; ".join(str(v) for v in parse_set(text))


def create_value(v: Value):
    """Create one argument (consumes the global RNG as the contract says)."""
    if v.kind == "int" or v.kind == "float" or v.kind == "bool":
        return v.scalar
    if v.kind == "none":
        return None
    if v.kind == "tuple":
        return tuple(create_value(i) for i in v.items)
    if v.kind == "list":
        return [create_value(i) for i in v.items]
    if v.kind == "dict":
        return {k: create_value(i) for k, i in zip(v.keys, v.items)}
    dt = DTYPES[v.dtype]
    shape = tuple(v.shape)
    floating = v.dtype in ("f32", "f64")
    low_float = v.dtype in ("f16", "bf16")
    if v.fill == "rand":
        if floating:
            return torch.rand(shape, dtype=dt)
        if low_float:
            return torch.rand(shape, dtype=torch.float32).to(dt)
        if v.dtype == "bool":
            return torch.rand(shape) < 0.5
        return torch.randint(0, 10, shape, dtype=dt)
    if v.fill == "randn":
        if floating:
            return torch.randn(shape, dtype=dt)
        if low_float:
            return torch.randn(shape, dtype=torch.float32).to(dt)
        if v.dtype == "bool":
            return torch.randn(shape) > 0
        if v.dtype == "u8":
            return torch.randint(0, 10, shape, dtype=dt)
        return torch.randint(-10, 10, shape, dtype=dt)
    if v.fill == "zeros":
        return torch.zeros(shape, dtype=dt)
    if v.fill == "ones":
        return torch.ones(shape, dtype=dt)
    if v.fill == "full":
        return torch.full(shape, v.fill_value, dtype=dt)
    if v.fill == "arange":
        a = torch.arange(math.prod(shape), dtype=torch.int64).reshape(shape)
        return (a % 2) == 1 if v.dtype == "bool" else a.to(dt)
    if v.fill == "values":
        return torch.tensor(v.values, dtype=torch.float64).reshape(shape).to(dt)
    raise ValueError(v.fill)


def create_set(text, seed=0) -> tuple:
    """torch.manual_seed(seed), then the arguments of `text` left to right."""
    args = parse_set(text)
    torch.manual_seed(seed)
    return tuple(create_value(a) for a in args)


if __name__ == "__main__":
    import sys
    for s in sys.argv[1:]:
        print(canonical(s), "->", create_set(s))


# TorchScript's own deprecation notices (torch 2.11+: "`torch.jit.trace` is deprecated. Please switch to
# `torch.compile` or `torch.export`.", also for script, save, load, trace_method, script_method; "not supported in
# Python 3.14+" there). They say nothing about the user's model: fixtures leave them out, as JitScope's executor
# raises none (the bridge reports them once per run, apart).
_TORCHSCRIPT_APIS = ("`torch.jit.trace`", "`torch.jit.script`", "`torch.jit.save`", "`torch.jit.load`",
                     "`torch.jit.trace_method`", "`torch.jit.script_method`")


def is_torchscript_deprecation(category, message):
    name = category if isinstance(category, str) else category.__name__
    text = str(message)
    return name in ("FutureWarning", "DeprecationWarning") and text.startswith(_TORCHSCRIPT_APIS) and (
        " is deprecated. Please switch to " in text or " is not supported in Python 3.14+" in text)
