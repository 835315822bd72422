"""Creation: lucid.tensor / lucid.Tensor and dtype inference, NumPy and DLPack interop (zero-copy
both ways), the factories against PyTorch, *_like and new_*."""
import gc

import numpy as np
import pytest

import lucid
from helpers import ALL_DTYPES, to_numpy

NP_DTYPES_SUPPORTED = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
                       "complex64", "complex128"]


# ---------------------------------------------------------------------------------------------
# lucid.tensor from Python data

@pytest.mark.parametrize("data,dtype,shape,values", [
    (3, lucid.int64, (), 3),
    (2.5, lucid.float32, (), 2.5),
    (True, lucid.bool_, (), True),
    (1 + 2j, lucid.complex64, (), 1 + 2j),
    ([1, 2, 3], lucid.int64, (3,), [1, 2, 3]),
    ([1, 2.5], lucid.float32, (2,), [1.0, 2.5]),
    ([True, 1], lucid.int64, (2,), [1, 1]),
    ([True, False], lucid.bool_, (2,), [True, False]),
    ([1, 1j], lucid.complex64, (2,), [1, 1j]),
    ([[1, 2], [3, 4]], lucid.int64, (2, 2), [[1, 2], [3, 4]]),
    (((1, 2), (3, 4)), lucid.int64, (2, 2), [[1, 2], [3, 4]]),
    ([(1.5,), [2]], lucid.float32, (2, 1), [[1.5], [2.0]]),
    ([[[1]], [[2]]], lucid.int64, (2, 1, 1), [[[1]], [[2]]]),
    ([], lucid.float32, (0,), []),
    ([[], []], lucid.float32, (2, 0), [[], []]),
    (range(4), lucid.int64, (4,), [0, 1, 2, 3]),
    ([2 ** 62, -2 ** 62], lucid.int64, (2,), [2 ** 62, -2 ** 62]),
], ids=["int", "float", "bool", "complex", "ints", "int_float", "bool_int", "bools", "int_complex", "nested",
        "tuples", "mixed_seq", "3d", "empty", "empty_nested", "range", "big_ints"])
def test_tensor_from_python(data, dtype, shape, values):
    t = lucid.tensor(data)
    assert t.dtype is dtype
    assert t.shape == shape
    assert t.tolist() == values
    assert t.is_contiguous() and t.device == "cpu"


def test_tensor_inference_vs_torch(torch):
    for data in [3, 2.5, True, 1 + 2j, [1, 2], [1, 2.5], [True, 1], [True, False], [1, 1j], [[1.0]], [],
                 [[], []], [[1, 2], [3, 4.0]], [False, 2.5], (1, 2)]:
        lt, tt = lucid.tensor(data), torch.tensor(data)
        assert lt.dtype.name == str(tt.dtype)[6:], data
        assert lt.shape == tuple(tt.shape), data
        assert lt.tolist() == tt.tolist(), data


def test_tensor_from_tensors_and_numpy_scalars():
    t = lucid.tensor([lucid.tensor(1.5), lucid.tensor(2.5)])
    assert t.dtype is lucid.float32 and t.tolist() == [1.5, 2.5]
    t = lucid.tensor([lucid.tensor([1, 2]), lucid.tensor([3, 4])])
    assert t.shape == (2, 2) and t.tolist() == [[1, 2], [3, 4]]
    t = lucid.tensor([np.float32(1.5), 2])
    assert t.dtype is lucid.float32 and t.tolist() == [1.5, 2.0]
    t = lucid.tensor([np.int32(3), np.int64(4)])
    assert t.dtype is lucid.int64 and t.tolist() == [3, 4]


@pytest.mark.parametrize("d", ALL_DTYPES, ids=lambda d: d.name)
def test_tensor_with_dtype(d):
    t = lucid.tensor([[0, 1], [2, 3]], dtype=d)
    assert t.dtype is d
    want = [[0, 1], [2, 3]] if d is not lucid.bool_ else [[False, True], [True, True]]
    assert t.tolist() == want
    f = lucid.tensor([1.75, -2.5], dtype=d) if d is not lucid.bool_ else lucid.tensor([1.75, 0.0], dtype=d)
    expect = {"bool": [True, False], "uint8": [1, 254]}.get(d.name)
    if d.name == "uint8":
        assert f.tolist()[0] == 1        # -2.5 -> uint8 is undefined in C; only check the positive value
    elif expect is not None:
        assert f.tolist() == expect
    elif d.is_floating_point or d.is_complex:
        assert f.tolist() == [1.75, -2.5]
    else:
        assert f.tolist() == [1, -2]     # truncation toward zero


