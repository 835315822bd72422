"""The CPU copy kernel's transpose/permute path (contiguous() / clone() / copy_ of a transposed or
permuted view, copied in cache tiles): every dtype (1, 2, 4, 8 and 16-byte elements), sizes that are
not multiples of the tile, 0-size and 1-size dims, strided sources and transposed destinations,
compared exactly against NumPy."""
import numpy as np
import pytest

import lucid
from helpers import ALL_DTYPES, DTYPE_NAMES, np_dtype, to_numpy


def _make(shape, d):
    """A NumPy array and the matching lucid tensor of dtype d; distinct small values exact in every dtype."""
    n = int(np.prod(shape))
    v = (np.arange(n) * 7 % 113).reshape(shape)
    if d is lucid.bool_:
        a = (v % 3 == 0)
    elif d.is_complex:
        a = (v + 1j * ((np.arange(n) % 11).reshape(shape) - 5)).astype(np_dtype(d))
    else:
        a = v.astype(np_dtype(d))
    if d is lucid.bfloat16:
        return a, lucid.tensor(a).to(lucid.bfloat16)
    return a, lucid.tensor(a)


def _check(got, ref, d):
    assert got.dtype is d
    assert got.is_contiguous()
    assert tuple(got.shape) == ref.shape
    np.testing.assert_array_equal(to_numpy(got), ref)


SHAPES_2D = [(37, 45), (64, 32), (33, 1), (1, 40), (0, 5), (5, 0), (3, 7), (130, 17)]


@pytest.mark.parametrize("d", ALL_DTYPES, ids=DTYPE_NAMES)
@pytest.mark.parametrize("shape", SHAPES_2D, ids=[f"{m}x{n}" for m, n in SHAPES_2D])
def test_transpose_contiguous_every_dtype(d, shape):
    a, x = _make(shape, d)
    _check(x.mT.contiguous(), a.T, d)
    _check(x.t().clone(), a.T, d)


PERMS = [
    ((3, 20, 9, 11), (0, 2, 3, 1)),
    ((3, 9, 11, 20), (0, 3, 1, 2)),
    ((5, 17, 19), (2, 1, 0)),
    ((4, 1, 33, 6), (3, 1, 0, 2)),
    ((2, 0, 8, 9), (0, 2, 3, 1)),
    ((6, 35, 35), (0, 2, 1)),
]


@pytest.mark.parametrize("d", ALL_DTYPES, ids=DTYPE_NAMES)
@pytest.mark.parametrize("shape,perm", PERMS, ids=[f"{s}-{p}" for s, p in PERMS])
def test_permute_contiguous_every_dtype(d, shape, perm):
    a, x = _make(shape, d)
    _check(x.permute(*perm).contiguous(), a.transpose(perm), d)


@pytest.mark.parametrize("d", [lucid.bool_, lucid.int16, lucid.float32, lucid.float64, lucid.complex128],
                         ids=lambda d: d.name)
def test_strided_source_and_movedim(d):
    a, x = _make((50, 70), d)
    _check(x[::2, 3:].mT.contiguous(), a[::2, 3:].T, d)
    _check(x[1:40:3, ::2].mT.contiguous(), a[1:40:3, ::2].T, d)
    b, y = _make((4, 21, 23), d)
    _check(lucid.movedim(y, 0, 2).contiguous(), np.moveaxis(b, 0, 2), d)
    _check(y.transpose(0, 2).clone(), b.transpose(2, 1, 0), d)


@pytest.mark.parametrize("d", [lucid.uint8, lucid.float16, lucid.float32, lucid.int64, lucid.complex64],
                         ids=lambda d: d.name)
def test_copy_into_transposed_destination(d):
    a, x = _make((41, 29), d)
    out = lucid.zeros(29, 41, dtype=d)
    out.mT.copy_(x)  # destination strided along its innermost dim, source contiguous
    _check(out, a.T, d)
    b, y = _make((29, 41), d)
    z = lucid.zeros(41, 29, dtype=d)
    z.copy_(y.mT)
    _check(z, b.T, d)


def test_large_transpose_across_threads():
    a = np.random.default_rng(0).standard_normal((300, 513)).astype(np.float32)
    x = lucid.tensor(a)
    np.testing.assert_array_equal(x.mT.contiguous().numpy(), a.T)
    np.testing.assert_array_equal(x.reshape(3, 100, 513).permute(2, 0, 1).contiguous().numpy(),
                                  a.reshape(3, 100, 513).transpose(2, 0, 1))


def test_transpose_then_cast_matches_numpy():
    a = (np.arange(45 * 37) % 50).reshape(45, 37).astype(np.float32)
    x = lucid.tensor(a)
    np.testing.assert_array_equal(x.mT.to(lucid.float64).numpy(), a.T.astype(np.float64))
    np.testing.assert_array_equal(x.mT.to(lucid.int32).numpy(), a.T.astype(np.int32))
