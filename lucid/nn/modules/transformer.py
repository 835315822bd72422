"""lucid.nn: MultiheadAttention and the Transformer layers; grouped/multi-query attention; rotary/sinusoidal embeddings."""
__all__ = []
