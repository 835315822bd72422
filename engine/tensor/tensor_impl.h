#pragma once
// TensorImpl (spec 001): a strided view of a Storage. Shape and strides are in elements; the
// storage offset too. Views share the storage and therefore the version counter.
#include <memory>

#include "core/device.h"
#include "core/dtype.h"
#include "core/scalar.h"
#include "core/shape.h"
#include "tensor/autograd_meta.h"
#include "tensor/storage.h"

namespace lucid {

class TensorImpl;
using Tensor = std::shared_ptr<TensorImpl>;

class TensorImpl : public std::enable_shared_from_this<TensorImpl> {
 public:
  TensorImpl(StoragePtr storage, Dtype dtype, Shape shape, Strides strides, int64_t offset);
  ~TensorImpl();
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;
  // Live TensorImpls in the process (tests use it to find leaks).
  static int64_t live_count();

  // A fresh contiguous tensor with uninitialised data.
  static Tensor empty(const Shape& shape, Dtype dtype, Device device, bool pinned = false);
  // A view sharing this tensor's storage.
  Tensor as_view(Shape shape, Strides strides, int64_t offset) const;

  const StoragePtr& storage() const { return storage_; }
  Dtype dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  const Shape& shape() const { return shape_; }
  const Strides& strides() const { return strides_; }
  int64_t storage_offset() const { return offset_; }
  int64_t dim() const { return int64_t(shape_.size()); }
  int64_t size(int64_t d) const;
  int64_t stride(int64_t d) const;
  int64_t numel() const { return numel_; }
  int64_t element_size() const { return itemsize(dtype_); }
  int64_t nbytes() const { return numel_ * element_size(); }
  bool is_contiguous() const { return contiguous_; }
  // True when two index tuples reach one element (stride-0 expands, overlapping unfold windows).
  bool has_internal_overlap() const;
  void* data_ptr() const { return static_cast<char*>(storage_->data()) + offset_ * element_size(); }
  template <typename T> T* data() const { return static_cast<T*>(data_ptr()); }

  int64_t version() const { return storage_->version(); }
  void bump_version() { storage_->bump_version(); }

  // `t.data = other`: this tensor takes other's storage, dtype, shape, strides and offset, keeping its
  // identity and autograd fields (PyTorch's set_data).
  void set_data(const TensorImpl& other);

  AutogradMeta* autograd_meta() const { return autograd_.get(); }
  AutogradMeta& ensure_autograd_meta();
  bool requires_grad() const { return autograd_ && autograd_->requires_grad; }

 private:
  void refresh();
  StoragePtr storage_;
  Dtype dtype_;
  Shape shape_;
  Strides strides_;
  int64_t offset_ = 0;
  int64_t numel_ = 1;
  bool contiguous_ = true;
  std::unique_ptr<AutogradMeta> autograd_;
};

// Refuses writes into tensors whose elements alias each other (DESIGN.md §4).
void check_writable(const TensorImpl& t, const char* op);

}  // namespace lucid