def test_tensor_with_device_and_dtype_keywords():
    t = lucid.tensor([1, 2], dtype=lucid.float64, device="cpu")
    assert t.dtype is lucid.float64 and t.device == "cpu"
    t = lucid.tensor([1.0], device=lucid.device("cpu"), requires_grad=True)
    assert t.requires_grad


@pytest.mark.parametrize("data", [[[1, 2], [3]], [[1, 2], 3], [1, [2]], [[[1], [2, 3]]]],
                         ids=["short_row", "number_row", "seq_in_numbers", "deep"])
def test_ragged_raises_value_error(data):
    with pytest.raises(ValueError):
        lucid.tensor(data)


def test_tensor_bad_inputs():
    with pytest.raises(TypeError):
        lucid.tensor("abc")
    with pytest.raises(TypeError):
        lucid.tensor([1, "a"])
    with pytest.raises((TypeError, ValueError)):
        lucid.tensor([1 + 1j], dtype=lucid.float32)     # complex into a real dtype
    with pytest.raises((ValueError, OverflowError)):
        lucid.tensor([300], dtype=lucid.uint8)
    with pytest.raises((ValueError, OverflowError)):
        lucid.tensor([-129], dtype=lucid.int8)
    with pytest.raises((ValueError, OverflowError)):
        lucid.tensor(2 ** 64)
    with pytest.raises((TypeError, ValueError)):
        lucid.tensor(None)


def test_tensor_int64_overflow_raises():
    with pytest.raises((ValueError, OverflowError, RuntimeError)):
        lucid.tensor(2 ** 63)


def test_tensor_always_copies_python_data_and_tensors():
    src = lucid.arange(3.0)
    t = lucid.tensor(src)
    assert not t._is_view_of(src)
    t[0] = 9.0
    assert src[0].item() == 0.0


def test_Tensor_constructor():
    t = lucid.Tensor([1.5, 2.5])
    assert isinstance(t, lucid.Tensor) and t.tolist() == [1.5, 2.5]
    e = lucid.Tensor(2, 3)                    # sizes: an uninitialised float tensor
    assert e.shape == (2, 3) and e.dtype is lucid.float32
    assert lucid.Tensor(4).shape == (4,)
    assert lucid.Tensor([[1, 2]]).shape == (1, 2)
    assert isinstance(lucid.tensor(1.0), lucid.Tensor)


def test_Tensor_no_arguments_is_empty():
    assert lucid.Tensor().shape == (0,)


# ---------------------------------------------------------------------------------------------
# NumPy: dtype inference, copies and zero-copy sharing

@pytest.mark.parametrize("name", NP_DTYPES_SUPPORTED)
def test_tensor_from_numpy_array_dtype(name):
    a = (np.arange(6).reshape(2, 3) % 2 == 0) if name == "bool" else np.arange(6).reshape(2, 3).astype(name)
    t = lucid.tensor(a)
    assert t.dtype is getattr(lucid, name if name != "bool" else "bool_")
    assert t.shape == (2, 3)
    np.testing.assert_array_equal(to_numpy(t), a)
    assert t.data_ptr() != a.ctypes.data          # lucid.tensor copies
    before = a.copy()
    a[...] = a[::-1, ::-1]
    np.testing.assert_array_equal(to_numpy(t), before)


def test_tensor_from_numpy_vs_torch(torch):
    for name in NP_DTYPES_SUPPORTED:
        a = np.ones((2, 2), dtype=name)
        assert lucid.tensor(a).dtype.name == str(torch.tensor(a).dtype)[6:]
        assert lucid.as_tensor(a).dtype.name == str(torch.as_tensor(a).dtype)[6:]
        assert lucid.from_numpy(a).dtype.name == str(torch.from_numpy(a).dtype)[6:]


def test_tensor_from_strided_numpy_arrays():
    a = np.arange(24.0).reshape(4, 6)
    for view in [a.T, a[::2, 1::3], a[::-1], a[:, ::-2], np.broadcast_to(a[:1], (3, 6))]:
        t = lucid.tensor(view)
        np.testing.assert_array_equal(to_numpy(t), view)
        assert t.is_contiguous()


