// Generic pooling (ops/pool.h): average / max / adaptive pooling over 1-3 spatial dims, max unpooling and
// embedding lookups. Each forward sits over a window table (backend/kernels/pool.h); average pooling's
// backward is an engine op whose vjp is the forward again (both linear), max pooling's backward is the
// scatter-add of ops/nn_pool.cpp whose vjp is a gather, so double backward stays exact.
#include <algorithm>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "backend/kernels/pool.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/indexing.h"
#include "ops/nn.h"
#include "ops/pool.h"
#include "ops/shape.h"
#include "ops/view.h"

namespace lucid {

namespace {

using Geom = std::shared_ptr<const PoolGeom>;

std::string vec_str(const IntVec& v) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << (v.size() == 1 ? ",)" : ")");
  return os.str();
}

// Validates rank/dtype; returns x as a contiguous (P, D, H, W) and the leading (batch, channel) shape.
Tensor to_planes(const Tensor& x, int nd, const char* op, Shape& lead, IntVec& spatial, bool ints = false) {
  LUCID_CHECK(x->dim() == nd + 1 || x->dim() == nd + 2, ShapeMismatch,
              "[" << op << "] expected a " << nd + 1 << "-D (unbatched) or " << nd + 2 << "-D (batched) input, got shape "
                  << shape_str(x->shape()));
  LUCID_CHECK(x->dtype() == Dtype::F32 || x->dtype() == Dtype::F64 ||
                  (ints && is_integral(x->dtype(), false)),
              NotImplemented, "[" << op << "] does not support " << dtype_name(x->dtype()) << " tensors");
  const Shape& s = x->shape();
  lead.assign(s.begin(), s.end() - nd);
  spatial.assign(s.end() - nd, s.end());
  for (size_t i = 1; i < lead.size(); ++i)  // the batch dim may be empty, channels and spatial dims not
    LUCID_CHECK(lead[i] > 0, ShapeMismatch, "[" << op << "] expected non-empty channel dim, got input shape " << shape_str(s));
  for (int64_t v : spatial)
    LUCID_CHECK(v > 0, ShapeMismatch, "[" << op << "] expected non-empty spatial dims, got input shape " << shape_str(s));
  int64_t P = 1;
  for (int64_t v : lead) P *= v;
  Shape p{P};
  for (int i = nd; i < 3; ++i) p.push_back(1);
  p.insert(p.end(), spatial.begin(), spatial.end());
  return reshape(contiguous(x), p);
}

Tensor from_planes(const Tensor& y, const Shape& lead, const PoolGeom& g, int nd) {
  Shape s = lead;
  for (int i = 3 - nd; i < 3; ++i) s.push_back(g.ax[i].out);
  return reshape(y, s);
}

IntVec expand_arg(IntVec v, int nd, const char* op, const char* name) {
  if (v.size() == 1 && nd > 1) v.assign(size_t(nd), v[0]);
  LUCID_CHECK(int(v.size()) == nd, Value, "[" << op << "] " << name << " must be an int or a " << nd
                                               << "-tuple of ints, got " << vec_str(v));
  return v;
}

int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

// Fixed windows along one axis.
PoolAxis fixed_axis(int64_t in, int64_t out, int64_t k, int64_t s, int64_t p, int64_t d) {
  PoolAxis a;
  a.in = in, a.out = out, a.step = d;
  for (int64_t o = 0; o < out; ++o) {
    const int64_t start = o * s - p;
    int64_t k0 = 0;
    if (start < 0) k0 = (-start + d - 1) / d;
    int64_t k1 = k;  // taps k0..k1-1 inside [0, in)
    while (k1 > k0 && start + (k1 - 1) * d >= in) --k1;
    a.begin.push_back(start + k0 * d);
    a.taps.push_back(std::max<int64_t>(0, k1 - k0));
    a.span.push_back(std::min(start + k, in + p) - start);
  }
  return a;
}

PoolAxis adaptive_axis(int64_t in, int64_t out) {
  PoolAxis a;
  a.in = in, a.out = out, a.step = 1;
  for (int64_t o = 0; o < out; ++o) {
    const int64_t b = (o * in) / out, e = ((o + 1) * in + out - 1) / out;
    a.begin.push_back(b);
    a.taps.push_back(e - b);
    a.span.push_back(e - b);
  }
  return a;
}

Geom fixed_geom(const IntVec& spatial, int nd, const IntVec& k, const IntVec& s, const IntVec& p, const IntVec& d,
                bool ceil_mode, const char* op, int64_t C) {
  auto g = std::make_shared<PoolGeom>();
  for (int i = 0; i < 3 - nd; ++i) g->ax[i] = fixed_axis(1, 1, 1, 1, 0, 1);
  bool ok = true;
  IntVec outs;
  for (int i = 0; i < nd; ++i) {
    LUCID_CHECK(k[size_t(i)] > 0 && s[size_t(i)] > 0 && d[size_t(i)] > 0, Value,
                "[" << op << "] kernel_size, stride and dilation must be positive, got kernel_size " << vec_str(k)
                    << ", stride " << vec_str(s) << ", dilation " << vec_str(d));
    LUCID_CHECK(p[size_t(i)] >= 0 && p[size_t(i)] <= k[size_t(i)] / 2, Value,
                "[" << op << "] pad should be at most half of effective kernel size, but got pad=" << p[size_t(i)]
                    << ", kernel_size=" << k[size_t(i)]);
    const int64_t o = pooled_size(spatial[size_t(i)], k[size_t(i)], s[size_t(i)], p[size_t(i)], d[size_t(i)], ceil_mode);
    outs.push_back(o);
    ok = ok && o > 0;
    g->ax[3 - nd + i] = fixed_axis(spatial[size_t(i)], o, k[size_t(i)], s[size_t(i)], p[size_t(i)], d[size_t(i)]);
  }
  LUCID_CHECK(ok, ShapeMismatch, "[" << op << "] given input size (" << C << ", " << vec_str(spatial).substr(1)
                                      << ", the calculated output size (" << C << ", " << vec_str(outs).substr(1)
                                      << " is too small");
  return g;
}

Geom adaptive_geom(const IntVec& spatial, int nd, IntVec out, const char* op) {
  auto g = std::make_shared<PoolGeom>();
  for (int i = 0; i < 3 - nd; ++i) g->ax[i] = adaptive_axis(1, 1);
  for (int i = 0; i < nd; ++i) {
    if (out[size_t(i)] == kKeepExtent) out[size_t(i)] = spatial[size_t(i)];
    LUCID_CHECK(out[size_t(i)] >= 0, Value, "[" << op << "] elements of output_size must be greater than or equal to 0, "
                                                  "got " << out[size_t(i)]);
    g->ax[3 - nd + i] = adaptive_axis(spatial[size_t(i)], out[size_t(i)]);
  }
  return g;
}

Shape out_planes(const Tensor& x, const PoolGeom& g) {
  return {x->shape()[0], g.ax[0].out, g.ax[1].out, g.ax[2].out};
}

Tensor avg_planes_backward(const Tensor& g, const Geom& geo, bool cip, int64_t div, const Shape& xs);

// x (P, D, H, W) contiguous -> (P, OD, OH, OW), recording its vjp.
Tensor avg_planes(const Tensor& x_in, const Geom& geo, bool cip, int64_t div) {
  Tensor x = contiguous(x_in);
  Tensor out = empty(out_planes(x, *geo), x->dtype(), x->device());
  if (out->numel()) pool_avg_kernel(x->device())(*out, *x, *geo, cip, div);
  const Shape xs = x->shape();
  record("AvgPoolBackward0", {&x}, {&out}, {}, [geo, cip, div, xs](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{avg_planes_backward(g[0], geo, cip, div, xs)};
  });
  return out;
}

Tensor avg_planes_backward(const Tensor& g_in, const Geom& geo, bool cip, int64_t div, const Shape& xs) {
  Tensor g = contiguous(g_in);
  Tensor gx = zeros(xs, g->dtype(), g->device());
  if (g->numel()) pool_avg_backward_kernel(g->device())(*gx, *g, *geo, cip, div);
  record("AvgPoolBackwardBackward0", {&g}, {&gx}, {}, [geo, cip, div](Node&, std::vector<Tensor>& gg, std::vector<Tensor>&) {
    return std::vector<Tensor>{avg_planes(gg[0], geo, cip, div)};
  });
  return gx;
}

// Scatter-add of g (P, OD, OH, OW) at flat plane indices into zeros (P, D, H, W): max pooling's backward
// and max unpooling's forward (ops/nn_pool.cpp's op, whose vjp is the gather).
Tensor scatter_planes(const Tensor& g, const Tensor& idx, const Shape& xs) {
  const int64_t P = g->shape()[0], L = g->numel() / std::max<int64_t>(1, P);
  const int64_t plane = xs[1] * xs[2] * xs[3];
  Tensor r = max_pool2d_backward(reshape(g, {1, P, L, 1}), reshape(contiguous(idx), {1, P, L, 1}), {1, P, plane, 1});
  return reshape(r, xs);
}

std::pair<Tensor, Tensor> max_planes(const Tensor& x, const Geom& geo) {
  Tensor out = empty(out_planes(x, *geo), x->dtype(), x->device());
  Tensor idx = empty(out_planes(x, *geo), Dtype::I64, x->device());
  if (out->numel()) pool_max_kernel(x->device())(*out, *idx, *x, *geo);
  const Shape xs = x->shape();
  record("MaxPoolWithIndicesBackward0", {&x}, {&out}, {SavedTensor(idx, false)},
         [xs](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           return std::vector<Tensor>{scatter_planes(contiguous(g[0]), s[0], xs)};
         });
  return {out, idx};
}

const char* pool_name(const char* base, int nd) {
  static thread_local std::string s;
  s = std::string(base) + std::to_string(nd) + "d";
  return s.c_str();
}

bool is_half(const Tensor& x) { return x->dtype() == Dtype::F16 || x->dtype() == Dtype::BF16; }
Tensor f32(const Tensor& x) { return to(x, Dtype::F32, std::nullopt); }
Tensor back(const Tensor& r, const Tensor& x) { return to(r, x->dtype(), std::nullopt); }

}  // namespace

