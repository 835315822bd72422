// vjps of the reduce family that need more than a line, in lucid ops (double backward works).
#include "ops/binary.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/indexing.h"
#include "ops/reduce.h"
#include "ops/reduce_impl.h"
#include "ops/unary.h"
#include "ops/view.h"

namespace lucid::detail {

void record_nansum(const Tensor& in, const Tensor& out, const std::vector<int64_t>& rd) {
  const Shape keep = reduce_layout(in, rd).keep_shape, in_shape = in->shape();
  // TODO(binary family): zero the gradient at NaN inputs (a mask from eq/isnan)
  record("NansumBackward0", {&in}, {&out}, {}, [keep, in_shape](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{sum_grad_to(g[0], keep, in_shape)};
  });
}

void record_prod(const Tensor& in, const Tensor& out, std::optional<int64_t> dim, bool keepdim) {
  const Shape in_shape = in->shape();
  Shape keep = in_shape;
  if (dim && in->dim() > 0) keep[size_t(*dim)] = 1;
  else keep = Shape(size_t(in->dim()), 1);
  (void)keepdim;
  // TODO(binary family): exact gradients with zeros (where/eq); this is prod/x
  record("ProdBackward0", {&in}, {&out}, {SavedTensor(in, false), SavedTensor(out, true)},
         [keep, in_shape](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           Tensor r = sum_grad_to(s[1], keep, in_shape);
           return std::vector<Tensor>{div(mul(sum_grad_to(g[0], keep, in_shape), r), s[0])};
         });
}

void record_amax(const Tensor&, const Tensor&, const std::vector<int64_t>&, bool) {
  // TODO(binary family): grad * (x == result) / count of ties
}

// The gradient goes to the returned index: a scatter-add of g into zeros (its own vjp is a gather).
void record_max_dim(const Tensor& in, const Tensor& values, const Tensor& indices, int64_t dim, bool keepdim) {
  if (!should_record({&in})) return;
  const Shape in_shape = in->shape();
  const Dtype dt = in->dtype();
  record("MaxBackward0", {&in}, {&values}, {SavedTensor(indices, false)},
         [in_shape, dt, dim, keepdim](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           if (in_shape.empty()) return std::vector<Tensor>{reshape(g[0], in_shape)};
           Tensor gi = keepdim ? g[0] : unsqueeze(g[0], dim);
           Tensor ii = keepdim ? s[0] : unsqueeze(s[0], dim);
           return std::vector<Tensor>{scatter_add(zeros(in_shape, dt, gi->device()), dim, ii, gi)};
         });
}

void record_cumprod(const Tensor& in, const Tensor& out, int64_t d) {
  // TODO(binary family): exact gradients with zeros; this is revcumsum(g * y) / x
  record("CumprodBackward0", {&in}, {&out}, {SavedTensor(in, false), SavedTensor(out, true)},
         [d](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           return std::vector<Tensor>{div(cumsum_reverse(mul(g[0], s[1]), d), s[0])};
         });
}

void record_cummax(const Tensor& in, const Tensor& values, const Tensor& indices, int64_t dim) {
  if (!should_record({&in})) return;
  const Shape in_shape = in->shape();
  const Dtype dt = in->dtype();
  record("CummaxBackward0", {&in}, {&values}, {SavedTensor(indices, false)},
         [in_shape, dt, dim](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           if (in_shape.empty()) return std::vector<Tensor>{g[0]};
           return std::vector<Tensor>{scatter_add(zeros(in_shape, dt, g[0]->device()), dim, s[0], g[0])};
         });
}

}  // namespace lucid::detail
