"""Recurrent layers against PyTorch with copied weights: the fused cells (values, first and second
derivatives), RNNCell/LSTMCell/GRUCell, RNN/LSTM/GRU (layers, directions, projections, packed
sequences) and nn.utils.rnn, plus typed errors."""
import numpy as np
import pytest

import lucid
import lucid.nn as nn
from lucid import _C
from lucid.autograd import gradcheck, gradgradcheck
from helpers import close

RNG = np.random.default_rng(5)


def arr(*shape):
    return RNG.standard_normal(shape)


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


@pytest.mark.parametrize("which", ["both", "input", "hidden"])
def test_fused_cells_with_biases_gradcheck(which):
    B, H = 2, 3
    for name, G in [("lstm", 4), ("gru", 3), ("rnn", 1)]:
        gi, gh, s = leaf(arr(B, G * H)), leaf(arr(B, G * H)), leaf(arr(B, H))
        bi = leaf(arr(G * H)) if which != "hidden" else None
        bh = leaf(arr(G * H)) if which != "input" else None
        if name == "lstm":
            f = lambda a, b, c, *bs: _C.fused_lstm_cell(a, b, c, *bs)  # noqa: E731
        elif name == "gru":
            f = lambda a, b, c, *bs: _C.fused_gru_cell(a, b, c, *bs)  # noqa: E731
        else:
            f = lambda a, b, c, *bs: _C.fused_rnn_cell(a, b, "tanh", *bs)  # noqa: E731
        args = (gi, gh, s) + ((bi, bh) if which == "both" else (bi,) if which == "input" else (None, bh))
        inputs = tuple(t for t in args if t is not None)
        g = (lambda a, b, c, h_: f(a, b, c, None, h_)) if which == "hidden" else f  # noqa: E731
        assert gradcheck(g, inputs)
        assert gradgradcheck(g, inputs)
        # the biases act as if added to the gates
        as_tuple = lambda r: r if isinstance(r, tuple) else (r,)  # noqa: E731
        plain = f(gi + (bi if bi is not None else 0), gh + (bh if bh is not None else 0), s)
        for a, b in zip(as_tuple(plain), as_tuple(f(*args))):
            close(a, b, 1e-12)
    with pytest.raises(lucid.errors.ShapeMismatch, match="expected biases of shape"):
        _C.fused_gru_cell(lucid.zeros(2, 6), lucid.zeros(2, 6), lucid.zeros(2, 2), lucid.zeros(5))


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


# ---- RNN / LSTM / GRU


def make_pair(torch, kind, input_size=4, hidden=5, dtype="float64", **kw):
    name, _, extra = kind.partition("-")
    if extra == "relu":
        kw["nonlinearity"] = "relu"
    if extra == "proj":
        kw["proj_size"] = 3
    tmod = getattr(torch.nn, name)(input_size, hidden, dtype=getattr(torch, dtype), **kw)
    lmod = getattr(nn, name)(input_size, hidden, dtype=getattr(lucid, dtype), **kw)
    copy_weights(lmod, tmod)
    return lmod, tmod


def to_lucid_state(state):
    return None if state is None else (tuple(leaf(s) for s in state) if isinstance(state, tuple) else leaf(state))


def to_torch_state(torch, state):
    if state is None:
        return None
    if isinstance(state, tuple):
        return tuple(torch.tensor(s, requires_grad=True) for s in state)
    return torch.tensor(state, requires_grad=True)


def flat_state(s):
    return [] if s is None else (list(s) if isinstance(s, tuple) else [s])


