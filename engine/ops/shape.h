#pragma once
// Shape and movement ops (issue 4): joining (cat, stack, ...), splitting (views), reordering
// (flip, roll, rot90, movedim), repeating (repeat, tile, repeat_interleave), padding, triangles and
// diagonals, broadcasting helpers and combinatorics. Splits, movedim, unflatten and ravel of a
// contiguous tensor return views; every other op returns a fresh contiguous tensor.
#include <optional>
#include <string>
#include <vector>

#include "core/scalar.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// ---- joining (PyTorch's promotion across the inputs)
// 1-D empty inputs are skipped when the others are not 1-D (PyTorch's legacy rule).
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor hstack(const std::vector<Tensor>& tensors);
Tensor vstack(const std::vector<Tensor>& tensors);
Tensor dstack(const std::vector<Tensor>& tensors);
Tensor column_stack(const std::vector<Tensor>& tensors);

// ---- splitting (views)
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split_with_sizes(const Tensor& t, const std::vector<int64_t>& sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& t, int64_t sections, int64_t dim = 0);
std::vector<Tensor> tensor_split_indices(const Tensor& t, const std::vector<int64_t>& indices, int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& t, int64_t dim = 0);
// hsplit (dim 1, or 0 for 1-D), vsplit (dim 0), dsplit (dim 2): sections must divide the dim.
std::vector<Tensor> directional_split(const Tensor& t, char which, std::optional<int64_t> sections,
                                      const std::vector<int64_t>& indices);

// ---- reshaping and reordering
Tensor unflatten(const Tensor& t, int64_t dim, const std::vector<int64_t>& sizes);
Tensor ravel(const Tensor& t);
Tensor movedim(const Tensor& t, const std::vector<int64_t>& source, const std::vector<int64_t>& destination);
Tensor flip(const Tensor& t, const std::vector<int64_t>& dims);
Tensor fliplr(const Tensor& t);
Tensor flipud(const Tensor& t);
// dims empty: the flattened tensor is rolled (shifts must then hold one value).
Tensor roll(const Tensor& t, const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims);
Tensor rot90(const Tensor& t, int64_t k = 1, const std::vector<int64_t>& dims = {0, 1});

// ---- repeating
Tensor repeat(const Tensor& t, const std::vector<int64_t>& repeats);
Tensor tile(const Tensor& t, const std::vector<int64_t>& dims);
Tensor repeat_interleave(const Tensor& t, int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& t, const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = std::nullopt);  // indices

// ---- padding: `pad` lists (left, right) pairs starting from the last dim, as PyTorch.
// mode: "constant" (negative pads crop), "reflect", "replicate", "circular".
Tensor pad(const Tensor& t, const std::vector<int64_t>& pad, const std::string& mode = "constant",
           std::optional<Scalar> value = std::nullopt);

// ---- triangles and diagonals
Tensor tril(const Tensor& t, int64_t diagonal = 0);
Tensor triu(const Tensor& t, int64_t diagonal = 0);
Tensor tril_(const Tensor& t, int64_t diagonal = 0);
Tensor triu_(const Tensor& t, int64_t diagonal = 0);
Tensor tril_indices(int64_t row, int64_t col, int64_t offset, Dtype dtype, Device device);
Tensor triu_indices(int64_t row, int64_t col, int64_t offset, Dtype dtype, Device device);
Tensor diag(const Tensor& t, int64_t diagonal = 0);
Tensor diag_embed(const Tensor& t, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
Tensor diagflat(const Tensor& t, int64_t offset = 0);
Tensor block_diag(const std::vector<Tensor>& tensors);

// ---- broadcasting and combinatorics
std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, const std::string& indexing = "ij");
std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors);
Shape broadcast_shapes(const std::vector<Shape>& shapes);
Tensor atleast_1d(const Tensor& t);
Tensor atleast_2d(const Tensor& t);
Tensor atleast_3d(const Tensor& t);
Tensor cartesian_prod(const std::vector<Tensor>& tensors);
// Rows of r elements of a 1-D tensor, in itertools.combinations(_with_replacement) order.
Tensor combinations(const Tensor& t, int64_t r = 2, bool with_replacement = false);

}  // namespace lucid
