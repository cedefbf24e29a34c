"""Small torch.nn.Modules used by generate.py to produce the archive fixtures.

Every builder returns a ScriptModule (scripted or traced) ready for
torch.jit.save. Layer sizes are tiny so that archives stay far below 200 KB.
Builders are deterministic as long as torch.manual_seed(0) is called first.
"""
from typing import Dict, Final, List, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


class ConvBlock(nn.Module):
    """Conv2d + BatchNorm2d + Linear inside a Sequential inside a module."""

    def __init__(self):
        super().__init__()
        self.layer1 = nn.Sequential(
            nn.Conv2d(3, 4, kernel_size=3, padding=1),
            nn.BatchNorm2d(4),
            nn.ReLU(),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(4, 2)

    def forward(self, x: Tensor) -> Tensor:
        x = self.layer1(x)
        x = self.pool(x)
        x = torch.flatten(x, 1)
        return self.fc(x)


class FinalConst(nn.Module):
    """Module with Final[int] / Final[float] constants."""

    repeats: Final[int] = 3
    scale: Final[float] = 0.5

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x: Tensor) -> Tensor:
        for _ in range(self.repeats):
            x = self.lin(x) * self.scale
        return x


class DictAttr(nn.Module):
    """Module with typed Dict[str, Tensor] and Dict[str, int] attributes."""

    tables: Dict[str, Tensor]
    sizes: Dict[str, int]

    def __init__(self):
        super().__init__()
        self.tables = {"a": torch.ones(2, 3), "b": torch.arange(6).reshape(2, 3).float()}
        self.sizes = {"a": 2, "b": 3}
        self.names: List[str] = ["a", "b"]
        self.offset = 1.5

    def forward(self, key: str, x: Tensor) -> Tensor:
        t = self.tables[key]
        n = self.sizes[key]
        return x * t + float(n) + self.offset


