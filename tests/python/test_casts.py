"""Casts and moves: to(dtype / device / other / copy=True), the cast methods, type_as, cpu/cuda,
pin_memory / is_pinned / share_memory_, and cast values against NumPy's astype for every pair of
dtypes (complex -> real drops the imaginary part, float -> int truncates toward zero, -> bool is
"nonzero")."""
import warnings

import numpy as np
import pytest

import lucid
from helpers import ALL_DTYPES, CUDA, cast_ref, from_numpy_ref, round_bf16, to_numpy

dtype_ids = [d.name for d in ALL_DTYPES]


def _cat(d):
    return 0 if d is lucid.bool_ else 3 if d.is_complex else 2 if d.is_floating_point else 1


def _source_values(src, dst):
    """Values of dtype `src` whose cast to `dst` is defined (no float -> int overflow, no negative float ->
    uint8), covering zero, signs, fractions and integer wrap-around."""
    if src is lucid.bool_:
        return np.array([True, False, True, True, False, False])
    if _cat(src) == 1:
        v = [0, 1, -1, 7, -8, 100, -100, 127, -128]
        if src is lucid.uint8:
            v = [0, 1, 7, 100, 127, 128, 200, 255, 3]
        elif src.itemsize >= 2:
            v += [300, -200, 1000, -1025, 2049]          # wrap in 8-bit targets, round in float16/bfloat16
        if src.itemsize >= 4:
            v += [70000, -65537, 2 ** 20 + 1]
        return np.array(v).astype(np.dtype(src.name))
    v = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 0.125, 99.875, -100.0, 7.75, -7.75, 0.5, 1e-3, 3.0])
    if dst is lucid.uint8:
        v = np.abs(v)
    if _cat(dst) >= 2 or dst is lucid.bool_:
        v = np.concatenate([v, [60000.0, -0.3]])        # exercises float16 rounding, bool of a small value
    if src.is_complex:
        im = np.linspace(-2, 2, v.size)
        im[0] = 0.0
        return (v + 1j * im).astype(np.dtype(src.name))
    return cast_ref(v, src)


def _expected_cast(ref, dst):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dst is lucid.bool_:
            return ref != 0
        if dst is lucid.bfloat16:
            r = ref.real if np.iscomplexobj(ref) else ref
            return round_bf16(r.astype(np.float32))
        if np.iscomplexobj(ref) and _cat(dst) < 3:
            ref = ref.real
        if ref.dtype.kind == "f" and _cat(dst) == 1:
            ref = np.trunc(ref)
        return ref.astype(np.dtype(dst.name))


@pytest.mark.parametrize("dst", ALL_DTYPES, ids=dtype_ids)
@pytest.mark.parametrize("src", ALL_DTYPES, ids=dtype_ids)
def test_cast_values_vs_numpy(src, dst):
    ref = _source_values(src, dst)
    x = from_numpy_ref(ref, src)
    y = x.to(dst)
    assert y.dtype is dst
    if src is dst:
        assert y is x
    else:
        assert not y._is_view_of(x) and y._version == 0
    expected = _expected_cast(ref, dst)
    np.testing.assert_array_equal(to_numpy(y), expected, err_msg=f"{src.name} -> {dst.name}")
    # a strided source casts the same values
    big = np.concatenate([ref, ref])
    xs = from_numpy_ref(big, src)[::2]
    np.testing.assert_array_equal(to_numpy(xs.to(dst)), _expected_cast(big[::2], dst))


