#!/usr/bin/python3
"""Builds the hostile archives of tests/data/hostile/ from a real torch.jit.save archive.

Each is tests/data/archives/buffer_scale.pt (written by tests/oracle/generate.py with PyTorch) with one entry
replaced, as the outside fuzzer of issue #14 replaced it. Before JitScope checked them, torch::jit::load crashed on
every one but code_deep_chain.pt (SIGABRT "free(): invalid size", or SIGSEGV); that one is refused as the same
expression in a .py file is (Python refuses it too). Only Python's zipfile is needed:

    /usr/bin/python3 tests/data/hostile/make_archives.py
"""

import pathlib
import zipfile

HERE = pathlib.Path(__file__).resolve().parent
BASE = HERE.parent / "archives" / "buffer_scale.pt"

# Class 3: a pickle whose stack underflows (TUPLE2 with one value on the stack).
UNDERFLOW = b"\x80\x02)\x86."
# Class 4: 300,000 nested tuples (the stack overflows while libtorch destroys the value).
NESTED = b"\x80\x02)" + b"\x85" * 300000 + b"."

MODULES = "code/__torch__/modules.py"
LINEAR = "code/__torch__/torch/nn/modules/linear.py"



def text_edit(suffix, old, new):
    def edit(text):
        assert old in text, (suffix, old)
        return text.replace(old, new, 1)

    return {"entry": suffix, "edit": edit}


CASES = {
    "pickle_underflow_constants.pt": {"entry": "constants.pkl", "data": UNDERFLOW},
    "pickle_underflow_data.pt": {"entry": "data.pkl", "data": UNDERFLOW},
    "pickle_underflow_debug.pt": {"entry": MODULES + ".debug_pkl", "data": UNDERFLOW},
    "pickle_nested_tuples.pt": {"entry": "constants.pkl", "data": NESTED},
    # Class 5: `weight = Tensor` for `weight : Tensor` in a class body.
    "class_untyped_attr.pt": text_edit(LINEAR, "  weight : Tensor\n", "  weight = Tensor\n"),
    # Found by fuzz_archive: an untyped dunder assignment libtorch does not know is taken for a constant.
    "fuzz_class_dunder_assign.pt": text_edit(LINEAR, "  __buffers__ = []\n", "  __buffers__ = []\n  __selparameters__ = []\n"),
    # Found by fuzz_archive: a debug table that is an empty tuple (libtorch reads its first element unchecked).
    "fuzz_debug_empty_table.pt": {"entry": LINEAR + ".debug_pkl", "data": b"\x80\x02)."},
    # Found by fuzz_archive: a tensor record emptied (the pickle still says 6 floats); printing the attribute's
    # value read the missing data.
    "fuzz_empty_tensor_record.pt": {"base": "dict_attr.pt", "entry": "data/1", "data": b""},
    # Found by fuzz_archive (LeakSanitizer): a method defined twice in a class; libtorch refuses the second and
    # leaks the class's first methods.
    "fuzz_duplicate_method.pt": {"entry": LINEAR, "edit": lambda text: text + text[text.index("  def forward"):]},
    # Class 2 in an archive's code: brackets 3,000 deep, and an expression tree 3,000 deep without brackets.
    "code_deep_brackets.pt": text_edit(
        MODULES, "torch.add(count, 1))", "torch.add(" + "[" * 3000 + "count" + "]" * 3000 + ", 1))"
    ),
    "code_deep_chain.pt": text_edit(MODULES, "torch.add(count, 1))", "count" + " + 1" * 3000 + ")"),
}


def build(name, case):
    out = HERE / name
    base = HERE.parent / "archives" / case["base"] if "base" in case else BASE
    with zipfile.ZipFile(base) as src, zipfile.ZipFile(out, "w") as dst:
        replaced = False
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith("/" + case["entry"]):
                replaced = True
                if "data" in case:
                    data = case["data"]
                else:
                    data = case["edit"](data.decode("utf-8")).encode("utf-8")
            info = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            dst.writestr(info, data, compress_type=zipfile.ZIP_STORED)
        assert replaced, (name, case["entry"])
    print(out.relative_to(HERE.parent.parent.parent))


for name, case in CASES.items():
    build(name, case)
