#include "ops/shape.h"

#include <algorithm>
#include <numeric>

#include "backend/kernels/elementwise.h"
#include "backend/kernels/shape.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/host.h"
#include "ops/indexing.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace lucid {

namespace {

// Records `f` as the backward of `out` over a list of inputs (cat, stack, block_diag).
template <typename F>
void record_list(const char* name, const std::vector<Tensor>& inputs, const Tensor& out, F f) {
  if (!autograd::grad_enabled()) return;
  bool any = false;
  for (const Tensor& t : inputs) any = any || autograd::requires_grad(t);
  if (!any || !(is_floating(out->dtype()) || is_complex(out->dtype()))) return;
  auto node = std::make_shared<FnNode<F>>(name, std::vector<SavedTensor>{}, std::move(f));
  std::vector<const Tensor*> ins;
  ins.reserve(inputs.size());
  for (const Tensor& t : inputs) ins.push_back(&t);
  autograd::set_history(node, ins, {&out});
}

// Views of a freshly allocated output, without autograd bookkeeping (kernels write through them).
Tensor raw_narrow(const Tensor& t, int64_t d, int64_t start, int64_t len) {
  Shape s = t->shape();
  s[size_t(d)] = len;
  return t->as_view(s, t->strides(), t->storage_offset() + start * t->strides()[size_t(d)]);
}

Tensor raw_select(const Tensor& t, int64_t d, int64_t i) {
  Shape s = t->shape();
  Strides st = t->strides();
  const int64_t off = t->storage_offset() + i * st[size_t(d)];
  s.erase(s.begin() + d);
  st.erase(st.begin() + d);
  return t->as_view(s, st, off);
}

// The gradient of an input that was cast on the way in goes back to its dtype.
Tensor grad_as(const Tensor& g, Dtype dt) {
  if (g->dtype() == dt) return g;
  // a real input joined with complex ones gets the real part (as PyTorch)
  if (is_complex(g->dtype()) && !is_complex(dt)) return cast(select(view_as_real(contiguous(g)), -1, 0), dt);
  return cast(g, dt);
}

Dtype joined_dtype(const std::vector<Tensor>& ts, const char* op) {
  LUCID_CHECK(!ts.empty(), Value, "[" << op << "] expected a non-empty list of tensors");
  Dtype dt = ts[0]->dtype();
  const Device dev = ts[0]->device();
  for (size_t i = 0; i < ts.size(); ++i) {
    LUCID_CHECK(ts[i], Type, "[" << op << "] expected a tensor at position " << i);
    LUCID_CHECK(ts[i]->device() == dev, DeviceMismatch,
                "[" << op << "] expected all tensors to be on the same device, but tensor 0 is on " << dev
                    << " and tensor " << i << " is on " << ts[i]->device());
    dt = promote_types(dt, ts[i]->dtype());
  }
  return dt;
}

bool is_legacy_empty(const Tensor& t) { return t->dim() == 1 && t->numel() == 0; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// joining

Tensor cat(const std::vector<Tensor>& ts, int64_t dim) {
  const Dtype dt = joined_dtype(ts, "cat");
  const Device dev = ts[0]->device();
  size_t ref = ts.size();
  for (size_t i = 0; i < ts.size(); ++i) {
    LUCID_CHECK(ts[i]->dim() > 0, ShapeMismatch, "[cat] zero-dimensional tensor (at position " << i << ") cannot be concatenated");
    if (ref == ts.size() && !is_legacy_empty(ts[i])) ref = i;
  }
  if (ref == ts.size()) ref = 0;  // all are 1-D and empty
  const Tensor& r = ts[ref];
  const int64_t d = wrap_dim(dim, r->dim(), "cat");
  const bool r1 = r->dim() == 1;
  std::vector<bool> skip(ts.size());
  Shape out_shape = r->shape();
  out_shape[size_t(d)] = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const Tensor& t = ts[i];
    skip[i] = !r1 && is_legacy_empty(t);
    if (skip[i]) continue;
    LUCID_CHECK(t->dim() == r->dim(), ShapeMismatch,
                "[cat] tensors must have the same number of dimensions: got " << r->dim() << " and " << t->dim()
                    << " (tensor " << ref << " of shape " << shape_str(r->shape()) << ", tensor " << i << " of shape "
                    << shape_str(t->shape()) << ")");
    for (int64_t k = 0; k < r->dim(); ++k)
      LUCID_CHECK(k == d || t->shape()[size_t(k)] == r->shape()[size_t(k)], ShapeMismatch,
                  "[cat] sizes of tensors must match except in dimension " << d << ": expected size "
                      << r->shape()[size_t(k)] << " but got size " << t->shape()[size_t(k)] << " for tensor number " << i
                      << " in the list (shapes " << shape_str(r->shape()) << " and " << shape_str(t->shape()) << ")");
    out_shape[size_t(d)] += t->shape()[size_t(d)];
  }
  Tensor out = TensorImpl::empty(out_shape, dt, dev);
  std::vector<int64_t> offs(ts.size(), 0);
  int64_t off = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (skip[i]) continue;
    const int64_t len = ts[i]->shape()[size_t(d)];
    offs[i] = off;
    if (ts[i]->numel()) copy_kernel(dev)(*raw_narrow(out, d, off, len), *ts[i]);
    off += len;
  }
  if (autograd::grad_enabled()) {
    std::vector<Shape> shapes;
    std::vector<Dtype> dts;
    for (const Tensor& t : ts) { shapes.push_back(t->shape()); dts.push_back(t->dtype()); }
    record_list("CatBackward0", ts, out, [d, offs, skip, shapes, dts](Node& node, std::vector<Tensor>& g, std::vector<Tensor>&) {
      std::vector<Tensor> res(shapes.size());
      for (size_t i = 0; i < shapes.size(); ++i) {
        if (!node.needs_input_grad(i)) continue;
        res[i] = skip[i] ? zeros(shapes[i], dts[i], g[0]->device())
                         : grad_as(narrow(g[0], d, offs[i], shapes[i][size_t(d)]), dts[i]);
      }
      return res;
    });
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& ts, int64_t dim) {
  const Dtype dt = joined_dtype(ts, "stack");
  const Device dev = ts[0]->device();
  const Shape& s0 = ts[0]->shape();
  for (size_t i = 1; i < ts.size(); ++i)
    LUCID_CHECK(ts[i]->shape() == s0, ShapeMismatch,
                "[stack] expects each tensor to be equal size, but got " << shape_str(s0) << " at entry 0 and "
                    << shape_str(ts[i]->shape()) << " at entry " << i);
  const int64_t d = wrap_dim(dim, ts[0]->dim() + 1, "stack");
  Shape out_shape = s0;
  out_shape.insert(out_shape.begin() + d, int64_t(ts.size()));
  Tensor out = TensorImpl::empty(out_shape, dt, dev);
  if (out->numel())
    for (size_t i = 0; i < ts.size(); ++i) copy_kernel(dev)(*raw_select(out, d, int64_t(i)), *ts[i]);
  if (autograd::grad_enabled()) {
    std::vector<Dtype> dts;
    for (const Tensor& t : ts) dts.push_back(t->dtype());
    record_list("StackBackward0", ts, out, [d, dts](Node& node, std::vector<Tensor>& g, std::vector<Tensor>&) {
      std::vector<Tensor> res(dts.size());
      for (size_t i = 0; i < dts.size(); ++i)
        if (node.needs_input_grad(i)) res[i] = grad_as(select(g[0], d, int64_t(i)), dts[i]);
      return res;
    });
  }
  return out;
}

namespace {
std::vector<Tensor> map_all(const std::vector<Tensor>& ts, Tensor (*f)(const Tensor&)) {
  std::vector<Tensor> r;
  r.reserve(ts.size());
  for (const Tensor& t : ts) r.push_back(f(t));
  return r;
}
}  // namespace

Tensor hstack(const std::vector<Tensor>& ts) {
  LUCID_CHECK(!ts.empty(), Generic, "[hstack] expected a non-empty list of tensors");
  auto xs = map_all(ts, atleast_1d);
  return cat(xs, xs[0]->dim() == 1 ? 0 : 1);
}

Tensor vstack(const std::vector<Tensor>& ts) {
  LUCID_CHECK(!ts.empty(), Generic, "[vstack] expected a non-empty list of tensors");
  return cat(map_all(ts, atleast_2d), 0);
}

Tensor dstack(const std::vector<Tensor>& ts) {
  LUCID_CHECK(!ts.empty(), Generic, "[dstack] expected a non-empty list of tensors");
  return cat(map_all(ts, atleast_3d), 2);
}

Tensor column_stack(const std::vector<Tensor>& ts) {
  LUCID_CHECK(!ts.empty(), Generic, "[column_stack] expected a non-empty list of tensors");
  std::vector<Tensor> xs;
  for (const Tensor& t : ts) xs.push_back(t->dim() <= 1 ? reshape(t, {t->numel(), 1}) : t);
  return cat(xs, 1);
}

// ---------------------------------------------------------------------------------------------
// splitting

std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim) {
  LUCID_CHECK(t->dim() > 0, ShapeMismatch, "[split] expected a tensor with at least one dimension, got a 0-d tensor");
  const int64_t d = wrap_dim(dim, t->dim(), "split");
  const int64_t n = t->shape()[size_t(d)];
  LUCID_CHECK(split_size >= 0, Generic, "[split] expects split_size be non-negative, but got split_size=" << split_size);
  LUCID_CHECK(split_size > 0 || n == 0, ShapeMismatch,
              "[split] split_size can only be 0 if dimension size is 0, but got dimension size of " << n);
  const int64_t count = split_size == 0 ? 1 : std::max<int64_t>((n + split_size - 1) / split_size, 1);
  std::vector<Tensor> out;
  out.reserve(size_t(count));
  for (int64_t i = 0; i < count; ++i) {
    const int64_t start = i * split_size;
    out.push_back(narrow(t, d, start, std::min(split_size, n - start)));
  }
  return out;
}

