"""lucid.nn.functional, attention: scaled_dot_product_attention (fused engine kernel), multi_head_attention_forward, rotary and sinusoidal embeddings."""
__all__ = []
