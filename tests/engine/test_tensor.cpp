// engine/tensor: Storage (allocation, alignment, stats, wrapping), TensorImpl (shape/strides,
// contiguity, internal overlap, version counter), autograd meta.
#include <gtest/gtest.h>

#include <cstdint>

#include "core/device_interface.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/view.h"
#include "tensor/storage.h"
#include "tensor/tensor_impl.h"
#include "test_util.h"

namespace lucid {
namespace {

using test::cpu;
using test::cpu_stats;

Tensor strided(const Shape& shape, const Strides& strides, int64_t storage_elems = 64) {
  auto st = Storage::allocate(storage_elems * 4, cpu());
  return std::make_shared<TensorImpl>(st, Dtype::F32, shape, strides, 0);
}

// ---------------------------------------------------------------------------------------------
// Storage

TEST(Storage, HostAllocationsAre64ByteAligned) {
  for (int64_t n : {1, 3, 17, 63, 64, 65, 100, 4096, 1 << 20}) {
    auto s = Storage::allocate(n, cpu());
    ASSERT_NE(s->data(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(s->data()) % 64, 0u) << n << " bytes";
    EXPECT_EQ(s->nbytes(), n);
    EXPECT_EQ(s->device(), cpu());
    EXPECT_FALSE(s->pinned());
    EXPECT_FALSE(s->external());
    EXPECT_EQ(s->version(), 0);
  }
  for (Dtype d : {Dtype::U8, Dtype::F32, Dtype::C128}) {
    Tensor t = TensorImpl::empty({7, 3}, d, cpu());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t->data_ptr()) % 64, 0u);
  }
}

TEST(Storage, NegativeSizeIsAValueError) {
  EXPECT_LUCID_ERROR(Storage::allocate(-1, cpu()), Value);
  EXPECT_LUCID_ERROR(TensorImpl::empty({2, -3}, Dtype::F32, cpu()), Value);
}

TEST(Storage, CpuMemoryStatsTrackLiveBytes) {
  DeviceInterface& iface = device_interface(cpu());
  const MemoryStats before = iface.memory_stats(0);
  {
    auto a = Storage::allocate(1000, cpu());
    auto b = Storage::allocate(24, cpu());
    const MemoryStats mid = iface.memory_stats(0);
    EXPECT_EQ(mid.allocated - before.allocated, 1024);
    EXPECT_EQ(mid.num_allocs - before.num_allocs, 2);
    EXPECT_EQ(mid.num_system_allocs - before.num_system_allocs, 2);
    EXPECT_EQ(mid.num_frees, before.num_frees);
    EXPECT_GE(mid.peak_allocated, mid.allocated);
    EXPECT_GE(mid.reserved, mid.allocated);
    b.reset();
    const MemoryStats one = iface.memory_stats(0);
    EXPECT_EQ(one.allocated - before.allocated, 1000);
    EXPECT_EQ(one.num_frees - before.num_frees, 1);
    EXPECT_GE(one.peak_allocated - before.allocated, 1024);
  }
  const MemoryStats after = iface.memory_stats(0);
  EXPECT_EQ(after.allocated, before.allocated);
  EXPECT_EQ(after.num_frees - before.num_frees, 2);
  iface.reset_peak_memory_stats(0);
  EXPECT_EQ(iface.memory_stats(0).peak_allocated, iface.memory_stats(0).allocated);
  EXPECT_EQ(iface.memory_stats(0).peak_reserved, iface.memory_stats(0).reserved);
}

TEST(Storage, ZeroBytesAllocatesNothing) {
  const MemoryStats before = cpu_stats();
  {
    auto s = Storage::allocate(0, cpu());
    EXPECT_EQ(s->nbytes(), 0);
    Tensor t = TensorImpl::empty({3, 0}, Dtype::F32, cpu());
    EXPECT_EQ(t->numel(), 0);
    EXPECT_EQ(t->nbytes(), 0);
  }
  const MemoryStats after = cpu_stats();
  EXPECT_EQ(after.allocated, before.allocated);
  EXPECT_EQ(after.num_allocs, before.num_allocs);
}

TEST(Storage, WrapRunsDeleterOnceAndCountsNoAllocation) {
  static float buf[16] = {1, 2, 3};
  int deleted = 0;
  void* seen = nullptr;
  const MemoryStats before = cpu_stats();
  {
    auto s = Storage::wrap(buf, sizeof buf, cpu(), [&](void* p) { ++deleted; seen = p; });
    EXPECT_TRUE(s->external());
    EXPECT_EQ(s->data(), buf);
    Tensor t = std::make_shared<TensorImpl>(s, Dtype::F32, Shape{4}, Strides{1}, 1);
    EXPECT_EQ(t->data<float>()[0], 2.0f);
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1);
  EXPECT_EQ(seen, buf);
  EXPECT_EQ(cpu_stats().num_allocs, before.num_allocs);
  EXPECT_EQ(cpu_stats().num_frees, before.num_frees);
}

TEST(Storage, DeviceRegistry) {
  EXPECT_TRUE(device_available(DeviceType::CPU));
  EXPECT_NE(find_device_interface(DeviceType::CPU), nullptr);
  EXPECT_EQ(device_interface(cpu()).device_count(), 1);
#ifndef LUCID_WITH_CUDA
  EXPECT_EQ(find_device_interface(DeviceType::CUDA), nullptr);
  EXPECT_FALSE(device_available(DeviceType::CUDA));
  EXPECT_LUCID_ERROR_MSG(device_interface(Device(DeviceType::CUDA, 0)), Generic, "without CUDA support");
  EXPECT_LUCID_ERROR(TensorImpl::empty({2}, Dtype::F32, Device(DeviceType::CUDA, 0)), Generic);
  // Pinned memory needs the CUDA backend.
  EXPECT_LUCID_ERROR(Storage::allocate(16, cpu(), /*pinned=*/true), Generic);
#endif
  EXPECT_LUCID_ERROR(Storage::allocate(16, Device(DeviceType::CUDA, 0), /*pinned=*/true), Value);
}

// ---------------------------------------------------------------------------------------------
// TensorImpl

TEST(TensorImpl, EmptyHasContiguousLayout) {
  Tensor t = TensorImpl::empty({2, 3, 4}, Dtype::F64, cpu());
  EXPECT_EQ(t->shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(t->strides(), (Strides{12, 4, 1}));
  EXPECT_EQ(t->storage_offset(), 0);
  EXPECT_EQ(t->dim(), 3);
  EXPECT_EQ(t->numel(), 24);
  EXPECT_EQ(t->element_size(), 8);
  EXPECT_EQ(t->nbytes(), 192);
  EXPECT_EQ(t->storage()->nbytes(), 192);
  EXPECT_EQ(t->size(-1), 4);
  EXPECT_EQ(t->size(0), 2);
  EXPECT_EQ(t->stride(-3), 12);
  EXPECT_TRUE(t->is_contiguous());
  EXPECT_EQ(t->device(), cpu());
  EXPECT_EQ(t->dtype(), Dtype::F64);
  EXPECT_LUCID_ERROR(t->size(3), Index);
  EXPECT_LUCID_ERROR(t->stride(-4), Index);

  Tensor s = TensorImpl::empty({}, Dtype::I32, cpu());
  EXPECT_EQ(s->dim(), 0);
  EXPECT_EQ(s->numel(), 1);
  EXPECT_EQ(s->nbytes(), 4);
  EXPECT_TRUE(s->is_contiguous());
}

TEST(TensorImpl, DataPtrHonoursOffset) {
  Tensor t = test::iota({10}, Dtype::I32);
  Tensor v = t->as_view({3}, {2}, 4);
  EXPECT_EQ(v->storage(), t->storage());
  EXPECT_EQ(static_cast<char*>(v->data_ptr()) - static_cast<char*>(t->data_ptr()), 16);
  EXPECT_EQ(v->data<int32_t>()[0], 4);
  EXPECT_EQ(v->data<int32_t>()[2], 6);  // physical neighbour; logical element 1 is at index 2
}

TEST(TensorImpl, Contiguity) {
  EXPECT_TRUE(strided({2, 3}, {3, 1})->is_contiguous());
  EXPECT_FALSE(strided({2, 3}, {1, 2})->is_contiguous());   // transposed
  EXPECT_FALSE(strided({2, 3}, {6, 1})->is_contiguous());   // row padding
  EXPECT_FALSE(strided({2, 3}, {3, 2})->is_contiguous());
  EXPECT_TRUE(strided({2, 1, 3}, {3, 99, 1})->is_contiguous());  // size-1 strides do not matter
  EXPECT_TRUE(strided({1, 1}, {7, 5})->is_contiguous());
  EXPECT_TRUE(strided({3, 0}, {5, 7})->is_contiguous());     // empty
  EXPECT_FALSE(strided({2, 3}, {0, 1})->is_contiguous());   // expanded
  EXPECT_TRUE(strided({}, {})->is_contiguous());
  EXPECT_TRUE(strided({4}, {1})->is_contiguous());
  EXPECT_FALSE(strided({4}, {2})->is_contiguous());
}

TEST(TensorImpl, InternalOverlap) {
  EXPECT_FALSE(strided({2, 3}, {3, 1})->has_internal_overlap());
  EXPECT_FALSE(strided({3, 2}, {1, 3})->has_internal_overlap());   // transposed
  EXPECT_FALSE(strided({2, 3}, {4, 1})->has_internal_overlap());   // gaps
  EXPECT_FALSE(strided({2, 2}, {3, 2})->has_internal_overlap());   // offsets 0 2 3 5
  EXPECT_TRUE(strided({2, 3}, {0, 1})->has_internal_overlap());    // expand
  EXPECT_TRUE(strided({3}, {0})->has_internal_overlap());
  EXPECT_FALSE(strided({1, 3}, {0, 1})->has_internal_overlap());   // stride 0 on a size-1 dim
  EXPECT_TRUE(strided({3, 4}, {2, 1})->has_internal_overlap());    // unfold(size 4, step 2)
  EXPECT_FALSE(strided({3, 2}, {2, 1})->has_internal_overlap());   // unfold(size 2, step 2)
  EXPECT_TRUE(strided({2, 2}, {1, 1})->has_internal_overlap());
  EXPECT_FALSE(strided({2, 3, 2}, {6, 1, 3})->has_internal_overlap());
  EXPECT_FALSE(strided({}, {})->has_internal_overlap());
}

TEST(TensorImpl, InternalOverlapIsExactForInterleavedStrides) {
  // Shape (3, 2), strides (2, 3): offsets i*2 + j*3 = {0, 3, 2, 5, 4, 7} are all distinct,
  // so no two index tuples reach one element and a write must be allowed.
  Tensor t = strided({3, 2}, {2, 3});
  EXPECT_FALSE(t->has_internal_overlap());
  EXPECT_NO_THROW(check_writable(*t, "test"));
}

TEST(TensorImpl, EmptyTensorHasNoInternalOverlap) {
  Tensor e = expand(zeros({0, 1}, Dtype::F32, cpu()), {0, 3});
  EXPECT_FALSE(e->has_internal_overlap());
  EXPECT_NO_THROW(fill_(e, Scalar::from_int(1)));
  EXPECT_NO_THROW(copy_(e, ones({0, 3}, Dtype::F32, cpu())));
}

TEST(TensorImpl, CheckWritableRefusesAliasedElements) {
  Tensor base = test::iota({6});
  EXPECT_NO_THROW(check_writable(*base, "add_"));
  Tensor e = expand(base->as_view({1, 6}, {6, 1}, 0), {4, 6});
  EXPECT_LUCID_ERROR_MSG(check_writable(*e, "add_"), Generic, "[add_]");
  Tensor u = unfold(base, 0, 3, 1);
  EXPECT_LUCID_ERROR_MSG(check_writable(*u, "mul_"), Generic, "more than one element");
}

TEST(TensorImpl, VersionCounterIsSharedByViews) {
  Tensor t = test::iota({2, 3});
  Tensor v = transpose(t, 0, 1);
  Tensor r = reshape(t, {6});
  Tensor s = select(t, 0, 1);
  Tensor other = test::iota({2, 3});
  ASSERT_EQ(r->storage(), t->storage());
  const int64_t v0 = t->version();
  EXPECT_EQ(v->version(), v0);

  fill_(s, Scalar::from_double(7.0));  // write through one view
  for (const Tensor& x : {t, v, r, s}) EXPECT_EQ(x->version(), v0 + 1);
  EXPECT_EQ(test::values<float>(t), (std::vector<float>{0, 1, 2, 7, 7, 7}));

  binary_(BinaryOp::Add, v, Scalar::from_int(1));  // in place through another
  for (const Tensor& x : {t, v, r, s}) EXPECT_EQ(x->version(), v0 + 2);

  copy_(t, other);
  for (const Tensor& x : {t, v, r, s}) EXPECT_EQ(x->version(), v0 + 3);
  EXPECT_EQ(other->version(), 0);

  t->bump_version();
  EXPECT_EQ(s->version(), v0 + 4);

  // A copy (clone) starts its own counter.
  Tensor c = clone(t);
  EXPECT_EQ(c->version(), 0);
  fill_(c, Scalar::from_int(0));
  EXPECT_EQ(t->version(), v0 + 4);
}

TEST(TensorImpl, ViewKeepsStorageAlive) {
  const MemoryStats before = cpu_stats();
  Tensor v;
  {
    Tensor t = TensorImpl::empty({256}, Dtype::F32, cpu());
    v = narrow(t, 0, 10, 5);
  }
  EXPECT_EQ(cpu_stats().allocated - before.allocated, 1024);  // still held by the view
  v.reset();
  EXPECT_EQ(cpu_stats().allocated, before.allocated);
}

TEST(TensorImpl, AutogradMetaIsLazy) {
  Tensor t = TensorImpl::empty({2}, Dtype::F32, cpu());
  EXPECT_EQ(t->autograd_meta(), nullptr);
  EXPECT_FALSE(t->requires_grad());
  AutogradMeta& m = t->ensure_autograd_meta();
  EXPECT_EQ(t->autograd_meta(), &m);
  EXPECT_FALSE(m.requires_grad);
  EXPECT_EQ(m.grad, nullptr);
  EXPECT_EQ(m.grad_fn, nullptr);
  m.requires_grad = true;
  EXPECT_TRUE(t->requires_grad());
  EXPECT_EQ(&t->ensure_autograd_meta(), &m);
  // A view is a separate TensorImpl with its own (absent) meta.
  Tensor v = alias(t);
  EXPECT_EQ(v->autograd_meta(), nullptr);
  EXPECT_EQ(v->storage(), t->storage());
}

}  // namespace
}  // namespace lucid
