"""Recurrent layers against PyTorch with copied weights: the fused cells (values, first and second
derivatives), RNNCell/LSTMCell/GRUCell, RNN/LSTM/GRU (layers, directions, projections, packed
sequences) and nn.utils.rnn, plus typed errors."""
import numpy as np
import pytest

import lucid
import lucid.nn as nn
from lucid import _C
from lucid.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(5)


def arr(*shape):
    return RNG.standard_normal(shape)


def close(a, b, tol=1e-10):
    a = a.detach().numpy() if isinstance(a, lucid.Tensor) else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def leaf(x, dtype=None):
    return lucid.tensor(x, requires_grad=True) if dtype is None else lucid.tensor(x, dtype=dtype, requires_grad=True)


def copy_weights(lmod, tmod):
    """Copies every torch parameter into the lucid module under the same name."""
    names = [n for n, _ in lmod.named_parameters()]
    assert names == [n for n, _ in tmod.named_parameters()]
    for n, p in tmod.named_parameters():
        lp = lmod.get_parameter(n) if hasattr(lmod, "get_parameter") else dict(lmod.named_parameters())[n]
        lp.data = lucid.tensor(p.detach().numpy())


def check_param_grads(lmod, tmod, tol):
    lp = dict(lmod.named_parameters())
    for n, p in tmod.named_parameters():
        close(lp[n].grad, p.grad, tol)


# ---- the fused cells


@pytest.mark.parametrize("B,H", [(3, 4), (1, 1), (0, 3)])
def test_fused_lstm_cell_gradcheck(B, H):
    gi, gh, c = leaf(arr(B, 4 * H)), leaf(arr(B, 4 * H)), leaf(arr(B, H))
    f = lambda a, b, s: _C.fused_lstm_cell(a, b, s)  # noqa: E731
    assert gradcheck(f, (gi, gh, c))
    assert gradgradcheck(f, (gi, gh, c))


@pytest.mark.parametrize("B,H", [(3, 4), (1, 1)])
def test_fused_gru_cell_gradcheck(B, H):
    gi, gh, h = leaf(arr(B, 3 * H)), leaf(arr(B, 3 * H)), leaf(arr(B, H))
    assert gradcheck(_C.fused_gru_cell, (gi, gh, h))
    assert gradgradcheck(_C.fused_gru_cell, (gi, gh, h))


@pytest.mark.parametrize("nl", ["tanh", "relu"])
def test_fused_rnn_cell_gradcheck(nl):
    gi, gh = leaf(arr(3, 5)), leaf(arr(3, 5))
    f = lambda a, b: _C.fused_rnn_cell(a, b, nl)  # noqa: E731
    assert gradcheck(f, (gi, gh))
    assert gradgradcheck(f, (gi, gh))


def test_fused_cells_accept_row_strided_gates():
    big = arr(6, 8)
    gi = lucid.tensor(big)[::2]  # rows 2 apart: unit stride along the gates
    gh = lucid.tensor(arr(3, 8))
    c = lucid.tensor(arr(3, 2))
    h1, c1 = _C.fused_lstm_cell(gi, gh, c)
    h2, c2 = _C.fused_lstm_cell(lucid.tensor(big[::2].copy()), gh, c)
    close(h1, h2, 0)
    close(c1, c2, 0)
    gt = lucid.tensor(arr(8, 3)).mT  # gates with stride 3 along G: copied first
    h3 = _C.fused_gru_cell(lucid.tensor(arr(3, 6))[:, :6], lucid.tensor(gt.numpy()[:, :6].copy()), c)
    assert h3.shape == (3, 2)


def test_fused_cell_errors():
    with pytest.raises(lucid.errors.ShapeMismatch, match="lstm_cell"):
        _C.fused_lstm_cell(lucid.zeros(2, 8), lucid.zeros(2, 8), lucid.zeros(2, 3))
    with pytest.raises(lucid.errors.ShapeMismatch, match="gru_cell"):
        _C.fused_gru_cell(lucid.zeros(2, 6), lucid.zeros(2, 9), lucid.zeros(2, 2))
    with pytest.raises(lucid.errors.ShapeMismatch, match="gru_cell"):
        _C.fused_gru_cell(lucid.zeros(2, 7), lucid.zeros(2, 7), lucid.zeros(2, 2))
    with pytest.raises(lucid.errors.DtypeMismatch, match="rnn_cell"):
        _C.fused_rnn_cell(lucid.zeros(2, 3), lucid.zeros(2, 3, dtype=lucid.float64), "tanh")
    with pytest.raises(ValueError, match="nonlinearity"):
        _C.fused_rnn_cell(lucid.zeros(2, 3), lucid.zeros(2, 3), "sigmoid")
    with pytest.raises(NotImplementedError, match="lstm_cell"):
        _C.fused_lstm_cell(lucid.zeros(2, 4, dtype=lucid.int64), lucid.zeros(2, 4, dtype=lucid.int64),
                           lucid.zeros(2, 1, dtype=lucid.int64))


# ---- cell modules


