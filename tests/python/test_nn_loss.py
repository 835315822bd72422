"""The losses of lucid.nn.functional and their nn layers against PyTorch: values and gradients for
every reduction and option in float32 and float64, float64 gradcheck/gradgradcheck, shape rules,
warnings, typed errors and module defaults."""
import math
import warnings

import numpy as np
import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.autograd import gradcheck, gradgradcheck
from helpers import close

RNG = np.random.default_rng(11)


def randn(*s):
    return RNG.standard_normal(s)


def unif(lo, hi, *s):
    return RNG.uniform(lo, hi, s)


def signs(*s):
    return RNG.choice([-1.0, 1.0], s)


def _mlm_target():
    t = np.full((3, 5), -1, dtype=np.int64)
    t[0, :2] = [3, 0]
    t[1, :4] = [1, 2, 4, 2]
    t[2, :1] = [4]
    t[2, 2] = 1          # after the first -1: ignored
    return t


# name -> (make args (numpy arrays; ints stay int64), indices of differentiable args, option dicts)
CASES = {
    "mse_loss": (lambda: [randn(4, 5), randn(4, 5)], [0, 1], [{}]),
    "l1_loss": (lambda: [randn(4, 5), randn(4, 5)], [0, 1], [{}]),
    "smooth_l1_loss": (lambda: [randn(4, 5), randn(4, 5)], [0, 1], [{}, dict(beta=0.5), dict(beta=0.0)]),
    "huber_loss": (lambda: [randn(4, 5), randn(4, 5)], [0, 1], [{}, dict(delta=0.4)]),
    "binary_cross_entropy": (lambda: [unif(0.05, 0.95, 4, 5), unif(0, 1, 4, 5)], [0, 1], [{}]),
    "binary_cross_entropy_with_logits": (lambda: [2 * randn(4, 5), unif(0, 1, 4, 5)], [0, 1], [{}]),
    "kl_div": (lambda: [randn(4, 5), unif(0.05, 1, 4, 5)], [0, 1], [{}]),
    "kl_div_log": (lambda: [randn(4, 5), randn(4, 5)], [0, 1], [dict(log_target=True)]),
    "poisson_nll_loss": (lambda: [randn(4, 5), unif(0, 3, 4, 5)], [0, 1],
                         [{}, dict(full=True)]),
    "poisson_nll_loss_lin": (lambda: [unif(0.2, 2, 4, 5), unif(0, 3, 4, 5)], [0, 1],
                             [dict(log_input=False), dict(log_input=False, full=True, eps=1e-3)]),
    "gaussian_nll_loss": (lambda: [randn(4, 5), randn(4, 5), unif(0.2, 2, 4, 5)], [0, 1, 2],
                          [{}, dict(full=True)]),
    "gaussian_nll_loss_homo": (lambda: [randn(4, 5), randn(4, 5), unif(0.2, 2, 4)], [0, 1, 2], [{}]),
    "gaussian_nll_loss_one": (lambda: [randn(4, 5), randn(4, 5), unif(0.2, 2, 4, 1)], [0, 1, 2], [{}]),
    "cosine_embedding_loss": (lambda: [randn(4, 5), randn(4, 5), signs(4)], [0, 1],
                              [{}, dict(margin=0.2), dict(margin=-0.5)]),
    "margin_ranking_loss": (lambda: [randn(6), randn(6), signs(6)], [0, 1], [{}, dict(margin=0.3)]),
    "hinge_embedding_loss": (lambda: [randn(4, 5), signs(4, 5)], [0], [{}, dict(margin=0.5)]),
    "multi_margin_loss": (lambda: [randn(4, 5), RNG.integers(0, 5, 4)], [0],
                          [{}, dict(p=2), dict(margin=0.5), dict(weight="w5")]),
    "multilabel_margin_loss": (lambda: [randn(3, 5), _mlm_target()], [0], [{}]),
    "multilabel_soft_margin_loss": (lambda: [randn(4, 5), RNG.integers(0, 2, (4, 5)).astype(float)], [0, 1],
                                    [{}, dict(weight="w5")]),
    "soft_margin_loss": (lambda: [randn(4, 5), signs(4, 5)], [0], [{}]),
    "triplet_margin_loss": (lambda: [randn(4, 5), randn(4, 5), randn(4, 5)], [0, 1, 2],
                            [{}, dict(margin=2.0), dict(p=1), dict(swap=True), dict(p=3, eps=1e-3)]),
    "triplet_margin_with_distance_loss": (lambda: [randn(4, 5), randn(4, 5), randn(4, 5)], [0, 1, 2],
                                          [{}, dict(margin=2.0, swap=True)]),
}
FN = {"kl_div_log": "kl_div", "poisson_nll_loss_lin": "poisson_nll_loss", "gaussian_nll_loss_homo": "gaussian_nll_loss",
      "gaussian_nll_loss_one": "gaussian_nll_loss"}