def compare_run(torch, lmod, tmod, x, state, tol=1e-10):
    lx, tx = leaf(x), torch.tensor(x, requires_grad=True)
    ls, ts = to_lucid_state(state), to_torch_state(torch, state)
    lo, lh = lmod(lx, ls)
    to, th = tmod(tx, ts)
    close(lo, to, tol)
    for a, b in zip(flat_state(lh), flat_state(th)):
        close(a, b, tol)
    go = arr(*to.shape)
    gh = [arr(*t.shape) for t in flat_state(th)]
    lloss = (lo * lucid.tensor(go)).sum()
    tloss = (to * torch.tensor(go)).sum()
    for a, b, g in zip(flat_state(lh), flat_state(th), gh):
        lloss = lloss + (a * lucid.tensor(g)).sum()
        tloss = tloss + (b * torch.tensor(g)).sum()
    lloss.backward()
    tloss.backward()
    close(lx.grad, tx.grad, tol)
    for a, b in zip(flat_state(ls), flat_state(ts)):
        close(a.grad, b.grad, tol)
    check_param_grads(lmod, tmod, tol)


KINDS = ["RNN", "RNN-relu", "LSTM", "LSTM-proj", "GRU"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("layers,bidirectional", [(1, False), (2, True), (3, False)])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("with_h", [False, True])
def test_rnn_modules_match_torch(torch, kind, layers, bidirectional, batch_first, with_h):
    lmod, tmod = make_pair(torch, kind, num_layers=layers, bidirectional=bidirectional, batch_first=batch_first)
    T, B = 4, 3
    x = arr(B, T, 4) if batch_first else arr(T, B, 4)
    D = 2 if bidirectional else 1
    state = None
    if with_h:
        hr = 3 if kind == "LSTM-proj" else 5
        state = (arr(layers * D, B, hr), arr(layers * D, B, 5)) if kind.startswith("LSTM") else arr(layers * D, B, 5)
    compare_run(torch, lmod, tmod, x, state)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("with_h", [False, True])
def test_rnn_modules_unbatched(torch, kind, with_h):
    lmod, tmod = make_pair(torch, kind, num_layers=2, bidirectional=True)
    state = None
    if with_h:
        hr = 3 if kind == "LSTM-proj" else 5
        state = (arr(4, hr), arr(4, 5)) if kind.startswith("LSTM") else arr(4, 5)
    compare_run(torch, lmod, tmod, arr(5, 4), state)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_rnn_modules_float32_and_no_bias(torch, kind):
    lmod, tmod = make_pair(torch, kind, dtype="float32", num_layers=2, bias=False)
    assert not any("bias" in n for n, _ in lmod.named_parameters())
    compare_run(torch, lmod, tmod, arr(6, 2, 4).astype(np.float32), None, tol=3e-5)


def test_rnn_dropout_between_layers(torch):
    lmod, tmod = make_pair(torch, "LSTM", num_layers=3, dropout=1.0)
    x = arr(4, 2, 4)
    # p = 1 zeroes every layer's input but the first: deterministic, so comparable with torch
    compare_run(torch, lmod.train(), tmod.train(), x, None)
    compare_run(torch, lmod.eval(), tmod.eval(), x, None)  # eval: no dropout
    lmod2, _ = make_pair(torch, "GRU", num_layers=2, dropout=0.5)
    lx = lucid.tensor(arr(3, 2, 4))
    lmod2.eval()
    assert np.array_equal(lmod2(lx)[0].numpy(), lmod2(lx)[0].numpy())
    lmod2.train()
    outs = [lmod2(lx)[0].numpy() for _ in range(3)]
    assert not (np.array_equal(outs[0], outs[1]) and np.array_equal(outs[1], outs[2]))


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_rnn_gradcheck_float64(kind):
    lmod = getattr(nn, kind)(2, 2, num_layers=2, bidirectional=True, dtype=lucid.float64)
    x, h = leaf(arr(3, 2, 2)), leaf(arr(4, 2, 2))
    if kind == "LSTM":
        c = leaf(arr(4, 2, 2))
        f = lambda x, h, c: lmod(x, (h, c))  # noqa: E731
        f2 = lambda x, h, c: lmod(x, (h, c))[1][1]  # noqa: E731
        args = (x, h, c)
    else:
        f = lambda x, h: lmod(x, h)  # noqa: E731
        f2 = lambda x, h: lmod(x, h)[1]  # noqa: E731
        args = (x, h)
    assert gradcheck(lambda *a: f(*a)[0], args)
    assert gradcheck(f2, args)
    assert gradgradcheck(lambda *a: f(*a)[0], args)
    # the weights too
    w = lmod.weight_hh_l1_reverse
    assert gradcheck(lambda w_: (setattr(lmod, "weight_hh_l1_reverse", w_), f(*args)[0])[1], (w,))
    lmod.weight_hh_l1_reverse = w


def test_rnn_parameters_state_dict_and_repr(torch):
    for kind, kw in [("RNN", dict(num_layers=2, nonlinearity="relu", bias=False, batch_first=True, dropout=0.1,
                                  bidirectional=True)),
                     ("LSTM", dict(num_layers=2, proj_size=2, bidirectional=True)), ("GRU", {}),
                     ("LSTM", dict(bias=False, proj_size=1))]:
        lmod, tmod = getattr(nn, kind)(3, 4, **kw), getattr(torch.nn, kind)(3, 4, **kw)
        assert list(lmod.state_dict().keys()) == list(tmod.state_dict().keys())
        for (ln, lp), (tn, tp) in zip(lmod.named_parameters(), tmod.named_parameters()):
            assert ln == tn and tuple(lp.shape) == tuple(tp.shape)
            v = lp.detach().numpy()
            assert np.all(np.abs(v) <= 0.5)  # uniform(-1/sqrt(4), 1/sqrt(4))
        assert repr(lmod) == repr(tmod)
        assert lmod._flat_weights_names == tmod._flat_weights_names
        assert [[tuple(w.shape) for w in ws] for ws in lmod.all_weights] == \
               [[tuple(w.shape) for w in ws] for ws in tmod.all_weights]
        assert lmod.flatten_parameters() is None
    # weights load across
    tmod = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    lmod = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    lmod.load_state_dict({k: lucid.tensor(v.numpy()) for k, v in tmod.state_dict().items()})
    x = arr(5, 2, 3).astype(np.float32)
    close(lmod(lucid.tensor(x))[0], tmod(torch.tensor(x))[0], 1e-5)


def test_rnn_constructor_errors():
    with pytest.raises(ValueError, match="Unknown nonlinearity 'sig'. Select from 'tanh' or 'relu'."):
        nn.RNN(3, 4, nonlinearity="sig")
    with pytest.raises(ValueError, match="Unknown nonlinearity 'sig'"):
        nn.RNN(3, 4, 1, "sig")
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        nn.GRU(3, 4, proj_size=2)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="proj_size should be a positive integer"):
        nn.LSTM(3, 4, proj_size=-1)
    with pytest.raises(TypeError, match="hidden_size should be of type int, got: float"):
        nn.LSTM(3, 4.0)
    with pytest.raises(ValueError, match="hidden_size must be greater than zero"):
        nn.LSTM(3, 0)
    with pytest.raises(ValueError, match="num_layers must be greater than zero"):
        nn.GRU(3, 4, num_layers=0)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.LSTM(3, 4, dropout=1.5)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.LSTM(3, 4, dropout=0.5)


