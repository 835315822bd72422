"""nn.utils: gradient clipping and parameter/vector conversion, against torch.nn.utils."""
import math

import numpy as np
import pytest

import lucid
from lucid import nn


def _pair(torch, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    vals = [rng.standard_normal(s) for s in ((3, 4), (4,), (2, 2))]
    grads = [rng.standard_normal(s) * scale for s in ((3, 4), (4,), (2, 2))]
    lp = [nn.Parameter(lucid.tensor(v)) for v in vals]
    tp = [torch.nn.Parameter(torch.tensor(v)) for v in vals]
    for a, b, g in zip(lp, tp, grads):
        a.grad, b.grad = lucid.tensor(g), torch.tensor(g)
    return lp, tp


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, 0.5, math.inf, 0])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(torch, norm_type, max_norm):
    lp, tp = _pair(torch)
    a = nn.utils.clip_grad_norm_(lp, max_norm, norm_type)
    b = torch.nn.utils.clip_grad_norm_(tp, max_norm, norm_type)
    assert a.item() == pytest.approx(b.item(), rel=1e-10)
    for x, y in zip(lp, tp):
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_clip_grad_norm_edge_cases(torch):
    p = nn.Parameter(lucid.ones(2))
    assert nn.utils.clip_grad_norm_(p, 1.0).item() == 0.0  # no grads
    p.grad = lucid.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    lp, tp = _pair(torch)
    assert nn.utils.get_total_norm([q.grad for q in lp]).item() == \
        pytest.approx(torch.nn.utils.get_total_norm([q.grad for q in tp]).item())
    with pytest.warns(FutureWarning):
        nn.utils.clip_grad_norm(lp, 1.0)


def test_clip_grad_value_matches_torch(torch):
    lp, tp = _pair(torch, scale=3.0)
    nn.utils.clip_grad_value_(lp, 1.5)
    torch.nn.utils.clip_grad_value_(tp, 1.5)
    for x, y in zip(lp, tp):
        np.testing.assert_array_equal(x.grad.numpy(), y.grad.numpy())


def test_parameters_vector_roundtrip(torch):
    lp, tp = _pair(torch)
    v = nn.utils.parameters_to_vector(lp)
    tv = torch.nn.utils.parameters_to_vector(tp)
    np.testing.assert_array_equal(v.detach().numpy(), tv.detach().numpy())
    assert v.requires_grad and v.shape == (20,)
    nn.utils.vector_to_parameters(lucid.arange(20.0, dtype=lucid.float64), lp)
    torch.nn.utils.vector_to_parameters(torch.arange(20.0, dtype=torch.float64), tp)
    for x, y in zip(lp, tp):
        np.testing.assert_array_equal(x.detach().numpy(), y.detach().numpy())
    with pytest.raises(TypeError):
        nn.utils.vector_to_parameters([1.0], lp)
    with pytest.raises(lucid.ShapeMismatch):
        nn.utils.vector_to_parameters(lucid.zeros(5), lp)


def _copy_into(torch, tmod, lmod):
    with torch.no_grad():
        for k, v in lmod.state_dict().items():
            tmod.state_dict()[k].copy_(torch.tensor(v.numpy()))


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_torch(torch, dim):
    import warnings
    lin = nn.utils.weight_norm(nn.Linear(3, 4).double(), dim=dim)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tlin = torch.nn.utils.weight_norm(torch.nn.Linear(3, 4).double(), dim=dim)
    assert [n for n, _ in lin.named_parameters()] == [n for n, _ in tlin.named_parameters()]
    _copy_into(torch, tlin, lin)
    x = np.random.default_rng(0).standard_normal((5, 3))
    y, ty = lin(lucid.tensor(x)), tlin(torch.tensor(x))
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    for (n, p), (_, tp) in zip(lin.named_parameters(), tlin.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=n)
    nn.utils.remove_weight_norm(lin)
    assert [n for n, _ in lin.named_parameters()] == ["bias", "weight"]
    np.testing.assert_allclose(lin(lucid.tensor(x)).detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="not found"):
        nn.utils.remove_weight_norm(lin)


def test_spectral_norm_matches_torch(torch):
    lin = nn.utils.spectral_norm(nn.Linear(5, 4).double(), n_power_iterations=2)
    tlin = torch.nn.utils.spectral_norm(torch.nn.Linear(5, 4).double(), n_power_iterations=2)
    assert list(lin.state_dict()) == list(tlin.state_dict())
    assert lin.state_dict()._metadata[""]["spectral_norm"] == tlin.state_dict()._metadata[""]["spectral_norm"]
    _copy_into(torch, tlin, lin)
    x = np.random.default_rng(1).standard_normal((3, 5))
    for _ in range(3):
        y, ty = lin(lucid.tensor(x)), tlin(torch.tensor(x))
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-10)
        np.testing.assert_allclose(lin.weight_u.numpy(), tlin.weight_u.numpy(), rtol=1e-10, atol=1e-12)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(lin.weight_orig.grad.numpy(), tlin.weight_orig.grad.numpy(), rtol=1e-9, atol=1e-12)
    lin.eval()
    tlin.eval()
    u0 = lin.weight_u.numpy().copy()
    np.testing.assert_allclose(lin(lucid.tensor(x)).detach().numpy(), tlin(torch.tensor(x)).detach().numpy(),
                               rtol=1e-10)
    np.testing.assert_array_equal(lin.weight_u.numpy(), u0)  # no power iteration in eval mode
    nn.utils.remove_spectral_norm(lin)
    assert "weight" in lin._parameters and "weight_u" not in lin._buffers
    with pytest.raises(RuntimeError, match="two spectral_norm"):
        nn.utils.spectral_norm(nn.utils.spectral_norm(nn.Linear(2, 2)))


def test_load_state_dict_pre_hook_gets_module():
    m = nn.Linear(1, 1)
    seen = []
    m.register_load_state_dict_pre_hook(lambda mod, sd, prefix, *rest: seen.append((mod, prefix)))
    m._register_load_state_dict_pre_hook(lambda sd, prefix, *rest: seen.append(prefix))
    m.load_state_dict(m.state_dict())
    assert seen == [(m, ""), ""]
