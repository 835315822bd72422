"""lucid's own float32 GEMM (engine/backend/cpu/sgemm.cpp) against float64 numpy: the four transpose
layouts, shapes around every tile and block edge (14-row by 32-column register tiles, 256-deep
blocks of the inner dimension, 168-row blocks of A), strided views, batched and broadcast batches,
NaN/Inf propagation, 1 and 2 threads. `_set_sgemm_mode(2)` runs it at every size (by default only
sizes where it beats OpenBLAS take it); on a CPU without AVX-512 these tests run OpenBLAS."""
import numpy as np
import pytest

import lucid

_C = lucid._C


@pytest.fixture(autouse=True, params=[1, 2], ids=["1thread", "2threads"])
def sgemm_everywhere(request):
    mode, threads = _C._sgemm_mode(), lucid.get_num_threads()
    _C._set_sgemm_mode(2)
    lucid.set_num_threads(request.param)
    yield
    _C._set_sgemm_mode(mode)
    lucid.set_num_threads(threads)


def _r(shape, seed):
    return np.random.default_rng([seed, *shape]).standard_normal(shape).astype(np.float32)


def _check(out, a, b):
    """out (float32) against the float64 product, to a bound on float32 rounding growing with K."""
    ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
    k = a.shape[-1]
    scale = np.matmul(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
    err = np.abs(out.astype(np.float64) - ref)
    assert out.shape == ref.shape
    assert np.all(err <= 2 * k * 2.0 ** -24 * scale + 1e-30), float((err / (scale + 1e-30)).max())


def _operand(x, trans):
    """x as a lucid tensor, stored transposed (a transposed view of a contiguous tensor) if trans."""
    if trans:
        return lucid.tensor(np.ascontiguousarray(np.swapaxes(x, -1, -2))).transpose(-1, -2)
    return lucid.tensor(x)


SHAPES = [(m, n, k) for m in (2, 13, 14, 15, 29) for n in (2, 15, 16, 17, 31, 32, 33) for k in (1, 7, 33)] + [
    (127, 129, 255), (129, 127, 257), (168, 65, 256), (169, 96, 513), (255, 257, 129), (257, 255, 100),
    (33, 300, 600), (340, 33, 17), (3, 1000, 40), (1000, 3, 40), (20, 1000, 60), (40, 700, 300), (20, 1100, 300),
    (64, 64, 64),
    (150, 1030, 520),  # rows within one block, B beyond L2: packed a panel at a time, by columns on 2 threads
    (256, 256, 256),
]


@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)],
                         ids=["nn", "nt", "tn", "tt"])
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_layouts_and_edges(m, n, k, ta, tb):
    a, b = _r((m, k), 1), _r((k, n), 2)
    out = lucid.matmul(_operand(a, ta), _operand(b, tb)).numpy()
    _check(out, a, b)


@pytest.mark.parametrize("m,n,k", [(1, 40, 50), (40, 1, 50), (1, 1, 50), (3, 5, 1), (3, 5, 0)])
def test_vectors_and_empty_inner(m, n, k):
    a, b = _r((m, k), 3), _r((k, n), 4)
    out = lucid.matmul(lucid.tensor(a), lucid.tensor(b)).numpy()
    if k == 0:
        assert np.array_equal(out, np.zeros((m, n), np.float32))
    else:
        _check(out, a, b)


def test_strided_views():
    # leading dimensions larger than the rows (slices of wider tensors), both ways round
    big_a, big_b = _r((70, 90), 5), _r((90, 100), 6)
    a = big_a[3:60, 5:86]           # 57 x 81, ld 90
    b = big_b[:81, 7:93]            # 81 x 86, ld 100
    la = lucid.tensor(big_a)[3:60, 5:86]
    lb = lucid.tensor(big_b)[:81, 7:93]
    _check(lucid.matmul(la, lb).numpy(), a, b)
    # transposed slices: A^T from a (81 x 57) slice of a wider tensor
    bt = _r((100, 120), 7)
    lat = lucid.tensor(bt)[10:91, 20:77].transpose(0, 1)  # 57 x 81, trans, ld 120
    _check(lucid.matmul(lat, lb).numpy(), bt[10:91, 20:77].T, b)
    # a layout that fits neither way (every other column): copied, then the same kernel
    wide = _r((57, 170), 8)
    lc = lucid.tensor(wide)[:, ::2][:, :81]
    _check(lucid.matmul(lc, lb).numpy(), wide[:, ::2][:, :81], b)


