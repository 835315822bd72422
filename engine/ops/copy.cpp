#include "ops/copy.h"

#include "backend/kernels/elementwise.h"
#include "core/device_interface.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/out.h"
#include "ops/view.h"

namespace lucid {

namespace {

// True when the two tensors' byte ranges in one storage intersect.
bool may_overlap(const TensorImpl& a, const TensorImpl& b) {
  if (a.storage() != b.storage() || a.numel() == 0 || b.numel() == 0) return false;
  auto range = [](const TensorImpl& t, int64_t* lo, int64_t* hi) {
    int64_t l = t.storage_offset(), h = t.storage_offset();
    for (int64_t i = 0; i < t.dim(); ++i) {
      const int64_t ext = (t.shape()[i] - 1) * t.strides()[i];
      (ext < 0 ? l : h) += ext;
    }
    *lo = l * t.element_size();
    *hi = (h + 1) * t.element_size();
  };
  int64_t al, ah, bl, bh;
  range(a, &al, &ah);
  range(b, &bl, &bh);
  return al < bh && bl < ah;
}

bool same_layout(const TensorImpl& a, const TensorImpl& b) {
  return a.storage_offset() == b.storage_offset() && a.strides() == b.strides() && a.dtype() == b.dtype();
}

}  // namespace

void copy_(const Tensor& dst, const Tensor& src) {
  check_writable(*dst, "copy_");
  if (autograd::check_inplace(dst, {&src}, "copy_")) {
    Tensor value = to(expand(src, dst->shape(), "copy_"), dst->dtype(), dst->device());  // recorded
    copy_into(dst, value);
    dst->bump_version();
    record_inplace(dst, value);
    return;
  }
  copy_into(dst, src);
  dst->bump_version();
}

void copy_into(const Tensor& dst, const Tensor& src_in) {
  Tensor src = expand(src_in, dst->shape(), "copy_");
  if (dst->numel() == 0) return;
  if (dst->device() == src->device()) {
    if (may_overlap(*dst, *src) && !same_layout(*dst, *src)) src = clone(src);
    copy_kernel(dst->device())(*dst, *src);
    return;
  }
  // Across devices: make the source dense on its own device, move the bytes, then cast/scatter
  // on the destination device.
  Tensor dense = contiguous(src);
  DeviceInterface& mover = device_interface(dst->device().is_cuda() ? dst->device() : src->device());
  if (dst->is_contiguous() && dst->dtype() == dense->dtype()) {
    mover.copy(dst->data_ptr(), dst->device(), dense->data_ptr(), dense->device(), size_t(dense->nbytes()));
  } else {
    Tensor staged = TensorImpl::empty(dense->shape(), dense->dtype(), dst->device());
    mover.copy(staged->data_ptr(), staged->device(), dense->data_ptr(), dense->device(), size_t(dense->nbytes()));
    copy_kernel(dst->device())(*dst, *staged);
  }
}

Tensor to(const Tensor& t, std::optional<Dtype> dtype, std::optional<Device> device, bool copy) {
  const Dtype dt = dtype.value_or(t->dtype());
  const Device dev = device.value_or(t->device());
  if (!copy && dt == t->dtype() && dev == t->device()) return t;
  if (dev.is_cuda()) device_interface(dev);  // clear error when CUDA is missing
  Tensor out = TensorImpl::empty(t->shape(), dt, dev);
  copy_into(out, t);
  const Dtype in_dt = t->dtype();
  const Device in_dev = t->device();
  record("ToCopyBackward0", {&t}, {&out}, {}, [in_dt, in_dev](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{to(g[0], in_dt, in_dev)};
  });
  return out;
}

Tensor cast(const Tensor& t, Dtype dtype) { return to(t, dtype, std::nullopt, false); }

Tensor contiguous(const Tensor& t) { return t->is_contiguous() ? t : clone(t); }

Tensor clone(const Tensor& t) {
  Tensor out = TensorImpl::empty(t->shape(), t->dtype(), t->device());
  if (t->numel()) copy_kernel(t->device())(*out, *t);
  record("CloneBackward0", {&t}, {&out}, {}, [](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{g[0]};
  });
  return out;
}

Tensor pin_memory(const Tensor& t) {
  LUCID_CHECK(t->device().is_cpu(), Value, "[pin_memory] cannot pin a tensor on " << t->device() << ": only CPU tensors can be pinned");
  if (is_pinned(t)) return t;
  Tensor out = TensorImpl::empty(t->shape(), t->dtype(), t->device(), /*pinned=*/true);
  if (t->numel()) copy_kernel(t->device())(*out, *t);
  return out;
}

bool is_pinned(const Tensor& t) { return t->storage()->pinned(); }

Tensor write_result_(const Tensor& self, const Tensor& result, const char* name) {
  LUCID_CHECK(result->shape() == self->shape(), ShapeMismatch,
              "[" << name << "] output with shape " << shape_str(self->shape()) << " doesn't match the broadcast shape "
                  << shape_str(result->shape()));
  LUCID_CHECK(can_cast(result->dtype(), self->dtype()), DtypeMismatch,
              "[" << name << "] result type " << dtype_name(result->dtype()) << " can't be cast to the desired output type "
                  << dtype_name(self->dtype()));
  copy_(self, result);
  return self;
}

}  // namespace lucid
