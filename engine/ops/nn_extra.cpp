// Lucid's own fused layers (ops/nn_extra.h): RoPE and fused linear + activation. Checks, one kernel
// each, and vjps in lucid ops: RoPE's vjp is RoPE rotating by -theta (itself recorded, so double
// backward is exact); the linear's vjp is activation_backward (an engine op with its own vjp) and
// two GEMMs.
#include <cmath>

#include "autograd/grad_mode.h"
#include "backend/kernels/activation.h"
#include "backend/kernels/blas.h"
#include "backend/kernels/extra.h"
#include "ops/activation.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/matmul.h"
#include "ops/nn_extra.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace lucid {

namespace {

bool is_half(Dtype d) { return d == Dtype::F16 || d == Dtype::BF16; }

// x (..., D) rotated by sign * theta; pos (distinct float64 positions) and idx (each row's entry of pos)
// are empty for the implicit positions 0..T-1.
Tensor rope_apply(const Tensor& x_in, const Tensor& pos, const Tensor& idx, int64_t T, double base, bool interleaved,
                  double sign) {
  Tensor x = contiguous(x_in);
  Tensor out = TensorImpl::empty(x->shape(), x->dtype(), x->device());
  if (out->numel())
    rope_kernel(x->device())(*out, *x, pos ? pos.get() : nullptr, idx ? idx.get() : nullptr, T, base, interleaved,
                             sign);
  record("RopeBackward0", {&x}, {&out}, {},
         [pos, idx, T, base, interleaved, sign](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
           return std::vector<Tensor>{rope_apply(g[0], pos, idx, T, base, interleaved, -sign)};
         });
  return out;
}

}  // namespace

Tensor rope(const Tensor& x, const Tensor* positions, double base, bool interleaved) {
  const Dtype dt = x->dtype();
  LUCID_CHECK(is_floating(dt), NotImplemented, "[rope] expected a floating-point input, got " << dtype_name(dt));
  LUCID_CHECK(x->dim() >= (positions ? 1 : 2), ShapeMismatch,
              "[rope] expected an input of shape (..., seq_len, head_dim), got " << shape_str(x->shape()));
  const int64_t D = x->shape().back();
  LUCID_CHECK(D % 2 == 0, ShapeMismatch,
              "[rope] the last dimension (head_dim) must be even, got input of shape " << shape_str(x->shape()));
  LUCID_CHECK(std::isfinite(base) && base > 0, Value, "[rope] base must be a positive number, got " << base);
  const int64_t T = x->dim() >= 2 ? x->shape()[size_t(x->dim() - 2)] : 1;
  Tensor pos, idx;
  if (positions) {
    const Tensor& p = *positions;
    LUCID_CHECK(!is_complex(p->dtype()) && p->dtype() != Dtype::Bool, DtypeMismatch,
                "[rope] position_ids must be real numbers (integers or floats), got " << dtype_name(p->dtype()));
    LUCID_CHECK(p->device() == x->device(), DeviceMismatch,
                "[rope] position_ids on " << p->device() << " and input on " << x->device());
    const Shape rows(x->shape().begin(), x->shape().end() - 1);
    bool ok = p->dim() <= int64_t(rows.size());
    for (int64_t i = 1; ok && i <= p->dim(); ++i) {
      const int64_t a = p->shape()[size_t(p->dim() - i)], b = rows[rows.size() - size_t(i)];
      ok = a == b || a == 1;
    }
    LUCID_CHECK(ok, ShapeMismatch,
                "[rope] position_ids of shape " << shape_str(p->shape()) << " do not broadcast to the input's "
                                                << shape_str(rows) << " (input " << shape_str(x->shape()) << ")");
    autograd::GradModeGuard no_grad(false);
    pos = clone(contiguous(cast(p, Dtype::F64)));  // a copy: later writes to position_ids cannot reach backward
    Tensor ids = arange(Scalar::from_int(0), Scalar::from_int(p->numel()), Scalar::from_int(1), Dtype::I64, x->device());
    idx = contiguous(expand(reshape(ids, p->shape()), rows, "rope"));
  }
  if (is_half(dt)) return cast(rope_apply(cast(x, Dtype::F32), pos, idx, T, base, interleaved, 1.0), dt);
  return rope_apply(x, pos, idx, T, base, interleaved, 1.0);
}

