#include "ops/view.h"

#include <algorithm>

#include <functional>

#include "backend/kernels/elementwise.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/reduce.h"
#include "ops/unary.h"
#include "ops/view_track.h"

namespace lucid {

namespace {

using ViewFn = std::function<Tensor(const Tensor&)>;

// Views that keep every element: the gradient is reshaped back.
void record_reshape(const char* name, const Tensor& in, const Tensor& out) {
  const Shape s = in->shape();
  record(name, {&in}, {&out}, {}, [s](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{reshape(g[0], s)};
  });
}

// The gradient of a view that picks some elements: zeros of the base's shape with the gradient
// written through the same view. Its own backward is that view again (graph mode).
Tensor view_scatter(const Tensor& g, const Shape& shape, const ViewFn& fn, const char* name) {
  Tensor z = zeros(shape, g->dtype(), g->device());
  Tensor region;
  {
    autograd::GradModeGuard off(false);
    region = fn(z);
  }
  LUCID_CHECK(!region->has_internal_overlap(), NotImplemented,
              "[" << name << "] the gradient of overlapping windows (unfold with step < size, as_strided) is not "
                             "supported yet");
  if (g->numel()) copy_into(region, g);
  record("ViewScatterBackward", {&g}, {&z}, {}, [fn](Node&, std::vector<Tensor>& gg, std::vector<Tensor>&) {
    return std::vector<Tensor>{fn(gg[0])};
  });
  return z;
}

void record_subset(const char* name, const Tensor& in, const Tensor& out, ViewFn fn) {
  if (!should_record({&in})) return;
  const Shape s = in->shape();
  record(name, {&in}, {&out}, {}, [s, fn, name](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{view_scatter(g[0], s, fn, name)};
  });
}

// A real-dtype view of a complex base (.real / .imag, and views of those): the part it reads, and the
// view's geometry in the base's real or imaginary numbers taken as one contiguous real tensor.
struct PartView {
  int part;  // 0: real numbers, 1: imaginary
  Shape size;
  Strides stride;
  int64_t offset;
};

bool is_part_view(const Tensor& v, const Tensor& base) { return is_complex(base->dtype()) && !is_complex(v->dtype()); }

PartView part_view(const Tensor& v, const Tensor& base, const char* what) {
  LUCID_CHECK(base->is_contiguous(), NotImplemented,
              "[" << what << "] writing through .real/.imag of a non-contiguous complex tensor under autograd is "
                     "not supported yet");
  const int64_t rel = v->storage_offset() - 2 * base->storage_offset();
  PartView p{int(rel & 1), v->shape(), v->strides(), (rel - (rel & 1)) / 2};
  for (auto& st : p.stride) {
    LUCID_CHECK(st % 2 == 0, NotImplemented,
                "[" << what << "] a view mixing real and imaginary numbers of a complex tensor is not supported");
    st /= 2;
  }
  return p;
}

// base-shaped contiguous real zr -> the view's numbers (as_strided: differentiable)
Tensor part_region(const PartView& p, const Tensor& zr) { return as_strided(zr, p.size, p.stride, p.offset + zr->storage_offset()); }

// the gradient of a complex base from the gradient g of its part view
Tensor part_view_grad(const PartView& p, const Tensor& g, const Shape& bshape, Dtype cdt) {
  Tensor gp = view_scatter(g, bshape, [p](const Tensor& z) { return part_region(p, z); }, "AsStridedBackward0");
  Tensor gc = cast(gp, cdt);
  return p.part ? mul(gc, Scalar::from_complex(0.0, 1.0)) : gc;
}

void regenerate_part_view(const Tensor& v, const Tensor& base) {
  const PartView p = part_view(v, base, "view");
  const Shape bshape = base->shape();
  const Dtype cdt = base->dtype();
  auto node_fn = [p, bshape, cdt](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{part_view_grad(p, g[0], bshape, cdt)};
  };
  auto node = std::make_shared<FnNode<decltype(node_fn)>>(p.part ? "ImagBackward0" : "RealBackward0",
                                                          std::vector<SavedTensor>{}, node_fn);
  autograd::set_history(node, {&base}, {&v});
}

// An in-place write of `result` through a part view: the base's old history keeps the numbers outside
// the region; the region's numbers come from result (a real tensor: grad real(g) or imag(g) there).
void copy_part_slices(const Tensor& view, const Tensor& base, const Tensor& result) {
  const PartView p = part_view(view, base, "in-place");
  const Dtype rdt = view->dtype();
  Tensor mask = ones(base->shape(), rdt, base->device());
  {
    autograd::GradModeGuard off(false);
    Tensor region = part_region(p, mask);
    if (region->numel()) fill_kernel(mask->device())(*region, Scalar::from_int(0));
  }
  rebase_history("CopySlices", base, {&result}, [p, mask](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    Tensor gb = contiguous(g[0]);
    Tensor re = real(gb), im = imag(gb);
    Tensor g_old = p.part ? complex(re, mul(im, mask)) : complex(mul(re, mask), im);
    return std::vector<Tensor>{g_old, part_region(p, contiguous(p.part ? im : re))};
  });
  view->ensure_autograd_meta().view->version = view->version();
  regenerate_part_view(view, base);
}

// Under grad mode, remembers that `out` is a view of `in`'s base, so an in-place write through it
// can rewrite the base's history and stale views can be regenerated (docs/notes/autograd.md).
Tensor track_view(const Tensor& in, const Tensor& out) {
  if (!autograd::grad_enabled()) return out;
  const AutogradMeta* im = in->autograd_meta();
  Tensor base = im && im->view ? im->view->base : in;
  auto& m = out->ensure_autograd_meta();
  m.view = std::make_unique<ViewInfo>();
  m.view->base = std::move(base);
  m.view->version = out->version();
  return out;
}

}  // namespace

Tensor track_part_view(const Tensor& in, const Tensor& out) { return track_view(in, out); }

void regenerate_view_history(const Tensor& v) {
  AutogradMeta& m = v->ensure_autograd_meta();
  const Tensor base = m.view->base;
  if (is_part_view(v, base)) {
    m.view->version = v->version();
    if (autograd::requires_grad(base)) regenerate_part_view(v, base);
    return;
  }
  LUCID_CHECK(v->dtype() == base->dtype(), NotImplemented,
              "[view] a view_as_complex view whose base was modified in place under autograd is not supported yet");
  const Shape size = v->shape();
  const Strides stride = v->strides();
  const int64_t rel = v->storage_offset() - base->storage_offset();
  const bool dense = base->is_contiguous();
  const Shape bshape = base->shape();
  m.view->version = v->version();
  if (!autograd::requires_grad(base)) return;
  ViewFn fn = [size, stride, rel, dense](const Tensor& z) {
    LUCID_CHECK(dense, NotImplemented, "[view] gradients through a view of a non-contiguous base are not supported yet");
    return as_strided(z, size, stride, rel + z->storage_offset());
  };
  auto node_fn = [bshape, fn](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{view_scatter(g[0], bshape, fn, "AsStridedBackward0")};
  };
  auto node = std::make_shared<FnNode<decltype(node_fn)>>("AsStridedBackward0", std::vector<SavedTensor>{}, node_fn);
  autograd::set_history(node, {&base}, {&v});
}

void copy_slices(const Tensor& view, const Tensor& result) {
  const Tensor base = view->autograd_meta()->view->base;
  if (is_part_view(view, base)) return copy_part_slices(view, base, result);
  LUCID_CHECK(view->dtype() == base->dtype(), NotImplemented,
              "[in-place] writing through view_as_complex of a tensor under autograd is not supported yet");
  LUCID_CHECK(base->is_contiguous(), NotImplemented,
              "[in-place] writing through a view of a non-contiguous tensor under autograd is not supported yet");
  const Shape size = view->shape();
  const Strides stride = view->strides();
  const int64_t rel = view->storage_offset() - base->storage_offset();
  ViewFn fn = [size, stride, rel](const Tensor& z) { return as_strided(z, size, stride, rel + z->storage_offset()); };
  // The base's old values survive outside the view: its gradient flows there only.
  Tensor mask = ones(base->shape(), base->dtype(), base->device());
  {
    autograd::GradModeGuard off(false);
    Tensor region = fn(mask);
    if (region->numel()) fill_kernel(mask->device())(*region, Scalar::from_int(0));
  }
  rebase_history("CopySlices", base, {&result}, [fn, mask](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    Tensor gb = contiguous(g[0]);
    return std::vector<Tensor>{mul(gb, mask), fn(gb)};
  });
  regenerate_view_history(view);
}

Tensor sum_to(const Tensor& g, const Shape& shape) {
  if (g->shape() == shape) return g;
  const int64_t lead = g->dim() - int64_t(shape.size());
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < lead; ++i) dims.push_back(i);
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1 && g->shape()[size_t(lead) + i] != 1) dims.push_back(lead + int64_t(i));
  Tensor r = dims.empty() ? g : sum(g, dims, /*keepdim=*/true);
  return reshape(r, shape);
}

