"""lucid.optim.Optimizer and SGD, against torch.optim on the same parameters and gradients."""
import copy
import warnings

import numpy as np
import pytest

import lucid
from lucid import nn, optim


def _pair(torch, shapes=((3, 4), (4,), (2, 2, 2)), seed=0):
    rng = np.random.default_rng(seed)
    vals = [rng.standard_normal(s) for s in shapes]
    lp = [nn.Parameter(lucid.tensor(v)) for v in vals]
    tp = [torch.nn.Parameter(torch.tensor(v)) for v in vals]
    return lp, tp, rng


def _set_grads(lp, tp, rng):
    for a, b in zip(lp, tp):
        g = rng.standard_normal(tuple(a.shape))
        a.grad = lucid.tensor(g)
        b.grad = torch_tensor(b, g)


def torch_tensor(ref, g):
    import torch
    return torch.tensor(g, dtype=ref.dtype)


SGD_CONFIGS = [
    dict(lr=0.1),
    dict(lr=0.1, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.3),
    dict(lr=0.05, momentum=0.9, nesterov=True),
    dict(lr=0.1, momentum=0.5, weight_decay=0.01),
    dict(lr=0.1, weight_decay=0.1, maximize=True),
    dict(lr=0.1, momentum=0.8, nesterov=True, weight_decay=0.05, maximize=True),
]


@pytest.mark.parametrize("cfg", SGD_CONFIGS)
def test_sgd_matches_torch(torch, cfg):
    lp, tp, rng = _pair(torch)
    lo, to = optim.SGD(lp, **cfg), torch.optim.SGD(tp, **cfg)
    for _ in range(5):
        _set_grads(lp, tp, rng)
        lo.step()
        to.step()
    for a, b in zip(lp, tp):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-12)
    if cfg.get("momentum"):
        for a, b in zip(lp, tp):
            np.testing.assert_allclose(lo.state[a]["momentum_buffer"].numpy(),
                                       to.state[b]["momentum_buffer"].numpy(), rtol=1e-12, atol=1e-12)
    sd, tsd = lo.state_dict(), to.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    assert sorted(sd["state"]) == sorted(tsd["state"])


def test_sgd_float32_training_and_param_groups(torch):
    lp, tp, rng = _pair(torch)
    lp = [nn.Parameter(p.float()) for p in lp]
    tp = [torch.nn.Parameter(p.detach().float()) for p in tp]
    groups = lambda ps: [{"params": ps[:2]}, {"params": ps[2:], "lr": 0.01, "momentum": 0.5}]  # noqa: E731
    lo, to = optim.SGD(groups(lp), lr=0.1, momentum=0.9), torch.optim.SGD(groups(tp), lr=0.1, momentum=0.9)
    assert lo.param_groups[1]["momentum"] == 0.5 and lo.param_groups[0]["momentum"] == 0.9
    for _ in range(3):
        for a, b in zip(lp, tp):
            g = rng.standard_normal(tuple(a.shape)).astype(np.float32)
            a.grad, b.grad = lucid.tensor(g), torch.tensor(g)
        lo.step()
        to.step()
    for a, b in zip(lp, tp):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert repr(lo) == repr(to)


def test_sgd_skips_params_without_grad_and_closure():
    p, q = nn.Parameter(lucid.ones(2)), nn.Parameter(lucid.ones(2))
    o = optim.SGD([p, q], lr=1.0)
    calls = []

    def closure():
        o.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        calls.append(1)
        return loss
    loss = o.step(closure)
    assert calls == [1] and loss.item() == 2.0
    assert p.tolist() == [-1.0, -1.0] and q.tolist() == [1.0, 1.0]


def test_sgd_trains_a_model():
    lucid.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 8), nn.Linear(8, 1))
    x = lucid.randn(64, 2)
    y = x.sum(1, keepdim=True) * 0.5
    opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for _ in range(100):
        opt.zero_grad()
        loss = ((model(x) - y) * (model(x) - y)).sum() * (1.0 / 64)
        loss.backward()
        opt.step()
    assert loss.item() < 1e-3


def test_sgd_argument_errors():
    p = [nn.Parameter(lucid.ones(1))]
    with pytest.raises(ValueError, match="learning rate"):
        optim.SGD(p, lr=-1)
    with pytest.raises(ValueError, match="momentum"):
        optim.SGD(p, momentum=-1)
    with pytest.raises(ValueError, match="weight_decay"):
        optim.SGD(p, weight_decay=-1)
    with pytest.raises(ValueError, match="Nesterov"):
        optim.SGD(p, nesterov=True)
    with pytest.raises(ValueError, match="Nesterov"):
        optim.SGD(p, momentum=0.9, dampening=0.1, nesterov=True)


