"""lucid.nn.utils.rnn: packed sequences (PackedSequence, pack_padded_sequence, pad_packed_sequence,
pad_sequence, pack_sequence, unpack_sequence, unpad_sequence), as PyTorch's.

Lengths and batch sizes are host data: the gathers that pack and unpad are computed in NumPy and
applied with one differentiable index_select each, so gradients flow through packing."""
from collections import namedtuple

import numpy as np

import lucid
from lucid.errors import ShapeMismatch

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]

_PackedSequenceBase = namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


def _index(values):
    return lucid.tensor(np.asarray(values, dtype=np.int64).reshape(-1), dtype=lucid.int64)


def _host(t):
    """A list of ints from a lucid tensor, a NumPy array, a torch tensor or a sequence."""
    if isinstance(t, lucid.Tensor):
        return [int(v) for v in t.reshape(-1).tolist()]
    if hasattr(t, "tolist"):
        v = t.tolist()
        return [int(x) for x in (v if isinstance(v, list) else [v])]
    return [int(v) for v in t]


def invert_permutation(permutation):
    if permutation is None:
        return None
    p = np.asarray(_host(permutation), dtype=np.int64)
    out = np.empty_like(p)
    out[p] = np.arange(p.size, dtype=np.int64)
    return lucid.tensor(out, dtype=lucid.int64, device=permutation.device)


