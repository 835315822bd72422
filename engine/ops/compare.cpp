#include "ops/compare.h"

#include <cmath>

#include "ops/copy.h"
#include "ops/graph.h"
#include "ops/host.h"
#include "ops/view.h"

namespace lucid {

using binary_detail::materialize;
using binary_detail::pick_device;
using binary_detail::shape_of;

const char* compare_name(CompareOp op) {
  static const char* names[] = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"};
  return names[int(op)];
}

Tensor compare(CompareOp op, const Operand& a, const Operand& b) {
  const char* name = compare_name(op);
  LUCID_CHECK(std::holds_alternative<Tensor>(a) || std::holds_alternative<Tensor>(b), Type,
              "[" << name << "] expected at least one tensor operand");
  const Device dev = pick_device(a, b, name);
  const Dtype dt = result_type(a, b);
  const bool ordering = op == CompareOp::Lt || op == CompareOp::Le || op == CompareOp::Gt || op == CompareOp::Ge;
  LUCID_CHECK(!ordering || !is_complex(dt), NotImplemented,
              "[" << name << "] is not implemented for complex tensors (got " << dtype_name(dt) << ")");
  const Shape shape = broadcast_shapes(shape_of(a), shape_of(b), name);
  Tensor out = TensorImpl::empty(shape, Dtype::Bool, dev);
  if (out->numel() == 0) return out;
  Tensor ta = materialize(a, dt, dev, shape);
  Tensor tb = materialize(b, dt, dev, shape);
  compare_kernel(dev)(op, *out, *ta, *tb);
  return out;
}

Tensor where(const Tensor& cond, const Operand& a, const Operand& b) {
  LUCID_CHECK(cond->dtype() == Dtype::Bool, DtypeMismatch,
              "[where] expected condition to be a boolean tensor, but got a tensor with dtype "
                  << dtype_name(cond->dtype()));
  const bool any_tensor = std::holds_alternative<Tensor>(a) || std::holds_alternative<Tensor>(b);
  const Device dev = any_tensor ? pick_device(a, b, "where") : cond->device();
  LUCID_CHECK(cond->device() == dev || (cond->dim() == 0 && cond->device().is_cpu()), DeviceMismatch,
              "[where] expected the condition and the values on the same device, but found " << cond->device()
                                                                                            << " and " << dev);
  const Dtype dt = result_type(a, b);
  const Shape shape = broadcast_shapes(cond->shape(), broadcast_shapes(shape_of(a), shape_of(b), "where"), "where");
  Tensor out = TensorImpl::empty(shape, dt, dev);
  Tensor ta = materialize(a, dt, dev, shape);
  Tensor tb = materialize(b, dt, dev, shape);
  Tensor c = expand(cond->device() == dev ? cond : to(cond, std::nullopt, dev), shape, "where");
  where_kernel(dev)(*out, *c, *ta, *tb);
  if (should_record({&ta, &tb}))
    record("WhereBackward0", {&ta, &tb}, {&out}, {SavedTensor(c, false)},
           [](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
             const Scalar zero = Scalar::from_int(0);
             return std::vector<Tensor>{n.needs_input_grad(0) ? where(s[0], g[0], zero) : nullptr,
                                        n.needs_input_grad(1) ? where(s[0], zero, g[0]) : nullptr};
           });
  return out;
}

bool any_true(const Tensor& mask) {
  if (mask->numel() == 0) return false;
  Tensor h = to_host_contiguous(mask->dtype() == Dtype::Bool ? mask : cast(mask, Dtype::Bool));
  const bool* p = static_cast<const bool*>(h->data_ptr());
  for (int64_t i = 0; i < h->numel(); ++i)
    if (p[i]) return true;
  return false;
}

namespace {
bool all_true(const Tensor& mask) {
  if (mask->numel() == 0) return true;
  Tensor h = to_host_contiguous(mask);
  const bool* p = static_cast<const bool*>(h->data_ptr());
  for (int64_t i = 0; i < h->numel(); ++i)
    if (!p[i]) return false;
  return true;
}
}  // namespace

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  LUCID_CHECK(a->dtype() == b->dtype(), DtypeMismatch,
              "[isclose] expected both tensors of one dtype, but got " << dtype_name(a->dtype()) << " and "
                                                                       << dtype_name(b->dtype()));
  LUCID_CHECK(rtol >= 0, Value, "[isclose] rtol must be greater than or equal to zero, but got " << rtol);
  LUCID_CHECK(atol >= 0, Value, "[isclose] atol must be greater than or equal to zero, but got " << atol);
  const Device dev = pick_device(a, b, "isclose");
  const Shape shape = broadcast_shapes(a->shape(), b->shape(), "isclose");
  Tensor out = TensorImpl::empty(shape, Dtype::Bool, dev);
  if (out->numel() == 0) return out;
  Tensor ta = materialize(a, a->dtype(), dev, shape);
  Tensor tb = materialize(b, a->dtype(), dev, shape);
  isclose_kernel(dev)(*out, *ta, *tb, rtol, atol, equal_nan);
  return out;
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return all_true(isclose(a, b, rtol, atol, equal_nan));
}

bool equal(const Tensor& a, const Tensor& b) {
  LUCID_CHECK(a->device() == b->device(), DeviceMismatch,
              "[equal] expected both tensors on the same device, but found " << a->device() << " and "
                                                                             << b->device());
  if (a->shape() != b->shape()) return false;
  return all_true(eq(a, b));
}

}  // namespace lucid
