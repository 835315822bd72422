// Fused recurrent cells (ops/nn_rnn.h): checks, one forward kernel per cell, and vjps that run a
// fused backward kernel, or the same formulas in lucid ops when the backward itself is recorded
// (create_graph), so double backward is exact.
#include "autograd/grad_mode.h"
#include "backend/kernels/elementwise.h"
#include "backend/kernels/rnn.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/nn_rnn.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "ops/unary.h"
#include "ops/view.h"

namespace lucid {

namespace {

Scalar one() { return Scalar::from_double(1.0); }
Tensor sigmoid(const Tensor& x) { return unary(UnaryOp::Sigmoid, x); }
Tensor tanh_(const Tensor& x) { return unary(UnaryOp::Tanh, x); }
Tensor one_minus(const Tensor& x) { return sub(one(), x); }
bool is_half(Dtype d) { return d == Dtype::F16 || d == Dtype::BF16; }

// Checks the gate pre-activations (and the state, when given) of `op`: 2-D, gi and gh of one shape
// (B, gates * H), the state (B, H), one floating dtype and one device. Returns H.
int64_t check_cell(const char* op, const Tensor& gi, const Tensor& gh, const Tensor* state, int64_t gates) {
  LUCID_CHECK(gi->dim() == 2 && gh->dim() == 2 && gi->shape() == gh->shape(), ShapeMismatch,
              "[" << op << "] expected input and hidden gates of one shape (batch, " << gates
                  << " * hidden_size), got " << shape_str(gi->shape()) << " and " << shape_str(gh->shape()));
  const int64_t B = gi->shape()[0], G = gi->shape()[1];
  LUCID_CHECK(G % gates == 0, ShapeMismatch,
              "[" << op << "] gate size " << G << " is not a multiple of " << gates << " (gates " << shape_str(gi->shape())
                  << ")");
  const int64_t H = G / gates;
  if (state)
    LUCID_CHECK((*state)->shape() == (Shape{B, H}), ShapeMismatch,
                "[" << op << "] expected a state of shape " << shape_str(Shape{B, H}) << " for gates "
                    << shape_str(gi->shape()) << ", got " << shape_str((*state)->shape()));
  const Dtype d = gi->dtype();
  LUCID_CHECK(is_floating(d), NotImplemented, "[" << op << "] expected floating-point tensors, got " << dtype_name(d));
  LUCID_CHECK(gh->dtype() == d && (!state || (*state)->dtype() == d), DtypeMismatch,
              "[" << op << "] expected tensors of one dtype, got " << dtype_name(d) << ", " << dtype_name(gh->dtype())
                  << (state ? std::string(", ") + dtype_name((*state)->dtype()) : std::string()));
  LUCID_CHECK(gh->device() == gi->device() && (!state || (*state)->device() == gi->device()), DeviceMismatch,
              "[" << op << "] expected tensors on one device, got " << gi->device() << " and " << gh->device());
  return H;
}

// Outputs are saved as aliases (values only): saving the output itself would make a reference cycle
// node -> output -> grad_fn -> node, and the graph would outlive its last use when no backward runs.

// Unit stride along the gates (any row stride) for the kernels.
Tensor rows(const Tensor& t) { return (t->shape()[1] <= 1 || t->strides()[1] == 1) ? t : contiguous(t); }

// The optional biases of a cell: each (G,) of the gates' dtype and device. The kernels take both or
// neither, so a lone one gets a zero partner (a constant: no gradient flows to it).
struct Biases {
  Tensor bi, bh;        // what the kernels read (both defined, or both null)
  bool has_bi, has_bh;  // which ones the caller gave (the node's inputs)
  const TensorImpl* pi() const { return bi ? bi.get() : nullptr; }
  const TensorImpl* ph() const { return bh ? bh.get() : nullptr; }
};

Biases biases(const char* op, const Tensor& gi, const std::optional<Tensor>& bi, const std::optional<Tensor>& bh) {
  const int64_t G = gi->shape()[1];
  for (const auto* b : {&bi, &bh}) {
    if (!*b) continue;
    const Tensor& t = **b;
    LUCID_CHECK(t->dim() == 1 && t->shape()[0] == G, ShapeMismatch,
                "[" << op << "] expected biases of shape (" << G << ") for gates " << shape_str(gi->shape()) << ", got "
                    << shape_str(t->shape()));
    LUCID_CHECK(t->dtype() == gi->dtype(), DtypeMismatch,
                "[" << op << "] expected biases of dtype " << dtype_name(gi->dtype()) << ", got " << dtype_name(t->dtype()));
    LUCID_CHECK(t->device() == gi->device(), DeviceMismatch,
                "[" << op << "] expected biases on " << gi->device() << ", got " << t->device());
  }
  Biases r{bi ? contiguous(*bi) : Tensor(), bh ? contiguous(*bh) : Tensor(), bool(bi), bool(bh)};
  if (r.has_bi != r.has_bh) {
    Tensor z = zeros({G}, gi->dtype(), gi->device());
    (r.has_bi ? r.bh : r.bi) = z;
  }
  return r;
}

std::optional<Tensor> cast_opt(const std::optional<Tensor>& t, Dtype d) {
  return t ? std::optional<Tensor>(cast(*t, d)) : std::nullopt;
}

// gates + bias, in lucid ops (the create_graph path)
Tensor with_bias(const Tensor& g, const Tensor& b) { return b ? add(g, b) : g; }
Tensor bias_grad(const Tensor& d) { return sum(d, Dims(std::vector<int64_t>{0})); }

}  // namespace

std::pair<Tensor, Tensor> fused_lstm_cell(const Tensor& gi_in, const Tensor& gh_in, const Tensor& c_in,
                                          const std::optional<Tensor>& bi_in, const std::optional<Tensor>& bh_in) {
  const int64_t H = check_cell("lstm_cell", gi_in, gh_in, &c_in, 4);
  const Dtype dt = gi_in->dtype();
  if (is_half(dt)) {
    auto [h, c] = fused_lstm_cell(cast(gi_in, Dtype::F32), cast(gh_in, Dtype::F32), cast(c_in, Dtype::F32),
                                  cast_opt(bi_in, Dtype::F32), cast_opt(bh_in, Dtype::F32));
    return {cast(h, dt), cast(c, dt)};
  }
  Tensor gi = rows(gi_in), gh = rows(gh_in), c = contiguous(c_in);
  const Biases b = biases("lstm_cell", gi, bi_in, bh_in);
  const int64_t B = gi->shape()[0];
  Tensor h_out = TensorImpl::empty({B, H}, dt, gi->device());
  Tensor c_out = TensorImpl::empty({B, H}, dt, gi->device());
  if (B * H) lstm_cell_kernel(gi->device())(*h_out, *c_out, *gi, *gh, b.pi(), b.ph(), *c);
  record("ThnnFusedLstmCellBackward0", {&gi, &gh, &c, b.has_bi ? &b.bi : nullptr, b.has_bh ? &b.bh : nullptr},
         {&h_out, &c_out},
         {SavedTensor(gi, false), SavedTensor(gh, false), SavedTensor(c, false), SavedTensor(alias(c_out), false),
          SavedTensor(b.bi, false), SavedTensor(b.bh, false)},
         [H](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           const Tensor &gi = s[0], &gh = s[1], &c = s[2], &bi = s[4], &bh = s[5];
           Tensor d_gates, dc;
           if (autograd::grad_enabled()) {  // create_graph: the gates as functions of the inputs
             std::vector<Tensor> a = split(add(with_bias(gi, bi), with_bias(gh, bh)), H, 1);
             Tensor i = sigmoid(a[0]), f = sigmoid(a[1]), gg = tanh_(a[2]), o = sigmoid(a[3]);
             Tensor tc = tanh_(add(mul(f, c), mul(i, gg)));
             Tensor dcn = add(g[1], mul(mul(g[0], o), one_minus(mul(tc, tc))));
             d_gates = cat({mul(mul(dcn, gg), mul(i, one_minus(i))), mul(mul(dcn, c), mul(f, one_minus(f))),
                            mul(mul(dcn, i), one_minus(mul(gg, gg))), mul(mul(g[0], tc), mul(o, one_minus(o)))},
                           1);
             dc = mul(dcn, f);
           } else {
             const Dtype dt = c->dtype();
             Tensor dh = contiguous(g[0]->dtype() == dt ? g[0] : cast(g[0], dt));
             Tensor dco = contiguous(g[1]->dtype() == dt ? g[1] : cast(g[1], dt));
             d_gates = TensorImpl::empty(gi->shape(), dt, c->device());
             dc = TensorImpl::empty(c->shape(), dt, c->device());
             if (c->numel())
               lstm_cell_backward_kernel(c->device())(*d_gates, *dc, *dh, *dco, *gi, *gh, bi ? bi.get() : nullptr,
                                                      bh ? bh.get() : nullptr, *c, *s[3]);
           }
           Tensor db = (n.needs_input_grad(3) || n.needs_input_grad(4)) ? bias_grad(d_gates) : Tensor();
           return std::vector<Tensor>{n.needs_input_grad(0) ? d_gates : Tensor(), n.needs_input_grad(1) ? d_gates : Tensor(),
                                      n.needs_input_grad(2) ? dc : Tensor(), n.needs_input_grad(3) ? db : Tensor(),
                                      n.needs_input_grad(4) ? db : Tensor()};
         });
  return {h_out, c_out};
}

Tensor fused_gru_cell(const Tensor& gi_in, const Tensor& gh_in, const Tensor& h_in, const std::optional<Tensor>& bi_in,
                      const std::optional<Tensor>& bh_in) {
  const int64_t H = check_cell("gru_cell", gi_in, gh_in, &h_in, 3);
  const Dtype dt = gi_in->dtype();
  if (is_half(dt))
    return cast(fused_gru_cell(cast(gi_in, Dtype::F32), cast(gh_in, Dtype::F32), cast(h_in, Dtype::F32),
                               cast_opt(bi_in, Dtype::F32), cast_opt(bh_in, Dtype::F32)),
                dt);
  Tensor gi = rows(gi_in), gh = rows(gh_in), h = contiguous(h_in);
  const Biases b = biases("gru_cell", gi, bi_in, bh_in);
  const int64_t B = gi->shape()[0];
  Tensor h_out = TensorImpl::empty({B, H}, dt, gi->device());
  if (B * H) gru_cell_kernel(gi->device())(*h_out, *gi, *gh, b.pi(), b.ph(), *h);
  record("ThnnFusedGruCellBackward0", {&gi, &gh, &h, b.has_bi ? &b.bi : nullptr, b.has_bh ? &b.bh : nullptr},
         {&h_out},
         {SavedTensor(gi, false), SavedTensor(gh, false), SavedTensor(h, false), SavedTensor(b.bi, false),
          SavedTensor(b.bh, false)},
         [H](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           const Tensor &gi = s[0], &gh = s[1], &h = s[2], &bi = s[3], &bh = s[4];
           Tensor dgi, dgh, dh;
           if (autograd::grad_enabled()) {
             std::vector<Tensor> a = split(with_bias(gi, bi), H, 1), b = split(with_bias(gh, bh), H, 1);
             Tensor r = sigmoid(add(a[0], b[0])), z = sigmoid(add(a[1], b[1]));
             Tensor nn = tanh_(add(a[2], mul(r, b[2])));
             Tensor dn = mul(mul(g[0], one_minus(z)), one_minus(mul(nn, nn)));
             Tensor dz = mul(mul(g[0], sub(h, nn)), mul(z, one_minus(z)));
             Tensor dr = mul(mul(dn, b[2]), mul(r, one_minus(r)));
             dgi = cat({dr, dz, dn}, 1);
             dgh = cat({dr, dz, mul(dn, r)}, 1);
             dh = mul(g[0], z);
           } else {
             const Dtype dt = h->dtype();
             Tensor go = contiguous(g[0]->dtype() == dt ? g[0] : cast(g[0], dt));
             dgi = TensorImpl::empty(gi->shape(), dt, h->device());
             dgh = TensorImpl::empty(gi->shape(), dt, h->device());
             dh = TensorImpl::empty(h->shape(), dt, h->device());
             if (h->numel())
               gru_cell_backward_kernel(h->device())(*dgi, *dgh, *dh, *go, *gi, *gh, bi ? bi.get() : nullptr,
                                                     bh ? bh.get() : nullptr, *h);
           }
           return std::vector<Tensor>{n.needs_input_grad(0) ? dgi : Tensor(), n.needs_input_grad(1) ? dgh : Tensor(),
                                      n.needs_input_grad(2) ? dh : Tensor(),
                                      n.needs_input_grad(3) ? bias_grad(dgi) : Tensor(),
                                      n.needs_input_grad(4) ? bias_grad(dgh) : Tensor()};
         });
  return h_out;
}

Tensor fused_rnn_cell(const Tensor& gi_in, const Tensor& gh_in, const std::string& nonlinearity,
                      const std::optional<Tensor>& bi_in, const std::optional<Tensor>& bh_in) {
  LUCID_CHECK(nonlinearity == "tanh" || nonlinearity == "relu", Value,
              "[rnn_cell] unknown nonlinearity '" << nonlinearity << "' (expected 'tanh' or 'relu')");
  const bool relu = nonlinearity == "relu";
  check_cell("rnn_cell", gi_in, gh_in, nullptr, 1);
  const Dtype dt = gi_in->dtype();
  if (is_half(dt))
    return cast(fused_rnn_cell(cast(gi_in, Dtype::F32), cast(gh_in, Dtype::F32), nonlinearity,
                               cast_opt(bi_in, Dtype::F32), cast_opt(bh_in, Dtype::F32)),
                dt);
  Tensor gi = rows(gi_in), gh = rows(gh_in);
  const Biases b = biases("rnn_cell", gi, bi_in, bh_in);
  Tensor h_out = TensorImpl::empty(gi->shape(), dt, gi->device());
  if (h_out->numel()) rnn_cell_kernel(gi->device())(*h_out, *gi, *gh, b.pi(), b.ph(), relu);
  record(relu ? "RnnReluCellBackward0" : "RnnTanhCellBackward0",
         {&gi, &gh, b.has_bi ? &b.bi : nullptr, b.has_bh ? &b.bh : nullptr}, {&h_out},
         {SavedTensor(gi, false), SavedTensor(gh, false), SavedTensor(alias(h_out), false), SavedTensor(b.bi, false),
          SavedTensor(b.bh, false)},
         [relu](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           Tensor d;
           if (autograd::grad_enabled()) {
             Tensor pre = add(with_bias(s[0], s[3]), with_bias(s[1], s[4]));
             // relu' = sign(relu(x)) (0 or 1), whose own derivative is 0 as relu'' is
             d = relu ? mul(g[0], unary(UnaryOp::Sign, unary(UnaryOp::Relu, pre)))
                      : [&] { Tensor h = tanh_(pre); return mul(g[0], one_minus(mul(h, h))); }();
           } else {
             const Dtype dt = s[2]->dtype();
             Tensor go = contiguous(g[0]->dtype() == dt ? g[0] : cast(g[0], dt));
             d = TensorImpl::empty(s[2]->shape(), dt, s[2]->device());
             if (d->numel()) rnn_cell_backward_kernel(d->device())(*d, *go, *s[2], relu);
           }
           Tensor db = (n.needs_input_grad(2) || n.needs_input_grad(3)) ? bias_grad(d) : Tensor();
           return std::vector<Tensor>{n.needs_input_grad(0) ? d : Tensor(), n.needs_input_grad(1) ? d : Tensor(),
                                      n.needs_input_grad(2) ? db : Tensor(), n.needs_input_grad(3) ? db : Tensor()};
         });
  return h_out;
}

std::vector<Tensor> rnn_time_steps(const Tensor& x, const std::vector<int64_t>& sizes) {
  LUCID_CHECK(x->dim() >= 1, ShapeMismatch, "[rnn_time_steps] expected rows, got a 0-d tensor");
  int64_t total = 0;
  for (int64_t n : sizes) {
    LUCID_CHECK(n >= 0, Value, "[rnn_time_steps] negative step size " << n);
    total += n;
  }
  LUCID_CHECK(total == x->shape()[0], ShapeMismatch,
              "[rnn_time_steps] step sizes sum to " << total << ", but the input " << shape_str(x->shape()) << " has "
                                                   << x->shape()[0] << " rows");
  std::vector<Tensor> out;
  out.reserve(sizes.size());
  int64_t off = 0;
  for (int64_t n : sizes) {
    Shape s = x->shape();
    s[0] = n;
    out.push_back(x->as_view(s, x->strides(), x->storage_offset() + off * x->strides()[0]));
    off += n;
  }
  if (!(autograd::grad_enabled() && autograd::requires_grad(x)) || out.empty()) return out;
  auto f = [](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) { return std::vector<Tensor>{cat(g, 0)}; };
  auto node = std::make_shared<FnNode<decltype(f)>>("RnnTimeStepsBackward0", std::vector<SavedTensor>{}, f);
  std::vector<const Tensor*> outs;
  for (const Tensor& t : out) outs.push_back(&t);
  const Tensor* ins[] = {&x};
  autograd::set_history(node, autograd::TensorPtrs(ins), autograd::TensorPtrs(outs));
  return out;
}

}  // namespace lucid
