"""lucid.nn: RNN, LSTM, GRU and their cells.

Each step's gates come from two GEMMs (x W_ih^T + b_ih, h W_hh^T + b_hh) and one fused engine cell
(lucid._C.fused_{lstm,gru,rnn}_cell) that applies the gates and holds the vjp. The sequence modules
project the whole sequence's input in one GEMM per layer and direction, then step through time.
"""
import math
import numbers
import warnings

from lucid import _C
from lucid.errors import ShapeMismatch
from lucid.nn import init
from lucid.nn.modules.module import Module
from lucid.nn.parameter import Parameter

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def _gates(x, w, w_t=None):
    """x @ w.T, one GEMM (the cells add the biases). w_t, when given, is w.T made contiguous
    (OpenBLAS's NN kernel beats its NT one at these sizes)."""
    return _C.matmul(x, w.mT if w_t is None else w_t)


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
        return _gates(input, self.weight_ih), _gates(h, self.weight_hh)


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
        ret = _C.fused_rnn_cell(*self._step_gates(input, hx), self.nonlinearity, self.bias_ih, self.bias_hh)
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
        h, c = _C.fused_lstm_cell(*self._step_gates(input, hx[0]), hx[1], self.bias_ih, self.bias_hh)
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
        ret = _C.fused_gru_cell(*self._step_gates(input, hx), hx, self.bias_ih, self.bias_hh)
        return ret if is_batched else ret.squeeze(0)


# ---- whole sequences


def _packed():
    from lucid.nn.utils.rnn import PackedSequence
    return PackedSequence


def _permute(hx, permutation):
    return hx if permutation is None else hx.index_select(1, permutation)


