"""lucid.nn: RNN, LSTM, GRU and their cells.

Each step's gates come from two GEMMs (x W_ih^T + b_ih, h W_hh^T + b_hh) and one fused engine cell
(lucid._C.fused_{lstm,gru,rnn}_cell) that applies the gates and holds the vjp. The sequence modules
project the whole sequence's input in one GEMM per layer and direction, then step through time.
"""
import math

from lucid import _C
from lucid.errors import ShapeMismatch
from lucid.nn import init
from lucid.nn.modules.module import Module
from lucid.nn.parameter import Parameter

__all__ = ["RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def _gates(x, w, b):
    """x @ w.T (+ b): one GEMM, the bias folded in by addmm."""
    return _C.matmul(x, w.mT) if b is None else _C.addmm(b, x, w.mT)


def _zeros(*shape, like):
    from lucid._creation import zeros
    return zeros(shape, dtype=like.dtype, device=like.device)


class RNNCellBase(Module):
    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        from lucid._creation import empty
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        kw = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _check(self, name, input, hx):
        """PyTorch's checks of one step's input (B, input_size) and state (B, hidden_size)."""
        if input.shape[1] != self.input_size:
            raise ShapeMismatch(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        for h in hx:
            if input.shape[0] != h.shape[0]:
                raise ShapeMismatch(f"Input batch size {input.shape[0]} doesn't match hidden0 batch size {h.shape[0]}")
            if h.shape[1] != self.hidden_size:
                raise ShapeMismatch(f"hidden0 has inconsistent hidden_size: got {h.shape[1]}, expected {self.hidden_size}")

    def _step_gates(self, input, h):
        return _gates(input, self.weight_ih, self.bias_ih), _gates(h, self.weight_hh, self.bias_hh)


class RNNCell(RNNCellBase):
    """An Elman cell: h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh), act tanh or relu."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = _zeros(input.shape[0], self.hidden_size, like=input)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self._check("RNNCell", input, (hx,))
        ret = _C.fused_rnn_cell(*self._step_gates(input, hx), self.nonlinearity)
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """A long short-term memory cell: (h', c') from x and (h, c), gates i, f, g, o."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            z = _zeros(input.shape[0], self.hidden_size, like=input)
            hx = (z, z)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        self._check("LSTMCell", input, hx)
        h, c = _C.fused_lstm_cell(*self._step_gates(input, hx[0]), hx[1])
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """A gated recurrent unit cell (PyTorch's formula: n = tanh(W_in x + b_in + r (W_hn h + b_hn)))."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = _zeros(input.shape[0], self.hidden_size, like=input)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        self._check("GRUCell", input, (hx,))
        ret = _C.fused_gru_cell(*self._step_gates(input, hx), hx)
        return ret if is_batched else ret.squeeze(0)
