#pragma once
// The API-parity task's fused nn ops (ops/nn_parity_*.cpp).
#include <cstdint>
#include <optional>

#include "tensor/tensor_impl.h"

namespace lucid {

// torch.nn.functional.embedding_bag over a flat index list: bags of indices (M) split at offsets (B, or
// B + 1 with include_last_offset), each bag reduced by mode 0 sum / 1 mean / 2 max into a row of the
// (B, D) result; per_sample_weights (M) scale the rows in sum mode; entries equal to padding_idx (>= 0)
// are skipped (not counted by mean); an empty bag gives zeros. scale_grad_by_freq divides each index's
// weight gradient by its count in the mini-batch. One fused CPU kernel forward; the vjp is in lucid ops
// (index_select / index_add), so double backward works.
Tensor embedding_bag(const Tensor& weight, const Tensor& indices, const Tensor& offsets, int64_t mode,
                     const std::optional<Tensor>& per_sample_weights, bool include_last_offset, int64_t padding_idx,
                     bool scale_grad_by_freq);

// torch.nn.functional.rms_norm: x / sqrt(mean(x^2 over the trailing normalized_shape dims) + eps) * weight,
// one fused pass per row (half dtypes computed in float32); the vjp in lucid ops (statistics recomputed
// under create_graph, so double backward is exact).
Tensor rms_norm(const Tensor& x, const Shape& normalized_shape, const std::optional<Tensor>& weight, double eps);

}  // namespace lucid
