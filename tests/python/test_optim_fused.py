"""The fused optimizer kernels (_C._<name>_step_): one engine call per param group, one kernel pass
per parameter, the same numbers as PyTorch's optimizers (float64 and float32, every option), float16
state, non-contiguous parameters, and typed errors."""
import numpy as np
import pytest

import lucid
from lucid import nn, optim
from lucid.profiler import profile

KERNEL = {"SGD": "sgd", "Adam": "adam", "AdamW": "adam", "RMSprop": "rmsprop", "Adagrad": "adagrad",
          "Adadelta": "adadelta", "Adamax": "adamax", "NAdam": "nadam", "RAdam": "radam", "ASGD": "asgd",
          "Rprop": "rprop"}

# Every option of every optimizer, alone and combined.
CONFIGS = [
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.2, weight_decay=0.05, maximize=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("Adam", dict(lr=0.01, betas=(0.4, 0.9), eps=1e-4)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.02, weight_decay=0.3, amsgrad=True, maximize=True)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.7)),
    ("RMSprop", dict(lr=0.01, alpha=0.3, eps=1e-3, maximize=True)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1, maximize=True)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05)),
    ("Adagrad", dict(lr=0.1, initial_accumulator_value=0.2, eps=1e-3, maximize=True)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5, maximize=True)),
    ("Adadelta", dict(lr=0.5, rho=0.3, eps=1e-3)),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Adamax", dict(lr=0.01, betas=(0.3, 0.5), eps=1e-3)),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1, maximize=True)),
    ("NAdam", dict(lr=0.01, momentum_decay=0.1, maximize=True)),
    ("NAdam", dict(lr=0.01, betas=(0.3, 0.8), weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.01, betas=(0.9, 0.9))),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, maximize=True)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, betas=(0.3, 0.8), eps=1e-3)),
    ("ASGD", dict(lr=0.05, lambd=0.1, alpha=0.5)),
    ("ASGD", dict(lr=0.05, t0=3, lambd=0.01, weight_decay=0.1, maximize=True)),
    ("Rprop", dict(lr=0.01, etas=(0.3, 1.5))),
    ("Rprop", dict(lr=0.05, step_sizes=(1e-3, 0.06), maximize=True)),
]
SHAPES = ((3, 4), (4,), (2, 2, 2), (0, 3))


def _run(torch, name, cfg, dtype, steps=10, seed=0):
    rng = np.random.default_rng(seed)
    vals = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    lp = [nn.Parameter(lucid.tensor(v)) for v in vals]
    tp = [torch.nn.Parameter(torch.tensor(v)) for v in vals]
    lo, to = getattr(optim, name)(lp, **cfg), getattr(torch.optim, name)(tp, foreach=False, **cfg)
    for step in range(steps):
        for a, b in zip(lp, tp):
            g = rng.standard_normal(tuple(a.shape)).astype(dtype)
            if step % 3 == 2:
                g[..., :1] = 0  # (zero gradients exercise Rprop's sign cases)
            a.grad, b.grad = lucid.tensor(g), torch.tensor(g)
        lo.step()
        to.step()
        yield lp, tp, lo, to


@pytest.mark.parametrize("name,cfg", CONFIGS)
def test_matches_torch_every_step_float64(torch, name, cfg):
    for lp, tp, lo, to in _run(torch, name, cfg, np.float64):
        for a, b in zip(lp, tp):
            np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    for a, b in zip(lp, tp):
        for key, v in to.state[b].items():
            np.testing.assert_allclose(np.asarray(lo.state[a][key].numpy(), dtype=np.float64),
                                       v.detach().numpy().astype(np.float64), rtol=1e-10, atol=1e-12, err_msg=key)


@pytest.mark.parametrize("name,cfg", CONFIGS)
def test_matches_torch_every_step_float32(torch, name, cfg):
    for lp, tp, lo, to in _run(torch, name, cfg, np.float32):
        for a, b in zip(lp, tp):
            np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", sorted(KERNEL))
