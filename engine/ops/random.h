#pragma once
// Random number generation: a Philox generator state (seed, offset). Each draw reserves
// `numel` counter blocks, so a draw of the same size after the same seed gives the same numbers
// on every device.
#include <cstdint>
#include <memory>
#include <mutex>

#include "backend/kernels/random.h"
#include "tensor/tensor_impl.h"

namespace lucid {

class Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ULL) : seed_(seed) {}
  void manual_seed(uint64_t seed);
  uint64_t seed();  // re-seeds from a non-deterministic source and returns the seed
  uint64_t initial_seed() const { return seed_; }
  // Reserves n counter blocks; returns (seed, offset of the first).
  std::pair<uint64_t, uint64_t> reserve(uint64_t n);
  // State: 16 bytes (seed, offset), little-endian.
  std::string get_state() const;
  void set_state(const std::string& s);

 private:
  mutable std::mutex mu_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

using GeneratorPtr = std::shared_ptr<Generator>;
GeneratorPtr default_generator();

// out (any layout) filled in place; returns out. Version bumped.
Tensor random_(const Tensor& out, RandomDist dist, double a, double b, const GeneratorPtr& gen);
// The same fill into a tensor a factory has just allocated (no version bump).
Tensor random_into(const Tensor& out, RandomDist dist, double a, double b, const GeneratorPtr& gen);
Tensor randperm(int64_t n, Dtype dtype, Device device, const GeneratorPtr& gen);

}  // namespace lucid
