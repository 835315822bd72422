#pragma once
// Reductions.
#include <optional>
#include <vector>

#include "tensor/tensor_impl.h"

namespace lucid {

// dims empty or absent: all dims. dtype: the output (and accumulation) dtype; by default
// integral and bool inputs sum to int64, as in PyTorch.
Tensor sum(const Tensor& t, const std::optional<std::vector<int64_t>>& dims, bool keepdim = false,
           std::optional<Dtype> dtype = std::nullopt);

// Sorted, wrapped, de-duplicated reduction dims (all dims when absent or empty).
std::vector<int64_t> reduction_dims(const Tensor& t, const std::optional<std::vector<int64_t>>& dims, const char* op);

}  // namespace lucid
