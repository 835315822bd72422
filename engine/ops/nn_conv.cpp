// Convolution of 1, 2 or 3 spatial dims as three fused engine ops, each the vjp material of the
// others (backend/kernels/conv.h; Note [Convolution] in docs/notes/convolution.md):
//   conv(x, w)           y = W * vol2col(x)
//   conv_transpose(x, w) y = col2vol(W^T x)           (the adjoint of conv in x)
//   conv_weight(a, b)    gw = sum_n b_n vol2col(a_n)^T  (the weight gradient of conv)
// conv's vjp is {conv_transpose(g, w), conv_weight(x, g)}, conv_transpose's is
// {conv(g, w), conv_weight(g, x)}, and conv_weight's (it is bilinear) is
// {conv_transpose(b, G), conv(a, G)}: gradients of every order stay within the three.
#include "ops/nn_conv.h"

#include <sstream>

#include "autograd/grad_mode.h"
#include "backend/kernels/conv.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/nn.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "ops/view.h"

namespace lucid {

namespace {

std::string list_str(const IntList& v) {
  std::ostringstream s;
  s << "(";
  for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  s << (v.size() == 1 ? ",)" : ")");
  return s.str();
}

std::string op_name(const char* base, int64_t nd) { return std::string(base) + std::to_string(nd) + "d"; }

Shape with_spatial(int64_t a, int64_t b, const int64_t* v, int64_t nd) {
  Shape s{a, b};
  for (int64_t i = 3 - nd; i < 3; ++i) s.push_back(v[i]);
  return s;
}

Dims reduce_dims(int64_t rank) {
  std::vector<int64_t> d{0};
  for (int64_t i = 2; i < rank; ++i) d.push_back(i);
  return d;
}

// contiguous() without recording: the fused ops record their own node on the original tensors.
Tensor dense(const Tensor& t) {
  if (t->is_contiguous()) return t;
  autograd::GradModeGuard off(false);
  return contiguous(t);
}

// ---- the three fused ops (inputs checked by the public functions)

Tensor conv_op(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, const ConvGeom& g, int64_t groups);
Tensor conv_transpose_op(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, const ConvGeom& g,
                         int64_t groups);
Tensor conv_weight_op(const Tensor& a, const Tensor& bt, const ConvGeom& g, int64_t groups);

// Degenerate sizes (no channels, no positions) skip the kernel: GEMMs of zero extent are not BLAS's.
bool degenerate(const Tensor& out, int64_t contraction) { return out->numel() == 0 || contraction == 0; }

std::optional<Tensor> bias_grad(Node& n, size_t i, const Tensor& g) {
  if (!n.needs_input_grad(i)) return std::nullopt;
  return sum(g, reduce_dims(g->dim()));
}

Tensor conv_op(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, const ConvGeom& g, int64_t groups) {
  const int64_t nd = x->dim() - 2, N = x->shape()[0], OC = w->shape()[0];
  Tensor y = TensorImpl::empty(with_spatial(N, OC, g.out, nd), x->dtype(), x->device());
  if (degenerate(y, w->shape()[1] * g.k_numel())) {
    y = zeros(y->shape(), x->dtype(), x->device());
    if (b && y->numel()) y = add(y, reshape(*b, with_spatial(1, OC, Shape{1, 1, 1}.data(), nd)));
  } else {
    Tensor bd = b ? dense(*b) : Tensor();
    conv_kernel(x->device())(*y, *dense(x), *dense(w), b ? bd.get() : nullptr, g, groups);
  }
  const Tensor* bp = b ? &*b : nullptr;
  record("ConvolutionBackward0", {&x, &w, bp}, {&y}, {SavedTensor(x, false), SavedTensor(w, false)},
         [g, groups, has_b = bool(b)](Node& n, std::vector<Tensor>& gr, std::vector<Tensor>& s) {
           const Tensor go = dense(gr[0]);
           Tensor gx, gw, gb;
           if (n.needs_input_grad(0)) gx = conv_transpose_op(go, s[1], std::nullopt, g, groups);
           if (n.needs_input_grad(1)) gw = conv_weight_op(s[0], go, g, groups);
           if (has_b) gb = bias_grad(n, 2, go).value_or(Tensor());
           return std::vector<Tensor>{gx, gw, gb};
         });
  return y;
}

Tensor conv_transpose_op(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, const ConvGeom& g,
                         int64_t groups) {
  const int64_t nd = x->dim() - 2, N = x->shape()[0], OC = w->shape()[1] * groups;
  Tensor y = TensorImpl::empty(with_spatial(N, OC, g.in, nd), x->dtype(), x->device());
  if (degenerate(y, (x->shape()[1] / groups) * g.out_numel())) {
    y = zeros(y->shape(), x->dtype(), x->device());
    if (b && y->numel()) y = add(y, reshape(*b, with_spatial(1, OC, Shape{1, 1, 1}.data(), nd)));
  } else {
    Tensor bd = b ? dense(*b) : Tensor();
    conv_transpose_kernel(x->device())(*y, *dense(x), *dense(w), b ? bd.get() : nullptr, g, groups);
  }
  const Tensor* bp = b ? &*b : nullptr;
  record("ConvolutionBackward0", {&x, &w, bp}, {&y}, {SavedTensor(x, false), SavedTensor(w, false)},
         [g, groups, has_b = bool(b)](Node& n, std::vector<Tensor>& gr, std::vector<Tensor>& s) {
           const Tensor go = dense(gr[0]);
           Tensor gx, gw, gb;
           if (n.needs_input_grad(0)) gx = conv_op(go, s[1], std::nullopt, g, groups);
           if (n.needs_input_grad(1)) gw = conv_weight_op(go, s[0], g, groups);
           if (has_b) gb = bias_grad(n, 2, go).value_or(Tensor());
           return std::vector<Tensor>{gx, gw, gb};
         });
  return y;
}

// a (N, A, *in), bt (N, B, *out) -> (B, A/groups, *k)
Tensor conv_weight_op(const Tensor& a, const Tensor& bt, const ConvGeom& g, int64_t groups) {
  const int64_t nd = a->dim() - 2, A = a->shape()[1], B = bt->shape()[1];
  Tensor gw = TensorImpl::empty(with_spatial(B, A / groups, g.k, nd), a->dtype(), a->device());
  if (degenerate(gw, a->shape()[0] * g.out_numel())) gw = zeros(gw->shape(), a->dtype(), a->device());
  else conv_weight_kernel(a->device())(*gw, *dense(a), *dense(bt), g, groups);
  record("ConvolutionBackwardBackward0", {&a, &bt}, {&gw}, {SavedTensor(a, false), SavedTensor(bt, false)},
         [g, groups](Node& n, std::vector<Tensor>& gr, std::vector<Tensor>& s) {
           const Tensor G = dense(gr[0]);
           Tensor ga, gb;
           if (n.needs_input_grad(0)) ga = conv_transpose_op(s[1], G, std::nullopt, g, groups);
           if (n.needs_input_grad(1)) gb = conv_op(s[0], G, std::nullopt, g, groups);
           return std::vector<Tensor>{ga, gb};
         });
  return gw;
}

// ---- argument checks shared by the public functions

void check_common(const std::string& op, const Tensor& x, const Tensor& w, const std::optional<Tensor>& b) {
  LUCID_CHECK(x->device() == w->device() && (!b || (*b)->device() == x->device()), DeviceMismatch,
              "[" << op << "] input, weight and bias must be on one device, got " << x->device() << " and "
                  << w->device());
  LUCID_CHECK(x->dtype() == w->dtype() && (!b || (*b)->dtype() == x->dtype()), DtypeMismatch,
              "[" << op << "] input (" << dtype_name(x->dtype()) << "), weight (" << dtype_name(w->dtype()) << ")"
                  << (b ? std::string(" and bias (") + dtype_name((*b)->dtype()) + ")" : "")
                  << " must have the same dtype");
  LUCID_CHECK(x->dtype() == Dtype::F32 || x->dtype() == Dtype::F64, NotImplemented,
              "[" << op << "] supports float32 and float64 tensors, got " << dtype_name(x->dtype()));
}

std::pair<Tensor, bool> batched(const std::string& op, const Tensor& x, int64_t nd) {
  LUCID_CHECK(x->dim() == nd + 1 || x->dim() == nd + 2, ShapeMismatch,
              "[" << op << "] expected a " << nd + 1 << "-D (unbatched) or " << nd + 2
                  << "-D (batched) input, got shape " << shape_str(x->shape()));
  if (x->dim() == nd + 2) return {x, false};
  return {unsqueeze(x, 0), true};
}

void check_lists(const std::string& op, int64_t nd, std::initializer_list<std::pair<const char*, const IntList*>> ls) {
  for (auto& [name, v] : ls)
    LUCID_CHECK(int64_t(v->size()) == nd, Value,
                "[" << op << "] " << name << " must have " << nd << " entries, got " << list_str(*v));
}

// Geometry with the rank-(3 - nd) leading dims set to unit windows.
ConvGeom geometry(int64_t nd, const Shape& in, const Shape& k, const IntList& s, const IntList& p, const IntList& d) {
  ConvGeom g{};
  for (int i = 0; i < 3; ++i) {
    g.in[i] = g.out[i] = g.k[i] = g.s[i] = g.d[i] = 1;
    g.p[i] = 0;
  }
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t j = 3 - nd + i;
    g.in[j] = in[size_t(i)];
    g.k[j] = k[size_t(i)];
    g.s[j] = s[size_t(i)];
    g.p[j] = p[size_t(i)];
    g.d[j] = d[size_t(i)];
  }
  return g;
}

void check_window(const std::string& op, const IntList& s, const IntList& p, const IntList& d) {
  for (int64_t v : s) LUCID_CHECK(v > 0, Value, "[" << op << "] stride must be positive, got " << list_str(s));
  for (int64_t v : d) LUCID_CHECK(v > 0, Value, "[" << op << "] dilation must be positive, got " << list_str(d));
  for (int64_t v : p) LUCID_CHECK(v >= 0, Value, "[" << op << "] padding must be non-negative, got " << list_str(p));
}

Shape kernel_of(const Tensor& w, int64_t nd) { return Shape(w->shape().end() - nd, w->shape().end()); }

}  // namespace