std::vector<Tensor> split_with_sizes(const Tensor& t, const std::vector<int64_t>& sizes, int64_t dim) {
  LUCID_CHECK(t->dim() > 0, ShapeMismatch, "[split] expected a tensor with at least one dimension, got a 0-d tensor");
  const int64_t d = wrap_dim(dim, t->dim(), "split");
  const int64_t n = t->shape()[size_t(d)];
  int64_t total = 0;
  for (int64_t s : sizes) {
    LUCID_CHECK(s >= 0, Generic, "[split] split_sizes must be non-negative, got split_sizes=" << shape_str(sizes));
    total += s;
  }
  LUCID_CHECK(total == n, ShapeMismatch,
              "[split] split_with_sizes expects split_sizes to sum exactly to " << n << " (input tensor's size at dimension "
                  << d << "), but got split_sizes=" << shape_str(sizes));
  std::vector<Tensor> out;
  out.reserve(sizes.size());
  int64_t off = 0;
  for (int64_t s : sizes) {
    out.push_back(narrow(t, d, off, s));
    off += s;
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim) {
  LUCID_CHECK(t->dim() > 0, ShapeMismatch, "[chunk] expects at least a 1-dimensional tensor");
  LUCID_CHECK(chunks > 0, Generic, "[chunk] expects `chunks` to be greater than 0, got: " << chunks);
  const int64_t d = wrap_dim(dim, t->dim(), "chunk");
  const int64_t n = t->shape()[size_t(d)];
  const int64_t size = (n + chunks - 1) / chunks;
  if (size == 0 && n == 0) return split_with_sizes(t, std::vector<int64_t>(size_t(chunks), 0), d);
  return split(t, size, d);
}

std::vector<Tensor> tensor_split(const Tensor& t, int64_t sections, int64_t dim) {
  LUCID_CHECK(t->dim() > 0, ShapeMismatch, "[tensor_split] expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  LUCID_CHECK(sections > 0, Generic, "[tensor_split] number of sections must be larger than 0, got " << sections);
  const int64_t d = wrap_dim(dim, t->dim(), "tensor_split");
  const int64_t n = t->shape()[size_t(d)];
  std::vector<Tensor> out;
  out.reserve(size_t(sections));
  int64_t off = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t len = n / sections + (i < n % sections ? 1 : 0);
    out.push_back(narrow(t, d, off, len));
    off += len;
  }
  return out;
}

std::vector<Tensor> tensor_split_indices(const Tensor& t, const std::vector<int64_t>& indices, int64_t dim) {
  LUCID_CHECK(t->dim() > 0, ShapeMismatch, "[tensor_split] expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  const int64_t d = wrap_dim(dim, t->dim(), "tensor_split");
  const int64_t n = t->shape()[size_t(d)];
  auto clampi = [n](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
  std::vector<Tensor> out;
  out.reserve(indices.size() + 1);
  int64_t start = 0;
  for (int64_t idx : indices) {
    const int64_t end = clampi(idx);
    out.push_back(narrow(t, d, start, std::max<int64_t>(end - start, 0)));
    start = end;
  }
  out.push_back(narrow(t, d, start, n - start));
  return out;
}

std::vector<Tensor> unbind(const Tensor& t, int64_t dim) {
  LUCID_CHECK(t->dim() > 0, Index, "[unbind] dimension specified as " << dim << " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim, t->dim(), "unbind");
  std::vector<Tensor> out;
  out.reserve(size_t(t->shape()[size_t(d)]));
  for (int64_t i = 0; i < t->shape()[size_t(d)]; ++i) out.push_back(select(t, d, i));
  return out;
}

std::vector<Tensor> directional_split(const Tensor& t, char which, std::optional<int64_t> sections,
                                      const std::vector<int64_t>& indices) {
  const char* name = which == 'h' ? "hsplit" : which == 'v' ? "vsplit" : "dsplit";
  const int64_t need = which == 'h' ? 1 : which == 'v' ? 2 : 3;
  LUCID_CHECK(t->dim() >= need, ShapeMismatch,
              "[" << name << "] requires a tensor with at least " << need << " dimension, but got a tensor with "
                  << t->dim() << " dimensions");
  const int64_t d = which == 'h' ? (t->dim() == 1 ? 0 : 1) : which == 'v' ? 0 : 2;
  if (!sections) return tensor_split_indices(t, indices, d);
  const int64_t n = t->shape()[size_t(d)];
  LUCID_CHECK(*sections != 0 && n % *sections == 0, ShapeMismatch,
              "[" << name << "] attempted to split along dimension " << d << ", but the size of the dimension " << n
                  << " is not divisible by the split_size " << *sections);
  return tensor_split(t, *sections, d);
}

// ---------------------------------------------------------------------------------------------
// reshaping and reordering

Tensor unflatten(const Tensor& t, int64_t dim, const std::vector<int64_t>& sizes) {
  const int64_t d = wrap_dim(dim, t->dim(), "unflatten");
  LUCID_CHECK(!sizes.empty(), ShapeMismatch, "[unflatten] sizes must be non-empty");
  const int64_t n = t->dim() == 0 ? 1 : t->shape()[size_t(d)];
  Shape inner = infer_size(sizes, n, "unflatten");
  Shape s(t->shape().begin(), t->shape().begin() + std::min<int64_t>(d, t->dim()));
  s.insert(s.end(), inner.begin(), inner.end());
  if (t->dim() > 0) s.insert(s.end(), t->shape().begin() + d + 1, t->shape().end());
  return view(t, s);
}

Tensor ravel(const Tensor& t) { return reshape(t, {-1}); }

Tensor movedim(const Tensor& t, const std::vector<int64_t>& src, const std::vector<int64_t>& dst) {
  LUCID_CHECK(src.size() == dst.size(), ShapeMismatch,
              "[movedim] invalid source or destination dims: source " << shape_str(src) << " and destination "
                  << shape_str(dst) << " must have the same number of elements");
  const int64_t n = t->dim();
  std::vector<int64_t> order(size_t(n), -1);
  std::vector<bool> used_src(size_t(std::max<int64_t>(n, 1)), false), used_dst(size_t(std::max<int64_t>(n, 1)), false);
  for (size_t i = 0; i < src.size(); ++i) {
    const int64_t s = wrap_dim(src[i], n, "movedim"), e = wrap_dim(dst[i], n, "movedim");
    LUCID_CHECK(!used_src[size_t(s)], Generic, "[movedim] repeated dim in `source` " << shape_str(src));
    LUCID_CHECK(!used_dst[size_t(e)], Generic, "[movedim] repeated dim in `destination` " << shape_str(dst));
    used_src[size_t(s)] = used_dst[size_t(e)] = true;
    if (n > 0) order[size_t(e)] = s;
  }
  if (n == 0) return permute(t, {});
  int64_t next = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (order[size_t(i)] != -1) continue;
    while (used_src[size_t(next)]) ++next;
    order[size_t(i)] = next++;
  }
  return permute(t, order);
}

Tensor flip(const Tensor& t, const std::vector<int64_t>& dims) {
  std::vector<bool> f(size_t(t->dim()), false);
  for (int64_t d0 : dims) {
    const int64_t d = wrap_dim(d0, t->dim(), "flip");
    if (t->dim() == 0) continue;
    LUCID_CHECK(!f[size_t(d)], Generic, "[flip] dim " << d << " appears multiple times in the list of dims " << shape_str(dims));
    f[size_t(d)] = true;
  }
  Tensor out = TensorImpl::empty(t->shape(), t->dtype(), t->device());
  if (out->numel()) flip_kernel(t->device())(*out, *t, f);
  record("FlipBackward0", {&t}, {&out}, {}, [dims](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{flip(g[0], dims)};
  });
  return out;
}

Tensor fliplr(const Tensor& t) {
  LUCID_CHECK(t->dim() >= 2, ShapeMismatch, "[fliplr] input must be >= 2-d, got a " << t->dim() << "-d tensor");
  return flip(t, {1});
}

Tensor flipud(const Tensor& t) {
  LUCID_CHECK(t->dim() >= 1, ShapeMismatch, "[flipud] input must be >= 1-d, got a 0-d tensor");
  return flip(t, {0});
}

Tensor roll(const Tensor& t, const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims) {
  LUCID_CHECK(!shifts.empty(), Value, "[roll] `shifts` required");
  if (dims.empty()) {
    LUCID_CHECK(shifts.size() == 1, ShapeMismatch,
                "[roll] shifts and dimensions must align: got " << shifts.size() << " shifts and no dims");
    return view(roll(reshape(t, {-1}), shifts, {0}), t->shape());
  }
  LUCID_CHECK(shifts.size() == dims.size(), ShapeMismatch,
              "[roll] shifts and dimensions must align: got " << shifts.size() << " shifts and " << dims.size() << " dims");
  // The net shift per dim (a dim may repeat), then one copy per block: 2^(rolled dims) narrow copies.
  const int64_t nd = std::max<int64_t>(t->dim(), 1);
  std::vector<int64_t> net(size_t(nd), 0);
  for (size_t i = 0; i < dims.size(); ++i) net[size_t(wrap_dim(dims[i], t->dim(), "roll"))] += shifts[i];
  Tensor src = t->dim() == 0 ? reshape(t, {1}) : t;
  std::vector<int64_t> rd, rs;
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t n = src->shape()[size_t(d)];
    const int64_t sh = n ? ((net[size_t(d)] % n) + n) % n : 0;
    if (sh) { rd.push_back(d); rs.push_back(sh); }
  }
  Tensor out = TensorImpl::empty(t->shape(), t->dtype(), t->device());
  Tensor dst = t->dim() == 0 ? out->as_view({1}, {1}, 0) : out;
  if (out->numel()) {
    if (rd.empty()) copy_kernel(t->device())(*dst, *src);
    for (uint32_t mask = 0; rd.size() && mask < (1u << rd.size()); ++mask) {
      Tensor o = dst, in = src;
      for (size_t j = 0; j < rd.size(); ++j) {
        const int64_t d = rd[j], n = src->shape()[size_t(d)], sh = rs[j];
        // out[sh:n] = in[0:n-sh], out[0:sh] = in[n-sh:n]
        if (mask & (1u << j)) { o = raw_narrow(o, d, 0, sh); in = raw_narrow(in, d, n - sh, sh); }
        else { o = raw_narrow(o, d, sh, n - sh); in = raw_narrow(in, d, 0, n - sh); }
      }
      copy_kernel(t->device())(*o, *in);
    }
  }
  std::vector<int64_t> back(shifts.size());
  for (size_t i = 0; i < shifts.size(); ++i) back[i] = -shifts[i];
  record("RollBackward0", {&t}, {&out}, {}, [back, dims](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{roll(g[0], back, dims)};
  });
  return out;
}

Tensor rot90(const Tensor& t, int64_t k, const std::vector<int64_t>& dims) {
  LUCID_CHECK(dims.size() == 2, Generic, "[rot90] expected total rotation dims == 2, but got dims = " << dims.size());
  LUCID_CHECK(t->dim() >= 2, ShapeMismatch, "[rot90] expected total dims >= 2, but got total dims = " << t->dim());
  const int64_t a = wrap_dim(dims[0], t->dim(), "rot90"), b = wrap_dim(dims[1], t->dim(), "rot90");
  LUCID_CHECK(a != b, Generic, "[rot90] expected rotation dims to be different, but got dim0 = " << a << " and dim1 = " << b);
  k = ((k % 4) + 4) % 4;
  // a transposed view flipped once: one copy, and a contiguous result
  switch (k) {
    case 1: return flip(transpose(t, a, b), {a});
    case 2: return flip(t, {a, b});
    case 3: return flip(transpose(t, a, b), {b});
    default: return clone(t);
  }
}

// ---------------------------------------------------------------------------------------------
// repeating

Tensor repeat(const Tensor& t, const std::vector<int64_t>& reps) {
  const int64_t nd = int64_t(reps.size());
  LUCID_CHECK(nd >= t->dim(), ShapeMismatch,
              "[repeat] number of dimensions of repeat dims (" << nd << ") can not be smaller than number of dimensions of tensor ("
                  << t->dim() << ")");
  for (int64_t r : reps) LUCID_CHECK(r >= 0, Generic, "[repeat] repeats cannot be negative, got " << shape_str(reps));
  Shape padded(size_t(nd - t->dim()), 1);
  padded.insert(padded.end(), t->shape().begin(), t->shape().end());
  Shape split_shape, big, final_shape;
  for (int64_t i = 0; i < nd; ++i) {
    split_shape.push_back(1);
    split_shape.push_back(padded[size_t(i)]);
    big.push_back(reps[size_t(i)]);
    big.push_back(padded[size_t(i)]);
    final_shape.push_back(reps[size_t(i)] * padded[size_t(i)]);
  }
  return view(clone(expand(reshape(t, split_shape), big, "repeat")), final_shape);
}

Tensor tile(const Tensor& t, const std::vector<int64_t>& dims) {
  std::vector<int64_t> reps(size_t(std::max<int64_t>(0, t->dim() - int64_t(dims.size()))), 1);
  reps.insert(reps.end(), dims.begin(), dims.end());
  return repeat(t, reps);
}

Tensor repeat_interleave(const Tensor& t, int64_t repeats, std::optional<int64_t> dim, std::optional<int64_t> output_size) {
  LUCID_CHECK(repeats >= 0, Generic, "[repeat_interleave] repeats can not be negative, got " << repeats);
  Tensor x = dim ? t : reshape(t, {-1});
  const int64_t d = dim ? wrap_dim(*dim, x->dim(), "repeat_interleave") : 0;
  if (x->dim() == 0) x = reshape(x, {1});
  const int64_t n = x->shape()[size_t(d)];
  if (output_size)
    LUCID_CHECK(*output_size == n * repeats, ShapeMismatch,
                "[repeat_interleave] output_size " << *output_size << " does not match the result size " << n * repeats);
  Tensor u = unsqueeze(x, d + 1);
  Shape big = u->shape();
  big[size_t(d + 1)] = repeats;
  Shape final_shape = x->shape();
  final_shape[size_t(d)] = n * repeats;
  return view(clone(expand(u, big, "repeat_interleave")), final_shape);
}

namespace {
std::vector<int64_t> host_ints(const Tensor& t, const char* op) {
  LUCID_CHECK(!is_floating(t->dtype()) && !is_complex(t->dtype()) && t->dtype() != Dtype::Bool, DtypeMismatch,
              "[" << op << "] repeats must have an integer dtype, got " << dtype_name(t->dtype()));
  Tensor h = to_host_contiguous(cast(t, Dtype::I64));
  const int64_t* p = h->data<int64_t>();
  return std::vector<int64_t>(p, p + h->numel());
}
}  // namespace

Tensor repeat_interleave(const Tensor& t, const Tensor& repeats, std::optional<int64_t> dim, std::optional<int64_t> output_size) {
  LUCID_CHECK(repeats->dim() <= 1, ShapeMismatch, "[repeat_interleave] repeats must be 0-dim or 1-dim tensor, got " << repeats->dim() << " dims");
  std::vector<int64_t> reps = host_ints(repeats, "repeat_interleave");
  Tensor x = dim ? t : reshape(t, {-1});
  if (x->dim() == 0) x = reshape(x, {1});
  const int64_t d = dim ? wrap_dim(*dim, x->dim(), "repeat_interleave") : 0;
  const int64_t n = x->shape()[size_t(d)];
  if (reps.size() == 1 && n != 1) return repeat_interleave(t, reps[0], dim, output_size);
  LUCID_CHECK(int64_t(reps.size()) == n, ShapeMismatch,
              "[repeat_interleave] repeats must have the same size as input along dim " << d << ": got " << reps.size()
                  << " repeats for a dimension of size " << n);
  int64_t total = 0;
  for (int64_t r : reps) {
    LUCID_CHECK(r >= 0, Generic, "[repeat_interleave] repeats can not be negative");
    total += r;
  }
  if (output_size)
    LUCID_CHECK(*output_size == total, ShapeMismatch,
                "[repeat_interleave] output_size " << *output_size << " does not match the result size " << total);
  std::vector<int64_t> idx;
  idx.reserve(size_t(total));
  for (int64_t i = 0; i < n; ++i) idx.insert(idx.end(), size_t(reps[size_t(i)]), i);
  return index_select(x, d, from_host(idx.data(), {total}, Dtype::I64, x->device()));
}

Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  LUCID_CHECK(repeats->dim() <= 1, ShapeMismatch, "[repeat_interleave] repeats must be 0-dim or 1-dim tensor");
  std::vector<int64_t> reps = host_ints(repeats, "repeat_interleave");
  std::vector<int64_t> idx;
  for (size_t i = 0; i < reps.size(); ++i) {
    LUCID_CHECK(reps[i] >= 0, Generic, "[repeat_interleave] repeats can not be negative");
    idx.insert(idx.end(), size_t(reps[i]), int64_t(i));
  }
  if (output_size)
    LUCID_CHECK(*output_size == int64_t(idx.size()), ShapeMismatch,
                "[repeat_interleave] output_size " << *output_size << " does not match the result size " << idx.size());
  return cast(from_host(idx.data(), {int64_t(idx.size())}, Dtype::I64, repeats->device()), repeats->dtype());
}

// ---------------------------------------------------------------------------------------------
// padding

namespace {

// Constant padding (negative pads crop): its gradient is the same op with the pads negated.
Tensor pad_constant(const Tensor& t, const std::vector<int64_t>& p, const Scalar& value) {
  const int64_t k = int64_t(p.size()) / 2;
  Shape out_shape = t->shape();
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = t->dim() - 1 - i;
    const int64_t sz = t->shape()[size_t(d)] + p[size_t(2 * i)] + p[size_t(2 * i + 1)];
    LUCID_CHECK(sz >= 0, ShapeMismatch,
                "[pad] the input size " << t->shape()[size_t(d)] << " at dimension " << d << " with padding ("
                    << p[size_t(2 * i)] << ", " << p[size_t(2 * i + 1)] << ") gives a negative output size " << sz);
    out_shape[size_t(d)] = sz;
  }
  Tensor out = full(out_shape, value, t->dtype(), t->device());
  Tensor dst = out, src = t;
  bool any = out->numel() > 0;
  {
    autograd::GradModeGuard off(false);
    for (int64_t i = 0; i < k && any; ++i) {
      const int64_t d = t->dim() - 1 - i;
      const int64_t lo = p[size_t(2 * i)], hi = p[size_t(2 * i + 1)];
      const int64_t n = t->shape()[size_t(d)];
      const int64_t s_start = std::max<int64_t>(0, -lo), s_end = n - std::max<int64_t>(0, -hi);
      if (s_end <= s_start) { any = false; break; }
      src = raw_narrow(src, d, s_start, s_end - s_start);
      dst = raw_narrow(dst, d, std::max<int64_t>(0, lo), s_end - s_start);
    }
  }
  if (any && src->numel()) copy_kernel(t->device())(*dst, *src);
  std::vector<int64_t> neg(p.size());
  for (size_t i = 0; i < p.size(); ++i) neg[i] = -p[i];
  record("ConstantPadNdBackward0", {&t}, {&out}, {}, [neg](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{pad_constant(g[0], neg, Scalar::from_int(0))};
  });
  return out;
}

using PadMapsPtr = std::shared_ptr<const PadMaps>;
Tensor pad_gather_backward(const Tensor& g, const Shape& in_shape, const PadMapsPtr& maps);

// Reflect/replicate/circular padding as one gather through per-dim index maps; its gradient is the
// adjoint scatter-add (pad_gather_backward), and each is the other's vjp (double backward).
Tensor pad_gather(const Tensor& t, const Shape& out_shape, const PadMapsPtr& maps) {
  Tensor out = TensorImpl::empty(out_shape, t->dtype(), t->device());
  if (out->numel()) pad_gather_kernel(t->device())(*out, *t, *maps);
  const Shape in_shape = t->shape();
  record("ReflectionPadBackward0", {&t}, {&out}, {}, [in_shape, maps](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{pad_gather_backward(g[0], in_shape, maps)};
  });
  return out;
}

Tensor pad_gather_backward(const Tensor& g_in, const Shape& in_shape, const PadMapsPtr& maps) {
  Tensor g = contiguous(g_in);
  Tensor gi = zeros(in_shape, g->dtype(), g->device());
  if (g->numel()) pad_scatter_add_kernel(g->device())(*gi, *g, *maps);
  const Shape out_shape = g->shape();
  record("PadBackwardBackward0", {&g}, {&gi}, {}, [out_shape, maps](Node&, std::vector<Tensor>& gg, std::vector<Tensor>&) {
    return std::vector<Tensor>{pad_gather(gg[0], out_shape, maps)};
  });
  return gi;
}

}  // namespace