class ExportMethod(nn.Module):
    """Module with an extra @torch.jit.export method called from forward."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(3, 3))
        self.register_buffer("mean", torch.zeros(3))

    @torch.jit.export
    def normalize(self, x: Tensor) -> Tensor:
        return (x - self.mean) / (x.std() + 1e-5)

    @torch.jit.export
    def describe(self, x: Tensor) -> Tuple[int, List[int]]:
        return x.dim(), x.shape

    def forward(self, x: Tensor) -> Tensor:
        return self.normalize(x) @ self.weight


class ModuleListLoop(nn.Module):
    """forward calls submodules of a ModuleList in a loop."""

    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
        self.act = nn.Tanh()

    def forward(self, x: Tensor) -> Tensor:
        for layer in self.layers:
            x = self.act(layer(x))
        return x


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(self.lin(x))


class Nested(nn.Module):
    """Small nested module; traced, not scripted."""

    def __init__(self):
        super().__init__()
        self.inner = Inner()
        self.out = nn.Linear(3, 2)

    def forward(self, x: Tensor) -> Tensor:
        h = self.inner(x)
        if x.sum() > 0:  # data-dependent branch: the trace bakes one side in
            h = h * 2
        return self.out(h)


def scaled_residual(x: Tensor, y: Tensor) -> Tensor:
    z = x * 0.5 + y
    return torch.cat([z, x], dim=1)


# torch.jit.trace(scaled_residual, ...) is stored here by build_traced_fn_wrapper()
# so that TracedFnWrapper.forward resolves it as a global ScriptFunction.
traced_scaled_residual = None


class TracedFnWrapper(nn.Module):
    """Wrapper that lets a traced free function be saved with torch.jit.save."""

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        return traced_scaled_residual(x, y)


def build_conv_block():
    return torch.jit.script(ConvBlock().eval())


def build_final_const():
    return torch.jit.script(FinalConst())


def build_dict_attr():
    return torch.jit.script(DictAttr())


def build_export_method():
    return torch.jit.script(ExportMethod())


def build_module_list_loop():
    return torch.jit.script(ModuleListLoop())


def build_traced_nested():
    m = Nested().eval()
    example = torch.rand(2, 4)
    return torch.jit.trace(m, (example,), check_trace=False)


def build_traced_fn_wrapper():
    global traced_scaled_residual
    example = (torch.rand(2, 3), torch.rand(2, 3))
    traced_scaled_residual = torch.jit.trace(scaled_residual, example)
    return torch.jit.script(TracedFnWrapper())


# name -> (builder, example inputs for a smoke run of the loaded archive)
ARCHIVES = {
    "conv_block": (build_conv_block, lambda: (torch.rand(1, 3, 5, 5),)),
    "final_const": (build_final_const, lambda: (torch.rand(2, 4),)),
    "dict_attr": (build_dict_attr, lambda: ("a", torch.rand(2, 3))),
    "export_method": (build_export_method, lambda: (torch.rand(2, 3),)),
    "module_list_loop": (build_module_list_loop, lambda: (torch.rand(2, 4),)),
    "traced_nested": (build_traced_nested, lambda: (torch.rand(2, 4),)),
    "traced_fn_wrapper": (build_traced_fn_wrapper, lambda: (torch.rand(2, 3), torch.rand(2, 3))),
}


# --------------------------------------------------------------------------
# Modules used only by generate_traces.py (tests/oracle/trace_cases.py): it traces
# the eager module and saves torch.jit.script of it. Keep new classes below this
# line: inserting lines above would shift the source ranges stored in the
# archives that generate.py builds.


class ShapeBranch(nn.Module):
    """forward branches on x.dim() / x.shape (tracing bakes one branch in)."""

    def __init__(self, features: int = 4):
        super().__init__()
        self.proj = nn.Linear(features, features)

    def forward(self, x: Tensor) -> Tensor:
        if x.dim() == 3:
            b, t, f = x.shape
            return self.proj(x.reshape(b * t, f)).reshape(b, t, f)
        if x.shape[0] > 2:
            return self.proj(x[:2])
        return self.proj(x)


class BufferScale(nn.Module):
    """Buffers read in forward, around a Sequential of Linear + ReLU."""

    def __init__(self, features: int = 3):
        super().__init__()
        self.register_buffer("shift", torch.arange(features, dtype=torch.float32))
        self.register_buffer("count", torch.ones((), dtype=torch.int64))
        self.body = nn.Sequential(nn.Linear(features, features), nn.ReLU())

    def forward(self, x: Tensor) -> Tensor:
        y = self.body(x - self.shift)
        return y * (self.count + 1)


class DenseResidual(nn.Module):
    """What makes module graphs hard to lay out: one ReLU called twice (ResNet), a list of features that each
    layer appends to and the next one concatenates (DenseNet), and an if on a bool attribute whose result later
    code uses (MobileNet's use_res_connect)."""

    def __init__(self, features: int = 2, layers: int = 3):
        super().__init__()
        self.relu = nn.ReLU()
        self.layers = nn.ModuleList(
            [nn.Linear(features * (i + 1), features) for i in range(layers)])
        self.use_res = True
        self.out = nn.Linear(features * (layers + 1), features)

    def forward(self, x: Tensor) -> Tensor:
        h = self.relu(x)
        features = [h]
        for layer in self.layers:
            features.append(layer(torch.cat(features, 1)))
        y = self.out(torch.cat(features, 1))
        if self.use_res:
            y = y + x
        else:
            y = y * 2
        return self.relu(y)


class ArangeOfSize(nn.Module):
    """A size handed to torch.arange: traced, the archive's code is `n = ops.prim.NumToTensor(torch.size(x, 0))`
    and `torch.arange(annotate(number, n))`."""

    def forward(self, x: Tensor) -> Tensor:
        n = x.shape[0]
        return x.sum(1) + torch.arange(n)


class TracedArangeOfSize(nn.Module):
    """ArangeOfSize as a submodule, for an archive made by torch.jit.trace (the case of det_traced.pt: JitScope's
    re-trace recorded the size's tensor as a constant after the arange using it, in the submodule's scope, and the
    tracer's cleanup passes asserted)."""

    def __init__(self):
        super().__init__()
        self.inner = ArangeOfSize()

    def forward(self, x: Tensor) -> Tensor:
        return self.inner(x)


class StepCell(nn.Module):
    """One recurrent step: a Linear over [x_t, h]."""

    def __init__(self, features: int = 4):
        super().__init__()
        self.mix = nn.Linear(2 * features, features)

    def forward(self, x: Tensor, h: Tensor) -> Tensor:
        return torch.tanh(self.mix(torch.cat([x, h], 1)))


class StepEncoder(nn.Module):
    """A recurrent encoder as sequence models write it: a cell stepped over the time axis, x.size(1)."""

    def __init__(self, features: int = 4):
        super().__init__()
        self.cell = StepCell(features)

    def forward(self, x: Tensor) -> Tensor:
        h = torch.zeros(x.size(0), x.size(2))
        for t in range(x.size(1)):
            h = self.cell(x[:, t], h)
        return h


class Seq2Vec(nn.Module):
    """An encoder and a head: the loop a trace unrolls sits one module down, its steps two."""

    def __init__(self, features: int = 4):
        super().__init__()
        self.encoder = StepEncoder(features)
        self.head = nn.Linear(features, 2)

    def forward(self, x: Tensor) -> Tensor:
        return self.head(self.encoder(x))


class OverloadedLayer(nn.Module):
    """forward overloaded as torchvision's _DenseLayer is: TorchScript compiles forward__0 and forward__1, and a
    trace still records each call as the layer's forward."""

    def __init__(self, features: int = 4):
        super().__init__()
        self.lin = nn.Linear(features, features)

    @torch.jit._overload_method  # noqa: F811
    def forward(self, x: List[Tensor]) -> Tensor:  # noqa: F811
        pass

    @torch.jit._overload_method  # noqa: F811
    def forward(self, x: Tensor) -> Tensor:  # noqa: F811
        pass

    def forward(self, x):  # noqa: F811
        if isinstance(x, Tensor):
            xs = [x]
        else:
            xs = x
        return self.lin(torch.cat(xs, 1))


class OverloadedCalls(nn.Module):
    """Calls an overloaded forward with a list, as densenet's _DenseBlock calls its layers."""

    def __init__(self, features: int = 4):
        super().__init__()
        self.layer = OverloadedLayer(2 * features)

    def forward(self, x: Tensor) -> Tensor:
        return self.layer([x, x]).relu()


class SelfAttention(nn.Module):
    """nn.MultiheadAttention as ViT's encoder blocks call it: traced, its head_dim is embed_dim.div(num_heads,
    rounding_mode='trunc') of a traced size (Python's isinstance(embed_dim, torch.Tensor) branch), which the
    scripted archive's `embed_dim // num_heads` no longer shows."""

    def __init__(self, features: int = 8, heads: int = 2):
        super().__init__()
        self.attn = nn.MultiheadAttention(features, heads, batch_first=True)

    def forward(self, x: Tensor) -> Tensor:
        y, _ = self.attn(x, x, x, need_weights=False)
        return y
