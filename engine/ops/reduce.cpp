#include "ops/reduce.h"

#include <algorithm>
#include <cmath>

#include "backend/kernels/reduce.h"
#include "backend/kernels/reduce_all.h"
#include "ops/binary.h"
#include "ops/compare.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/reduce_impl.h"
#include "ops/shape.h"
#include "ops/unary.h"
#include "ops/view.h"

namespace lucid {

std::vector<int64_t> reduction_dims(const Tensor& t, const Dims& dims, const char* op) {
  std::vector<int64_t> out;
  if (!dims || dims->empty()) {
    for (int64_t i = 0; i < t->dim(); ++i) out.push_back(i);
    return out;
  }
  for (auto d : *dims) {
    const int64_t w = wrap_dim(d, t->dim(), op);
    LUCID_CHECK(std::find(out.begin(), out.end(), w) == out.end(), Value,
                "[" << op << "] dim " << w << " appears multiple times in the list of dims");
    out.push_back(w);
  }
  if (t->dim() == 0) out.clear();
  std::sort(out.begin(), out.end());
  return out;
}

namespace detail {

ReduceLayout reduce_layout(const Tensor& t, const std::vector<int64_t>& rd) {
  ReduceLayout L;
  for (int64_t i = 0; i < t->dim(); ++i) {
    const bool red = std::binary_search(rd.begin(), rd.end(), i);
    const int64_t sz = t->shape()[size_t(i)];
    if (!red) { L.perm.push_back(i); L.out_shape.push_back(sz); }
    else L.count *= sz;
    L.keep_shape.push_back(red ? 1 : sz);
  }
  for (auto d : rd) L.perm.push_back(d);
  return L;
}

std::pair<Tensor, Tensor> run_reduce(ReduceOp op, const Tensor& in, const std::vector<int64_t>& rd, bool keepdim,
                                     Dtype out_dt, bool with_indices) {
  const ReduceLayout L = reduce_layout(in, rd);
  // A permuted view of the data (no autograd: the op records its own node).
  Shape ps;
  Strides pst;
  for (auto d : L.perm) { ps.push_back(in->shape()[size_t(d)]); pst.push_back(in->strides()[size_t(d)]); }
  Tensor p = in->as_view(ps, pst, in->storage_offset());
  Tensor out = TensorImpl::empty(L.out_shape, out_dt, in->device());
  Tensor idx = with_indices ? TensorImpl::empty(L.out_shape, Dtype::I64, in->device()) : nullptr;
  reduce_kernel(in->device())(op, *out, idx.get(), *p, int(rd.size()));
  if (keepdim) {
    out = keep_view(out, L.keep_shape);
    if (idx) idx = keep_view(idx, L.keep_shape);
  }
  return {out, idx};
}

Tensor keep_view(const Tensor& out, const Shape& keep_shape) {
  return out->as_view(keep_shape, contiguous_strides(keep_shape), out->storage_offset());
}

Tensor sum_grad_to(const Tensor& g, const Shape& keep_shape, const Shape& in_shape) {
  return expand(reshape(g, keep_shape), in_shape);
}

}  // namespace detail

using namespace detail;

namespace {

// sum (div 1, SumBackward0) or mean in one pass (div the count, MeanBackward0: the kernel divides as it
// stores) of t's dims rd, into a new tensor of dtype out_dt.
Tensor sum_div(const Tensor& in, const std::vector<int64_t>& rd, bool keepdim, Dtype out_dt, double div,
               const char* node) {
  // Move the reduced dims last.
  std::vector<int64_t> perm;
  Shape out_shape, keep_shape;
  for (int64_t i = 0; i < in->dim(); ++i) {
    const bool red = std::binary_search(rd.begin(), rd.end(), i);
    if (!red) { perm.push_back(i); out_shape.push_back(in->shape()[size_t(i)]); }
    keep_shape.push_back(red ? 1 : in->shape()[size_t(i)]);
  }
  for (auto d : rd) perm.push_back(d);
  Tensor p = permute(in, perm);
  Tensor out = TensorImpl::empty(out_shape, out_dt, in->device());
  sum_kernel(in->device())(*out, *p, int(rd.size()), div);
  Tensor result = keepdim ? out->as_view(keep_shape, contiguous_strides(keep_shape), 0) : out;
  const Shape in_shape = in->shape();
  record(node, {&in}, {&result}, {}, [keep_shape, in_shape, div](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    Tensor gi = expand(reshape(g[0], keep_shape), in_shape);
    return std::vector<Tensor>{div == 1.0 ? gi : lucid::div(gi, Scalar::from_double(div))};
  });
  return result;
}

}  // namespace

Tensor sum(const Tensor& t, const Dims& dims, bool keepdim, std::optional<Dtype> dtype) {
  const auto rd = reduction_dims(t, dims, "sum");
  const Dtype out_dt = dtype ? *dtype : (is_integral(t->dtype(), true) ? Dtype::I64 : t->dtype());
  Tensor in = t;
  if (dtype && *dtype != t->dtype()) in = cast(t, *dtype);
  return sum_div(in, rd, keepdim, out_dt, 1.0, "SumBackward0");
}

namespace {

bool is_float_or_complex(Dtype d) { return is_floating(d) || is_complex(d); }
Dtype wide_float(Dtype d) { return d == Dtype::F16 || d == Dtype::BF16 ? Dtype::F32 : d; }

}  // namespace

Tensor mean(const Tensor& t, const Dims& dims, bool keepdim, std::optional<Dtype> dtype) {
  const Dtype dt = dtype ? *dtype : t->dtype();
  LUCID_CHECK(is_float_or_complex(dt), DtypeMismatch,
              "[mean] could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: "
                  << dtype_name(dt));
  const auto rd = reduction_dims(t, dims, "mean");
  const int64_t n = reduce_layout(t, rd).count;
  // One pass: the sum kernel accumulates wide (double) and divides by n as it stores, rounding once
  // (n = 0: 0 / 0, NaN, as PyTorch).
  if (dt == t->dtype() && is_floating(dt)) return sum_div(t, rd, keepdim, dt, double(n), "MeanBackward0");
  const Dtype acc = wide_float(dt);
  Tensor s = sum(t, rd, keepdim, acc);  // sums accumulate in double; half types round once, at the end
  Tensor r = div(s, Scalar::from_int(n));
  return acc == dt ? r : cast(r, dt);
}

Tensor nansum(const Tensor& t, const Dims& dims, bool keepdim, std::optional<Dtype> dtype) {
  if (is_integral(dtype ? *dtype : t->dtype(), true)) return sum(t, dims, keepdim, dtype);
  LUCID_CHECK(!is_complex(t->dtype()) && !(dtype && is_complex(*dtype)), NotImplemented,
              "[nansum] complex inputs are not supported");
  const auto rd = reduction_dims(t, dims, "nansum");
  Tensor in = dtype && *dtype != t->dtype() ? cast(t, *dtype) : t;
  Tensor out = run_reduce(ReduceOp::NanSum, in, rd, keepdim, in->dtype(), false).first;
  if (should_record({&in})) record_nansum(in, out, rd);
  return out;
}

Tensor nanmean(const Tensor& t, const Dims& dims, bool keepdim, std::optional<Dtype> dtype) {
  const Dtype dt = dtype ? *dtype : t->dtype();
  LUCID_CHECK(is_float_or_complex(dt), DtypeMismatch,
              "[nanmean] expected input to have floating point or complex dtype but got " << dtype_name(dt));
  const auto rd = reduction_dims(t, dims, "nanmean");
  Tensor in = dt != t->dtype() ? cast(t, dt) : t;
  Tensor cnt = run_reduce(ReduceOp::CountNotNan, in, rd, keepdim, Dtype::I64, false).first;
  const Dtype acc = wide_float(dt);
  Tensor s = nansum(in, rd, keepdim, acc == dt ? std::nullopt : std::optional<Dtype>(acc));
  Tensor r = div(s, cast(cnt, acc));
  return acc == dt ? r : cast(r, dt);
}

Tensor prod(const Tensor& t, std::optional<int64_t> dim, bool keepdim, std::optional<Dtype> dtype) {
  const Dtype out_dt = dtype ? *dtype : (is_integral(t->dtype(), true) ? Dtype::I64 : t->dtype());
  Tensor in = out_dt != t->dtype() ? cast(t, out_dt) : t;
  std::vector<int64_t> rd;
  if (dim) rd = reduction_dims(in, std::vector<int64_t>{*dim}, "prod");
  else rd = reduction_dims(in, std::nullopt, "prod");
  Tensor out = run_reduce(ReduceOp::Prod, in, rd, keepdim, out_dt, false).first;
  if (should_record({&in})) record_prod(in, out, dim ? std::optional<int64_t>(rd.empty() ? 0 : rd[0]) : std::nullopt, keepdim);
  return out;
}

// ---- var / std: two passes (mean, then the sum of squared deviations), in float32 for half types

namespace {

std::pair<Tensor, Tensor> var_mean_impl(const Tensor& t, const Dims& dims, double correction, bool keepdim,
                                        const char* op) {
  LUCID_CHECK(is_float_or_complex(t->dtype()), DtypeMismatch,
              "[" << op << "] std and var only support floating point and complex dtypes (got " << dtype_name(t->dtype())
                  << ")");
  const auto rd = reduction_dims(t, dims, op);
  const int64_t n = reduce_layout(t, rd).count;
  const Dtype dt = t->dtype();
  const Dtype acc = wide_float(dt);
  Tensor x = acc == dt ? t : cast(t, acc);
  Tensor m = mean(x, rd, true);
  // The whole of a float32 tensor, no gradient wanted: the squared deviations summed in one pass
  // (the kernel's float lanes and double totals, as the composite's sum below) without temporaries.
  if (dt == Dtype::F32 && n > 0 && int64_t(rd.size()) == t->dim() && !should_record({&t}) &&
      sqdev_all_kernel.fns[int(t->device().type)] && t->device().is_cpu()) {
    double ss = 0.0;
    if (sqdev_all_kernel(t->device())(*t, double(*static_cast<const float*>(m->data_ptr())), &ss)) {
      const double v = ss / std::max(0.0, double(n) - correction);
      const auto& lay = reduce_layout(t, rd);
      return {full(keepdim ? lay.keep_shape : lay.out_shape, Scalar::from_double(v), dt, t->device()),
              keepdim ? m : reshape(m, lay.out_shape)};
    }
  }
  Tensor d = sub(x, m);
  Tensor ss;
  if (is_complex(dt)) {
    Tensor rv = view_as_real(d);  // |d|^2 = re^2 + im^2
    std::vector<int64_t> rd2 = rd;
    rd2.push_back(rv->dim() - 1);
    ss = sum(mul(rv, rv), rd2, false);
    if (keepdim) ss = reshape(ss, reduce_layout(t, rd).keep_shape);
  } else {
    ss = sum(mul(d, d), rd, keepdim);
  }
  Tensor v = div(ss, Scalar::from_double(std::max(0.0, double(n) - correction)));
  Tensor mo = keepdim ? m : reshape(m, reduce_layout(t, rd).out_shape);
  if (acc != dt) { v = cast(v, dt); mo = cast(mo, dt); }
  return {v, mo};
}

}  // namespace

Tensor var(const Tensor& t, const Dims& dims, double correction, bool keepdim) {
  return var_mean_impl(t, dims, correction, keepdim, "var").first;
}
Tensor std_dev(const Tensor& t, const Dims& dims, double correction, bool keepdim) {
  return unary(UnaryOp::Sqrt, var_mean_impl(t, dims, correction, keepdim, "std").first);
}
std::pair<Tensor, Tensor> var_mean(const Tensor& t, const Dims& dims, double correction, bool keepdim) {
  return var_mean_impl(t, dims, correction, keepdim, "var_mean");
}
std::pair<Tensor, Tensor> std_mean(const Tensor& t, const Dims& dims, double correction, bool keepdim) {
  auto [v, m] = var_mean_impl(t, dims, correction, keepdim, "std_mean");
  return {unary(UnaryOp::Sqrt, v), m};
}

Tensor logsumexp(const Tensor& t, const Dims& dims, bool keepdim) {
  Tensor in = is_integral(t->dtype(), true) ? cast(t, default_dtype()) : t;
  const auto rd = reduction_dims(in, dims, "logsumexp");
  const bool cplx = is_complex(in->dtype());
  // Reductions that leave the innermost dim (columns): PyTorch's composition of vectorised passes
  // beats the element-wise online kernel, which is built for contiguous rows.
  const bool columns = in->device().is_cpu() && (in->dtype() == Dtype::F32 || in->dtype() == Dtype::F64) &&
                       in->numel() > 0 && !rd.empty() && !std::binary_search(rd.begin(), rd.end(), in->dim() - 1);
  Tensor out;
  if (cplx || columns) {  // PyTorch's: shift by the max real part (0 where infinite), log(sum(exp(z - m))) + m
    autograd::GradModeGuard no_grad(false);
    if (in->numel() == 0) {
      out = unary(UnaryOp::Log, sum(unary(UnaryOp::Exp, in), rd, keepdim));
    } else {
      Tensor m = amax(cplx ? real(in) : in, rd, true);
      m = where(isinf(m), Scalar::from_int(0), m);
      Tensor s = sum(unary(UnaryOp::Exp, sub(in, m)), rd, keepdim);
      out = add(unary(UnaryOp::Log, s), keepdim ? m : reshape(m, reduce_layout(in, rd).out_shape));
    }
  } else {
    out = run_reduce(ReduceOp::LogSumExp, in, rd, keepdim, in->dtype(), false).first;
  }
  if (should_record({&in})) {
    const ReduceLayout L = reduce_layout(in, rd);
    const Shape in_shape = in->shape(), keep = L.keep_shape;
    // d/dx logsumexp = exp(x - result): bounded by 1, stable
    record("LogsumexpBackward0", {&in}, {&out}, {SavedTensor(in, false), SavedTensor(out, true)},
           [in_shape, keep](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
             Tensor r = sum_grad_to(s[1], keep, in_shape);
             return std::vector<Tensor>{mul(sum_grad_to(g[0], keep, in_shape), conj(unary(UnaryOp::Exp, sub(s[0], r))))};
           });
  }
  return out;
}

// ---- any / all / count_nonzero

Tensor any(const Tensor& t, const Dims& dims, bool keepdim) {
  const auto rd = reduction_dims(t, dims, "any");
  return run_reduce(ReduceOp::Any, t, rd, keepdim, t->dtype() == Dtype::U8 ? Dtype::U8 : Dtype::Bool, false).first;
}

Tensor all(const Tensor& t, const Dims& dims, bool keepdim) {
  const auto rd = reduction_dims(t, dims, "all");
  return run_reduce(ReduceOp::All, t, rd, keepdim, t->dtype() == Dtype::U8 ? Dtype::U8 : Dtype::Bool, false).first;
}

Tensor count_nonzero(const Tensor& t, const Dims& dims) {
  const auto rd = reduction_dims(t, dims, "count_nonzero");
  return run_reduce(ReduceOp::CountNonzero, t, rd, false, Dtype::I64, false).first;
}

// ---- trace / diff: composites (autograd from the composition)

Tensor trace(const Tensor& t) {
  LUCID_CHECK(t->dim() == 2, ShapeMismatch, "[trace] expected a matrix, but got tensor with dim " << t->dim());
  LUCID_CHECK(t->dtype() != Dtype::Bool, NotImplemented, "[trace] not implemented for bool tensors");
  // The diagonal as a raw strided view summed by the reduction kernel: no view node, one
  // TraceBackward0 node (the gradient: g on the diagonal).
  const Shape shape = t->shape();
  const int64_t n = std::min(shape[0], shape[1]);
  const Tensor d = t->as_view({n}, {t->strides()[0] + t->strides()[1]}, t->storage_offset());
  Tensor out = TensorImpl::empty({}, is_integral(t->dtype(), true) ? Dtype::I64 : t->dtype(), t->device());
  sum_kernel(t->device())(*out, *d, 1, 1.0);
  record("TraceBackward0", {&t}, {&out}, {}, [shape](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{mul(eye(shape[0], shape[1], g[0]->dtype(), g[0]->device()), g[0])};
  });
  return out;
}

Tensor diff(const Tensor& t, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  LUCID_CHECK(t->dim() >= 1, ShapeMismatch, "[diff] expects input to be at least one-dimensional");
  LUCID_CHECK(n >= 0, Value, "[diff] order must be non-negative but got " << n);
  const int64_t d = wrap_dim(dim, t->dim(), "diff");
  for (const auto* o : {&prepend, &append})
    LUCID_CHECK(!*o || (**o)->dim() == t->dim(), ShapeMismatch,
                "[diff] diff expects prepend or append to be the same dimension as input (input has " << t->dim()
                    << " dims, got " << (**o)->dim() << ")");
  Tensor x = t;
  if (prepend || append) {
    std::vector<Tensor> parts;
    if (prepend) parts.push_back(*prepend);
    parts.push_back(t);
    if (append) parts.push_back(*append);
    x = cat(parts, d);
  }
  const Tensor x0 = x;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t L = x->shape()[size_t(d)];
    if (L == 0) return clone(x);
    Tensor hi = narrow(x, d, 1, L - 1), lo = narrow(x, d, 0, L - 1);
    x = x->dtype() == Dtype::Bool ? logical_xor(hi, lo) : sub(hi, lo);  // as PyTorch
  }
  return n == 0 ? (x0 == t ? clone(t) : x0) : x;
}

}  // namespace lucid