def test_one_engine_call_per_group(monkeypatch, name):
    w, b = nn.Parameter(lucid.randn(5, 3)), nn.Parameter(lucid.randn(3))
    c = nn.Parameter(lucid.randn(2))
    opt = getattr(optim, name)([{"params": [w, b]}, {"params": [c], "lr": 0.5}], lr=0.01)
    fn = getattr(lucid._C, f"_{KERNEL[name]}_step_")
    calls = []

    def counting(params, *args, **kwargs):
        calls.append(len(params))
        return fn(params, *args, **kwargs)
    monkeypatch.setattr(lucid._C, f"_{KERNEL[name]}_step_", counting)
    for _ in range(2):
        w.grad, b.grad, c.grad = lucid.ones(5, 3), lucid.ones(3), lucid.ones(2)
        with profile() as prof:
            opt.step()
    names = [e.name for e in prof.events() if e.kind == "kernel"]
    assert names == [KERNEL[name]] * 3, names  # (once the state exists) one pass per parameter, nothing else
    assert calls == [2, 1, 2, 1]


def test_non_contiguous_parameter_and_versions():
    base = lucid.randn(4, 6)
    p = base.T                                   # a transposed view as the parameter
    before = p.numpy().copy()
    v = p._version
    (buf,) = lucid._C._sgd_step_([p], [lucid.ones(6, 4)], [None], lr=0.5, momentum=0.9, dampening=0.0,
                                 weight_decay=0.0, nesterov=False, maximize=False)
    np.testing.assert_allclose(p.numpy(), before - 0.5, rtol=1e-6)
    np.testing.assert_allclose(buf.numpy(), np.ones((6, 4)))
    assert p._version == v + 1 and base._version == v + 1
    m, s = lucid.zeros(6, 4).T.T, lucid.zeros(4, 6).T
    step = lucid.zeros([])
    lucid._C._adam_step_([p], [lucid.ones(6, 4)], [m], [s], None, [step], lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8,
                         weight_decay=0.0, amsgrad=False, maximize=False, decoupled_weight_decay=False)
    assert step.item() == 1.0
    np.testing.assert_allclose(s.numpy(), np.full((6, 4), 1e-3), rtol=1e-5)


def test_half_parameters():
    p = lucid.ones(8, dtype=lucid.float16)
    m, v = lucid.zeros(8, dtype=lucid.float16), lucid.zeros(8, dtype=lucid.float16)
    lucid._C._adam_step_([p], [lucid.ones(8, dtype=lucid.float16)], [m], [v], None, [lucid.zeros([])], lr=0.1,
                         beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0, amsgrad=False, maximize=False,
                         decoupled_weight_decay=False)
    np.testing.assert_allclose(p.float().numpy(), np.full(8, 0.9), rtol=1e-3)


