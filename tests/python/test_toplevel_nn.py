"""The nn.functional ops PyTorch also has at the top level (lucid/nn/_toplevel.py): the same
functions under the same names, and the same values as PyTorch's top-level ones."""
import numpy as np
import pytest

import lucid
import lucid.nn.functional as F
from lucid.nn import _toplevel


@pytest.mark.parametrize("name", _toplevel._SAME)
def test_same_function(name):
    assert getattr(lucid, name) is getattr(F, name)


def test_values_match_torch(torch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    w = rng.standard_normal((3, 4, 3, 3)).astype(np.float32)
    lx, tx, lw, tw = lucid.tensor(x), torch.from_numpy(x), lucid.tensor(w), torch.from_numpy(w)
    np.testing.assert_allclose(lucid.conv2d(lx, lw, None, 1, 1).numpy(), torch.conv2d(tx, tw, None, 1, 1).numpy(),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(lucid.layer_norm(lx, [6, 6]).numpy(), torch.layer_norm(tx, [6, 6]).numpy(), atol=1e-5)
    g, b = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    np.testing.assert_allclose(lucid.group_norm(lx, 2, lucid.tensor(g), lucid.tensor(b)).numpy(),
                               torch.group_norm(tx, 2, torch.from_numpy(g), torch.from_numpy(b)).numpy(), atol=1e-5)
    m = rng.standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(lucid.pdist(lucid.tensor(m)).numpy(), torch.pdist(torch.from_numpy(m)).numpy(),
                               rtol=1e-5)
    np.testing.assert_allclose(lucid.max_pool2d(lx, 2).numpy(), torch.max_pool2d(tx, 2).numpy())
    np.testing.assert_allclose(lucid.pixel_shuffle(lx, 2).numpy(), torch.pixel_shuffle(tx, 2).numpy())
    np.testing.assert_allclose(lucid.selu(lx).numpy(), torch.selu(tx).numpy(), rtol=1e-6, atol=1e-6)
