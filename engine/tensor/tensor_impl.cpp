#include "tensor/tensor_impl.h"

#include <algorithm>
#include <atomic>
#include <numeric>

#include "core/device_interface.h"
#include "core/error.h"

namespace lucid {

namespace {
std::atomic<int64_t> g_live{0};
}

TensorImpl::TensorImpl(StoragePtr storage, Dtype dtype, Shape shape, Strides strides, int64_t offset)
    : storage_(std::move(storage)), dtype_(dtype), shape_(std::move(shape)), strides_(std::move(strides)), offset_(offset) {
  refresh();
  g_live.fetch_add(1, std::memory_order_relaxed);
}

TensorImpl::~TensorImpl() { g_live.fetch_sub(1, std::memory_order_relaxed); }

int64_t TensorImpl::live_count() { return g_live.load(std::memory_order_relaxed); }

void TensorImpl::set_data(const TensorImpl& other) {
  storage_ = other.storage_;
  dtype_ = other.dtype_;
  shape_ = other.shape_;
  strides_ = other.strides_;
  offset_ = other.offset_;
  refresh();
}

void TensorImpl::refresh() {
  numel_ = numel_of(shape_);
  contiguous_ = true;
  int64_t expected = 1;
  for (int64_t i = dim() - 1; i >= 0; --i) {
    if (shape_[i] == 1) continue;
    if (strides_[i] != expected) { contiguous_ = false; break; }
    expected *= shape_[i];
  }
  if (numel_ == 0) contiguous_ = true;
}

Tensor TensorImpl::empty(const Shape& shape, Dtype dtype, Device device, bool pinned) {
  auto storage = Storage::allocate(checked_nbytes(shape, itemsize(dtype), "empty"), device, pinned);
  return std::make_shared<TensorImpl>(std::move(storage), dtype, shape, contiguous_strides(shape), 0);
}

Tensor TensorImpl::as_view(Shape shape, Strides strides, int64_t offset) const {
  return std::make_shared<TensorImpl>(storage_, dtype_, std::move(shape), std::move(strides), offset);
}

int64_t TensorImpl::size(int64_t d) const { return shape_[wrap_dim(d, dim(), "size")]; }
int64_t TensorImpl::stride(int64_t d) const { return strides_[wrap_dim(d, dim(), "stride")]; }

AutogradMeta& TensorImpl::ensure_autograd_meta() {
  if (!autograd_) autograd_ = std::make_unique<AutogradMeta>();
  return *autograd_;
}

bool TensorImpl::has_internal_overlap() const {
  if (numel_ <= 1) return false;
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < dim(); ++i) {
    if (shape_[i] <= 1) continue;
    if (strides_[i] == 0) return true;
    dims.push_back(i);
  }
  std::sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) { return std::abs(strides_[a]) < std::abs(strides_[b]); });
  int64_t span = 0;  // max offset reachable by the smaller-stride dims
  bool sure = true;
  for (auto d : dims) {
    if (std::abs(strides_[d]) <= span) { sure = false; break; }
    span += std::abs(strides_[d]) * (shape_[d] - 1);
  }
  if (sure) return false;
  // Interleaved strides (e.g. shape (3, 2), strides (2, 3)) may still be distinct: count the offsets
  // exactly when that is cheap; otherwise assume an overlap (refusing a write is the safe answer).
  if (numel_ > (int64_t(1) << 22)) return true;
  int64_t extent = 0;
  for (auto d : dims) extent += std::abs(strides_[d]) * (shape_[d] - 1);
  std::vector<bool> seen(static_cast<size_t>(extent + 1), false);
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t k = 0; k < numel_; ++k) {
    int64_t off = 0;
    for (size_t j = 0; j < dims.size(); ++j) off += idx[j] * std::abs(strides_[dims[j]]);
    if (seen[static_cast<size_t>(off)]) return true;
    seen[static_cast<size_t>(off)] = true;
    for (size_t j = 0; j < dims.size(); ++j) {
      if (++idx[j] < shape_[dims[j]]) break;
      idx[j] = 0;
    }
  }
  return false;
}

void check_writable(const TensorImpl& t, const char* op) {
  LUCID_CHECK(!t.has_internal_overlap(), Generic,
              "[" << op << "] unsupported operation: more than one element of the written-to tensor refers to a "
                     "single memory location (shape " << shape_str(t.shape()) << ", strides " << shape_str(t.strides())
                  << "). Call .clone() before writing to it.");
}

}  // namespace lucid
