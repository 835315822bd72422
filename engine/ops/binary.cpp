#include "ops/binary.h"

#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/out.h"
#include "ops/view.h"

namespace lucid {

namespace binary_detail {
Tensor complex_logaddexp(const Tensor& a, const Tensor& b);  // binary_math.cpp
}  // namespace binary_detail

namespace {

const char* op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "add";
    case BinaryOp::Sub: return "sub";
    case BinaryOp::Mul: return "mul";
    case BinaryOp::Div: return "div";
    default: return binary_detail::ext_name(op);
  }
}

}  // namespace

namespace binary_detail {

// A 0-d CPU tensor may meet a CUDA tensor: it is read as a scalar (as in PyTorch).
static bool is_cpu_scalar(const Tensor& t) { return t->dim() == 0 && t->device().is_cpu(); }

Device pick_device(const Operand& a, const Operand& b, const char* op) {
  const Tensor* ta = std::get_if<Tensor>(&a);
  const Tensor* tb = std::get_if<Tensor>(&b);
  if (ta && tb && (*ta)->device() != (*tb)->device()) {
    if (is_cpu_scalar(*tb)) return (*ta)->device();
    if (is_cpu_scalar(*ta)) return (*tb)->device();
    LUCID_FAIL(DeviceMismatch, "[" << op << "] expected all tensors to be on the same device, but found " << (*ta)->device()
                                   << " (shape " << shape_str((*ta)->shape()) << ") and " << (*tb)->device() << " (shape "
                                   << shape_str((*tb)->shape()) << ")");
  }
  return ta ? (*ta)->device() : (*tb)->device();
}

Tensor materialize(const Operand& x, Dtype dt, Device dev, const Shape& shape) {
  if (const Tensor* t = std::get_if<Tensor>(&x)) {
    Tensor v = *t;
    if (v->device() != dev || v->dtype() != dt) v = to(v, dt, dev);
    return expand(v, shape);
  }
  Tensor s = TensorImpl::empty({}, dt, dev);
  fill_kernel(dev)(*s, std::get<Scalar>(x));
  return expand(s, shape);
}

static const Shape kScalarShape{};
const Shape& shape_of(const Operand& x) {
  const Tensor* t = std::get_if<Tensor>(&x);
  return t ? (*t)->shape() : kScalarShape;
}

}  // namespace binary_detail