Tensor as_strided(const Tensor& t, const Shape& size, const Strides& stride, std::optional<int64_t> offset) {
  LUCID_CHECK(size.size() == stride.size(), ShapeMismatch,
              "[as_strided] size " << shape_str(size) << " and stride " << shape_str(stride) << " differ in length");
  const int64_t off = offset.value_or(t->storage_offset());
  LUCID_CHECK(off >= 0, Value, "[as_strided] negative storage offset " << off);
  int64_t max_index = off;
  for (size_t i = 0; i < size.size(); ++i) {
    LUCID_CHECK(size[i] >= 0, Value, "[as_strided] negative size " << size[i]);
    LUCID_CHECK(stride[i] >= 0, Value, "[as_strided] negative strides are not supported, got " << shape_str(stride));
    if (size[i] == 0) { max_index = -1; break; }
    max_index += (size[i] - 1) * stride[i];
  }
  const int64_t capacity = t->storage()->nbytes() / t->element_size();
  LUCID_CHECK(max_index < capacity, Index,
              "[as_strided] size " << shape_str(size) << ", stride " << shape_str(stride) << " and offset " << off
                                   << " reach element " << max_index << " of a storage of " << capacity << " elements");
  Tensor out = t->as_view(size, stride, off);
  const int64_t base_off = t->storage_offset();
  const bool dense = t->is_contiguous();
  record_subset("AsStridedBackward0", t, out, [size, stride, off, base_off, dense](const Tensor& z) {
    LUCID_CHECK(dense, NotImplemented, "[as_strided] the gradient of as_strided on a non-contiguous tensor is not supported yet");
    return as_strided(z, size, stride, off - base_off + z->storage_offset());
  });
  return track_view(t, out);
}