Tensor avg_pool(const Tensor& x, int nd, IntVec kernel, IntVec stride, IntVec padding, bool ceil_mode,
                bool count_include_pad, std::optional<int64_t> divisor_override) {
  if (is_half(x))  // float16 / bfloat16 computed in float32
    return back(avg_pool(f32(x), nd, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override), x);
  const std::string op = pool_name("avg_pool", nd);
  Shape lead;
  IntVec spatial;
  Tensor X = to_planes(x, nd, op.c_str(), lead, spatial, true);
  kernel = expand_arg(kernel, nd, op.c_str(), "kernel_size");
  stride = stride.empty() ? kernel : expand_arg(stride, nd, op.c_str(), "stride");
  padding = expand_arg(padding, nd, op.c_str(), "padding");
  LUCID_CHECK(!divisor_override || *divisor_override != 0, Value, "[" << op << "] divisor must be not zero");
  Geom g = fixed_geom(spatial, nd, kernel, stride, padding, IntVec(size_t(nd), 1), ceil_mode, op.c_str(), lead.back());
  return from_planes(avg_planes(X, g, count_include_pad, divisor_override.value_or(0)), lead, *g, nd);
}

std::pair<Tensor, Tensor> max_pool_with_indices(const Tensor& x, int nd, IntVec kernel, IntVec stride, IntVec padding,
                                                IntVec dilation, bool ceil_mode) {
  if (is_half(x)) {
    auto [o, i] = max_pool_with_indices(f32(x), nd, kernel, stride, padding, dilation, ceil_mode);
    return {back(o, x), i};
  }
  const std::string op = pool_name("max_pool", nd);
  Shape lead;
  IntVec spatial;
  Tensor X = to_planes(x, nd, op.c_str(), lead, spatial, true);
  kernel = expand_arg(kernel, nd, op.c_str(), "kernel_size");
  stride = stride.empty() ? kernel : expand_arg(stride, nd, op.c_str(), "stride");
  padding = expand_arg(padding, nd, op.c_str(), "padding");
  dilation = expand_arg(dilation, nd, op.c_str(), "dilation");
  Geom g = fixed_geom(spatial, nd, kernel, stride, padding, dilation, ceil_mode, op.c_str(), lead.back());
  auto [o, i] = max_planes(X, g);
  return {from_planes(o, lead, *g, nd), from_planes(i, lead, *g, nd)};
}

