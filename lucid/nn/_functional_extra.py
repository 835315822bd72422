"""lucid.nn.functional, Lucid's own functional layers beyond PyTorch's (spec 002), and the remaining small functionals."""
__all__ = []
