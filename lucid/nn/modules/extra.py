"""lucid.nn: the remaining small layers of PyTorch (Bilinear, LocalResponseNorm, the distances, the feature and
alpha dropouts, the padding layers), each a thin Module over its lucid.nn.functional form."""
import math

from lucid.nn import functional as F
from lucid.nn import init
from lucid.nn.modules.module import Module
from lucid.nn.parameter import Parameter

__all__ = ["Bilinear", "LocalResponseNorm", "CosineSimilarity", "PairwiseDistance", "Dropout1d", "Dropout2d",
           "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
           "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


class Bilinear(Module):
    """y = x1^T A x2 + b with A of shape (out_features, in1_features, in2_features); PyTorch's init:
    weight and bias uniform in +-1/sqrt(in1_features)."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        from lucid._creation import empty
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LocalResponseNorm(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CosineSimilarity(Module):
    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


# ---- dropouts

class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)


# ---- padding

def _ntuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _PadNd(Module):
    mode = "constant"
    _n = 2

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, self._n)

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _n = 2


class ConstantPad2d(_ConstantPadNd):
    _n = 4


class ConstantPad3d(_ConstantPadNd):
    _n = 6


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    mode, _n = "reflect", 2


class ReflectionPad2d(_PadNd):
    mode, _n = "reflect", 4


class ReflectionPad3d(_PadNd):
    mode, _n = "reflect", 6


class ReplicationPad1d(_PadNd):
    mode, _n = "replicate", 2


class ReplicationPad2d(_PadNd):
    mode, _n = "replicate", 4


class ReplicationPad3d(_PadNd):
    mode, _n = "replicate", 6


class _CircularPadNd(_PadNd):
    mode = "circular"

    def forward(self, input):
        lo = self._n // 2 + 1
        if input.dim() not in (lo, lo + 1):
            raise ValueError(f"expected {lo}D or {lo + 1}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    _n = 2


class CircularPad2d(_CircularPadNd):
    _n = 4


class CircularPad3d(_CircularPadNd):
    _n = 6


# ---- Lucid's own layers (spec 002)

from lucid.nn.modules.linear import Linear  # noqa: E402

__all__ += ["RotaryEmbedding", "SinusoidalEmbedding", "TimestepEmbedding", "GlobalResponseNorm", "GRN",
            "NoisyLinear", "LinearReLU", "LinearGELU", "VectorQuantizer", "DropBlock2d", "DropBlock3d"]


class RotaryEmbedding(Module):
    """Rotary position embedding of (..., seq_len, head_dim) inputs (F.apply_rotary_emb); `dim` features are
    rotated (all of head_dim when it equals head_dim; GPT-NeoX's partial rotary otherwise). No parameters."""

    def __init__(self, dim, base=10000.0, interleaved=False):
        super().__init__()
        if dim <= 0 or dim % 2:
            raise ValueError(f"RotaryEmbedding: dim must be a positive even number, got {dim}")
        self.dim, self.base, self.interleaved = dim, base, interleaved

    def forward(self, input, position_ids=None):
        return F.apply_rotary_emb(input, position_ids, self.base, self.interleaved, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}, base={self.base}, interleaved={self.interleaved}"


class SinusoidalEmbedding(Module):
    """The Transformer's fixed sinusoidal encoding: forward(positions) gives (*positions.shape, embed_dim)
    (float positions keep their dtype; integer ones give the default dtype); forward(n) with an int n gives
    sinusoidal_embedding(n, embed_dim). No parameters."""

    def __init__(self, embed_dim, base=10000.0):
        super().__init__()
        self.embed_dim, self.base = embed_dim, base

    def forward(self, positions):
        import lucid
        from lucid.nn._functional_extra import _sinusoid
        if isinstance(positions, int):
            return F.sinusoidal_embedding(positions, self.embed_dim, self.base)
        dt = positions.dtype if positions.dtype.is_floating_point else lucid.get_default_dtype()
        return _sinusoid(positions.to(lucid.float64), self.embed_dim, self.base).to(dt)

    def extra_repr(self):
        return f"{self.embed_dim}, base={self.base}"


class TimestepEmbedding(Module):
    """Diffusion timestep embedder (DiT's TimestepEmbedder): mlp(timestep_embedding(t, frequency_embedding_size))
    with mlp = Linear(frequency_embedding_size, hidden_size), SiLU, Linear(hidden_size, hidden_size); state_dict
    keys mlp.0.weight ... mlp.2.bias as DiT's."""

    def __init__(self, hidden_size, frequency_embedding_size=256, max_period=10000.0, device=None, dtype=None):
        super().__init__()
        from lucid.nn.modules.activation import SiLU
        from lucid.nn.modules.container import Sequential
        self.frequency_embedding_size, self.max_period = frequency_embedding_size, max_period
        self.mlp = Sequential(Linear(frequency_embedding_size, hidden_size, device=device, dtype=dtype), SiLU(),
                              Linear(hidden_size, hidden_size, device=device, dtype=dtype))

    def forward(self, t):
        emb = F.timestep_embedding(t, self.frequency_embedding_size, self.max_period)
        return self.mlp(emb.to(self.mlp[0].weight.dtype))


class GlobalResponseNorm(Module):
    """ConvNeXt-V2's Global Response Normalization over (N, *spatial, C) (channels_last) or (N, C, *spatial)
    inputs; gamma and beta (dim,) start at zero, so the layer starts as the identity."""

    def __init__(self, dim, eps=1e-6, channels_last=True, device=None, dtype=None):
        super().__init__()
        import lucid
        self.dim, self.eps, self.channels_last = dim, eps, channels_last
        self.gamma = Parameter(lucid.zeros(dim, device=device, dtype=dtype))
        self.beta = Parameter(lucid.zeros(dim, device=device, dtype=dtype))

    def forward(self, input):
        return F.global_response_norm(input, self.gamma, self.beta, self.eps, self.channels_last)

    def extra_repr(self):
        return f"{self.dim}, eps={self.eps}, channels_last={self.channels_last}"


GRN = GlobalResponseNorm


class NoisyLinear(Module):
    """NoisyNet linear layer with factorised Gaussian noise (Fortunato et al. 2018): in training
    y = x (mu_w + sigma_w * eps_w)^T + mu_b + sigma_b * eps_b with eps_w = f(e_out) f(e_in)^T, eps_b = f(e_out),
    f(e) = sign(e) sqrt(|e|), e ~ N(0, 1); in eval, the mean weights. mu ~ U(-1/sqrt(in), 1/sqrt(in)), sigma =
    std_init / sqrt(in) (the paper's sigma_0 = 0.5). reset_noise() draws new noise (the buffers
    weight_epsilon, bias_epsilon)."""

    def __init__(self, in_features, out_features, bias=True, std_init=0.5, device=None, dtype=None):
        super().__init__()
        import lucid
        self.in_features, self.out_features, self.std_init = in_features, out_features, std_init
        kw = dict(device=device, dtype=dtype)
        self.weight_mu = Parameter(lucid.empty(out_features, in_features, **kw))
        self.weight_sigma = Parameter(lucid.empty(out_features, in_features, **kw))
        self.register_buffer("weight_epsilon", lucid.zeros(out_features, in_features, **kw))
        if bias:
            self.bias_mu = Parameter(lucid.empty(out_features, **kw))
            self.bias_sigma = Parameter(lucid.empty(out_features, **kw))
            self.register_buffer("bias_epsilon", lucid.zeros(out_features, **kw))
        else:
            self.register_parameter("bias_mu", None)
            self.register_parameter("bias_sigma", None)
            self.register_buffer("bias_epsilon", None)
        self.reset_parameters()
        self.reset_noise()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.in_features) if self.in_features else 0.0
        sigma = self.std_init / math.sqrt(self.in_features) if self.in_features else 0.0
        init.uniform_(self.weight_mu, -bound, bound)
        init.constant_(self.weight_sigma, sigma)
        if self.bias_mu is not None:
            init.uniform_(self.bias_mu, -bound, bound)
            init.constant_(self.bias_sigma, sigma)

    @staticmethod
    def _scaled_noise(n, like):
        import lucid
        e = lucid.randn(n, dtype=like.dtype, device=like.device)
        return e.sign() * e.abs().sqrt()

    def reset_noise(self):
        import lucid
        with lucid.no_grad():
            e_in = self._scaled_noise(self.in_features, self.weight_epsilon)
            e_out = self._scaled_noise(self.out_features, self.weight_epsilon)
            self.weight_epsilon.copy_(lucid.outer(e_out, e_in))
            if self.bias_epsilon is not None:
                self.bias_epsilon.copy_(e_out)

    def forward(self, input):
        if not self.training:
            return F.linear(input, self.weight_mu, self.bias_mu)
        return F.noisy_linear(input, self.weight_mu, self.weight_sigma, self.weight_epsilon, self.bias_mu,
                              self.bias_sigma, self.bias_epsilon)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias_mu is not None}, "
                f"std_init={self.std_init}")


