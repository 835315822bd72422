"""The remaining small functionals of lucid.nn.functional and their layers against PyTorch: bilinear,
local_response_norm, normalize, cosine_similarity, pairwise_distance, pdist, the feature/alpha dropouts and
the padding layers. Values and gradients in float32/float64, float64 gradcheck, typed errors, defaults."""
import math
import warnings

import numpy as np
import pytest

import lucid
import lucid.nn as nn
import lucid.nn.functional as F
from lucid.autograd import gradcheck, gradgradcheck
from helpers import close

RNG = np.random.default_rng(5)


def randn(*s):
    return RNG.standard_normal(s)


def _pair(torch, args, diff, dtype):
    tdt = {lucid.float32: torch.float32, lucid.float64: torch.float64}[dtype]
    la = [lucid.tensor(a, dtype=dtype, requires_grad=i in diff) for i, a in enumerate(args)]
    ta = [torch.tensor(a, dtype=tdt, requires_grad=i in diff) for i, a in enumerate(args)]
    return la, ta


def _zero_row(a):
    a = a.copy()
    a[0] = 0.0
    return a


# name -> (make args, differentiable arg indices, kwargs variants)
CASES = {
    "bilinear": (lambda: [randn(4, 3), randn(4, 5), randn(6, 3, 5), randn(6)], [0, 1, 2, 3], [{}]),
    "bilinear_nobias": (lambda: [randn(2, 3, 3), randn(2, 3, 5), randn(6, 3, 5)], [0, 1, 2], [{}]),
    "bilinear_1d": (lambda: [randn(3), randn(5), randn(2, 3, 5), randn(2)], [0, 1, 2, 3], [{}]),
    "local_response_norm": (lambda: [randn(2, 6, 5)], [0],
                            [dict(size=3), dict(size=2, alpha=0.1, beta=0.5, k=2.0), dict(size=1)]),
    "local_response_norm_4d": (lambda: [randn(2, 5, 3, 4)], [0], [dict(size=3, alpha=0.2), dict(size=4)]),
    "local_response_norm_5d": (lambda: [randn(1, 4, 2, 3, 2)], [0], [dict(size=5, alpha=0.3, beta=1.0)]),
    "normalize": (lambda: [randn(3, 4, 2)], [0], [{}, dict(p=1.0, dim=-1), dict(p=3, dim=0),
                                                  dict(p=float("inf"), dim=2)]),
    "normalize_zero": (lambda: [_zero_row(randn(3, 4))], [0], [dict(dim=1, eps=1e-3)]),
    "cosine_similarity": (lambda: [randn(4, 5), randn(4, 5)], [0, 1], [{}, dict(dim=0), dict(dim=-1, eps=1e-2)]),
    "cosine_similarity_bcast": (lambda: [randn(3, 1, 5), randn(4, 5)], [0, 1], [dict(dim=-1), dict(dim=0)]),
    "cosine_similarity_zero": (lambda: [_zero_row(randn(3, 4)), randn(3, 4)], [0, 1], [dict(dim=1)]),
    "pairwise_distance": (lambda: [randn(4, 5), randn(4, 5)], [0, 1],
                          [{}, dict(p=1.0), dict(p=3, eps=1e-3), dict(keepdim=True), dict(p=float("inf"))]),
    "pairwise_distance_bcast": (lambda: [randn(3, 5), randn(5)], [0, 1], [{}, dict(p=0.5, keepdim=True)]),
    "pdist": (lambda: [randn(5, 3)], [0], [{}, dict(p=1), dict(p=3.0), dict(p=float("inf")), dict(p=0.7)]),
}
FN = {"bilinear_nobias": "bilinear", "bilinear_1d": "bilinear", "local_response_norm_4d": "local_response_norm",
      "local_response_norm_5d": "local_response_norm", "normalize_zero": "normalize",
      "cosine_similarity_bcast": "cosine_similarity", "cosine_similarity_zero": "cosine_similarity",
      "pairwise_distance_bcast": "pairwise_distance"}
PARAMS = [(n, i) for n, c in CASES.items() for i in range(len(c[2]))]


@pytest.mark.parametrize("name,k", PARAMS)
@pytest.mark.parametrize("dtype", [lucid.float32, lucid.float64])
def test_matches_torch(torch, name, k, dtype):
    make, diff, opts = CASES[name]
    fname = FN.get(name, name)
    la, ta = _pair(torch, make(), diff, dtype)
    y = getattr(F, fname)(*la, **opts[k])
    ty = getattr(torch.nn.functional, fname)(*ta, **opts[k])
    tol = 1e-5 if dtype == lucid.float32 else 1e-11
    assert y.dtype == dtype
    close(y, ty, tol)
    g = randn(*ty.shape)
    y.backward(lucid.tensor(g, dtype=dtype))
    ty.backward(torch.tensor(g, dtype=ty.dtype))
    for i in diff:
        close(la[i].grad, ta[i].grad, tol * 10)


