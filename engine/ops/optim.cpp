#include "ops/optim.h"

#include <cmath>
#include <functional>

#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/optim_impl.h"

namespace lucid {

namespace optim_impl {

namespace {

void check_operand(const char* op, const char* what, size_t i, const Tensor& param, const Tensor& t) {
  LUCID_CHECK(t->shape() == param->shape(), ShapeMismatch,
              "[" << op << "] " << what << "[" << i << "] of shape " << shape_str(t->shape())
                  << " does not match the parameter's " << shape_str(param->shape()));
  LUCID_CHECK(t->dtype() == param->dtype(), DtypeMismatch,
              "[" << op << "] " << what << "[" << i << "] is " << dtype_name(t->dtype()) << " but the parameter is "
                  << dtype_name(param->dtype()));
  LUCID_CHECK(t->device() == param->device(), DeviceMismatch,
              "[" << op << "] " << what << "[" << i << "] is on " << t->device() << " but the parameter on "
                  << param->device());
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

void check(const char* op, const TensorList& params, const TensorList& grads, std::initializer_list<StateList> states,
           std::initializer_list<std::pair<const char*, const TensorList*>> scalars) {
  const size_t n = params.size();
  LUCID_CHECK(grads.size() == n, Value,
              "[" << op << "] got " << n << " parameters but " << grads.size() << " gradients");
  for (const StateList& s : states)
    LUCID_CHECK(s.list->size() == n || (s.list->empty() && !s.required), Value,
                "[" << op << "] got " << n << " parameters but " << s.list->size() << " " << s.name);
  for (const auto& [name, list] : scalars)
    LUCID_CHECK(list->size() == n, Value,
                "[" << op << "] got " << n << " parameters but " << list->size() << " " << name);
  for (size_t i = 0; i < n; ++i) {
    const Tensor& p = params[i];
    LUCID_CHECK(p && grads[i], Value, "[" << op << "] parameter or gradient " << i << " is None");
    LUCID_CHECK(is_floating(p->dtype()) || is_complex(p->dtype()), NotImplemented,
                "[" << op << "] expected a floating-point or complex parameter, got " << dtype_name(p->dtype()));
    check_operand(op, "grad", i, p, grads[i]);
    for (const StateList& s : states) {
      if (s.list->empty()) continue;
      const auto& t = (*s.list)[i];
      LUCID_CHECK(t || !s.required, Value, "[" << op << "] " << s.name << "[" << i << "] is None");
      if (t) check_operand(op, s.name, i, p, *t);
    }
    for (const auto& [name, list] : scalars) {
      const Tensor& t = (*list)[i];
      LUCID_CHECK(t, Value, "[" << op << "] " << name << "[" << i << "] is None");
      LUCID_CHECK(t->numel() == 1 && t->device().is_cpu(), ShapeMismatch,
                  "[" << op << "] " << name << "[" << i << "] must be a one-element CPU tensor, got shape "
                      << shape_str(t->shape()) << " on " << t->device());
      const Dtype d = t->dtype();
      LUCID_CHECK(d == Dtype::F32 || d == Dtype::F64 || d == Dtype::I64, DtypeMismatch,
                  "[" << op << "] " << name << "[" << i << "] must be float32, float64 or int64, got "
                      << dtype_name(d));
    }
  }
}

double scalar_get(const Tensor& t) {
  switch (t->dtype()) {
    case Dtype::F32: return *t->data<float>();
    case Dtype::F64: return *t->data<double>();
    default: return double(*t->data<int64_t>());
  }
}

void scalar_set(const Tensor& t, double v) {
  switch (t->dtype()) {
    case Dtype::F32: *t->data<float>() = float(v); break;
    case Dtype::F64: *t->data<double>() = v; break;
    default: *t->data<int64_t>() = int64_t(v); break;
  }
  t->bump_version();
}

double advance_step(const Tensor& step) {
  scalar_set(step, scalar_get(step) + 1);
  return scalar_get(step);
}

void for_each_param(const TensorList& params, const TensorList& grads,
                    std::initializer_list<const OptTensorList*> states,
                    const std::function<void(size_t, const OptimOperands&)>& f) {
  for (size_t i = 0; i < params.size(); ++i) {
    // A complex parameter is updated as its real view (re, im as two real numbers), as PyTorch does.
    const bool cplx = is_complex(params[i]->dtype());
    auto real = [&](const Tensor& t) { return cplx ? view_as_real(t) : t; };
    OptimOperands o;
    Written p(real(params[i]));
    std::array<std::optional<Written>, OptimOperands::kMax> w;
    Tensor g = contiguous(real(grads[i]));
    o.t[0] = p.work.get();
    o.t[1] = g.get();
    int k = 2;
    for (const OptTensorList* s : states) {
      if (s && !s->empty() && (*s)[i]) {
        w[k].emplace(real(*(*s)[i]));
        o.t[k] = w[k]->work.get();
      }
      ++k;
    }
    f(i, o);
    p.finish();
    for (auto& x : w)
      if (x) x->finish();
  }
}

}  // namespace optim_impl

using namespace optim_impl;

OptTensorList sgd_step_(const TensorList& params, const TensorList& grads, const OptTensorList& bufs,
                        const SgdArgs& a) {
  LUCID_CHECK(a.momentum == 0 || bufs.size() == params.size(), Value,
              "[sgd] momentum " << a.momentum << " needs a momentum buffer list (None entries on the first step)");
  check("sgd", params, grads, {{"momentum_buffer", &bufs, false}}, {});
  OptTensorList out = a.momentum != 0 ? bufs : OptTensorList{};
  std::vector<bool> first(params.size(), false);
  for (size_t i = 0; i < out.size(); ++i)
    if (!out[i]) {
      out[i] = empty(params[i]->shape(), params[i]->dtype(), params[i]->device());
      first[i] = true;
    }
  for_each_param(params, grads, {&out}, [&](size_t i, const OptimOperands& o) {
    SgdArgs ai = a;
    ai.first_step = first.empty() ? false : bool(first[i]);
    sgd_kernel(params[i]->device())(o, ai);
  });
  return out;
}

void adam_step_(const TensorList& params, const TensorList& grads, const OptTensorList& exp_avgs,
                const OptTensorList& exp_avg_sqs, const OptTensorList& max_sqs, const TensorList& steps,
                const AdamArgs& a) {
  check("adam", params, grads,
        {{"exp_avg", &exp_avgs, true}, {"exp_avg_sq", &exp_avg_sqs, true}, {"max_exp_avg_sq", &max_sqs, a.amsgrad}},
        {{"step", &steps}});
  for_each_param(params, grads, {&exp_avgs, &exp_avg_sqs, a.amsgrad ? &max_sqs : nullptr},
                 [&](size_t i, const OptimOperands& o) {
    AdamArgs ai = a;
    ai.step = int64_t(advance_step(steps[i]));
    adam_kernel(params[i]->device())(o, ai);
  });
}

}  // namespace lucid
