"""Helpers shared by the test files: dtype tables, reference arrays (bfloat16 in NumPy), tensor
layouts (contiguous, transposed, sliced, expanded), comparisons, and a subprocess runner for inputs
that may crash the interpreter."""
import os
import subprocess
import sys
import textwrap

import numpy as np

import lucid

# ---------------------------------------------------------------------------------------------
# dtypes

ALL_DTYPES = [lucid.bool_, lucid.uint8, lucid.int8, lucid.int16, lucid.int32, lucid.int64, lucid.float16,
              lucid.bfloat16, lucid.float32, lucid.float64, lucid.complex64, lucid.complex128]
DTYPE_NAMES = [d.name for d in ALL_DTYPES]
INT_DTYPES = [lucid.uint8, lucid.int8, lucid.int16, lucid.int32, lucid.int64]
FLOAT_DTYPES = [lucid.float16, lucid.bfloat16, lucid.float32, lucid.float64]
COMPLEX_DTYPES = [lucid.complex64, lucid.complex128]
NUMERIC_DTYPES = INT_DTYPES + FLOAT_DTYPES + COMPLEX_DTYPES

# NumPy has no bfloat16: its reference arrays are float32 arrays holding bfloat16-exact values.
NP_DTYPE = {
    "bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
    "int64": np.int64, "float16": np.float16, "bfloat16": np.float32, "float32": np.float32,
    "float64": np.float64, "complex64": np.complex64, "complex128": np.complex128,
}


def np_dtype(d):
    return np.dtype(NP_DTYPE[d.name])


def is_float(d):
    return d.is_floating_point


def is_int(d):
    return not d.is_floating_point and not d.is_complex and d is not lucid.bool_


def dtype_id(d):
    return d.name


def torch_dtype(torch, d):
    return getattr(torch, d.name)


def lucid_dtype_of_torch(td):
    return getattr(lucid, str(td).replace("torch.", ""))


# ---------------------------------------------------------------------------------------------
# devices

CUDA = lucid.cuda.is_available()
DEVICES = ["cpu"] + (["cuda"] if CUDA else [])


# ---------------------------------------------------------------------------------------------
# bfloat16 in NumPy (round to nearest even on the float32 bit pattern)

def round_bf16(x):
    x = np.array(x, dtype=np.float32, copy=True)    # (np.ascontiguousarray would make 0-d arrays 1-d)
    shape = x.shape
    x = x.reshape(-1)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = rounded.astype(np.uint32).view(np.float32).copy()
    nan = np.isnan(x)
    out[nan] = np.nan
    return out.reshape(shape)


def cast_ref(arr, d):
    """A NumPy array cast to the reference representation of lucid dtype `d`."""
    arr = np.asarray(arr)
    if d is lucid.bfloat16:
        if np.iscomplexobj(arr):
            arr = arr.real
        return round_bf16(arr.astype(np.float32))
    target = np_dtype(d)
    if np.iscomplexobj(arr) and target.kind != "c":
        arr = arr.real
    with np.errstate(over="ignore", invalid="ignore"):     # float16 overflow to inf is intended
        return arr.astype(target)


# ---------------------------------------------------------------------------------------------
# tensors <-> NumPy

def to_numpy(t):
    """A NumPy copy of a lucid tensor (any device); bfloat16 comes back as float32, decoded from the
    raw bytes so that it does not depend on lucid's own casts."""
    if t.dtype is lucid.bfloat16:
        raw = np.frombuffer(t.to_bytes(), dtype=np.uint16).astype(np.uint32) << 16
        return raw.view(np.float32).reshape(tuple(t.shape)).copy()
    if t.device.type != "cpu":
        t = t.cpu()
    return np.array(t.numpy(), copy=True)


def from_numpy_ref(ref, d, device="cpu"):
    """A contiguous lucid tensor of dtype `d` holding the values of a reference array."""
    # from_numpy of a private copy (lucid.tensor(0-d array) is 1-d, and arrays with a 0-size dim lose
    # their later dims in from_numpy: see test_creation; empty tensors come from lucid.zeros)
    if np.asarray(ref).size == 0:
        t = lucid.zeros(*np.shape(ref), dtype=d)
        return t.to(device) if device != "cpu" else t
    if d is lucid.bfloat16:
        t = lucid.from_numpy(np.array(ref, dtype=np.float32, copy=True)).to(lucid.bfloat16)
    else:
        t = lucid.from_numpy(np.array(ref, dtype=np_dtype(d), copy=True))
    assert t.dtype is d
    return t.to(device) if device != "cpu" else t