def test_rnn_forward_errors():
    m = nn.LSTM(3, 4)
    with pytest.raises(RuntimeError, match=r"input.size\(-1\) must be equal to input_size. Expected 3, got 4"):
        m(lucid.zeros(5, 2, 4))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 4\), got \[1, 3, 4\]"):
        m(lucid.zeros(5, 2, 3), (lucid.zeros(1, 3, 4), lucid.zeros(1, 2, 4)))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size \(1, 2, 4\), got \[2, 2, 4\]"):
        m(lucid.zeros(5, 2, 3), (lucid.zeros(1, 2, 4), lucid.zeros(2, 2, 4)))
    with pytest.raises(RuntimeError, match=r"For batched 3-D input, hx and cx should also be 3-D but got \(2-D, 2-D\)"):
        m(lucid.zeros(5, 2, 3), (lucid.zeros(2, 4), lucid.zeros(2, 4)))
    with pytest.raises(RuntimeError, match=r"For unbatched 2-D input, hx and cx should also be 2-D"):
        m(lucid.zeros(5, 3), (lucid.zeros(1, 2, 4), lucid.zeros(1, 2, 4)))
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D instead"):
        m(lucid.zeros(2, 5, 2, 3))
    g = nn.GRU(3, 4)
    with pytest.raises(RuntimeError, match="For batched 3-D input, hx should also be 3-D but got 2-D tensor"):
        g(lucid.zeros(5, 2, 3), lucid.zeros(2, 4))
    with pytest.raises(RuntimeError, match="For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"):
        g(lucid.zeros(5, 3), lucid.zeros(1, 2, 4))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[1, 3, 4\]"):
        g(lucid.zeros(5, 2, 3), lucid.zeros(1, 3, 4))
    with pytest.raises(ValueError, match="does not match weight dtype"):
        g(lucid.zeros(5, 2, 3, dtype=lucid.float64))
    with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0 in RNN"):
        g(lucid.zeros(0, 2, 3))
    o, h = g(lucid.zeros(4, 0, 3))  # an empty batch is fine, as in torch
    assert o.shape == (4, 0, 4) and h.shape == (1, 0, 4)


