// softmax / log_softmax over one dim: a fused kernel forward; vjps in lucid ops, or one fused pass per row
// when no graph is recorded.
#include "autograd/grad_mode.h"
#include "backend/kernels/attention.h"
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

// The backward in one pass per row (backend/kernels/attention.h) when softmax ran over the last dim of
// a float32/float64 CPU tensor and no graph is being recorded; otherwise undefined (the lucid-ops vjp).
Tensor fused_backward(const Tensor& g, const Tensor& y, int64_t inner, int64_t D, bool log) {
  if (autograd::grad_enabled() || inner != 1 || D == 0 || y->device().type != DeviceType::CPU ||
      !(y->dtype() == Dtype::F32 || y->dtype() == Dtype::F64) || g->dtype() != y->dtype())
    return Tensor();
  Tensor gc = contiguous(g);
  Tensor dx = TensorImpl::empty(y->shape(), y->dtype(), y->device());
  softmax_backward_kernel(y->device())(*dx, *gc, *y, y->numel() / D, D, log);
  return dx;
}

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
           [dims, keep, inner, D](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
             if (Tensor dx = fused_backward(g[0], s[0], inner, D, true)) return std::vector<Tensor>{dx};
             Tensor sg = keep ? sum(g[0], dims, true) : g[0];
             return std::vector<Tensor>{sub(g[0], mul(unary(UnaryOp::Exp, s[0]), sg))};
           });
  } else {
    record("SoftmaxBackward0", {&xc}, {&y}, {SavedTensor(y, true)},
           [dims, keep, inner, D](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
             if (Tensor dx = fused_backward(g[0], s[0], inner, D, false)) return std::vector<Tensor>{dx};
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
