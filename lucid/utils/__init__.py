"""lucid.utils: helpers around the engine (activation checkpointing)."""
from lucid.utils import checkpoint  # noqa: F401
from lucid.utils import data  # noqa: F401,E402
