#pragma once
// Reductions and scans (PyTorch's semantics: result dtypes, empty inputs, NaN handling, ties).
#include <optional>
#include <utility>
#include <vector>

#include "tensor/tensor_impl.h"

namespace lucid {

using Dims = std::optional<std::vector<int64_t>>;  // absent or empty: all dims

// dims empty or absent: all dims. dtype: the output (and accumulation) dtype; by default
// integral and bool inputs sum to int64, as in PyTorch.
Tensor sum(const Tensor& t, const Dims& dims, bool keepdim = false, std::optional<Dtype> dtype = std::nullopt);
// Float/complex inputs (or a float/complex dtype=); float16/bfloat16 accumulate in float32.
Tensor mean(const Tensor& t, const Dims& dims, bool keepdim = false, std::optional<Dtype> dtype = std::nullopt);
Tensor nansum(const Tensor& t, const Dims& dims, bool keepdim = false, std::optional<Dtype> dtype = std::nullopt);
Tensor nanmean(const Tensor& t, const Dims& dims, bool keepdim = false, std::optional<Dtype> dtype = std::nullopt);
// dim absent: the whole tensor. Integral and bool inputs multiply in int64.
Tensor prod(const Tensor& t, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
            std::optional<Dtype> dtype = std::nullopt);

// Max/min over dims (all when empty); the gradient splits evenly among ties.
Tensor amax(const Tensor& t, const std::vector<int64_t>& dims = {}, bool keepdim = false);
Tensor amin(const Tensor& t, const std::vector<int64_t>& dims = {}, bool keepdim = false);
Tensor max(const Tensor& t);  // whole tensor (the gradient of amax)
Tensor min(const Tensor& t);
// (values, int64 indices) along dim; the gradient goes to the returned index.
std::pair<Tensor, Tensor> max(const Tensor& t, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> min(const Tensor& t, int64_t dim, bool keepdim = false);
// dim absent: the index into the flattened tensor.
Tensor argmax(const Tensor& t, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& t, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
std::pair<Tensor, Tensor> aminmax(const Tensor& t, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);

// Variance/standard deviation with `correction` (1: unbiased). Float/complex only (complex: real result).
Tensor var(const Tensor& t, const Dims& dims, double correction = 1.0, bool keepdim = false);
Tensor std_dev(const Tensor& t, const Dims& dims, double correction = 1.0, bool keepdim = false);
std::pair<Tensor, Tensor> var_mean(const Tensor& t, const Dims& dims, double correction = 1.0, bool keepdim = false);
std::pair<Tensor, Tensor> std_mean(const Tensor& t, const Dims& dims, double correction = 1.0, bool keepdim = false);
Tensor logsumexp(const Tensor& t, const Dims& dims, bool keepdim = false);

// Scans along dim. Integral and bool inputs of cumsum/cumprod accumulate in int64.
Tensor cumsum(const Tensor& t, int64_t dim, std::optional<Dtype> dtype = std::nullopt);
Tensor cumprod(const Tensor& t, int64_t dim, std::optional<Dtype> dtype = std::nullopt);
std::pair<Tensor, Tensor> cummax(const Tensor& t, int64_t dim);
std::pair<Tensor, Tensor> cummin(const Tensor& t, int64_t dim);
Tensor logcumsumexp(const Tensor& t, int64_t dim);
// The sum from each position to the end of dim (the vjp of cumsum).
Tensor cumsum_reverse(const Tensor& t, int64_t dim);

// Bool results (uint8 for uint8 inputs, as PyTorch); count_nonzero gives int64.
Tensor any(const Tensor& t, const Dims& dims, bool keepdim = false);
Tensor all(const Tensor& t, const Dims& dims, bool keepdim = false);
Tensor count_nonzero(const Tensor& t, const Dims& dims);

Tensor diff(const Tensor& t, int64_t n = 1, int64_t dim = -1, const std::optional<Tensor>& prepend = std::nullopt,
            const std::optional<Tensor>& append = std::nullopt);
Tensor trace(const Tensor& t);

// Sorted, wrapped, de-duplicated reduction dims (all dims when absent or empty).
std::vector<int64_t> reduction_dims(const Tensor& t, const Dims& dims, const char* op);

}  // namespace lucid