Tensor pad(const Tensor& t, const std::vector<int64_t>& p, const std::string& mode, std::optional<Scalar> value) {
  LUCID_CHECK(p.size() % 2 == 0, ShapeMismatch, "[pad] padding length must be divisible by 2, got " << p.size());
  LUCID_CHECK(int64_t(p.size()) / 2 <= t->dim(), ShapeMismatch,
              "[pad] padding length should be less than or equal to two times the input dimension but got padding length "
                  << p.size() << " and input of dimension " << t->dim());
  if (mode == "constant") return pad_constant(t, p, value.value_or(Scalar::from_int(0)));
  LUCID_CHECK(!value || (value->re == 0.0 && value->im == 0.0 && value->i == 0), Generic,
              "[pad] padding mode \"" << mode << "\" doesn't take in value argument");
  LUCID_CHECK(mode == "reflect" || mode == "replicate" || mode == "circular", NotImplemented,
              "[pad] unrecognised padding mode \"" << mode << "\": expected constant, reflect, replicate or circular");
  const int64_t k = int64_t(p.size()) / 2;
  LUCID_CHECK(k >= 1 && k <= 3 && (t->dim() == k + 1 || t->dim() == k + 2), NotImplemented,
              "[pad] padding size " << p.size() << " is not supported for " << t->dim() << "D input tensor in mode "
                  << mode << ": supported are a 2D or 3D input with padding size 2, 3D or 4D with 4, 4D or 5D with 6");
  auto maps = std::make_shared<PadMaps>(size_t(t->dim()));
  Shape out_shape = t->shape();
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = t->dim() - 1 - i;
    const int64_t lo = p[size_t(2 * i)], hi = p[size_t(2 * i + 1)];
    const int64_t n = t->shape()[size_t(d)];
    LUCID_CHECK(lo >= 0 && hi >= 0, NotImplemented,
                "[pad] negative padding (" << lo << ", " << hi << ") is only supported in constant mode");
    if (mode == "reflect")
      LUCID_CHECK(lo < n && hi < n, ShapeMismatch,
                  "[pad] padding size should be less than the corresponding input dimension, but got: padding (" << lo
                      << ", " << hi << ") at dimension " << d << " of input " << shape_str(t->shape()));
    else if (mode == "replicate")
      LUCID_CHECK(n > 0, ShapeMismatch, "[pad] replicate padding of the empty dimension " << d << " of input " << shape_str(t->shape()));
    else
      LUCID_CHECK(lo <= n && hi <= n, ShapeMismatch,
                  "[pad] padding value causes wrapping around more than once: padding (" << lo << ", " << hi
                      << ") at dimension " << d << " of input " << shape_str(t->shape()));
    out_shape[size_t(d)] = n + lo + hi;
    std::vector<int64_t>& m = (*maps)[size_t(d)];
    m.resize(size_t(n + lo + hi));
    for (int64_t o = 0; o < n + lo + hi; ++o) {
      int64_t j = o - lo;
      if (mode == "reflect") j = j < 0 ? -j : (j >= n ? 2 * (n - 1) - j : j);
      else if (mode == "replicate") j = std::clamp<int64_t>(j, 0, n - 1);
      else j = ((j % n) + n) % n;
      m[size_t(o)] = j;
    }
  }
  return pad_gather(t, out_shape, maps);
}