W5 = np.abs(randn(5)) + 0.5


def _opts(kw, lib, dtype):
    out = dict(kw)
    if out.get("weight") == "w5":
        out["weight"] = lib.tensor(W5, dtype=dtype)
    return out


def _run(name, args, diff, kw, reduction, dtype, torch):
    fname = FN.get(name, name)
    tdt = {lucid.float32: torch.float32, lucid.float64: torch.float64}[dtype]
    la = [lucid.tensor(a, dtype=dtype if a.dtype.kind == "f" else lucid.int64, requires_grad=i in diff)
          for i, a in enumerate(args)]
    ta = [torch.tensor(a, dtype=tdt if a.dtype.kind == "f" else torch.int64, requires_grad=i in diff)
          for i, a in enumerate(args)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = getattr(F, fname)(*la, reduction=reduction, **_opts(kw, lucid, dtype))
        ty = getattr(torch.nn.functional, fname)(*ta, reduction=reduction, **_opts(kw, torch, tdt))
    return la, ta, y, ty


REDUCTIONS = ["none", "mean", "sum"]
PARAMS = [(n, i) for n, c in CASES.items() for i in range(len(c[2]))]


@pytest.mark.parametrize("name,k", PARAMS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", [lucid.float32, lucid.float64])
def test_loss_matches_torch(torch, name, k, reduction, dtype):
    make, diff, opts = CASES[name]
    args = make()
    la, ta, y, ty = _run(name, args, diff, opts[k], reduction, dtype, torch)
    tol = 1e-5 if dtype == lucid.float32 else 1e-10
    assert y.dtype == dtype
    close(y, ty, tol)
    g = randn(*ty.shape)
    y.backward(lucid.tensor(g, dtype=dtype))
    ty.backward(torch.tensor(g, dtype=ty.dtype))
    for i in diff:
        close(la[i].grad, ta[i].grad, tol * 10)


@pytest.mark.parametrize("name,k", PARAMS)
def test_loss_gradcheck(name, k):
    make, diff, opts = CASES[name]
    args = make()
    kw = _opts(opts[k], lucid, lucid.float64)
    fname = FN.get(name, name)
    consts = [lucid.tensor(a, dtype=lucid.float64 if a.dtype.kind == "f" else lucid.int64) for a in args]
    inputs = tuple(lucid.tensor(args[i], dtype=lucid.float64, requires_grad=True) for i in diff)

    def f(*xs):
        full = list(consts)
        for i, x in zip(diff, xs):
            full[i] = x
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(F, fname)(*full, reduction="none", **kw)

    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


# ---- the fused ops: broadcasting, weights, float16, edge values

@pytest.mark.parametrize("fn", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_broadcast_warns_and_matches(torch, fn):
    x, t = randn(3, 1, 4), randn(5, 4)
    with pytest.warns(UserWarning, match="target size"):
        y = getattr(F, fn)(lucid.tensor(x), lucid.tensor(t), reduction="none")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ty = getattr(torch.nn.functional, fn)(torch.tensor(x), torch.tensor(t), reduction="none")
    close(y, ty, 1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(F, fn)(lucid.tensor(x), lucid.tensor(x))     # same shape: no warning


@pytest.mark.parametrize("fn", ["mse_loss", "l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_pointwise_weight(torch, fn, reduction):
    x, t, w = randn(3, 4), randn(3, 4), np.abs(randn(3, 4))
    lx = lucid.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    y = getattr(F, fn)(lx, lucid.tensor(t), reduction=reduction, weight=lucid.tensor(w))
    ty = getattr(torch.nn.functional, fn)(tx, torch.tensor(t), reduction=reduction, weight=torch.tensor(w))
    close(y, ty, 1e-12)
    y.sum().backward()
    ty.sum().backward()
    close(lx.grad, tx.grad, 1e-12)
    with pytest.raises(ValueError, match="same size"):
        getattr(F, fn)(lx, lucid.tensor(t), weight=lucid.tensor(w[0]))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_weights(torch, reduction):
    x, t, w = unif(0.05, 0.95, 3, 4), unif(0, 1, 3, 4), np.abs(randn(4))
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y = F.binary_cross_entropy(lx, lucid.tensor(t), weight=lucid.tensor(w), reduction=reduction)
    ty = torch.nn.functional.binary_cross_entropy(tx, torch.tensor(t), weight=torch.tensor(w), reduction=reduction)
    close(y, ty, 1e-12)
    y.sum().backward()
    ty.sum().backward()
    close(lx.grad, tx.grad, 1e-12)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("pw_shape", [(4,), (3, 4), (1,)])
def test_bce_with_logits_weights(torch, reduction, pw_shape):
    x, t, w, pw = 3 * randn(3, 4), unif(0, 1, 3, 4), np.abs(randn(3, 1)), np.abs(randn(*pw_shape)) + 0.1
    la = [lucid.tensor(a, requires_grad=i != 2) for i, a in enumerate((x, t, w, pw))]
    ta = [torch.tensor(a, requires_grad=i < 2) for i, a in enumerate((x, t, w, pw))]   # torch: no pos_weight grad
    y = F.binary_cross_entropy_with_logits(la[0], la[1], weight=la[2], pos_weight=la[3], reduction=reduction)
    ty = torch.nn.functional.binary_cross_entropy_with_logits(ta[0], ta[1], weight=ta[2], pos_weight=ta[3],
                                                              reduction=reduction)
    close(y, ty, 1e-12)
    y.sum().backward()
    ty.sum().backward()
    for i in (0, 1):
        close(la[i].grad, ta[i].grad, 1e-11)
    f = lambda a, b, c: F.binary_cross_entropy_with_logits(a, b, weight=la[2], pos_weight=c, reduction=reduction)
    ins = (la[0], la[1], la[3])
    assert gradcheck(f, ins)
    assert gradgradcheck(f, ins)


def test_bce_extremes_match_torch(torch):
    x = np.array([0.0, 1.0, 1e-30, 1 - 1e-16, 0.5])
    t = np.array([1.0, 0.0, 1.0, 0.0, 0.5])
    close(F.binary_cross_entropy(lucid.tensor(x), lucid.tensor(t), reduction="none"),
          torch.nn.functional.binary_cross_entropy(torch.tensor(x), torch.tensor(t), reduction="none"), 1e-12)
    big = np.array([-800.0, 800.0, -30.0, 30.0, 0.0])
    close(F.binary_cross_entropy_with_logits(lucid.tensor(big), lucid.tensor(t), reduction="none"),
          torch.nn.functional.binary_cross_entropy_with_logits(torch.tensor(big), torch.tensor(t), reduction="none"),
          1e-12)


@pytest.mark.parametrize("fn", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                                "binary_cross_entropy_with_logits"])
def test_pointwise_half_empty_noncontig(torch, fn):
    x, t = unif(0.1, 0.9, 4, 6), unif(0, 1, 4, 6)
    for dt, tdt in [(lucid.float16, torch.float16), (lucid.bfloat16, torch.bfloat16)]:
        y = getattr(F, fn)(lucid.tensor(x, dtype=dt), lucid.tensor(t, dtype=dt), reduction="none")
        ty = getattr(torch.nn.functional, fn)(torch.tensor(x, dtype=tdt), torch.tensor(t, dtype=tdt),
                                              reduction="none")
        assert y.dtype == dt
        close(y.to(lucid.float32), ty.float(), 2e-2)
    e = getattr(F, fn)(lucid.zeros(0, 3), lucid.zeros(0, 3))
    assert math.isnan(float(e))
    assert float(getattr(F, fn)(lucid.zeros(0, 3), lucid.zeros(0, 3), reduction="sum")) == 0
    xs = lucid.tensor(x).mT          # non-contiguous
    ts = lucid.tensor(t).mT
    close(getattr(F, fn)(xs, ts, reduction="none"),
          getattr(torch.nn.functional, fn)(torch.tensor(x).mT, torch.tensor(t).mT, reduction="none"), 1e-12)


def test_pointwise_errors():
    x = lucid.tensor(randn(3))
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.mse_loss(x, x, reduction="avg")
    with pytest.raises(NotImplementedError):
        F.mse_loss(lucid.tensor([1, 2]), lucid.tensor([1, 2]))
    with pytest.raises(ValueError, match="different to the input size"):
        F.binary_cross_entropy(lucid.tensor([0.5, 0.5]), lucid.tensor([[1.0, 0.0]]))
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(lucid.tensor([1.5]), lucid.tensor([1.0]))
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(lucid.tensor([0.5, float("nan")]), lucid.tensor([1.0, 0.0]))
    with pytest.raises(ValueError, match="must be the same as input size"):
        F.binary_cross_entropy_with_logits(lucid.tensor([0.5, 0.5]), lucid.tensor([[1.0, 0.0]]))
    with pytest.raises(ValueError):
        F.smooth_l1_loss(x, x, beta=-1.0)
    with pytest.raises(ValueError):
        F.huber_loss(x, x, delta=0.0)


def test_legacy_flags(torch):
    x, t = randn(3, 4), randn(3, 4)
    for sa, rd in [(None, False), (False, None), (True, True), (False, True)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = F.mse_loss(lucid.tensor(x), lucid.tensor(t), size_average=sa, reduce=rd)
            ty = torch.nn.functional.mse_loss(torch.tensor(x), torch.tensor(t), size_average=sa, reduce=rd)
            m = nn.SoftMarginLoss(size_average=sa, reduce=rd)
            tr = torch.nn.SoftMarginLoss(size_average=sa, reduce=rd).reduction
        close(y, ty, 1e-12)
        assert m.reduction == tr


def test_second_derivative_target(torch):
    # mixed second derivatives (input and target) of the fused ops against torch
    for fn in ["mse_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits"]:
        x, t = unif(0.1, 0.9, 5), unif(0, 1, 5)
        lx, lt = lucid.tensor(x, requires_grad=True), lucid.tensor(t, requires_grad=True)
        tx, tt = torch.tensor(x, requires_grad=True), torch.tensor(t, requires_grad=True)
        gx, gt = lucid.autograd.grad(getattr(F, fn)(lx, lt, reduction="sum"), (lx, lt), create_graph=True)
        hx, ht = torch.autograd.grad(getattr(torch.nn.functional, fn)(tx, tt, reduction="sum"), (tx, tt),
                                     create_graph=True)
        a = lucid.autograd.grad((gx * gx).sum() + (gt * lx).sum(), (lx, lt))
        b = torch.autograd.grad((hx * hx).sum() + (ht * tx).sum(), (tx, tt))
        for u, v in zip(a, b):
            close(u, v, 1e-9)


def test_soft_margin_fused_target_grads():
    # one fused node; float64 gradcheck/gradgradcheck in input AND a real-valued target (torch refuses the target)
    x, t = unif(-2, 2, 6), unif(-1.5, 1.5, 6)
    lx, lt = lucid.tensor(x, requires_grad=True), lucid.tensor(t, requires_grad=True)
    assert "SoftMarginLossBackward0" in repr(F.soft_margin_loss(lx, lt, reduction="none").grad_fn)
    for red in ("none", "mean", "sum"):
        f = lambda a, b, red=red: F.soft_margin_loss(a, b, reduction=red)
        assert gradcheck(f, (lx, lt))
        assert gradgradcheck(f, (lx, lt))


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_multi_margin_fused(torch, p, weighted):
    # one fused node (MultiMarginLossBackward0); values, gradients against torch; float64 gradcheck/gradgradcheck
    x, t, w = RNG.standard_normal((5, 4)) * 0.7, RNG.integers(0, 4, 5), RNG.random(4) + 0.5
    lw, tw = (lucid.tensor(w), torch.tensor(w)) if weighted else (None, None)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    for red in ("none", "mean", "sum"):
        out = F.multi_margin_loss(lx, lucid.tensor(t), p=p, margin=0.8, weight=lw, reduction=red)
        ref = torch.nn.functional.multi_margin_loss(tx, torch.tensor(t), p=p, margin=0.8, weight=tw, reduction=red)
        close(out, ref, 1e-12)
        close(lucid.autograd.grad(out.sum(), (lx,))[0], torch.autograd.grad(ref.sum(), (tx,))[0], 1e-12)
        f = lambda a, red=red: F.multi_margin_loss(a, lucid.tensor(t), p=p, margin=0.8, weight=lw, reduction=red)
        assert gradcheck(f, (lx,))
        assert gradgradcheck(f, (lx,))
    assert "MultiMarginLossBackward0" in repr(F.multi_margin_loss(lx, lucid.tensor(t), p=p, reduction="none").grad_fn)


def test_multilabel_margin_fused(torch):
    # one fused node; -1 padding (first -1 ends the targets), duplicate targets; values, gradients, double backward
    x = RNG.standard_normal((4, 5)) * 0.7
    t = np.array([[3, 0, -1, 1, 2], [1, 1, 2, -1, -1], [-1, 2, 3, 0, 0], [0, 1, 2, 3, 4]])
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    for red in ("none", "mean", "sum"):
        out = F.multilabel_margin_loss(lx, lucid.tensor(t), reduction=red)
        ref = torch.nn.functional.multilabel_margin_loss(tx, torch.tensor(t), reduction=red)
        close(out, ref, 1e-12)
        close(lucid.autograd.grad(out.sum(), (lx,))[0], torch.autograd.grad(ref.sum(), (tx,))[0], 1e-12)
        f = lambda a, red=red: F.multilabel_margin_loss(a, lucid.tensor(t), reduction=red)
        assert gradcheck(f, (lx,))
        assert gradgradcheck(f, (lx,))
    assert "MultilabelMarginLossBackward0" in repr(F.multilabel_margin_loss(lx, lucid.tensor(t), reduction="none").grad_fn)
    close(F.multilabel_margin_loss(lucid.tensor(x[0]), lucid.tensor(t[0])),
          torch.nn.functional.multilabel_margin_loss(torch.tensor(x[0]), torch.tensor(t[0])), 1e-12)


# ---- composed losses: shapes, rules and errors

def test_kl_div_batchmean_zero_target_and_warning(torch):
    x, t = randn(4, 3), unif(0, 1, 4, 3)
    t[0, 1] = 0.0
    for red in ["batchmean", "sum", "none"]:
        close(F.kl_div(lucid.tensor(x), lucid.tensor(t), reduction=red),
              torch.nn.functional.kl_div(torch.tensor(x), torch.tensor(t), reduction=red), 1e-12)
    with pytest.warns(UserWarning, match="batchmean"):
        F.kl_div(lucid.tensor(x), lucid.tensor(t))
    with pytest.raises(ValueError):
        F.kl_div(lucid.tensor(x), lucid.tensor(t), reduction="avg")


def test_gaussian_nll_rules(torch):
    x, t = randn(4, 3), randn(4, 3)
    close(F.gaussian_nll_loss(lucid.tensor(x), lucid.tensor(t), 0.7),
          torch.nn.functional.gaussian_nll_loss(torch.tensor(x), torch.tensor(t), 0.7), 1e-12)
    v = np.array([[0.0, 1.0, 1e-9]] * 4)       # clamped at eps
    close(F.gaussian_nll_loss(lucid.tensor(x), lucid.tensor(t), lucid.tensor(v), reduction="none"),
          torch.nn.functional.gaussian_nll_loss(torch.tensor(x), torch.tensor(t), torch.tensor(v), reduction="none"),
          1e-12)
    with pytest.raises(ValueError, match="negative"):
        F.gaussian_nll_loss(lucid.tensor(x), lucid.tensor(t), lucid.tensor(-np.ones((4, 3))))
    with pytest.raises(ValueError, match="negative"):
        F.gaussian_nll_loss(lucid.tensor(x), lucid.tensor(t), -1.0)
    with pytest.raises(ValueError, match="incorrect size"):
        F.gaussian_nll_loss(lucid.tensor(x), lucid.tensor(t), lucid.ones(3, 4))
    with pytest.raises(ValueError, match="not valid"):
        F.gaussian_nll_loss(lucid.tensor(x), lucid.tensor(t), lucid.ones(4, 3), reduction="avg")


def test_unbatched_forms(torch):
    x, y = randn(5), randn(5)
    cases = [
        ("cosine_embedding_loss", [x, y, np.array(-1.0)]),
        ("multi_margin_loss", [x, np.array(2)]),
        ("multilabel_margin_loss", [x, np.array([2, 0, -1, 1, 1])]),
        ("multilabel_soft_margin_loss", [x, (y > 0).astype(float)]),
        ("triplet_margin_loss", [x, y, randn(5)]),
    ]
    for fn, args in cases:
        la = [lucid.tensor(a) for a in args]
        ta = [torch.tensor(a) for a in args]
        for red in REDUCTIONS:
            close(getattr(F, fn)(*la, reduction=red), getattr(torch.nn.functional, fn)(*ta, reduction=red), 1e-12)


def test_composed_errors():
    x = lucid.tensor(randn(4, 5))
    with pytest.raises(RuntimeError, match="same dimension"):
        F.margin_ranking_loss(lucid.tensor(randn(3)), lucid.tensor(randn(3)), lucid.tensor(randn(3, 1)))
    with pytest.raises(ValueError, match="only p == 1 and p == 2"):
        F.multi_margin_loss(x, lucid.tensor([0, 1, 2, 3]), p=3)
    with pytest.raises(IndexError):
        F.multi_margin_loss(x, lucid.tensor([0, 1, 2, 5]))
    with pytest.raises(lucid.ShapeMismatch):
        F.multi_margin_loss(x, lucid.tensor([0, 1]))
    with pytest.raises(IndexError):
        F.multilabel_margin_loss(x, lucid.tensor(np.full((4, 5), 7)))
    with pytest.raises(lucid.ShapeMismatch):
        F.multilabel_margin_loss(x, lucid.tensor(np.zeros((4, 4), dtype=np.int64)))
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        F.triplet_margin_loss(x, x, lucid.tensor(randn(5)))
    with pytest.raises(ValueError, match="margin must be greater than 0"):
        F.triplet_margin_with_distance_loss(x, x, x, margin=0.0)
    with pytest.raises(lucid.ShapeMismatch):
        F.cosine_embedding_loss(x, x, lucid.tensor(randn(4, 1)))
    with pytest.raises(ValueError):
        F.hinge_embedding_loss(x, x, reduction="avg")


def test_triplet_custom_distance(torch):
    a, p, n = randn(4, 5), randn(4, 5), randn(4, 5)
    ld = lambda u, v: 1 - (u * v).sum(-1) / ((u * u).sum(-1) * (v * v).sum(-1)).sqrt()
    td = lambda u, v: 1 - torch.nn.functional.cosine_similarity(u, v, eps=0)
    close(F.triplet_margin_with_distance_loss(*map(lucid.tensor, (a, p, n)), distance_function=ld, swap=True),
          torch.nn.functional.triplet_margin_with_distance_loss(*map(torch.tensor, (a, p, n)), distance_function=td,
                                                                swap=True), 1e-12)


# ---- the layers

LAYERS = [
    ("MSELoss", {}, 2), ("L1Loss", {}, 2), ("SmoothL1Loss", dict(beta=0.5), 2), ("HuberLoss", dict(delta=0.5), 2),
    ("BCELoss", {}, "bce"), ("BCEWithLogitsLoss", {}, 2), ("KLDivLoss", dict(reduction="batchmean"), 2),
    ("PoissonNLLLoss", {}, "pos"), ("GaussianNLLLoss", {}, "var"), ("CosineEmbeddingLoss", dict(margin=0.1), "y3"),
    ("MarginRankingLoss", {}, "rank"), ("HingeEmbeddingLoss", {}, "y2"), ("MultiMarginLoss", dict(p=2), "cls"),
    ("MultiLabelMarginLoss", {}, "mlm"), ("MultiLabelSoftMarginLoss", {}, "bin"), ("SoftMarginLoss", {}, "y2"),
    ("TripletMarginLoss", dict(swap=True), 3), ("TripletMarginWithDistanceLoss", {}, 3),
]


def _layer_args(kind):
    x = randn(3, 5)
    if kind == 2:
        return [x, randn(3, 5)]
    if kind == 3:
        return [x, randn(3, 5), randn(3, 5)]
    return {"bce": lambda: [unif(0.1, 0.9, 3, 5), unif(0, 1, 3, 5)], "pos": lambda: [x, unif(0, 3, 3, 5)],
            "var": lambda: [x, randn(3, 5), unif(0.5, 1, 3, 5)], "y3": lambda: [x, randn(3, 5), signs(3)],
            "rank": lambda: [randn(5), randn(5), signs(5)], "y2": lambda: [x, signs(3, 5)],
            "cls": lambda: [x, RNG.integers(0, 5, 3)], "mlm": lambda: [x, _mlm_target()],
            "bin": lambda: [x, RNG.integers(0, 2, (3, 5)).astype(float)]}[kind]()


@pytest.mark.parametrize("name,kw,kind", LAYERS)
def test_layers(torch, name, kw, kind):
    args = _layer_args(kind)
    m, tm = getattr(nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert m.reduction == tm.reduction
    for attr in ["beta", "delta", "margin", "p", "eps", "swap", "log_input", "full", "log_target"]:
        if hasattr(tm, attr):
            assert getattr(m, attr) == getattr(tm, attr), attr
    close(m(*map(lucid.tensor, args)), tm(*map(torch.tensor, args)), 1e-12)
    if name != "TripletMarginWithDistanceLoss":      # torch's default distance is a PairwiseDistance module
        assert repr(m) == repr(tm)
    m2 = getattr(nn, name)(**{**kw, "reduction": "none"})
    tm2 = getattr(torch.nn, name)(**{**kw, "reduction": "none"})
    close(m2(*map(lucid.tensor, args)), tm2(*map(torch.tensor, args)), 1e-12)


def test_weighted_layers_buffers(torch):
    w = lucid.tensor(W5)
    for name in ["BCELoss", "MultiMarginLoss", "MultiLabelSoftMarginLoss"]:
        m = getattr(nn, name)(weight=w)
        assert "weight" in dict(m.named_buffers())
    m = nn.BCEWithLogitsLoss(pos_weight=w)
    assert "pos_weight" in dict(m.named_buffers())
    x, t = randn(3, 5), unif(0, 1, 3, 5)
    close(m(lucid.tensor(x), lucid.tensor(t)),
          torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(W5))(torch.tensor(x), torch.tensor(t)), 1e-12)
    with pytest.raises(ValueError):
        nn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError):
        nn.TripletMarginWithDistanceLoss(margin=-1.0)


# ---- CTC

def _ctc_data(T=12, N=4, C=6):
    x = randn(T, N, C)
    tg = RNG.integers(1, C, (N, 5))
    tg[1, :3] = [2, 2, 2]                 # repeats need blanks between them
    return x, tg, [12, 10, 7, 12], [5, 3, 0, 4]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", [lucid.float32, lucid.float64])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("layout", ["padded", "concat", "tensor_lengths"])
def test_ctc_matches_torch(torch, reduction, dtype, zero_infinity, layout):
    x, tg, il, tl = _ctc_data()
    il[2] = 1 if zero_infinity else il[2]
    tl[2] = 2 if zero_infinity else tl[2]       # 2 labels in 1 frame: impossible (inf)
    tdt = torch.float64 if dtype == lucid.float64 else torch.float32
    if layout == "concat":
        lt = lucid.tensor(np.concatenate([tg[n, :tl[n]] for n in range(4)]))
        tt = torch.tensor(np.concatenate([tg[n, :tl[n]] for n in range(4)]))
    else:
        lt, tt = lucid.tensor(tg), torch.tensor(tg)
    li, ll = (lucid.tensor(il), lucid.tensor(tl)) if layout == "tensor_lengths" else (il, tl)
    lx = lucid.tensor(x, dtype=dtype, requires_grad=True)
    tx = torch.tensor(x, dtype=tdt, requires_grad=True)
    lp, tp = lx.log_softmax(2), tx.log_softmax(2)
    y = F.ctc_loss(lp, lt, li, ll, reduction=reduction, zero_infinity=zero_infinity)
    ty = torch.nn.functional.ctc_loss(tp, tt, il, tl, reduction=reduction, zero_infinity=zero_infinity)
    tol = 1e-4 if dtype == lucid.float32 else 1e-10
    close(y, ty, tol)
    g = randn(*ty.shape)
    y.backward(lucid.tensor(g, dtype=dtype))
    ty.backward(torch.tensor(g, dtype=tdt))
    close(lx.grad, tx.grad, tol)


def test_ctc_raw_gradient_and_blank(torch):
    # the gradient w.r.t. log_probs themselves is PyTorch's formula (it assumes normalised inputs)
    x, tg, il, tl = _ctc_data()
    lp = np.log(np.exp(x) / np.exp(x).sum(2, keepdims=True))
    tg = np.where(tg == 3, 0, tg)                   # blank 3: targets avoid it
    la, ta = lucid.tensor(lp, requires_grad=True), torch.tensor(lp, requires_grad=True)
    y = F.ctc_loss(la, lucid.tensor(tg), il, tl, blank=3)
    ty = torch.nn.functional.ctc_loss(ta, torch.tensor(tg), il, tl, blank=3)
    close(y, ty, 1e-10)
    y.backward()
    ty.backward()
    close(la.grad, ta.grad, 1e-10)


def test_ctc_unbatched_and_gradcheck(torch):
    x = randn(7, 5)
    t = np.array([1, 3, 3])
    for red in REDUCTIONS:
        close(F.ctc_loss(lucid.tensor(x).log_softmax(1), lucid.tensor(t), lucid.tensor(7), lucid.tensor(3),
                         reduction=red),
              torch.nn.functional.ctc_loss(torch.tensor(x).log_softmax(1), torch.tensor(t), torch.tensor(7),
                                           torch.tensor(3), reduction=red), 1e-10)
    xl = lucid.tensor(randn(6, 2, 4), requires_grad=True)
    f = lambda v: F.ctc_loss(v.log_softmax(2), lucid.tensor([[1, 2], [3, 3]]), [6, 5], [2, 2], reduction="sum")
    assert gradcheck(f, (xl,))
    g = lucid.autograd.grad(f(xl), xl, create_graph=True)[0]
    with pytest.raises(NotImplementedError, match="double backward"):
        g.sum().backward()


def test_ctc_errors():
    lp = lucid.tensor(randn(5, 2, 4)).log_softmax(2)
    t = lucid.tensor([[1, 2], [3, 1]])
    with pytest.raises(ValueError, match="blank must be in label range"):
        F.ctc_loss(lp, t, [5, 5], [2, 2], blank=4)
    with pytest.raises(ValueError, match="at most 5"):
        F.ctc_loss(lp, t, [6, 5], [2, 2])
    with pytest.raises(lucid.ShapeMismatch, match="at least 3"):
        F.ctc_loss(lp, t, [5, 5], [3, 2])
    with pytest.raises(IndexError, match="out of bounds"):
        F.ctc_loss(lp, lucid.tensor([[1, 9], [3, 1]]), [5, 5], [2, 2])
    with pytest.raises(lucid.ShapeMismatch):
        F.ctc_loss(lp, t, [5, 5, 5], [2, 2, 2])
    with pytest.raises(lucid.ShapeMismatch):
        F.ctc_loss(lucid.tensor(randn(5)), t, [5], [2])
    with pytest.raises(ValueError):
        F.ctc_loss(lp, t, [5, 5], [2, 2], reduction="avg")
    with pytest.raises(lucid.ShapeMismatch):
        F.ctc_loss(lp, lucid.tensor([1, 2, 3]), [5, 5], [2, 2])      # concatenated, too short


def test_ctc_layer(torch):
    x, tg, il, tl = _ctc_data()
    m, tm = nn.CTCLoss(blank=0, zero_infinity=True), torch.nn.CTCLoss(blank=0, zero_infinity=True)
    assert (m.blank, m.zero_infinity, m.reduction) == (tm.blank, tm.zero_infinity, tm.reduction)
    assert nn.CTCLoss().reduction == "mean" and nn.CTCLoss().blank == 0 and not nn.CTCLoss().zero_infinity
    close(m(lucid.tensor(x).log_softmax(2), lucid.tensor(tg), il, tl),
          tm(torch.tensor(x).log_softmax(2), torch.tensor(tg), il, tl), 1e-10)
    assert repr(m) == repr(tm)


def test_ctc_batch_first_view_int32_targets(torch):
    x = randn(3, 9, 5)                              # (N, T, C), transposed to a (T, N, C) view
    tg = RNG.integers(1, 5, (3, 4))
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y = F.ctc_loss(lx.log_softmax(2).transpose(0, 1), lucid.tensor(tg, dtype=lucid.int32), [9, 8, 9], [4, 2, 3])
    ty = torch.nn.functional.ctc_loss(tx.log_softmax(2).transpose(0, 1), torch.tensor(tg, dtype=torch.int32),
                                      [9, 8, 9], [4, 2, 3])
    close(y, ty, 1e-10)
    y.backward()
    ty.backward()
    close(lx.grad, tx.grad, 1e-10)
