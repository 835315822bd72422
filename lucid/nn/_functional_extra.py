"""lucid.nn.functional, the remaining small functionals of PyTorch (bilinear, local_response_norm, normalize,
the distances, the feature and alpha dropouts, pad). Each is a thin composite of engine ops, spelled as
PyTorch spells it so that values, gradients and edge cases (eps clamping, pdist order) agree.
Then Lucid's own layers (spec 002): RoPE and fused linear + activation (engine ops, ops/nn_extra.h), the
sinusoidal / timestep encodings, GRN, NoisyNet's linear, vector quantisation, two-hot, symlog/symexp,
DropBlock and accuracy; each names the reference it follows where the spec is silent."""
import math
import warnings

import lucid
from lucid import _C

__all__ = ["pad", "bilinear", "local_response_norm", "normalize", "cosine_similarity", "pairwise_distance", "pdist",
           "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]

# torch.nn.functional.pad is lucid's pad op (constant, reflect, replicate, circular)
pad = _C.pad


def _shape(t):
    return tuple(t.shape)


# ---- bilinear

def bilinear(input1, input2, weight, bias=None):
    """y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]."""
    if input1.dim() != input2.dim():
        raise lucid.ShapeMismatch(f"[bilinear] input dimensions do not match: got {input1.dim()} and {input2.dim()} "
                                  f"(shapes {_shape(input1)} and {_shape(input2)})")
    for d in range(input1.dim() - 1):
        if input1.shape[d] != input2.shape[d]:
            raise lucid.ShapeMismatch(f"[bilinear] input batch dimensions do not match at dim {d}: got "
                                      f"{input1.shape[d]} and {input2.shape[d]} (shapes {_shape(input1)} and "
                                      f"{_shape(input2)})")
    if weight.dim() != 3:
        raise lucid.ShapeMismatch(f"[bilinear] expected a 3-D weight (out, in1, in2), got shape {_shape(weight)}")
    if input1.dim() == 0 or input1.shape[-1] != weight.shape[1]:
        raise lucid.ShapeMismatch(f"[bilinear] input1 size does not match weight size: input1 {_shape(input1)}, "
                                  f"weight {_shape(weight)}")
    if input2.shape[-1] != weight.shape[2]:
        raise lucid.ShapeMismatch(f"[bilinear] input2 size does not match weight size: input2 {_shape(input2)}, "
                                  f"weight {_shape(weight)}")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != weight.shape[0]):
        raise lucid.ShapeMismatch(f"[bilinear] bias size does not match weight size: bias {_shape(bias)}, "
                                  f"weight {_shape(weight)}")
    out_f, in1, in2 = weight.shape
    # one GEMM (input1 against the weight laid out as (in1, out*in2)), then a batched contraction with input2
    t = _C.matmul(input1, weight.permute(1, 0, 2).reshape(in1, out_f * in2))
    t = t.reshape(*input1.shape[:-1], out_f, in2)
    y = _C.matmul(t, input2.unsqueeze(-1)).squeeze(-1)
    return y if bias is None else y + bias


# ---- local response norm