Tensor fused_linear_act(const Tensor& x_in, const Tensor& w_in, const Tensor* b_in, const std::string& act_name) {
  LUCID_CHECK(act_name == "none" || act_name == "relu" || act_name == "gelu" || act_name == "gelu_tanh", Value,
              "[linear_act] unknown activation '" << act_name << "' (expected none, relu, gelu or gelu_tanh)");
  const bool ident = act_name == "none";  // F.linear itself: one GEMM + the bias epilogue, one node
  const bool relu = act_name == "relu";
  // relu's derivative is threshold(0, 0)'s; gelu's forward and derivatives are the activation family's
  const ActOp aop = relu ? ActOp::Threshold : act_name == "gelu" ? ActOp::Gelu : ActOp::GeluTanh;
  const char* op = ident ? "linear" : relu ? "linear_relu" : "linear_gelu";
  LUCID_CHECK(x_in->dim() >= 1 && w_in->dim() == 2 && x_in->shape().back() == w_in->shape()[1], ShapeMismatch,
              "[" << op << "] expected input (..., in_features) and weight (out_features, in_features), got input "
                  << shape_str(x_in->shape()) << " and weight " << shape_str(w_in->shape()));
  const int64_t N = w_in->shape()[0], K = w_in->shape()[1];
  if (b_in)
    LUCID_CHECK((*b_in)->dim() == 1 && (*b_in)->shape()[0] == N, ShapeMismatch,
                "[" << op << "] expected a bias of shape (" << N << ") for weight " << shape_str(w_in->shape())
                    << ", got " << shape_str((*b_in)->shape()));
  const Dtype dt = x_in->dtype();
  LUCID_CHECK(is_floating(dt), NotImplemented, "[" << op << "] expected floating-point tensors, got " << dtype_name(dt));
  LUCID_CHECK(w_in->dtype() == dt && (!b_in || (*b_in)->dtype() == dt), DtypeMismatch,
              "[" << op << "] expected tensors of one dtype, got input " << dtype_name(dt) << ", weight "
                  << dtype_name(w_in->dtype()) << (b_in ? std::string(", bias ") + dtype_name((*b_in)->dtype()) : ""));
  LUCID_CHECK(w_in->device() == x_in->device() && (!b_in || (*b_in)->device() == x_in->device()), DeviceMismatch,
              "[" << op << "] expected tensors on one device, got input on " << x_in->device() << " and weight on "
                  << w_in->device());
  if (is_half(dt)) {
    Tensor bf = b_in ? cast(*b_in, Dtype::F32) : Tensor();
    return cast(fused_linear_act(cast(x_in, Dtype::F32), cast(w_in, Dtype::F32), b_in ? &bf : nullptr, act_name), dt);
  }
  const Tensor& x = x_in;
  const Tensor& w = w_in;
  Tensor b = b_in ? *b_in : Tensor();
  const bool has_b = bool(b);
  const Device dev = x->device();
  Shape out_shape(x->shape().begin(), x->shape().end() - 1);
  out_shape.push_back(N);
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < x->shape().size(); ++i) rows *= x->shape()[i];
  // relu works in place in its output (y > 0 exactly where z > 0); gelu keeps the pre-activation z
  Tensor y = TensorImpl::empty(out_shape, dt, dev);
  Tensor z = relu || ident ? y : TensorImpl::empty(out_shape, dt, dev);
  if (y->numel()) {
    autograd::GradModeGuard no_grad(false);
    if (K) gemm_kernel(dev)(*view(z, {1, rows, N}), *reshape(x, {1, rows, K}), *unsqueeze(transpose(w, 0, 1), 0));
    else copy_into(z, zeros(out_shape, dt, dev));
    Tensor bc = has_b ? contiguous(b) : Tensor();
    if (relu || has_b) linear_act_epilogue_kernel(dev)(relu ? LinearAct::Relu : LinearAct::Identity, *z, bc.get());
    if (!relu && !ident) activation_kernel(dev)(aop, ActParams{}, *y, *z);
  }
  const Shape x_shape = x->shape();
  record(ident ? "AddmmBackward0" : relu ? "LinearReluBackward0" : "LinearGeluBackward0", {&x, &w, has_b ? &b : nullptr},
         {&y},
         {SavedTensor(x, false), SavedTensor(w, false),
          ident ? SavedTensor() : relu ? SavedTensor(y, true) : SavedTensor(z, false),
          SavedTensor(has_b && !relu && !ident ? b : Tensor(), false)},
         [ident, relu, aop, rows, K, N, has_b, x_shape](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           const Tensor &x = s[0], &w = s[1];
           Tensor dz;
           if (ident) {
             dz = reshape(g[0], {rows, N});
           } else {
             Tensor a = reshape(s[2], {rows, N});
             if (!relu && autograd::grad_enabled()) {  // create_graph: z as a function of the inputs (relu'' = 0)
               a = matmul(reshape(x, {rows, K}), transpose(w, 0, 1));
               if (has_b) a = add(a, s[3]);
             }
             dz = activation_backward(aop, reshape(g[0], {rows, N}), a, ActParams{}, 1);
           }
           std::vector<Tensor> out(3);
           if (n.needs_input_grad(0)) out[0] = reshape(matmul(dz, w), x_shape);
           if (n.needs_input_grad(1)) out[1] = matmul(transpose(dz, 0, 1), reshape(x, {rows, K}));
           if (has_b && n.needs_input_grad(2)) out[2] = sum(dz, std::vector<int64_t>{0});
           return out;
         });
  return y;
}

Tensor linear(const Tensor& x, const Tensor& w, const Tensor* b) {
  const Dtype dt = x->dtype();
  const bool fused = x->device().is_cpu() && w->device().is_cpu() && is_floating(dt) && w->dtype() == dt &&
                     w->dim() == 2 && x->dim() >= 1 && x->shape().back() == w->shape()[1] &&
                     (!b || ((*b)->dtype() == dt && (*b)->device().is_cpu() && (*b)->dim() == 1 &&
                             (*b)->shape()[0] == w->shape()[0]));
  if (fused) return fused_linear_act(x, w, b, "none");
  Tensor out = matmul(x, w->dim() == 2 ? transpose(w, 0, 1) : w);
  return b ? add(out, *b) : out;
}

}  // namespace lucid