@pytest.mark.parametrize("dst", ALL_DTYPES, ids=dtype_ids)
@pytest.mark.parametrize("src", ALL_DTYPES, ids=dtype_ids)
def test_cast_values_vs_torch(torch, src, dst):
    ref = _source_values(src, dst)
    x = from_numpy_ref(ref, src)
    tx = torch.from_numpy(np.array(ref, copy=True)).to(getattr(torch, src.name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = tx.to(getattr(torch, dst.name))
    want = (want.float() if want.dtype is torch.bfloat16 else want).numpy()
    np.testing.assert_array_equal(to_numpy(x.to(dst)), want, err_msg=f"{src.name} -> {dst.name}")


def test_specific_cast_rules():
    assert lucid.tensor([1.5 + 2j, -2.5 - 1j]).to(lucid.float32).tolist() == [1.5, -2.5]     # drops imag
    assert lucid.tensor([-2.7 + 5j]).to(lucid.int32).tolist() == [-2]
    assert lucid.tensor([2.9, -2.9, 0.99, -0.99]).int().tolist() == [2, -2, 0, 0]            # toward zero
    assert lucid.tensor([2.9, -2.9]).long().tolist() == [2, -2]
    assert lucid.tensor([0.0, -0.0, 0.1, float("nan"), -3.0]).bool().tolist() == [False, False, True, True, True]
    assert lucid.tensor([1j, 0j, 0.5 + 0j]).bool().tolist() == [True, False, True]
    assert lucid.tensor([300, -200]).to(lucid.int8).tolist() == [44, 56]                    # wraps
    assert lucid.tensor([70000.0]).half().tolist() == [float("inf")]                        # overflow -> inf
    assert lucid.tensor([1.0 + 2 ** -9]).bfloat16().tolist() == [1.0]
    assert lucid.tensor([True, False]).float().tolist() == [1.0, 0.0]
    assert lucid.tensor([3]).cfloat().tolist() == [3 + 0j]


# ---------------------------------------------------------------------------------------------
# to(): argument forms and identity

def test_to_returns_self_when_nothing_changes():
    x = lucid.arange(6.0).reshape(2, 3)
    assert x.to(lucid.float32) is x
    assert x.to("cpu") is x
    assert x.to(lucid.device("cpu")) is x
    assert x.to(x) is x
    assert x.to(lucid.ones(1)) is x
    assert x.to("cpu", lucid.float32) is x
    assert x.to(device="cpu", dtype=lucid.float32) is x
    assert x.to(float) is x                                  # Python float = the default dtype
    assert x.to(dtype=None) is x
    assert x.cpu() is x
    assert x.float() is x
    assert x.type_as(lucid.ones(2)) is x


def test_to_copy_true_returns_a_new_tensor():
    x = lucid.arange(6.0)
    for y in [x.to(lucid.float32, copy=True), x.to("cpu", copy=True), x.to(x, copy=True), x.to(copy=True)]:
        assert y is not x
        assert not y._is_view_of(x)
        assert y.tolist() == x.tolist() and y.dtype is x.dtype
    y = x.to(lucid.float32, copy=True)
    y[0] = 100.0
    assert x[0].item() == 0.0


def test_to_argument_forms():
    x = lucid.arange(4.0)
    assert x.to(lucid.float64).dtype is lucid.float64
    assert x.to("cpu", lucid.int32).dtype is lucid.int32
    assert x.to(lucid.device("cpu"), dtype=lucid.int16).dtype is lucid.int16
    assert x.to(dtype=lucid.float16).dtype is lucid.float16
    assert x.to(other=lucid.ones(1, dtype=lucid.int8)).dtype is lucid.int8
    assert x.to(lucid.ones(1, dtype=lucid.complex64)).dtype is lucid.complex64
    assert x.to(int).dtype is lucid.int64 and x.to(bool).dtype is lucid.bool_
    assert x.to(complex).dtype is lucid.complex64
    assert x.to(np.dtype("float64")).dtype is lucid.float64
    assert x.to(lucid.float64, non_blocking=True).dtype is lucid.float64
    with pytest.raises(TypeError):
        x.to(lucid.float64, bogus=1)
    with pytest.raises(ValueError):
        x.to("tpu")


def test_to_other_takes_dtype_and_device():
    x = lucid.arange(3)
    other = lucid.zeros(2, dtype=lucid.float64)
    y = x.to(other)
    assert y.dtype is lucid.float64 and y.device == other.device
    assert y.tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("method,dtype", [
    ("float", lucid.float32), ("double", lucid.float64), ("half", lucid.float16), ("bfloat16", lucid.bfloat16),
    ("int", lucid.int32), ("long", lucid.int64), ("bool", lucid.bool_), ("short", lucid.int16),
    ("byte", lucid.uint8), ("char", lucid.int8), ("cfloat", lucid.complex64), ("cdouble", lucid.complex128),
])
def test_cast_methods(method, dtype):
    x = lucid.tensor([[0.0, 1.0], [2.0, 3.0]]).T
    y = getattr(x, method)()
    assert y.dtype is dtype
    assert y.shape == (2, 2)
    expected = [[0, 2], [1, 3]] if dtype is not lucid.bool_ else [[False, True], [True, True]]
    assert y.tolist() == expected
    assert getattr(y, method)() is y                   # already that dtype: self
    assert lucid.ones(2, dtype=dtype).to(dtype) is not None


def test_cast_methods_vs_torch(torch):
    data = [[-1.5, 0.0, 2.7], [100.25, -0.5, 1.0]]
    for m in ["float", "double", "half", "bfloat16", "int", "long", "bool", "short", "char", "cfloat", "cdouble"]:
        got = getattr(lucid.tensor(data), m)()
        want = getattr(torch.tensor(data), m)()
        assert got.dtype.name == str(want.dtype)[6:]
        w = want.float() if want.dtype is torch.bfloat16 else want
        np.testing.assert_array_equal(to_numpy(got), w.numpy())


def test_type_as_and_type():
    x = lucid.tensor([1.7, -2.2])
    assert x.type_as(lucid.ones(1, dtype=lucid.int64)).tolist() == [1, -2]
    assert x.type_as(lucid.ones(1, dtype=lucid.float64)).dtype is lucid.float64
    assert x.type() == "lucid.FloatTensor"
    assert x.long().type() == "lucid.LongTensor"
    assert x.type(lucid.float64).dtype is lucid.float64
    assert x.type(lucid.float32) is x


def test_cast_does_not_touch_source_or_version():
    x = lucid.arange(4.0)
    v = x._version
    y = x.to(lucid.int32)
    y[0] = 9
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0] and x._version == v


def test_cast_of_non_contiguous_and_empty():
    x = lucid.arange(12.0).reshape(3, 4)
    y = x.T[1:, ::2].to(lucid.int64)
    assert y.tolist() == np.arange(12).reshape(3, 4).T[1:, ::2].tolist()
    assert lucid.zeros(0, 3).to(lucid.int8).shape == (0, 3)
    assert lucid.tensor(2.5).to(lucid.int64).item() == 2
    e = lucid.zeros(3, 1).expand(3, 4).to(lucid.float64)
    assert e.shape == (3, 4) and e.tolist() == [[0.0] * 4] * 3


# ---------------------------------------------------------------------------------------------
# devices, pinning, sharing

def test_cpu_is_identity_on_cpu():
    x = lucid.ones(2)
    assert x.cpu() is x
    assert x.to("cpu") is x


def test_pin_memory_and_share_memory_without_cuda():
    x = lucid.ones(3)
    assert x.is_pinned() is False
    if not CUDA:
        with pytest.raises(lucid.LucidError, match="pin_memory"):
            x.pin_memory()
        with pytest.raises(lucid.LucidError):
            lucid.empty(3, pin_memory=True)
        with pytest.raises(lucid.LucidError):
            lucid.tensor([1.0], pin_memory=True)
    assert x.share_memory_() is x
    assert x.is_shared() is False


@pytest.mark.cuda
def test_pin_memory_with_cuda():
    x = lucid.arange(4.0)
    p = x.pin_memory()
    assert p.is_pinned() and p.is_cpu and p.tolist() == x.tolist()
    assert not x.is_pinned()
    assert p.pin_memory().is_pinned()
    e = lucid.empty(3, pin_memory=True)
    assert e.is_pinned()
    np.testing.assert_array_equal(to_numpy(p.cuda(non_blocking=True)), to_numpy(x))


@pytest.mark.cuda
@pytest.mark.parametrize("d", ALL_DTYPES, ids=dtype_ids)
def test_cuda_round_trip(d, rng):
    ref = _source_values(d, d)
    x = from_numpy_ref(ref, d)
    g = x.cuda()
    assert g.is_cuda and g.dtype is d and g.device == "cuda:0"
    assert g.cuda() is g and g.to("cuda") is g and g.to("cuda:0") is g
    assert g.to("cuda", copy=True) is not g
    back = g.cpu()
    assert back.is_cpu
    np.testing.assert_array_equal(to_numpy(back), to_numpy(x))
    assert g.tolist() == x.tolist()
    # move and cast at once, both directions
    for dst in [lucid.float64, lucid.int32, lucid.bool_]:
        np.testing.assert_array_equal(to_numpy(x.to("cuda", dst).cpu()), to_numpy(x.to(dst)))
        np.testing.assert_array_equal(to_numpy(g.to("cpu", dst)), to_numpy(x.to(dst)))
    # strided views move with their values
    assert x[::2].cuda().tolist() == x[::2].tolist()


@pytest.mark.cuda
@pytest.mark.parametrize("dst", ALL_DTYPES, ids=dtype_ids)
@pytest.mark.parametrize("src", ALL_DTYPES, ids=dtype_ids)
def test_cuda_casts_match_cpu(src, dst):
    ref = _source_values(src, dst)
    x = from_numpy_ref(ref, src)
    np.testing.assert_array_equal(to_numpy(x.cuda().to(dst)), to_numpy(x.to(dst)), err_msg=f"{src.name}->{dst.name}")
