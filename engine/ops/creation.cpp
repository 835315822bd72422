#include "ops/creation.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "backend/kernels/elementwise.h"
#include "core/device_interface.h"
#include "ops/copy.h"
#include "ops/view.h"

namespace lucid {

namespace {
// Converts a double vector computed on the host into a tensor of `dtype` on `device`.
Tensor from_doubles(const std::vector<double>& v, const Shape& shape, Dtype dtype, Device device) {
  Tensor host = from_host(v.data(), shape, Dtype::F64, Device(DeviceType::CPU));
  return to(host, dtype, device);
}
}  // namespace

Tensor empty(const Shape& shape, Dtype dtype, Device device, bool pinned) {
  return TensorImpl::empty(shape, dtype, device, pinned);
}

Tensor full(const Shape& shape, const Scalar& value, Dtype dtype, Device device) {
  Tensor t = TensorImpl::empty(shape, dtype, device);
  if (t->numel()) fill_kernel(device)(*t, value);
  return t;
}

Tensor zeros(const Shape& shape, Dtype dtype, Device device) { return full(shape, Scalar::from_int(0), dtype, device); }
Tensor ones(const Shape& shape, Dtype dtype, Device device) { return full(shape, Scalar::from_int(1), dtype, device); }

Tensor from_host(const void* data, const Shape& shape, Dtype dtype, Device device) {
  Tensor t = TensorImpl::empty(shape, dtype, device);
  if (t->nbytes()) device_interface(device).copy(t->data_ptr(), device, data, Device(DeviceType::CPU), size_t(t->nbytes()));
  return t;
}

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, Dtype dtype, Device device) {
  const double s = start.to<double>(), e = end.to<double>(), st = step.to<double>();
  LUCID_CHECK(st != 0, Value, "[arange] step must be nonzero");
  LUCID_CHECK(std::isfinite(s) && std::isfinite(e), Value, "[arange] unsupported range: " << s << " -> " << e);
  LUCID_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), Value,
              "[arange] upper bound and larger bound inconsistent with step sign (start " << s << ", end " << e
                                                                                      << ", step " << st << ")");
  const bool ints = start.kind <= DtypeCategory::Integral && end.kind <= DtypeCategory::Integral &&
                    step.kind <= DtypeCategory::Integral;
  // Integer arguments: exact length in int64 (doubles lose it beyond 2^53).
  const int64_t n = ints ? (step.i > 0 ? (end.i - start.i + step.i - 1) / step.i : (start.i - end.i - step.i - 1) / -step.i)
                         : int64_t(std::ceil((e - s) / st));
  if (is_integral(dtype, false) && start.kind <= DtypeCategory::Integral && step.kind <= DtypeCategory::Integral) {
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[size_t(i)] = start.i + i * step.i;
    return to(from_host(v.data(), {n}, Dtype::I64, Device(DeviceType::CPU)), dtype, device);
  }
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = s + double(i) * st;
  return from_doubles(v, {n}, dtype, device);
}

Tensor linspace(double start, double end, int64_t steps, Dtype dtype, Device device) {
  LUCID_CHECK(steps >= 0, Value, "[linspace] number of steps must be non-negative, got " << steps);
  std::vector<double> v(static_cast<size_t>(steps));
  if (steps == 1) v[0] = start;
  const double step = steps > 1 ? (end - start) / double(steps - 1) : 0;
  // Symmetric fill as in PyTorch: the second half counts back from `end`.
  const int64_t half = steps / 2;
  for (int64_t i = 0; i < steps && steps > 1; ++i)
    v[size_t(i)] = i < half ? start + step * double(i) : end - step * double(steps - 1 - i);
  if (is_integral(dtype, true))
    for (auto& x : v) x = std::trunc(x);
  return from_doubles(v, {steps}, dtype, device);
}

Tensor logspace(double start, double end, int64_t steps, double base, Dtype dtype, Device device) {
  LUCID_CHECK(steps >= 0, Value, "[logspace] number of steps must be non-negative, got " << steps);
  std::vector<double> v(static_cast<size_t>(steps));
  const double step = steps > 1 ? (end - start) / double(steps - 1) : 0;
  const int64_t half = steps / 2;
  for (int64_t i = 0; i < steps; ++i) {
    const double e = steps == 1 ? start : (i < half ? start + step * double(i) : end - step * double(steps - 1 - i));
    v[size_t(i)] = std::pow(base, e);
  }
  return from_doubles(v, {steps}, dtype, device);
}

Tensor eye(int64_t n, int64_t m, Dtype dtype, Device device) {
  LUCID_CHECK(n >= 0 && m >= 0, Value, "[eye] n and m must be non-negative, got " << n << " and " << m);
  Tensor t = zeros({n, m}, dtype, device);
  Tensor d = diagonal(t, 0, 0, 1);
  if (d->numel()) fill_kernel(device)(*d, Scalar::from_int(1));
  return t;
}

}  // namespace lucid
