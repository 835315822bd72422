"""lucid.optim.lr_scheduler, step by step against torch.optim.lr_scheduler."""
import math
import warnings

import pytest

import lucid
from lucid import nn, optim
from lucid.optim import lr_scheduler as L


def _opts(torch, lrs=(0.1, 0.05), momentum=0.9):
    lp = [nn.Parameter(lucid.ones(1)) for _ in lrs]
    tp = [torch.nn.Parameter(torch.ones(1)) for _ in lrs]
    lo = optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(lp, lrs)], lr=0.1, momentum=momentum)
    to = torch.optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(tp, lrs)], lr=0.1, momentum=momentum)
    return lo, to


def _state(sd):
    return {k: v for k, v in sd.items() if not callable(v) and k not in ("_schedulers", "lr_lambdas")}


def _run(torch, make, steps=30, metrics=None, lrs=(0.1, 0.05)):
    lo, to = _opts(torch, lrs)
    ls, ts = make(L, lo), make(torch.optim.lr_scheduler, to)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(steps):
            assert ls.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12, abs=1e-15), i
            for g, tg in zip(lo.param_groups, to.param_groups):
                assert g["lr"] == pytest.approx(tg["lr"], rel=1e-12, abs=1e-15), i
                assert g["momentum"] == pytest.approx(tg["momentum"], rel=1e-12), i
            lo.step()
            to.step()
            if metrics is None:
                ls.step()
                ts.step()
            else:
                ls.step(metrics[i])
                ts.step(metrics[i])
    sd, tsd = ls.state_dict(), ts.state_dict()
    assert set(sd) == set(tsd)
    for k, v in _state(tsd).items():
        if isinstance(v, float):
            assert sd[k] == pytest.approx(v, rel=1e-12), k
        elif not isinstance(v, (list, dict)) or k in ("base_lrs", "_last_lr", "milestones"):
            assert sd[k] == v or sd[k] == pytest.approx(v), k
    return ls, lo


SCHEDULERS = {
    "lambda": lambda M, o: M.LambdaLR(o, lambda e: 0.95 ** e),
    "lambda_list": lambda M, o: M.LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: 0.5]),
    "multiplicative": lambda M, o: M.MultiplicativeLR(o, lambda e: 0.9),
    "step": lambda M, o: M.StepLR(o, step_size=4, gamma=0.5),
    "multistep": lambda M, o: M.MultiStepLR(o, milestones=[3, 7, 7, 20], gamma=0.3),
    "constant": lambda M, o: M.ConstantLR(o, factor=0.25, total_iters=6),
    "linear": lambda M, o: M.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=10),
    "exponential": lambda M, o: M.ExponentialLR(o, gamma=0.9),
    "polynomial": lambda M, o: M.PolynomialLR(o, total_iters=12, power=2.0),
    "cosine": lambda M, o: M.CosineAnnealingLR(o, T_max=7, eta_min=0.001),
    "warm_restarts": lambda M, o: M.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01),
    "cyclic": lambda M, o: M.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4),
    "cyclic_tri2": lambda M, o: M.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=3, step_size_down=5,
                                           mode="triangular2"),
    "cyclic_exp": lambda M, o: M.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="exp_range",
                                          gamma=0.95, cycle_momentum=False),
    "onecycle": lambda M, o: M.OneCycleLR(o, max_lr=0.2, total_steps=31),
    "onecycle_3": lambda M, o: M.OneCycleLR(o, max_lr=[0.2, 0.1], epochs=4, steps_per_epoch=8, three_phase=True,
                                            anneal_strategy="linear"),
    "sequential": lambda M, o: M.SequentialLR(o, [M.LinearLR(o, 0.1, total_iters=5), M.ExponentialLR(o, 0.9)],
                                              milestones=[5]),
    "sequential3": lambda M, o: M.SequentialLR(o, [M.ConstantLR(o, 0.5, total_iters=3), M.StepLR(o, 2),
                                                   M.CosineAnnealingLR(o, 5)], milestones=[4, 12]),
    "chained": lambda M, o: M.ChainedScheduler([M.ConstantLR(o, 0.5, total_iters=4), M.ExponentialLR(o, 0.9)]),
}


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_matches_torch(torch, name):
    _run(torch, SCHEDULERS[name])


def test_reduce_on_plateau_matches_torch(torch):
    metrics = [1.0, 0.9, 0.9, 0.95, 0.91, 0.92, 0.93, 0.5, 0.5, 0.51, 0.6, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7,
               0.7]
    for kw in (dict(patience=2), dict(mode="max", patience=1, factor=0.5, threshold_mode="abs", threshold=0.01),
               dict(patience=0, cooldown=2, min_lr=[0.01, 0.02]), dict(patience=1, eps=0.05)):
        _run(torch, lambda M, o: M.ReduceLROnPlateau(o, **kw), steps=len(metrics), metrics=metrics)
    lo, _ = _opts(torch)
    with pytest.raises(ValueError, match="Factor"):
        L.ReduceLROnPlateau(lo, factor=1.5)
    with pytest.raises(ValueError, match="unknown"):
        L.ReduceLROnPlateau(lo, mode="sideways")


