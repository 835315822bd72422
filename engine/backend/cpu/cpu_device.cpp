// The CPU device: 64-byte-aligned host buffers with allocation statistics.
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/device_interface.h"
#include "core/error.h"

namespace lucid::cpu {

namespace {

class CpuDevice final : public DeviceInterface {
 public:
  int device_count() const override { return 1; }

  void* allocate(size_t nbytes, int) override {
    if (nbytes == 0) return nullptr;
    const size_t rounded = (nbytes + 63) & ~size_t(63);
    void* p = std::aligned_alloc(64, rounded);
    LUCID_CHECK(p, OutOfMemory, "CPU out of memory: tried to allocate " << nbytes << " bytes");
    std::lock_guard<std::mutex> g(mu_);
    s_.allocated += int64_t(nbytes);
    s_.reserved += int64_t(nbytes);
    s_.peak_allocated = std::max(s_.peak_allocated, s_.allocated);
    s_.peak_reserved = std::max(s_.peak_reserved, s_.reserved);
    ++s_.num_allocs;
    ++s_.num_system_allocs;
    return p;
  }

  void deallocate(void* p, size_t nbytes, int) override {
    if (!p) return;
    std::free(p);
    std::lock_guard<std::mutex> g(mu_);
    s_.allocated -= int64_t(nbytes);
    s_.reserved -= int64_t(nbytes);
    ++s_.num_frees;
  }

  void copy(void* dst, Device, const void* src, Device, size_t nbytes) override {
    if (nbytes) std::memcpy(dst, src, nbytes);
  }
  void synchronize(int) override {}

  MemoryStats memory_stats(int) const override {
    std::lock_guard<std::mutex> g(mu_);
    return s_;
  }
  void reset_peak_memory_stats(int) override {
    std::lock_guard<std::mutex> g(mu_);
    s_.peak_allocated = s_.allocated;
    s_.peak_reserved = s_.reserved;
  }

 private:
  mutable std::mutex mu_;
  MemoryStats s_;
};

CpuDevice g_cpu;
const bool g_registered = (register_device_interface(DeviceType::CPU, &g_cpu), true);

}  // namespace
}  // namespace lucid::cpu