class LinearReLU(Linear):
    """relu(Linear(x)) as one fused engine op; Linear's parameters, initialisation and state_dict keys."""

    def forward(self, input):
        return F.linear_relu(input, self.weight, self.bias)


class LinearGELU(Linear):
    """gelu(Linear(x)) as one fused engine op; approximate as F.gelu's."""

    def __init__(self, in_features, out_features, bias=True, approximate="none", device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.approximate = approximate

    def forward(self, input):
        return F.linear_gelu(input, self.weight, self.bias, self.approximate)

    def extra_repr(self):
        return super().extra_repr() + f", approximate={self.approximate!r}"


class VectorQuantizer(Module):
    """VQ-VAE codebook (van den Oord et al.): forward(z) with z (..., embedding_dim) returns (quantized, loss,
    indices) as F.vector_quantize; the codebook is `embedding.weight` (num_embeddings, embedding_dim), initialised
    U(-1/num_embeddings, 1/num_embeddings) as in the common VQ-VAE/VQGAN code."""

    def __init__(self, num_embeddings, embedding_dim, beta=0.25, device=None, dtype=None):
        super().__init__()
        from lucid.nn.modules.sparse import Embedding
        self.num_embeddings, self.embedding_dim, self.beta = num_embeddings, embedding_dim, beta
        self.embedding = Embedding(num_embeddings, embedding_dim, device=device, dtype=dtype)
        init.uniform_(self.embedding.weight, -1.0 / num_embeddings, 1.0 / num_embeddings)

    def forward(self, input):
        return F.vector_quantize(input, self.embedding.weight, self.beta)

    def extra_repr(self):
        return f"num_embeddings={self.num_embeddings}, embedding_dim={self.embedding_dim}, beta={self.beta}"


class DropBlock2d(Module):
    """DropBlock over (N, C, H, W) (torchvision.ops.DropBlock2d): active in training only."""
    _fn = staticmethod(F.drop_block2d)

    def __init__(self, p, block_size, inplace=False, eps=1e-06):
        super().__init__()
        self.p, self.block_size, self.inplace, self.eps = p, block_size, inplace, eps

    def forward(self, input):
        return self._fn(input, self.p, self.block_size, self.inplace, self.eps, self.training)

    def extra_repr(self):
        return f"p={self.p}, block_size={self.block_size}, inplace={self.inplace}"


class DropBlock3d(DropBlock2d):
    """DropBlock over (N, C, D, H, W) (torchvision.ops.DropBlock3d)."""
    _fn = staticmethod(F.drop_block3d)