Tensor adaptive_avg_pool(const Tensor& x, int nd, IntVec output_size) {
  if (is_half(x)) return back(adaptive_avg_pool(f32(x), nd, output_size), x);
  const std::string op = pool_name("adaptive_avg_pool", nd);
  output_size = expand_arg(output_size, nd, op.c_str(), "output_size");
  Shape lead;
  IntVec spatial;
  Tensor X = to_planes(x, nd, op.c_str(), lead, spatial);
  Geom g = adaptive_geom(spatial, nd, output_size, op.c_str());
  return from_planes(avg_planes(X, g, false, 0), lead, *g, nd);
}

std::pair<Tensor, Tensor> adaptive_max_pool(const Tensor& x, int nd, IntVec output_size) {
  if (is_half(x)) {
    auto [o, i] = adaptive_max_pool(f32(x), nd, output_size);
    return {back(o, x), i};
  }
  const std::string op = pool_name("adaptive_max_pool", nd);
  output_size = expand_arg(output_size, nd, op.c_str(), "output_size");
  Shape lead;
  IntVec spatial;
  Tensor X = to_planes(x, nd, op.c_str(), lead, spatial);
  Geom g = adaptive_geom(spatial, nd, output_size, op.c_str());
  for (int i = 0; i < 3; ++i)
    LUCID_CHECK(g->ax[i].out > 0, ShapeMismatch,
                "[" << op << "] output_size must be positive, got " << vec_str(output_size));
  auto [o, i] = max_planes(X, g);
  return {from_planes(o, lead, *g, nd), from_planes(i, lead, *g, nd)};
}