Tensor view(const Tensor& t, const Shape& shape) {
  const Shape s = infer_size(shape, t->numel(), "view");
  Strides st;
  LUCID_CHECK(compute_view_strides(t->shape(), t->strides(), s, &st), ShapeMismatch,
              "[view] size " << shape_str(s) << " is not compatible with input of shape " << shape_str(t->shape())
                             << " and strides " << shape_str(t->strides())
                             << " (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  Tensor out = t->as_view(s, st, t->storage_offset());
  record_reshape("ViewBackward0", t, out);
  return track_view(t, out);
}

Tensor view_dtype(const Tensor& t, Dtype dtype) {
  LUCID_CHECK(itemsize(dtype) == t->element_size(), DtypeMismatch,
              "[view] cannot view a " << dtype_name(t->dtype()) << " tensor as " << dtype_name(dtype)
                                      << ": element sizes differ");
  return std::make_shared<TensorImpl>(t->storage(), dtype, t->shape(), t->strides(), t->storage_offset());
}

Tensor reshape(const Tensor& t, const Shape& shape) {
  const Shape s = infer_size(shape, t->numel(), "reshape");
  Strides st;
  if (compute_view_strides(t->shape(), t->strides(), s, &st)) {
    Tensor out = t->as_view(s, st, t->storage_offset());
    record_reshape("ViewBackward0", t, out);
    return track_view(t, out);
  }
  Tensor c = clone(t);
  Tensor out = c->as_view(s, contiguous_strides(s), 0);
  record_reshape("ReshapeAliasBackward0", c, out);
  return track_view(c, out);
}

Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim) {
  if (t->dim() == 0) return reshape(t, {1});
  const int64_t s = wrap_dim(start_dim, t->dim(), "flatten"), e = wrap_dim(end_dim, t->dim(), "flatten");
  LUCID_CHECK(s <= e, Value, "[flatten] start_dim " << start_dim << " comes after end_dim " << end_dim);
  Shape ns(t->shape().begin(), t->shape().begin() + s);
  int64_t n = 1;
  for (int64_t i = s; i <= e; ++i) n *= t->shape()[i];
  ns.push_back(n);
  ns.insert(ns.end(), t->shape().begin() + e + 1, t->shape().end());
  return reshape(t, ns);
}

