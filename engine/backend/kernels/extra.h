#pragma once
// Kernels of lucid's own fused layers (ops/nn_extra.h). Arrays are contiguous; float32/float64.
#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// out = x rotated pairwise by sign * p * base^(-2i/D), x and out (R, D) rows. The angles come from a
// cos/sin table over the distinct positions pos (P float64 values; null: 0..T-1); row r uses table row
// idx[r] (R int64 values; null: r % T). interleaved pairs (2i, 2i+1), else (i, i + D/2). out may not
// alias x.
LUCID_DECLARE_KERNEL(rope_kernel, void (*)(const TensorImpl& out, const TensorImpl& x, const TensorImpl* pos,
                                           const TensorImpl* idx, int64_t T, double base, bool interleaved,
                                           double sign))

enum class LinearAct : uint8_t { Relu, Identity };
// The GEMM epilogue, in place on z (M, N): z = act(z + bias) (bias (N) may be null).
LUCID_DECLARE_KERNEL(linear_act_epilogue_kernel, void (*)(LinearAct act, const TensorImpl& z, const TensorImpl* bias))

}  // namespace lucid
