// vjps of the reduce family that need more than a line, in lucid ops (double backward works).
#include "ops/binary.h"
#include "ops/compare.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/host.h"
#include "ops/shape.h"
#include "ops/indexing.h"
#include "ops/reduce.h"
#include "ops/reduce_impl.h"
#include "ops/unary.h"
#include "ops/view.h"

namespace lucid::detail {

void record_nansum(const Tensor& in, const Tensor& out, const std::vector<int64_t>& rd) {
  const Shape keep = reduce_layout(in, rd).keep_shape, in_shape = in->shape();
  // NaN inputs get no gradient (x == x is false only for NaN)
  record("NansumBackward0", {&in}, {&out}, {SavedTensor(in, false)},
         [keep, in_shape](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           return std::vector<Tensor>{where(eq(s[0], s[0]), sum_grad_to(g[0], keep, in_shape), Scalar::from_int(0))};
         });
}

namespace {

// Does x hold a zero? (The exact, twice-differentiable gradients below cost O(L^2): used only
// when a graph of the gradient is being built and a zero is present.)
bool has_zero(const Tensor& x) { return item(any(eq(x, Scalar::from_int(0)), std::nullopt)).b; }

// x with x_i := 1 in row i: (..., L) -> (..., L, L).
Tensor leave_one_out(const Tensor& x) {
  const int64_t L = x->shape().back();
  Tensor diag = eq(eye(L, L, Dtype::F32, x->device()), Scalar::from_int(1));
  return where(diag, Scalar::from_int(1), unsqueeze(x, -2));
}

// prod over dim d of x, leaving out each element in turn: polynomial in x (twice differentiable).
Tensor prod_others(const Tensor& x, int64_t d) {
  Tensor xl = transpose(x, d, -1);
  return transpose(prod(leave_one_out(xl), -1, false), d, -1);
}

// d prod / d x_i along dim d, exact with zeros: no zero in the slice: prod / x_i; one zero: the
// product of the others at the zero, 0 elsewhere; two or more: 0. r, g: result and gradient with
// the slice's dim kept (size 1).
Tensor prod_grad(const Tensor& x, const Tensor& r, const Tensor& g, int64_t d) {
  const Shape shape = x->shape();
  Tensor z = eq(x, Scalar::from_int(0));
  Tensor nz = expand(sum(z, std::vector<int64_t>{d}, true), shape);
  Tensor xs = where(z, Scalar::from_int(1), x);
  Tensor no_zero = div(expand(r, shape), xs);
  Tensor others = expand(prod(xs, d, true), shape);
  Tensor one_zero = where(logical_and(z, eq(nz, Scalar::from_int(1))), others, Scalar::from_int(0));
  return mul(expand(g, shape), where(eq(nz, Scalar::from_int(0)), no_zero, one_zero));
}

}  // namespace

void record_prod(const Tensor& in, const Tensor& out, std::optional<int64_t> dim, bool keepdim) {
  if (!should_record({&in})) return;
  const Shape in_shape = in->shape();
  record("ProdBackward0", {&in}, {&out}, {SavedTensor(in, false), SavedTensor(out, true)},
         [in_shape, dim](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           if (autograd::grad_enabled() && has_zero(s[0])) {  // double backward through zeros
             if (!dim || in_shape.empty()) {
               Tensor flat = reshape(s[0], {s[0]->numel()});
               return std::vector<Tensor>{reshape(mul(prod_others(flat, 0), reshape(g[0], {1})), in_shape)};
             }
             Shape keep = in_shape;
             keep[size_t(*dim)] = 1;
             return std::vector<Tensor>{mul(prod_others(s[0], *dim), expand(reshape(g[0], keep), in_shape))};
           }
           if (!dim || in_shape.empty()) {  // the whole tensor: one flat slice
             const int64_t n = s[0]->numel();
             Tensor gr = prod_grad(reshape(s[0], {n}), reshape(s[1], {1}), reshape(g[0], {1}), 0);
             return std::vector<Tensor>{reshape(gr, in_shape)};
           }
           Shape keep = in_shape;
           keep[size_t(*dim)] = 1;
           return std::vector<Tensor>{prod_grad(s[0], reshape(s[1], keep), reshape(g[0], keep), *dim)};
         });
  (void)keepdim;
}

// amax/amin (and max()/min() of the whole tensor): the gradient splits evenly among the ties.
void record_amax(const Tensor& in, const Tensor& out, const std::vector<int64_t>& rd, bool keepdim) {
  if (!should_record({&in})) return;
  const Shape keep = reduce_layout(in, rd).keep_shape, in_shape = in->shape();
  const Dtype dt = in->dtype();
  (void)keepdim;
  record("AmaxBackward0", {&in}, {&out}, {SavedTensor(in, false), SavedTensor(out, true)},
         [keep, in_shape, rd, dt](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           Tensor mask = cast(eq(s[0], sum_grad_to(s[1], keep, in_shape)), dt);
           Tensor count = sum_grad_to(sum(mask, rd, true), keep, in_shape);
           return std::vector<Tensor>{div(mul(sum_grad_to(g[0], keep, in_shape), mask), count)};
         });
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

// Exact with zeros: before the first zero of a slice, revcumsum(g * y) / x; at the first zero,
// revcumsum(g * y') with y' the cumprod of x with that zero replaced by 1; after it, 0.
void record_cumprod(const Tensor& in, const Tensor& out, int64_t d) {
  if (!should_record({&in})) return;
  record("CumprodBackward0", {&in}, {&out}, {SavedTensor(in, false), SavedTensor(out, true)},
         [d](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
           const Tensor& x = s[0];
           if (x->dim() == 0) return std::vector<Tensor>{g[0]};
           if (autograd::grad_enabled() && has_zero(x)) {
             // double backward through zeros: grad_i = sum_{k>=i} g_k prod_{j<=k, j!=i} x_j, in O(L^2)
             Tensor xl = transpose(x, d, -1), gl = transpose(g[0], d, -1);
             const int64_t L = xl->shape().back();
             Tensor c = cumprod(leave_one_out(xl), -1);  // [.., i, k] = prod_{j<=k, j!=i} x_j
             Tensor upper = triu(ones({L, L}, x->dtype(), x->device()), 0);
             Tensor r = sum(mul(mul(c, upper), unsqueeze(gl, -2)), std::vector<int64_t>{-1}, false);
             return std::vector<Tensor>{transpose(r, d, -1)};
           }
           Tensor z = eq(x, Scalar::from_int(0));
           Tensor c = cumsum(z, d);
           Tensor before = eq(c, Scalar::from_int(0));
           Tensor first = logical_and(z, eq(c, Scalar::from_int(1)));
           Tensor a = div(cumsum_reverse(mul(g[0], s[1]), d), where(before, x, Scalar::from_int(1)));
           Tensor b = cumsum_reverse(mul(g[0], cumprod(where(first, Scalar::from_int(1), x), d)), d);
           return std::vector<Tensor>{where(before, a, where(first, b, Scalar::from_int(0)))};
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