Tensor permute(const Tensor& t, const std::vector<int64_t>& dims) {
  const int64_t n = t->dim();
  LUCID_CHECK(int64_t(dims.size()) == n, ShapeMismatch,
              "[permute] number of dims don't match: the tensor has " << n << " dims but " << dims.size() << " were given");
  std::vector<bool> seen(size_t(n), false);
  Shape s(static_cast<size_t>(n));
  Strides st(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = wrap_dim(dims[size_t(i)], n, "permute");
    LUCID_CHECK(!seen[size_t(d)], Value, "[permute] dim " << d << " repeats in " << shape_str(dims));
    seen[size_t(d)] = true;
    s[size_t(i)] = t->shape()[size_t(d)];
    st[size_t(i)] = t->strides()[size_t(d)];
  }
  Tensor out = t->as_view(s, st, t->storage_offset());
  if (should_record({&t})) {
    std::vector<int64_t> inv(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) inv[size_t(wrap_dim(dims[size_t(i)], n, "permute"))] = i;
    record("PermuteBackward0", {&t}, {&out}, {}, [inv](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
      return std::vector<Tensor>{permute(g[0], inv)};
    });
  }
  return track_view(t, out);
}

Tensor transpose(const Tensor& t, int64_t d0, int64_t d1) {
  if (t->dim() == 0) {
    wrap_dim(d0, 0, "transpose");
    wrap_dim(d1, 0, "transpose");
    Tensor out = t->as_view({}, {}, t->storage_offset());
    record_reshape("TransposeBackward0", t, out);
    return track_view(t, out);
  }
  const int64_t a = wrap_dim(d0, t->dim(), "transpose"), b = wrap_dim(d1, t->dim(), "transpose");
  Shape s = t->shape();
  Strides st = t->strides();
  std::swap(s[size_t(a)], s[size_t(b)]);
  std::swap(st[size_t(a)], st[size_t(b)]);
  Tensor out = t->as_view(s, st, t->storage_offset());
  record("TransposeBackward0", {&t}, {&out}, {}, [a, b](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{transpose(g[0], a, b)};
  });
  return track_view(t, out);
}

Tensor t_(const Tensor& t) {
  std::vector<int64_t> dims(size_t(t->dim()));
  for (int64_t i = 0; i < t->dim(); ++i) dims[size_t(i)] = t->dim() - 1 - i;
  return permute(t, dims);
}

Tensor matrix_transpose(const Tensor& t) {
  LUCID_CHECK(t->dim() >= 2, ShapeMismatch, "[mT] tensor.mT is only supported on matrices or batches of matrices, got a " << t->dim() << "-D tensor");
  return transpose(t, -2, -1);
}

Tensor squeeze(const Tensor& t, std::optional<std::vector<int64_t>> dims) {
  std::vector<bool> drop(size_t(t->dim()), false);
  if (!dims) {
    for (int64_t i = 0; i < t->dim(); ++i) drop[size_t(i)] = t->shape()[size_t(i)] == 1;
  } else {
    for (auto d : *dims) {
      const int64_t w = wrap_dim(d, t->dim(), "squeeze");
      if (t->dim() > 0) drop[size_t(w)] = t->shape()[size_t(w)] == 1;
    }
  }
  Shape s;
  Strides st;
  for (int64_t i = 0; i < t->dim(); ++i)
    if (!drop[size_t(i)]) { s.push_back(t->shape()[size_t(i)]); st.push_back(t->strides()[size_t(i)]); }
  Tensor out = t->as_view(s, st, t->storage_offset());
  record_reshape("SqueezeBackward0", t, out);
  return track_view(t, out);
}

