#pragma once
// The small per-device interface (DESIGN.md §1): allocate, free, copy, synchronise, memory stats.
// Each backend registers one implementation at start-up; kernels are registered separately per op
// family (backend/kernels/). Nothing here knows about tensors.
#include <cstddef>
#include <cstdint>

#include "core/device.h"

namespace lucid {

struct MemoryStats {
  int64_t allocated = 0;       // bytes held by live storages
  int64_t peak_allocated = 0;
  int64_t reserved = 0;        // bytes obtained from the system (>= allocated with a caching allocator)
  int64_t peak_reserved = 0;
  int64_t num_allocs = 0;
  int64_t num_frees = 0;
  int64_t num_system_allocs = 0;  // calls into malloc/cudaMalloc
};

class DeviceInterface {
 public:
  virtual ~DeviceInterface() = default;
  virtual int device_count() const = 0;
  virtual void* allocate(size_t nbytes, int index) = 0;  // OutOfMemory on failure
  virtual void deallocate(void* ptr, size_t nbytes, int index) = 0;
  // Byte copy where at least one side is this device type. Ordered with this device's stream.
  virtual void copy(void* dst, Device dst_dev, const void* src, Device src_dev, size_t nbytes) = 0;
  virtual void synchronize(int index) = 0;
  virtual MemoryStats memory_stats(int index) const = 0;
  virtual void reset_peak_memory_stats(int index) = 0;
  virtual void empty_cache() {}
  // Page-locked host memory (CUDA only); nullptr when unsupported.
  virtual void* allocate_pinned(size_t) { return nullptr; }
  virtual void free_pinned(void*) {}
};

void register_device_interface(DeviceType type, DeviceInterface* iface);
// nullptr when the backend was not built.
DeviceInterface* find_device_interface(DeviceType type);
// Throws a clear error when the backend is missing or the index is out of range.
DeviceInterface& device_interface(Device d);
bool device_available(DeviceType type);  // built, and at least one device present

}  // namespace lucid
