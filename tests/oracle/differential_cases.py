"""The tensor-API families of tests/oracle/gen_differential.py (unary to control): input sets and templates.

Each family is a function returning its candidates, made with fn(name, params, body lines, sets); the generator
(gen_differential.py, which lists all families in FAMILIES) keeps those torch.jit.script compiles. Changing a
template changes the committed fixtures in tests/data/differential: regenerate them with the generator.
"""


# --------------------------------------------------------------------------
# input sets

F2 = ["f32[2,3]", "f64[4,5]", "f32[3,3]"]
F2N = ["f32[2,3]=randn", "f64[4,5]=randn", "f32[3,3]=randn"]
FANY = ["f32[2,3]", "f64[5]", "f32[2,3,4]"]
FANYN = ["f32[2,3]=randn", "f64[5]=randn", "f32[2,3,4]=randn"]
F3 = ["f32[2,3,4]", "f64[3,2,5]", "f32[1,4,2]"]
INTS = ["i64[2,3]=randn", "i32[4]=randn", "i64[3,3]=randn"]
POS = ["f32[2,3]=full:2", "f64[4,5]", "f32[3,3]=ones"]
BIN_SAME = ["f32[2,3]; f32[2,3]", "f64[4,5]; f64[4,5]", "f32[3,1]; f32[3,1]"]
BIN_SAMEN = ["f32[2,3]=randn; f32[2,3]=randn", "f64[4,5]=randn; f64[4,5]=randn", "f32[3,1]=randn; f32[3,1]=randn"]
BIN_BCAST = ["f32[2,3]; f32[3]", "f64[4,5]; f64[5]", "f32[3,1]; f32[1]"]
BIN_MIXED = ["f32[2,3]; f64[2,3]", "i64[2,3]; f32[2,3]", "f64[3]; i32[3]"]
BIN_INT = ["i64[2,3]=randn; i64[2,3]=randn", "i32[4]=randn; i32[4]=randn"]


def sets_for(kind):
    return {
        "f2": F2, "f2n": F2N, "fany": FANY, "fanyn": FANYN, "f3": F3, "ints": INTS, "pos": POS,
        "same": BIN_SAME, "samen": BIN_SAMEN, "bcast": BIN_BCAST, "mixed": BIN_MIXED, "bint": BIN_INT,
    }[kind]


# --------------------------------------------------------------------------
# families: each a list of (name, params, body lines, sets)


def fn(name, params, body, sets):
    if isinstance(body, str):
        body = [body]
    if isinstance(sets, str):
        sets = sets_for(sets)
    return {"name": name, "params": params, "body": body, "sets": list(sets)}


def unary():
    out = []
    ops = ["abs", "neg", "exp", "sin", "cos", "tanh", "sigmoid", "relu", "floor", "ceil", "round", "sign",
           "square", "erf", "expm1", "trunc", "frac", "atan", "asinh", "sinh", "cosh", "log1p", "exp2",
           "deg2rad", "rad2deg", "nan_to_num", "isnan", "isfinite", "logical_not", "signbit"]
    for op in ops:
        out.append(fn(f"torch_{op}", "x", f"return torch.{op}(x)", "fanyn"))
        out.append(fn(f"method_{op}", "x", f"return x.{op}()", "fanyn"))
    for op in ["sqrt", "rsqrt", "log", "log2", "log10", "reciprocal", "lgamma", "digamma"]:
        out.append(fn(f"torch_{op}", "x", f"return torch.{op}(x)", "pos"))
        out.append(fn(f"method_{op}", "x", f"return x.{op}()", "pos"))
    for op in ["abs", "neg", "sign", "square", "bitwise_not"]:
        out.append(fn(f"int_{op}", "x", f"return torch.{op}(x)", "ints"))
    clamps = [("clamp_min", "x.clamp(min=0.2)"), ("clamp_max", "x.clamp(max=0.5)"),
              ("clamp_both", "torch.clamp(x, 0.1, 0.6)"), ("clip", "x.clip(-0.5, 0.5)"),
              ("clamp_int", "x.clamp(-3, 3)")]
    for name, expr in clamps:
        out.append(fn(name, "x", f"return {expr}", "fanyn"))
    funcs = [("softmax_last", "torch.softmax(x, -1)"), ("log_softmax_0", "torch.log_softmax(x, 0)"),
             ("F_relu", "F.relu(x)"), ("F_gelu", "F.gelu(x)"), ("F_silu", "F.silu(x)"),
             ("F_leaky_relu", "F.leaky_relu(x, 0.1)"), ("F_elu", "F.elu(x)"), ("F_softplus", "F.softplus(x)"),
             ("F_hardtanh", "F.hardtanh(x)"), ("F_softmax_dim1", "F.softmax(x, dim=-1)"),
             ("F_normalize", "F.normalize(x, dim=-1)"), ("F_dropout_eval", "F.dropout(x, 0.5, False)"),
             ("F_tanhshrink", "F.tanhshrink(x)"), ("F_mish", "F.mish(x)"), ("F_hardswish", "F.hardswish(x)"),
             ("pow_2", "x.pow(2)"), ("pow_half", "torch.pow(x.abs(), 0.5)"), ("mul_self", "x * x"),
             ("unary_minus", "-x"), ("unary_plus_abs", "+x.abs()")]
    for name, expr in funcs:
        out.append(fn(name, "x", f"return {expr}", "fanyn"))
    return out