namespace {

using binary_detail::materialize;
using binary_detail::pick_device;
using binary_detail::shape_of;

bool is_bool_operand(const Operand& x) {
  if (const Tensor* t = std::get_if<Tensor>(&x)) return (*t)->dtype() == Dtype::Bool;
  return std::get<Scalar>(x).kind == DtypeCategory::Bool;
}

// PyTorch's alpha_check: the alpha of add/sub must fit the computation's dtype category.
void check_alpha(BinaryOp op, Dtype dt, const Scalar& alpha) {
  if (op != BinaryOp::Add && op != BinaryOp::Sub) return;
  const char* name = op_name(op);
  LUCID_CHECK(alpha.kind != DtypeCategory::Bool || dt == Dtype::Bool, Type,
              "[" << name << "] boolean alpha is only supported for boolean results (got " << dtype_name(dt) << ")");
  LUCID_CHECK(alpha.kind != DtypeCategory::Floating || category(dt) >= DtypeCategory::Floating, Type,
              "[" << name << "] for integral input tensors, argument alpha must not be a floating point number");
  LUCID_CHECK(alpha.kind != DtypeCategory::Complex || is_complex(dt), Type,
              "[" << name << "] for non-complex input tensors, argument alpha must not be a complex number (got "
                  << dtype_name(dt) << ")");
}

Dtype compute_dtype(BinaryOp op, const Operand& a, const Operand& b, Dtype* result) {
  const Dtype r = result_type(a, b);
  if (op == BinaryOp::Sub) {
    LUCID_CHECK(!is_bool_operand(a) || !is_bool_operand(b), Type,
                "[sub] subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                "`logical_xor()` operator instead.");
    LUCID_CHECK(!is_bool_operand(a) && !is_bool_operand(b), Type,
                "[sub] subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                "invert a mask, use the `~` or `logical_not()` operator instead.");
  }
  *result = r;
  if (op > BinaryOp::Div) return binary_detail::ext_dtype(op, a, b, r);
  if (op == BinaryOp::Div && is_integral(r, true)) return default_dtype();
  return r;
}

// Backward of out = a op b for same-shape, same-dtype a and b (broadcasting and casts were
// recorded by expand() and to()). Complex gradients need conj(), which arrives with the op library.
// sa / sb: the operand was a Python scalar; its value is kept in the node instead of a saved tensor.
void record_binary(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out, const Scalar& alpha,
                   const Scalar* sa, const Scalar* sb) {
  if (!should_record({&a, &b})) return;
  auto neg = [](Scalar s) {
    s.re = -s.re, s.im = -s.im, s.i = -s.i;
    return s;
  };
  auto conj_s = [](Scalar s) {  // complex gradients take the conjugate (PyTorch's convention)
    s.im = -s.im;
    return s;
  };
  switch (op) {
    case BinaryOp::Add:
      record("AddBackward0", {&a, &b}, {&out}, {}, [alpha](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
        const bool unit = alpha.kind != DtypeCategory::Complex && alpha.re == 1.0;
        return std::vector<Tensor>{g[0], unit ? g[0] : mul(g[0], alpha)};
      });
      break;
    case BinaryOp::Sub:
      record("SubBackward0", {&a, &b}, {&out}, {}, [na = neg(alpha)](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
        return std::vector<Tensor>{g[0], mul(g[0], na)};
      });
      break;
    case BinaryOp::Mul:
      if (sa || sb) {
        const Scalar c = conj_s(sa ? *sa : *sb);
        const bool scalar_first = sa != nullptr;
        record("MulBackward0", {&a, &b}, {&out}, {}, [c, scalar_first](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
          Tensor gt = mul(g[0], c);
          return scalar_first ? std::vector<Tensor>{nullptr, gt} : std::vector<Tensor>{gt, nullptr};
        });
        break;
      }
      // Each input is saved only for the other's gradient (as PyTorch): fewer saves, fewer version errors.
      record("MulBackward0", {&a, &b}, {&out},
             {autograd::requires_grad(b) ? SavedTensor(a, false) : SavedTensor(),
              autograd::requires_grad(a) ? SavedTensor(b, false) : SavedTensor()},
             [](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {  // conjugates: PyTorch's convention
               return std::vector<Tensor>{n.needs_input_grad(0) ? mul(g[0], conj(s[1])) : nullptr,
                                          n.needs_input_grad(1) ? mul(g[0], conj(s[0])) : nullptr};
             });
      break;
    case BinaryOp::Div:
      if (sb) {  // x / c
        const Scalar c = conj_s(*sb);
        record("DivBackward0", {&a, &b}, {&out}, {}, [c](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
          return std::vector<Tensor>{div(g[0], c), nullptr};
        });
        break;
      }
      if (sa) {  // c / x: d/dx = -c / x^2 (conjugated)
        const Scalar c = neg(conj_s(*sa));
        record("DivBackward0", {&a, &b}, {&out}, {SavedTensor(b, false)},
               [c](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
                 const Tensor xc = conj(s[0]);
                 return std::vector<Tensor>{nullptr, mul(div(div(g[0], xc), xc), c)};
               });
        break;
      }
      record("DivBackward0", {&a, &b}, {&out},
             {autograd::requires_grad(b) ? SavedTensor(a, false) : SavedTensor(), SavedTensor(b, false)},
             [](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
               Tensor ga = div(g[0], conj(s[1]));
               Tensor gb = n.needs_input_grad(1) ? mul(mul(ga, Scalar::from_int(-1)), conj(div(s[0], s[1]))) : nullptr;
               return std::vector<Tensor>{n.needs_input_grad(0) ? ga : nullptr, gb};
             });
      break;
    default:
      binary_detail::record_ext(op, a, b, out, sa, sb);
      break;
  }
}

}  // namespace

Dtype result_type(const Operand& a, const Operand& b) {
  ResultTypeState st;
  for (const Operand* x : {&a, &b}) {
    if (const Tensor* t = std::get_if<Tensor>(x)) st.add_tensor((*t)->dtype(), (*t)->dim() == 0);
    else st.add_scalar(std::get<Scalar>(*x).kind);
  }
  return st.result();
}

Tensor binary(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha) {
  const char* name = op_name(op);
  LUCID_CHECK(std::holds_alternative<Tensor>(a) || std::holds_alternative<Tensor>(b), Type,
              "[" << name << "] expected at least one tensor operand");
  const Device dev = pick_device(a, b, name);
  Dtype r;
  const Dtype dt = compute_dtype(op, a, b, &r);
  check_alpha(op, dt, alpha);
  const Shape shape = broadcast_shapes(shape_of(a), shape_of(b), name);
  Tensor out = TensorImpl::empty(shape, dt, dev);
  Tensor ta = materialize(a, dt, dev, shape);
  Tensor tb = materialize(b, dt, dev, shape);
  if (op == BinaryOp::LogAddExp && is_complex(dt)) out = binary_detail::complex_logaddexp(ta, tb);
  else binary_kernel(dev)(op, *out, *ta, *tb, alpha);
  record_binary(op, ta, tb, out, alpha, std::get_if<Scalar>(&a), std::get_if<Scalar>(&b));
  return out;
}

bool binary_into(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha, const Tensor& out) {
  const char* name = op_name(op);
  LUCID_CHECK(std::holds_alternative<Tensor>(a) || std::holds_alternative<Tensor>(b), Type,
              "[" << name << "] expected at least one tensor operand");
  const Device dev = pick_device(a, b, name);
  Dtype r;
  const Dtype dt = compute_dtype(op, a, b, &r);
  check_alpha(op, dt, alpha);
  if ((op == BinaryOp::LogAddExp && is_complex(dt)) || dev != out->device() || dt != out->dtype() ||
      !out->is_contiguous() || out->numel() == 0 ||
      out_needs_grad({std::get_if<Tensor>(&a), std::get_if<Tensor>(&b), &out}))
    return false;
  const Shape shape = broadcast_shapes(shape_of(a), shape_of(b), name);
  if (shape != out->shape()) return false;
  for (const Operand* x : {&a, &b})
    if (const Tensor* t = std::get_if<Tensor>(x); t && (*t)->storage() == out->storage()) return false;
  check_writable(*out, name);
  Tensor ta = materialize(a, dt, dev, shape);
  Tensor tb = materialize(b, dt, dev, shape);
  binary_kernel(dev)(op, *out, *ta, *tb, alpha);
  out->bump_version();
  return true;
}

Tensor binary_(BinaryOp op, const Tensor& self, const Operand& other, const Scalar& alpha) {
  const char* name = op_name(op);
  const Device dev = pick_device(self, other, name);
  LUCID_CHECK(dev == self->device(), DeviceMismatch,
              "[" << name << "_] cannot write a result on " << dev << " into a tensor on " << self->device());
  Dtype r;
  const Dtype dt = compute_dtype(op, self, other, &r);
  check_alpha(op, dt, alpha);
  LUCID_CHECK(can_cast(dt, self->dtype()), DtypeMismatch,
              "[" << name << "_] result type " << dtype_name(dt) << " can't be cast to the desired output type "
                  << dtype_name(self->dtype()));
  const Shape shape = broadcast_shapes(self->shape(), shape_of(other), name);
  LUCID_CHECK(shape == self->shape(), ShapeMismatch,
              "[" << name << "_] output with shape " << shape_str(self->shape())
                  << " doesn't match the broadcast shape " << shape_str(shape));
  check_writable(*self, (std::string(name) + "_").c_str());
  const Tensor* other_t = std::get_if<Tensor>(&other);
  if (autograd::check_inplace(self, {other_t}, (std::string(name) + "_").c_str())) {
    // Recorded in-place write: compute out of place from a snapshot of self (whose node keeps
    // self's old history), write the values, and make that result self's history.
    Tensor snap = clone(self);
    Operand rhs = other;  // an operand in self's memory (x.mul_(x), x.add_(x.T)) is read as it was
    if (other_t && (*other_t)->storage() == self->storage()) rhs = clone(*other_t);
    Tensor result = binary(op, snap, rhs, alpha);
    copy_into(self, result);
    self->bump_version();
    record_inplace(self, result);
    return self;
  }
  if (dt == self->dtype()) {
    Tensor tb = materialize(other, dt, dev, shape);
    if (const Tensor* o = std::get_if<Tensor>(&other); o && (*o)->storage() == self->storage() &&
                                                       !((*o)->strides() == self->strides() &&
                                                         (*o)->storage_offset() == self->storage_offset()))
      tb = clone(tb);  // partial overlap: read a snapshot
    binary_kernel(dev)(op, *self, *self, *tb, alpha);
    self->bump_version();
  } else {
    copy_into(self, binary(op, self, other, alpha));
    self->bump_version();
  }
  return self;
}

void fill_(const Tensor& t, const Scalar& value) {
  check_writable(*t, "fill_");
  const bool hist = autograd::check_inplace(t, {}, "fill_");
  if (t->numel()) fill_kernel(t->device())(*t, value);
  t->bump_version();
  if (hist) record_inplace(t, full(t->shape(), value, t->dtype(), t->device()));  // no dependence on the old value
}

}  // namespace lucid

namespace lucid {
namespace {
// The profiler names binary kernel calls by their op.
const bool binary_labelled = (binary_kernel.label = [](int op) { return op_name(BinaryOp(op)); }, true);
}  // namespace
}  // namespace lucid