# ---- packed sequences through the modules


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("with_h", [False, True])
def test_rnn_packed_matches_torch(torch, kind, enforce_sorted, with_h):
    from lucid.nn.utils import rnn as lr
    from torch.nn.utils import rnn as tr
    lmod, tmod = make_pair(torch, kind, num_layers=2, bidirectional=True)
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    T, B = 5, 4
    x = arr(T, B, 4)
    lx, tx = leaf(x), torch.tensor(x, requires_grad=True)
    ls = ts = None
    if with_h:
        hr = 3 if kind == "LSTM-proj" else 5
        state = (arr(4, B, hr), arr(4, B, 5)) if kind.startswith("LSTM") else arr(4, B, 5)
        ls, ts = to_lucid_state(state), to_torch_state(torch, state)
    lp = lr.pack_padded_sequence(lx, lengths, enforce_sorted=enforce_sorted)
    tp = tr.pack_padded_sequence(tx, lengths, enforce_sorted=enforce_sorted)
    lo, lh = lmod(lp, ls)
    to, th = tmod(tp, ts)
    assert isinstance(lo, lr.PackedSequence)
    close(lo.data, to.data)
    assert lo.batch_sizes.tolist() == to.batch_sizes.tolist()
    for a, b in zip(flat_state(lh), flat_state(th)):
        close(a, b)
    lpad, llen = lr.pad_packed_sequence(lo, batch_first=True)
    tpad, tlen = tr.pad_packed_sequence(to, batch_first=True)
    close(lpad, tpad)
    assert llen.tolist() == tlen.tolist()
    g = arr(*tpad.shape)
    gh = [arr(*t.shape) for t in flat_state(th)]
    lloss = (lpad * lucid.tensor(g)).sum() + sum((a * lucid.tensor(v)).sum() for a, v in zip(flat_state(lh), gh))
    tloss = (tpad * torch.tensor(g)).sum() + sum((a * torch.tensor(v)).sum() for a, v in zip(flat_state(th), gh))
    lloss.backward()
    tloss.backward()
    close(lx.grad, tx.grad)
    for a, b in zip(flat_state(ls), flat_state(ts)):
        close(a.grad, b.grad)
    check_param_grads(lmod, tmod, 1e-10)


