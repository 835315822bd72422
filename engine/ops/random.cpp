#include "ops/random.h"

#include <random>
#include <vector>

#include "backend/common/philox.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"

namespace lucid {

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> g(mu_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t Generator::seed() {
  std::random_device rd;
  const uint64_t s = (uint64_t(rd()) << 32) ^ rd();
  manual_seed(s);
  return s;
}

std::pair<uint64_t, uint64_t> Generator::reserve(uint64_t n) {
  std::lock_guard<std::mutex> g(mu_);
  const uint64_t off = offset_;
  offset_ += n;
  return {seed_, off};
}

std::string Generator::get_state() const {
  std::lock_guard<std::mutex> g(mu_);
  std::string s(16, '\0');
  for (int i = 0; i < 8; ++i) {
    s[size_t(i)] = char((seed_ >> (8 * i)) & 0xff);
    s[size_t(8 + i)] = char((offset_ >> (8 * i)) & 0xff);
  }
  return s;
}

void Generator::set_state(const std::string& s) {
  LUCID_CHECK(s.size() == 16, Value, "[set_rng_state] expected a state of 16 bytes, got " << s.size());
  std::lock_guard<std::mutex> g(mu_);
  seed_ = offset_ = 0;
  for (int i = 0; i < 8; ++i) {
    seed_ |= uint64_t(uint8_t(s[size_t(i)])) << (8 * i);
    offset_ |= uint64_t(uint8_t(s[size_t(8 + i)])) << (8 * i);
  }
}

GeneratorPtr default_generator() {
  static GeneratorPtr g = std::make_shared<Generator>();
  return g;
}

Tensor random_(const Tensor& out, RandomDist dist, double a, double b, const GeneratorPtr& gen) {
  check_writable(*out, "random_");
  const bool hist = autograd::check_inplace(out, {}, "random_");
  random_into(out, dist, a, b, gen);
  out->bump_version();
  if (hist) {  // random values do not depend on the old ones
    Tensor values;
    {
      autograd::GradModeGuard off(false);
      values = clone(out);
    }
    record_inplace(out, values);
  }
  return out;
}

Tensor random_into(const Tensor& out, RandomDist dist, double a, double b, const GeneratorPtr& gen_in) {
  const GeneratorPtr& gen = gen_in ? gen_in : default_generator();
  if (dist == RandomDist::Uniform || dist == RandomDist::Normal)
    LUCID_CHECK(is_floating(out->dtype()) || is_complex(out->dtype()), NotImplemented,
                "[" << (dist == RandomDist::Uniform ? "uniform" : "normal") << "] random draws of this kind are only "
                    "implemented for floating point and complex dtypes, got " << dtype_name(out->dtype()));
  if (dist == RandomDist::Normal) LUCID_CHECK(b >= 0, Value, "[normal] std must be non-negative, got " << b);
  if (dist == RandomDist::Bernoulli) LUCID_CHECK(a >= 0 && a <= 1, Value, "[bernoulli] p must be in [0, 1], got " << a);
  if (dist == RandomDist::Uniform) LUCID_CHECK(a <= b, Value, "[uniform] expected from <= to, got from=" << a << " > to=" << b);
  if (dist == RandomDist::Integer) LUCID_CHECK(a < b, Value, "[randint] random_ expects 'from' to be less than 'to', but got from=" << a << " >= to=" << b);
  RandomParams p;
  p.dist = dist;
  p.a = a;
  p.b = b;
  auto [seed, off] = gen->reserve(uint64_t(out->numel()));
  p.seed = seed;
  p.offset = off;
  if (out->numel()) {
    if (out->is_contiguous()) {
      random_kernel(out->device())(*out, p);
    } else {
      Tensor tmp = TensorImpl::empty(out->shape(), out->dtype(), out->device());
      random_kernel(out->device())(*tmp, p);
      copy_into(out, tmp);
    }
  }
  return out;
}

Tensor randperm(int64_t n, Dtype dtype, Device device, const GeneratorPtr& gen_in) {
  LUCID_CHECK(n >= 0, Value, "[randperm] n must be non-negative, got " << n);
  const GeneratorPtr& gen = gen_in ? gen_in : default_generator();
  // Fisher-Yates on the host, drawing from Philox so every device gets the same permutation.
  auto [seed, off] = gen->reserve(uint64_t(n));
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = i;
  for (int64_t i = n - 1; i > 0; --i) {
    double u1, u2;
    philox_uniform2(seed, off, uint64_t(i), &u1, &u2);
    const int64_t j = std::min<int64_t>(i, int64_t(u1 * double(i + 1)));
    std::swap(v[size_t(i)], v[size_t(j)]);
  }
  return to(from_host(v.data(), {n}, Dtype::I64, Device(DeviceType::CPU)), dtype, device);
}

}  // namespace lucid
