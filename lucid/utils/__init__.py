"""lucid.utils: helpers around the engine (activation checkpointing)."""
from lucid.utils import checkpoint  # noqa: F401