def test_packed_h_n_is_each_sequences_last_step():
    from lucid.nn.utils import rnn as lr
    m = nn.GRU(3, 4, bidirectional=True, dtype=lucid.float64)
    seqs = [lucid.tensor(arr(n, 3)) for n in (2, 5, 3)]
    out, h_n = m(lr.pack_sequence(seqs, enforce_sorted=False))
    outs = lr.unpack_sequence(out)
    for i, s in enumerate(seqs):
        o1, h1 = m(s)  # each sequence alone, unbatched
        close(outs[i], o1)
        close(h_n[:, i], h1)


# ---- nn.utils.rnn


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths", [[4, 4, 2], [2, 4, 1], [1]])
def test_pack_pad_roundtrip_matches_torch(torch, batch_first, lengths):
    from lucid.nn.utils import rnn as lr
    from torch.nn.utils import rnn as tr
    B, T = len(lengths), 4
    x = arr(B, T, 2) if batch_first else arr(T, B, 2)
    sorted_ = all(a >= b for a, b in zip(lengths, lengths[1:]))
    for lens in (lengths, lucid.tensor(lengths)):
        lx, tx = leaf(x), torch.tensor(x, requires_grad=True)
        lp = lr.pack_padded_sequence(lx, lens, batch_first=batch_first, enforce_sorted=sorted_)
        tp = tr.pack_padded_sequence(tx, lengths, batch_first=batch_first, enforce_sorted=sorted_)
        close(lp.data, tp.data, 0)
        assert lp.batch_sizes.tolist() == tp.batch_sizes.tolist() and lp.batch_sizes.dtype == lucid.int64
        for a, b in [(lp.sorted_indices, tp.sorted_indices), (lp.unsorted_indices, tp.unsorted_indices)]:
            assert (a is None and b is None) or a.tolist() == b.tolist()
        lpad, llen = lr.pad_packed_sequence(lp, batch_first=batch_first, padding_value=-2.0, total_length=6)
        tpad, tlen = tr.pad_packed_sequence(tp, batch_first=batch_first, padding_value=-2.0, total_length=6)
        close(lpad, tpad, 0)
        assert llen.tolist() == tlen.tolist() and llen.dtype == lucid.int64
        g = arr(*tpad.shape)
        (lpad * lucid.tensor(g)).sum().backward()
        (tpad * torch.tensor(g)).sum().backward()
        close(lx.grad, tx.grad, 0)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_matches_torch(torch, batch_first, side):
    from lucid.nn.utils import rnn as lr
    from torch.nn.utils import rnn as tr
    seqs = [arr(n, 2, 3) for n in (2, 5, 1)]
    ls = [leaf(s) for s in seqs]
    ts = [torch.tensor(s, requires_grad=True) for s in seqs]
    a = lr.pad_sequence(ls, batch_first=batch_first, padding_value=7.0, padding_side=side)
    b = tr.pad_sequence(ts, batch_first=batch_first, padding_value=7.0, padding_side=side)
    close(a, b, 0)
    g = arr(*b.shape)
    (a * lucid.tensor(g)).sum().backward()
    (b * torch.tensor(g)).sum().backward()
    for p, q in zip(ls, ts):
        close(p.grad, q.grad, 0)


def test_pack_sequence_unpack_unpad(torch):
    from lucid.nn.utils import rnn as lr
    from torch.nn.utils import rnn as tr
    seqs = [arr(n, 3) for n in (3, 5, 2)]
    lp = lr.pack_sequence([lucid.tensor(s) for s in seqs], enforce_sorted=False)
    tp = tr.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False)
    close(lp.data, tp.data, 0)
    for a, s in zip(lr.unpack_sequence(lp), seqs):
        close(a, s, 0)
    padded = lr.pad_sequence([lucid.tensor(s) for s in seqs], batch_first=True)
    for a, s in zip(lr.unpad_sequence(padded, lucid.tensor([3, 5, 2]), batch_first=True), seqs):
        close(a, s, 0)
    for a, s in zip(lr.unpad_sequence(lr.pad_sequence([lucid.tensor(s) for s in seqs]), [3, 5, 2]), seqs):
        close(a, s, 0)
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        lr.pack_sequence([lucid.tensor(s) for s in seqs])


