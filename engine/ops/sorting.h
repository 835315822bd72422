#pragma once
// Sorting, searching and order statistics: sort/argsort/msort, topk, kthvalue, median/nanmedian,
// mode, quantile/nanquantile, unique/unique_consecutive, searchsorted/bucketize, histc/histogram,
// bincount, isin. Orders are PyTorch's: NaN sorts as the largest value; ties keep index order.
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <variant>

#include "core/scalar.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// (values, int64 indices). Every sort is stable (`stable` is accepted for PyTorch's signature).
std::pair<Tensor, Tensor> sort(const Tensor& t, int64_t dim = -1, bool descending = false, bool stable = false);
Tensor argsort(const Tensor& t, int64_t dim = -1, bool descending = false, bool stable = false);
Tensor msort(const Tensor& t);  // sort(t, 0).values
// The k largest (smallest) along dim, (values, int64 indices); always in sorted order.
std::pair<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true);
// k is 1-based, as PyTorch.
std::pair<Tensor, Tensor> kthvalue(const Tensor& t, int64_t k, int64_t dim = -1, bool keepdim = false);
// Whole tensor: the lower median (NaN if any); along dim: (values, indices).
Tensor median(const Tensor& t);
std::pair<Tensor, Tensor> median(const Tensor& t, int64_t dim, bool keepdim = false);
Tensor nanmedian(const Tensor& t);
std::pair<Tensor, Tensor> nanmedian(const Tensor& t, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> mode(const Tensor& t, int64_t dim = -1, bool keepdim = false);

// q: a probability or a 0-d/1-d tensor of them (input's dtype). interpolation: linear, lower,
// higher, midpoint, nearest. A 1-d q puts its dim first in the result.
using QuantileQ = std::variant<Tensor, double>;
Tensor quantile(const Tensor& t, const QuantileQ& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                const std::string& interpolation = "linear");
Tensor nanquantile(const Tensor& t, const QuantileQ& q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, const std::string& interpolation = "linear");

// (values, inverse, counts); inverse and counts are empty (0-element) tensors when not asked for.
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& t, bool sorted = true, bool return_inverse = false,
                                          bool return_counts = false, std::optional<int64_t> dim = std::nullopt);
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& t, bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);

// side ("left"/"right") overrides right when given; sorter: int64 indices that sort each row.
using SearchValues = std::variant<Tensor, Scalar>;
Tensor searchsorted(const Tensor& sorted_sequence, const SearchValues& values, bool out_int32 = false,
                    bool right = false, const std::optional<std::string>& side = std::nullopt,
                    const std::optional<Tensor>& sorter = std::nullopt);
Tensor bucketize(const SearchValues& input, const Tensor& boundaries, bool out_int32 = false, bool right = false);

Tensor histc(const Tensor& t, int64_t bins = 100, double min = 0, double max = 0);
using HistBins = std::variant<Tensor, int64_t>;
// (hist, bin_edges)
std::pair<Tensor, Tensor> histogram(const Tensor& t, const HistBins& bins,
                                    const std::optional<std::pair<double, double>>& range = std::nullopt,
                                    const std::optional<Tensor>& weight = std::nullopt, bool density = false);
Tensor bincount(const Tensor& t, const std::optional<Tensor>& weights = std::nullopt, int64_t minlength = 0);
using IsinArg = std::variant<Tensor, Scalar>;
Tensor isin(const IsinArg& elements, const IsinArg& test_elements, bool assume_unique = false, bool invert = false);

}  // namespace lucid