def random_array(shape, d, rng, kind="default"):
    """Values exactly representable in `d` (as a reference array). kind='nonzero' avoids zeros
    (divisors); kind='small' keeps integers tiny (products); 'positive', 'unit' (inside (-1, 1)) and
    'ge1' (above 1) and 'prob' (inside (0, 1)) keep math functions inside
    their domains."""
    shape = tuple(shape)
    if d is lucid.bool_:
        a = rng.random(shape) < 0.5
        if kind == "nonzero":
            a = np.ones(shape, dtype=bool)
        return a
    if is_int(d):
        lo, hi = (0, 10) if d is lucid.uint8 else (-9, 10)
        if kind == "small":
            lo, hi = (0, 4) if d is lucid.uint8 else (-3, 4)
        if kind in ("positive", "ge1"):
            lo, hi = 1, 10
        if kind == "unit":
            lo, hi = 0, 1
        a = rng.integers(lo, hi, size=shape).astype(np_dtype(d))
        if kind == "nonzero":
            a[a == 0] = 1
        return a
    if d.is_complex:
        re = rng.uniform(-2, 2, size=shape)
        im = rng.uniform(-2, 2, size=shape)
        if kind == "nonzero":
            re = np.sign(re + 1e-9) * (0.25 + np.abs(re))
        return (re + 1j * im).astype(np_dtype(d))
    a = rng.uniform(-2, 2, size=shape)
    if kind == "nonzero":
        a = np.sign(a + 1e-9) * (0.25 + np.abs(a))
    elif kind == "positive":
        a = 0.25 + np.abs(a)
    elif kind == "unit":
        a = a * 0.45
    elif kind == "ge1":
        a = 1.25 + np.abs(a)
    elif kind == "prob":
        a = 0.05 + 0.45 * np.abs(a)
    return cast_ref(a, d)


LAYOUTS = ["contiguous", "transposed", "sliced", "expanded"]


def make_tensor(shape, d, rng, layout="contiguous", kind="default", device="cpu"):
    """(tensor, reference array) with the same logical values. Layouts:
    contiguous; transposed (a permuted view of a contiguous buffer: strides reversed);
    sliced (offset and step > 1 in every dim); expanded (a size-1 dim expanded, stride 0).
    Layouts that cannot apply (0-d, 1-d for transposed, no dim > 1 for expanded) return None."""
    shape = tuple(shape)
    nd = len(shape)
    if layout == "contiguous":
        ref = random_array(shape, d, rng, kind)
        return from_numpy_ref(ref, d, device), ref
    if layout == "transposed":
        if nd < 2:
            return None
        perm = tuple(reversed(range(nd)))
        ref = random_array(shape, d, rng, kind)
        base = from_numpy_ref(np.ascontiguousarray(ref.transpose(perm)), d, device)
        t = base.permute(perm)
        assert tuple(t.shape) == shape
        if t.numel() > 1 and sum(s > 1 for s in shape) > 1:
            assert not t.is_contiguous()
        return t, ref
    if layout == "sliced":
        if nd == 0:
            return None
        big_shape = tuple(2 * s + 1 for s in shape)
        big = random_array(big_shape, d, rng, kind)
        base = from_numpy_ref(big, d, device)
        idx = tuple(slice(1, None, 2) for _ in shape)
        t = base[idx]
        ref = big[idx]
        assert tuple(t.shape) == shape, (t.shape, shape)
        if t.numel() > 1:
            assert not t.is_contiguous()
        return t, np.ascontiguousarray(ref)
    if layout == "expanded":
        dims = [i for i, s in enumerate(shape) if s > 1]
        if not dims:
            return None
        small_shape = list(shape)
        small_shape[dims[0]] = 1
        small = random_array(small_shape, d, rng, kind)
        t = from_numpy_ref(small, d, device).expand(*shape)
        assert t.stride(dims[0]) == 0
        return t, np.ascontiguousarray(np.broadcast_to(small, shape))
    raise ValueError(layout)


# ---------------------------------------------------------------------------------------------
# comparisons

TOL = {
    "float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2), "float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12),
    "complex64": (1e-5, 1e-5), "complex128": (1e-12, 1e-12),
}


def assert_close(actual, expected, dtype=None, rtol=None, atol=None, msg=""):
    """`actual` is a lucid tensor; `expected` a reference array (or anything array-like). Checks dtype
    (when given), shape, and values: exact for integers and bools, to tolerance for floats."""
    assert isinstance(actual, lucid.Tensor), type(actual)
    if dtype is not None:
        assert actual.dtype is dtype, f"{msg} dtype {actual.dtype} != {dtype}"
    expected = np.asarray(expected)
    assert tuple(actual.shape) == tuple(expected.shape), f"{msg} shape {tuple(actual.shape)} != {expected.shape}"
    got = to_numpy(actual)
    d = actual.dtype
    if d.is_floating_point or d.is_complex:
        r, a = TOL[d.name]
        r = r if rtol is None else rtol
        a = a if atol is None else atol
        np.testing.assert_allclose(got, expected.astype(got.dtype) if expected.dtype != got.dtype and
                                   got.dtype.kind == "c" else expected, rtol=r, atol=a, equal_nan=True,
                                   err_msg=msg)
    else:
        np.testing.assert_array_equal(got, expected, err_msg=msg)


def run_isolated(code, timeout=None):
    """Runs Python code in a fresh interpreter (for inputs that may crash the process)."""
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                          timeout=timeout)


def close(a, b, tol=1e-10):
    """a (a lucid tensor or array) equals b (a torch tensor or array) within rtol = atol = tol, shapes equal
    and NaNs at the same places: the nn tests' comparison against torch. bfloat16 torch tensors are read
    as float32."""
    a = a.detach().numpy() if isinstance(a, lucid.Tensor) else np.asarray(a)
    if hasattr(b, "detach"):
        b = b.detach()
        b = (b.float() if str(b.dtype) == "torch.bfloat16" else b).numpy()
    else:
        b = np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