Tensor convolution(const Tensor& x_in, const Tensor& weight, const std::optional<Tensor>& bias, int64_t nd,
                   const IntList& stride, const IntList& padding, const IntList& dilation, int64_t groups) {
  const std::string op = op_name("conv", nd);
  check_common(op, x_in, weight, bias);
  check_lists(op, nd, {{"stride", &stride}, {"padding", &padding}, {"dilation", &dilation}});
  check_window(op, stride, padding, dilation);
  auto [x, unb] = batched(op, x_in, nd);
  LUCID_CHECK(weight->dim() == nd + 2, ShapeMismatch,
              "[" << op << "] expected a " << nd + 2 << "-D weight (out_channels, in_channels/groups, *kernel_size), "
                  << "got shape " << shape_str(weight->shape()));
  LUCID_CHECK(groups > 0, Value, "[" << op << "] groups must be positive, got " << groups);
  const int64_t C = x->shape()[1], OC = weight->shape()[0], Cg = weight->shape()[1];
  LUCID_CHECK(OC % groups == 0, ShapeMismatch,
              "[" << op << "] out_channels (" << OC << ") of weight " << shape_str(weight->shape())
                  << " must be divisible by groups (" << groups << ")");
  LUCID_CHECK(C == Cg * groups, ShapeMismatch,
              "[" << op << "] input of shape " << shape_str(x_in->shape()) << " has " << C
                  << " channels, but weight of shape " << shape_str(weight->shape()) << " with groups=" << groups
                  << " expects " << Cg * groups);
  if (bias)
    LUCID_CHECK((*bias)->dim() == 1 && (*bias)->shape()[0] == OC, ShapeMismatch,
                "[" << op << "] expected a bias of shape (" << OC << ",), got " << shape_str((*bias)->shape()));
  const Shape k = kernel_of(weight, nd);
  ConvGeom g = geometry(nd, Shape(x->shape().begin() + 2, x->shape().end()), k, stride, padding, dilation);
  for (int i = 0; i < 3; ++i) {
    const int64_t span = g.in[i] + 2 * g.p[i] - g.d[i] * (g.k[i] - 1) - 1;
    LUCID_CHECK(span >= 0 && g.k[i] > 0, ShapeMismatch,
                "[" << op << "] input of shape " << shape_str(x_in->shape()) << " with padding " << list_str(padding)
                    << " is smaller than the dilated kernel of weight " << shape_str(weight->shape())
                    << " (dilation " << list_str(dilation) << ")");
    g.out[i] = span / g.s[i] + 1;
  }
  Tensor y = conv_op(x, weight, bias, g, groups);
  return unb ? squeeze(y, std::vector<int64_t>{0}) : y;
}