def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean over `size` neighbouring channels of x^2) ^ beta (PyTorch's recipe:
    zero-padded average pooling across channels)."""
    from lucid.nn.functional import avg_pool2d, avg_pool3d
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input * input
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = _shape(input)
        div = div.reshape(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).reshape(sizes)
    div = (div * alpha + k).pow(beta)
    return input / div


# ---- normalisation and distances

def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p along dim, eps)."""
    denom = lucid.linalg.vector_norm(input, p, dim=dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return out.copy_(input / denom)


def _float_common(name, x1, x2):
    dt = lucid.result_type(x1, x2)
    if not dt.is_floating_point:
        raise lucid.DtypeMismatch(f"[{name}] expected common dtype to be floating point, yet common dtype is {dt} "
                                  f"(inputs {x1.dtype} and {x2.dtype})")
    return x1.to(dt), x2.to(dt)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """<x1, x2> / (max(||x1||, eps) * max(||x2||, eps)) along dim, computed as PyTorch does: each input is
    divided by its clamped norm first (the clamp is outside autograd), keeping |result| <= 1."""
    x1, x2 = _float_common("cosine_similarity", x1, x2)
    x1, x2 = lucid.broadcast_tensors(x1, x2)
    n1 = lucid.linalg.vector_norm(x1, 2, dim=dim, keepdim=True).clone()
    n2 = lucid.linalg.vector_norm(x2, 2, dim=dim, keepdim=True).clone()
    with lucid.no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p along the last dimension of the broadcast inputs."""
    return lucid.linalg.vector_norm(x1 - x2 + eps, p, dim=-1, keepdim=keepdim)


def pdist(input, p=2):
    """The p-norm distances between the rows of an (N, M) input, for i < j in row-major order: N(N-1)/2 values."""
    if input.dim() != 2:
        raise lucid.ShapeMismatch(f"[pdist] only supports 2D tensors, got: {input.dim()}D (shape {_shape(input)})")
    if not input.dtype.is_floating_point:
        raise lucid.DtypeMismatch(f"[pdist] only supports floating-point dtypes, got {input.dtype}")
    if p < 0:
        raise ValueError(f"[pdist] only supports non-negative p values, got {p}")
    n = input.shape[0]
    i, j = lucid.triu_indices(n, n, 1, device=input.device)
    diff = input[i] - input[j]
    out = lucid.linalg.vector_norm(diff, p, dim=-1)
    if p == 0 and diff.requires_grad:
        # torch's pdist backward gives zeros for p=0 (vector_norm gives none): add an exact zero that
        # carries a zero gradient (nan_to_num keeps it 0 for inf/NaN differences too)
        out = out + (lucid.nan_to_num(diff, 0.0, 0.0, 0.0) * 0.0).sum(-1)
    return out


# ---- dropouts

def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


_ALPHA = 1.7580993408473766     # -selu's negative saturation: SELU's lambda * alpha


def _dropout_impl(input, p, training, inplace, feature, alpha):
    """PyTorch's _dropout_impl: a Bernoulli(1 - p) mask, per channel for the feature variants (shape
    (N, C, 1, ...)); alpha dropout sets dropped units to SELU's saturation and rescales to keep mean/var."""
    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        name = ("feature_" if feature else "") + ("alpha_dropout" if alpha else "dropout")
        raise lucid.DtypeMismatch(f"[{name}] expects a floating-point input in training, got {input.dtype} "
                                  f"(shape {_shape(input)})")
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    if feature and input.dim() < 2:
        raise lucid.ShapeMismatch(f"[{'feature_alpha_dropout' if alpha else 'feature_dropout'}] Feature dropout "
                                  f"requires at least 2 dimensions in the input, got shape {_shape(input)}")
    shape = _shape(input)[:2] + (1,) * (input.dim() - 2) if feature else _shape(input)
    noise = lucid.bernoulli(lucid.full(shape, 1 - p, dtype=input.dtype, device=input.device))
    if alpha:
        a = 1.0 / ((_ALPHA * _ALPHA * p + 1) * (1 - p)) ** 0.5
        b = (noise - 1) * (_ALPHA * a) + _ALPHA * a * p
        noise = noise * a
        return input.mul_(noise).add_(b) if inplace else input * noise + b
    noise = noise * (1.0 / (1 - p))
    return input.mul_(noise) if inplace else input * noise


