"""Dtypes: singletons and aliases, properties, finfo/iinfo, promote_types / result_type / can_cast
against PyTorch, and the default dtype."""
import builtins
import pickle

import numpy as np
import pytest

import lucid
from helpers import ALL_DTYPES, COMPLEX_DTYPES, FLOAT_DTYPES, INT_DTYPES, DTYPE_NAMES
from op_table import expected_promote

ITEMSIZE = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "float16": 2, "bfloat16": 2,
            "float32": 4, "float64": 8, "complex64": 8, "complex128": 16}

dtype_ids = [d.name for d in ALL_DTYPES]


def tname(td):
    return str(td).replace("torch.", "")


# ---------------------------------------------------------------------------------------------
# singletons and aliases

def test_twelve_distinct_dtypes():
    assert len({id(d) for d in ALL_DTYPES}) == 12
    assert DTYPE_NAMES == ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
                           "float64", "complex64", "complex128"]
    for d in ALL_DTYPES:
        assert isinstance(d, lucid.dtype)
        assert getattr(lucid, d.name if d.name != "bool" else "bool_") is d


@pytest.mark.parametrize("alias,target", [
    ("float", "float32"), ("double", "float64"), ("half", "float16"), ("long", "int64"), ("int", "int32"),
    ("short", "int16"), ("bool", "bool_"), ("cfloat", "complex64"), ("cdouble", "complex128"),
])
def test_aliases_are_the_same_object(alias, target):
    assert getattr(lucid, alias) is getattr(lucid, target)


def test_aliases_do_not_shadow_builtins_in_tests():
    # lucid.float / lucid.int / lucid.bool are dtypes; Python's builtins are untouched
    assert lucid.float is not builtins.float and lucid.int is not builtins.int and lucid.bool is not builtins.bool
    assert lucid.bool is lucid.bool_


def test_dtypes_are_singletons_across_paths():
    assert lucid.ones(2).dtype is lucid.float32
    assert lucid.ones(2, dtype=lucid.double).dtype is lucid.float64
    assert lucid.tensor([1]).dtype is lucid.long
    assert lucid.tensor([True]).dtype is lucid.bool
    assert (lucid.ones(2) + lucid.ones(2, dtype=lucid.half)).dtype is lucid.float
    assert pickle.loads(pickle.dumps(lucid.bfloat16)) is lucid.bfloat16


@pytest.mark.parametrize("d", ALL_DTYPES, ids=dtype_ids)
def test_dtype_properties(d):
    assert d.itemsize == ITEMSIZE[d.name]
    assert d.is_floating_point == (d.name in ("float16", "bfloat16", "float32", "float64"))
    assert d.is_complex == d.name.startswith("complex")
    assert repr(d) == str(d) == f"lucid.{d.name}"
    assert hash(d) == hash(d)
    assert d == d
    assert lucid.empty(3, dtype=d).element_size() == d.itemsize


@pytest.mark.parametrize("d", ALL_DTYPES, ids=dtype_ids)
def test_dtype_properties_vs_torch(torch, d):
    td = getattr(torch, d.name)
    assert d.itemsize == td.itemsize
    assert d.is_floating_point == td.is_floating_point
    assert d.is_complex == td.is_complex
    assert d.is_signed == td.is_signed


def test_to_real_to_complex():
    assert lucid.complex64.to_real() is lucid.float32
    assert lucid.complex128.to_real() is lucid.float64
    assert lucid.float64.to_complex() is lucid.complex128
    assert lucid.float32.to_complex() is lucid.complex64
    assert lucid.float32.to_real() is lucid.float32


def test_dtype_accepts_numpy_and_python_types():
    assert lucid.zeros(2, dtype=np.dtype(np.float64)).dtype is lucid.float64
    assert lucid.zeros(2, dtype=np.dtype("int16")).dtype is lucid.int16
    assert lucid.zeros(2, dtype=builtins.float).dtype is lucid.float32
    assert lucid.zeros(2, dtype=builtins.int).dtype is lucid.int64
    assert lucid.zeros(2, dtype=builtins.bool).dtype is lucid.bool_
    assert lucid.zeros(2, dtype=builtins.complex).dtype is lucid.complex64
    with pytest.raises(TypeError):
        lucid.zeros(2, dtype="not-a-dtype")


# ---------------------------------------------------------------------------------------------
# finfo / iinfo

FINFO = {  # bits, eps, max, tiny, resolution
    "float16": (16, 2.0 ** -10, 65504.0, 2.0 ** -14, 1e-3),
    "bfloat16": (16, 2.0 ** -7, 3.3895313892515355e38, 2.0 ** -126, 1e-2),
    "float32": (32, 2.0 ** -23, float(np.finfo(np.float32).max), 2.0 ** -126, 1e-6),
    "float64": (64, 2.0 ** -52, float(np.finfo(np.float64).max), 2.0 ** -1022, 1e-15),
}


