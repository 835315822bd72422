// F.unfold (im2col) and F.fold (col2im): the 2-d case of the N-d vol2col/col2vol kernels
// (backend/kernels/conv.h), engine ops whose vjps are each other.
#include <sstream>

#include "backend/kernels/conv.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/nn.h"
#include "ops/view.h"

namespace lucid {

namespace {

std::string pair_str(Pair p) {
  std::ostringstream s;
  s << "(" << p[0] << ", " << p[1] << ")";
  return s.str();
}

// The 2-d window over an H x W plane (leading unit depth).
ConvGeom window(const char* op, int64_t H, int64_t W, Pair k, Pair d, Pair p, Pair s) {
  LUCID_CHECK(k[0] > 0 && k[1] > 0, Value, "[" << op << "] kernel_size must be positive, got " << pair_str(k));
  LUCID_CHECK(s[0] > 0 && s[1] > 0, Value, "[" << op << "] stride must be positive, got " << pair_str(s));
  LUCID_CHECK(d[0] > 0 && d[1] > 0, Value, "[" << op << "] dilation must be positive, got " << pair_str(d));
  LUCID_CHECK(p[0] >= 0 && p[1] >= 0, Value, "[" << op << "] padding must be non-negative, got " << pair_str(p));
  ConvGeom g{{1, H, W}, {1, 0, 0}, {1, k[0], k[1]}, {1, s[0], s[1]}, {0, p[0], p[1]}, {1, d[0], d[1]}};
  const int64_t sh = H + 2 * p[0] - d[0] * (k[0] - 1) - 1, sw = W + 2 * p[1] - d[1] * (k[1] - 1) - 1;
  LUCID_CHECK(sh >= 0 && sw >= 0, ShapeMismatch,
              "[" << op << "] input of spatial size (" << H << ", " << W << ") with padding " << pair_str(p)
                  << " is smaller than the dilated kernel "
                  << pair_str(Pair{d[0] * (k[0] - 1) + 1, d[1] * (k[1] - 1) + 1}));
  g.out[1] = sh / s[0] + 1;
  g.out[2] = sw / s[1] + 1;
  return g;
}

void check_float(const char* op, const Tensor& t) {
  LUCID_CHECK(t->dtype() == Dtype::F32 || t->dtype() == Dtype::F64, NotImplemented,
              "[" << op << "] supports float32 and float64 tensors, got " << dtype_name(t->dtype()));
}

Tensor col2im_impl(const Tensor& cols, int64_t N, int64_t C, const ConvGeom& g);

// x (N, C, H, W) -> cols (N, C*kh*kw, L), contiguous
Tensor im2col_impl(const Tensor& x, const ConvGeom& g) {
  const int64_t N = x->shape()[0], C = x->shape()[1];
  Tensor cols = TensorImpl::empty({N, C * g.k_numel(), g.out_numel()}, x->dtype(), x->device());
  if (cols->numel()) vol2col_kernel(x->device())(*cols, *x, g);
  record("Im2ColBackward0", {&x}, {&cols}, {}, [N, C, g](Node&, std::vector<Tensor>& gr, std::vector<Tensor>&) {
    return std::vector<Tensor>{col2im_impl(gr[0], N, C, g)};
  });
  return cols;
}

Tensor col2im_impl(const Tensor& cols, int64_t N, int64_t C, const ConvGeom& g) {
  Tensor x = zeros({N, C, g.in[1], g.in[2]}, cols->dtype(), cols->device());
  if (cols->numel()) col2vol_kernel(cols->device())(*x, *cols, g);
  record("Col2ImBackward0", {&cols}, {&x}, {}, [g](Node&, std::vector<Tensor>& gr, std::vector<Tensor>&) {
    return std::vector<Tensor>{im2col_impl(gr[0], g)};
  });
  return x;
}

// Adds a leading batch dim to an unbatched input (rank `batched_rank - 1`); checks the rank.
std::pair<Tensor, bool> batched(const char* op, const Tensor& x, int64_t batched_rank) {
  LUCID_CHECK(x->dim() == batched_rank || x->dim() == batched_rank - 1, ShapeMismatch,
              "[" << op << "] expected a " << batched_rank - 1 << "-D (unbatched) or " << batched_rank
                  << "-D (batched) input, got shape " << shape_str(x->shape()));
  if (x->dim() == batched_rank) return {x, false};
  return {unsqueeze(x, 0), true};
}

}  // namespace

Tensor unfold2d(const Tensor& x_in, Pair kernel, Pair dilation, Pair padding, Pair stride) {
  check_float("unfold", x_in);
  auto [x, unb] = batched("unfold", x_in, 4);
  const ConvGeom g = window("unfold", x->shape()[2], x->shape()[3], kernel, dilation, padding, stride);
  Tensor cols = im2col_impl(x, g);
  return unb ? squeeze(cols, std::vector<int64_t>{0}) : cols;
}

Tensor fold2d(const Tensor& cols_in, Pair output_size, Pair kernel, Pair dilation, Pair padding, Pair stride) {
  check_float("fold", cols_in);
  auto [cols, unb] = batched("fold", cols_in, 3);
  const int64_t K = kernel[0] * kernel[1];
  LUCID_CHECK(K > 0 && cols->shape()[1] % K == 0, ShapeMismatch,
              "[fold] expected size of input's dimension 1 (" << cols->shape()[1]
                                                              << ") to be divisible by the product of kernel_size ("
                                                              << K << ")");
  const ConvGeom g = window("fold", output_size[0], output_size[1], kernel, dilation, padding, stride);
  LUCID_CHECK(cols->shape()[2] == g.out_numel(), ShapeMismatch,
              "[fold] given output_size " << pair_str(output_size) << ", kernel_size " << pair_str(kernel)
                  << ", dilation " << pair_str(dilation) << ", padding " << pair_str(padding) << ", stride "
                  << pair_str(stride) << ", expected size of input's dimension 2 to be " << g.out_numel()
                  << ", but got " << cols->shape()[2]);
  Tensor x = col2im_impl(cols, cols->shape()[0], cols->shape()[1] / K, g);
  return unb ? squeeze(x, std::vector<int64_t>{0}) : x;
}

}  // namespace lucid
