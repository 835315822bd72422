#include "ops/optim.h"

#include <vector>

#include "ops/copy.h"

namespace lucid {

namespace {

void check_operand(const char* op, const char* what, const Tensor& param, const Tensor& t) {
  LUCID_CHECK(t->shape() == param->shape(), ShapeMismatch,
              "[" << op << "] " << what << " of shape " << shape_str(t->shape()) << " does not match the parameter's "
                  << shape_str(param->shape()));
  LUCID_CHECK(t->dtype() == param->dtype(), DtypeMismatch,
              "[" << op << "] " << what << " is " << dtype_name(t->dtype()) << " but the parameter is "
                  << dtype_name(param->dtype()));
  LUCID_CHECK(t->device() == param->device(), DeviceMismatch,
              "[" << op << "] " << what << " is on " << t->device() << " but the parameter on " << param->device());
}

// Tensors the kernel writes: contiguous ones are used as they are; others are updated through a
// contiguous copy that is written back afterwards.
struct Written {
  Tensor orig, work;
  explicit Written(const Tensor& t) : orig(t), work(t->is_contiguous() ? t : contiguous(t)) {}
  void finish() {
    if (work != orig) copy_into(orig, work);
    orig->bump_version();
  }
};

}  // namespace

void sgd_step_(const Tensor& param, const Tensor& grad, const std::optional<Tensor>& buf, const SgdArgs& a) {
  check_operand("sgd", "grad", param, grad);
  if (buf) check_operand("sgd", "momentum_buffer", param, *buf);
  LUCID_CHECK(buf || a.momentum == 0, Value, "[sgd] momentum " << a.momentum << " needs a momentum buffer");
  if (!param->numel()) return;
  Written p(param);
  std::optional<Written> b;
  if (buf) b.emplace(*buf);
  Tensor g = contiguous(grad);
  sgd_kernel(param->device())(*p.work, *g, b ? b->work.get() : nullptr, a);
  p.finish();
  if (b) b->finish();
}

void adam_step_(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                const std::optional<Tensor>& max_sq, const AdamArgs& a) {
  check_operand("adam", "grad", param, grad);
  check_operand("adam", "exp_avg", param, exp_avg);
  check_operand("adam", "exp_avg_sq", param, exp_avg_sq);
  if (max_sq) check_operand("adam", "max_exp_avg_sq", param, *max_sq);
  LUCID_CHECK(!a.amsgrad || max_sq, Value, "[adam] amsgrad needs max_exp_avg_sq");
  LUCID_CHECK(a.step >= 1, Value, "[adam] step must be at least 1 (the count after this update), got " << a.step);
  if (!param->numel()) return;
  Written p(param), m(exp_avg), v(exp_avg_sq);
  std::optional<Written> vm;
  if (max_sq) vm.emplace(*max_sq);
  Tensor g = contiguous(grad);
  adam_kernel(param->device())(*p.work, *g, *m.work, *v.work, vm ? vm->work.get() : nullptr, a);
  p.finish();
  m.finish();
  v.finish();
  if (vm) vm->finish();
}

}  // namespace lucid