@pytest.mark.parametrize("name,k", [p for p in PARAMS if "zero" not in p[0]])
def test_gradcheck(name, k):
    make, diff, opts = CASES[name]
    fname = FN.get(name, name)
    inputs = tuple(lucid.tensor(a, dtype=lucid.float64, requires_grad=True) for a in make())

    def f(*xs):
        return getattr(F, fname)(*xs, **opts[k])

    assert gradcheck(f, inputs)
    if "inf" not in str(opts[k].get("p", "")):
        assert gradgradcheck(f, inputs)


def test_cosine_similarity_bounded_and_large(torch):
    for v in (1e200, 1e150, 1e-170):                   # norms overflow / underflow as torch's do
        x = np.full((2, 4), v)
        close(F.cosine_similarity(lucid.tensor(x), lucid.tensor(x)),
              torch.nn.functional.cosine_similarity(torch.tensor(x), torch.tensor(x)), 1e-12)
    a, b = randn(6, 3), randn(6, 3)
    assert (F.cosine_similarity(lucid.tensor(a), lucid.tensor(b)).abs().numpy() <= 1.0).all()


def test_pdist_order_and_empty(torch):
    x = randn(4, 2)
    want = [np.linalg.norm(x[i] - x[j]) for i in range(4) for j in range(i + 1, 4)]
    close(F.pdist(lucid.tensor(x)), np.array(want), 1e-12)
    assert tuple(F.pdist(lucid.tensor(randn(1, 3))).shape) == (0,)


def test_errors():
    a, w = lucid.randn(2, 3), lucid.randn(5, 3, 4)
    with pytest.raises(lucid.ShapeMismatch, match="bilinear"):
        F.bilinear(a, lucid.randn(3, 4), w)
    with pytest.raises(lucid.ShapeMismatch, match="input dimensions"):
        F.bilinear(lucid.randn(2, 1, 3), lucid.randn(2, 4), w)
    with pytest.raises(lucid.ShapeMismatch, match="input2 size"):
        F.bilinear(a, lucid.randn(2, 3), w)
    with pytest.raises(lucid.ShapeMismatch, match="bias size"):
        F.bilinear(a, lucid.randn(2, 4), w, lucid.randn(6))
    with pytest.raises(lucid.ShapeMismatch, match="3-D weight"):
        F.bilinear(a, lucid.randn(2, 4), lucid.randn(3, 4))
    with pytest.raises(ValueError, match="3D or higher"):
        F.local_response_norm(lucid.randn(2, 3), 2)
    with pytest.raises(lucid.DtypeMismatch, match="floating point"):
        F.cosine_similarity(lucid.ones(2, 3, dtype=lucid.int64), lucid.ones(2, 3, dtype=lucid.int64))
    with pytest.raises(lucid.ShapeMismatch):
        F.cosine_similarity(lucid.randn(2, 3), lucid.randn(4, 3))
    with pytest.raises(IndexError):
        F.cosine_similarity(lucid.randn(2, 3), lucid.randn(3), dim=2)
    with pytest.raises(lucid.ShapeMismatch):
        F.pairwise_distance(lucid.randn(2, 3), lucid.randn(4, 3))
    with pytest.raises(lucid.ShapeMismatch, match="2D"):
        F.pdist(lucid.randn(2, 3, 3))
    with pytest.raises(ValueError, match="non-negative"):
        F.pdist(lucid.randn(2, 3), -1)
    with pytest.raises(lucid.DtypeMismatch, match="floating"):
        F.pdist(lucid.ones(2, 3, dtype=lucid.int64))
    with pytest.raises(IndexError):
        F.normalize(lucid.randn(3))
    for fn in (F.dropout1d, F.dropout2d, F.dropout3d, F.alpha_dropout, F.feature_alpha_dropout):
        with pytest.raises(ValueError, match="between 0 and 1"):
            fn(lucid.randn(2, 3, 4), 1.5)
    with pytest.raises(lucid.ShapeMismatch, match="dropout1d"):
        F.dropout1d(lucid.randn(2, 3, 4, 5))
    with pytest.raises(lucid.ShapeMismatch, match="at least 2 dimensions"):
        F.feature_alpha_dropout(lucid.randn(3), 0.5, True)
    close(F.feature_alpha_dropout(lucid.ones(3), 0.5, False), np.ones(3), 0)      # as torch: checked only when used
    close(F.feature_alpha_dropout(lucid.ones(3), 1.0, True), np.zeros(3), 0)
    for cls in (nn.Dropout1d, nn.AlphaDropout):
        with pytest.raises(ValueError):
            cls(-0.1)


