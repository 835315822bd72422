#pragma once
// Kernels of the convolution ops (ops/nn_conv*.cpp): vol2col/col2vol (F.unfold/F.fold and any N-d
// im2col) and the fused convolution GEMMs: forward, transposed (its adjoint in the input) and the
// weight gradient. 1-d and 2-d windows are 3-d ones with leading unit dimensions.
#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// A sliding window over a D x H x W volume ("in") giving an OD x OH x OW one ("out"), per dim:
// out = (in + 2p - d(k-1) - 1) / s + 1. Unused leading dims have in = out = k = s = d = 1, p = 0.
struct ConvGeom {
  int64_t in[3], out[3], k[3], s[3], p[3], d[3];
  int64_t in_numel() const { return in[0] * in[1] * in[2]; }
  int64_t out_numel() const { return out[0] * out[1] * out[2]; }
  int64_t k_numel() const { return k[0] * k[1] * k[2]; }
};

// cols[n, c*K + kk, l] = x[n, c, at(l, kk)] (0 in the padding); x (N, C, *in) and cols (N, C*K, L)
// with any strides, float32/float64.
LUCID_DECLARE_KERNEL(vol2col_kernel, void (*)(const TensorImpl& cols, const TensorImpl& x, const ConvGeom& g))
// The adjoint: x (N, C, *in), contiguous and zeroed by the caller, accumulates cols (any strides).
LUCID_DECLARE_KERNEL(col2vol_kernel, void (*)(const TensorImpl& x, const TensorImpl& cols, const ConvGeom& g))

// y (N, OC, *out) = conv(x (N, C, *in), w (OC, C/groups, *k)) + bias (OC or null). All contiguous.
LUCID_DECLARE_KERNEL(conv_kernel, void (*)(const TensorImpl& y, const TensorImpl& x, const TensorImpl& w,
                                           const TensorImpl* bias, const ConvGeom& g, int64_t groups))
// The transposed convolution (the adjoint of conv_kernel in its input): y (N, OC, *in) =
// convT(x (N, C, *out), w (C, OC/groups, *k)) + bias (OC or null). All contiguous; y is written whole.
LUCID_DECLARE_KERNEL(conv_transpose_kernel, void (*)(const TensorImpl& y, const TensorImpl& x, const TensorImpl& w,
                                                     const TensorImpl* bias, const ConvGeom& g, int64_t groups))
// The weight gradient of conv_kernel: gw (B, A/groups, *k)[o, c, kk] = sum_{n,l} b[n, o, l] a[n, c, at(l, kk)]
// for a (N, A, *in), b (N, B, *out). All contiguous; gw is written whole.
LUCID_DECLARE_KERNEL(conv_weight_kernel, void (*)(const TensorImpl& gw, const TensorImpl& a, const TensorImpl& b,
                                                  const ConvGeom& g, int64_t groups))

}  // namespace lucid