def test_tensor_from_numpy_with_dtype():
    a = np.array([1.7, -2.7])
    assert lucid.tensor(a, dtype=lucid.int32).tolist() == [1, -2]
    assert lucid.tensor(a, dtype=lucid.float16).dtype is lucid.float16


@pytest.mark.parametrize("value", [np.array(1.5), np.array(3, dtype=np.int32), np.float32(2.0), np.int64(7),
                                   np.bool_(True)], ids=["0d_f64", "0d_i32", "np_f32", "np_i64", "np_bool"])
def test_tensor_from_zero_dim_numpy(value):
    t = lucid.tensor(value)
    assert t.shape == ()
    assert t.item() == value.item()


@pytest.mark.parametrize("shape", [(0, 3), (2, 0, 3), (0, 1, 5)])
@pytest.mark.parametrize("via", ["from_numpy", "tensor", "as_tensor", "from_dlpack"])
def test_import_array_with_zero_size_dim(shape, via):
    a = np.zeros(shape, dtype=np.float32)
    t = getattr(lucid, via)(a)
    assert t.shape == shape


def test_from_numpy_shares_memory_both_ways():
    a = np.zeros((2, 3))
    t = lucid.from_numpy(a)
    assert t.dtype is lucid.float64 and t.shape == (2, 3)
    assert t.data_ptr() == a.ctypes.data
    t[1, 2] = 5.0
    assert a[1, 2] == 5.0
    a[0, 0] = -1.0
    assert t[0, 0].item() == -1.0
    t.add_(1)
    np.testing.assert_array_equal(a, [[0, 1, 1], [1, 1, 6]])


def test_from_numpy_keeps_array_alive_and_strides():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    t = lucid.from_numpy(a[:, ::2])
    assert t.stride() == (4, 2)
    del a
    gc.collect()
    assert t.tolist() == [[0, 2], [4, 6], [8, 10]]
    tt = lucid.from_numpy(np.arange(6.0).reshape(2, 3).T)
    assert tt.stride() == (1, 3) and not tt.is_contiguous()


def test_from_numpy_rejects_negative_strides_and_bad_dtypes():
    with pytest.raises(ValueError, match="negative"):
        lucid.from_numpy(np.arange(6)[::-1])
    with pytest.raises(TypeError):
        lucid.from_numpy(np.array(["a"]))
    with pytest.raises(TypeError):
        lucid.from_numpy(np.zeros(2, dtype=np.uint16))


@pytest.mark.parametrize("name", NP_DTYPES_SUPPORTED)
def test_from_numpy_every_dtype(name):
    a = np.arange(4).astype(name)
    t = lucid.from_numpy(a)
    assert t.dtype.name == name
    np.testing.assert_array_equal(to_numpy(t), a)
    assert t.data_ptr() == a.ctypes.data


def test_as_tensor_shares_memory():
    a = np.arange(4.0)
    t = lucid.as_tensor(a)
    assert t.data_ptr() == a.ctypes.data
    t[0] = -1.0
    assert a[0] == -1.0
    c = lucid.as_tensor(a, dtype=lucid.float32)         # another dtype: a copy
    c[1] = -9.0
    assert a[1] == 1.0 and c.dtype is lucid.float32
    x = lucid.arange(3.0)
    assert lucid.as_tensor(x) is x
    assert lucid.as_tensor(x, dtype=lucid.float32) is x
    y = lucid.as_tensor(x, dtype=lucid.float64)
    assert y is not x and y.dtype is lucid.float64
    r = lucid.as_tensor(np.arange(5)[::-1])               # negative strides: copied
    assert r.tolist() == [4, 3, 2, 1, 0]
    assert lucid.as_tensor([1, 2]).tolist() == [1, 2]


def test_as_tensor_vs_torch_sharing(torch):
    a = np.arange(4.0)
    assert (lucid.as_tensor(a).data_ptr() == a.ctypes.data) == (torch.as_tensor(a).data_ptr() == a.ctypes.data)


