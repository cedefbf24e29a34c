"""Cases for generate_traces.py: what to trace with torch.jit.trace, on which input sets.

A corpus case traces a function of tests/data/corpus/:
    {"name": ..., "source": "corpus/<stem>.py", "function": "<fn>", "sets": [...], "seed": 0}
A module case traces the eager module class <module> of tests/oracle/modules.py, built with
torch.manual_seed(0) then <module>(**ctor) (and .eval() when "eval" is true); the scripted
module is saved to tests/data/archives/<archive> (existing archives are reused, never rewritten):
    {"name": ..., "module": "<class>", "ctor": {...}, "eval": bool, "archive": "archives/<x>.pt",
     "sets": [...]}
Sets use JitScope's SET syntax (tests/oracle/inputsets.py, core/inputs/inputset.h); every set is
created from a fresh torch.manual_seed(seed) ("seed" defaults to 0).
"""

CASES = [
    # ---- the seed examples -------------------------------------------------------------
    {"name": "loop_in_traced_fn", "source": "corpus/loop_in_traced_fn.py",
     "function": "loop_in_traced_fn", "sets": ["f32[3,4,5]", "f32[4,5,6]", "f32[2,3,4]"]},
    {"name": "fill_row_zero", "source": "corpus/fill_row_zero.py", "function": "fill_row_zero",
     "sets": ["f32[3,4]", "f32[5,6]", "f32[2,2]"]},
    {"name": "fill_row_zero_inplace", "source": "corpus/fill_row_zero.py",
     "function": "fill_row_zero_inplace", "sets": ["f32[3,4]", "f32[5,6]", "f32[2,2]"]},
    {"name": "arange_shape", "source": "corpus/arange_shape.py", "function": "arange_shape",
     "sets": ["f32[5,2]", "f32[7,3]", "f32[1,1]"]},
    {"name": "arange_len", "source": "corpus/arange_shape.py", "function": "arange_len",
     "sets": ["f32[5,2]", "f32[7,3]", "f32[1,1]"]},
    {"name": "branch_on_data", "source": "corpus/branch_on_data.py", "function": "branch_on_data",
     "sets": ["f32[3,4]=ones", "f32[3,4]=full:-1", "f32[2,5]"]},
    {"name": "branch_on_data_same_sign", "source": "corpus/branch_on_data.py",
     "function": "branch_on_data", "sets": ["f32[3,4]", "f32[2,5]", "f32[6]=ones"]},

    # ---- loops -------------------------------------------------------------------------
    {"name": "loop_over_size", "source": "corpus/trace_control.py", "function": "loop_over_size",
     "sets": ["f32[3,4]", "f32[5,2]", "f32[1,3]"]},
    {"name": "iterate_rows", "source": "corpus/trace_control.py", "function": "iterate_rows",
     "sets": ["f32[3,2]=randn", "f32[2,4]=randn", "f32[4,2]=randn"]},
    {"name": "nested_loops", "source": "corpus/nested_loops.py", "function": "nested_loops",
     "sets": ["f32[4,3]", "f32[2,2]", "f32[6,1]"]},
    {"name": "pairwise_sum", "source": "corpus/nested_loops.py", "function": "pairwise_sum",
     "sets": ["f32[3,2]", "f32[2,5]", "f32[3,4]"]},
    {"name": "halve_until_small", "source": "corpus/trace_control.py",
     "function": "halve_until_small", "sets": ["f32[2,3]=full:4", "f32[2,3]=full:0.25", "f32[5]"]},
    {"name": "while_tensor_cond", "source": "corpus/while_tensor_cond.py",
     "function": "while_tensor_cond", "sets": ["f32[2,3]=full:4", "f32[3]"]},
    {"name": "list_stack", "source": "corpus/list_stack.py", "function": "list_stack",
     "sets": ["f32[3,4]", "f32[1,2]", "f32[5,5]"]},

    # ---- branches on shapes and data -----------------------------------------------------
    {"name": "dim_branch", "source": "corpus/trace_control.py", "function": "dim_branch",
     "sets": ["f32[2,3]", "f32[4,5]", "f32[2,2,2]"]},
    {"name": "size_branch", "source": "corpus/trace_control.py", "function": "size_branch",
     "sets": ["f32[2,3]", "f32[5,3]", "f32[3,1]"]},
    {"name": "shape_branches", "source": "corpus/shape_branches.py", "function": "shape_branches",
     "sets": ["f32[2,3]", "f32[5]", "f32[6,2]", "f32[2,1]"]},
    {"name": "calls_helpers", "source": "corpus/trace_control.py", "function": "calls_helpers",
     "sets": ["f32[2,3]", "f32[5,3]", "f32[3,4]"]},
    {"name": "helper_calls", "source": "corpus/helper_calls.py", "function": "helper_calls",
     "sets": ["f32[3,5]=randn", "f32[2,7]=randn"]},

    # ---- chunk / split / unbind, views and reshapes ------------------------------------------
    {"name": "chunk_sum", "source": "corpus/chunk_split_unbind.py", "function": "chunk_sum",
     "sets": ["f32[4,5]", "f32[6,2]", "f32[2,3]"]},
    {"name": "split_sizes", "source": "corpus/chunk_split_unbind.py", "function": "split_sizes",
     "sets": ["f32[4,5]", "f32[6,2]", "f32[2,3]"]},
    {"name": "unbind_max", "source": "corpus/chunk_split_unbind.py", "function": "unbind_max",
     "sets": ["f32[4,5]", "f32[2,3]", "f32[3,3]"]},
    {"name": "view_rows", "source": "corpus/trace_shapes.py", "function": "view_rows",
     "sets": ["f32[2,3,4]", "f32[5,2]", "f32[3,1,2,2]"]},
    {"name": "reshape_last", "source": "corpus/trace_shapes.py", "function": "reshape_last",
     "sets": ["f32[4,3]", "f32[2,2,5]", "f32[6,2]"]},
    {"name": "view_reshape", "source": "corpus/view_reshape.py", "function": "view_reshape",
     "sets": ["f32[2,3,4]", "f32[1,5,2]", "f32[3,2,3]"]},
    {"name": "merge_last", "source": "corpus/view_reshape.py", "function": "merge_last",
     "sets": ["f32[2,3,4]", "f32[1,5,2]", "f32[3,2,3]"]},

    # ---- masks -------------------------------------------------------------------------
    {"name": "masks_where", "source": "corpus/masks_where.py", "function": "masks_where",
     "sets": ["f32[3,4]", "f32[2,2]=randn", "f32[5]=zeros"]},
    {"name": "select_positive", "source": "corpus/masks_where.py", "function": "select_positive",
     "sets": ["f32[3,4]=randn", "f32[2,2]=randn", "f32[5]=zeros"]},

    # ---- in-place ops ----------------------------------------------------------------------
    {"name": "add_inplace_input", "source": "corpus/trace_inplace.py",
     "function": "add_inplace_input", "sets": ["f32[3,4]", "f32[2,2]", "f32[5,3]"]},
    {"name": "inplace_views", "source": "corpus/trace_inplace.py", "function": "inplace_views",
     "sets": ["f32[3,4]", "f32[2,2]", "f32[5,3]"]},
    {"name": "inplace_on_copy", "source": "corpus/trace_inplace.py", "function": "inplace_on_copy",
     "sets": ["f32[3,4]", "f32[2,2]", "f32[5,3]"]},
    {"name": "inplace_ops", "source": "corpus/inplace_ops.py", "function": "inplace_ops",
     "sets": ["f32[3,4]=randn", "f32[2,2]=randn", "f32[5,3]=randn"]},
    {"name": "relu_inplace", "source": "corpus/inplace_ops.py", "function": "relu_inplace",
     "sets": ["f32[3,4]=randn", "f32[2,2]=randn"]},

    # ---- casts, factories, devices -------------------------------------------------------------
    {"name": "casts", "source": "corpus/trace_shapes.py", "function": "casts",
     "sets": ["f32[2,3]", "f64[4]=randn", "i32[2,2]", "f16[3]"]},
    {"name": "casts_dtypes", "source": "corpus/casts_dtypes.py", "function": "casts_dtypes",
     "sets": ["f32[2,3]=values:0.5,1.7,2.2,3.9,-1.2,4.4", "f32[6]=arange", "f32[1,2]=values:1.5,-2.5"]},
    {"name": "factories", "source": "corpus/trace_factories.py", "function": "factories",
     "sets": ["f32[2,3]", "f32[4,5]", "f32[1,1]"]},
    {"name": "like_and_device", "source": "corpus/trace_factories.py", "function": "like_and_device",
     "sets": ["f32[2,3]", "f64[4,5]", "i64[3]"]},
    {"name": "on_device", "source": "corpus/casts_dtypes.py", "function": "on_device",
     "sets": ["f32[2,3]", "f32[4,1]"]},

    # ---- Python numbers, indexing, values read back into Python ------------------------------------
    {"name": "python_numbers", "source": "corpus/trace_arith.py", "function": "python_numbers",
     "sets": ["f32[2,3]", "f32[4]", "i64[2,2]"]},
    {"name": "scalar_ops", "source": "corpus/trace_arith.py", "function": "scalar_ops",
     "sets": ["f32[2,3]; f32[2,3]", "f32[4]; f32[1]"]},
    {"name": "slices", "source": "corpus/trace_indexing.py", "function": "slices",
     "sets": ["f32[3,4]", "f32[2,5,3]", "f32[4,3]"]},
    {"name": "index_tensor", "source": "corpus/trace_indexing.py", "function": "index_tensor",
     "sets": ["f32[5,3]; i64[2]=values:0,4", "f32[4,2]; i64[3]=values:3,1,0", "f32[10,2]; i64[4]"]},
    {"name": "index_bool_mask", "source": "corpus/trace_indexing.py", "function": "index_tensor",
     "sets": ["f32[4,3]; bool[4,3]", "f32[2,5]; bool[2,5]"]},
    {"name": "index_mixed", "source": "corpus/trace_indexing.py", "function": "index_mixed",
     "sets": ["f32[5,3]; i64[2]=values:0,4", "f32[4,4]; i64[3]=values:3,1,0"]},
    {"name": "index_ops", "source": "corpus/index_ops.py", "function": "index_ops",
     "sets": ["f32[3,4]; i64[2]=values:0,2", "f32[5,2]; i64[3]=values:4,1,0"]},
    {"name": "item_scale", "source": "corpus/trace_baked.py", "function": "item_scale",
     "sets": ["f32[2,3]", "f32[4,1]", "f32[3,3]"]},
    {"name": "int_float_baked", "source": "corpus/trace_baked.py", "function": "int_float_baked",
     "sets": ["f32[4,3]", "f32[6,2]", "f32[3,3]=ones"]},
    {"name": "len_numel", "source": "corpus/trace_baked.py", "function": "len_numel",
     "sets": ["f32[2,3]", "f32[4,1]", "f32[3,2,2]"]},
    {"name": "shape_unpack", "source": "corpus/trace_baked.py", "function": "shape_unpack",
     "sets": ["f32[2,3]", "f32[4,1]", "f32[3,3]"]},

    # ---- functional, random ops, tuples with non-tensors ------------------------------------------
    {"name": "functional_python_defs", "source": "corpus/functional_python_defs.py",
     "function": "functional_python_defs", "sets": ["f32[2,5]=randn", "f32[3,2]=randn"]},
    {"name": "pool_relu", "source": "corpus/trace_functional.py", "function": "pool_relu",
     "sets": ["f32[1,2,4,4]=randn", "f32[2,1,6,6]=randn", "f32[1,1,5,3]=randn"]},
    {"name": "softmax_pool", "source": "corpus/trace_functional.py", "function": "softmax_pool",
     "sets": ["f32[1,2,4,4]", "f32[2,3,3,5]"]},
    {"name": "add_noise", "source": "corpus/trace_functional.py", "function": "add_noise",
     "sets": ["f32[2,3]", "f32[4,5]"]},
    {"name": "math_consts", "source": "corpus/math_consts.py", "function": "math_consts",
     "sets": ["f32[2,4]=randn", "f32[3,9]=randn"]},
    {"name": "tuple_returns", "source": "corpus/tuple_returns.py", "function": "tuple_returns",
     "sets": ["f32[3,4]", "f32[2,2]"]},
    {"name": "functional_overloads", "source": "corpus/functional_overloads.py",
     "function": "functional_overloads", "sets": ["f32[1,2,4,4]", "f32[2,2,3,5]"]},

    # ---- modules: traced eagerly, run from the scripted archive -------------------------------------
    {"name": "conv_block", "module": "ConvBlock", "ctor": {}, "eval": True,
     "archive": "archives/conv_block.pt", "sets": ["f32[1,3,5,5]", "f32[2,3,4,4]", "f32[1,3,3,6]"]},
    {"name": "module_list_loop", "module": "ModuleListLoop", "ctor": {}, "eval": False,
     "archive": "archives/module_list_loop.pt", "sets": ["f32[2,4]", "f32[3,4]", "f32[2,1,4]"]},
    {"name": "export_method", "module": "ExportMethod", "ctor": {}, "eval": False,
     "archive": "archives/export_method.pt", "sets": ["f32[2,3]", "f32[4,3]=randn"]},
    {"name": "final_const", "module": "FinalConst", "ctor": {}, "eval": False,
     "archive": "archives/final_const.pt", "sets": ["f32[2,4]", "f32[5,4]", "f32[3,2,4]"]},
    {"name": "nested_module", "module": "Nested", "ctor": {}, "eval": True,
     "archive": "archives/nested_script.pt", "sets": ["f32[2,4]", "f32[3,4]=full:-1", "f32[1,4]"]},
    {"name": "shape_branch_module", "module": "ShapeBranch", "ctor": {"features": 4}, "eval": True,
     "archive": "archives/shape_branch.pt", "sets": ["f32[2,4]", "f32[5,4]", "f32[2,3,4]"]},
    {"name": "buffer_scale", "module": "BufferScale", "ctor": {"features": 3}, "eval": True,
     "archive": "archives/buffer_scale.pt", "sets": ["f32[2,3]", "f32[4,3]=randn"]},
    {"name": "dense_residual", "module": "DenseResidual", "ctor": {"features": 2, "layers": 3}, "eval": True,
     "archive": "archives/dense_residual.pt", "sets": ["f32[2,2]=randn", "f32[3,2]=randn"]},
]