@pytest.mark.parametrize("tb", [False, True])
def test_batched_and_broadcast(tb):
    a, b = _r((5, 37, 45), 8), _r((5, 45, 70), 9)
    _check(lucid.matmul(lucid.tensor(a), _operand(b, tb)).numpy(), a, b)
    # broadcast batch: one B for every A (stride 0 batch), and one A for every B
    b1 = _r((45, 70), 10)
    _check(lucid.matmul(lucid.tensor(a), _operand(b1, tb)).numpy(), a, b1)
    a4, b4 = _r((2, 1, 37, 45), 11), _r((1, 3, 45, 70), 12)
    _check(lucid.matmul(lucid.tensor(a4), _operand(b4, tb)).numpy(), a4, b4)
    _check(lucid.bmm(lucid.tensor(a), _operand(b, tb)).numpy(), a, b)


@pytest.mark.parametrize("mode", [1, 0], ids=["auto", "openblas"])
def test_batched_small_products(mode):
    # the default dispatch: small products of a batch spread over the threads (OpenBLAS or lucid's)
    _C._set_sgemm_mode(mode)
    for shape_a, shape_b in [((40, 20, 30), (40, 30, 25)), ((40, 20, 30), (30, 25)), ((64, 1, 30), (64, 30, 9)),
                             ((3, 64, 96), (3, 96, 200)), ((16, 64, 64), (64, 64))]:
        a, b = _r(shape_a, 24), _r(shape_b, 25)
        _check(lucid.matmul(lucid.tensor(a), lucid.tensor(b)).numpy(), a, b)
        _check(lucid.matmul(lucid.tensor(a), _operand(b, True)).numpy(), a, b)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, True)], ids=["nn", "tt"])
def test_nan_inf_propagate(ta, tb):
    m, n, k = 40, 50, 300
    a, b = _r((m, k), 13), _r((k, n), 14)
    a[3, 7] = np.nan          # row 3 all NaN
    a[5, :] = 0.0
    b[:, 9] = 0.0
    b[11, 20] = np.inf        # column 20: inf (a[m, 11] > 0), -inf (< 0), NaN where a[m, 11] == 0
    a[6, 11] = 0.0
    b[200, 30] = np.nan       # column 30 all NaN, even for the zero row 5 (0 * NaN = NaN)
    out = lucid.matmul(_operand(a, ta), _operand(b, tb)).numpy()
    with np.errstate(invalid="ignore", over="ignore"):
        ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
    assert np.array_equal(np.isnan(out), np.isnan(ref))
    assert np.array_equal(np.isposinf(out), np.isposinf(ref))
    assert np.array_equal(np.isneginf(out), np.isneginf(ref))
    assert np.isnan(out[3]).all() and np.isnan(out[:, 30]).all() and np.isnan(out[6, 20])
    fin = np.isfinite(ref)
    assert np.allclose(out[fin], ref[fin], rtol=1e-4, atol=1e-4)


def test_linear_and_addmm():
    # F.linear (x @ w.T with the fused bias) and addmm reach the same GEMM
    x, w, bias = _r((33, 70), 15), _r((45, 70), 16), _r((45,), 17)
    y = lucid.nn.functional.linear(lucid.tensor(x), lucid.tensor(w), lucid.tensor(bias)).numpy()
    ref = x.astype(np.float64) @ w.T.astype(np.float64) + bias
    assert np.allclose(y, ref, rtol=1e-4, atol=1e-4)
    c = _r((33, 45), 18)
    z = lucid.addmm(lucid.tensor(c), lucid.tensor(x), lucid.tensor(w).transpose(0, 1), beta=0.5, alpha=2.0).numpy()
    assert np.allclose(z, 0.5 * c + 2.0 * (x.astype(np.float64) @ w.T.astype(np.float64)), rtol=1e-4, atol=1e-4)


def test_gradients_through_the_kernel():
    # matmul's backward runs the transposed layouts (dz @ w, dz^T @ x)
    a, b = _r((29, 47), 19), _r((47, 33), 20)
    la, lb = lucid.tensor(a, requires_grad=True), lucid.tensor(b, requires_grad=True)
    g = _r((29, 33), 21)
    (lucid.matmul(la, lb) * lucid.tensor(g)).sum().backward()
    _check(la.grad.numpy(), g, b.T)
    _check(lb.grad.numpy(), a.T, g)


def test_same_result_with_openblas():
    # within float32 rounding of OpenBLAS's result (the summation order may differ)
    a, b = _r((200, 300), 22), _r((300, 150), 23)
    ours = lucid.matmul(lucid.tensor(a), lucid.tensor(b)).numpy()
    _C._set_sgemm_mode(0)
    theirs = lucid.matmul(lucid.tensor(a), lucid.tensor(b)).numpy()
    assert np.allclose(ours, theirs, rtol=1e-5, atol=1e-4)
