// Convolution as GEMM: im2col (F.unfold) and its adjoint col2im (F.fold) are engine ops with
// vjps of each other; conv2d composes im2col with one (grouped) matmul, so its gradients, and
// their gradients, come from the composition and every GEMM is one large BLAS call.
#include <sstream>

#include "backend/kernels/nn.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/matmul.h"
#include "ops/nn.h"
#include "ops/shape.h"
#include "ops/view.h"

namespace lucid {

namespace {

std::string pair_str(Pair p) {
  std::ostringstream s;
  s << "(" << p[0] << ", " << p[1] << ")";
  return s.str();
}

Window2d window(const char* op, int64_t H, int64_t W, Pair k, Pair d, Pair p, Pair s) {
  LUCID_CHECK(k[0] > 0 && k[1] > 0, Value, "[" << op << "] kernel_size must be positive, got " << pair_str(k));
  LUCID_CHECK(s[0] > 0 && s[1] > 0, Value, "[" << op << "] stride must be positive, got " << pair_str(s));
  LUCID_CHECK(d[0] > 0 && d[1] > 0, Value, "[" << op << "] dilation must be positive, got " << pair_str(d));
  LUCID_CHECK(p[0] >= 0 && p[1] >= 0, Value, "[" << op << "] padding must be non-negative, got " << pair_str(p));
  Window2d w{k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1], 0, 0};
  w.oh = (H + 2 * p[0] - d[0] * (k[0] - 1) - 1) / s[0] + 1;
  w.ow = (W + 2 * p[1] - d[1] * (k[1] - 1) - 1) / s[1] + 1;
  LUCID_CHECK(H + 2 * p[0] - d[0] * (k[0] - 1) - 1 >= 0 && W + 2 * p[1] - d[1] * (k[1] - 1) - 1 >= 0 && w.oh > 0 &&
                  w.ow > 0,
              ShapeMismatch,
              "[" << op << "] input of spatial size (" << H << ", " << W << ") with padding " << pair_str(p)
                  << " is smaller than the dilated kernel " << pair_str(Pair{d[0] * (k[0] - 1) + 1, d[1] * (k[1] - 1) + 1}));
  return w;
}

void check_float(const char* op, const Tensor& t) {
  LUCID_CHECK(t->dtype() == Dtype::F32 || t->dtype() == Dtype::F64, NotImplemented,
              "[" << op << "] supports float32 and float64 tensors, got " << dtype_name(t->dtype()));
}

Tensor col2im_impl(const Tensor& cols, int64_t N, int64_t C, int64_t H, int64_t W, const Window2d& w);

// cols (N, C*kh*kw, L). knl_layout: memory ordered (C*kh*kw, N, L), so that a convolution's GEMM
// over the whole batch is one call (the tensor is then a permuted view, not contiguous).
Tensor im2col_impl(const Tensor& x, const Window2d& w, bool knl_layout) {
  const int64_t N = x->shape()[0], C = x->shape()[1], H = x->shape()[2], W = x->shape()[3];
  const int64_t CK = C * w.kh * w.kw, L = w.oh * w.ow;
  Tensor cols = knl_layout ? permute(TensorImpl::empty({CK, N, L}, x->dtype(), x->device()), {1, 0, 2})
                           : TensorImpl::empty({N, CK, L}, x->dtype(), x->device());
  if (cols->numel()) im2col_kernel(x->device())(*cols, *x, w);
  record("Im2ColBackward0", {&x}, {&cols}, {}, [N, C, H, W, w](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{col2im_impl(g[0], N, C, H, W, w)};
  });
  return cols;
}

Tensor col2im_impl(const Tensor& cols, int64_t N, int64_t C, int64_t H, int64_t W, const Window2d& w) {
  Tensor x = zeros({N, C, H, W}, cols->dtype(), cols->device());
  if (cols->numel()) col2im_kernel(cols->device())(*x, *cols, w);
  record("Col2ImBackward0", {&cols}, {&x}, {}, [w](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{im2col_impl(g[0], w, false)};
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
  const Window2d w = window("unfold", x->shape()[2], x->shape()[3], kernel, dilation, padding, stride);
  Tensor cols = im2col_impl(x, w, false);
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
  const Window2d w = window("fold", output_size[0], output_size[1], kernel, dilation, padding, stride);
  LUCID_CHECK(cols->shape()[2] == w.oh * w.ow, ShapeMismatch,
              "[fold] given output_size " << pair_str(output_size) << ", kernel_size " << pair_str(kernel)
                                          << ", dilation " << pair_str(dilation) << ", padding " << pair_str(padding)
                                          << ", stride " << pair_str(stride) << ", expected size of input's dimension 2 to be "
                                          << w.oh * w.ow << ", but got " << cols->shape()[2]);
  Tensor x = col2im_impl(cols, cols->shape()[0], cols->shape()[1] / K, output_size[0], output_size[1], w);
  return unb ? squeeze(x, std::vector<int64_t>{0}) : x;
}

Tensor conv2d(const Tensor& x_in, const Tensor& weight, const std::optional<Tensor>& bias, Pair stride, Pair padding,
              Pair dilation, int64_t groups) {
  LUCID_CHECK(x_in->device() == weight->device() && (!bias || (*bias)->device() == x_in->device()), DeviceMismatch,
              "[conv2d] input, weight and bias must be on one device, got " << x_in->device() << " and "
                                                                             << weight->device());
  LUCID_CHECK(x_in->dtype() == weight->dtype() && (!bias || (*bias)->dtype() == x_in->dtype()), DtypeMismatch,
              "[conv2d] input (" << dtype_name(x_in->dtype()) << "), weight (" << dtype_name(weight->dtype())
                                 << ")" << (bias ? std::string(" and bias (") + dtype_name((*bias)->dtype()) + ")" : "")
                                 << " must have the same dtype");
  check_float("conv2d", x_in);
  auto [x, unb] = batched("conv2d", x_in, 4);
  LUCID_CHECK(weight->dim() == 4, ShapeMismatch,
              "[conv2d] expected a 4-D weight (out_channels, in_channels/groups, kH, kW), got shape "
                  << shape_str(weight->shape()));
  LUCID_CHECK(groups > 0, Value, "[conv2d] groups must be positive, got " << groups);
  const int64_t N = x->shape()[0], C = x->shape()[1], OC = weight->shape()[0], Cg = weight->shape()[1];
  LUCID_CHECK(OC % groups == 0, ShapeMismatch,
              "[conv2d] out_channels (" << OC << ") must be divisible by groups (" << groups << ")");
  LUCID_CHECK(C == Cg * groups, ShapeMismatch,
              "[conv2d] input of shape " << shape_str(x_in->shape()) << " has " << C << " channels, but weight of shape "
                                         << shape_str(weight->shape()) << " with groups=" << groups << " expects "
                                         << Cg * groups);
  if (bias)
    LUCID_CHECK((*bias)->dim() == 1 && (*bias)->shape()[0] == OC, ShapeMismatch,
                "[conv2d] expected a bias of shape (" << OC << "), got " << shape_str((*bias)->shape()));
  const int64_t kh = weight->shape()[2], kw = weight->shape()[3];
  const Window2d w = window("conv2d", x->shape()[2], x->shape()[3], {kh, kw}, dilation, padding, stride);
  const int64_t L = w.oh * w.ow, CKg = Cg * kh * kw;
  // one (grouped) GEMM over the whole batch; empty batches and channels go through it too
  Tensor cols = im2col_impl(x, w, true);                                  // (N, CK, L), memory (CK, N, L)
  Tensor colsg = reshape(permute(cols, {1, 0, 2}), {groups, CKg, N * L});  // a view
  Tensor wg = reshape(weight, {groups, OC / groups, CKg});
  Tensor yg = matmul(wg, colsg);                                           // (groups, OC/groups, N*L)
  Tensor y = permute(reshape(yg, {OC, N, w.oh, w.ow}), {1, 0, 2, 3});
  if (bias) y = add(y, reshape(*bias, {1, OC, 1, 1}));
  else y = contiguous(y);
  return unb ? squeeze(y, std::vector<int64_t>{0}) : y;
}

Tensor conv2d_padding_mode(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias, Pair stride,
                           const std::string& padding, Pair dilation, int64_t groups) {
  if (padding == "valid") return conv2d(x, weight, bias, stride, {0, 0}, dilation, groups);
  LUCID_CHECK(padding == "same", Value, "[conv2d] padding must be 'same', 'valid' or numbers, got '" << padding << "'");
  LUCID_CHECK(stride[0] == 1 && stride[1] == 1, Value, "[conv2d] padding='same' is not supported for strided convolutions");
  LUCID_CHECK(weight->dim() == 4, ShapeMismatch,
              "[conv2d] expected a 4-D weight, got shape " << shape_str(weight->shape()));
  // total padding d*(k-1) per dim; an odd total puts the extra row/column at the end (as PyTorch)
  Pair lo{}, extra{};
  for (int i = 0; i < 2; ++i) {
    const int64_t total = dilation[size_t(i)] * (weight->shape()[size_t(2 + i)] - 1);
    lo[size_t(i)] = total / 2;
    extra[size_t(i)] = total - 2 * (total / 2);
  }
  // an odd total puts the extra row/column at the end: pad it explicitly first
  Tensor xi = (extra[0] || extra[1]) ? pad(x, {0, extra[1], 0, extra[0]}, "constant") : x;
  return conv2d(xi, weight, bias, stride, lo, dilation, groups);
}

}  // namespace lucid