def binary():
    out = []
    ops = ["add", "sub", "mul", "div", "maximum", "minimum", "atan2", "fmod", "remainder", "eq", "ne", "lt",
           "le", "gt", "ge", "hypot", "logaddexp", "copysign", "fmax", "fmin", "xlogy", "floor_divide"]
    for op in ops:
        out.append(fn(f"torch_{op}", "x, y", f"return torch.{op}(x, y)", "samen"))
        out.append(fn(f"bcast_{op}", "x, y", f"return torch.{op}(x, y)", "bcast"))
    for op in ["add", "sub", "mul", "div", "eq", "lt", "maximum"]:
        out.append(fn(f"mixed_{op}", "x, y", f"return torch.{op}(x, y)", "mixed"))
        out.append(fn(f"method_{op}", "x, y", f"return x.{op}(y)", "same"))
    symbols = [("plus", "+"), ("minus", "-"), ("times", "*"), ("over", "/"), ("power", "**"),
               ("floordiv", "//"), ("mod", "%"), ("less", "<"), ("greater_eq", ">="), ("equal", "==")]
    for name, sym in symbols:
        out.append(fn(f"op_{name}", "x, y", f"return x {sym} y", "same"))
        out.append(fn(f"op_{name}_number", "x", f"return x {sym} 2", "fanyn"))
        out.append(fn(f"op_number_{name}", "x", f"return 3 {sym} x", "pos"))
        out.append(fn(f"op_{name}_float", "x", f"return x {sym} 0.5", "fanyn"))
    for name, sym in [("and", "&"), ("or", "|"), ("xor", "^")]:
        out.append(fn(f"bits_{name}", "x, y", f"return x {sym} y", "bint"))
    out += [
        fn("add_alpha", "x, y", "return torch.add(x, y, alpha=2)", "same"),
        fn("sub_alpha", "x, y", "return x.sub(y, alpha=0.5)", "same"),
        fn("where_gt", "x, y", "return torch.where(x > y, x, y)", "samen"),
        fn("where_scalar", "x", "return torch.where(x > 0, x, torch.zeros_like(x))", "fanyn"),
        fn("lerp", "x, y", "return torch.lerp(x, y, 0.3)", "same"),
        fn("dist", "x, y", "return torch.dist(x, y)", "same"),
        fn("matmul", "x, y", "return torch.matmul(x, y.t())", "same"),
        fn("mm_square", "x", "return x.t() @ x", "f2"),
        fn("addcmul", "x, y", "return torch.addcmul(x, x, y, value=0.5)", "same"),
        fn("logical_and", "x, y", "return torch.logical_and(x > 0, y > 0)", "samen"),
        fn("isclose", "x, y", "return torch.isclose(x, y)", "same"),
        fn("max_pair", "x, y", "return torch.max(x, y)", "samen"),
    ]
    return out


def reductions():
    out = []
    for op in ["sum", "mean", "prod", "amax", "amin", "std", "var", "logsumexp", "norm", "nansum"]:
        if op not in ("logsumexp", "amax", "amin"):
            out.append(fn(f"{op}_all", "x", f"return x.{op}()", "fanyn"))
        out.append(fn(f"{op}_dim0", "x", f"return torch.{op}(x, 0)", "fanyn"))
        out.append(fn(f"{op}_last_keep", "x", f"return x.{op}(-1, keepdim=True)", "fanyn"))
    for op in ["max", "min", "median", "mode"]:
        out.append(fn(f"{op}_all", "x", f"return x.{op}()" if op != "mode" else "return x.mode()[0]", "fanyn"))
        out.append(fn(f"{op}_dim", "x", [f"v, i = torch.{op}(x, -1)", "return v, i"], "fanyn"))
        out.append(fn(f"{op}_dim_values", "x", f"return x.{op}(0)[0]", "fanyn"))
    for op in ["argmax", "argmin"]:
        out.append(fn(f"{op}_all", "x", f"return x.{op}()", "fanyn"))
        out.append(fn(f"{op}_dim", "x", f"return torch.{op}(x, dim=-1, keepdim=True)", "fanyn"))
    for op in ["cumsum", "cumprod", "cummax", "logcumsumexp"]:
        expr = f"torch.{op}(x, 0)" + ("[0]" if op == "cummax" else "")
        out.append(fn(f"{op}_0", "x", f"return {expr}", "fanyn"))
    out += [
        fn("all_positive", "x", "return (x > 0).all()", "fanyn"),
        fn("any_positive_dim", "x", "return (x > 0).any(0)", "fanyn"),
        fn("count_nonzero", "x", "return torch.count_nonzero(x > 0.5)", "fanyn"),
        fn("sum_dtype", "x", "return x.sum(dtype=torch.float64)", "fanyn"),
        fn("sum_int", "x", "return x.sum()", "ints"),
        fn("mean_dims", "x", "return x.mean([0, 1])", "f3"),
        fn("sum_dims_keep", "x", "return x.sum((0, 2), keepdim=True)", "f3"),
        fn("std_unbiased", "x", "return x.std(0, unbiased=False)", "fanyn"),
        fn("var_mean", "x", "return torch.var_mean(x, 0)", "fanyn"),
        fn("std_mean", "x", "return torch.std_mean(x)", "fanyn"),
        fn("aminmax", "x", "return torch.aminmax(x)", "fanyn"),
        fn("topk_2", "x", "return x.topk(2)[0]", "f2"),
        fn("sort_last", "x", "return torch.sort(x, -1)[0]", "fanyn"),
        fn("argsort", "x", "return x.argsort(0, descending=True)", "fanyn"),
        fn("kthvalue", "x", "return torch.kthvalue(x, 1, 0)[0]", "fanyn"),
        fn("norm_p1", "x", "return x.norm(p=1)", "fanyn"),
        fn("frobenius", "x", "return torch.linalg.norm(x)", "fanyn"),
        fn("sum_of_squares", "x", "return (x * x).sum(-1).sqrt()", "fanyn"),
        fn("mean_then_sub", "x", "return x - x.mean(0, keepdim=True)", "fanyn"),
        fn("softmax_sum", "x", "return torch.softmax(x, -1).sum(-1)", "fanyn"),
    ]
    return out


