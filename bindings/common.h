#pragma once
// Shared pieces of the lucid._C bindings: type casters for Dtype, Scalar and Operand, and the
// per-area init functions (one file per area).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include "core/dtype.h"
#include "core/scalar.h"
#include "ops/binary.h"
#include "tensor/tensor_impl.h"

namespace nb = nanobind;

namespace lucid::py {

// The Python-visible dtype objects: one singleton per Dtype (lucid.float32 is lucid.float32).
struct DtypeObj {
  Dtype dtype;
};
DtypeObj* dtype_obj(Dtype d);
bool is_python_scalar(nb::handle h);
Scalar scalar_from_python(nb::handle h);  // bool/int/float/complex (numpy scalars too)
nb::object scalar_to_python(const Scalar& s);

void init_core(nb::module_& m);
void init_tensor(nb::module_& m);
void init_ops(nb::module_& m);
void init_creation(nb::module_& m);
void init_random(nb::module_& m);
void init_interop(nb::module_& m);
void init_autograd(nb::module_& m);

// Op families bind themselves: a file `bindings/<family>.cpp` ends with LUCID_BINDINGS(init_fn), and
// module.cpp calls every registered init after the core areas above (so the Tensor class exists).
using InitFn = void (*)(nb::module_&);
std::vector<std::pair<const char*, InitFn>>& family_bindings();
struct BindingRegistrar {
  BindingRegistrar(const char* name, InitFn f) { family_bindings().emplace_back(name, f); }
};
#define LUCID_BINDINGS(fn) static ::lucid::py::BindingRegistrar lucid_bindings_##fn(#fn, fn);

}  // namespace lucid::py

namespace nanobind::detail {

template <> struct type_caster<lucid::Dtype> {
  NB_TYPE_CASTER(lucid::Dtype, const_name("lucid.dtype"))
  bool from_python(handle src, uint8_t flags, cleanup_list* cl) noexcept {
    lucid::py::DtypeObj* p = nullptr;
    if (!nb::try_cast<lucid::py::DtypeObj*>(src, p, false) || !p) return false;
    value = p->dtype;
    return true;
  }
  static handle from_cpp(lucid::Dtype d, rv_policy, cleanup_list*) noexcept {
    return nb::cast(lucid::py::dtype_obj(d), rv_policy::reference).release();
  }
};

template <> struct type_caster<lucid::Scalar> {
  NB_TYPE_CASTER(lucid::Scalar, const_name("bool | int | float | complex"))
  bool from_python(handle src, uint8_t, cleanup_list*) noexcept {
    if (!lucid::py::is_python_scalar(src)) return false;
    try {
      value = lucid::py::scalar_from_python(src);
    } catch (...) {  // e.g. an int beyond int64: not a Scalar we can hold
      PyErr_Clear();
      return false;
    }
    return !PyErr_Occurred() || (PyErr_Clear(), false);
  }
  static handle from_cpp(const lucid::Scalar& s, rv_policy, cleanup_list*) noexcept {
    return lucid::py::scalar_to_python(s).release();
  }
};

}  // namespace nanobind::detail
