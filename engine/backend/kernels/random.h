#pragma once
// Counter-based random fills (Philox-4x32-10). Element i of a contiguous output draws from
// counter (offset + i / 4, lane i % 4), so CPU and CUDA produce identical numbers.
#include <cstdint>

#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

enum class RandomDist : uint8_t { Uniform, Normal, Bernoulli, Integer };

struct RandomParams {
  RandomDist dist = RandomDist::Uniform;
  double a = 0, b = 1;   // uniform [a, b); normal mean a, std b; bernoulli p = a; integer [a, b)
  uint64_t seed = 0;
  uint64_t offset = 0;   // in 128-bit counter blocks
};

// out must be contiguous.
LUCID_DECLARE_KERNEL(random_kernel, void (*)(const TensorImpl& out, const RandomParams& p))

}  // namespace lucid
