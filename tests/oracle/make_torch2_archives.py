#!/usr/bin/env python3
"""Archives that only torch 2.x writes (issue 28), made with the torch the engine links: for tests, never committed.

    .venv/bin/python tests/oracle/make_torch2_archives.py DIR [NAME ...]

writes into DIR (existing archives are kept), each from real torch.nn / torchvision code with weights=None:
    vit_traced.pt        torchvision's VisionTransformer (the ViT-B/16 code and image size, 1 layer, 2 heads,
                         hidden 16)
                         traced as users export it: its attention records aten::scaled_dot_product_attention
    encoder_scripted.pt  nn.TransformerEncoder of 2 nn.TransformerEncoderLayers (d_model 16, 2 heads), scripted:
                         its code calls SDPA and the native fast path's _transformer_encoder_layer_fwd
    rmsnorm_traced.pt    a linear and nn.RMSNorm (aten::rms_norm), traced
    rmsnorm_scripted.pt  the same, scripted
    encoder_train.pt     the encoder of encoder_scripted, scripted in train mode, as a model exported from a training
                         loop is: its attention drops out (dropout 0.1), so no two runs agree
    NAME.json            for each archive: its two input sets, whether `list` is expected to offer the first (guessed
                         from the parameter the input meets first), and the shapes of what the archive, loaded back with torch.jit.load,
                         returns on that set and on a second one (the oracle of `jitscope-cli check`), and whether two
                         runs of it on the second set differ (`nondeterministic`)

Inputs are made as JitScope makes them (torch.manual_seed(0); torch.rand per set, in argument order).
"""
import json
import os
import sys
import warnings

import torch
import torchvision


class RmsBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(12, 16)
        self.norm = torch.nn.RMSNorm(16)

    def forward(self, x):
        return self.norm(self.proj(x))


def vit():
    return torchvision.models.vision_transformer.VisionTransformer(
        image_size=224, patch_size=16, num_layers=1, num_heads=2, hidden_dim=16, mlp_dim=32, num_classes=10)


def encoder():
    layer = torch.nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, batch_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


# name: (module factory, "trace" or "script", input shapes of set 1 and set 2, whether set 1 is the one JitScope
# guesses from the parameter the input meets first: the encoder's input meets attention's checks and fast path first)
CASES = {
    "vit_traced": (vit, "trace", [[1, 3, 224, 224], [2, 3, 224, 224]], True),
    "encoder_scripted": (encoder, "script", [[1, 5, 16], [2, 7, 16]], False),
    "rmsnorm_traced": (RmsBlock, "trace", [[1, 12], [5, 12]], True),
    "rmsnorm_scripted": (RmsBlock, "script", [[1, 12], [5, 12]], True),
    "encoder_train": (encoder, "script-train", [[1, 5, 16], [2, 7, 16]], False),
}


def make_input(shape):
    torch.manual_seed(0)
    return torch.rand(shape)


def shapes(value):
    if isinstance(value, torch.Tensor):
        return [list(value.shape)]
    if isinstance(value, (tuple, list)):
        return [s for v in value for s in shapes(v)]
    return []


def make(directory, name):
    factory, how, sets, guessed = CASES[name]
    out = os.path.join(directory, name + ".pt")
    if not os.path.exists(out):
        torch.manual_seed(0)
        model = factory().train() if how.endswith("-train") else factory().eval()
        # Traced with autograd on, as most exports are: nn.MultiheadAttention then takes its slow path, which calls
        # scaled_dot_product_attention (need_weights=False); under no_grad it takes _native_multi_head_attention.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exported = (torch.jit.trace(model, make_input(sets[0]), check_trace=False) if how == "trace"
                        else torch.jit.script(model))
            torch.jit.save(exported, out)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        loaded = torch.jit.load(out)
        outputs = [shapes(loaded(make_input(s))) for s in sets]
        # Two runs on one input, the random state carried on (make_input seeds it again).
        x = make_input(sets[1])
        first, second = loaded(x), loaded(x)
        nondeterministic = not torch.equal(first, second) if isinstance(first, torch.Tensor) else False
    kinds = sorted({n.kind() for n in loaded.inlined_graph.nodes() if not n.kind().startswith("prim::")})
    record = {"sets": ["f32[%s]" % ",".join(map(str, s)) for s in sets], "outputs": outputs, "ops": kinds,
              "guessed": guessed, "nondeterministic": nondeterministic, "torch": torch.__version__}
    with open(os.path.join(directory, name + ".json"), "w") as f:
        json.dump(record, f, indent=1)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    for name in sys.argv[2:] or list(CASES):
        make(directory, name)


if __name__ == "__main__":
    main()
