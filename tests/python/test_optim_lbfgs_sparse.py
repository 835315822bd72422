"""LBFGS and SparseAdam against torch.optim: the same iterates step by step, state_dict structure,
resuming from a state_dict, and argument errors."""
import copy

import numpy as np
import pytest

import lucid
from lucid import nn, optim


def _problem(torch, dtype, seed=0):
    """A small non-quadratic least-squares problem over two parameters, on both sides."""
    rng = np.random.default_rng(seed)
    A, b = rng.standard_normal((6, 5)).astype(dtype), rng.standard_normal(6).astype(dtype)
    w0, c0 = rng.standard_normal(5).astype(dtype), rng.standard_normal((1, 2)).astype(dtype)
    lw, lc = nn.Parameter(lucid.tensor(w0)), nn.Parameter(lucid.tensor(c0))
    tw, tc = torch.nn.Parameter(torch.tensor(w0)), torch.nn.Parameter(torch.tensor(c0))
    LA, Lb, TA, Tb = lucid.tensor(A), lucid.tensor(b), torch.tensor(A), torch.tensor(b)

    def loss_fn(A, b, w, c):
        r = A @ w - b
        return (r * r).sum() + ((c - 1) ** 4).sum() + (w[:2] * c[0]).sum() ** 2

    return (lw, lc), (tw, tc), (lambda: loss_fn(LA, Lb, lw, lc)), (lambda: loss_fn(TA, Tb, tw, tc))


def _closure(opt, fn):
    def closure():
        opt.zero_grad()
        loss = fn()
        loss.backward()
        return loss
    return closure


LBFGS_CONFIGS = [
    dict(),
    dict(line_search_fn="strong_wolfe"),
    dict(lr=0.1, max_iter=5, history_size=2),
    dict(line_search_fn="strong_wolfe", max_iter=7, max_eval=9, history_size=3, tolerance_grad=1e-5),
    dict(lr=0.5, tolerance_change=1e-3, max_iter=50),
]


@pytest.mark.parametrize("cfg", LBFGS_CONFIGS)
def test_lbfgs_matches_torch_step_by_step(torch, cfg):
    lp, tp, lf, tf = _problem(torch, np.float64)
    lo, to = optim.LBFGS(lp, **cfg), torch.optim.LBFGS(tp, **cfg)
    for _ in range(4):
        la, ta = lo.step(_closure(lo, lf)), to.step(_closure(to, tf))
        np.testing.assert_allclose(la.item(), ta.item(), rtol=1e-10)
        for a, b in zip(lp, tp):
            np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-9, atol=1e-12)
        ls, ts = lo.state[lp[0]], to.state[tp[0]]
        assert ls["func_evals"] == ts["func_evals"] and ls["n_iter"] == ts["n_iter"]
    sd, tsd = lo.state_dict(), to.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    assert list(sd["state"]) == list(tsd["state"]) == [0]
    assert set(sd["state"][0]) == set(tsd["state"][0])
    assert len(sd["state"][0]["old_dirs"]) == len(tsd["state"][0]["old_dirs"])
    for x, y in zip(sd["state"][0]["old_dirs"], tsd["state"][0]["old_dirs"]):
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(float(sd["state"][0]["H_diag"]), float(tsd["state"][0]["H_diag"]), rtol=1e-8)


def test_lbfgs_float32_and_resume(torch):
    lp, tp, lf, tf = _problem(torch, np.float32)
    cfg = dict(line_search_fn="strong_wolfe", history_size=4, max_iter=6)
    lo, to = optim.LBFGS(lp, **cfg), torch.optim.LBFGS(tp, **cfg)
    for _ in range(3):
        lo.step(_closure(lo, lf))
        to.step(_closure(to, tf))
        for a, b in zip(lp, tp):
            np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-4, atol=1e-4)
    # a fresh optimizer loaded from the state dict continues exactly like the original
    lp2, _, lf2, _ = _problem(torch, np.float32)
    with lucid.no_grad():
        for a, b in zip(lp2, lp):
            a.copy_(b)
    lo2 = optim.LBFGS(lp2, **cfg)
    lo2.load_state_dict(copy.deepcopy(lo.state_dict()))
    lo.step(_closure(lo, lf))
    lo2.step(_closure(lo2, lf2))
    for a, b in zip(lp, lp2):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_lbfgs_errors_and_convergence():
    w = nn.Parameter(lucid.tensor([3.0, -2.0], dtype=lucid.float64))
    with pytest.raises(ValueError, match="learning rate"):
        optim.LBFGS([w], lr=-1)
    with pytest.raises(ValueError, match="parameter groups"):
        optim.LBFGS([{"params": [w]}, {"params": [nn.Parameter(lucid.ones(1))]}])
    o = optim.LBFGS([w], line_search_fn="bogus")
    with pytest.raises(RuntimeError, match="strong_wolfe"):
        o.step(_closure(o, lambda: ((w - 1) ** 2).sum()))
    o = optim.LBFGS([w], line_search_fn="strong_wolfe")
    for _ in range(3):
        o.step(_closure(o, lambda: ((w - 1) ** 2).sum() + (w[0] * w[1] - 1) ** 2))
    np.testing.assert_allclose(w.numpy(), [1.0, 1.0], atol=1e-4)


