// The direct in-place clamp of clamp_inplace.h.
#include "ops/clamp_inplace.h"

#include "autograd/node.h"
#include "backend/kernels/elementwise.h"
#include "backend/kernels/unary_ext.h"
#include "ops/view.h"

namespace lucid {

namespace {

// A bound as a tensor of self's dtype expanded to self's shape, or null when the fast path cannot take it.
bool bound_of(const Operand& b, const Tensor& self, Tensor& out) {
  const Dtype dt = self->dtype();
  if (const Tensor* t = std::get_if<Tensor>(&b)) {
    const Tensor& v = *t;
    if (v->dtype() != dt || v->device() != self->device() || autograd::requires_grad(v) ||
        v->storage() == self->storage() || v->dim() > self->dim())
      return false;
    for (int64_t i = 1; i <= v->dim(); ++i) {
      const int64_t s = v->shape()[v->dim() - i];
      if (s != 1 && s != self->shape()[self->dim() - i]) return false;
    }
    out = expand(v, self->shape());
    return true;
  }
  const Scalar& s = std::get<Scalar>(b);
  // the scalar must not promote self's dtype: bool never, floating only into floating
  if (s.kind == DtypeCategory::Complex || s.kind == DtypeCategory::Bool) return false;
  if (s.kind == DtypeCategory::Floating && !is_floating(dt)) return false;
  Tensor z = TensorImpl::empty({}, dt, self->device());
  fill_kernel(self->device())(*z, s);
  out = expand(z, self->shape());
  return true;
}

}  // namespace

bool clamp_inplace_fast(const Tensor& self, const std::optional<Operand>& lo, const std::optional<Operand>& hi) {
  if (!lo && !hi) return false;
  const Dtype dt = self->dtype();
  if (!self->device().is_cpu() || !self->is_contiguous() || dt == Dtype::Bool || is_complex(dt) ||
      autograd::requires_grad(self))
    return false;
  Tensor tlo, thi;
  if (lo && !bound_of(*lo, self, tlo)) return false;
  if (hi && !bound_of(*hi, self, thi)) return false;
  check_writable(*self, "clamp_");
  if (self->numel()) clamp_kernel(self->device())(*self, *self, tlo ? tlo.get() : nullptr, thi ? thi.get() : nullptr);
  self->bump_version();
  return true;
}

}  // namespace lucid
