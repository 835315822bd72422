"""lucid.nn.functional, 3-d and transposed convolutions (engine ops)."""
__all__ = []
