"""DataLoader internals: collation, worker processes."""
from lucid.utils.data._utils import collate, worker  # noqa: F401
