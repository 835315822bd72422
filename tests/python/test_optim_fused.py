"""The fused optimizer kernels (_C._sgd_step_, _C._adam_step_): one kernel call per parameter, the
same numbers as PyTorch's optimizers, float16 state, non-contiguous parameters, and typed errors."""
import numpy as np
import pytest

import lucid
from lucid.profiler import profile


def _kernel_names(prof):
    return [e.name for e in prof.events() if e.kind == "kernel"]


def test_sgd_and_adam_take_one_kernel_per_parameter():
    w = lucid.nn.Parameter(lucid.randn(5, 3))
    b = lucid.nn.Parameter(lucid.randn(3))
    for opt, name in [(lucid.optim.SGD([w, b], lr=0.1, momentum=0.9, nesterov=True), "sgd"),
                      (lucid.optim.Adam([w, b], lr=0.01, amsgrad=True), "adam"),
                      (lucid.optim.AdamW([w, b], lr=0.01, weight_decay=0.1), "adam")]:
        for _ in range(2):
            w.grad, b.grad = lucid.ones(5, 3), lucid.ones(3)
            with profile() as prof:
                opt.step()
            names = _kernel_names(prof)
            assert names.count(name) == 2, names
            assert not {"mul", "sqrt", "div"} & set(names), names
            # the only adds are the 0-d step counters (kept as tensors, as PyTorch does)
            assert all(e.input_shapes == [[], [], []] for e in prof.events() if e.name == "add")


@pytest.mark.parametrize("kind", ["sgd", "sgd_wd_damp", "adam", "adamw_amsgrad_max"])
def test_fused_steps_match_torch(torch, kind):
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((4, 6)).astype(np.float32)
    lw = lucid.nn.Parameter(lucid.tensor(w0))
    tw = torch.nn.Parameter(torch.tensor(w0))
    if kind == "sgd":
        lo, to = lucid.optim.SGD([lw], lr=0.1, momentum=0.9), torch.optim.SGD([tw], lr=0.1, momentum=0.9)
    elif kind == "sgd_wd_damp":
        kw = dict(lr=0.05, momentum=0.5, dampening=0.3, weight_decay=0.01, maximize=True)
        lo, to = lucid.optim.SGD([lw], **kw), torch.optim.SGD([tw], **kw)
    elif kind == "adam":
        kw = dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)
        lo, to = lucid.optim.Adam([lw], **kw), torch.optim.Adam([tw], **kw)
    else:
        kw = dict(lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True)
        lo, to = lucid.optim.AdamW([lw], **kw), torch.optim.AdamW([tw], **kw)
    for step in range(5):
        g = rng.standard_normal((4, 6)).astype(np.float32)
        lw.grad, tw.grad = lucid.tensor(g), torch.tensor(g)
        lo.step()
        to.step()
        np.testing.assert_allclose(lw.detach().numpy(), tw.detach().numpy(), rtol=2e-6, atol=2e-6,
                                   err_msg=f"{kind} step {step}")


def test_non_contiguous_parameter_and_versions():
    base = lucid.randn(4, 6)
    p = base.T                                   # a transposed view as the parameter
    g = lucid.ones(6, 4)
    buf = lucid.zeros(6, 4)
    before = p.numpy().copy()
    v = p._version
    lucid._C._sgd_step_(p, g, buf, lr=0.5, momentum=0.9, dampening=0.0, weight_decay=0.0, nesterov=False,
                        maximize=False, first_step=True)
    np.testing.assert_allclose(p.numpy(), before - 0.5, rtol=1e-6)
    np.testing.assert_allclose(buf.numpy(), np.ones((6, 4)))
    assert p._version == v + 1 and base._version == v + 1


def test_half_parameters():
    p = lucid.ones(8, dtype=lucid.float16)
    m, v = lucid.zeros(8, dtype=lucid.float16), lucid.zeros(8, dtype=lucid.float16)
    lucid._C._adam_step_(p, lucid.ones(8, dtype=lucid.float16), m, v, None, step=1, lr=0.1, beta1=0.9, beta2=0.999,
                         eps=1e-8, weight_decay=0.0, amsgrad=False, maximize=False, decoupled_weight_decay=False)
    np.testing.assert_allclose(p.float().numpy(), np.full(8, 0.9), rtol=1e-3)


def test_complex_parameters_use_the_op_path(torch):
    w0 = np.array([1 + 2j, -0.5j], dtype=np.complex64)
    lw, tw = lucid.nn.Parameter(lucid.tensor(w0)), torch.nn.Parameter(torch.tensor(w0))
    lo, to = lucid.optim.SGD([lw], lr=0.1, momentum=0.9), torch.optim.SGD([tw], lr=0.1, momentum=0.9)
    for _ in range(2):
        g = np.array([0.5 - 1j, 2j], dtype=np.complex64)
        lw.grad, tw.grad = lucid.tensor(g), torch.tensor(g)
        lo.step()
        to.step()
    np.testing.assert_allclose(lw.detach().numpy(), tw.detach().numpy(), rtol=1e-6)


def test_errors():
    p = lucid.zeros(3)
    with pytest.raises(lucid.ShapeMismatch, match="grad"):
        lucid._C._sgd_step_(p, lucid.zeros(4), None, lr=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
                            nesterov=False, maximize=False, first_step=False)
    with pytest.raises(lucid.DtypeMismatch, match="exp_avg"):
        lucid._C._adam_step_(p, lucid.zeros(3), lucid.zeros(3, dtype=lucid.float64), lucid.zeros(3), None, step=1,
                             lr=0.1, beta1=0.9, beta2=0.99, eps=1e-8, weight_decay=0.0, amsgrad=False, maximize=False,
                             decoupled_weight_decay=False)
    with pytest.raises(ValueError, match="step"):
        lucid._C._adam_step_(p, lucid.zeros(3), lucid.zeros(3), lucid.zeros(3), None, step=0, lr=0.1, beta1=0.9,
                             beta2=0.99, eps=1e-8, weight_decay=0.0, amsgrad=False, maximize=False,
                             decoupled_weight_decay=False)
    with pytest.raises(NotImplementedError, match="floating-point"):
        i = lucid.zeros(3, dtype=lucid.int64)
        lucid._C._sgd_step_(i, i, None, lr=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
                            maximize=False, first_step=False)
