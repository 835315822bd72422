#pragma once
// Kernels of lucid's own fused layers (ops/nn_extra.h). Arrays are contiguous; float32/float64.
#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// out = x rotated pairwise by sign * pos * base^(-2i/D) (x, out: (R, D) rows; pos: R float64 values,
// or null for pos = row % T). interleaved pairs (2i, 2i+1), else (i, i + D/2). out may not alias x.
LUCID_DECLARE_KERNEL(rope_kernel, void (*)(const TensorImpl& out, const TensorImpl& x, const TensorImpl* pos,
                                           int64_t T, double base, bool interleaved, double sign))

enum class LinearAct : uint8_t { Relu, Gelu, GeluTanh };
// The GEMM epilogue: z (M, N) += bias (N) (bias may be null), then y = act(z); y may be z itself.
LUCID_DECLARE_KERNEL(linear_act_epilogue_kernel, void (*)(LinearAct act, const TensorImpl& y, const TensorImpl& z,
                                                          const TensorImpl* bias))

}  // namespace lucid