@pytest.mark.parametrize("name", ["RMSprop", "Adagrad", "NAdam", "Rprop"])
def test_bfloat16_parameters_follow_torch(torch, name):
    w0 = np.linspace(-1, 1, 12, dtype=np.float32)
    lw = nn.Parameter(lucid.tensor(w0).to(lucid.bfloat16))
    tw = torch.nn.Parameter(torch.tensor(w0).to(torch.bfloat16))
    lo, to = getattr(optim, name)([lw], lr=0.01), getattr(torch.optim, name)([tw], lr=0.01, foreach=False)
    for k in range(4):
        g = np.cos(np.arange(12) * (k + 1)).astype(np.float32)
        lw.grad, tw.grad = lucid.tensor(g).to(lucid.bfloat16), torch.tensor(g).to(torch.bfloat16)
        lo.step()
        to.step()
    np.testing.assert_allclose(lw.float().numpy(), tw.detach().float().numpy(), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("name,cfg", CONFIGS)
def test_complex_parameters_as_their_real_view(torch, name, cfg):
    """A complex parameter is updated as its real view (PyTorch's view_as_real), by the same kernels."""
    rng = np.random.default_rng(4)
    shapes = ((3, 2), (4,))
    vals = [rng.standard_normal(s) + 1j * rng.standard_normal(s) for s in shapes]
    lp = [nn.Parameter(lucid.tensor(v)) for v in vals]
    tp = [torch.nn.Parameter(torch.tensor(v)) for v in vals]
    lo, to = getattr(optim, name)(lp, **cfg), getattr(torch.optim, name)(tp, foreach=False, **cfg)
    for step in range(6):
        for a, b in zip(lp, tp):
            g = rng.standard_normal(tuple(a.shape)) + 1j * rng.standard_normal(tuple(a.shape))
            if step % 3 == 2:
                g[..., :1] = 0
            a.grad, b.grad = lucid.tensor(g), torch.tensor(g)
        lo.step()
        to.step()
        for a, b in zip(lp, tp):
            np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_errors():
    p = lucid.zeros(3)
    z = lucid.zeros
    sgd = dict(lr=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False)
    adam = dict(lr=0.1, beta1=0.9, beta2=0.99, eps=1e-8, weight_decay=0.0, amsgrad=False, maximize=False,
                decoupled_weight_decay=False)
    with pytest.raises(lucid.ShapeMismatch, match=r"\[sgd\] grad\[0\] of shape \(4,\)"):
        lucid._C._sgd_step_([p], [z(4)], None, **sgd)
    with pytest.raises(ValueError, match="1 parameters but 2 gradients"):
        lucid._C._sgd_step_([p], [z(3), z(3)], None, **sgd)
    with pytest.raises(ValueError, match="momentum buffer"):
        lucid._C._sgd_step_([p], [z(3)], None, **dict(sgd, momentum=0.9))
    with pytest.raises(lucid.DtypeMismatch, match=r"exp_avg\[0\] is float64"):
        lucid._C._adam_step_([p], [z(3)], [z(3, dtype=lucid.float64)], [z(3)], None, [z([])], **adam)
    with pytest.raises(ValueError, match=r"max_exp_avg_sq\[0\] is None"):
        lucid._C._adam_step_([p], [z(3)], [z(3)], [z(3)], [None], [z([])], **dict(adam, amsgrad=True))
    with pytest.raises(lucid.ShapeMismatch, match="one-element CPU tensor"):
        lucid._C._adam_step_([p], [z(3)], [z(3)], [z(3)], None, [z(2)], **adam)
    with pytest.raises(lucid.DtypeMismatch, match="step"):
        lucid._C._adam_step_([p], [z(3)], [z(3)], [z(3)], None, [z([], dtype=lucid.int32)], **adam)
    with pytest.raises(NotImplementedError, match="floating-point"):
        i = z(3, dtype=lucid.int64)
        lucid._C._sgd_step_([i], [i], None, **sgd)
    # nothing is written when a later parameter's operands are bad
    q, step = lucid.ones(3), z([])
    with pytest.raises(lucid.ShapeMismatch):
        lucid._C._adam_step_([q, p], [z(3), z(4)], [z(3), z(3)], [z(3), z(3)], None, [step, z([])], **adam)
    assert q.tolist() == [1.0, 1.0, 1.0] and step.item() == 0.0


def test_column_major_matmul_operands_get_contiguous_grads(torch):
    """linear's weight.mT (and any transposed operand) gets its gradient in its own layout, so the
    weight's .grad arrives contiguous, without a transposing copy; values and double backward as torch."""
    rng = np.random.default_rng(1)
    a0, b0, w0 = rng.standard_normal((4, 5)), rng.standard_normal((4, 3)), rng.standard_normal((3, 5))
    la, lb, lw = (lucid.tensor(v, requires_grad=True) for v in (a0, b0, w0))
    ta, tb, tw = (torch.tensor(v, requires_grad=True) for v in (a0, b0, w0))
    lout = lucid.nn.functional.linear(la.mT @ lb, lw.mT)            # (5, 3) @ (3, 5)
    tout = torch.nn.functional.linear(ta.mT @ tb, tw.mT)
    lg = lucid.autograd.grad((lout * lout).sum(), [la, lb, lw], create_graph=True)
    tg = torch.autograd.grad((tout * tout).sum(), [ta, tb, tw], create_graph=True)
    for x, y in zip(lg, tg):
        np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=1e-10)
    assert lg[0].is_contiguous()
    lgg = lucid.autograd.grad(sum((g * g).sum() for g in lg), [la, lb, lw])
    tgg = torch.autograd.grad(sum((g * g).sum() for g in tg), [ta, tb, tw])
    for x, y in zip(lgg, tgg):
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-9)
    model, x, c = nn.Linear(6, 4), lucid.randn(3, 6), lucid.randn(3, 4)
    with profile() as prof:
        (model(x) * c).sum().backward()
    assert model.weight.grad.is_contiguous()
    assert "copy" not in [e.name for e in prof.events() if e.kind == "kernel"]