def _feature_dropout(input, p, training, inplace):
    return _dropout_impl(input, p, training, inplace, True, False)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, L) or (C, L) with probability p, scaling the rest by 1 / (1 - p)."""
    _check_p(p)
    d = input.dim()
    if d not in (2, 3):
        raise lucid.ShapeMismatch(f"[dropout1d] Expected 2D or 3D input, but received a {d}D input (shape "
                                  f"{_shape(input)}). Note that dropout1d exists to provide channel-wise dropout on "
                                  "inputs with 1 spatial dimension, a channel dimension, and an optional batch "
                                  "dimension (i.e. 2D or 3D inputs).")
    if d == 2:
        return _feature_dropout(input.unsqueeze(0), p, training, inplace).squeeze(0)
    return _feature_dropout(input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, H, W) with probability p; a 3-D input is read as (N, C, L), as in PyTorch."""
    _check_p(p)
    d = input.dim()
    if d not in (3, 4):
        warnings.warn(f"dropout2d: Received a {d}-D input to dropout2d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).", stacklevel=2)
    if d == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a "
                      "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
                      "please switch to using dropout1d instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) with probability p."""
    _check_p(p)
    d = input.dim()
    if d not in (4, 5):
        warnings.warn(f"dropout3d: Received a {d}-D input to dropout3d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                      "inputs).", stacklevel=2)
    if d != 5:
        return _feature_dropout(input.unsqueeze(0), p, training, inplace).squeeze(0)
    return _feature_dropout(input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: keeps zero mean and unit variance of the input."""
    return _dropout_impl(input, p, training, inplace, False, True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels (dim 1)."""
    return _dropout_impl(input, p, training, inplace, True, True)


# ---- Lucid's own layers (spec 002)

__all__ += ["apply_rotary_emb", "sinusoidal_embedding", "sinusoidal_embedding_2d", "timestep_embedding",
            "global_response_norm", "noisy_linear", "linear_relu", "linear_gelu", "nearest_codebook",
            "vector_quantize", "two_hot", "straight_through", "symlog", "symexp", "drop_block2d", "drop_block3d",
            "correct_count", "accuracy"]


def apply_rotary_emb(input, position_ids=None, base=10000.0, interleaved=False, rotary_dim=None):
    """Rotary position embedding (RoFormer) of input (..., seq_len, head_dim), one engine op: each feature pair
    at position p turns by p * base^(-2i/d). interleaved=True pairs features (2i, 2i+1) (spec 002's "GPT-NeoX"
    layout; GPT-J's and Meta's Llama complex pairs); False pairs (i, i + d/2) (spec 002's "Llama" layout: Hugging
    Face's rotate_half). Angles are computed in float64. position_ids broadcast to
    input.shape[:-1] (a (batch, seq_len) tensor for a (batch, heads, seq_len, head_dim) input applies to every
    head); None means 0..seq_len-1. rotary_dim < head_dim rotates only the first rotary_dim features (GPT-NeoX's
    partial rotary) and passes the rest through."""
    if position_ids is not None and not isinstance(position_ids, lucid.Tensor):
        position_ids = lucid.tensor(position_ids, device=input.device)
    if position_ids is not None and position_ids.dim() == 2 and input.dim() == 4:
        position_ids = position_ids.unsqueeze(1)
    d = input.shape[-1] if input.dim() else 0
    if rotary_dim is None or rotary_dim == d:
        return _C.rope(input, position_ids, float(base), bool(interleaved))
    if not 0 < rotary_dim <= d:
        raise ValueError(f"[rope] rotary_dim must be in (0, {d}] for input of shape {_shape(input)}, got {rotary_dim}")
    rot = _C.rope(input[..., :rotary_dim], position_ids, float(base), bool(interleaved))
    return lucid.cat([rot, input[..., rotary_dim:]], -1)


def _float_dtype(dtype):
    return dtype if dtype is not None else lucid.get_default_dtype()


def _sinusoid(pos, dim, base):
    """The Transformer's encoding at float64 positions pos (any shape): (..., dim) with
    out[..., 2i] = sin(pos * base^(-2i/dim)), out[..., 2i+1] = cos(pos * base^(-2i/dim))."""
    if dim <= 0:
        raise ValueError(f"[sinusoidal_embedding] embed_dim must be positive, got {dim}")
    half = (dim + 1) // 2
    freq = lucid.exp(lucid.arange(half, dtype=lucid.float64, device=pos.device) * (-2.0 * math.log(base) / dim))
    ang = pos.unsqueeze(-1) * freq
    out = lucid.stack([lucid.sin(ang), lucid.cos(ang)], -1).flatten(-2)
    return out[..., :dim]


def sinusoidal_embedding(seq_len, embed_dim, base=10000.0, *, dtype=None, device=None):
    """The fixed positional encoding of "Attention Is All You Need", (seq_len, embed_dim): sin at even features,
    cos at odd ones, frequency base^(-2i/embed_dim) for the pair i (an odd embed_dim ends with a sin)."""
    pos = lucid.arange(seq_len, dtype=lucid.float64, device=device)
    return _sinusoid(pos, embed_dim, base).to(_float_dtype(dtype))


def sinusoidal_embedding_2d(height, width, embed_dim, base=10000.0, *, dtype=None, device=None):
    """2-D sin-cos encoding of a height x width grid (MAE / ViT style), (height * width, embed_dim) in row-major
    grid order: the first embed_dim / 2 features encode the row with sinusoidal_embedding's formula, the last
    embed_dim / 2 the column."""
    if embed_dim % 2:
        raise ValueError(f"[sinusoidal_embedding_2d] embed_dim must be even, got {embed_dim}")
    h = lucid.arange(height, dtype=lucid.float64, device=device)
    w = lucid.arange(width, dtype=lucid.float64, device=device)
    gh, gw = lucid.meshgrid(h, w, indexing="ij")
    out = lucid.cat([_sinusoid(gh.reshape(-1), embed_dim // 2, base), _sinusoid(gw.reshape(-1), embed_dim // 2, base)],
                    -1)
    return out.to(_float_dtype(dtype))


def timestep_embedding(timesteps, dim, max_period=10000.0):
    """Diffusion timestep features (DiT / ADM): [cos(t f), sin(t f)] with f_i = max_period^(-i/half), i < half =
    dim // 2, a zero feature appended when dim is odd. timesteps of any shape -> (*timesteps.shape, dim), in the
    timesteps' float dtype (the default dtype for integer timesteps)."""
    if not isinstance(timesteps, lucid.Tensor):
        timesteps = lucid.tensor(timesteps)
    dt = timesteps.dtype if timesteps.dtype.is_floating_point else lucid.get_default_dtype()
    half = dim // 2
    freqs = lucid.exp(lucid.arange(half, dtype=lucid.float64, device=timesteps.device) * (-math.log(max_period) / half))
    args = timesteps.to(lucid.float64).unsqueeze(-1) * freqs
    emb = lucid.cat([lucid.cos(args), lucid.sin(args)], -1)
    if dim % 2:
        emb = lucid.cat([emb, lucid.zeros_like(emb[..., :1])], -1)
    return emb.to(dt)


def global_response_norm(input, gamma, beta, eps=1e-6, channels_last=True):
    """ConvNeXt-V2's GRN: G = ||x||_2 over the spatial dims per channel, N = G / (mean of G over channels + eps),
    out = gamma * (x * N) + beta + x. input (N, *spatial, C) (channels_last) or (N, C, *spatial); gamma and beta
    have C values."""
    if input.dim() < 3:
        raise lucid.ShapeMismatch(f"[global_response_norm] expected an input (N, *spatial, C) or (N, C, *spatial) "
                                  f"with at least one spatial dim, got shape {_shape(input)}")
    cdim = input.dim() - 1 if channels_last else 1
    C = input.shape[cdim]
    for name, t in (("gamma", gamma), ("beta", beta)):
        if t.numel() != C:
            raise lucid.ShapeMismatch(f"[global_response_norm] {name} must have {C} values (the channels of input "
                                      f"{_shape(input)}), got shape {_shape(t)}")
    spatial = tuple(range(1, input.dim() - 1)) if channels_last else tuple(range(2, input.dim()))
    g = lucid.linalg.vector_norm(input, 2, dim=spatial, keepdim=True)
    n = g / (g.mean(dim=cdim, keepdim=True) + eps)
    shape = [1] * input.dim()
    shape[cdim] = C
    return gamma.reshape(shape) * (input * n) + beta.reshape(shape) + input


def noisy_linear(input, weight_mu, weight_sigma, weight_epsilon, bias_mu=None, bias_sigma=None, bias_epsilon=None):
    """NoisyNet linear layer (Fortunato et al.): y = x (mu_w + sigma_w * eps_w)^T + mu_b + sigma_b * eps_b."""
    from lucid.nn.functional import linear
    bias = None
    if bias_mu is not None:
        bias = bias_mu if bias_sigma is None else bias_mu + bias_sigma * bias_epsilon
    return linear(input, weight_mu + weight_sigma * weight_epsilon, bias)


def linear_relu(input, weight, bias=None):
    """relu(input @ weight.T + bias) as one engine op (one GEMM, a fused bias + relu pass)."""
    return _C.fused_linear_act(input, weight, bias, "relu")


def linear_gelu(input, weight, bias=None, approximate="none"):
    """gelu(input @ weight.T + bias) as one engine op (one GEMM, a fused bias + gelu pass)."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"linear_gelu: approximate argument must be either none or tanh, got {approximate!r}")
    return _C.fused_linear_act(input, weight, bias, "gelu" if approximate == "none" else "gelu_tanh")


def nearest_codebook(input, codebook):
    """Index of the nearest codebook row (squared Euclidean distance, the first on ties) for every vector of
    input (..., D); codebook (K, D). Returns int64 indices of shape input.shape[:-1]."""
    if codebook.dim() != 2 or input.dim() < 1 or input.shape[-1] != codebook.shape[1]:
        raise lucid.ShapeMismatch(f"[nearest_codebook] expected input (..., D) and codebook (K, D), got input "
                                  f"{_shape(input)} and codebook {_shape(codebook)}")
    if codebook.shape[0] == 0:
        raise lucid.ShapeMismatch(f"[nearest_codebook] the codebook is empty (shape {_shape(codebook)})")
    with lucid.no_grad():
        flat = input.reshape(-1, input.shape[-1])
        d = (flat * flat).sum(1, keepdim=True) - 2 * _C.matmul(flat, codebook.mT) + (codebook * codebook).sum(1)
        return d.argmin(1).reshape(_shape(input)[:-1])


def vector_quantize(input, codebook, beta=0.25):
    """VQ-VAE quantisation (van den Oord et al.): returns (quantized, loss, indices). quantized has the codebook
    rows' values and passes its gradient straight through to input; loss = mse(q, sg[x]) + beta * mse(x, sg[q])
    (codebook and commitment terms)."""
    from lucid.nn.functional import embedding, mse_loss
    idx = nearest_codebook(input, codebook)
    q = embedding(idx, codebook)
    loss = mse_loss(q, input.detach()) + beta * mse_loss(input, q.detach())
    return straight_through(input, q), loss, idx


def two_hot(input, bins):
    """Two-hot encoding (DreamerV3): each value spreads over its two neighbouring bins (sorted 1-D `bins`) with
    weights linear in its distance to them; values outside the range go to the end bin. (*input.shape, K)."""
    if bins.dim() != 1 or bins.numel() == 0:
        raise lucid.ShapeMismatch(f"[two_hot] expected non-empty 1-D bins, got shape {_shape(bins)}")
    if not bins.dtype.is_floating_point:
        raise lucid.DtypeMismatch(f"[two_hot] expected floating-point bins, got {bins.dtype}")
    K = bins.shape[0]
    x = input.to(bins.dtype)
    if K == 1:
        return lucid.ones(*_shape(x), 1, dtype=bins.dtype, device=bins.device)
    k = (lucid.searchsorted(bins, x.detach(), right=True) - 1).clamp(0, K - 2)
    lo, hi = bins[k], bins[k + 1]
    w_hi = ((x - lo) / (hi - lo)).clamp(0.0, 1.0).unsqueeze(-1)
    oh_lo, oh_hi = lucid.one_hot(k, K).to(bins.dtype), lucid.one_hot(k + 1, K).to(bins.dtype)
    return oh_lo * (1 - w_hi) + oh_hi * w_hi


def straight_through(input, hard):
    """The straight-through estimator: the value of `hard`, the gradient of the identity to `input`."""
    return hard.detach() + (input - input.detach())


def symlog(input):
    """sign(x) log(1 + |x|) (DreamerV3); derivative 1 / (1 + |x|), 1 at 0."""
    return lucid.where(input >= 0, lucid.log1p(input.clamp_min(0)), -lucid.log1p((-input).clamp_min(0)))


def symexp(input):
    """sign(x) (exp(|x|) - 1), the inverse of symlog; derivative exp(|x|)."""
    return lucid.where(input >= 0, lucid.expm1(input.clamp_min(0)), -lucid.expm1((-input).clamp_min(0)))


def _block_keep_mask(seeds, block_size, nd):
    """1 - (every block_size^nd block whose top-left corner is a seed): seeds (N, C, *valid) of 0/1."""
    from lucid.nn.functional import max_pool2d, max_pool3d
    padded = pad(seeds, [block_size - 1] * (2 * nd))
    pool = max_pool2d if nd == 2 else max_pool3d
    return 1 - pool(padded, block_size, stride=1)


def _drop_block(name, nd, input, p, block_size, inplace, eps, training):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}")
    if input.dim() != nd + 2:
        raise lucid.ShapeMismatch(f"[{name}] input should be {nd + 2} dimensional. Got {input.dim()} dimensions "
                                  f"(shape {_shape(input)}).")
    if not training or p == 0.0:
        return input
    spatial = _shape(input)[2:]
    block_size = min((block_size,) + spatial)
    valid = tuple(s - block_size + 1 for s in spatial)
    gamma = p * math.prod(spatial) / (block_size ** nd * math.prod(valid))
    seeds = lucid.bernoulli(lucid.full(_shape(input)[:2] + valid, min(gamma, 1.0), dtype=input.dtype,
                                       device=input.device))
    mask = _block_keep_mask(seeds, block_size, nd)
    scale = mask.numel() / (eps + mask.sum())
    return input.mul_(mask).mul_(scale) if inplace else input * mask * scale


def drop_block2d(input, p, block_size, inplace=False, eps=1e-06, training=True):
    """DropBlock (Ghiasi et al.) over (N, C, H, W), as torchvision.ops.drop_block2d: seeds drawn with rate
    gamma = p H W / (block_size^2 (H - block_size + 1)(W - block_size + 1)) in the region where a whole block
    fits, each zeroing a block_size x block_size block; the kept values are scaled by numel / (eps + kept)."""
    return _drop_block("drop_block2d", 2, input, p, block_size, inplace, eps, training)


def drop_block3d(input, p, block_size, inplace=False, eps=1e-06, training=True):
    """DropBlock over (N, C, D, H, W) (cubic blocks), as torchvision.ops.drop_block3d."""
    return _drop_block("drop_block3d", 3, input, p, block_size, inplace, eps, training)


def correct_count(input, target, k=1):
    """Number of correct predictions, an int64 scalar tensor. input holds class scores (N, C, ...) (or (C,))
    with target class indices (N, ...) (or a scalar): a prediction is correct when the target is among the k
    highest scores; an input of target's shape holds predicted labels, compared with target directly."""
    if input.dim() == target.dim():
        if _shape(input) != _shape(target):
            raise lucid.ShapeMismatch(f"[correct_count] predictions {_shape(input)} and targets {_shape(target)} "
                                      "differ in shape")
        return (input == target).sum()
    cdim = 0 if input.dim() == 1 else 1
    want = _shape(input)[:cdim] + _shape(input)[cdim + 1:]
    if input.dim() != target.dim() + 1 or _shape(target) != want:
        raise lucid.ShapeMismatch(f"[correct_count] expected scores (N, C, ...) and targets (N, ...), got scores "
                                  f"{_shape(input)} and targets {_shape(target)}")
    if target.dtype.is_floating_point or target.dtype.is_complex or target.dtype == lucid.bool:
        raise lucid.DtypeMismatch(f"[correct_count] expected integer class targets, got {target.dtype}")
    if not 1 <= k <= input.shape[cdim]:
        raise ValueError(f"[correct_count] k must be in [1, {input.shape[cdim]}] for scores {_shape(input)}, got {k}")
    with lucid.no_grad():
        if k == 1:
            return (input.argmax(cdim) == target).sum()
        idx = input.topk(k, cdim).indices
        return (idx == target.unsqueeze(cdim)).any(cdim).sum()


def accuracy(input, target, k=1):
    """The fraction of correct predictions (correct_count / number of targets), a float scalar tensor."""
    n = correct_count(input, target, k)
    return n.to(lucid.get_default_dtype()) / target.numel() if target.numel() else \
        lucid.tensor(float("nan"), device=input.device)