def test_packed_sequence_to_and_fields():
    from lucid.nn.utils import rnn as lr
    p = lr.pack_sequence([lucid.tensor(arr(3, 2)), lucid.tensor(arr(1, 2))])
    assert p.sorted_indices is None and p.unsorted_indices is None
    assert p.to(lucid.float64) is p
    q = p.to(lucid.float32)
    assert q.data.dtype == lucid.float32 and q.batch_sizes is p.batch_sizes and isinstance(q, lr.PackedSequence)
    assert p.float().data.dtype == lucid.float32 and not p.is_cuda
    data, batch_sizes, s, u = p
    assert batch_sizes.tolist() == [2, 1, 1]
    r = lr.pack_sequence([lucid.tensor(arr(1, 2)), lucid.tensor(arr(3, 2))], enforce_sorted=False)
    assert r.sorted_indices.tolist() == [1, 0] and r.unsorted_indices.tolist() == [1, 0]
    assert lr.invert_permutation(lucid.tensor([2, 0, 1])).tolist() == [1, 2, 0]


def test_packing_errors():
    from lucid.nn.utils import rnn as lr
    x = lucid.zeros(5, 3, 2)
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order when `enforce_sorted` is True"):
        lr.pack_padded_sequence(x, [2, 4, 1])
    with pytest.raises(RuntimeError, match=r"Expected `len\(lengths\)` to be equal to batch_size, but got 2"):
        lr.pack_padded_sequence(x, [5, 4])
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        lr.pack_padded_sequence(x, [5, 4, 0])
    with pytest.raises(RuntimeError, match="exceeds the 5 time steps"):  # torch reads out of bounds here
        lr.pack_padded_sequence(x, [6, 4, 1])
    p = lr.pack_padded_sequence(x, [5, 4, 1])
    with pytest.raises(ValueError, match="Expected total_length to be at least the length of the longest sequence"):
        lr.pad_packed_sequence(p, total_length=3)
    with pytest.raises(RuntimeError, match="Expected padding_side to be one of left or right, but got middle."):
        lr.pad_sequence([lucid.zeros(2, 3)], padding_side="middle")
    with pytest.raises(RuntimeError, match="pad_sequence"):
        lr.pad_sequence([lucid.zeros(2, 3), lucid.zeros(4, 2)])
    m = nn.GRU(2, 3)
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 3, 3\), got \[1, 2, 3\]"):
        m(p, lucid.zeros(1, 2, 3))


def test_graphs_without_backward_are_freed():
    # a forward with grad-requiring weights but no backward must not leave its graph alive
    from lucid.nn.utils import rnn as lr
    for m in (nn.LSTM(3, 4, num_layers=2, bidirectional=True), nn.GRU(3, 4), nn.RNN(3, 4, nonlinearity="relu"),
              nn.LSTMCell(3, 4)):
        x = lucid.randn(5, 2, 3) if not isinstance(m, nn.LSTMCell) else lucid.randn(2, 3)
        m(x)
        n0 = _C.live_tensor_count()
        for _ in range(5):
            m(x)
        assert _C.live_tensor_count() == n0
    m = nn.GRU(3, 4)
    p = lr.pack_sequence([lucid.randn(3, 3), lucid.randn(2, 3)])
    m(p)
    n0 = _C.live_tensor_count()
    m(p)
    assert _C.live_tensor_count() == n0


