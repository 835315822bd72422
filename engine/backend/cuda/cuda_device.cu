// The CUDA device (mirrors cpu/cpu_device.cpp): a caching allocator with statistics, one stream
// per device, host/device copies, pinned host memory. See docs/notes/cuda-backend.md.
//
// Note [Caching allocator and the single stream]
// Freed blocks go back to a per-device free list at once, even though kernels queued on the
// device's stream may still read or write them. This is safe because every kernel, copy and
// cuBLAS call on a device runs on that device's one stream: whoever gets the block next can only
// touch it through work queued after the pending work. The exceptions are handled explicitly:
// cross-device copies synchronise both streams, and blocks are only handed back to the driver
// (cudaFree) after the stream has been synchronised.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/cuda/cuda_common.cuh"
#include "core/device_interface.h"

namespace lucid::cuda {

namespace {

int count_devices() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver / no GPU: not an error for us
    n = 0;
  }
  return std::min(n, kMaxDevices);
}

std::mutex g_stream_mu;
std::atomic<cudaStream_t> g_streams[kMaxDevices];
std::atomic<int> g_sm_counts[kMaxDevices];

}  // namespace

int device_count() {
  static const int n = count_devices();
  return n;
}

cudaStream_t stream(int index) {
  LUCID_CHECK(index >= 0 && index < device_count(), Generic,
              "CUDA device index " << index << " out of range (" << device_count() << " device(s))");
  cudaStream_t s = g_streams[index].load(std::memory_order_acquire);
  if (s) return s;
  std::lock_guard<std::mutex> g(g_stream_mu);
  s = g_streams[index].load(std::memory_order_relaxed);
  if (!s) {
    DeviceGuard guard(index);
    LUCID_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    g_streams[index].store(s, std::memory_order_release);
  }
  return s;
}

int sm_count(int index) {
  int n = g_sm_counts[index].load(std::memory_order_relaxed);
  if (n) return n;
  LUCID_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, index));
  g_sm_counts[index].store(n, std::memory_order_relaxed);
  return n;
}

namespace {

// Requests up to 1 MiB round to 512 bytes; larger ones to 2 MiB (the driver's page size).
constexpr size_t kSmallSize = size_t(1) << 20;
constexpr size_t kSmallRound = 512;
constexpr size_t kLargeRound = size_t(2) << 20;

size_t round_size(size_t n) {
  const size_t r = n <= kSmallSize ? kSmallRound : kLargeRound;
  return (n + r - 1) / r * r;
}

// A cached block may serve a request when it is not much larger: at most twice a small request,
// at most max(2 MiB, 1/8) over a large one. Larger blocks wait for a request that fits them.
bool fits(size_t block, size_t rounded) {
  if (rounded <= kSmallSize) return block <= 2 * rounded;
  return block - rounded <= std::max(kLargeRound, rounded / 8);
}

struct Block {
  size_t size;       // bytes obtained from cudaMalloc
  size_t requested;  // bytes asked for (counted in `allocated`)
};

struct DeviceState {
  std::multimap<size_t, void*> free_blocks;  // cached, by size
  std::unordered_map<void*, Block> live;
  MemoryStats stats;
};

std::string mib(int64_t bytes) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(2);
  os << double(bytes) / double(1 << 20) << " MiB";
  return os.str();
}

class CudaDevice final : public DeviceInterface {
 public:
  int device_count() const override { return cuda::device_count(); }

  void* allocate(size_t nbytes, int index) override {
    if (nbytes == 0) return nullptr;
    check_index(index);
    const size_t rounded = round_size(nbytes);
    std::lock_guard<std::mutex> g(mu_);
    DeviceState& st = states_[index];
    void* p = nullptr;
    size_t size = rounded;
    auto it = st.free_blocks.lower_bound(rounded);
    if (it != st.free_blocks.end() && fits(it->first, rounded)) {
      size = it->first;
      p = it->second;
      st.free_blocks.erase(it);
    } else {
      p = system_alloc(st, index, rounded, nbytes);
    }
    st.live.emplace(p, Block{size, nbytes});
    st.stats.allocated += int64_t(nbytes);
    st.stats.peak_allocated = std::max(st.stats.peak_allocated, st.stats.allocated);
    ++st.stats.num_allocs;
    return p;
  }

  // Never throws: runs from Storage's destructor, possibly late in interpreter shutdown.
  void deallocate(void* p, size_t, int index) override {
    if (!p || index < 0 || index >= kMaxDevices) return;
    std::lock_guard<std::mutex> g(mu_);
    DeviceState& st = states_[index];
    auto it = st.live.find(p);
    if (it == st.live.end()) return;
    st.stats.allocated -= int64_t(it->second.requested);
    ++st.stats.num_frees;
    st.free_blocks.emplace(it->second.size, p);  // Note [Caching allocator and the single stream]
    st.live.erase(it);
  }

