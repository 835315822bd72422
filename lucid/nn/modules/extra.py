"""lucid.nn: Lucid's own layers beyond PyTorch's (spec 002) and the remaining small layers."""
__all__ = []