def test_numpy_is_zero_copy():
    t = lucid.arange(6.0).reshape(2, 3)
    a = t.numpy()
    assert a.ctypes.data == t.data_ptr()
    assert a.dtype == np.float32 and a.shape == (2, 3)
    a[0, 0] = 100.0
    assert t[0, 0].item() == 100.0
    t[1, 1] = -5.0
    assert a[1, 1] == -5.0
    v = t.T.numpy()
    assert v.strides == (4, 12) and v.ctypes.data == t.data_ptr()
    s = t[:, 1:].numpy()
    assert s.ctypes.data == t.data_ptr() + 4
    e = lucid.zeros(3, 1).expand(3, 4).numpy()
    assert e.strides == (4, 0)


def test_numpy_keeps_tensor_alive():
    gc.collect()
    base = lucid.memory_allocated("cpu")
    t = lucid.arange(1000.0)
    a = t.numpy()
    del t
    gc.collect()
    assert lucid.memory_allocated("cpu") == base + 4000       # the array holds the storage
    np.testing.assert_array_equal(a, np.arange(1000.0, dtype=np.float32))
    del a
    gc.collect()
    assert lucid.memory_allocated("cpu") == base


@pytest.mark.parametrize("name", NP_DTYPES_SUPPORTED)
def test_numpy_every_dtype(name):
    t = lucid.ones(3, dtype=getattr(lucid, name if name != "bool" else "bool_"))
    a = t.numpy()
    assert a.dtype == np.dtype(name)
    assert a.tolist() == t.tolist()
    assert np.asarray(t).dtype == np.dtype(name)


def test_numpy_bfloat16_refused():
    with pytest.raises(TypeError, match="bfloat16"):
        lucid.ones(2, dtype=lucid.bfloat16).numpy()


# ---------------------------------------------------------------------------------------------
# DLPack

def test_dlpack_to_numpy_zero_copy():
    t = lucid.arange(6.0).reshape(2, 3)
    a = np.from_dlpack(t)
    assert a.ctypes.data == t.data_ptr()
    a2 = np.from_dlpack(t.T)
    np.testing.assert_array_equal(a2, np.arange(6.0).reshape(2, 3).T)
    assert t.__dlpack_device__() == (1, 0)      # kDLCPU, device 0
    b = np.from_dlpack(t)
    if b.flags.writeable:
        b[0, 0] = 42.0
        assert t[0, 0].item() == 42.0
    t[1, 1] = -3.0
    assert b[1, 1] == -3.0


def test_dlpack_from_numpy_zero_copy():
    a = np.arange(6.0).reshape(2, 3)
    t = lucid.from_dlpack(a)
    assert t.data_ptr() == a.ctypes.data and t.shape == (2, 3)
    t[0, 1] = -7.0
    assert a[0, 1] == -7.0
    c = lucid.from_dlpack(np.ones(2, dtype=np.complex64))
    assert c.dtype is lucid.complex64


@pytest.mark.parametrize("d", ALL_DTYPES, ids=lambda d: d.name)
def test_dlpack_to_torch(torch, d):
    t = lucid.arange(6, dtype=d).reshape(2, 3) if d is not lucid.bool_ else lucid.ones(2, 3, dtype=d)
    tt = torch.from_dlpack(t)
    assert str(tt.dtype)[6:] == d.name
    assert tt.data_ptr() == t.data_ptr()
    assert tt.tolist() == t.tolist()
    v = torch.from_dlpack(t.T)
    assert v.stride() == (1, 3) and v.tolist() == t.T.tolist()
    if d is not lucid.bool_:
        tt[0, 0] = 5
        assert t[0, 0].item() == 5


@pytest.mark.parametrize("d", ALL_DTYPES, ids=lambda d: d.name)
def test_dlpack_from_torch(torch, d):
    td = getattr(torch, d.name)
    src = torch.arange(6).to(td).reshape(2, 3) if d is not lucid.bool_ else torch.ones(2, 3, dtype=td)
    t = lucid.from_dlpack(src)
    assert t.dtype is d
    assert t.data_ptr() == src.data_ptr()
    assert t.tolist() == src.tolist()
    s = lucid.from_dlpack(src.T)
    assert s.stride() == (1, 3) and s.tolist() == src.T.tolist()
    if d is not lucid.bool_:
        t[1, 2] = 0
        assert src[1, 2].item() == 0
    assert lucid.from_dlpack(torch.zeros(3, 1).expand(3, 4)).stride() == (1, 0)