def shapes():
    out = []
    exprs = [
        ("view_flat", "x.view(-1)", "fany"), ("reshape_flat", "x.reshape(-1)", "fany"),
        ("flatten", "torch.flatten(x)", "fany"), ("flatten_1", "x.flatten(1)", "f3"),
        ("view_rows", "x.view(x.size(0), -1)", "fany"), ("reshape_rows", "x.reshape(x.shape[0], -1)", "fany"),
        ("transpose", "x.transpose(0, 1)", "f3"), ("transpose_neg", "x.transpose(-1, -2)", "f3"),
        ("t", "x.t()", "f2"), ("permute", "x.permute(2, 0, 1)", "f3"), ("mT", "x.mT", "f3"),
        ("unsqueeze_0", "x.unsqueeze(0)", "fany"), ("unsqueeze_last", "torch.unsqueeze(x, -1)", "fany"),
        ("squeeze", "x.unsqueeze(1).squeeze()", "fany"), ("squeeze_dim", "x.unsqueeze(0).squeeze(0)", "fany"),
        ("expand", "x.unsqueeze(0).expand(2, -1, -1)", "f2"), ("expand_as", "x[0].expand_as(x)", "f2"),
        ("repeat", "x.repeat(2, 1)", "f2"), ("flip", "torch.flip(x, [0])", "fany"), ("roll", "x.roll(1, 0)", "fany"),
        ("narrow", "x.narrow(0, 0, 1)", "fany"), ("narrow_size", "x.narrow(-1, 1, x.size(-1) - 1)", "f2"),
        ("contiguous_t", "x.t().contiguous()", "f2"), ("view_as", "x.view(-1).view_as(x)", "fany"),
        ("reshape_as", "x.flatten().reshape_as(x)", "fany"), ("movedim", "torch.movedim(x, 0, -1)", "f3"),
        ("tril", "torch.tril(x)", "f2"), ("triu_1", "x.triu(1)", "f2"), ("diag", "torch.diagonal(x)", "f2"),
        ("swapaxes", "x.swapaxes(0, 1)", "f2"), ("unflatten", "x.flatten().unflatten(0, x.shape)", "f2"),
        ("view_shape", "x.view(x.shape)", "fany"), ("reshape_swap", "x.reshape(x.size(1), x.size(0))", "f2"),
        ("view_merge", "x.view(x.size(0) * x.size(1), -1)", "f3"), ("tile", "torch.tile(x, (2,))", "fany"),
        ("broadcast_to", "x.broadcast_to((2,) + x.shape)", "f2"), ("atleast_3d", "torch.atleast_3d(x)", "f2"),
    ]
    for name, expr, sets in exprs:
        out.append(fn(name, "x", f"return {expr}", sets))
    multi = [
        ("chunk_2", ["a, b = x.chunk(2, -1)", "return a.sum() + b.sum()"], "f2"),
        ("chunk_list", ["parts = torch.chunk(x, 3, 0)", "return parts[0]"], "fany"),
        ("split_1", ["parts = x.split(1, 0)", "return parts[-1]"], "fany"),
        ("split_sizes", ["a, b = x.split([1, x.size(1) - 1], 1)", "return b - a"], "f2"),
        ("unbind", ["rows = x.unbind(0)", "return rows[0] + rows[-1]"], "fany"),
        ("stack", "return torch.stack([x, x * 2], 0)", "fany"),
        ("stack_last", "return torch.stack((x, x), -1)", "fany"),
        ("cat_0", "return torch.cat([x, x], 0)", "fany"),
        ("cat_neg", "return torch.cat((x, x + 1), -1)", "fany"),
        ("hstack", "return torch.hstack([x, x])", "fany"),
        ("vstack", "return torch.vstack([x, x])", "fany"),
        ("cat_sizes", ["y = torch.cat([x, x], 0)", "return y.view(2, x.size(0), -1)"], "f2"),
        ("meshgrid", ["a, b = torch.meshgrid(x[0], x[:, 0], indexing='ij')", "return a + b"], "f2"),
        ("unsqueeze_cat", "return torch.cat([x.unsqueeze(0), x.unsqueeze(0)], 0)", "fany"),
        ("split_loop", ["parts = x.split(2, 0)", "return parts[0].sum() * len(parts)"], "fany"),
        ("cat_y", "return torch.cat([x, y], 0)", ["f32[2,3]; f32[1,3]", "f64[1,2]; f64[4,2]"]),
        ("bmm", "return torch.bmm(x, x.transpose(1, 2))", "f3"),
        ("einsum", "return torch.einsum('ij,kj->ik', x, x)", "f2"),
    ]
    for name, body, sets in multi:
        out.append(fn(name, "x, y" if name == "cat_y" else "x", body, sets))
    return out


