// The CPU device: 64-byte-aligned host buffers with allocation statistics.
//
// Large blocks (>= kCacheMin) go through a small size-class cache: a freed block is kept and handed
// out again for the next request of the same class, so a training step reuses its buffers instead
// of asking glibc for fresh ones (glibc mmaps large blocks and unmaps them on free, so every fresh
// buffer faulted all its pages in again). Blocks of >= 2 MiB are 2 MiB-aligned and marked
// MADV_HUGEPAGE (as PyTorch's CPU allocator does), so their first touch costs 1 fault, not 512.
// The cache holds at most 1 GiB (env LUCID_CPU_CACHE_MB), and empty_cache() returns it.
// Stats: `allocated` is the bytes of live storages (as requested); `reserved` is what was obtained
// from the system (live blocks at their class size, plus the cached ones).
#include <sys/mman.h>

#include <algorithm>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/device_interface.h"
#include "core/error.h"

namespace lucid::cpu {

namespace {

constexpr size_t kCacheMin = size_t(256) << 10;  // smaller blocks: plain malloc (its arenas reuse them)
// ... but blocks of at most 1 KiB (small tensors' data, in 64-byte classes) are kept on free lists:
// their aligned_alloc/free pairs (memalign splitting chunks, free consolidating them) were a quarter
// of a small op's time (`a * 2.0` on 16 elements).
constexpr size_t kSmallMax = 1024, kSmallKeep = 256;  // per class
constexpr size_t kHuge = size_t(2) << 20;

size_t cache_cap() {
  static const size_t cap = [] {
    const char* e = std::getenv("LUCID_CPU_CACHE_MB");
    if (e && *e) return size_t(std::strtoull(e, nullptr, 10)) << 20;
    return size_t(1) << 30;
  }();
  return cap;
}

// The size class of a cached block: steps of 1/8 of its power of two (at most 12.5% slack),
// whole 4 KiB pages, whole 2 MiB pages from 16 MiB up.
size_t size_class(size_t n) {
  size_t p = size_t(1) << (63 - __builtin_clzll(n));
  size_t step = std::max<size_t>(p / 8, 4096);
  if (n >= (size_t(16) << 20)) step = std::max(step, kHuge);
  return (n + step - 1) / step * step;
}

void* system_alloc(size_t cls) {
  const size_t align = cls >= kHuge ? kHuge : 64;
  void* p = std::aligned_alloc(align, cls);
#ifdef MADV_HUGEPAGE
  if (p && cls >= kHuge) madvise(p, cls, MADV_HUGEPAGE);
#endif
  return p;
}

// Heap-allocated and never destroyed: storages freed during interpreter shutdown may still return
// blocks after static destructors have run.
struct BlockCache {
  std::unordered_map<size_t, std::vector<void*>> free;  // class size -> cached blocks
  size_t cached_bytes = 0;
  std::vector<void*> small[kSmallMax / 64];  // blocks of 64 (k + 1) bytes
};

class CpuDevice final : public DeviceInterface {
 public:
  int device_count() const override { return 1; }

  void* allocate(size_t nbytes, int) override {
    if (nbytes == 0) return nullptr;
    if (nbytes >= kCacheMin) return allocate_large(nbytes);
    const size_t rounded = (nbytes + 63) & ~size_t(63);
    if (rounded <= kSmallMax) {
      std::lock_guard<std::mutex> g(mu_);
      std::vector<void*>& v = cache_->small[rounded / 64 - 1];
      if (!v.empty()) {
        void* p = v.back();
        v.pop_back();
        count_alloc(nbytes, 0);
        return p;
      }
    }
    void* p = std::aligned_alloc(64, rounded);
    LUCID_CHECK(p, OutOfMemory, "CPU out of memory: tried to allocate " << nbytes << " bytes");
    std::lock_guard<std::mutex> g(mu_);
    count_alloc(nbytes, int64_t(rounded));
    ++s_.num_system_allocs;
    return p;
  }

  void deallocate(void* p, size_t nbytes, int) override {
    if (!p) return;
    if (nbytes >= kCacheMin) {
      const size_t cls = size_class(nbytes);
      std::lock_guard<std::mutex> g(mu_);
      s_.allocated -= int64_t(nbytes);
      ++s_.num_frees;
      if (cache_->cached_bytes + cls <= cache_cap()) {
        cache_->free[cls].push_back(p);
        cache_->cached_bytes += cls;
        return;
      }
      s_.reserved -= int64_t(cls);
    } else {
      const size_t rounded = (nbytes + 63) & ~size_t(63);
      std::lock_guard<std::mutex> g(mu_);
      s_.allocated -= int64_t(nbytes);
      ++s_.num_frees;
      if (rounded <= kSmallMax && cache_->small[rounded / 64 - 1].size() < kSmallKeep) {
        cache_->small[rounded / 64 - 1].push_back(p);
        return;
      }
      s_.reserved -= int64_t(rounded);
    }
    std::free(p);
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
  void empty_cache() override {
    std::vector<void*> blocks;
    {
      std::lock_guard<std::mutex> g(mu_);
      release_cached(blocks);
    }
    for (void* p : blocks) std::free(p);
  }

 private:
  void count_alloc(size_t nbytes, int64_t reserved_delta) {
    s_.allocated += int64_t(nbytes);
    s_.reserved += reserved_delta;
    s_.peak_allocated = std::max(s_.peak_allocated, s_.allocated);
    s_.peak_reserved = std::max(s_.peak_reserved, s_.reserved);
    ++s_.num_allocs;
  }

  // Caller holds mu_. Moves every cached block to `out` and drops it from the stats.
  void release_cached(std::vector<void*>& out) {
    for (auto& [cls, v] : cache_->free) {
      for (void* p : v) out.push_back(p);
      s_.reserved -= int64_t(cls * v.size());
    }
    cache_->free.clear();
    cache_->cached_bytes = 0;
    for (size_t c = 0; c < kSmallMax / 64; ++c) {
      for (void* p : cache_->small[c]) out.push_back(p);
      s_.reserved -= int64_t(64 * (c + 1) * cache_->small[c].size());
      cache_->small[c].clear();
    }
  }

  void* allocate_large(size_t nbytes) {
    const size_t cls = size_class(nbytes);
    {
      std::lock_guard<std::mutex> g(mu_);
      auto it = cache_->free.find(cls);
      if (it != cache_->free.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        cache_->cached_bytes -= cls;
        count_alloc(nbytes, 0);
        return p;
      }
    }
    void* p = system_alloc(cls);
    if (!p) {  // give the cached blocks back and try once more
      empty_cache();
      p = system_alloc(cls);
    }
    LUCID_CHECK(p, OutOfMemory, "CPU out of memory: tried to allocate " << nbytes << " bytes");
    std::lock_guard<std::mutex> g(mu_);
    count_alloc(nbytes, int64_t(cls));
    ++s_.num_system_allocs;
    return p;
  }

  mutable std::mutex mu_;
  MemoryStats s_;
  BlockCache* cache_ = new BlockCache;
};

CpuDevice g_cpu;
const bool g_registered = (register_device_interface(DeviceType::CPU, &g_cpu), true);

}  // namespace
}  // namespace lucid::cpu