// ---------------------------------------------------------------------------------------------
// triangles and diagonals

namespace {
Tensor tri(const Tensor& t, int64_t k, bool upper) {
  const char* name = upper ? "triu" : "tril";
  LUCID_CHECK(t->dim() >= 2, ShapeMismatch, "[" << name << "] input tensor must have at least 2 dimensions, got " << t->dim());
  Tensor out = TensorImpl::empty(t->shape(), t->dtype(), t->device());
  if (out->numel()) {
    copy_kernel(t->device())(*out, *t);
    tri_mask_kernel(t->device())(*out, k, upper);
  }
  record(upper ? "TriuBackward0" : "TrilBackward0", {&t}, {&out}, {}, [k, upper](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{tri(g[0], k, upper)};
  });
  return out;
}

Tensor tri_indices(int64_t row, int64_t col, int64_t offset, Dtype dtype, Device device, bool upper) {
  const char* name = upper ? "triu_indices" : "tril_indices";
  LUCID_CHECK(row >= 0, Generic, "[" << name << "] row must be non-negative, got " << row);
  LUCID_CHECK(col >= 0, Generic, "[" << name << "] col must be non-negative, got " << col);
  LUCID_CHECK(!is_floating(dtype) && !is_complex(dtype) && dtype != Dtype::Bool, DtypeMismatch,
              "[" << name << "] expected an integer dtype, got " << dtype_name(dtype));
  std::vector<int64_t> rs, cs;
  for (int64_t i = 0; i < row; ++i) {
    const int64_t b = upper ? std::max<int64_t>(0, i + offset) : 0;
    const int64_t e = upper ? col : std::min<int64_t>(col, std::max<int64_t>(0, i + offset + 1));
    for (int64_t j = b; j < e; ++j) { rs.push_back(i); cs.push_back(j); }
  }
  rs.insert(rs.end(), cs.begin(), cs.end());
  const int64_t n = int64_t(cs.size());
  return cast(from_host(rs.data(), {2, n}, Dtype::I64, device), dtype);
}
}  // namespace

