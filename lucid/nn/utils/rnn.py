"""lucid.nn.utils.rnn: packed sequences (PackedSequence, pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence, unpad_sequence)."""
__all__ = []