def indexing():
    out = []
    gets = [
        ("first", "x[0]", "fany"), ("last", "x[-1]", "fany"), ("tail", "x[1:]", "fany"), ("head", "x[:1]", "fany"),
        ("col", "x[:, 0]", "f2"), ("col_last", "x[:, -1]", "f2"), ("ellipsis", "x[..., 1]", "f3"),
        ("none_front", "x[None]", "fany"), ("none_mid", "x[:, None]", "f2"), ("step", "x[::2]", "fany"),
        ("box", "x[1:3, 0:2]", "f2"), ("neg_slice", "x[-2:]", "fany"), ("chain", "x[0][1]", "f2"),
        ("tuple_int", "x[0, 1]", "f2"), ("mask", "x[x > 0.5]", "fany"), ("mask_rows", "x[x[:, 0] > 0.5]", "f2"),
        ("ellipsis_none", "x[..., None]", "fany"), ("slice_size", "x[: x.size(0) // 2]", "fany"),
        ("slice_col_size", "x[:, 1 : x.size(1)]", "f2"), ("select_method", "x.select(0, 1)", "f2"),
        ("index_list", "x[[0, 1]]", "f2"), ("three_d", "x[1:, :, ::2]", "f3"), ("mixed_3d", "x[0, :, 1]", "f3"),
        ("ellipsis_first", "x[..., 0, :]", "f3"), ("neg_step_free", "x[:, :-1]", "f2"),
    ]
    for name, expr, sets in gets:
        out.append(fn(f"get_{name}", "x", f"return {expr}", sets))
    with_index = [
        ("get_tensor_index", "x, i", "return x[i]", ["f32[4,3]; i64[2]=values:0,2", "f64[5]; i64[3]=values:4,0,1"]),
        ("get_scalar_tensor_index", "x, i", "return x[i]", ["f32[4,3]; i64[]=full:1", "f64[5,2]; i64[]=full:3"]),
        ("get_index_select", "x, i", "return x.index_select(0, i)", ["f32[4,3]; i64[2]=values:0,2", "f64[5]; i64[3]=values:4,0,1"]),
        ("get_gather", "x, i", "return x.gather(1, i)", ["f32[2,3]; i64[2,2]=zeros", "f64[3,4]; i64[3,1]=ones"]),
        ("get_take", "x, i", "return torch.take(x, i)", ["f32[2,3]; i64[2]=values:0,5", "f64[3,4]; i64[1]=ones"]),
        ("get_col_tensor", "x, i", "return x[:, i]", ["f32[4,3]; i64[2]=values:0,2", "f64[2,5]; i64[3]=values:4,0,1"]),
    ]
    for name, params, body, sets in with_index:
        out.append(fn(name, params, body, sets))
    sets_ = [
        ("row_number", ["x[0] = 1.0", "return x"], "fany"),
        ("col_number", ["x[:, 1] = 0", "return x"], "f2"),
        ("slice_number", ["x[1:] = 2.5", "return x"], "fany"),
        ("mask_number", ["x[x > 0.5] = 0.0", "return x"], "fany"),
        ("ellipsis_number", ["x[..., 0] = -1.0", "return x"], "f3"),
        ("row_tensor", ["x[0] = x[1]", "return x"], ["f32[2,3]", "f64[3,2]"]),
        ("row_expr", ["x[0] = x[-1] * 2", "return x + 1"], ["f32[2,3]", "f64[4]"]),
        ("clone_then_set", ["y = x.clone()", "y[:, 0] = 5.0", "return y"], "f2"),
        ("augmented_row", ["x[0] += 1", "return x"], "fany"),
        ("augmented_col", ["x[:, 0] *= 2", "return x"], "f2"),
        ("set_two_index", ["x[0, 1] = 3.0", "return x"], "f2"),
        ("masked_fill", "return x.masked_fill(x > 0.5, 0.0)", "fany"),
        ("masked_fill_", ["x.masked_fill_(x < 0.2, 1.0)", "return x"], "fany"),
        ("index_fill", "return x.index_fill(0, torch.tensor([0]), -1.0)", "f2"),
        ("where_set", ["y = torch.where(x > 0.5, x, x * 0)", "return y"], "fany"),
    ]
    for name, body, sets in sets_:
        out.append(fn(f"set_{name}", "x", body, sets))
    set_values = [
        ("set_row_value", "x, v", ["x[0] = v", "return x"], ["f32[3,4]; f32[4]", "f32[2,4]; f32[1,1,4]", "f64[3,2]; f64[1,2]"]),
        ("set_col_value", "x, v", ["x[:, 0] = v", "return x"], ["f32[3,4]; f32[3]", "f32[2,4]; f32[1,2]"]),
        ("set_slice_value", "x, v", ["x[1:] = v", "return x"], ["f32[3,4]; f32[4]", "f32[3,4]; f32[1,1,4]"]),
        ("set_tensor_index", "x, i, v", ["x[i] = v", "return x"],
         ["f32[3,4]; i64[2]=values:0,2; f32[4]", "f32[3,4]; i64[2]=values:1,2; f32[1,1,4]"]),
        ("set_scalar_index", "x, i, v", ["x[i] = v", "return x"],
         ["f32[3,4]; i64[]=full:1; f32[4]", "f32[3,4]; i64[]=full:2; f32[1,4]"]),
        ("set_mask_value", "x, v", ["x[x > 0.5] = v", "return x"], ["f32[3,4]; f32[]", "f64[5]; f64[1]"]),
        ("index_put", "x, i, v", ["return x.index_put((i,), v)"], ["f32[3,4]; i64[2]=values:0,2; f32[4]"]),
        ("index_add", "x, i, v", ["return x.index_add(0, i, v)"], ["f32[3,4]; i64[2]=values:0,2; f32[2,4]"]),
        ("scatter", "x, i, v", ["return x.scatter(1, i, v)"], ["f32[3,4]; i64[3,1]=zeros; f32[3,1]"]),
    ]
    for name, params, body, sets in set_values:
        out.append(fn(name, params, body, sets))
    # 0-dim integer tensors as indices: Python's applySlicing takes them as integers while tracing (aten::Int).
    i0 = ["f32[4,3]; i64[]=full:1", "f64[5,2]; i64[]=full:3", "f32[3,3]; i64[]=full:0"]
    scalar_index = [
        # x[0, i] is left out: PyTorch 1.13's own check of it is not deterministic (sometimes graphs differ across
        # invocations, sometimes alias analysis asserts: "We don't have an op for aten::select").
        ("get_scalar_then_int", "return x[i, 0]"),
        ("get_scalar_chain", "return x[i][0]"), ("get_scalar_slice_start", "return x[i:]"),
        ("get_scalar_slice_end", "return x[:i]"), ("get_scalar_col", "return x[:, i % 2]"),
        ("get_scalar_plus", "return x[i + 1 - 1]"), ("set_scalar_number", ["x[i] = 0.5", "return x"]),
        ("set_scalar_col_number", ["x[:, i % 2] = 2.0", "return x"]), ("set_scalar_then_int", ["x[i, 0] = 1.0", "return x"]),
        ("index_select_scalar", "return x.index_select(0, i.view(1))"), ("set_scalar_augmented", ["x[i] += 1", "return x"]),
    ]
    for name, body in scalar_index:
        out.append(fn(name, "x, i", body, i0))
    masks = ["f32[3,4]; bool[3,4]=randn", "f64[5]; bool[5]=randn"]
    out += [
        fn("get_bool_mask", "x, m", "return x[m]", masks),
        fn("set_bool_mask_number", "x, m", ["x[m] = 0.0", "return x"], masks),
        fn("set_bool_mask_tensor", "x, m", ["x[m] = x[m] * 2", "return x"], masks),
        fn("masked_select", "x, m", "return x.masked_select(m)", masks),
        fn("where_mask", "x, m", "return torch.where(m, x, -x)", masks),
        fn("get_index_pair", "x, i, j", "return x[i, j]",
           ["f32[4,3]; i64[2]=values:0,2; i64[2]=values:1,1", "f64[3,3]; i64[1]=zeros; i64[1]=ones"]),
        fn("set_index_pair", "x, i, j", ["x[i, j] = 7.0", "return x"],
           ["f32[4,3]; i64[2]=values:0,2; i64[2]=values:1,1", "f64[3,3]; i64[1]=zeros; i64[1]=ones"]),
    ]
    return out