Tensor tril(const Tensor& t, int64_t diagonal) { return tri(t, diagonal, false); }
Tensor triu(const Tensor& t, int64_t diagonal) { return tri(t, diagonal, true); }
Tensor tril_(const Tensor& t, int64_t diagonal) { copy_(t, tri(t, diagonal, false)); return t; }
Tensor triu_(const Tensor& t, int64_t diagonal) { copy_(t, tri(t, diagonal, true)); return t; }
Tensor tril_indices(int64_t row, int64_t col, int64_t offset, Dtype dtype, Device device) {
  return tri_indices(row, col, offset, dtype, device, false);
}
Tensor triu_indices(int64_t row, int64_t col, int64_t offset, Dtype dtype, Device device) {
  return tri_indices(row, col, offset, dtype, device, true);
}

Tensor diag_embed(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = t->dim() + 1;
  const int64_t a = wrap_dim(dim1, nd, "diag_embed"), b = wrap_dim(dim2, nd, "diag_embed");
  LUCID_CHECK(a != b, Generic, "[diag_embed] diagonal dimensions cannot be identical " << dim1 << ", " << dim2);
  LUCID_CHECK(t->dim() >= 1, ShapeMismatch, "[diag_embed] expected a tensor of at least 1 dimension, got a 0-d tensor");
  const int64_t n = t->shape().back() + (offset < 0 ? -offset : offset);
  Shape out_shape;
  size_t src = 0;
  for (int64_t i = 0; i < nd; ++i) out_shape.push_back(i == a || i == b ? n : t->shape()[src++]);
  Tensor out = zeros(out_shape, t->dtype(), t->device());
  if (t->numel()) {
    Tensor region;
    {
      autograd::GradModeGuard off(false);
      region = diagonal(out, offset, a, b);
    }
    copy_kernel(t->device())(*region, *t);
  }
  record("DiagEmbedBackward0", {&t}, {&out}, {}, [offset, a, b](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{diagonal(g[0], offset, a, b)};
  });
  return out;
}

