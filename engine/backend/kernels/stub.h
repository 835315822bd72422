#pragma once
// Kernel registration per op family per device (DESIGN.md §1): each family header declares a
// stub; each backend file registers its kernel into it at start-up. Adding a kernel never edits
// a central class, and a missing kernel is a NotImplementedError, never a silent fallback.
#include <string>
#include <type_traits>
#include <utility>

#include "core/device.h"
#include "core/error.h"
#include "core/profiler.h"
#include "tensor/tensor_impl.h"

namespace lucid {

namespace detail {
inline void note_operand(profiler::Scope& s, const TensorImpl& t) { s.add_operand(t.shape(), t.nbytes()); }
template <typename T>
inline void note_operand(profiler::Scope&, const T&) {}
}  // namespace detail

// What a stub hands out: the kernel, callable as the kernel itself. While the profiler runs it
// records the call (op name, device, operand shapes and bytes, time); otherwise it adds one relaxed
// atomic load.
template <typename Fn>
struct KernelCall;
template <typename R, typename... A>
struct KernelCall<R (*)(A...)> {
  R (*fn)(A...);
  const char* family;
  const char* (*label)(int);
  Device device;

  R operator()(A... a) const {
    if (__builtin_expect(!profiler::enabled(), 1)) return fn(std::forward<A>(a)...);
    profiler::Scope scope(name(a...), profiler::EventKind::Kernel, device);
    (detail::note_operand(scope, a), ...);
    return fn(std::forward<A>(a)...);
  }

 private:
  template <typename First, typename... Rest>
  std::string name(const First& first, const Rest&...) const {
    if constexpr (std::is_enum_v<First>)
      if (label) return label(int(first));
    return base_name();
  }
  std::string name() const { return base_name(); }
  std::string base_name() const {
    std::string f(family);
    const std::string suffix = "_kernel";
    if (f.size() > suffix.size() && f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0)
      f.resize(f.size() - suffix.size());
    return f;
  }
};

template <typename Fn>
struct KernelStub {
  const char* family;
  Fn fns[kNumDeviceTypes] = {};
  // Names the op of a kernel whose first argument is an op enum (UnaryOp, BinaryOp, ...) for the
  // profiler; set by the op family that owns the enum.
  const char* (*label)(int) = nullptr;

  KernelCall<Fn> operator()(Device d) const {
    Fn f = fns[int(d.type)];
    LUCID_CHECK(f, NotImplemented, "[" << family << "] no kernel for device " << d);
    return KernelCall<Fn>{f, family, label, d};
  }
};

}  // namespace lucid

#define LUCID_DECLARE_KERNEL(name, fn_type) \
  using name##_fn = fn_type;                \
  extern ::lucid::KernelStub<name##_fn> name;
#define LUCID_DEFINE_KERNEL(name) ::lucid::KernelStub<name##_fn> name{#name};
#define LUCID_REGISTER_KERNEL(name, device_type, fn)                          \
  static const bool lucid_reg_##name##_##device_type = [] {                   \
    ::lucid::name.fns[int(::lucid::DeviceType::device_type)] = fn;            \
    return true;                                                              \
  }();
