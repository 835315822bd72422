"""Shared fixture and helpers of the autograd test modules (test_autograd*.py)."""
import gc
import threading

import numpy as np
import pytest

import lucid
from lucid import autograd


@pytest.fixture(autouse=True)
def _grad_mode_is_restored():
    """Every test must leave grad mode on and inference mode off."""
    yield
    leaked = (not lucid.is_grad_enabled(), lucid.is_inference_mode_enabled())
    lucid._C._set_grad_enabled(True)
    lucid._C._set_inference_mode(False)
    assert leaked == (False, False), "a test leaked grad mode / inference mode"


# ---------------------------------------------------------------------------------------------
# helpers

def to_np(t):
    return None if t is None else np.array(t.detach().numpy(), copy=True)


def L(arr, dtype=lucid.float64, requires_grad=False):
    return lucid.tensor(np.asarray(arr), dtype=dtype, requires_grad=requires_grad)


def tol(dtype_name):
    return dict(rtol=1e-5, atol=1e-5) if dtype_name == "float32" else dict(rtol=1e-10, atol=1e-12)


def make_leaf(m, arr, dtype, layout):
    """(leaf, view): the leaf requires grad; `view(leaf)` is what the op sees (and view(leaf.grad) is the
    gradient with respect to it).

    contiguous: the op sees the leaf. transposed: the leaf holds the transposed data and the op sees a
    permuted (non-contiguous) view of it. strided: the op sees every other element of a longer leaf.
    leaf_nc: the leaf itself is a non-contiguous tensor (a transposed view made before requires_grad)."""
    arr = np.asarray(arr)
    nd = arr.ndim
    rev = tuple(range(nd))[::-1]
    ident = lambda t: t  # noqa: E731
    if layout == "contiguous" or nd == 0:
        return m.tensor(arr.copy(), dtype=dtype, requires_grad=True), ident
    if layout == "transposed":
        leaf = m.tensor(np.ascontiguousarray(arr.transpose(rev)), dtype=dtype, requires_grad=True)
        return leaf, lambda t: t.permute(*rev)
    if layout == "strided":
        big = np.zeros(arr.shape[:-1] + (2 * arr.shape[-1],), dtype=arr.dtype)
        big[..., ::2] = arr
        return m.tensor(big, dtype=dtype, requires_grad=True), lambda t: t[..., ::2]
    if layout == "leaf_nc":
        base = m.tensor(np.ascontiguousarray(arr.transpose(rev)), dtype=dtype)
        leaf = base.permute(*rev)
        leaf.requires_grad_(True)
        assert leaf.is_leaf
        return leaf, ident
    raise AssertionError(layout)


def inputs_for(shapes, seed=0):
    rng = np.random.default_rng(seed)
    # positive and away from 0 (div), not integers (exercise rounding)
    return [rng.uniform(0.5, 2.0, size=s) * rng.choice([1.0, 1.0, -1.0], size=s) if s != () else
            np.array(rng.uniform(0.5, 2.0)) for s in shapes]


def central_difference(f, arrays, grad_out, eps=1e-6):
    """d/d(arrays) of sum(f(arrays) * grad_out), by central differences in float64.

    f takes float64 numpy arrays and returns a numpy array (the forward computed with lucid)."""
    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a, dtype=np.float64)
        flat = g.reshape(-1)
        for k in range(a.size):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[i].reshape(-1)[k] += eps
            minus[i].reshape(-1)[k] -= eps
            fp = np.sum(np.asarray(f(plus)) * grad_out)
            fm = np.sum(np.asarray(f(minus)) * grad_out)
            flat[k] = (fp - fm) / (2 * eps)
        grads.append(g)
    return grads