def factories():
    out = []
    exprs = [
        ("zeros_size", "torch.zeros(x.size(0), 3)"), ("ones_shape", "torch.ones(x.shape)"),
        ("zeros_like", "torch.zeros_like(x)"), ("ones_like_int", "torch.ones_like(x, dtype=torch.int64)"),
        ("full_like", "torch.full_like(x, 2.5)"), ("empty_like_fill", "torch.empty_like(x).fill_(1.0)"),
        ("arange_size", "torch.arange(x.size(0))"), ("arange_float", "torch.arange(0, 1, 0.25)"),
        ("arange_steps", "torch.arange(1, x.size(-1) + 1, 2)"), ("linspace", "torch.linspace(0, 1, 5)"),
        ("linspace_size", "torch.linspace(0, 1, x.size(0))"), ("eye", "torch.eye(3)"),
        ("eye_size", "torch.eye(x.size(0))"), ("zeros_dtype", "torch.zeros(2, dtype=torch.int64)"),
        ("full", "torch.full((2, 3), 1.5)"), ("full_size", "torch.full((x.size(0),), 7)"),
        ("full_int", "torch.full((2,), 3, dtype=torch.int32)"), ("tensor_floats", "torch.tensor([1.0, 2.0])"),
        ("tensor_ints", "torch.tensor([1, 2, 3])"), ("tensor_bools", "torch.tensor([True, False])"),
        ("tensor_nested", "torch.tensor([[1.0, 2.0], [3.0, 4.0]])"), ("tensor_scalar", "torch.tensor(2.5)"),
        ("tensor_int_scalar", "torch.tensor(4)"), ("tensor_dtype", "torch.tensor([1, 2], dtype=torch.float64)"),
        ("tensor_size", "torch.tensor([x.size(0), x.size(-1)])"), ("tensor_shape", "torch.tensor(x.shape)"),
        ("as_tensor_floats", "torch.as_tensor([0.5, 1.5])"), ("as_tensor_ints", "torch.as_tensor([3, 4])"),
        ("new_zeros", "x.new_zeros(2, 3)"), ("new_zeros_size", "x.new_zeros((x.size(0), 2))"),
        ("new_ones", "x.new_ones(x.shape)"), ("new_full", "x.new_full((2,), 3.0)"),
        ("new_full_size", "x.new_full((x.size(0),), 1)"), ("new_empty_zero", "x.new_empty(3).zero_()"),
        ("new_ones_dtype", "x.new_ones(2, dtype=torch.int64)"), ("zeros_device", "torch.zeros(2, device=x.device)"),
        ("ones_like_device", "torch.ones(x.shape, dtype=x.dtype, device=x.device)"),
        ("full_like_int", "torch.full_like(x, 3, dtype=torch.int64)"), ("scalar_tensor", "torch.scalar_tensor(3.0)"),
        ("zeros_numel", "torch.zeros(x.numel())"), ("ones_dim", "torch.ones(x.dim())"),
        ("empty_zero", "torch.empty(x.size(0)).zero_()"), ("arange_like", "torch.arange(x.numel()).view(x.shape)"),
        ("tril_indices", "torch.tril_indices(3, 3)"), ("zeros_list_size", "torch.zeros([x.size(0), 1])"),
    ]
    for name, expr in exprs:
        out.append(fn(name, "x", f"return {expr}", ["f32[2,3]", "f64[4,5]", "i64[3,1]"]))
    mixed = [
        ("add_tensor_const", "return x + torch.tensor([1.0, 2.0, 3.0])"),
        ("mul_zeros_like", "return x * torch.ones_like(x) + torch.zeros_like(x)"),
        ("arange_plus", "return x + torch.arange(x.size(-1))"),
        ("tensor_size_mul", ["n = torch.tensor([x.size(0)])", "return x * n"]),
        ("full_like_add", "return x + torch.full_like(x, 0.5)"),
        ("new_ones_add", "return x + x.new_ones(x.shape)"),
    ]
    for name, body in mixed:
        out.append(fn(name, "x", body, ["f32[2,3]", "f64[4,3]"]))
    out += [
        fn("rand_like_shape", "x", "return torch.rand_like(x).shape[0] + x", ["f32[2,3]", "f32[4,3]"]),
        fn("randn_size", "x", "return x + torch.randn(x.size(-1)) * 0", ["f32[2,3]", "f64[4,3]"]),
        fn("bernoulli_zero", "x", "return torch.bernoulli(x * 0)", ["f32[2,3]", "f32[4,3]"]),
    ]
    return out


def casts():
    out = []
    methods = ["float", "double", "long", "int", "bool", "half", "short", "byte", "char", "bfloat16"]
    for m in methods:
        out.append(fn(f"method_{m}", "x", f"return x.{m}()", ["f32[2,3]", "i64[4]", "f64[2,2]"]))
    dtypes = ["float64", "float32", "int64", "int32", "bool", "float16", "uint8"]
    for dt in dtypes:
        out.append(fn(f"to_{dt}", "x", f"return x.to(torch.{dt})", ["f32[2,3]", "i64[4]", "f64[2,2]"]))
        out.append(fn(f"to_dtype_kw_{dt}", "x", f"return x.to(dtype=torch.{dt})", ["f32[2,3]", "i32[4]"]))
        out.append(fn(f"type_{dt}", "x", f"return x.type(torch.{dt})", ["f32[2,3]", "i64[4]"]))
    two = [
        ("to_other", "return x.to(y)"), ("to_other_add", "return x.to(y) + y"), ("to_other_dtype", "return x.to(y.dtype)"),
        ("type_as", "return x.type_as(y)"), ("to_device_of", "return x.to(y.device)"),
        ("to_other_copy", "return x.to(y, copy=True)"), ("to_device_dtype", "return x.to(y.device, y.dtype)"),
        ("to_dtype_of_sum", "return x.to(y.dtype).sum() + y.sum()"), ("zeros_like_other", "return torch.zeros_like(x, dtype=y.dtype)"),
        ("mul_promotes", "return x * y"), ("where_promotes", "return torch.where(x > 0.5, x, y)"),
        ("to_other_view", "return x.to(y).view(-1)"),
    ]
    pairs = ["f32[2,3]; f64[3]", "f32[2,3]; f32[4]", "i64[3]; f32[1]", "f64[2]; i32[2]"]
    for name, body in two:
        out.append(fn(name, "x, y", body, pairs))
    one = [
        ("to_cpu", "return x.to('cpu')"), ("to_device_self", "return x.to(x.device)"),
        ("to_self_dtype", "return x.to(x.dtype) + 1"), ("cpu", "return x.cpu()"),
        ("to_copy", "return x.to(torch.float64, copy=True)"), ("float_then_long", "return x.float().long()"),
        ("detach", "return x.detach() * 2"), ("clone", "return x.clone() + x"),
        ("contiguous", "return x.contiguous()"), ("to_dtype_nonblocking", "return x.to(torch.float64, True)"),
        ("bool_sum", "return x.bool().sum()"), ("long_div", "return x.long() / 2"),
        ("int_floordiv", "return x.int() // 2"), ("half_float", "return x.half().float()"),
        ("is_floating_point", "return x.is_floating_point()"), ("view_dtype", "return x.float().view(torch.int32)"),
    ]
    for name, body in one:
        out.append(fn(name, "x", body, ["f32[2,3]", "i64[4]", "f64[2,2]"]))
    return out


