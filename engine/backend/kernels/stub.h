#pragma once
// Kernel registration per op family per device (DESIGN.md §1): each family header declares a
// stub; each backend file registers its kernel into it at start-up. Adding a kernel never edits
// a central class, and a missing kernel is a NotImplementedError, never a silent fallback.
#include "core/device.h"
#include "core/error.h"

namespace lucid {

template <typename Fn>
struct KernelStub {
  const char* family;
  Fn fns[kNumDeviceTypes] = {};

  Fn operator()(Device d) const {
    Fn f = fns[int(d.type)];
    LUCID_CHECK(f, NotImplemented, "[" << family << "] no kernel for device " << d);
    return f;
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
