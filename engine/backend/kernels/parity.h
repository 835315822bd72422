#pragma once
// Kernels of the API-parity task's fused ops: embedding_bag (ops/nn_parity_embedding_bag.cpp).
#include <cstdint>

#include "backend/kernels/stub.h"

namespace lucid {

enum class EmbeddingBagMode : int { Sum = 0, Mean = 1, Max = 2 };

// embedding_bag forward: out (B, D) contiguous of weight's dtype; weight (V, D) contiguous; indices (M) int64
// contiguous, already in [0, V); bounds: B + 1 host offsets, bag b = indices[bounds[b], bounds[b + 1]);
// per_sample_weights (M) of weight's dtype or null (sum mode); padding_idx < 0: none (entries equal to it are
// skipped and not counted). Max mode also writes argmax (B, D) int64: the weight row reaching each maximum
// (the first of ties), -1 in an empty bag (whose output is 0, as in every mode).
LUCID_DECLARE_KERNEL(embedding_bag_kernel,
                     void (*)(const TensorImpl& out, const TensorImpl* argmax, const TensorImpl& weight,
                              const TensorImpl& indices, const int64_t* bounds, int64_t num_bags,
                              const TensorImpl* per_sample_weights, EmbeddingBagMode mode, int64_t padding_idx))

// embedding_bag's weight gradient (sum/mean): gw (V, D) contiguous, zeroed here, gets gw[rows[k]] +=
// g[bags[k]] * scale[k] for each of the K kept entries; g (B, D) contiguous; rows/bags (K) int64; scale (K)
// of g's dtype or null (all ones).
LUCID_DECLARE_KERNEL(embedding_bag_backward_kernel,
                     void (*)(const TensorImpl& gw, const TensorImpl& g, const TensorImpl& rows, const TensorImpl& bags,
                              const TensorImpl* scale))

// RMS norm over rows of a contiguous (R, D) x: rstd (R) = 1 / sqrt(mean(x^2) + eps) out,
// y = x * rstd * w (w of D elements, contiguous, or null); float32/float64.
LUCID_DECLARE_KERNEL(rms_norm_kernel, void (*)(const TensorImpl& y, const TensorImpl& rstd, const TensorImpl& x,
                                               const TensorImpl* w, double eps))

}  // namespace lucid
