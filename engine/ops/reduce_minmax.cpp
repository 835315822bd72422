// max/min, amax/amin, argmax/argmin, aminmax.
#include <algorithm>

#include "backend/kernels/reduce_all.h"
#include "ops/graph.h"
#include "ops/reduce.h"
#include "ops/reduce_impl.h"
#include "ops/view.h"

namespace lucid {

using namespace detail;

namespace {

void check_real(const Tensor& t, const char* op) {
  LUCID_CHECK(!is_complex(t->dtype()), NotImplemented, "[" << op << "] not implemented for complex tensors");
}

// max/min/argmax have no identity: an empty reduction is an error (PyTorch's messages).
void check_nonempty(const Tensor& t, const std::vector<int64_t>& rd, bool dim_given, const char* op) {
  if (!dim_given) {
    LUCID_CHECK(t->numel() != 0, Index,
                "[" << op << "] " << op << "(): Expected reduction dim to be specified for input.numel() == 0. "
                    << "Specify the reduction dim with the 'dim' argument.");
    return;
  }
  for (auto d : rd)
    LUCID_CHECK(t->shape()[size_t(d)] != 0, Index,
                "[" << op << "] " << op << "(): Expected reduction dim " << d << " to have non-zero size.");
}

Tensor extreme_all(const Tensor& t, const std::vector<int64_t>& dims, bool keepdim, bool is_max, const char* op) {
  check_real(t, op);
  const auto rd = reduction_dims(t, dims, op);
  check_nonempty(t, rd, !dims.empty(), op);
  Tensor out = run_reduce(is_max ? ReduceOp::Max : ReduceOp::Min, t, rd, keepdim, t->dtype(), false).first;
  record_amax(t, out, rd, keepdim);
  return out;
}

std::pair<Tensor, Tensor> extreme_dim(const Tensor& t, int64_t dim, bool keepdim, bool is_max, const char* op) {
  check_real(t, op);
  const auto rd = reduction_dims(t, std::vector<int64_t>{dim}, op);
  check_nonempty(t, rd, true, op);
  auto [v, i] = run_reduce(is_max ? ReduceOp::Max : ReduceOp::Min, t, rd, keepdim, t->dtype(), true);
  record_max_dim(t, v, i, rd.empty() ? 0 : rd[0], keepdim);
  return {v, i};
}

Tensor arg_extreme(const Tensor& t, std::optional<int64_t> dim, bool keepdim, bool is_max, const char* op) {
  check_real(t, op);
  LUCID_CHECK(t->dtype() != Dtype::Bool, NotImplemented, "[" << op << "] " << op << "(): does not support bool input");
  const ReduceOp rop = is_max ? ReduceOp::ArgMax : ReduceOp::ArgMin;
  if (!dim) {
    check_nonempty(t, {}, false, op);
    Tensor flat = t->dim() <= 1 ? t : reshape(t, {t->numel()});
    Tensor out = run_reduce(rop, flat, reduction_dims(flat, std::nullopt, op), false, Dtype::I64, false).first;
    if (keepdim) out = reshape(out, Shape(size_t(t->dim()), 1));
    return out;
  }
  const auto rd = reduction_dims(t, std::vector<int64_t>{*dim}, op);
  check_nonempty(t, rd, true, op);
  return run_reduce(rop, t, rd, keepdim, Dtype::I64, false).first;
}

}  // namespace

Tensor amax(const Tensor& t, const std::vector<int64_t>& dims, bool keepdim) { return extreme_all(t, dims, keepdim, true, "amax"); }
Tensor amin(const Tensor& t, const std::vector<int64_t>& dims, bool keepdim) { return extreme_all(t, dims, keepdim, false, "amin"); }
Tensor max(const Tensor& t) { return extreme_all(t, {}, false, true, "max"); }
Tensor min(const Tensor& t) { return extreme_all(t, {}, false, false, "min"); }
std::pair<Tensor, Tensor> max(const Tensor& t, int64_t dim, bool keepdim) { return extreme_dim(t, dim, keepdim, true, "max"); }
std::pair<Tensor, Tensor> min(const Tensor& t, int64_t dim, bool keepdim) { return extreme_dim(t, dim, keepdim, false, "min"); }
Tensor argmax(const Tensor& t, std::optional<int64_t> dim, bool keepdim) { return arg_extreme(t, dim, keepdim, true, "argmax"); }
Tensor argmin(const Tensor& t, std::optional<int64_t> dim, bool keepdim) { return arg_extreme(t, dim, keepdim, false, "argmin"); }

std::pair<Tensor, Tensor> aminmax(const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
  check_real(t, "aminmax");
  if (!dim) {
    LUCID_CHECK(t->numel() != 0, Generic,
                "[aminmax] aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
    Tensor mn, mx;
    if (minmax_all_kernel.fns[int(t->device().type)]) {
      mn = TensorImpl::empty({}, t->dtype(), t->device());
      mx = TensorImpl::empty({}, t->dtype(), t->device());
      if (minmax_all_kernel(t->device())(*t, *mn, *mx)) {
        const auto all = reduction_dims(t, std::vector<int64_t>{}, "aminmax");
        record_amax(t, mn, all, false);
        record_amax(t, mx, all, false);
      } else {
        mn = mx = nullptr;
      }
    }
    if (!mn) mn = amin(t, {}, false), mx = amax(t, {}, false);
    if (keepdim) {
      const Shape ones(size_t(t->dim()), 1);
      mn = reshape(mn, ones);
      mx = reshape(mx, ones);
    }
    return {mn, mx};
  }
  const auto rd = reduction_dims(t, std::vector<int64_t>{*dim}, "aminmax");
  check_nonempty(t, rd, true, "aminmax");
  return {amin(t, {*dim}, keepdim), amax(t, {*dim}, keepdim)};
}

}  // namespace lucid