def inplace():
    out = []
    unary = [("relu", "relu_()"), ("sigmoid", "sigmoid_()"), ("tanh", "tanh_()"), ("exp", "exp_()"),
             ("neg", "neg_()"), ("abs", "abs_()"), ("floor", "floor_()"), ("ceil", "ceil_()"), ("zero", "zero_()"),
             ("sin", "sin_()"), ("sqrt", "sqrt_()"), ("clamp", "clamp_(0.2, 0.8)"), ("clamp_min", "clamp_(min=0.3)"),
             ("fill", "fill_(2.0)"), ("add_number", "add_(1)"), ("mul_number", "mul_(2)"), ("sub_float", "sub_(0.5)"),
             ("div_number", "div_(2)"), ("pow", "pow_(2)"), ("masked_fill", "masked_fill_(x > 0.5, 0)"),
             ("clamp_max", "clamp_max_(0.4)"), ("round", "round_()"), ("uniform_empty", "uniform_(0, 0).add_(1)")]
    for slug, call in unary:
        out.append(fn(f"on_input_{slug}", "x", [f"x.{call}", "return x"], ["f32[2,3]", "f64[4]", "f32[3,1,2]"]))
        out.append(fn(f"on_clone_{slug}", "x", ["y = x.clone()", f"y.{call}", "return y + x"],
                      ["f32[2,3]", "f64[4]"]))
    binary = [("add_", "x.add_(y)"), ("sub_alpha_", "x.sub_(y, alpha=2)"), ("mul_", "x.mul_(y)"),
              ("div_", "x.div_(y + 1)"), ("copy_", "x.copy_(y)"), ("maximum", "torch.maximum(x, y, out=x)"),
              ("addcmul_", "x.addcmul_(y, y)"), ("lerp_", "x.lerp_(y, 0.5)"), ("augmented_add", "x += y"),
              ("augmented_mul", "x *= y"), ("augmented_sub", "x -= y * 2"), ("augmented_div", "x /= 2")]
    for name, stmt in binary:
        out.append(fn(f"binary_{name}", "x, y", [stmt, "return x"], ["f32[2,3]; f32[2,3]", "f64[4]; f64[4]",
                                                                    "f32[3,2]; f32[2]"]))
    out += [
        fn("inplace_on_view", "x", ["x[0].add_(1)", "return x"], ["f32[2,3]", "f64[4,2]"]),
        fn("inplace_on_slice", "x", ["x[:, 1:].mul_(0)", "return x"], ["f32[2,3]", "f64[4,2]"]),
        fn("inplace_chain", "x", ["x.mul_(2).add_(1)", "return x"], ["f32[2,3]", "f64[4]"]),
        fn("inplace_then_use", "x", ["y = x * 1", "y.relu_()", "return y.sum(0)"], ["f32[2,3]=randn", "f64[4]=randn"]),
        fn("inplace_unsqueeze", "x", ["y = x.clone()", "y.unsqueeze_(0)", "return y"], ["f32[2,3]", "f64[4]"]),
        fn("inplace_t", "x", ["y = x.clone()", "y.t_()", "return y"], ["f32[2,3]", "f64[4,2]"]),
        fn("inplace_transpose", "x", ["y = x.clone()", "y.transpose_(0, 1)", "return y"], ["f32[2,3]", "f64[4,2]"]),
        fn("inplace_loop", "x", ["y = torch.zeros_like(x)", "for i in range(3):", "    y.add_(x)", "return y"],
           ["f32[2,3]", "f64[4]"]),
        fn("inplace_index_copy", "x", ["y = torch.zeros(x.size(0), 2)", "y[:, 0].copy_(x[:, 0])", "return y"],
           ["f32[2,3]", "f32[4,2]"]),
    ]
    return out