Tensor unsqueeze(const Tensor& t, int64_t dim) {
  const int64_t d = wrap_dim(dim, t->dim() + 1, "unsqueeze");
  Shape s = t->shape();
  Strides st = t->strides();
  const int64_t new_stride = d >= t->dim() ? 1 : s[size_t(d)] * st[size_t(d)];
  s.insert(s.begin() + d, 1);
  st.insert(st.begin() + d, new_stride);
  Tensor out = t->as_view(s, st, t->storage_offset());
  record_reshape("UnsqueezeBackward0", t, out);
  return track_view(t, out);
}

Tensor expand(const Tensor& t, const Shape& shape, const char* op) {
  const int64_t nd = int64_t(shape.size()), td = t->dim();
  LUCID_CHECK(nd >= td, ShapeMismatch,
              "[" << op << "] the expanded size " << shape_str(shape) << " must have at least as many dims as the tensor "
                  << shape_str(t->shape()));
  if (shape == t->shape()) return t;
  Shape s(static_cast<size_t>(nd));
  Strides st(static_cast<size_t>(nd));
  for (int64_t i = nd - 1; i >= 0; --i) {
    const int64_t j = i - (nd - td);
    const int64_t want = shape[size_t(i)];
    if (j < 0) {
      LUCID_CHECK(want >= 0, ShapeMismatch, "[" << op << "] size -1 is not allowed in a leading, new dimension");
      s[size_t(i)] = want;
      st[size_t(i)] = 0;
      continue;
    }
    const int64_t have = t->shape()[size_t(j)];
    if (want == -1 || want == have) {
      s[size_t(i)] = have;
      st[size_t(i)] = t->strides()[size_t(j)];
    } else {
      LUCID_CHECK(have == 1, ShapeMismatch,
                  "[" << op << "] the expanded size " << want << " must match the existing size " << have
                      << " at non-singleton dimension " << i << ". Target sizes: " << shape_str(shape)
                      << ". Tensor sizes: " << shape_str(t->shape()));
      s[size_t(i)] = want;
      st[size_t(i)] = 0;
    }
  }
  Tensor out = t->as_view(s, st, t->storage_offset());
  const Shape in_shape = t->shape();
  record("ExpandBackward0", {&t}, {&out}, {}, [in_shape](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{sum_to(g[0], in_shape)};
  });
  return track_view(t, out);
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  LUCID_CHECK(t->dim() > 0, ShapeMismatch, "[narrow] cannot be applied to a 0-dim tensor");
  const int64_t d = wrap_dim(dim, t->dim(), "narrow");
  const int64_t size = t->shape()[size_t(d)];
  if (start < 0) start += size;
  LUCID_CHECK(start >= 0 && start <= size, Index, "[narrow] start " << start << " is out of range for dimension " << d << " of size " << size);
  LUCID_CHECK(length >= 0 && start + length <= size, Index,
              "[narrow] start (" << start << ") + length (" << length << ") exceeds dimension size (" << size << ")");
  Shape s = t->shape();
  s[size_t(d)] = length;
  Tensor out = t->as_view(s, t->strides(), t->storage_offset() + start * t->strides()[size_t(d)]);
  record_subset("NarrowBackward0", t, out, [d, start, length](const Tensor& z) { return narrow(z, d, start, length); });
  return track_view(t, out);
}

Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  LUCID_CHECK(t->dim() > 0, Index, "[select] invalid index of a 0-dim tensor");
  const int64_t d = wrap_dim(dim, t->dim(), "select");
  const int64_t size = t->shape()[size_t(d)];
  LUCID_CHECK(index >= -size && index < size, Index,
              "index " << index << " is out of bounds for dimension " << d << " with size " << size);
  if (index < 0) index += size;
  Shape s = t->shape();
  Strides st = t->strides();
  const int64_t off = t->storage_offset() + index * st[size_t(d)];
  s.erase(s.begin() + d);
  st.erase(st.begin() + d);
  Tensor out = t->as_view(s, st, off);
  record_subset("SelectBackward0", t, out, [d, index](const Tensor& z) { return select(z, d, index); });
  return track_view(t, out);
}

Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step) {
  LUCID_CHECK(t->dim() > 0, Index, "[slice] cannot slice a 0-dim tensor");
  LUCID_CHECK(step > 0, Value, "[slice] step must be greater than zero, got " << step);
  const int64_t d = wrap_dim(dim, t->dim(), "slice");
  const int64_t size = t->shape()[size_t(d)];
  auto clampi = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = *v < 0 ? *v + size : *v;
    return std::clamp<int64_t>(x, 0, size);
  };
  const int64_t b = clampi(start, 0), e = std::max(b, clampi(stop, size));
  Shape s = t->shape();
  Strides st = t->strides();
  s[size_t(d)] = (e - b + step - 1) / step;
  const int64_t off = t->storage_offset() + b * st[size_t(d)];
  st[size_t(d)] *= step;
  Tensor out = t->as_view(s, st, off);
  record_subset("SliceBackward0", t, out, [d, b, e, step](const Tensor& z) {
    return slice(z, d, b, e, step);
  });
  return track_view(t, out);
}

Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step) {
  const int64_t d = t->dim() == 0 ? 0 : wrap_dim(dim, t->dim(), "unfold");
  const int64_t len = t->dim() == 0 ? 1 : t->shape()[size_t(d)];
  LUCID_CHECK(size >= 0 && size <= len, ShapeMismatch,
              "[unfold] maximum size for tensor at dimension " << d << " is " << len << " but size is " << size);
  LUCID_CHECK(step > 0, Value, "[unfold] step is " << step << " but must be > 0");
  if (t->dim() == 0) {
    Tensor out = t->as_view({size}, {1}, t->storage_offset());
    record_reshape("UnfoldBackward0", t, out);
    return track_view(t, out);
  }
  Shape s = t->shape();
  Strides st = t->strides();
  const int64_t inner = st[size_t(d)];
  s[size_t(d)] = (len - size) / step + 1;
  st[size_t(d)] = step * inner;
  s.push_back(size);
  st.push_back(inner);
  Tensor out = t->as_view(s, st, t->storage_offset());
  record_subset("UnfoldBackward0", t, out, [d, size, step](const Tensor& z) { return unfold(z, d, size, step); });
  return track_view(t, out);
}

Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  LUCID_CHECK(t->dim() >= 2, ShapeMismatch, "[diagonal] expected a tensor of at least 2 dims, got " << t->dim());
  const int64_t a = wrap_dim(dim1, t->dim(), "diagonal"), b = wrap_dim(dim2, t->dim(), "diagonal");
  LUCID_CHECK(a != b, Value, "[diagonal] dimensions cannot be identical " << dim1 << ", " << dim2);
  int64_t off = t->storage_offset(), len;
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(t->shape()[size_t(a)], t->shape()[size_t(b)] - offset), 0);
    if (len > 0) off += offset * t->strides()[size_t(b)];
  } else {
    len = std::max<int64_t>(std::min(t->shape()[size_t(a)] + offset, t->shape()[size_t(b)]), 0);
    if (len > 0) off -= offset * t->strides()[size_t(a)];
  }
  Shape s;
  Strides st;
  for (int64_t i = 0; i < t->dim(); ++i)
    if (i != a && i != b) { s.push_back(t->shape()[size_t(i)]); st.push_back(t->strides()[size_t(i)]); }
  s.push_back(len);
  st.push_back(t->strides()[size_t(a)] + t->strides()[size_t(b)]);
  Tensor out = t->as_view(s, st, off);
  record_subset("DiagonalBackward0", t, out, [offset, a, b](const Tensor& z) { return diagonal(z, offset, a, b); });
  return track_view(t, out);
}

Tensor alias(const Tensor& t) { return t->as_view(t->shape(), t->strides(), t->storage_offset()); }

}  // namespace lucid
