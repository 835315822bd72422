// softmax / log_softmax over one dim: a fused kernel forward, vjps in lucid ops.
#include "backend/kernels/elementwise.h"
#include "backend/kernels/nn.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/graph.h"
#include "ops/nn.h"
#include "ops/reduce.h"
#include "ops/unary.h"

namespace lucid {

namespace {

Tensor softmax_impl(const Tensor& x_in, int64_t dim_in, std::optional<Dtype> dtype, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  Tensor x = dtype ? cast(x_in, *dtype) : x_in;
  LUCID_CHECK(is_floating(x->dtype()), NotImplemented,
              "[" << op << "] expected a floating-point input, got " << dtype_name(x->dtype()));
  const int64_t dim = wrap_dim(dim_in, std::max<int64_t>(x->dim(), 1), op);
  // float16/bfloat16 compute in float32 (the casts are recorded like any op)
  const Dtype out_dt = x->dtype();
  Tensor xc = (out_dt == Dtype::F16 || out_dt == Dtype::BF16) ? cast(x, Dtype::F32) : x;
  xc = contiguous(xc);
  int64_t outer = 1, inner = 1, D = x->dim() ? x->shape()[size_t(dim)] : 1;
  for (int64_t i = 0; i < dim; ++i) outer *= x->shape()[size_t(i)];
  for (int64_t i = dim + 1; i < x->dim(); ++i) inner *= x->shape()[size_t(i)];
  Tensor y = TensorImpl::empty(xc->shape(), xc->dtype(), xc->device());
  if (y->numel()) softmax_kernel(xc->device())(*y, *xc, outer, D, inner, log);
  const std::vector<int64_t> dims{x->dim() ? dim : 0};
  const bool keep = x->dim() > 0;
  if (log) {
    record("LogSoftmaxBackward0", {&xc}, {&y}, {SavedTensor(y, true)},
           [dims, keep](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
             Tensor sg = keep ? sum(g[0], dims, true) : g[0];
             return std::vector<Tensor>{sub(g[0], mul(unary(UnaryOp::Exp, s[0]), sg))};
           });
  } else {
    record("SoftmaxBackward0", {&xc}, {&y}, {SavedTensor(y, true)},
           [dims, keep](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
             Tensor gy = mul(g[0], s[0]);
             Tensor sg = keep ? sum(gy, dims, true) : gy;
             return std::vector<Tensor>{sub(gy, mul(s[0], sg))};
           });
  }
  return y->dtype() == out_dt ? y : cast(y, out_dt);
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim, std::optional<Dtype> dtype) { return softmax_impl(x, dim, dtype, false); }
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<Dtype> dtype) { return softmax_impl(x, dim, dtype, true); }

}  // namespace lucid
