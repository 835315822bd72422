#pragma once
// Large temporaries of CPU kernels through the CPU device's caching allocator (cpu_device.cpp), so a
// kernel run again reuses its blocks instead of getting fresh pages from the system: a sort of 1M
// floats spent a third of its time in page faults and the kernel zeroing its ~50 MB of vectors.
// Blocks below the allocator's cache size go to malloc as before.
#include <cstddef>
#include <vector>

#include "core/device_interface.h"

namespace lucid::cpu {

template <typename T>
struct ScratchAlloc {
  using value_type = T;
  ScratchAlloc() = default;
  template <typename U>
  ScratchAlloc(const ScratchAlloc<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(device_interface(Device(DeviceType::CPU)).allocate(n * sizeof(T), -1)); }
  void deallocate(T* p, size_t n) { device_interface(Device(DeviceType::CPU)).deallocate(p, n * sizeof(T), -1); }
  template <typename U>
  bool operator==(const ScratchAlloc<U>&) const { return true; }
};

template <typename T>
using ScratchVec = std::vector<T, ScratchAlloc<T>>;

}  // namespace lucid::cpu
