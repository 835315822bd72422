#pragma once
// f(2, 3) and f((2, 3)) both mean shape (2, 3), as in PyTorch.
#include "bindings/common.h"

namespace lucid::py {

inline std::vector<int64_t> shape_from_args(nb::args a, const char* op) {
  if (a.size() == 1 && !PyLong_Check(a[0].ptr()) && !PyIndex_Check(a[0].ptr()))
    return nb::cast<std::vector<int64_t>>(a[0]);
  std::vector<int64_t> out;
  out.reserve(a.size());
  for (nb::handle h : a) {
    if (!PyLong_Check(h.ptr()) && !PyIndex_Check(h.ptr()))
      throw nb::type_error((std::string(op) + "(): expected ints or one sequence of ints as the shape").c_str());
    out.push_back(PyLong_AsLongLong(nb::int_(h).ptr()));
  }
  return out;
}

// A shape given as ints, or a tuple/list, possibly empty.
inline std::vector<int64_t> shape_from_object(nb::handle h) {
  if (PyLong_Check(h.ptr())) return {nb::cast<int64_t>(h)};
  return nb::cast<std::vector<int64_t>>(h);
}

}  // namespace lucid::py