def test_optimizer_param_groups_and_errors():
    a, b, c = (nn.Parameter(lucid.ones(1)) for _ in range(3))
    o = optim.SGD([a, b], lr=0.1)
    assert len(o.param_groups) == 1 and o.param_groups[0]["lr"] == 0.1
    o.add_param_group({"params": c, "lr": 0.5})
    assert o.param_groups[1]["params"] == [c] and o.param_groups[1]["momentum"] == 0
    with pytest.raises(ValueError, match="more than one parameter group"):
        o.add_param_group({"params": [a]})
    with pytest.raises(TypeError, match="ordered collections"):
        o.add_param_group({"params": {nn.Parameter(lucid.ones(1))}})
    with pytest.raises(TypeError, match="must be a dict"):
        o.add_param_group([a])
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="iterable of Tensors"):
        optim.SGD(a, lr=0.1)
    with pytest.raises(TypeError, match="can only optimize Tensors"):
        optim.SGD([1.0], lr=0.1)
    x = lucid.ones(1, requires_grad=True)
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([x * 2], lr=0.1)
    with pytest.warns(UserWarning, match="duplicate"):
        optim.SGD([a, a], lr=0.1)
    named = optim.SGD([("w", a), ("v", b)], lr=0.1)
    assert named.param_groups[0]["param_names"] == ["w", "v"]
    with pytest.raises(ValueError, match="with/without names"):
        named.add_param_group({"params": [c]})

    class Req(optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": optim.optimizer.required})
    with pytest.raises(ValueError, match="didn't specify a value of required"):
        Req([a])


def test_zero_grad():
    p = nn.Parameter(lucid.ones(2))
    o = optim.SGD([p], lr=0.1)
    (p * 3).sum().backward()
    o.zero_grad(set_to_none=False)
    assert p.grad is not None and p.grad.tolist() == [0.0, 0.0]
    o.zero_grad()
    assert p.grad is None


def test_state_dict_roundtrip_matches_torch_format(torch):
    lp, tp, rng = _pair(torch)
    lo = optim.SGD([{"params": lp[:1]}, {"params": lp[1:], "lr": 0.2}], lr=0.1, momentum=0.9)
    to = torch.optim.SGD([{"params": tp[:1]}, {"params": tp[1:], "lr": 0.2}], lr=0.1, momentum=0.9)
    _set_grads(lp, tp, rng)
    lo.step()
    to.step()
    sd, tsd = lo.state_dict(), to.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    assert list(sd["state"]) == list(tsd["state"]) == [0, 1, 2]
    for k in sd["state"]:
        np.testing.assert_allclose(sd["state"][k]["momentum_buffer"].numpy(),
                                   tsd["state"][k]["momentum_buffer"].numpy())
    # a fresh optimizer resumed from the state dict continues exactly like the original
    lp2 = [nn.Parameter(p.detach().clone()) for p in lp]
    lo2 = optim.SGD([{"params": lp2[:1]}, {"params": lp2[1:], "lr": 0.2}], lr=0.1, momentum=0.9)
    lo2.load_state_dict(copy.deepcopy(sd))
    assert lo2.param_groups[1]["lr"] == 0.2 and lo2.param_groups[1]["params"] == lp2[1:]
    for a, b in zip(lp, lp2):
        g = rng.standard_normal(tuple(a.shape))
        a.grad, b.grad = lucid.tensor(g), lucid.tensor(g)
    lo.step()
    lo2.step()
    for a, b in zip(lp, lp2):  # (loading casts float32 scalars like NAdam's mu_product to the param dtype, as PyTorch)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
    # momentum buffers are cast to the parameter's dtype
    lp3 = [nn.Parameter(p.detach().float()) for p in lp]
    lo3 = optim.SGD([{"params": lp3[:1]}, {"params": lp3[1:]}], lr=0.1, momentum=0.9)
    lo3.load_state_dict(sd)
    assert lo3.state[lp3[0]]["momentum_buffer"].dtype is lucid.float32


def test_load_state_dict_errors():
    p = [nn.Parameter(lucid.ones(1)), nn.Parameter(lucid.ones(1))]
    o = optim.SGD(p, lr=0.1)
    sd = o.state_dict()
    with pytest.raises(ValueError, match="different number of parameter groups"):
        optim.SGD([{"params": p[:1]}, {"params": p[1:]}], lr=0.1).load_state_dict(sd)
    with pytest.raises(ValueError, match="doesn't match the size"):
        optim.SGD(p[:1], lr=0.1).load_state_dict(sd)


def test_step_hooks():
    p = nn.Parameter(lucid.ones(1))
    o = optim.SGD([p], lr=0.1)
    log = []
    h1 = o.register_step_pre_hook(lambda opt, args, kwargs: log.append("pre"))
    h2 = o.register_step_post_hook(lambda opt, args, kwargs: log.append("post"))
    p.grad = lucid.ones(1)
    o.step()
    h1.remove()
    h2.remove()
    o.step()
    assert log == ["pre", "post"]
    o.register_state_dict_post_hook(lambda opt, sd: sd.update(extra=1))
    assert o.state_dict()["extra"] == 1


ADAM_CONFIGS = [
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.01, maximize=True, weight_decay=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.02, weight_decay=0.3, amsgrad=True, maximize=True)),
]