@pytest.mark.parametrize("cfg", [dict(), dict(lr=0.05, betas=(0.5, 0.8), eps=1e-4), dict(lr=0.01, maximize=True)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sparse_adam_matches_torch_embedding_sparse_grads(torch, cfg, dtype):
    rng = np.random.default_rng(0)
    num, dim = 10, 3
    temb = torch.nn.Embedding(num, dim, sparse=True).to(getattr(torch, dtype))
    bias = torch.nn.Parameter(torch.zeros(dim, dtype=getattr(torch, dtype)))  # a dense 1-d param (sparse grad too)
    lw = nn.Parameter(lucid.tensor(temb.weight.detach().numpy().copy()))
    lb = nn.Parameter(lucid.tensor(bias.detach().numpy().copy()))
    to = torch.optim.SparseAdam([temb.weight, bias], **cfg)
    lo = optim.SparseAdam([lw, lb], **cfg)
    for step in range(6):
        idx = rng.integers(0, num, size=4)  # a few rows only: most rows are absent from the gradient
        up = torch.tensor(rng.standard_normal((4, dim)), dtype=getattr(torch, dtype))
        to.zero_grad()
        (temb(torch.tensor(idx)) * up).sum().backward()
        bias.grad = torch.sparse_coo_tensor([[step % dim]], torch.ones(1, dtype=bias.dtype), (dim,),
                                            check_invariants=True)
        assert temb.weight.grad.is_sparse
        lw.grad = lucid.tensor(temb.weight.grad.to_dense().numpy())
        lb.grad = lucid.tensor(bias.grad.to_dense().numpy())
        lo.step()
        to.step()
        tol = dict(rtol=1e-12, atol=1e-14) if dtype == "float64" else dict(rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(lw.numpy(), temb.weight.detach().numpy(), **tol)
        np.testing.assert_allclose(lb.numpy(), bias.detach().numpy(), **tol)
        np.testing.assert_allclose(lo.state[lw]["exp_avg_sq"].numpy(), to.state[temb.weight]["exp_avg_sq"].numpy(),
                                   **tol)
    sd, tsd = lo.state_dict(), to.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    assert sd["state"][0]["step"] == tsd["state"][0]["step"] == 6
    assert set(sd["state"][0]) == set(tsd["state"][0])


def test_sparse_adam_absent_rows_untouched_and_errors():
    w = nn.Parameter(lucid.ones(4, 2))
    o = optim.SparseAdam([w], lr=0.1)
    w.grad = lucid.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [-2.0, 3.0]])
    o.step()
    assert w.numpy()[0].tolist() == [1.0, 1.0] and w.numpy()[2].tolist() == [1.0, 1.0]
    assert o.state[w]["exp_avg"].numpy()[0].tolist() == [0.0, 0.0]
    np.testing.assert_allclose(w.numpy()[1], [0.9, 1.0], rtol=1e-5)   # (a zero inside a present row updates)
    with pytest.raises(ValueError, match="learning rate"):
        optim.SparseAdam([w], lr=0)
    with pytest.raises(ValueError, match="beta parameter at index 1"):
        optim.SparseAdam([w], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="real floating-point"):
        optim.SparseAdam([nn.Parameter(lucid.ones(2, dtype=lucid.complex64))])
    with pytest.raises(lucid.ShapeMismatch, match=r"\[sparse_adam\] grad\[0\]"):
        lucid._C._sparse_adam_step_([w], [lucid.ones(3, 2)], [lucid.zeros(4, 2)], [lucid.zeros(4, 2)], [1], lr=0.1,
                                    beta1=0.9, beta2=0.99, eps=1e-8, maximize=False)
    with pytest.raises(ValueError, match="step must be at least 1"):
        lucid._C._sparse_adam_step_([w], [lucid.ones(4, 2)], [lucid.zeros(4, 2)], [lucid.zeros(4, 2)], [0], lr=0.1,
                                    beta1=0.9, beta2=0.99, eps=1e-8, maximize=False)


def test_lbfgs_complex_parameters_as_torch(torch):
    """A complex parameter enters the flat vectors as its real view, as in PyTorch."""
    rng = np.random.default_rng(3)
    z0 = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    t0 = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    lz, tz = nn.Parameter(lucid.tensor(z0)), torch.nn.Parameter(torch.tensor(z0))
    lt, tt = lucid.tensor(t0), torch.tensor(t0)
    cfg = dict(line_search_fn="strong_wolfe", max_iter=5)
    lo, to = optim.LBFGS([lz], **cfg), torch.optim.LBFGS([tz], **cfg)
    lf = lambda: ((lz - lt).abs() ** 2).sum() + (lz.real ** 4).sum()  # noqa: E731
    tf = lambda: ((tz - tt).abs() ** 2).sum() + (tz.real ** 4).sum()  # noqa: E731
    for _ in range(3):
        lo.step(_closure(lo, lf))
        to.step(_closure(to, tf))
        np.testing.assert_allclose(lz.numpy(), tz.detach().numpy(), rtol=1e-9, atol=1e-12)
