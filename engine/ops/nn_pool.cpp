// Max pooling with indices; its gradient is an engine op of its own (a scatter-add per plane).
#include <sstream>

#include "backend/kernels/nn.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/indexing.h"
#include "ops/nn.h"
#include "ops/view.h"

namespace lucid {

namespace {

int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  if (span < 0) return 0;  // the dilated kernel does not fit
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;  // the last window must start inside the input or left padding
  return out;
}

}  // namespace

std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& x_in, Pair kernel, Pair stride, Pair padding,
                                                  Pair dilation, bool ceil_mode) {
  LUCID_CHECK(x_in->dim() == 3 || x_in->dim() == 4, ShapeMismatch,
              "[max_pool2d] expected a 3-D (unbatched) or 4-D (batched) input, got shape " << shape_str(x_in->shape()));
  LUCID_CHECK(x_in->dtype() == Dtype::F32 || x_in->dtype() == Dtype::F64, NotImplemented,
              "[max_pool2d] supports float32 and float64 tensors, got " << dtype_name(x_in->dtype()));
  if (stride[0] == 0 && stride[1] == 0) stride = kernel;  // stride=None
  for (int i = 0; i < 2; ++i) {
    LUCID_CHECK(kernel[size_t(i)] > 0 && stride[size_t(i)] > 0 && dilation[size_t(i)] > 0, Value,
                "[max_pool2d] kernel_size, stride and dilation must be positive, got kernel_size ("
                    << kernel[0] << ", " << kernel[1] << "), stride (" << stride[0] << ", " << stride[1]
                    << "), dilation (" << dilation[0] << ", " << dilation[1] << ")");
    LUCID_CHECK(padding[size_t(i)] >= 0 && padding[size_t(i)] <= kernel[size_t(i)] / 2, Value,
                "[max_pool2d] pad should be at most half of effective kernel size, but got pad=" << padding[size_t(i)]
                    << ", kernel_size=" << kernel[size_t(i)]);
  }
  Tensor x = x_in->dim() == 3 ? unsqueeze(x_in, 0) : x_in;
  const int64_t N = x->shape()[0], C = x->shape()[1], H = x->shape()[2], W = x->shape()[3];
  LUCID_CHECK(H > 0 && W > 0, ShapeMismatch,
              "[max_pool2d] expected non-empty spatial dims, got input shape " << shape_str(x_in->shape()));
  Window2d w{kernel[0], kernel[1], stride[0], stride[1], padding[0], padding[1], dilation[0], dilation[1], 0, 0};
  w.oh = pooled_size(H, w.kh, w.sh, w.ph, w.dh, ceil_mode);
  w.ow = pooled_size(W, w.kw, w.sw, w.pw, w.dw, ceil_mode);
  LUCID_CHECK(w.oh > 0 && w.ow > 0, ShapeMismatch,
              "[max_pool2d] given input size (" << C << "x" << H << "x" << W << "), the calculated output size ("
                                               << C << "x" << w.oh << "x" << w.ow << ") is too small");
  Tensor out = TensorImpl::empty({N, C, w.oh, w.ow}, x->dtype(), x->device());
  Tensor idx = TensorImpl::empty({N, C, w.oh, w.ow}, Dtype::I64, x->device());
  if (out->numel()) max_pool2d_kernel(x->device())(*out, *idx, *x, w);
  const Shape xs = x->shape();
  record("MaxPool2DWithIndicesBackward0", {&x}, {&out}, {SavedTensor(idx, false)},
         [xs](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           return std::vector<Tensor>{max_pool2d_backward(g[0], s[0], xs)};
         });
  if (x_in->dim() == 3) return {squeeze(out, std::vector<int64_t>{0}), squeeze(idx, std::vector<int64_t>{0})};
  return {out, idx};
}

Tensor max_pool2d_backward(const Tensor& g_in, const Tensor& indices, const Shape& input_shape) {
  Tensor g = contiguous(g_in);
  // the kernel clears each plane as it scatters into it: no separate zero fill
  Tensor gx = g->numel() ? TensorImpl::empty(input_shape, g->dtype(), g->device())
                         : zeros(input_shape, g->dtype(), g->device());
  if (g->numel()) max_pool2d_backward_kernel(g->device())(*gx, *g, *indices);
  // linear in g: its vjp reads the incoming gradient back at the indices (a gather per plane)
  const Shape gs = g->shape();
  record("MaxPool2DWithIndicesBackwardBackward0", {&g}, {&gx}, {SavedTensor(indices, false)},
         [gs](Node&, std::vector<Tensor>& gg, std::vector<Tensor>& s) {
           Tensor flat = flatten(gg[0], 2, -1);
           return std::vector<Tensor>{reshape(gather(flat, 2, flatten(s[0], 2, -1)), gs)};
         });
  return gx;
}

}  // namespace lucid