@pytest.mark.parametrize("name,cfg", ADAM_CONFIGS)
def test_adam_matches_torch(torch, name, cfg):
    lp, tp, rng = _pair(torch)
    lo, to = getattr(optim, name)(lp, **cfg), getattr(torch.optim, name)(tp, foreach=False, **cfg)
    for _ in range(6):
        _set_grads(lp, tp, rng)
        lo.step()
        to.step()
    for a, b in zip(lp, tp):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-13)
    sd, tsd = lo.state_dict(), to.state_dict()
    tsd["param_groups"][0]["foreach"] = None
    assert sd["param_groups"] == tsd["param_groups"]
    for k in tsd["state"]:
        assert set(sd["state"][k]) == set(tsd["state"][k])
        for key, v in tsd["state"][k].items():
            assert sd["state"][k][key].dtype.name == str(v.dtype).split(".")[-1] and sd["state"][k][key].shape == \
                tuple(v.shape)
            np.testing.assert_allclose(sd["state"][k][key].numpy(), v.numpy(), rtol=1e-12, atol=1e-14)


def test_adam_resume_from_state_dict():
    lucid.manual_seed(0)
    p = nn.Parameter(lucid.randn(3, 3))
    q = nn.Parameter(p.detach().clone())
    a, b = optim.Adam([p], lr=0.1, amsgrad=True), optim.Adam([q], lr=0.1, amsgrad=True)
    for t in (p,):
        t.grad = lucid.randn(3, 3)
        a.step()
    b.load_state_dict(copy.deepcopy(a.state_dict()))  # (state_dict shares tensors, as PyTorch)
    with lucid.no_grad():
        q.copy_(p)
    g = lucid.randn(3, 3)
    p.grad, q.grad = g, g.clone()
    a.step()
    b.step()
    np.testing.assert_array_equal(p.numpy(), q.numpy())
    with pytest.raises(ValueError, match="beta parameter at index 0"):
        optim.Adam([p], betas=(1.0, 0.9))
    with pytest.raises(ValueError, match="epsilon"):
        optim.Adam([p], eps=-1)


MORE_CONFIGS = [
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01, decoupled_weight_decay=True)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, betas=(0.9, 0.5))),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, t0=3, lambd=0.01, weight_decay=0.1, maximize=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.06), maximize=True)),
]


@pytest.mark.parametrize("name,cfg", MORE_CONFIGS)
def test_more_optimizers_match_torch(torch, name, cfg):
    lp, tp, rng = _pair(torch)
    lo, to = getattr(optim, name)(lp, **cfg), getattr(torch.optim, name)(tp, foreach=False, **cfg)
    for _ in range(8):
        _set_grads(lp, tp, rng)
        lo.step()
        to.step()
    for a, b in zip(lp, tp):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-9, atol=1e-11)
    sd, tsd = lo.state_dict(), to.state_dict()
    for g in tsd["param_groups"]:
        g["foreach"] = None
    assert sd["param_groups"] == tsd["param_groups"]
    for k in tsd["state"]:
        assert set(sd["state"][k]) == set(tsd["state"][k])
        for key, v in tsd["state"][k].items():
            assert sd["state"][k][key].dtype.name == str(v.dtype).split(".")[-1], key
            np.testing.assert_allclose(sd["state"][k][key].numpy(), v.numpy(), rtol=1e-9, atol=1e-11)
    # a fresh optimizer resumed from the state dict continues identically
    lp2 = [nn.Parameter(p.detach().clone()) for p in lp]
    lo2 = getattr(optim, name)(lp2, **cfg)
    lo2.load_state_dict(copy.deepcopy(sd))
    _set_grads(lp, tp, rng)
    for a, b in zip(lp, lp2):
        b.grad = a.grad.clone()
    lo.step()
    lo2.step()
    for a, b in zip(lp, lp2):  # (loading casts float32 scalars like NAdam's mu_product to the param dtype, as PyTorch)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


