# Control flow written as library code writes it, each traced on one shape and checked on another: the runs' Python
# goes different ways at the line marked `# parts:` (with the statement the bridge should name). tst_pythonmodels
# checks that each divergence is explained there, as observed.
import torch


def _match_length(pos, n):
    m = pos.size(0)
    if n == m:  # parts: early-return
        return pos
    return pos.repeat(2)[:n] * 2


def early_return_in_callee(x):
    pos = torch.arange(4.0)
    return x + _match_length(pos, x.size(0))


def _accumulate(x):
    out = x[0]
    for i in range(1, x.size(0)):  # parts: loop
        out = out * x[i]
    return out


def loop_in_helper(x):
    return _accumulate(x.abs() + 1).sum()


def continue_on_size(x):
    out = x.new_zeros(())
    for chunk in x.split(2):
        if chunk.size(0) < 2:  # parts: continue
            continue
        out = out + chunk.prod()
    return out


def guard_before_the_if(x):
    small = x.size(0) < 4
    scale = 2.0
    if small:  # parts: early-return
        return x * scale
    y = x - scale
    return y.relu()


def branch_while_tracing(x):
    if torch.jit.is_tracing():
        n = x.size(0)
    else:
        n = 3
    if n > 3:  # parts: if
        y = x.relu()
    else:
        y = x.sigmoid()
    return y


class Pooler(torch.nn.Module):
    def forward(self, x):
        if x.size(-1) == 1:  # parts: early-return
            return x.flatten(1)
        return torch.nn.functional.adaptive_avg_pool1d(x, 1).flatten(1)


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = Pooler()

    def forward(self, x):
        return self.pool(x) * 2


for fn, example, check in [
    (early_return_in_callee, torch.rand(4), torch.rand(6)),
    (loop_in_helper, torch.rand(3), torch.rand(4)),
    (continue_on_size, torch.rand(4), torch.rand(3)),
    (guard_before_the_if, torch.rand(3), torch.rand(5)),
    (branch_while_tracing, torch.rand(3), torch.rand(5)),
    (Head(), torch.rand(2, 3, 1), torch.rand(2, 3, 4)),
]:
    try:
        torch.jit.trace(fn, (example,), check_inputs=[(check,)])
    except Exception as e:  # noqa: BLE001 (PyTorch's check fails: the point)
        print(type(e).__name__)