  void copy(void* dst, Device dst_dev, const void* src, Device src_dev, size_t nbytes) override {
    if (nbytes == 0) return;
    if (dst_dev.is_cpu() && src_dev.is_cpu()) {
      std::memcpy(dst, src, nbytes);
      return;
    }
    if (dst_dev.is_cuda() && src_dev.is_cuda() && dst_dev.index != src_dev.index) {
      // Across GPUs: the source's pending writes must land first, and the source block must not be
      // reused (on its own stream) while the copy still reads it: synchronise both sides.
      synchronize(src_dev.index);
      DeviceGuard guard(dst_dev.index);
      cudaStream_t s = stream(dst_dev.index);
      LUCID_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_dev.index, src, src_dev.index, nbytes, s));
      LUCID_CUDA_CHECK(cudaStreamSynchronize(s));
      return;
    }
    const int index = dst_dev.is_cuda() ? dst_dev.index : src_dev.index;
    const cudaMemcpyKind kind = dst_dev.is_cpu() ? cudaMemcpyDeviceToHost
                                : src_dev.is_cpu() ? cudaMemcpyHostToDevice
                                                   : cudaMemcpyDeviceToDevice;
    DeviceGuard guard(index);
    cudaStream_t s = stream(index);
    LUCID_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, kind, s));
    // The host reads its copy as soon as we return (item(), numpy(), printing). From pageable
    // memory the driver has staged the source before returning; from pinned memory the DMA reads
    // it later, so wait too: the caller may overwrite or free the buffer next (the copy has no
    // non_blocking flag yet).
    if (dst_dev.is_cpu() || is_pinned_host(src)) LUCID_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  void synchronize(int index) override {
    check_index(index);
    DeviceGuard guard(index);
    LUCID_CUDA_CHECK(cudaStreamSynchronize(stream(index)));
  }

  MemoryStats memory_stats(int index) const override {
    if (index < 0 || index >= kMaxDevices) return {};
    std::lock_guard<std::mutex> g(mu_);
    return states_[index].stats;
  }

  void reset_peak_memory_stats(int index) override {
    if (index < 0 || index >= kMaxDevices) return;
    std::lock_guard<std::mutex> g(mu_);
    MemoryStats& s = states_[index].stats;
    s.peak_allocated = s.allocated;
    s.peak_reserved = s.reserved;
  }

  void empty_cache() override {
    std::lock_guard<std::mutex> g(mu_);
    for (int i = 0; i < cuda::device_count(); ++i) release_cached(states_[i], i);
  }

  void* allocate_pinned(size_t nbytes) override {
    if (nbytes == 0) return nullptr;
    void* p = nullptr;
    const cudaError_t e = cudaHostAlloc(&p, nbytes, cudaHostAllocPortable);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      LUCID_FAIL(OutOfMemory, "CUDA could not allocate " << nbytes << " bytes of pinned host memory: "
                                                         << cudaGetErrorString(e));
    }
    return p;
  }

  void free_pinned(void* p) override {
    // cudaFreeHost waits for copies still reading or writing the buffer.
    if (p && cudaFreeHost(p) != cudaSuccess) (void)cudaGetLastError();
  }

 private:
  static bool is_pinned_host(const void* p) {
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    return attr.type == cudaMemoryTypeHost;
  }

  static void check_index(int index) {
    LUCID_CHECK(index >= 0 && index < cuda::device_count(), Generic,
                "CUDA device index " << index << " out of range (" << cuda::device_count() << " device(s))");
  }

  // cudaMalloc, and on failure: give the cache back to the driver and try once more.
  void* system_alloc(DeviceState& st, int index, size_t rounded, size_t requested) {
    DeviceGuard guard(index);
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, rounded);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      release_cached(st, index);
      e = cudaMalloc(&p, rounded);
    }
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      size_t free_b = 0, total_b = 0;
      if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) (void)cudaGetLastError();
      LUCID_FAIL(OutOfMemory, "CUDA out of memory on cuda:" << index << ": tried to allocate " << requested
                                  << " bytes (" << mib(int64_t(requested)) << "); lucid has "
                                  << mib(st.stats.allocated) << " allocated and " << mib(st.stats.reserved)
                                  << " reserved on this device; the GPU has " << mib(int64_t(free_b))
                                  << " free of " << mib(int64_t(total_b)) << " ("
                                  << cudaGetErrorString(e) << ")");
    }
    st.stats.reserved += int64_t(rounded);
    st.stats.peak_reserved = std::max(st.stats.peak_reserved, st.stats.reserved);
    ++st.stats.num_system_allocs;
    return p;
  }

  // Called with mu_ held. The stream is synchronised first: queued work may still use the blocks.
  void release_cached(DeviceState& st, int index) {
    if (st.free_blocks.empty()) return;
    DeviceGuard guard(index);
    if (cudaStreamSynchronize(stream(index)) != cudaSuccess) (void)cudaGetLastError();
    for (auto& [size, p] : st.free_blocks) {
      if (cudaFree(p) != cudaSuccess) (void)cudaGetLastError();
      st.stats.reserved -= int64_t(size);
    }
    st.free_blocks.clear();
  }

  mutable std::mutex mu_;
  DeviceState states_[kMaxDevices];
};

// Never destroyed: storages may outlive static destruction, and the CUDA runtime may already be
// torn down by then.
CudaDevice* const g_cuda = new CudaDevice();
const bool g_registered = (register_device_interface(DeviceType::CUDA, g_cuda), true);

}  // namespace
}  // namespace lucid::cuda