Tensor convolution(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias, int64_t nd,
                   const IntList& stride, const std::string& padding, const IntList& dilation, int64_t groups) {
  const std::string op = op_name("conv", nd);
  if (padding == "valid") return convolution(x, weight, bias, nd, stride, IntList(size_t(nd), 0), dilation, groups);
  LUCID_CHECK(padding == "same", Value,
              "[" << op << "] padding must be 'same', 'valid' or numbers, got '" << padding << "'");
  check_lists(op, nd, {{"stride", &stride}, {"dilation", &dilation}});
  for (int64_t v : stride)
    LUCID_CHECK(v == 1, Value, "[" << op << "] padding='same' is not supported for strided convolutions");
  LUCID_CHECK(weight->dim() == nd + 2, ShapeMismatch,
              "[" << op << "] expected a " << nd + 2 << "-D weight, got shape " << shape_str(weight->shape()));
  // total padding d*(k-1) per dim; an odd total puts the extra element at the end (as PyTorch)
  IntList lo = IntList(size_t(nd), 0), tail;
  bool odd = false;
  for (int64_t i = nd - 1; i >= 0; --i) {  // F.pad lists the last dim first
    const int64_t total = dilation[size_t(i)] * (weight->shape()[size_t(2 + i)] - 1);
    lo[size_t(i)] = total / 2;
    tail.push_back(0);
    tail.push_back(total % 2);
    odd = odd || total % 2;
  }
  Tensor xi = odd ? pad(x, tail, "constant") : x;
  return convolution(xi, weight, bias, nd, stride, lo, dilation, groups);
}

