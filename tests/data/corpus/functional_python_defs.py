import torch
import torch.nn.functional as F


# F.relu / F.softmax are Python functions in torch.nn.functional (not builtins),
# so scripting them emits prim::CallFunction to __torch__.torch.nn.functional.*.
def functional_python_defs(x):
    return F.softmax(F.relu(x), dim=-1)


def dropout_eval(x, p: float = 0.5):
    return F.dropout(x, p, training=False)


inputs = (torch.randn(2, 5),)
check_inputs = [(torch.randn(3, 2),)]