Tensor max_unpool(const Tensor& x, const Tensor& indices, int nd, IntVec output_size) {
  if (is_half(x)) return back(max_unpool(f32(x), indices, nd, output_size), x);
  const std::string op = pool_name("max_unpool", nd);
  LUCID_CHECK(indices->dtype() == Dtype::I64, DtypeMismatch,
              "[" << op << "] expected indices of dtype int64, got " << dtype_name(indices->dtype()));
  LUCID_CHECK(indices->shape() == x->shape(), ShapeMismatch,
              "[" << op << "] expected indices of the input's shape " << shape_str(x->shape()) << ", got "
                  << shape_str(indices->shape()));
  output_size = expand_arg(output_size, nd, op.c_str(), "output_size");
  Shape lead;
  IntVec spatial;
  Tensor X = to_planes(x, nd, op.c_str(), lead, spatial);
  int64_t plane = 1;
  for (int64_t v : output_size) {
    LUCID_CHECK(v > 0, Value, "[" << op << "] output_size must be positive, got " << vec_str(output_size));
    plane *= v;
  }
  Tensor I = contiguous(indices);
  LUCID_CHECK(I->device().type == DeviceType::CPU, NotImplemented, "[" << op << "] runs on CPU only");
  const int64_t* ip = I->data<int64_t>();
  for (int64_t i = 0; i < I->numel(); ++i)
    LUCID_CHECK(ip[i] >= 0 && ip[i] < plane, Index,
                "[" << op << "] found an invalid max index " << ip[i] << " (output volumes are of size " << plane << ")");
  // out.flat[idx] = x per plane (PyTorch's assignment: overlapping windows write the same value once);
  // scatter's vjp reads the gradient back at the indices (a gather), as PyTorch's max_unpool backward.
  const int64_t P = X->shape()[0];
  Tensor r = scatter(zeros({P, plane}, X->dtype(), X->device()), 1, reshape(I, {P, -1}), reshape(X, {P, -1}));
  Shape s = lead;
  s.insert(s.end(), output_size.begin(), output_size.end());
  return reshape(r, s);
}

