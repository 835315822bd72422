#pragma once
// Shared by the CUDA backend files: error checks, the one stream per device, a device guard and
// launch sizes. Host code only (the kernels' own helpers live in loops.cuh).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/error.h"

// LUCID_CUDA_CHECK(cudaXxx(...)): throws lucid::Error (Generic) naming the CUDA error. The error
// is cleared first so a non-sticky failure does not poison the next call.
#define LUCID_CUDA_CHECK(expr)                                                                        \
  do {                                                                                                \
    const cudaError_t lucid_cuda_err_ = (expr);                                                       \
    if (lucid_cuda_err_ != cudaSuccess) (void)cudaGetLastError();                                     \
    LUCID_CHECK(lucid_cuda_err_ == cudaSuccess, Generic,                                              \
                "CUDA error " << cudaGetErrorName(lucid_cuda_err_) << ": " << cudaGetErrorString(lucid_cuda_err_) \
                              << " (" #expr ")");                                                     \
  } while (0)

// After a <<<...>>> launch: reports bad launch configurations at once.
#define LUCID_CUDA_LAUNCH_CHECK() LUCID_CUDA_CHECK(cudaGetLastError())

namespace lucid::cuda {

constexpr int kMaxDevices = 64;

// Number of visible CUDA devices; 0 (never an error) without a driver or GPU.
int device_count();
// The device's one stream (non-blocking, created on first use). Every kernel, copy and cuBLAS
// call on that device runs on it, so work on one device is ordered without events.
cudaStream_t stream(int index);
// Streaming multiprocessors of the device (cached).
int sm_count(int index);

// Makes `index` the current device for the guard's lifetime; restores the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int index) {
    LUCID_CUDA_CHECK(cudaGetDevice(&prev_));
    if (prev_ != index) LUCID_CUDA_CHECK(cudaSetDevice(index));
    else prev_ = -1;
  }
  ~DeviceGuard() {
    if (prev_ >= 0) (void)cudaSetDevice(prev_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int prev_ = -1;
};

constexpr int kThreads = 256;
// Blocks for a grid-stride loop over `work` items: enough to fill the GPU, capped so huge inputs
// loop instead of launching millions of blocks.
inline unsigned int blocks_for(int64_t work, int threads = kThreads, int64_t max_blocks = 65536) {
  int64_t b = (work + threads - 1) / threads;
  if (b < 1) b = 1;
  if (b > max_blocks) b = max_blocks;
  return static_cast<unsigned int>(b);
}

}  // namespace lucid::cuda