def test_dlpack_keeps_producer_alive(torch):
    src = torch.arange(100.0)
    t = lucid.from_dlpack(src)
    del src
    gc.collect()
    assert t.sum().item() == 4950.0


def test_lucid_tensor_of_torch_tensor_copies(torch):
    src = torch.arange(3.0)
    t = lucid.tensor(src)
    assert t.dtype is lucid.float32 and t.tolist() == [0.0, 1.0, 2.0]
    t[0] = 9.0
    assert src[0].item() == 0.0


# ---------------------------------------------------------------------------------------------
# factories against PyTorch (values and dtypes)

FACTORY_CASES = [
    "zeros(2, 3)", "zeros((2, 3))", "zeros([2, 3], dtype=D.int8)", "zeros(())", "zeros(0)", "zeros(2, 0)",
    "zeros(2, 3, dtype=D.bfloat16)", "ones(2, dtype=D.bool)", "ones(3, 1, dtype=D.complex128)", "ones(2, 3)",
    "ones(4, dtype=D.uint8)", "ones((), dtype=D.float16)",
    "full((2, 3), 1.5)", "full((2,), 3)", "full((2,), True)", "full((2,), 1+2j)", "full((2, 2), 7, dtype=D.float16)",
    "full((), 2.5)", "full([2], -1, dtype=D.int8)", "full([2], 2.7, dtype=D.int32)", "full([2], True, dtype=D.float32)",
    "full([3], 1+1j, dtype=D.complex128)", "full((2, 2), -0.5, dtype=D.float64)",
    "eye(3)", "eye(2, 4)", "eye(4, 2, dtype=D.int32)", "eye(0)", "eye(3, dtype=D.bool)", "eye(2, dtype=D.complex64)",
    "eye(1, 1)",
    "arange(5)", "arange(1, 4)", "arange(0, 1, 0.1)", "arange(5.)", "arange(10, 0, -3)", "arange(0, 1, 0.3)",
    "arange(-1.5, 1.5, 0.5)", "arange(0, 10, 3, dtype=D.float64)", "arange(1, 1)", "arange(0, 5, dtype=D.float16)",
    "arange(0, 5, dtype=D.bfloat16)", "arange(0, 5, dtype=D.uint8)", "arange(0.5, 3, dtype=D.int32)",
    "arange(0, 1, 0.25, dtype=D.float16)", "arange(10.5)", "arange(0, -3, -1)", "arange(1e6, 1e6 + 5)",
    "arange(0, 1, 0.1, dtype=D.float64)", "arange(-5, 5, 2)",
    "linspace(0, 1, 5)", "linspace(-2, 3, 7, dtype=D.float64)", "linspace(0, 1, 1)", "linspace(0, 1, 0)",
    "linspace(0, 10, 5, dtype=D.int64)", "linspace(1, 0, 4)", "linspace(0, 1, 100)", "linspace(0, 7, 5, dtype=D.int32)",
    "linspace(0, 1, 3, dtype=D.complex64)", "linspace(0, 1, 5, dtype=D.float16)", "linspace(-1, 1, 4, dtype=D.int64)",
    "linspace(0, 1, 7, dtype=D.bfloat16)", "linspace(-5, 5, 1001)", "linspace(3, 3, 4)",
    "logspace(0, 2, 3)", "logspace(0, 3, 4, base=2)", "logspace(-1, 1, 5, dtype=D.float64)",
    "logspace(0, 2, 3, dtype=D.int64)", "logspace(0, 1, 1)", "logspace(0, 2, 5, dtype=D.float16)",
    "logspace(0, 10, 11)", "logspace(1, -1, 3, base=3)",
]


def _eval(lib, expr):
    return eval(f"{lib.__name__}.{expr.replace('D.', lib.__name__ + '.')}", {lib.__name__: lib})


@pytest.mark.parametrize("expr", FACTORY_CASES)
def test_factory_vs_torch(torch, expr):
    lt = _eval(lucid, expr)
    tt = _eval(torch, expr)
    assert lt.dtype.name == str(tt.dtype)[6:]
    assert lt.shape == tuple(tt.shape)
    assert lt._version == 0 and lt.is_contiguous()
    got = to_numpy(lt)
    want = (tt.float() if tt.dtype is torch.bfloat16 else tt).numpy()
    if lt.dtype.is_floating_point or lt.dtype.is_complex:
        # torch computes half-precision ranges in half precision; lucid rounds once
        tol = {"float16": 1e-3, "bfloat16": 8e-3}.get(lt.dtype.name, 1e-6)
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol if tol > 1e-6 else 1e-6)
    else:
        np.testing.assert_array_equal(got, want)