def test_time_steps_split_one_node():
    x = leaf(arr(7, 3))
    parts = _C.rnn_time_steps(x, [3, 2, 2])
    assert [tuple(p.shape) for p in parts] == [(3, 3), (2, 3), (2, 3)]
    g = arr(2, 3)
    (parts[1] * lucid.tensor(g)).sum().backward()
    want = np.zeros((7, 3))
    want[3:5] = g
    close(x.grad, want, 0)
    assert gradcheck(lambda t: tuple(_C.rnn_time_steps(t, [1, 4, 2])), (leaf(arr(7, 2)),))
    assert gradgradcheck(lambda t: tuple(_C.rnn_time_steps(t, [1, 4, 2])), (leaf(arr(7, 2)),))
    with pytest.raises(lucid.errors.ShapeMismatch, match="rnn_time_steps"):
        _C.rnn_time_steps(x, [3, 3])


def test_cells_large_batch_and_extreme_values(torch):
    # enough rows for the kernels' parallel_for, float32 (the vectorised exp/tanh), large and NaN inputs
    B, H = 6000, 4
    for name, G in [("lstm", 4), ("gru", 3), ("rnn", 1)]:
        gi = (arr(B, G * H) * 30).astype(np.float32)
        gh = (arr(B, G * H) * 30).astype(np.float32)
        s = arr(B, H).astype(np.float32)
        gi[0, 0] = np.nan
        tgi, tgh, ts = (torch.tensor(v, requires_grad=True) for v in (gi, gh, s))
        lgi, lgh, ls = leaf(gi), leaf(gh), leaf(s)
        if name == "lstm":
            lo = _C.fused_lstm_cell(lgi, lgh, ls)
            pre = (tgi + tgh).chunk(4, 1)
            i, f, g, o = pre[0].sigmoid(), pre[1].sigmoid(), pre[2].tanh(), pre[3].sigmoid()
            c2 = f * ts + i * g
            to = (o * c2.tanh(), c2)
        elif name == "gru":
            lo = (_C.fused_gru_cell(lgi, lgh, ls),)
            a, b = tgi.chunk(3, 1), tgh.chunk(3, 1)
            r, z = (a[0] + b[0]).sigmoid(), (a[1] + b[1]).sigmoid()
            n = (a[2] + r * b[2]).tanh()
            to = ((1 - z) * n + z * ts,)
        else:
            lo = (_C.fused_rnn_cell(lgi, lgh, "tanh"),)
            to = ((tgi + tgh).tanh(),)
        for a, b in zip(lo, to):
            an, bn = a.detach().numpy(), b.detach().numpy()
            assert np.array_equal(np.isnan(an), np.isnan(bn))
            np.testing.assert_allclose(an, bn, rtol=1e-5, atol=1e-6)
        gs = [arr(*b.shape).astype(np.float32) for b in to]
        sum((a * lucid.tensor(g)).sum() for a, g in zip(lo, gs)).backward()
        sum((b * torch.tensor(g)).sum() for b, g in zip(to, gs)).backward()
        for a, b in ([(lgi, tgi), (lgh, tgh)] + ([] if name == "rnn" else [(ls, ts)])):
            an, bn = a.grad.numpy(), b.grad.numpy()
            ok = ~np.isnan(bn)
            assert np.array_equal(np.isnan(an), np.isnan(bn))
            np.testing.assert_allclose(an[ok], bn[ok], rtol=1e-4, atol=1e-5)


def test_lstm_cell_double_backward_through_module(torch):
    # second derivatives of a loss on LSTMCell's output w.r.t. the input, against torch
    tmod = torch.nn.LSTMCell(3, 2, dtype=torch.float64)
    lmod = nn.LSTMCell(3, 2, dtype=lucid.float64)
    copy_weights(lmod, tmod)
    x = arr(2, 3)
    lx, tx = leaf(x), torch.tensor(x, requires_grad=True)
    (lgx,) = lucid.autograd.grad(lmod(lx)[1].pow(2).sum(), lx, create_graph=True)
    (tgx,) = torch.autograd.grad(tmod(tx)[1].pow(2).sum(), tx, create_graph=True)
    close(lgx, tgx)
    lgx.sum().backward()
    tgx.sum().backward()
    close(lx.grad, tx.grad)
    check_param_grads(lmod, tmod, 1e-10)