class RNNBase(Module):
    """The multi-layer, optionally bidirectional recurrence shared by RNN, LSTM and GRU.

    Each layer and direction projects the whole sequence in one GEMM (x W_ih^T + b_ih over every
    time step), then steps through time with one GEMM for h W_hh^T + b_hh and one fused cell.
    Padded and packed inputs share one path: a padded batch is a packed one whose batch sizes are
    all B. Within packed data, step t holds batch_sizes[t] rows; shorter sequences drop off the end
    of the batch (forward direction: their final state is kept) or join it (reverse direction:
    they start from their initial state)."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        gates = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
        if mode not in gates:
            raise ValueError("Unrecognized RNN mode: " + mode)
        from lucid._creation import empty
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        D = 2 if bidirectional else 1
        gate_size = gates[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        kw = {"device": device, "dtype": dtype}
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(D):
                layer_input = input_size if layer == 0 else real_hidden * D
                params = [("weight_ih_l{}{}", (gate_size, layer_input)), ("weight_hh_l{}{}", (gate_size, real_hidden))]
                if bias:
                    params += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    params += [("weight_hr_l{}{}", (proj_size, hidden_size))]
                suffix = "_reverse" if direction == 1 else ""
                names = []
                for fmt, shape in params:
                    name = fmt.format(layer, suffix)
                    setattr(self, name, Parameter(empty(shape, **kw)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, w) for w in ws] for ws in self._all_weights]

    def flatten_parameters(self):
        """A no-op: lucid keeps each weight in its own tensor (cuDNN's single buffer has no use here)."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # -- PyTorch's argument checks

    def check_input(self, input, batch_sizes):
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). Convert input: "
                             f"input.to({w.dtype}), or convert model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.shape[-1]:
            raise ShapeMismatch(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                                f"got {input.shape[-1]}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0].item())
        else:
            mini_batch = input.shape[0] if self.batch_first else input.shape[1]
        D = 2 if self.bidirectional else 1
        return (self.num_layers * D, mini_batch, self.proj_size if self.proj_size > 0 else self.hidden_size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.shape) != tuple(expected_hidden_size):
            raise ShapeMismatch(msg.format(tuple(expected_hidden_size), list(hx.shape)))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        return _permute(hx, permutation)

    # -- the recurrence

    def _prepare(self, input, hx, is_lstm):
        """PyTorch's input checks; returns (data, batch_sizes tensor, batch_sizes list, sorted_indices,
        unsorted_indices, max batch, is_batched): data is packed (N, I) for a PackedSequence, else the
        batched 3-D input (the batch dim added to an unbatched one)."""
        PackedSequence = _packed()
        name = type(self).__name__
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            bs = [int(v) for v in batch_sizes.tolist()]
            return data, batch_sizes, bs, sorted_indices, unsorted_indices, (bs[0] if bs else 0), True
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        hxs = [] if hx is None else (list(hx) if is_lstm else [hx])
        if not is_batched:
            input = input.unsqueeze(batch_dim)
            if hxs and any(h.dim() != 2 for h in hxs):
                if is_lstm:
                    raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                       f"({hxs[0].dim()}-D, {hxs[1].dim()}-D) tensors")
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hxs[0].dim()}-D tensor")
        elif hxs and any(h.dim() != 3 for h in hxs):
            if is_lstm:
                raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                   f"({hxs[0].dim()}-D, {hxs[1].dim()}-D) tensors")
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hxs[0].dim()}-D tensor")
        return input, None, None, None, None, input.shape[batch_dim], is_batched

    def _zeros_state(self, input, max_batch, size):
        D = 2 if self.bidirectional else 1
        return _zeros(self.num_layers * D, max_batch, size, like=input)

    def _layer(self, gi_all, steps, h0, c0, layer, direction):
        """One layer in one direction over packed steps [(offset, batch)]: (outputs (N, Hr), h_n, c_n)."""
        suffix = "_reverse" if direction == 1 else ""
        w_hh = getattr(self, f"weight_hh_l{layer}{suffix}")
        b_ih = getattr(self, f"bias_ih_l{layer}{suffix}") if self.bias else None
        b_hh = getattr(self, f"bias_hh_l{layer}{suffix}") if self.bias else None
        w_hr = getattr(self, f"weight_hr_l{layer}{suffix}") if self.proj_size > 0 else None
        lstm = self.mode == "LSTM"
        nl = "relu" if self.mode == "RNN_RELU" else "tanh"
        T = len(steps)
        outs = [None] * T
        done_h, done_c = [], []
        first = steps[-1][1] if direction == 1 and T else h0.shape[0]
        h, c = h0[:first], (c0[:first] if lstm else None)
        gis = _C.rnn_time_steps(gi_all, [n for _, n in steps])
        w_hh_t = w_hh.mT.contiguous()  # once per sequence, for every step's GEMM
        for t in (range(T - 1, -1, -1) if direction == 1 else range(T)):
            n = steps[t][1]
            cur = h.shape[0]
            if n < cur:  # sequences that ended at the previous step keep their state
                done_h.append(h[n:])
                h = h[:n]
                if lstm:
                    done_c.append(c[n:])
                    c = c[:n]
            elif n > cur:  # (reverse direction) sequences whose last step this is start here
                h = _C.cat([h, h0[cur:n]], 0)
                if lstm:
                    c = _C.cat([c, c0[cur:n]], 0)
            gi = gis[t]
            gh = _gates(h, w_hh, w_hh_t)
            if lstm:
                h, c = _C.fused_lstm_cell(gi, gh, c, b_ih, b_hh)
                if w_hr is not None:
                    h = _C.matmul(h, w_hr.mT)
            elif self.mode == "GRU":
                h = _C.fused_gru_cell(gi, gh, h, b_ih, b_hh)
            else:
                h = _C.fused_rnn_cell(gi, gh, nl, b_ih, b_hh)
            outs[t] = h
        done_h.append(h)
        if lstm:
            done_c.append(c)
        h_n = done_h[0] if len(done_h) == 1 else _C.cat(done_h[::-1], 0)
        c_n = None if not lstm else (done_c[0] if len(done_c) == 1 else _C.cat(done_c[::-1], 0))
        out = outs[0] if T == 1 else _C.cat(outs, 0)
        return out, h_n, c_n

    def _run(self, data, steps, hx, cx):
        """data (N, input_size) packed; hx (L*D, B, Hr), cx (L*D, B, H) or None -> (out, h_n, c_n)."""
        from lucid.nn import functional as F
        D = 2 if self.bidirectional else 1
        x = data
        hs, cs = [], []
        for layer in range(self.num_layers):
            outs = []
            for d in range(D):
                suffix = "_reverse" if d == 1 else ""
                w_ih = getattr(self, f"weight_ih_l{layer}{suffix}")
                gi_all = _gates(x, w_ih, w_ih.mT.contiguous())  # every time step in one GEMM
                k = layer * D + d
                out, h_n, c_n = self._layer(gi_all, steps, hx[k], None if cx is None else cx[k], layer, d)
                outs.append(out)
                hs.append(h_n)
                cs.append(c_n)
            x = outs[0] if D == 1 else _C.cat(outs, 1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, training=True)
        h_n = _C.stack(hs, 0)
        c_n = _C.stack(cs, 0) if cx is not None else None
        return x, h_n, c_n

    def _forward(self, input, hx):
        is_lstm = self.mode == "LSTM"
        PackedSequence = _packed()
        packed = isinstance(input, PackedSequence)
        data, batch_sizes, bs, sorted_indices, unsorted_indices, max_batch, is_batched = self._prepare(input, hx, is_lstm)
        Hr = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            h0 = self._zeros_state(data, max_batch, Hr)
            c0 = self._zeros_state(data, max_batch, self.hidden_size) if is_lstm else None
        else:
            h0, c0 = (hx[0], hx[1]) if is_lstm else (hx, None)
            if not packed and not is_batched:
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if is_lstm else None
            h0 = _permute(h0, sorted_indices)
            c0 = _permute(c0, sorted_indices) if is_lstm else None
        self.check_input(data, batch_sizes)
        expected = self.get_expected_hidden_size(data, batch_sizes)
        if is_lstm:
            self.check_hidden_size(h0, expected, "Expected hidden[0] size {}, got {}")
            self.check_hidden_size(c0, (expected[0], expected[1], self.hidden_size), "Expected hidden[1] size {}, got {}")
        else:
            self.check_hidden_size(h0, expected)
        if packed:
            steps, off = [], 0
            for n in bs:
                steps.append((off, n))
                off += n
            flat = data
        else:
            x = data.transpose(0, 1) if self.batch_first else data  # (T, B, I)
            T, B = x.shape[0], x.shape[1]
            if T == 0:
                raise ShapeMismatch("Expected sequence length to be larger than 0 in RNN")
            steps = [(t * B, B) for t in range(T)]
            flat = x.reshape(T * B, x.shape[2])
        out, h_n, c_n = self._run(flat, steps, h0, c0)
        if packed:
            out = PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices)
            h_n = _permute(h_n, unsorted_indices)
            c_n = _permute(c_n, unsorted_indices) if is_lstm else None
        else:
            out = out.reshape(T, B, out.shape[-1])
            if self.batch_first:
                out = out.transpose(0, 1)
            if not is_batched:
                out = out.squeeze(0 if self.batch_first else 1)
                h_n = h_n.squeeze(1)
                c_n = c_n.squeeze(1) if is_lstm else None
        return (out, (h_n, c_n)) if is_lstm else (out, h_n)


class RNN(RNNBase):
    """A multi-layer Elman RNN, h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), act tanh or relu.

    RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, device=None, dtype=None)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        return self._forward(input, hx)


class LSTM(RNNBase):
    """A multi-layer LSTM; with proj_size > 0, h_t = (o_t * tanh(c_t)) W_hr^T.

    LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, proj_size=0, device=None, dtype=None). forward(input, (h_0, c_0)=None)
    returns (output, (h_n, c_n))."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        h = self.get_expected_hidden_size(input, batch_sizes)
        return (h[0], h[1], self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        return _permute(hx[0], permutation), _permute(hx[1], permutation)

    def forward(self, input, hx=None):
        return self._forward(input, hx)


class GRU(RNNBase):
    """A multi-layer GRU (PyTorch's formula: n_t = tanh(W_in x_t + b_in + r_t (W_hn h_{t-1} + b_hn))).

    GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, device=None, dtype=None)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx)