class PackedSequence(_PackedSequenceBase):
    """data (sum(lengths), *): the time steps of every sequence, step by step; batch_sizes (T,) int64
    on the CPU: how many sequences reach each step; sorted_indices / unsorted_indices: the batch
    order used for packing and its inverse (None when the batch came sorted)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError(
                    "batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
                    "manually. They should be instantiated by functions like pack_sequence and pack_padded_sequences "
                    "in nn.utils.rnn. https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        if not (isinstance(data, (list, tuple)) and len(data) == 2):
            raise TypeError("PackedSequence expects (data, batch_sizes)")
        return super().__new__(cls, data[0], data[1], sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        kwargs = {k: v for k, v in kwargs.items() if k not in ("device", "dtype")}
        move = (lambda t: None if t is None else t.to(data.device, **kwargs))
        return type(self)(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))

    def cpu(self, *args, **kwargs):
        return self.to("cpu", *args, **kwargs)

    def cuda(self, *args, **kwargs):
        return self.to("cuda", *args, **kwargs)

    def double(self):
        return self.to(dtype=lucid.float64)

    def float(self):
        return self.to(dtype=lucid.float32)

    def half(self):
        return self.to(dtype=lucid.float16)

    def long(self):
        return self.to(dtype=lucid.int64)

    def int(self):
        return self.to(dtype=lucid.int32)

    def short(self):
        return self.to(dtype=lucid.int16)

    def char(self):
        return self.to(dtype=lucid.int8)

    def byte(self):
        return self.to(dtype=lucid.uint8)

    def pin_memory(self):
        """data and the permutations pinned (batch_sizes stays as it is, as in torch)."""
        pin = (lambda t: None if t is None else t.pin_memory())
        return type(self)(self.data.pin_memory(), self.batch_sizes, pin(self.sorted_indices),
                          pin(self.unsorted_indices))

    def is_pinned(self):
        return self.data.is_pinned()

    @property
    def is_cuda(self):
        return self.data.is_cuda


def _batch_sizes(lengths):
    """batch_sizes[t] = how many of the (decreasing) lengths exceed t."""
    T = lengths[0] if lengths else 0
    ls = np.asarray(lengths, dtype=np.int64)
    return [int((ls > t).sum()) for t in range(T)]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch (T, B, *) ((B, T, *) with batch_first) of sequences of the given lengths."""
    lens = _host(lengths)
    B = input.shape[0] if batch_first else (input.shape[1] if input.dim() > 1 else 0)
    if enforce_sorted:
        if any(lens[i] < lens[i + 1] for i in range(len(lens) - 1)):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability.")
        order = None
    else:
        order = np.argsort(-np.asarray(lens, dtype=np.int64), kind="stable")
        lens = [lens[i] for i in order]
    if input.dim() < 2 or len(lens) != B:
        raise ShapeMismatch(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} (batch_size={B})")
    if lens and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    T = input.shape[1] if batch_first else input.shape[0]
    if lens and lens[0] > T:
        raise ShapeMismatch(f"[pack_padded_sequence] a length of {lens[0]} exceeds the {T} time steps of the input "
                            f"of shape {tuple(input.shape)}")
    sorted_indices = None if order is None else _index(order).to(input.device)
    bs = _batch_sizes(lens)
    # row of the (T * B) flattening for step t of the b-th sorted sequence
    src = np.arange(B) if order is None else order
    rows = [(b_src * T + t) if batch_first else (t * B + b_src) for t, n in enumerate(bs) for b_src in src[:n]]
    flat = input.reshape((B * T,) + tuple(input.shape[2:]))
    data = flat.index_select(0, _index(rows).to(input.device))
    return PackedSequence(data, _index(bs), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of pack_padded_sequence: (padded (T, B, *) or (B, T, *), lengths int64 (B,))."""
    data, batch_sizes, sorted_indices, unsorted_indices = sequence
    bs = _host(batch_sizes)
    T = len(bs)
    if total_length is not None:
        if total_length < T:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {T}")
        T = total_length
    B = bs[0] if bs else 0
    N = data.shape[0]
    # padded row (t, b) of the sorted batch takes packed row offset_t + b, or the padding row N
    where = np.full((T, B), N, dtype=np.int64)
    off = 0
    for t, n in enumerate(bs):
        where[t, :n] = off + np.arange(n)
        off += n
    lengths = np.array([sum(1 for n in bs if n > b) for b in range(B)], dtype=np.int64)
    if unsorted_indices is not None:
        perm = np.asarray(_host(unsorted_indices), dtype=np.int64)
        where = where[:, perm]
        lengths = lengths[perm]
    if batch_first:
        where = where.T
    tail = tuple(data.shape[1:])
    pad = lucid.full((1,) + tail, padding_value, dtype=data.dtype, device=data.device)
    src = lucid.cat([data, pad], 0)
    out = src.index_select(0, _index(where).to(data.device)).reshape(where.shape + tail)
    return out, lucid.tensor(lengths, dtype=lucid.int64)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks sequences (L_i, *) into (T, B, *) ((B, T, *) with batch_first), padding each to the longest."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, lucid.Tensor):
        sequences = list(sequences.unbind(0))
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    tail = tuple(sequences[0].shape[1:])
    for s in sequences:
        if tuple(s.shape[1:]) != tail:
            raise ShapeMismatch(f"[pad_sequence] sequences must share their trailing dims: {tuple(s.shape)} and "
                                f"{(sequences[0].shape[0],) + tail}")
    lens = [s.shape[0] for s in sequences]
    T, B = max(lens), len(sequences)
    N = sum(lens)
    where = np.full((B, T), N, dtype=np.int64)
    off = 0
    for b, n in enumerate(lens):
        start = 0 if padding_side == "right" else T - n
        where[b, start:start + n] = off + np.arange(n)
        off += n
    if not batch_first:
        where = where.T
    s0 = sequences[0]
    pad = lucid.full((1,) + tail, padding_value, dtype=s0.dtype, device=s0.device)
    src = lucid.cat([s.reshape((s.shape[0],) + tail) for s in sequences] + [pad], 0)
    return src.index_select(0, _index(where).to(s0.device)).reshape(where.shape + tail)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences.unbind(0), _host(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of sequences (L_i, *) (pad_sequence, then pack_padded_sequence)."""
    lengths = [v.shape[0] for v in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences of a PackedSequence, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