Tensor conv_transpose(const Tensor& x_in, const Tensor& weight, const std::optional<Tensor>& bias, int64_t nd,
                      const IntList& stride, const IntList& padding, const IntList& output_padding, int64_t groups,
                      const IntList& dilation) {
  const std::string op = op_name("conv_transpose", nd);
  check_common(op, x_in, weight, bias);
  check_lists(op, nd, {{"stride", &stride}, {"padding", &padding}, {"output_padding", &output_padding},
                       {"dilation", &dilation}});
  check_window(op, stride, padding, dilation);
  auto [x, unb] = batched(op, x_in, nd);
  LUCID_CHECK(weight->dim() == nd + 2, ShapeMismatch,
              "[" << op << "] expected a " << nd + 2
                  << "-D weight (in_channels, out_channels/groups, *kernel_size), got shape "
                  << shape_str(weight->shape()));
  LUCID_CHECK(groups > 0, Value, "[" << op << "] groups must be positive, got " << groups);
  const int64_t C = x->shape()[1];
  LUCID_CHECK(weight->shape()[0] == C && C % groups == 0, ShapeMismatch,
              "[" << op << "] input of shape " << shape_str(x_in->shape()) << " has " << C
                  << " channels, but weight of shape " << shape_str(weight->shape()) << " with groups=" << groups
                  << " expects " << weight->shape()[0] << " (divisible by groups)");
  const int64_t OC = weight->shape()[1] * groups;
  if (bias)
    LUCID_CHECK((*bias)->dim() == 1 && (*bias)->shape()[0] == OC, ShapeMismatch,
                "[" << op << "] expected a bias of shape (" << OC << ",), got " << shape_str((*bias)->shape()));
  for (int64_t i = 0; i < nd; ++i)
    LUCID_CHECK(output_padding[size_t(i)] >= 0 &&
                    (output_padding[size_t(i)] < stride[size_t(i)] || output_padding[size_t(i)] < dilation[size_t(i)]),
                Value,
                "[" << op << "] output padding must be non-negative and smaller than either stride or dilation, got "
                    << "output_padding " << list_str(output_padding) << ", stride " << list_str(stride)
                    << ", dilation " << list_str(dilation));
  const Shape k = kernel_of(weight, nd);
  Shape out = Shape(size_t(nd), 0);
  for (int64_t i = 0; i < nd; ++i) {
    const size_t u = size_t(i);
    out[u] = (x->shape()[u + 2] - 1) * stride[u] - 2 * padding[u] + dilation[u] * (k[u] - 1) + output_padding[u] + 1;
    LUCID_CHECK(out[u] > 0, ShapeMismatch,
                "[" << op << "] input of shape " << shape_str(x_in->shape()) << " with weight of shape "
                    << shape_str(weight->shape()) << ", stride " << list_str(stride) << ", padding "
                    << list_str(padding) << " gives a non-positive output size " << shape_str(out));
  }
  // the convolution from the output back to x: "in" is the output, "out" is x's spatial extent
  ConvGeom g = geometry(nd, out, k, stride, padding, dilation);
  for (int64_t i = 0; i < nd; ++i) g.out[3 - nd + i] = x->shape()[size_t(2 + i)];
  Tensor y = conv_transpose_op(x, weight, bias, g, groups);
  return unb ? squeeze(y, std::vector<int64_t>{0}) : y;
}

// ---- the 2-d entry points of ops/nn.h

Tensor conv2d(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias, Pair stride, Pair padding,
              Pair dilation, int64_t groups) {
  return convolution(x, weight, bias, 2, IntList(stride.begin(), stride.end()), IntList(padding.begin(), padding.end()),
                     IntList(dilation.begin(), dilation.end()), groups);
}

Tensor conv2d_padding_mode(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias, Pair stride,
                           const std::string& padding, Pair dilation, int64_t groups) {
  return convolution(x, weight, bias, 2, IntList(stride.begin(), stride.end()), padding,
                     IntList(dilation.begin(), dilation.end()), groups);
}

}  // namespace lucid