Tensor diag(const Tensor& t, int64_t d) {
  LUCID_CHECK(t->dim() == 1 || t->dim() == 2, ShapeMismatch, "[diag] supports 1D or 2D tensors, got " << t->dim() << "D");
  if (t->dim() == 1) return diag_embed(t, d, 0, 1);
  return clone(diagonal(t, d, 0, 1));
}

Tensor diagflat(const Tensor& t, int64_t offset) { return diag_embed(reshape(t, {-1}), offset, 0, 1); }

Tensor block_diag(const std::vector<Tensor>& ts) {
  if (ts.empty()) return TensorImpl::empty({1, 0}, default_dtype(), Device(DeviceType::CPU));
  const Dtype dt = joined_dtype(ts, "block_diag");
  const Device dev = ts[0]->device();
  std::vector<Shape> mats;
  int64_t R = 0, C = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const Tensor& t = ts[i];
    LUCID_CHECK(t->dim() <= 2, ShapeMismatch,
                "[block_diag] input tensors must have 2 or fewer dimensions: input " << i << " has " << t->dim() << " dimensions");
    const Shape s = t->dim() == 2 ? t->shape() : t->dim() == 1 ? Shape{1, t->shape()[0]} : Shape{1, 1};
    R += s[0];
    C += s[1];
    mats.push_back(s);
  }
  Tensor out = zeros({R, C}, dt, dev);
  std::vector<int64_t> rows, cols;
  int64_t r = 0, c = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const int64_t h = mats[i][0], w = mats[i][1];
    rows.push_back(r);
    cols.push_back(c);
    if (h > 0 && w > 0) {
      Tensor src;
      {
        autograd::GradModeGuard off(false);
        src = reshape(ts[i], {h, w});
      }
      copy_kernel(dev)(*raw_narrow(raw_narrow(out, 0, r, h), 1, c, w), *src);
    }
    r += h;
    c += w;
  }
  if (autograd::grad_enabled()) {
    std::vector<Shape> shapes;
    std::vector<Dtype> dts;
    for (const Tensor& t : ts) { shapes.push_back(t->shape()); dts.push_back(t->dtype()); }
    std::vector<int64_t> hs, ws;
    for (const Shape& m : mats) { hs.push_back(m[0]); ws.push_back(m[1]); }
    record_list("BlockDiagBackward0", ts, out, [=](Node& node, std::vector<Tensor>& g, std::vector<Tensor>&) {
      std::vector<Tensor> res(shapes.size());
      for (size_t i = 0; i < shapes.size(); ++i)
        if (node.needs_input_grad(i))
          res[i] = grad_as(reshape(narrow(narrow(g[0], 0, rows[i], hs[i]), 1, cols[i], ws[i]), shapes[i]), dts[i]);
      return res;
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// broadcasting and combinatorics

std::vector<Tensor> meshgrid(const std::vector<Tensor>& ts, const std::string& indexing) {
  LUCID_CHECK(!ts.empty(), Generic, "[meshgrid] expects a non-empty TensorList");
  LUCID_CHECK(indexing == "ij" || indexing == "xy", Generic,
              "[meshgrid] indexing must be one of \"xy\" or \"ij\", but received: " << indexing);
  for (size_t i = 0; i < ts.size(); ++i) {
    LUCID_CHECK(ts[i]->dim() <= 1, ShapeMismatch,
                "[meshgrid] expects all tensors to have 0 or 1 dimensions, but tensor " << i << " has " << ts[i]->dim());
    LUCID_CHECK(ts[i]->dtype() == ts[0]->dtype(), DtypeMismatch,
                "[meshgrid] expects all tensors to have the same dtype: tensor 0 is " << dtype_name(ts[0]->dtype())
                    << " and tensor " << i << " is " << dtype_name(ts[i]->dtype()));
    LUCID_CHECK(ts[i]->device() == ts[0]->device(), DeviceMismatch, "[meshgrid] expects all tensors to be on the same device");
  }
  const bool swap = indexing == "xy" && ts.size() >= 2;
  std::vector<size_t> pos(ts.size());
  std::iota(pos.begin(), pos.end(), 0);
  if (swap) std::swap(pos[0], pos[1]);
  Shape full_shape(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) full_shape[pos[i]] = ts[i]->numel();
  std::vector<Tensor> out;
  for (size_t i = 0; i < ts.size(); ++i) {
    Shape s(ts.size(), 1);
    s[pos[i]] = ts[i]->numel();
    out.push_back(expand(reshape(ts[i], s), full_shape, "meshgrid"));
  }
  return out;
}

Shape broadcast_shapes(const std::vector<Shape>& shapes) {
  Shape r;
  for (const Shape& s : shapes) {
    for (int64_t v : s) LUCID_CHECK(v >= 0, Generic, "[broadcast_shapes] trying to create tensor with negative dimension " << v);
    r = broadcast_shapes(r, s, "broadcast_shapes");
  }
  return r;
}

std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& ts) {
  std::vector<Shape> shapes;
  for (const Tensor& t : ts) shapes.push_back(t->shape());
  const Shape s = broadcast_shapes(shapes);
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(expand(t, s, "broadcast_tensors"));
  return out;
}

Tensor atleast_1d(const Tensor& t) { return t->dim() >= 1 ? t : reshape(t, {1}); }
Tensor atleast_2d(const Tensor& t) {
  if (t->dim() >= 2) return t;
  return reshape(t, {1, t->numel()});
}
Tensor atleast_3d(const Tensor& t) {
  if (t->dim() >= 3) return t;
  if (t->dim() == 0) return reshape(t, {1, 1, 1});
  if (t->dim() == 1) return reshape(t, {1, t->shape()[0], 1});
  return unsqueeze(t, 2);
}

Tensor cartesian_prod(const std::vector<Tensor>& ts) {
  LUCID_CHECK(!ts.empty(), Generic, "[cartesian_prod] expects a non-empty list of tensors");
  for (size_t i = 0; i < ts.size(); ++i)
    LUCID_CHECK(ts[i]->dim() == 1, ShapeMismatch,
                "[cartesian_prod] expects 1D tensors, but tensor " << i << " has " << ts[i]->dim() << " dimensions");
  if (ts.size() == 1) return ts[0];
  std::vector<Tensor> grids = meshgrid(ts, "ij");
  for (Tensor& g : grids) g = reshape(g, {-1});
  return stack(grids, 1);
}

Tensor combinations(const Tensor& t, int64_t r, bool with_replacement) {
  LUCID_CHECK(t->dim() == 1, ShapeMismatch, "[combinations] expects a 1D vector, but got shape " << shape_str(t->shape()));
  LUCID_CHECK(r >= 0, Generic, "[combinations] expects a non-negative number, but got " << r);
  const int64_t n = t->numel();
  if (r == 0) return index_select(t, 0, TensorImpl::empty({0}, Dtype::I64, t->device()));
  std::vector<int64_t> flat;
  std::vector<int64_t> idx(static_cast<size_t>(r));
  bool more = with_replacement ? n > 0 : r <= n;
  for (int64_t i = 0; i < r; ++i) idx[size_t(i)] = with_replacement ? 0 : i;
  while (more) {
    flat.insert(flat.end(), idx.begin(), idx.end());
    int64_t i = r - 1;
    while (i >= 0 && idx[size_t(i)] == (with_replacement ? n - 1 : n - r + i)) --i;
    if (i < 0) break;
    ++idx[size_t(i)];
    for (int64_t j = i + 1; j < r; ++j) idx[size_t(j)] = with_replacement ? idx[size_t(i)] : idx[size_t(j - 1)] + 1;
  }
  const int64_t k = int64_t(flat.size()) / r;
  Tensor index = from_host(flat.data(), {int64_t(flat.size())}, Dtype::I64, t->device());
  return view(index_select(t, 0, index), {k, r});
}

}  // namespace lucid