DIFFERENTIABLE = [("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.1), 1e-12),
                  ("Adam", dict(lr=0.1, weight_decay=0.1), 5e-5),  # (PyTorch's bias corrections are float32 here)
                  ("Adagrad", dict(lr=0.1), 1e-9), ("NAdam", dict(), 1e-9), ("RAdam", dict(), 1e-9),
                  ("Adadelta", dict(), 1e-9), ("ASGD", dict(t0=0), 1e-9)]


@pytest.mark.parametrize("name,cfg,rtol", DIFFERENTIABLE)
def test_differentiable_step_matches_torch(torch, name, cfg, rtol):
    """differentiable=True: the update is recorded by autograd, so the result is differentiable with
    respect to the initial parameter and the gradients it was given."""
    res = []
    for lib in (lucid, torch):
        w = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        g = lib.tensor([0.5, -0.3], dtype=lib.float64, requires_grad=True)
        p = w.clone()
        opt = getattr(lib.optim, name)([p], differentiable=True, **cfg)
        for k in range(2):
            p.grad = g * (k + 1)
            opt.step()
        (p * p).sum().backward()
        res.append([p.detach().numpy(), w.grad.numpy(), g.grad.numpy()])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-12)


def test_fused_foreach_flags_as_torch():
    p = [nn.Parameter(lucid.ones(2))]
    for name in ("SGD", "Adam", "AdamW", "Adagrad"):
        with pytest.raises(RuntimeError, match="cannot be `True` together"):
            getattr(optim, name)(p, lr=0.1, fused=True, foreach=True)
        with pytest.raises(RuntimeError, match="does not support `differentiable`"):
            getattr(optim, name)(p, lr=0.1, fused=True, differentiable=True)
        o = getattr(optim, name)(p, lr=0.1, fused=True)
        p[0].grad = lucid.ones(2)
        o.step()
    for name in ("Adam", "NAdam", "RAdam", "RMSprop", "Adamax", "Adadelta", "ASGD", "Rprop"):
        o = getattr(optim, name)(p, lr=0.1, foreach=True, capturable=True)
        assert o.param_groups[0]["foreach"] is True and o.param_groups[0]["capturable"] is True
        o.step()
        o.zero_grad(set_to_none=True)
        assert p[0].grad is None
        p[0].grad = lucid.ones(2)


@pytest.mark.parametrize("name,cfg", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01, amsgrad=True)),
                                      ("NAdam", dict(lr=0.01)), ("ASGD", dict(lr=0.05, t0=2)),
                                      ("Rprop", dict(lr=0.01)), ("Adagrad", dict(lr=0.1, lr_decay=0.1))])
def test_load_a_torch_state_dict(torch, name, cfg):
    """A state dict saved by torch.optim (tensors converted) loads into lucid.optim and both continue alike."""
    lp, tp, rng = _pair(torch)
    to = getattr(torch.optim, name)(tp, **cfg)
    for _ in range(3):
        for b in tp:
            b.grad = torch.tensor(rng.standard_normal(tuple(b.shape)))
        to.step()
    tsd = to.state_dict()
    sd = {"state": {k: {key: (lucid.tensor(v.numpy()) if isinstance(v, torch.Tensor) else v) for key, v in s.items()}
                    for k, s in tsd["state"].items()},
          "param_groups": copy.deepcopy(tsd["param_groups"])}
    with lucid.no_grad():
        for a, b in zip(lp, tp):
            a.copy_(lucid.tensor(b.detach().numpy()))
    lo = getattr(optim, name)(lp, **cfg)
    lo.load_state_dict(sd)
    for _ in range(2):
        _set_grads(lp, tp, rng)
        lo.step()
        to.step()
    for a, b in zip(lp, tp):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