def test_closed_form_epoch_argument_matches_torch(torch):
    for make in (SCHEDULERS["step"], SCHEDULERS["multistep"], SCHEDULERS["cosine"], SCHEDULERS["exponential"],
                 SCHEDULERS["warm_restarts"]):
        lo, to = _opts(torch)
        ls, ts = make(L, lo), make(torch.optim.lr_scheduler, to)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in (3, 10, 5, 17):
                ls.step(epoch)
                ts.step(epoch)
                assert ls.get_last_lr() == pytest.approx(ts.get_last_lr())


@pytest.mark.parametrize("name", ["step", "cosine", "onecycle", "cyclic", "sequential", "chained", "lambda",
                                  "warm_restarts"])
def test_state_dict_resume(torch, name):
    make = SCHEDULERS[name]
    lo, _ = _opts(torch)
    s = make(L, lo)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(7):
            lo.step()
            s.step()
        sd = s.state_dict()
        opt_sd = lo.state_dict()
        expected = []
        for _ in range(5):
            lo.step()
            s.step()
            expected.append(s.get_last_lr())
        lo2, _ = _opts(torch)
        s2 = make(L, lo2)
        lo2.load_state_dict(opt_sd)
        s2.load_state_dict(sd)
        got = []
        for _ in range(5):
            lo2.step()
            s2.step()
            got.append(s2.get_last_lr())
    assert sum(got, []) == pytest.approx(sum(expected, []))
    assert "optimizer" not in sd


def test_state_dict_is_serialisable(torch):
    import json
    lo, _ = _opts(torch)
    for name in ("step", "multistep", "cosine", "onecycle", "cyclic", "linear", "warm_restarts"):
        s = SCHEDULERS[name](L, lo)
        sd = s.state_dict()
        json.dumps({k: (dict(v) if k == "milestones" else v) for k, v in sd.items() if not callable(v)
                    and k != "_scale_fn_custom"}, default=str)


def test_warnings_and_errors(torch):
    lo, _ = _opts(torch)
    s = L.StepLR(lo, 2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        s.step()
    with pytest.warns(UserWarning, match="get_last_lr"):
        s.get_lr()
    with pytest.raises(TypeError, match="not an Optimizer"):
        L.StepLR(object(), 2)
    lo, _ = _opts(torch)
    with pytest.raises(KeyError, match="initial_lr"):
        L.StepLR(lo, 2, last_epoch=3)
    with pytest.raises(ValueError):
        L.LambdaLR(lo, [lambda e: 1.0])
    with pytest.raises(ValueError):
        L.LinearLR(lo, start_factor=0)
    with pytest.raises(ValueError):
        L.ConstantLR(lo, factor=2)
    with pytest.raises(ValueError, match="total_steps"):
        L.OneCycleLR(lo, max_lr=0.1)
    s = L.OneCycleLR(lo, max_lr=0.1, total_steps=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s.step()
        s.step()
        with pytest.raises(ValueError, match="Tried to step 3 times"):
            s.step()
    with pytest.raises(ValueError):
        L.CosineAnnealingWarmRestarts(lo, T_0=0)
    with pytest.raises(ValueError, match="at least one"):
        L.SequentialLR(lo, [], milestones=[])
    with pytest.raises(ValueError, match="ReduceLROnPlateau"):
        L.ChainedScheduler([L.ReduceLROnPlateau(lo)])
    lo_nomom = optim.SGD([nn.Parameter(lucid.ones(1))], lr=0.1)
    lo_nomom.defaults.pop("momentum")
    with pytest.raises(ValueError, match="momentum"):
        L.CyclicLR(lo_nomom, 0.01, 0.1)


def test_lr_scheduler_drives_training_lr():
    p = nn.Parameter(lucid.zeros(1))
    o = optim.SGD([p], lr=1.0)
    s = L.StepLR(o, step_size=1, gamma=0.5)
    for _ in range(3):
        p.grad = lucid.ones(1)
        o.step()
        s.step()
    assert p.tolist() == [-(1.0 + 0.5 + 0.25)]
    assert s.get_last_lr() == [0.125]
    assert math.isclose(o.param_groups[0]["lr"], 0.125)


def test_noam(torch):
    lo, _ = _opts(torch, lrs=(1.0, 2.0))
    s = L.NoamLR(lo, model_size=512, warmup_steps=4000, factor=2.0)

    def rate(step, base):
        step = max(step, 1)
        return base * 2.0 * 512 ** -0.5 * min(step ** -0.5, step * 4000 ** -1.5)
    got = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for e in range(10000):
            if e in (0, 1, 100, 3999, 4000, 4001, 9999):
                assert s.get_last_lr() == pytest.approx([rate(e, 1.0), rate(e, 2.0)], rel=1e-12)
                got.append(s.get_last_lr()[0])
            lo.step()
            s.step()
    assert max(got) == pytest.approx(rate(4000, 1.0))  # the peak is at the end of warm-up
    # equivalent to LambdaLR with the annotated Transformer's rate
    lo2, to2 = _opts(torch, lrs=(1.0, 2.0))
    ts = torch.optim.lr_scheduler.LambdaLR(to2, lambda e: rate(e, 1.0))
    s2 = L.NoamLR(lo2, 512, 4000, 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(50):
            assert s2.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)
            s2.step()
            ts.step()
    with pytest.raises(ValueError):
        L.NoamLR(lo, 0, 10)
    assert L.NoamScheduler is L.NoamLR
