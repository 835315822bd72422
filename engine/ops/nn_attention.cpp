// scaled_dot_product_attention: checks, batch broadcasting and grouped heads in lucid ops (views where
// the shapes already agree), the fused forward kernel, and its vjp: the fused backward kernel, or,
// when the backward itself is recorded (create_graph) or a float mask needs a gradient, the same
// math in lucid ops so that double backward works.
#include <cmath>

#include "autograd/grad_mode.h"
#include "backend/kernels/attention.h"
#include "ops/binary.h"
#include "ops/compare.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/matmul.h"
#include "ops/nn.h"
#include "ops/nn_attention.h"
#include "ops/random.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "ops/unary.h"
#include "ops/view.h"

namespace lucid {

namespace {

constexpr const char* kOp = "scaled_dot_product_attention";

Shape batch_of(const Tensor& t, int64_t drop) { return Shape(t->shape().begin(), t->shape().end() - drop); }

Shape cat_shape(Shape a, std::initializer_list<int64_t> tail) {
  a.insert(a.end(), tail);
  return a;
}

int64_t prod(const Shape& s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

// `t` broadcast to `full`: itself when the shape already agrees and its rows are usable in place (unit
// element stride, rows not overlapping), otherwise a contiguous copy.
Tensor to_full(const Tensor& t, const Shape& full) {
  if (t->shape() == full) {
    const int64_t d = t->dim(), rows = full[size_t(d - 2)], cols = full.back();
    const bool unit = cols <= 1 || t->strides()[size_t(d - 1)] == 1;
    const bool rows_ok = rows <= 1 || t->strides()[size_t(d - 2)] >= cols;
    if (unit && rows_ok) return t;
    return contiguous(t);
  }
  return contiguous(expand(t, full, kOp));
}

// Row offsets per flattened batch index of a (batch..., rows, cols) tensor, and its row stride.
AttnLayout layout_of(const Tensor& t) {
  const int64_t nb = t->dim() - 2;
  AttnLayout l;
  const int64_t cols = t->shape().back();
  l.sl = t->shape()[size_t(nb)] <= 1 ? std::max<int64_t>(cols, 1) : t->strides()[size_t(nb)];
  int64_t n = 1;
  for (int64_t d = 0; d < nb; ++d) n *= t->shape()[size_t(d)];
  l.off.assign(size_t(n), 0);
  std::vector<int64_t> idx(size_t(nb), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int64_t d = 0; d < nb; ++d) off += idx[size_t(d)] * t->strides()[size_t(d)];
    l.off[size_t(i)] = off;
    for (int64_t d = nb - 1; d >= 0; --d) {
      if (++idx[size_t(d)] < t->shape()[size_t(d)]) break;
      idx[size_t(d)] = 0;
    }
  }
  return l;
}

// A fresh dense tensor of `shape` whose dims are laid out in the order of `ref`'s strides (largest
// outermost, the last dim innermost): the output of heads read from a (B, T, H, D) projection is
// written as (B, T, H, Dv), so merging the heads back is a view.
Tensor empty_like_layout(const Shape& shape, const Tensor& ref, Dtype dt) {
  const int64_t d = int64_t(shape.size());
  std::vector<int64_t> order(static_cast<size_t>(d));
  for (int64_t i = 0; i < d; ++i) order[size_t(i)] = i;
  const auto& rs = ref->strides();
  std::stable_sort(order.begin(), order.end() - 1, [&](int64_t a, int64_t b) {
    const int64_t sa = ref->shape()[size_t(a)] <= 1 ? 0 : rs[size_t(a)], sb = ref->shape()[size_t(b)] <= 1 ? 0 : rs[size_t(b)];
    return sa > sb;
  });
  Strides st(static_cast<size_t>(d));
  int64_t acc = 1;
  for (int64_t i = d - 1; i >= 0; --i) {
    st[size_t(order[size_t(i)])] = acc;
    acc *= std::max<int64_t>(shape[size_t(order[size_t(i)])], 1);
  }
  Tensor base = TensorImpl::empty({prod(shape)}, dt, ref->device());
  return base->as_view(shape, st, 0);
}

// Key/value heads (Nkv, S, X) repeated for the query heads that share them: (N, S, X).
Tensor repeat_heads(const Tensor& t, int64_t Hq, int64_t Hk) {
  if (Hq == Hk) return t;
  const int64_t nkv = t->shape()[0], S = t->shape()[1], X = t->shape()[2], g = Hq / Hk;
  Tensor e = expand(reshape(t, {nkv, 1, S, X}), {nkv, g, S, X});
  return reshape(e, {nkv * g, S, X});
}

// The gradient of repeat_heads: (N, S, X) summed over the query heads of each key/value head.
Tensor sum_heads(const Tensor& t, int64_t Hq, int64_t Hk) {
  if (Hq == Hk) return t;
  const int64_t N = t->shape()[0], S = t->shape()[1], X = t->shape()[2], g = Hq / Hk;
  return sum(reshape(t, {N / g, g, S, X}), std::vector<int64_t>{1});
}


}  // namespace

Tensor scaled_dot_product_attention(const Tensor& q_in, const Tensor& k_in, const Tensor& v_in,
                                    const std::optional<Tensor>& mask_in, double dropout_p, bool is_causal,
                                    std::optional<double> scale, bool enable_gqa) {
  LUCID_CHECK(q_in->dim() >= 2 && k_in->dim() >= 2 && v_in->dim() >= 2, ShapeMismatch,
              "[" << kOp << "] expected query (..., L, E), key (..., S, E) and value (..., S, Ev), got "
                  << shape_str(q_in->shape()) << ", " << shape_str(k_in->shape()) << " and " << shape_str(v_in->shape()));
  LUCID_CHECK(q_in->dtype() == k_in->dtype() && q_in->dtype() == v_in->dtype(), DtypeMismatch,
              "[" << kOp << "] expected query, key and value to have the same dtype, got " << dtype_name(q_in->dtype())
                  << ", " << dtype_name(k_in->dtype()) << " and " << dtype_name(v_in->dtype()));
  LUCID_CHECK(is_floating(q_in->dtype()), DtypeMismatch,
              "[" << kOp << "] expected floating-point query, key and value, got " << dtype_name(q_in->dtype()));
  LUCID_CHECK(q_in->device() == k_in->device() && q_in->device() == v_in->device() &&
                  (!mask_in || (*mask_in)->device() == q_in->device()),
              DeviceMismatch, "[" << kOp << "] expected all tensors on one device");
  LUCID_CHECK(q_in->device().type == DeviceType::CPU, NotImplemented,
              "[" << kOp << "] is implemented for CPU tensors only, got a tensor on " << q_in->device());
  const int64_t L = q_in->shape().end()[-2], E = q_in->shape().back();
  const int64_t S = k_in->shape().end()[-2], Ev = v_in->shape().back();
  LUCID_CHECK(k_in->shape().back() == E, ShapeMismatch,
              "[" << kOp << "] query " << shape_str(q_in->shape()) << " and key " << shape_str(k_in->shape())
                  << " must have the same last dimension");
  LUCID_CHECK(v_in->shape().end()[-2] == S, ShapeMismatch,
              "[" << kOp << "] key " << shape_str(k_in->shape()) << " and value " << shape_str(v_in->shape())
                  << " must have the same sequence length (dim -2)");
  LUCID_CHECK(dropout_p >= 0.0 && dropout_p <= 1.0, Value,
              "[" << kOp << "] dropout probability has to be between 0 and 1, but got " << dropout_p);
  LUCID_CHECK(!(is_causal && mask_in), Value,
              "[" << kOp << "] explicit attn_mask should not be set when is_causal=True");
  if (mask_in)
    LUCID_CHECK((*mask_in)->dtype() == Dtype::Bool || is_floating((*mask_in)->dtype()), DtypeMismatch,
                "[" << kOp << "] expected attn_mask dtype to be bool or floating, got " << dtype_name((*mask_in)->dtype()));

  // Batch shapes: with enable_gqa, dim -3 holds the heads (Hk dividing Hq); the rest broadcasts.
  int64_t Hq = 1, Hk = 1;
  Shape outer;
  if (enable_gqa) {
    LUCID_CHECK(q_in->dim() >= 3 && k_in->dim() >= 3 && v_in->dim() >= 3, ShapeMismatch,
                "[" << kOp << "] enable_gqa needs a head dimension (-3) in query, key and value, got "
                    << shape_str(q_in->shape()) << ", " << shape_str(k_in->shape()) << " and " << shape_str(v_in->shape()));
    Hq = q_in->shape().end()[-3];
    Hk = k_in->shape().end()[-3];
    LUCID_CHECK(Hk > 0 && v_in->shape().end()[-3] == Hk && Hq % Hk == 0, ShapeMismatch,
                "[" << kOp << "] number of heads in key and value must divide the number of heads in query, got "
                    << shape_str(q_in->shape()) << ", " << shape_str(k_in->shape()) << " and " << shape_str(v_in->shape()));
    outer = broadcast_shapes({batch_of(q_in, 3), batch_of(k_in, 3), batch_of(v_in, 3)});
  } else {
    outer = broadcast_shapes({batch_of(q_in, 2), batch_of(k_in, 2), batch_of(v_in, 2)});
  }
  Shape qb = outer, kb = outer;
  if (enable_gqa) {
    qb.push_back(Hq);
    kb.push_back(Hk);
  }
  const Dtype out_dt = q_in->dtype();
  const Dtype dt = (out_dt == Dtype::F16 || out_dt == Dtype::BF16) ? Dtype::F32 : out_dt;
  auto in_dt = [&](const Tensor& t) { return t->dtype() == dt ? t : cast(t, dt); };
  Tensor q3 = to_full(in_dt(q_in), cat_shape(qb, {L, E}));
  Tensor k3 = to_full(in_dt(k_in), cat_shape(kb, {S, E}));
  Tensor v3 = to_full(in_dt(v_in), cat_shape(kb, {S, Ev}));
  const int64_t N = prod(qb);

  AttnParams p;
  p.N = N;
  p.L = L;
  p.S = S;
  p.E = E;
  p.Ev = Ev;
  p.Hq = Hq;
  p.Hk = Hk;
  p.scale = scale ? *scale : 1.0 / std::sqrt(double(E));
  p.causal = is_causal;
  p.dropout_p = dropout_p;
  Tensor mask, mask_e;  // the mask (float ones in dt) and its (batch..., L, S) view
  bool mask_grad = false;
  const Shape full_mask = cat_shape(qb, {L, S});
  if (mask_in) {
    mask = *mask_in;
    if (mask->dtype() != Dtype::Bool && mask->dtype() != dt) mask = cast(mask, dt);
    mask_grad = mask->dtype() != Dtype::Bool && autograd::grad_enabled() && autograd::requires_grad(mask);
    {
      autograd::GradModeGuard ng(false);
      mask_e = expand(mask, full_mask, kOp);
    }
    p.mask_kind = mask->dtype() == Dtype::Bool ? AttnMask::Bool : AttnMask::Float;
    p.mask = mask_e->data_ptr();
    const int64_t nb = int64_t(qb.size());
    p.mask_sl = mask_e->strides()[size_t(nb)];
    p.mask_ss = mask_e->strides()[size_t(nb + 1)];
    p.mask_off.assign(size_t(N), 0);
    std::vector<int64_t> idx(size_t(nb), 0);
    for (int64_t n = 0; n < N; ++n) {
      int64_t off = 0;
      for (int64_t d = 0; d < nb; ++d) off += idx[size_t(d)] * mask_e->strides()[size_t(d)];
      p.mask_off[size_t(n)] = off;
      for (int64_t d = nb - 1; d >= 0; --d) {
        if (++idx[size_t(d)] < qb[size_t(d)]) break;
        idx[size_t(d)] = 0;
      }
    }
  }
  if (dropout_p > 0) {
    auto [seed, off] = default_generator()->reserve(uint64_t((N * L * S + 3) / 4));
    p.seed = seed;
    p.offset = off;
  }

  Tensor out = empty_like_layout(cat_shape(qb, {L, Ev}), q3, dt);
  Tensor lse = TensorImpl::empty({N, L}, dt, q3->device());
  p.lq = layout_of(q3);
  p.lk = layout_of(k3);
  p.lv = layout_of(v3);
  p.lo = layout_of(out);
  if (out->numel()) attention_forward_kernel(q3->device())(*out, *lse, *q3, *k3, *v3, p);

  record("ScaledDotProductAttentionBackward0", {&q3, &k3, &v3, mask_grad ? &mask : nullptr}, {&out},
         {SavedTensor(q3, false), SavedTensor(k3, false), SavedTensor(v3, false), SavedTensor(out, true),
          SavedTensor(lse, false)},
         [p, mask, mask_e, mask_grad, full_mask](Node& node, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           std::vector<Tensor> res(4);
           if (!autograd::grad_enabled() && !mask_grad) {
             const Tensor &q = s[0], &k = s[1], &v = s[2], &o = s[3], &lse = s[4];
             Tensor gc = to_full(g[0], o->shape());
             // the gradients laid out as their inputs (a view of a (B, T, H, D) projection gets its
             // gradient in that layout, so the projection's backward reads it without a copy)
             Tensor dq = empty_like_layout(q->shape(), q, q->dtype());
             Tensor dk = empty_like_layout(k->shape(), k, k->dtype());
             Tensor dv = empty_like_layout(v->shape(), v, v->dtype());
             if (q->numel() && k->numel()) {
               AttnParams pb = p;
               pb.lg = layout_of(gc);
               pb.ldq = layout_of(dq);
               pb.ldk = layout_of(dk);
               pb.ldv = layout_of(dv);
               attention_backward_kernel(q->device())(*dq, *dk, *dv, *gc, *q, *k, *v, *o, *lse, pb);
             } else {
               fill_(dq, Scalar::from_double(0));
               fill_(dk, Scalar::from_double(0));
               fill_(dv, Scalar::from_double(0));
             }
             res[0] = dq;
             res[1] = dk;
             res[2] = dv;
             return res;
           }
           // The math in lucid ops (differentiable again), on (heads, rows, cols) reshapes.
           const int64_t N = p.N, L = p.L, S = p.S;
           const Shape qshape = s[0]->shape(), kshape = s[1]->shape(), vshape = s[2]->shape();
           const int64_t Nkv = N / (p.Hq / p.Hk);
           Tensor q = reshape(s[0], {N, L, p.E}), k = reshape(s[1], {Nkv, S, p.E}), v = reshape(s[2], {Nkv, S, p.Ev});
           Tensor g0 = reshape(g[0], {N, L, p.Ev});
           Tensor kk = repeat_heads(k, p.Hq, p.Hk), vv = repeat_heads(v, p.Hq, p.Hk);
           Tensor sc = mul(matmul(q, matrix_transpose(kk)), Scalar::from_double(p.scale));
           if (mask) {
             Tensor m3 = reshape(contiguous(expand(mask, full_mask, kOp)), {N, L, S});
             if (m3->dtype() == Dtype::Bool)
               sc = where(m3, Operand(sc), Operand(Scalar::from_double(-INFINITY)));
             else
               sc = add(sc, m3);
           }
           if (p.causal) {
             Tensor vis = tril(ones({L, S}, Dtype::Bool, q->device()));
             sc = where(vis, Operand(sc), Operand(Scalar::from_double(-INFINITY)));
           }
           // Rows with no visible key (lse +inf) give zeros; their scores are zeroed first so that the
           // softmax and its gradient stay finite there.
           Tensor valid = isfinite(unsqueeze(s[4], -1));
           sc = where(valid, Operand(sc), Operand(Scalar::from_double(0)));
           Tensor P = where(valid, Operand(softmax(sc, -1)), Operand(Scalar::from_double(0)));
           Tensor keep;
           if (p.dropout_p > 0) {
             keep = TensorImpl::empty({N, L, S}, q->dtype(), q->device());
             attention_dropout_mask_kernel(q->device())(*keep, p);
           }
           Tensor Pd = keep ? mul(P, keep) : P;
           Tensor dPd = matmul(g0, matrix_transpose(vv));
           Tensor dP = keep ? mul(dPd, keep) : dPd;
           Tensor dS = mul(P, sub(dP, sum(mul(dP, P), std::vector<int64_t>{-1}, true)));
           if (node.needs_input_grad(0)) res[0] = reshape(mul(matmul(dS, kk), Scalar::from_double(p.scale)), qshape);
           if (node.needs_input_grad(1))
             res[1] = reshape(sum_heads(mul(matmul(matrix_transpose(dS), q), Scalar::from_double(p.scale)), p.Hq, p.Hk),
                              kshape);
           if (node.needs_input_grad(2))
             res[2] = reshape(sum_heads(matmul(matrix_transpose(Pd), g0), p.Hq, p.Hk), vshape);
           if (mask_grad && node.needs_input_grad(3)) res[3] = sum_to(reshape(dS, full_mask), mask->shape());
           return res;
         });
  return out->dtype() == out_dt ? out : cast(out, out_dt);
}

}  // namespace lucid
