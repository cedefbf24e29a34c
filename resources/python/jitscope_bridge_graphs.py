"""JitScope's Python bridge (jitscope_bridge.py): graphs and values as JSON.

A torch._C.Graph in JitScope's IR snapshot form (IrGraph::toJson in core/ir), numbered the way
core/ir/irsnapshot.cpp numbers a libtorch graph, so that JitScope diffs it like its own; and a runtime value (an
example input, what a trace returned) described: kind, dtype and shape, items of containers.
"""
import os
import re

from jitscope_bridge_places import BRIDGE_FILES


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
        if path in BRIDGE_FILES or any(part in path for part in _NODE_STACK_SKIPS):
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


def _torch():
    import torch
    return torch._C


# ----------------------------------------------------------------------------------------------------------------
# Values


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