def run_cell(lmod, tmod, torch, x, hx, tol):
    lx, tx = leaf(x), torch.tensor(x, requires_grad=True)
    lucid_lstm = isinstance(lmod, nn.LSTMCell)
    if hx is None:
        lh = th = None
    elif lucid_lstm:
        lh = tuple(leaf(v) for v in hx)
        th = tuple(torch.tensor(v, requires_grad=True) for v in hx)
    else:
        lh, th = leaf(hx), torch.tensor(hx, requires_grad=True)
    lo, to = lmod(lx, lh), tmod(tx, th)
    if lucid_lstm:
        for a, b in zip(lo, to):
            close(a, b, tol)
        gs = [arr(*v.shape) for v in to]
        (lo[0] * lucid.tensor(gs[0])).sum().backward()
        (to[0] * torch.tensor(gs[0])).sum().backward()
        # c' feeds the loss too
        lmod.zero_grad()
        tmod.zero_grad()
        lx.grad = None
        tx.grad = None
        if lh is not None:
            for a, b in zip(lh, th):
                a.grad = None
                b.grad = None
        lo, to = lmod(lx, lh), tmod(tx, th)
        ((lo[0] * lucid.tensor(gs[0])).sum() + (lo[1] * lucid.tensor(gs[1])).sum()).backward()
        ((to[0] * torch.tensor(gs[0])).sum() + (to[1] * torch.tensor(gs[1])).sum()).backward()
        if lh is not None:
            for a, b in zip(lh, th):
                close(a.grad, b.grad, tol)
    else:
        close(lo, to, tol)
        g = arr(*to.shape)
        (lo * lucid.tensor(g)).sum().backward()
        (to * torch.tensor(g)).sum().backward()
        if lh is not None:
            close(lh.grad, th.grad, tol)
    close(lx.grad, tx.grad, tol)
    check_param_grads(lmod, tmod, tol)


@pytest.mark.parametrize("kind", ["RNNCell", "RNNCell-relu", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_h", [True, False])
@pytest.mark.parametrize("bias", [True, False])
def test_cells_match_torch(torch, kind, batched, with_h, bias):
    name, _, nl = kind.partition("-")
    kw = {"nonlinearity": nl} if nl else {}
    tmod = getattr(torch.nn, name)(5, 4, bias=bias, dtype=torch.float64, **kw)
    lmod = getattr(nn, name)(5, 4, bias=bias, dtype=lucid.float64, **kw)
    copy_weights(lmod, tmod)
    x = arr(3, 5) if batched else arr(5)
    hs = (3, 4) if batched else (4,)
    hx = None
    if with_h:
        hx = (arr(*hs), arr(*hs)) if name == "LSTMCell" else arr(*hs)
    run_cell(lmod, tmod, torch, x, hx, 1e-10)


def test_cells_float32_match_torch(torch):
    for name in ["RNNCell", "LSTMCell", "GRUCell"]:
        tmod = getattr(torch.nn, name)(6, 5)
        lmod = getattr(nn, name)(6, 5)
        copy_weights(lmod, tmod)
        x = arr(4, 6).astype(np.float32)
        hx = arr(4, 5).astype(np.float32)
        run_cell(lmod, tmod, torch, x, (hx, hx) if name == "LSTMCell" else hx, 2e-5)


def test_cells_defaults_and_repr(torch):
    for name, chunks in [("RNNCell", 1), ("LSTMCell", 4), ("GRUCell", 3)]:
        lmod, tmod = getattr(nn, name)(3, 16), getattr(torch.nn, name)(3, 16)
        assert [n for n, _ in lmod.named_parameters()] == [n for n, _ in tmod.named_parameters()]
        assert lmod.weight_ih.shape == (chunks * 16, 3) and lmod.weight_hh.shape == (chunks * 16, 16)
        for p in lmod.parameters():
            v = p.detach().numpy()
            assert np.all(np.abs(v) <= 0.25) and v.std() > 0.05  # uniform(-1/sqrt(16), 1/sqrt(16))
        assert repr(lmod) == repr(tmod)
        assert repr(getattr(nn, name)(3, 4, bias=False)) == repr(getattr(torch.nn, name)(3, 4, bias=False))
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == repr(torch.nn.RNNCell(3, 4, nonlinearity="relu"))


def test_cell_errors():
    cell = nn.LSTMCell(4, 3)
    with pytest.raises(ValueError, match="LSTMCell: Expected input to be 1D or 2D"):
        cell(lucid.zeros(1, 2, 4))
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 5 expected 4"):
        cell(lucid.zeros(2, 5))
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch size 3"):
        cell(lucid.zeros(2, 4), (lucid.zeros(3, 3), lucid.zeros(3, 3)))
    with pytest.raises(RuntimeError, match="hidden0 has inconsistent hidden_size: got 4, expected 3"):
        nn.GRUCell(4, 3)(lucid.zeros(2, 4), lucid.zeros(2, 4))
    with pytest.raises(ValueError, match="RNNCell: Expected hidden to be 1D or 2D"):
        nn.RNNCell(4, 3)(lucid.zeros(2, 4), lucid.zeros(1, 2, 3))
    with pytest.raises(RuntimeError, match="Unknown nonlinearity: sigmoid"):
        nn.RNNCell(4, 3, nonlinearity="sigmoid")(lucid.zeros(2, 4))
