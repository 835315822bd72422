"""lucid.nn.utils (hook handles here; clip_grad_norm_ and friends come with the rest of issue 5)."""
from lucid.nn.utils import hooks  # noqa: F401
