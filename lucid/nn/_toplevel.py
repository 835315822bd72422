"""The nn.functional ops that PyTorch also exposes at the top level (torch.conv2d, torch.pdist,
torch.layer_norm, ...), where the top-level signature is the functional one (or extends it with
arguments that only select a backend). Ops whose top-level form differs (torch.dropout's `train`,
torch.embedding's argument order, torch.batch_norm's, the losses' integer reductions) are left to
lucid.nn.functional."""
from lucid.nn import functional as F

_SAME = ("pdist", "cosine_similarity", "pairwise_distance", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
         "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "hardshrink",
         "bilinear", "avg_pool1d", "adaptive_avg_pool1d", "max_pool1d", "max_pool2d", "max_pool3d", "celu", "selu",
         "prelu", "threshold", "rrelu", "rms_norm", "celu_", "selu_", "threshold_", "rrelu_")
for _name in _SAME:
    globals()[_name] = getattr(F, _name)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """torch.layer_norm (= lucid.nn.functional.layer_norm; cudnn_enable is ignored)."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """torch.group_norm (= lucid.nn.functional.group_norm; cudnn_enabled is ignored)."""
    return F.group_norm(input, num_groups, weight, bias, eps)


__all__ = list(_SAME) + ["layer_norm", "group_norm"]