@pytest.mark.parametrize("d", FLOAT_DTYPES, ids=lambda d: d.name)
def test_finfo_values(d):
    f = lucid.finfo(d)
    bits, eps, mx, tiny, res = FINFO[d.name]
    assert f.bits == bits
    assert f.eps == eps
    assert f.max == mx and f.min == -mx
    assert f.tiny == tiny == f.smallest_normal
    assert f.resolution == pytest.approx(res)
    assert f.dtype is d
    if d.name != "bfloat16":
        nf = np.finfo(np.dtype(d.name))
        assert f.eps == float(nf.eps) and f.max == float(nf.max) and f.tiny == float(nf.tiny)
        assert f.smallest_subnormal == float(nf.smallest_subnormal)


@pytest.mark.parametrize("d", FLOAT_DTYPES + COMPLEX_DTYPES, ids=lambda d: d.name)
def test_finfo_vs_torch(torch, d):
    f, tf = lucid.finfo(d), torch.finfo(getattr(torch, d.name))
    for attr in ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"]:
        assert getattr(f, attr) == getattr(tf, attr), attr
    assert f.dtype.name == tname(tf.dtype)


def test_finfo_default_and_errors():
    assert lucid.finfo().dtype is lucid.float32
    assert lucid.finfo(lucid.complex128).dtype is lucid.float64
    with pytest.raises(TypeError):
        lucid.finfo(lucid.int32)
    with pytest.raises(TypeError):
        lucid.iinfo(lucid.float32)


@pytest.mark.parametrize("d", INT_DTYPES, ids=lambda d: d.name)
def test_iinfo_values(d):
    i, ni = lucid.iinfo(d), np.iinfo(np.dtype(d.name))
    assert (i.min, i.max, i.bits) == (int(ni.min), int(ni.max), ni.bits)
    assert i.dtype is d


@pytest.mark.parametrize("d", INT_DTYPES, ids=lambda d: d.name)
def test_iinfo_vs_torch(torch, d):
    i, ti = lucid.iinfo(d), torch.iinfo(getattr(torch, d.name))
    assert (i.min, i.max, i.bits) == (ti.min, ti.max, ti.bits)


# ---------------------------------------------------------------------------------------------
# promotion

@pytest.mark.parametrize("b", ALL_DTYPES, ids=dtype_ids)
@pytest.mark.parametrize("a", ALL_DTYPES, ids=dtype_ids)
def test_promote_types_all_pairs(a, b):
    """lucid.promote_types equals PyTorch's table (written out in op_table.expected_promote)."""
    assert lucid.promote_types(a, b) is expected_promote(a, b)
    assert lucid.promote_types(a, b) is lucid.promote_types(b, a)


def test_promote_types_all_pairs_vs_torch(torch):
    mismatches = []
    for a in ALL_DTYPES:
        for b in ALL_DTYPES:
            want = tname(torch.promote_types(getattr(torch, a.name), getattr(torch, b.name)))
            got = lucid.promote_types(a, b).name
            if got != want:
                mismatches.append((a.name, b.name, got, want))
    assert not mismatches


def test_promote_types_accepts_python_and_numpy_types():
    assert lucid.promote_types(builtins.float, builtins.int) is lucid.float32
    assert lucid.promote_types(np.dtype("float16"), lucid.int8) is lucid.float16
    assert lucid.promote_types(lucid.uint8, lucid.int8) is lucid.int16
    assert lucid.promote_types(lucid.float16, lucid.bfloat16) is lucid.float32
    assert lucid.promote_types(lucid.complex64, lucid.float64) is lucid.complex128


@pytest.mark.parametrize("b", ALL_DTYPES, ids=dtype_ids)
@pytest.mark.parametrize("a", ALL_DTYPES, ids=dtype_ids)
def test_can_cast_vs_torch(torch, a, b):
    assert lucid.can_cast(a, b) == torch.can_cast(getattr(torch, a.name), getattr(torch, b.name))


def _can_cast_rule(a, b):
    cat = lambda d: 0 if d is lucid.bool_ else 3 if d.is_complex else 2 if d.is_floating_point else 1  # noqa: E731
    if cat(a) == 3 and cat(b) != 3:
        return False
    if cat(a) == 2 and cat(b) < 2:
        return False
    if cat(a) != 0 and cat(b) == 0:
        return False
    return True


def test_can_cast_all_pairs():
    for a in ALL_DTYPES:
        for b in ALL_DTYPES:
            assert lucid.can_cast(a, b) == _can_cast_rule(a, b), (a, b)


# result_type: tensors (n-d and 0-d) and Python scalars, over many combinations

SCALARS = [True, 3, -2.5, 1 + 2j]


def _operands(torch):
    ops = []
    for d in ALL_DTYPES:
        ops.append(("t", d))      # a 1-d tensor
        ops.append(("z", d))      # a 0-d tensor
    ops += [("s", s) for s in SCALARS]
    return ops