def numbers():
    out = []
    exprs = [
        ("mul_size", "x * x.size(0)"), ("add_size_div", "x + x.size(1) / 2"), ("div_numel", "x / x.numel()"),
        ("view_product", "x.view(x.size(0) * x.size(1))"), ("reshape_last", "x.reshape(-1, x.shape[-1])"),
        ("zeros_plus_one", "torch.zeros(x.size(0) + 1)"), ("sum_times_float", "x.sum() * 2.0"),
        ("sub_dim", "x - x.dim()"), ("size_floordiv", "x[: x.size(0) // 2 + 1]"), ("neg_size", "x * -x.size(0)"),
        ("size_pow", "x * x.size(0) ** 2"), ("size_mod", "x + x.size(1) % 2"), ("size_sub_number", "x * (x.size(0) - 1)"),
        ("size_rsub", "x * (10 - x.size(0))"), ("size_mul_float", "x * (x.size(0) * 0.5)"),
        ("shape_tuple_sum", "x * (x.shape[0] + x.shape[1])"), ("size_list_view", "x.view(list(x.size()))"),
        ("size_slice_view", "x.view(x.size()[:1] + (-1,))"), ("size_max", "x * max(x.size(0), x.size(1))"),
        ("size_min", "x * min(x.size(0), 2)"), ("size_compare_mul", "x * (x.size(0) > 1)"),
        ("numel_view", "x.view(x.numel())"), ("float_of_sum", "x * float(x.sum())"),
        ("int_of_max", "x + int(x.max())"), ("item", "x * x.sum().item()"), ("item_int", "x + x.argmax().item()"),
        ("len_mul", "x * len(x)"), ("len_arange", "torch.arange(len(x))"), ("dim_mul", "x * x.dim()"),
        ("python_float_add", "x + 1.5"), ("python_int_mul", "x * 3"), ("python_bool_mul", "x * True"),
        ("number_div_tensor", "2.0 / (x + 1)"), ("number_sub_tensor", "1 - x"), ("number_pow_tensor", "2 ** x"),
        ("tensor_div_int", "x / 4"), ("tensor_floordiv_int", "x // 2"), ("tensor_mod_float", "x % 0.3"),
        ("unsqueeze_dim_size", "x.unsqueeze(x.dim())"), ("flatten_start_size", "x.flatten(x.dim() - 1)"),
        ("expand_size", "x[0].expand(x.size(0), x.size(1))"), ("repeat_size", "x.repeat(1, x.size(0))"),
        ("narrow_half", "x.narrow(0, 0, x.size(0) // 2 + 1)"), ("size_float_div", "x.view(-1)[: int(x.numel() / 2)]"),
        ("ones_size_tuple", "torch.ones(x.size())"), ("size_index_neg", "x * x.size(-1)"),
        ("mul_shape_prod", "x.reshape(x.shape[0] * x.shape[1], 1)"), ("topk_size", "x.topk(x.size(-1) - 1)[0]"),
        ("sum_dim_size", "x.sum(x.dim() - 1)"), ("clamp_size", "x.clamp(0, x.size(0))"),
        # int() of a traced size: no node in the script graph (int of an int), Python's Tensor.__int__ bakes it.
        ("int_of_size", "x * int(x.size(0))"), ("int_of_shape_floordiv", "x[: int(x.shape[0] // 2) + 1]"),
        ("int_of_numel", "x.view(-1)[: int(x.numel()) - 1]"),
        # A factory sized by a 0-dim tensor: the tracer records aten::Int of it.
        ("zeros_of_tensor_size", "torch.zeros(torch.tensor(x.size(0)), 1) + 1"),
    ]
    for name, expr in exprs:
        out.append(fn(name, "x", f"return {expr}", ["f32[2,3]", "f64[4,5]", "f32[3,3]"]))
    out += [
        fn("topk_tensor_k", "x, k", "return torch.topk(x, k)[0]", ["f32[5]; i64[]=full:2", "f32[6]; i64[]=full:3"]),
        fn("narrow_tensor_len", "x, k", "return x.narrow(0, 0, k)", ["f32[5]; i64[]=full:2", "f32[6]; i64[]=full:4"]),
        fn("full_tensor_value", "x, v", "return torch.full((2,), v) + x", ["f32[2]; f32[]=full:1.5", "f32[2]; f32[]=full:3"]),
        fn("add_alpha_tensor", "x, a", "return x.add(x, alpha=a)", ["f32[2,3]; f32[]=full:2", "f32[4]; f32[]=full:0.5"]),
        fn("view_tensor_size", "x, n", "return x.view(n, -1)", ["f32[4,3]; i64[]=full:2", "f32[6,2]; i64[]=full:3"]),
        fn("clamp_tensor", "x, m", "return x.clamp(max=float(m))", ["f32[2,3]; f32[]=full:0.5", "f32[4]; f32[]=full:0.2"]),
    ]
    # 0-dim tensors where the schema wants a number: Python's argument parser records aten::Int / Float /
    # ScalarImplicit of them (python_arg_parser.cpp), the trace stays dynamic.
    k2 = ["f32[5,4]; i64[]=full:2", "f32[6,3]; i64[]=full:3", "f64[4,4]; i64[]=full:1"]
    tensor_args = [
        ("zeros_tensor_size", "return torch.zeros(k) + x.sum()"), ("new_zeros_tensor_size", "return x.new_zeros(k)"),
        ("ones_tensor_sizes", "return torch.ones(k, 2)"), ("full_tensor_size", "return torch.full((k,), 1.5)"),
        ("repeat_tensor", "return x.repeat(k, 1)"), ("unsqueeze_tensor_dim", "return x.unsqueeze(k)"),
        ("select_tensor_index", "return x.select(0, k)"), ("roll_tensor", "return x.roll(k, 0)"),
        ("chunk_tensor", "return x.chunk(k, 0)[0]"), ("narrow_tensor_start", "return x.narrow(0, k, 1)"),
        ("sum_tensor_dim", "return x.sum(k - 1)"), ("arange_tensor_end", "return torch.arange(k) * 2"),
        ("topk_tensor_plus", "return x.topk(k + 1)[0]"), ("view_tensor_rows", "return x.view(k, -1)"),
        ("reshape_tensor_times", "return x.reshape(-1, k * 1)"), ("expand_tensor", "return x[:1].expand(k, -1)"),
        ("flatten_tensor_start", "return x.unsqueeze(0).flatten(0, k - 1)"),
        ("transpose_tensor", "return x.transpose(0, k - 1)"),
    ]
    for name, body in tensor_args:
        out.append(fn(name, "x, k", body, k2))
    f1 = ["f32[2,3]=randn; f32[]=full:0.5", "f64[4]=randn; f64[]=full:0.25"]
    float_args = [
        ("leaky_relu_tensor_slope", "return F.leaky_relu(x, float(s))"), ("add_tensor_alpha", "return x.add(x, alpha=s)"),
        ("mul_tensor_scalar", "return x * s"), ("pow_tensor_exponent", "return x.abs().pow(s)"),
        ("clamp_min_tensor", "return x.clamp(min=s)"), ("lerp_tensor_weight", "return torch.lerp(x, x * 2, s)"),
        ("full_like_tensor_value", "return torch.full_like(x, s)"), ("where_tensor_other", "return torch.where(x > 0, x, s)"),
        ("threshold_tensor", "return F.threshold(x, float(s), 0.0)"), ("hardtanh_tensor", "return F.hardtanh(x, -s.item(), 1.0)"),
    ]
    for name, body in float_args:
        out.append(fn(name, "x, s", body, f1))
    return out