def test_normalize_out():
    x = lucid.tensor(randn(3, 4))
    out = lucid.empty(3, 4)
    r = F.normalize(x, out=out)
    close(out, F.normalize(x), 1e-6)
    assert r is out


# ---- dropouts (random: structure and statistics, not torch's draws)

@pytest.mark.parametrize("fn,shape", [(F.dropout1d, (8, 16, 5)), (F.dropout1d, (16, 5)), (F.dropout2d, (8, 16, 3, 2)),
                                      (F.dropout3d, (8, 16, 2, 2, 2)), (F.dropout3d, (16, 2, 2, 2))])
def test_feature_dropout_masks_channels(fn, shape):
    lucid.manual_seed(0)
    p = 0.3
    x = lucid.tensor(np.abs(randn(*shape)) + 0.5, requires_grad=True)
    y = fn(x, p, True)
    ratio = (y / x).detach().numpy()
    lead = 2 if shape[0] == 8 else 1                  # (N, C, ...) or unbatched (C, ...)
    flat = ratio.reshape(int(np.prod(shape[:lead])), -1)
    for row in flat:                                   # each channel is all-kept or all-dropped
        assert np.allclose(row, 0.0) or np.allclose(row, 1 / (1 - p))
    kept = np.mean([not np.allclose(r, 0) for r in flat])
    assert 0.4 < kept < 0.95
    y.backward(lucid.ones_like(y))
    close(x.grad.numpy().reshape(flat.shape), flat, 1e-6)
    close(fn(x, p, False), x.detach().numpy(), 0)
    close(fn(x, 1.0, True), np.zeros(shape), 0)


def test_dropout2d_warnings():
    with pytest.warns(UserWarning, match="3D input to dropout2d"):
        F.dropout2d(lucid.randn(2, 3, 4))
    with pytest.warns(UserWarning, match="5-D input to dropout2d"):
        F.dropout2d(lucid.randn(2, 3, 4, 1, 1))
    with pytest.warns(UserWarning, match="3-D input to dropout3d"):
        F.dropout3d(lucid.randn(2, 3, 4))


@pytest.mark.parametrize("feature", [False, True])
def test_alpha_dropout_stats(feature):
    lucid.manual_seed(1)
    p = 0.2
    fn = F.feature_alpha_dropout if feature else F.alpha_dropout
    x = lucid.randn(64, 32, 16, dtype=lucid.float64)
    y = fn(x, p, True)
    alpha = 1.7580993408473766
    a = 1.0 / math.sqrt((alpha ** 2 * p + 1) * (1 - p))
    yn, xn = y.numpy(), x.numpy()
    kept = np.isclose(yn, a * xn + alpha * a * p)
    dropped = np.isclose(yn, -alpha * a + alpha * a * p)
    assert (kept | dropped).all()
    assert abs(dropped.mean() - p) < 0.03
    assert abs(yn.mean()) < 0.05 and abs(yn.std() - 1) < 0.05
    if feature:
        assert (dropped == dropped[:, :, :1]).all()
    assert fn(x, p) is x                        # training defaults to False
    assert fn(x, 0.0, True) is x
    close(fn(x, 1.0, True), np.zeros(xn.shape), 0)


def test_dropout_inplace():
    lucid.manual_seed(2)
    x = lucid.ones(4, 6, 3)
    y = F.dropout1d(x, 0.5, True, inplace=True)
    close(x, y, 0)
    x = lucid.ones(6, 3)
    y = F.dropout1d(x, 0.5, True, inplace=True)
    assert tuple(y.shape) == (6, 3)
    close(x, y, 0)


# ---- modules

