#pragma once
// Names shared by the op tests (test_ops.cpp, test_views.cpp): short value types and helpers.
#include "test_util.h"

namespace lucid::test::ops {

using test::bool_values;
using test::cpu;
using test::cpu_stats;
using test::iota;
using test::make;
using test::values;
using F = std::vector<float>;
using D = std::vector<double>;
using I64 = std::vector<int64_t>;
using I32 = std::vector<int32_t>;

inline Scalar si(int64_t v) { return Scalar::from_int(v); }
inline Scalar sf(double v) { return Scalar::from_double(v); }
inline Tensor make_bool(const std::vector<int>& v, const Shape& shape) { return test::make_bool(v, shape); }
inline Tensor make_bool(const std::vector<int>& v = {1, 0, 1}) { return test::make_bool(v, {int64_t(v.size())}); }

// Counts CPU allocations made while `f` runs.
template <typename Fn>
int64_t allocs_during(Fn&& f) {
  const int64_t before = cpu_stats().num_allocs;
  f();
  return cpu_stats().num_allocs - before;
}

}  // namespace lucid::test::ops