NUMPY_FACTORY_CASES = [
    ("zeros(2, 3)", lambda: np.zeros((2, 3), np.float32)),
    ("ones(2, dtype=lucid.int16)", lambda: np.ones(2, np.int16)),
    ("full((2, 2), 7.5, dtype=lucid.float64)", lambda: np.full((2, 2), 7.5)),
    ("eye(3, 4)", lambda: np.eye(3, 4, dtype=np.float32)),
    ("arange(2, 11, 3)", lambda: np.arange(2, 11, 3)),
    ("arange(0.0, 1.0, 0.125)", lambda: np.arange(0.0, 1.0, 0.125, dtype=np.float32)),
    ("linspace(-1, 1, 9, dtype=lucid.float64)", lambda: np.linspace(-1, 1, 9)),
    ("logspace(0, 4, 5, dtype=lucid.float64)", lambda: np.logspace(0, 4, 5)),
    ("logspace(0, 4, 5, base=2.0, dtype=lucid.float64)", lambda: np.logspace(0, 4, 5, base=2.0)),
]


@pytest.mark.parametrize("expr,ref", NUMPY_FACTORY_CASES, ids=[c[0] for c in NUMPY_FACTORY_CASES])
def test_factory_vs_numpy(expr, ref):
    t = eval("lucid." + expr, {"lucid": lucid})
    want = ref()
    assert to_numpy(t).dtype == want.dtype
    np.testing.assert_allclose(to_numpy(t), want, rtol=1e-12)


def test_empty_shapes_and_dtypes():
    for d in ALL_DTYPES:
        t = lucid.empty(2, 3, dtype=d)
        assert t.shape == (2, 3) and t.dtype is d and t.is_contiguous()
    assert lucid.empty((4,)).shape == (4,)
    assert lucid.empty([]).shape == ()
    assert lucid.empty(0, 5).numel() == 0


def test_factory_errors():
    with pytest.raises(ValueError):
        lucid.zeros(-1)
    with pytest.raises(TypeError):
        lucid.zeros(2.5)
    with pytest.raises(ValueError):
        lucid.eye(-1)
    with pytest.raises(ValueError):
        lucid.arange(0, 5, 0)
    with pytest.raises(ValueError):
        lucid.arange(0, 5, -1)
    with pytest.raises(ValueError):
        lucid.linspace(0, 1, -1)


def test_factories_accept_tensor_arguments():
    assert lucid.arange(lucid.tensor(3)).tolist() == [0, 1, 2]
    assert lucid.full((2,), lucid.tensor(1.5)).tolist() == [1.5, 1.5]
    assert lucid.zeros(lucid.tensor(2), 3).shape == (2, 3)


# ---------------------------------------------------------------------------------------------
# *_like and new_*

@pytest.mark.parametrize("d", ALL_DTYPES, ids=lambda d: d.name)
def test_like_factories(d):
    x = lucid.ones(2, 3, dtype=d).T              # non-contiguous source: the result is contiguous
    for f, fill in [(lucid.zeros_like, 0), (lucid.ones_like, 1), (lucid.empty_like, None)]:
        y = f(x)
        assert y.shape == (3, 2) and y.dtype is d and y.device == x.device and y.is_contiguous()
        assert not y._is_view_of(x)
        if fill is not None:
            np.testing.assert_array_equal(to_numpy(y), np.full((3, 2), fill).astype(to_numpy(y).dtype))
    y = lucid.full_like(x, 1)
    assert y.dtype is d and y.tolist() == lucid.ones(3, 2, dtype=d).tolist()
    assert lucid.zeros_like(x, dtype=lucid.float64).dtype is lucid.float64
    assert lucid.ones_like(x, device="cpu").device == "cpu"


def test_full_like_casts_the_fill_value():
    x = lucid.zeros(2, dtype=lucid.int32)
    assert lucid.full_like(x, 2.7).tolist() == [2, 2]
    assert lucid.full_like(x, 2.7).dtype is lucid.int32
    assert lucid.full_like(lucid.zeros(2), 7).dtype is lucid.float32


