"""Shared fixture and helpers of test_autograd_function.py and test_autograd_tools.py."""
import os

import numpy as np
import pytest

import lucid
from lucid import autograd
from lucid.autograd import Function, GradcheckError, gradcheck, gradgradcheck, once_differentiable
from lucid.autograd import functional as F
from lucid.autograd.graph import save_on_cpu, saved_tensors_hooks
from lucid.utils.checkpoint import checkpoint, checkpoint_sequential


@pytest.fixture(autouse=True)
def _autograd_state_is_restored():
    """Every test must leave grad mode on, inference mode off and anomaly detection off."""
    yield
    leaked = (not lucid.is_grad_enabled(), lucid.is_inference_mode_enabled(), autograd.is_anomaly_enabled())
    lucid._C._set_grad_enabled(True)
    lucid._C._set_inference_mode(False)
    lucid._C._set_anomaly_enabled(False, True)
    assert leaked == (False, False, False), "a test leaked grad mode / inference mode / anomaly mode"


# ---------------------------------------------------------------------------------------------
# helpers

def to_np(t):
    return None if t is None else np.array(t.detach().numpy(), copy=True)


def L(arr, requires_grad=False):
    return lucid.tensor(np.asarray(arr, dtype=np.float64), dtype=lucid.float64, requires_grad=requires_grad)


def T(torch, arr, requires_grad=False):
    return torch.tensor(np.asarray(arr, dtype=np.float64), dtype=torch.float64, requires_grad=requires_grad)


def close(a, b, **kw):
    a, b = (np.asarray(to_np(t) if hasattr(t, "detach") else t, dtype=np.float64) for t in (a, b))
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, **kw)


X3 = [1.0, 2.0, -3.0]
A32 = [[0.5, -1.0], [2.0, 1.5], [-0.25, 0.75]]
B2 = [1.5, -0.5]


# ---------------------------------------------------------------------------------------------
# Custom Functions, written once for lucid and torch (`m` is the module).

def make_cube(m, once=False):
    """y = x**3 with backward 3 x**2 g written in differentiable ops (so double backward works)."""

    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x * x

    if once:
        backward = (autograd.once_differentiable if m is lucid else m.autograd.function.once_differentiable)(backward)

    class Cube(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

    Cube.backward = staticmethod(backward)
    return Cube


def make_two_out(m, log):
    """(x * y * scale, x + y): tensors x, y; a Python scale; an ignored non-tensor flag."""

    class TwoOut(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, scale, flag):
            log["forward_nig"] = tuple(ctx.needs_input_grad)
            ctx.scale = scale
            ctx.save_for_backward(x, y)
            return x * y * scale, x + y

        @staticmethod
        def backward(ctx, ga, gb):
            log["backward_nig"] = tuple(ctx.needs_input_grad)
            x, y = ctx.saved_tensors
            gx = ga * y * ctx.scale + gb if ctx.needs_input_grad[0] else None
            gy = ga * x * ctx.scale + gb if ctx.needs_input_grad[1] else None
            return gx, gy, None, None

    return TwoOut


def make_mul2_inplace(m):
    class Mul2Inplace(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Mul2Inplace