std::pair<Tensor, Tensor> fractional_max_pool(const Tensor& x, int nd, IntVec kernel, IntVec output_size,
                                              const Tensor& samples_in) {
  if (is_half(x)) {
    auto [o, i] = fractional_max_pool(f32(x), nd, kernel, output_size, samples_in);
    return {back(o, x), i};
  }
  const std::string op = pool_name("fractional_max_pool", nd);
  LUCID_CHECK(nd == 2 || nd == 3, Value, "[fractional_max_pool] supports 2 or 3 spatial dims, got " << nd);
  Shape lead;
  IntVec spatial;
  Tensor X = to_planes(x, nd, op.c_str(), lead, spatial);
  kernel = expand_arg(kernel, nd, op.c_str(), "kernel_size");
  output_size = expand_arg(output_size, nd, op.c_str(), "output_size");
  for (int i = 0; i < nd; ++i) {
    LUCID_CHECK(kernel[size_t(i)] > 0 && output_size[size_t(i)] > 0, Value,
                "[" << op << "] kernel_size and output_size must be positive, got kernel_size " << vec_str(kernel)
                    << ", output_size " << vec_str(output_size));
    LUCID_CHECK(output_size[size_t(i)] + kernel[size_t(i)] - 1 <= spatial[size_t(i)], ShapeMismatch,
                "[" << op << "] output_size " << vec_str(output_size) << " plus kernel_size " << vec_str(kernel)
                    << " minus 1 exceeds the input size " << vec_str(spatial));
  }
  const int64_t P = X->shape()[0], C = lead.back();
  const int64_t N = lead.size() == 2 ? lead[0] : 1;
  LUCID_CHECK(samples_in->dim() == 3 && samples_in->shape()[0] == N && samples_in->shape()[1] == C &&
                  samples_in->shape()[2] == nd,
              ShapeMismatch, "[" << op << "] expected _random_samples of shape (" << N << ", " << C << ", " << nd
                                 << "), got " << shape_str(samples_in->shape()));
  Tensor S = to(reshape(samples_in, {P, nd}), X->dtype(), std::nullopt);
  if (nd == 2) S = cat({zeros({P, 1}, X->dtype(), X->device()), flip(S, {1})}, 1);  // (W, H) -> (0, H, W)
  S = contiguous(S);
  std::array<int64_t, 3> k{1, 1, 1};
  Shape os{P, 1, 1, 1};
  for (int i = 0; i < nd; ++i) k[size_t(3 - nd + i)] = kernel[size_t(i)], os[size_t(4 - nd + i)] = output_size[size_t(i)];
  Tensor out = empty(os, X->dtype(), X->device());
  Tensor idx = empty(os, Dtype::I64, X->device());
  if (out->numel()) pool_fractional_max_kernel(X->device())(*out, *idx, *X, *S, k);
  const Shape xs = X->shape();
  record("FractionalMaxPoolBackward0", {&X}, {&out}, {SavedTensor(idx, false)},
         [xs](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           return std::vector<Tensor>{scatter_planes(contiguous(g[0]), s[0], xs)};
         });
  Shape rs = lead;
  rs.insert(rs.end(), output_size.begin(), output_size.end());
  return {reshape(out, rs), reshape(idx, rs)};
}

Tensor embedding(const Tensor& weight, const Tensor& input, int64_t padding_idx, bool scale_grad_by_freq) {
  LUCID_CHECK(weight->dim() == 2, ShapeMismatch, "[embedding] expected a 2-D weight, got shape " << shape_str(weight->shape()));
  LUCID_CHECK(input->dtype() == Dtype::I64 || input->dtype() == Dtype::I32, DtypeMismatch,
              "[embedding] expected indices of dtype int64 or int32, got " << dtype_name(input->dtype()));
  const int64_t V = weight->shape()[0], D = weight->shape()[1];
  Tensor flat = contiguous(reshape(input, {-1}));
  if (flat->dtype() != Dtype::I64) flat = to(flat, Dtype::I64, std::nullopt);
  LUCID_CHECK(flat->device().type == DeviceType::CPU, NotImplemented, "[embedding] runs on CPU only");
  const int64_t M = flat->numel();
  const int64_t* ip = flat->data<int64_t>();
  for (int64_t i = 0; i < M; ++i)
    LUCID_CHECK(ip[i] >= 0 && ip[i] < V, Index, "[embedding] index " << ip[i] << " is out of range for an embedding of "
                                                                        << V << " rows");
  Tensor sel = index_select(alias(weight), 0, flat);
  const bool pad = padding_idx >= 0;
  std::optional<Tensor> scale;
  if (should_record({&weight}) && (pad || scale_grad_by_freq)) {
    std::vector<double> sc(size_t(M), 1.0);
    std::unordered_map<int64_t, int64_t> count;
    if (scale_grad_by_freq)
      for (int64_t i = 0; i < M; ++i) ++count[ip[i]];
    for (int64_t i = 0; i < M; ++i) {
      if (pad && ip[i] == padding_idx) sc[size_t(i)] = 0.0;
      else if (scale_grad_by_freq) sc[size_t(i)] = 1.0 / double(count[ip[i]]);
    }
    scale = to(from_host(sc.data(), {M, 1}, Dtype::F64, weight->device()), weight->dtype(), std::nullopt);
  }
  record("EmbeddingBackward0", {&weight}, {&sel}, {SavedTensor(flat, false)},
         [V, D, scale](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           Tensor gr = g[0];
           if (scale) gr = mul(gr, *scale);
           return std::vector<Tensor>{index_add(zeros({V, D}, gr->dtype(), gr->device()), 0, s[0], gr)};
         });
  Shape os = input->shape();
  os.push_back(D);
  return reshape(sel, os);
}

}  // namespace lucid