def test_like_vs_torch(torch):
    for d in ALL_DTYPES:
        x = lucid.ones(2, 3, dtype=d)
        tx = torch.ones(2, 3, dtype=getattr(torch, d.name))
        for name in ["zeros_like", "ones_like", "empty_like"]:
            assert getattr(lucid, name)(x).dtype.name == str(getattr(torch, name)(tx).dtype)[6:]
        assert lucid.full_like(x, 1).dtype.name == str(torch.full_like(tx, 1).dtype)[6:]


@pytest.mark.parametrize("d", [lucid.float32, lucid.float64, lucid.int32, lucid.bool_, lucid.complex64],
                         ids=lambda d: d.name)
def test_new_factories(d):
    x = lucid.ones(2, 2, dtype=d)
    for name, args, fill in [("new_zeros", (3,), 0), ("new_ones", ((2, 3),), 1), ("new_empty", (4,), None),
                             ("new_full", ((2,), 1), 1)]:
        y = getattr(x, name)(*args)
        assert y.dtype is d and y.device == "cpu" and not y._is_view_of(x)
        if fill is not None:
            assert y.tolist() == lucid.full(y.shape, fill, dtype=d).tolist()
    assert x.new_zeros(2, 3).shape == (2, 3)
    assert x.new_zeros(()).shape == ()
    assert x.new_ones(3, dtype=lucid.int8).dtype is lucid.int8
    assert x.new_empty(2, dtype=lucid.float16).dtype is lucid.float16
    assert x.new_full((2,), 5, dtype=lucid.float64).tolist() == [5.0, 5.0]


def test_new_tensor_always_copies():
    x = lucid.ones(2, dtype=lucid.int32)
    y = x.new_tensor([1.7, 2.2])
    assert y.dtype is lucid.int32 and y.tolist() == [1, 2]       # self's dtype, truncated
    src = lucid.arange(3.0)
    c = src.new_tensor(src)
    assert not c._is_view_of(src) and c.tolist() == [0.0, 1.0, 2.0]
    c[0] = 5.0
    assert src[0].item() == 0.0
    a = np.arange(3.0, dtype=np.float32)
    n = src.new_tensor(a)
    assert n.data_ptr() != a.ctypes.data
    assert x.new_tensor([1.5], dtype=lucid.float64).dtype is lucid.float64


def test_new_tensor_vs_torch(torch):
    x, tx = lucid.ones(2, dtype=lucid.int32), torch.ones(2, dtype=torch.int32)
    assert x.new_tensor([1.7, -2.2]).tolist() == tx.new_tensor([1.7, -2.2]).tolist()
    f, tf = lucid.ones(2, dtype=lucid.float64), torch.ones(2, dtype=torch.float64)
    assert str(f.new_tensor([1, 2]).dtype)[6:] == str(tf.new_tensor([1, 2]).dtype)[6:]


@pytest.mark.parametrize("call", ["rand_like(lucid.ones(4, dtype=lucid.int32))",
                                  "randn_like(lucid.ones(4, dtype=lucid.int64))",
                                  "rand(4, dtype=lucid.int32)"])
def test_float_random_with_integer_dtype_raises(call):
    with pytest.raises((TypeError, RuntimeError, NotImplementedError, ValueError)):
        eval("lucid." + call, {"lucid": lucid})


@pytest.mark.cuda
def test_dlpack_cuda_both_ways(torch):
    """CUDA tensors cross to PyTorch and back without a copy, and writes show through."""
    t = lucid.arange(6.0, device="cuda").reshape(2, 3)
    assert t.__dlpack_device__() == (2, 0)      # kDLCUDA, device 0
    tt = torch.from_dlpack(t)
    assert tt.is_cuda and tt.data_ptr() == t.data_ptr()
    assert tt.cpu().tolist() == t.cpu().tolist()
    tt[0, 0] = 42.0
    torch.cuda.synchronize()
    assert t[0, 0].item() == 42.0
    src = torch.arange(12, dtype=torch.float64, device="cuda").reshape(3, 4).t()
    u = lucid.from_dlpack(src)
    assert u.is_cuda and u.data_ptr() == src.data_ptr() and u.stride() == (1, 4)
    assert u.cpu().tolist() == src.cpu().tolist()
