#pragma once
// Generic pooling over 1, 2 or 3 trailing spatial dims (ops/nn_pool2.cpp): average / max pooling with
// fixed windows, adaptive average / max pooling, max unpooling, embedding lookups.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "tensor/tensor_impl.h"

namespace lucid {

using IntVec = std::vector<int64_t>;

// x: (N, C, *spatial) or (C, *spatial) with nd spatial dims. stride empty = kernel.
Tensor avg_pool(const Tensor& x, int nd, IntVec kernel, IntVec stride, IntVec padding, bool ceil_mode,
                bool count_include_pad, std::optional<int64_t> divisor_override);
std::pair<Tensor, Tensor> max_pool_with_indices(const Tensor& x, int nd, IntVec kernel, IntVec stride, IntVec padding,
                                                IntVec dilation, bool ceil_mode);
// output_size entries equal to kKeepExtent keep the input extent (PyTorch's None); other negatives raise.
constexpr int64_t kKeepExtent = INT64_MIN;
Tensor adaptive_avg_pool(const Tensor& x, int nd, IntVec output_size);
std::pair<Tensor, Tensor> adaptive_max_pool(const Tensor& x, int nd, IntVec output_size);
// Scatters x into zeros of the given spatial size at the flat plane indices.
Tensor max_unpool(const Tensor& x, const Tensor& indices, int nd, IntVec output_size);
// Fractional max pooling over nd = 2 or 3 spatial dims; samples (N, C, nd) (or (1, C, nd) unbatched) in [0, 1).
std::pair<Tensor, Tensor> fractional_max_pool(const Tensor& x, int nd, IntVec kernel, IntVec output_size,
                                              const Tensor& samples);
// weight[input] with PyTorch's padding_idx (no gradient to that row; < 0 = none) and scale_grad_by_freq.
Tensor embedding(const Tensor& weight, const Tensor& input, int64_t padding_idx, bool scale_grad_by_freq);

}  // namespace lucid
