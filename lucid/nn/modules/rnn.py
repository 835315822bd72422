"""lucid.nn: RNN, LSTM, GRU and their cells."""
__all__ = []