def _make(kind, v, lib):
    if kind == "s":
        return v
    shape = (2,) if kind == "t" else ()
    return lib.ones(shape, dtype=getattr(lib, v.name))


def test_result_type_vs_torch(torch):
    """torch.result_type over every pair of {1-d tensor, 0-d tensor} x 12 dtypes and 4 Python scalars."""
    ops = _operands(torch)
    mismatches = []
    for ka, va in ops:
        for kb, vb in ops:
            if ka == "s" and kb == "s":
                continue
            ta, tb = _make(ka, va, torch), _make(kb, vb, torch)
            if ka == "s":
                ta, tb = tb, ta
            want = tname(torch.result_type(ta, tb)).replace("complex32", "complex64")
            la, lb = _make(ka, va, lucid), _make(kb, vb, lucid)
            if ka == "s":
                la, lb = lb, la
            got = lucid.result_type(la, lb).name
            if got != want:
                mismatches.append((ka, str(va), kb, str(vb), got, want))
    assert not mismatches, mismatches[:20]


@pytest.mark.parametrize("d", ALL_DTYPES, ids=dtype_ids)
def test_result_type_rules(d):
    t = lucid.ones(2, dtype=d)
    z = lucid.ones((), dtype=d)
    cat = 0 if d is lucid.bool_ else 3 if d.is_complex else 2 if d.is_floating_point else 1
    # a scalar of the same or a lower category never changes the dtype
    for s, c in [(True, 0), (1, 1), (1.0, 2), (1j, 3)]:
        want = d if c <= cat else {1: lucid.int64, 2: lucid.float32,
                                   3: (lucid.complex64 if d is not lucid.float64 else lucid.complex128)}[c]
        assert lucid.result_type(t, s) is want, (d, s)
        assert lucid.result_type(z, s) is want, (d, s)
    # two tensors: plain promotion
    assert lucid.result_type(t, t) is d
    # a 0-d tensor of a lower or equal category does not change a dimensioned tensor's dtype
    assert lucid.result_type(t, lucid.ones((), dtype=lucid.float64)) is (
        d if cat >= 2 else lucid.float64)
    assert lucid.result_type(lucid.ones((), dtype=lucid.int64), lucid.ones(2, dtype=lucid.int8)) is lucid.int8
    assert lucid.result_type(2, 3) is lucid.int64
    assert lucid.result_type(2, 3.0) is lucid.float32
    assert lucid.result_type(True, False) is lucid.bool_


def test_result_type_rejects_other_objects():
    with pytest.raises(TypeError):
        lucid.result_type(lucid.ones(2), "x")


# ---------------------------------------------------------------------------------------------
# the default dtype

def test_default_dtype_is_float32():
    assert lucid.get_default_dtype() is lucid.float32
    assert lucid.tensor(1.0).dtype is lucid.float32
    assert lucid.tensor([1.0, 2]).dtype is lucid.float32
    assert lucid.tensor(1j).dtype is lucid.complex64
    assert lucid.ones(2).dtype is lucid.float32


def test_set_default_dtype_float64():
    lucid.set_default_dtype(lucid.float64)
    try:
        assert lucid.get_default_dtype() is lucid.float64
        assert lucid.tensor(1.0).dtype is lucid.float64
        assert lucid.tensor([1.5, 2.5]).dtype is lucid.float64
        assert lucid.tensor(1 + 1j).dtype is lucid.complex128
        assert lucid.tensor([1, 2]).dtype is lucid.int64        # ints are not affected
        assert lucid.zeros(2).dtype is lucid.float64
        assert lucid.arange(0.0, 1.0, 0.5).dtype is lucid.float64
        assert lucid.full((2,), 1.5).dtype is lucid.float64
        assert (lucid.tensor([1]) * 0.5).dtype is lucid.float64
        assert lucid.finfo().dtype is lucid.float64
    finally:
        lucid.set_default_dtype(lucid.float32)
    assert lucid.get_default_dtype() is lucid.float32
    assert lucid.tensor(1.0).dtype is lucid.float32


def test_set_default_dtype_vs_torch(torch):
    old = torch.get_default_dtype()
    try:
        for d in [lucid.float64, lucid.float32]:
            lucid.set_default_dtype(d)
            torch.set_default_dtype(getattr(torch, d.name))
            for data in [1.0, [1.0, 2.0], 1j, [1, 2.5], True, 3]:
                assert lucid.tensor(data).dtype.name == tname(torch.tensor(data).dtype), data
    finally:
        lucid.set_default_dtype(lucid.float32)
        torch.set_default_dtype(old)


@pytest.mark.parametrize("d", [lucid.int32, lucid.int64, lucid.bool_, lucid.complex64], ids=lambda d: d.name)
def test_set_default_dtype_rejects_non_float(d):
    with pytest.raises((TypeError, RuntimeError)):
        lucid.set_default_dtype(d)
    assert lucid.get_default_dtype() is lucid.float32
