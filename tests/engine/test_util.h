#pragma once
// Small helpers shared by the engine tests: building tensors from host values, reading them
// back, and asserting the kind of a lucid::Error.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/device_interface.h"
#include "core/dtype.h"
#include "core/error.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/host.h"
#include "tensor/tensor_impl.h"

namespace lucid {
// Readable gtest output for engine enums.
inline void PrintTo(Dtype d, std::ostream* os) { *os << dtype_name(d); }
inline void PrintTo(ErrorKind k, std::ostream* os) { *os << error_kind_name(k); }
}  // namespace lucid

namespace lucid::test {

inline Device cpu() { return Device(DeviceType::CPU); }

template <typename T>
Tensor make(const std::vector<T>& v, const Shape& shape) {
  EXPECT_EQ(int64_t(v.size()), numel_of(shape));
  return from_host(v.data(), shape, DtypeOf<T>::value, cpu());
}
template <typename T>
Tensor make(const std::vector<T>& v) {
  return make(v, Shape{int64_t(v.size())});
}
inline Tensor make_bool(const std::vector<int>& v, const Shape& shape) {
  std::vector<uint8_t> b(v.begin(), v.end());
  return from_host(b.data(), shape, Dtype::Bool, cpu());
}

// Logical (row-major) values of t, which must have dtype T.
template <typename T>
std::vector<T> values(const Tensor& t) {
  EXPECT_EQ(t->dtype(), DtypeOf<T>::value);
  const std::string bytes = to_bytes(t);
  std::vector<T> out(size_t(t->numel()));
  if (!out.empty()) std::memcpy(static_cast<void*>(out.data()), bytes.data(), bytes.size());
  return out;
}
inline std::vector<int> bool_values(const Tensor& t) {
  EXPECT_EQ(t->dtype(), Dtype::Bool);
  const std::string bytes = to_bytes(t);
  std::vector<int> out;
  for (char c : bytes) out.push_back(c != 0);
  return out;
}

// 0, 1, ..., n-1 of dtype dt, in `shape` (numel n).
inline Tensor iota(const Shape& shape, Dtype dt = Dtype::F32) {
  const int64_t n = numel_of(shape);
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = double(i);
  return to(from_host(v.data(), shape, Dtype::F64, cpu()), dt, std::nullopt);
}

template <typename F>
std::optional<Error> catch_error(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}

inline MemoryStats cpu_stats() { return device_interface(cpu()).memory_stats(0); }

}  // namespace lucid::test

// EXPECT_LUCID_ERROR(statement, Kind): the statement throws lucid::Error of ErrorKind::Kind.
#define EXPECT_LUCID_ERROR(stmt, KIND)                                                              \
  do {                                                                                              \
    auto lucid_err_ = ::lucid::test::catch_error([&] { (void)(stmt); });                             \
    if (!lucid_err_) {                                                                              \
      ADD_FAILURE() << "expected lucid::Error(" #KIND ") from: " #stmt;                              \
    } else {                                                                                        \
      EXPECT_EQ(lucid_err_->kind(), ::lucid::ErrorKind::KIND) << "message: " << lucid_err_->what(); \
    }                                                                                               \
  } while (0)

// As above, and the message contains `substr`.
#define EXPECT_LUCID_ERROR_MSG(stmt, KIND, substr)                                                  \
  do {                                                                                              \
    auto lucid_err_ = ::lucid::test::catch_error([&] { (void)(stmt); });                             \
    if (!lucid_err_) {                                                                              \
      ADD_FAILURE() << "expected lucid::Error(" #KIND ") from: " #stmt;                              \
    } else {                                                                                        \
      EXPECT_EQ(lucid_err_->kind(), ::lucid::ErrorKind::KIND) << "message: " << lucid_err_->what(); \
      EXPECT_NE(std::string(lucid_err_->what()).find(substr), std::string::npos)                    \
          << "message: " << lucid_err_->what() << "\nexpected to contain: " << (substr);            \
    }                                                                                               \
  } while (0)