def test_bilinear_module_matches_torch(torch):
    torch.manual_seed(0)
    tm = torch.nn.Bilinear(3, 4, 5, dtype=torch.float64)
    lm = nn.Bilinear(3, 4, 5, dtype=lucid.float64)
    assert list(lm.state_dict()) == list(tm.state_dict())
    lm.load_state_dict({k: lucid.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    a, b = randn(2, 3), randn(2, 4)
    close(lm(lucid.tensor(a), lucid.tensor(b)), tm(torch.tensor(a), torch.tensor(b)), 1e-12)
    assert repr(lm) == repr(tm).replace("torch.", "")
    lm = nn.Bilinear(16, 4, 300, bias=False)
    assert lm.bias is None
    w = lm.weight.detach().numpy()
    assert np.abs(w).max() <= 0.25 and np.abs(w).max() > 0.24 and abs(w.mean()) < 0.01


def test_modules_match_torch(torch):
    x, y = randn(3, 4, 5), randn(3, 4, 5)
    lx, ly, tx, ty = lucid.tensor(x), lucid.tensor(y), torch.tensor(x), torch.tensor(y)
    for lm, tm in [(nn.CosineSimilarity(), torch.nn.CosineSimilarity()),
                   (nn.CosineSimilarity(dim=2, eps=0.1), torch.nn.CosineSimilarity(dim=2, eps=0.1)),
                   (nn.PairwiseDistance(), torch.nn.PairwiseDistance()),
                   (nn.PairwiseDistance(p=1, keepdim=True), torch.nn.PairwiseDistance(p=1, keepdim=True))]:
        close(lm(lx, ly), tm(tx, ty), 1e-12)
        assert repr(lm) == repr(tm)
    for lm, tm in [(nn.LocalResponseNorm(3), torch.nn.LocalResponseNorm(3)),
                   (nn.LocalResponseNorm(2, 0.1, 0.5, 2.0), torch.nn.LocalResponseNorm(2, 0.1, 0.5, 2.0))]:
        close(lm(lx), tm(tx), 1e-12)
        assert repr(lm) == repr(tm)
    for name in ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]:
        lm, tm = getattr(nn, name)(0.2), getattr(torch.nn, name)(0.2)
        assert repr(lm) == repr(tm)
        lm.eval()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            close(lm(lx), x, 0)


PADS = [("ZeroPad1d", 2, (), (2, 3, 4)), ("ZeroPad2d", (1, 0, 2, 1), (), (2, 3, 4)),
        ("ZeroPad3d", 1, (), (1, 2, 3, 2, 2)), ("ConstantPad1d", (0, 3), (2.5,), (3, 4)),
        ("ConstantPad2d", 1, (-1.0,), (1, 2, 3, 3)), ("ConstantPad3d", (1, 0, 0, 1, 2, 0), (0.5,), (2, 3, 2, 2)),
        ("ReflectionPad1d", (2, 1), (), (2, 3, 4)), ("ReflectionPad2d", 2, (), (1, 2, 3, 4)),
        ("ReflectionPad3d", 1, (), (1, 2, 2, 3, 3)), ("ReplicationPad1d", 3, (), (3, 4)),
        ("ReplicationPad2d", (1, 2, 0, 3), (), (2, 3, 4)), ("ReplicationPad3d", 2, (), (2, 2, 3, 2)),
        ("CircularPad1d", (1, 2), (), (2, 3, 4)), ("CircularPad2d", 1, (), (2, 3, 4)),
        ("CircularPad3d", (1, 1, 0, 1, 1, 0), (), (1, 2, 2, 3, 3))]


@pytest.mark.parametrize("name,padding,extra,shape", PADS)
def test_padding_layers(torch, name, padding, extra, shape):
    x = randn(*shape)
    lx, tx = lucid.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lm, tm = getattr(nn, name)(padding, *extra), getattr(torch.nn, name)(padding, *extra)
    assert repr(lm) == repr(tm)
    assert lm.padding == tm.padding
    ly, ty = lm(lx), tm(tx)
    close(ly, ty, 1e-12)
    g = randn(*ty.shape)
    ly.backward(lucid.tensor(g))
    ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, 1e-12)


def test_padding_errors():
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        nn.CircularPad1d(1)(lucid.randn(4))
    with pytest.raises(ValueError, match="expected 3D or 4D input"):
        nn.CircularPad2d(1)(lucid.randn(2, 2, 2, 2, 2))
    with pytest.raises(NotImplementedError):
        nn.ReflectionPad2d(1)(lucid.randn(3, 3))
    with pytest.raises(lucid.ShapeMismatch):
        nn.ReflectionPad1d(3)(lucid.randn(1, 2, 3))


def test_exports():
    for n in ["pad", "bilinear", "local_response_norm", "normalize", "cosine_similarity", "pairwise_distance",
              "pdist", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]:
        assert n in F.__all__ and callable(getattr(F, n))
    for n in ["Bilinear", "LocalResponseNorm", "CosineSimilarity", "PairwiseDistance", "Dropout1d", "AlphaDropout",
              "FeatureAlphaDropout", "ZeroPad2d", "CircularPad3d"]:
        assert issubclass(getattr(nn, n), nn.Module)