def control():
    out = []
    bodies = [
        ("loop_size", ["y = x", "for i in range(x.size(0)):", "    y = y + i", "return y"]),
        ("loop_size_mul", ["y = x.clone()", "for _ in range(x.size(1)):", "    y = y * 2", "return y"]),
        ("loop_rows", ["acc = torch.zeros_like(x[0])", "for row in x:", "    acc = acc + row", "return acc"]),
        ("loop_len", ["s = x.sum() * 0", "for i in range(len(x)):", "    s = s + x[i].sum()", "return s"]),
        ("loop_const", ["y = x", "for i in range(3):", "    y = y * 0.5 + i", "return y"]),
        ("loop_list_stack", ["parts = []", "for i in range(x.size(0)):", "    parts.append(x[i] * i)",
                             "return torch.stack(parts)"]),
        ("loop_nested", ["y = x", "for i in range(x.size(0)):", "    for j in range(2):", "        y = y + i * j",
                         "return y"]),
        ("loop_while_const", ["y = x", "i = 0", "while i < 3:", "    y = y + 1", "    i += 1", "return y"]),
        ("loop_while_data", ["y = x", "while bool(y.sum() < 10):", "    y = y * 2", "return y"]),
        ("loop_break_size", ["y = x", "for i in range(10):", "    if i >= x.size(0):", "        break", "    y = y + 1",
                             "return y"]),
        ("loop_enumerate", ["s = torch.zeros(x.size(1))", "for i, row in enumerate(x):", "    s = s + row * i",
                            "return s"]),
        ("loop_chunks", ["out = x[0] * 0", "for c in x.chunk(2, 0):", "    out = out + c.sum(0)", "return out"]),
        ("loop_unbind", ["out = x[0] * 0", "for c in x.unbind(0):", "    out = out + c", "return out"]),
        ("loop_dim", ["y = x", "for d in range(x.dim()):", "    y = y.sum(0, keepdim=True) + y", "return y"]),
        ("branch_size", ["if x.size(0) > 2:", "    return x * 2", "return x + 1"]),
        ("branch_dim", ["if x.dim() == 2:", "    return x.t()", "return x"]),
        ("branch_data", ["if x.sum() > 3:", "    return x - 1", "return x + 1"]),
        ("branch_data_bool", ["if bool(x.max() > 0.9):", "    return x * 0", "return x"]),
        ("branch_numel", ["if x.numel() > 6:", "    return x.view(-1)[:6]", "return x.view(-1)"]),
        ("branch_shape_eq", ["if x.shape[0] == x.shape[1]:", "    return x @ x", "return x.t() @ x"]),
        ("branch_len", ["if len(x) > 2:", "    return x[:2]", "return x"]),
        ("branch_item", ["if x.mean().item() > 0.5:", "    return x", "return -x"]),
        ("branch_any", ["if (x > 0.95).any():", "    return x.clamp(max=0.95)", "return x"]),
        ("branch_elif", ["if x.size(0) == 2:", "    y = x * 2", "elif x.size(0) == 4:", "    y = x * 4", "else:",
                         "    y = x", "return y"]),
        ("branch_ternary", ["return x * 2 if x.size(1) > 3 else x / 2"]),
        ("branch_and", ["if x.size(0) > 1 and x.size(1) > 1:", "    return x[1:, 1:]", "return x"]),
        ("branch_data_then_loop", ["y = x", "if x.sum() > 2:", "    for i in range(2):", "        y = y + 1",
                                   "return y"]),
        ("loop_data_count", ["n = int((x > 0.5).sum())", "y = x", "for i in range(n):", "    y = y + 1",
                             "return y"]),
        ("branch_inside_loop", ["y = x", "for i in range(x.size(0)):", "    if i % 2 == 0:", "        y = y + 1",
                                "    else:", "        y = y - 1", "return y"]),
        ("loop_index_assign", ["y = torch.zeros_like(x)", "for i in range(x.size(0)):", "    y[i] = x[i] * i",
                               "return y"]),
        ("loop_accumulate_shape", ["n = 0", "for i in range(x.size(0)):", "    n += x.size(1)",
                                   "return x.view(-1)[:n]"]),
        ("loop_size_list", ["sizes = x.size()", "total = 1", "for s in sizes:", "    total = total * s",
                            "return x.reshape(total)"]),
        ("branch_data_nested", ["if x.sum() > 2:", "    if x.max() > 0.8:", "        return x * 3", "    return x * 2",
                                "return x"]),
        ("loop_zip", ["out = x[0] * 0", "for a, b in zip(x, x.flip(0)):", "    out = out + a * b", "return out"]),
        ("loop_cumulative", ["outs = []", "acc = x[0] * 0", "for i in range(x.size(0)):", "    acc = acc + x[i]",
                             "    outs.append(acc)", "return torch.stack(outs, 0)"]),
        ("branch_dtype", ["if x.is_floating_point():", "    return x * 0.5", "return x"]),
    ]
    bodies += [
        ("loop_while_size", ["y = x", "i = 0", "while i < x.size(0):", "    y = y + i", "    i += 1", "return y"]),
        ("loop_comprehension", ["return torch.stack([r * 2 for r in x], 0)"]),
        ("loop_range_step", ["y = x", "for i in range(0, x.size(1), 2):", "    y = y + x[:, i : i + 1]", "return y"]),
        ("loop_reversed_range", ["acc = x[0] * 0", "for i in range(x.size(0) - 1, -1, -1):", "    acc = acc * 2 + x[i]",
                                 "return acc"]),
        ("loop_continue", ["y = x", "for i in range(x.size(0)):", "    if i == 1:", "        continue", "    y = y + i",
                           "return y"]),
        ("loop_list_sum", ["parts = [x[i] for i in range(x.size(0))]", "out = parts[0]", "for p in parts[1:]:",
                           "    out = out + p", "return out"]),
        ("loop_data_while", ["y = x", "n = 0", "while bool(y.max() < 4) and n < 10:", "    y = y * 2", "    n += 1",
                             "return y"]),
        ("branch_size_or", ["if x.size(0) == 1 or x.size(1) == 1:", "    return x.flatten()", "return x.sum(0)"]),
        ("branch_not_data", ["if not bool(x.min() > 0.1):", "    return x + 1", "return x"]),
        ("branch_numel_eq", ["if x.numel() == 6:", "    return x.view(3, 2)", "return x.view(-1)"]),
        ("branch_size_assign", ["n = x.size(0)", "if n > 3:", "    n = 3", "return x[:n]"]),
        ("branch_is_floating", ["if x.dtype == torch.float64:", "    return x.float()", "return x"]),
        ("loop_size_product", ["n = 1", "for d in x.shape:", "    n = n * d", "return x.view(n)"]),
        ("loop_over_sizes_tuple", ["out = x", "for s in (x.size(0), x.size(1)):", "    out = out * s", "return out"]),
        ("loop_split_cat", ["parts = []", "for p in x.split(1, 1):", "    parts.append(p * 2)", "return torch.cat(parts, 1)"]),
        ("branch_item_loop", ["n = int(x.sum().item()) % 3", "y = x", "for i in range(n):", "    y = y + 1", "return y"]),
    ]
    for name, body in bodies:
        out.append(fn(name, "x", body, ["f32[2,3]", "f32[4,5]", "f64[3,3]", "f32[2,4]=full:2"]))
    return out
