// grid_sample (ops/nn_resample.h): PyTorch's grid_sampler over 4-d (bilinear / nearest / bicubic) and 5-d
// (bilinear / nearest) inputs, one fused forward kernel and one fused backward kernel giving the input
// and grid gradients together (backend/cpu/resample_grid.cpp).
#include <sstream>

#include "backend/kernels/resample.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/nn_resample.h"
#include "ops/view.h"

namespace lucid {

namespace {

std::string sizes(const Shape& s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "]";
  return os.str();
}

Tensor zeros_like_(const Tensor& t) { return zeros(t->shape(), t->dtype(), t->device()); }

// The vjp of the backward (double backward) for the cotangents U of gx and V of ggrid: {dg, dx, dgrid}.
// Its own vjp (third order) is not implemented.
std::vector<Tensor> grid_double_backward(const Tensor& U_in, const Tensor& V_in, const Tensor& g, const Tensor& x,
                                         const Tensor& grid, const GridOpts& o) {
  Tensor U = U_in ? contiguous(U_in) : Tensor(), V = V_in ? contiguous(V_in) : Tensor();
  Tensor dg = zeros_like_(g), dx = zeros_like_(x), dgrid = zeros_like_(grid);
  if (g->numel())
    grid_sample_double_backward_kernel(x->device())(*dg, *dx, *dgrid, *g, *x, *grid, U ? U.get() : nullptr,
                                                    V ? V.get() : nullptr, o);
  record("GridSamplerBackwardBackwardBackward0", {&U_in, &V_in, &g, &x, &grid}, {&dg, &dx, &dgrid}, {},
         [](Node&, std::vector<Tensor>&, std::vector<Tensor>&) -> std::vector<Tensor> {
           LUCID_FAIL(NotImplemented, "[grid_sampler] derivatives above the second are not implemented");
         });
  return {dg, dx, dgrid};
}

// x (N, C, D, H, W), grid (N, S, nd) contiguous: {gx, ggrid} for the output gradient g (N, C, S); either is
// null when not wanted. Recorded (both computed) under create_graph, with the double backward as its vjp.
std::vector<Tensor> grid_backward(const Tensor& g_in, const Tensor& x, const Tensor& grid, const GridOpts& o, bool want_x,
                                  bool want_grid) {
  Tensor g = contiguous(g_in);
  const bool graph = autograd::grad_enabled() && should_record({&g, &x, &grid});
  if (graph) want_x = want_grid = true;
  Tensor gx = want_x ? zeros_like_(x) : Tensor();
  Tensor gg = want_grid ? zeros_like_(grid) : Tensor();
  if (g->numel() && (want_x || want_grid))
    grid_sample_backward_kernel(x->device())(want_x ? gx.get() : nullptr, want_grid ? gg.get() : nullptr, *g, *x, *grid,
                                             o);
  if (graph)
    record("GridSamplerBackwardBackward0", {&g, &x, &grid}, {&gx, &gg},
           {SavedTensor(g, false), SavedTensor(x, false), SavedTensor(grid, false)},
           [o](Node&, std::vector<Tensor>& uv, std::vector<Tensor>& s) {
             return grid_double_backward(uv[0], uv[1], s[0], s[1], s[2], o);
           });
  return {gx, gg};
}

}  // namespace

Tensor grid_sample(const Tensor& x_in, const Tensor& grid_in, GridMode mode, GridPadding padding, bool align_corners) {
  const Shape& xs = x_in->shape();
  const Shape& gs = grid_in->shape();
  const int64_t xd = x_in->dim();
  LUCID_CHECK((xd == 4 || xd == 5) && grid_in->dim() == xd, ShapeMismatch,
              "[grid_sampler] expected 4D or 5D input and grid with same number of dimensions, but got input with sizes "
                  << sizes(xs) << " and grid with sizes " << sizes(gs));
  const int nd = int(xd) - 2;
  LUCID_CHECK(gs[0] == xs[0], ShapeMismatch, "[grid_sampler] expected grid and input to have same batch size, but got "
                                             "input with sizes " << sizes(xs) << " and grid with sizes " << sizes(gs));
  LUCID_CHECK(gs.back() == nd, ShapeMismatch, "[grid_sampler] expected grid to have size " << nd
                                                  << " in last dimension, but got grid with sizes " << sizes(gs));
  for (int i = 2; i < xd; ++i)
    LUCID_CHECK(xs[size_t(i)] > 0, ShapeMismatch,
                "[grid_sampler] expected input to have non-empty spatial dimensions, but input has sizes "
                    << sizes(xs) << " with dimension " << i << " being empty");
  LUCID_CHECK(mode != GridMode::Bicubic || nd == 2, NotImplemented,
              "[grid_sampler] bicubic interpolation only supports 4D input");
  LUCID_CHECK(x_in->dtype() == grid_in->dtype(), DtypeMismatch,
              "[grid_sampler] expected input and grid of the same dtype, got " << dtype_name(x_in->dtype()) << " and "
                                                                               << dtype_name(grid_in->dtype()));
  LUCID_CHECK(x_in->device() == grid_in->device(), DeviceMismatch,
              "[grid_sampler] expected input and grid on the same device, got " << x_in->device() << " and "
                                                                                << grid_in->device());
  LUCID_CHECK(x_in->device().type == DeviceType::CPU, NotImplemented,
              "[grid_sampler] runs on CPU only, got a tensor on " << x_in->device());
  const Dtype dt = x_in->dtype();
  if (dt == Dtype::F16 || dt == Dtype::BF16)  // computed in float32
    return to(grid_sample(to(x_in, Dtype::F32, std::nullopt), to(grid_in, Dtype::F32, std::nullopt), mode, padding,
                          align_corners),
              dt, std::nullopt);
  LUCID_CHECK(dt == Dtype::F32 || dt == Dtype::F64, NotImplemented,
              "[grid_sampler] does not support " << dtype_name(dt) << " tensors");
  const int64_t N = xs[0], C = xs[1];
  int64_t S = 1;
  for (int i = 1; i <= nd; ++i) S *= gs[size_t(i)];
  Tensor x = contiguous(reshape(x_in, {N, C, nd == 3 ? xs[2] : 1, xs[size_t(xd - 2)], xs[size_t(xd - 1)]}));
  Tensor grid = contiguous(reshape(grid_in, {N, S, nd}));
  Tensor out = empty({N, C, S}, dt, x->device());
  const GridOpts o{mode, padding, align_corners};
  if (out->numel()) grid_sample_kernel(x->device())(*out, *x, *grid, o);
  record(nd == 2 ? "GridSampler2DBackward0" : "GridSampler3DBackward0", {&x, &grid}, {&out},
         {SavedTensor(x, false), SavedTensor(grid, false)}, [o](Node& n, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           return grid_backward(g[0], s[0], s[1], o, n.needs_input_grad(0), n.needs_input_grad(1));
         });
  Shape os{N, C};
  os.insert(os.end(), gs.begin() + 1, gs.end() - 1);
  return reshape(out, os);
}

}  // namespace lucid
