// Dtypes, devices, promotion, errors, threads, memory statistics.
#include <cblas.h>

#include <cmath>
#include <complex>

#include "backend/cpu/isa.h"
#include "backend/cpu/parallel.h"
#include "bindings/common.h"
#include "core/device_interface.h"

extern "C" char* openblas_get_corename(void);
extern "C" char* openblas_get_config(void);

namespace lucid::py {

namespace {
DtypeObj g_dtypes[kNumDtypes] = {{Dtype::Bool}, {Dtype::U8},  {Dtype::I8},  {Dtype::I16},
                                 {Dtype::I32},  {Dtype::I64}, {Dtype::F16}, {Dtype::BF16},
                                 {Dtype::F32},  {Dtype::F64}, {Dtype::C64}, {Dtype::C128}};
PyObject* g_error_classes[10] = {};

nb::dict stats_dict(const MemoryStats& s) {
  nb::dict d;
  d["allocated_bytes.all.current"] = s.allocated;
  d["allocated_bytes.all.peak"] = s.peak_allocated;
  d["reserved_bytes.all.current"] = s.reserved;
  d["reserved_bytes.all.peak"] = s.peak_reserved;
  d["num_alloc_retries"] = 0;
  d["allocation.all.allocated"] = s.num_allocs;
  d["allocation.all.freed"] = s.num_frees;
  d["num_device_alloc"] = s.num_system_allocs;
  return d;
}
}  // namespace

DtypeObj* dtype_obj(Dtype d) { return &g_dtypes[int(d)]; }

bool is_python_scalar(nb::handle h) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o)) return true;
  // NumPy scalars: numbers with __index__/__float__/__complex__ but not sequences or tensors.
  PyTypeObject* t = Py_TYPE(o);
  const char* mod = t->tp_name;
  return mod && std::strncmp(mod, "numpy.", 6) == 0 && !PyObject_HasAttrString(o, "__len__");
}

Scalar scalar_from_python(nb::handle h) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return Scalar::from_bool(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) {
      const std::string msg = "Overflow when unpacking long: " + nb::cast<std::string>(nb::str(h)) +
                              " does not fit in int64 (lucid's widest integer type)";
      PyErr_SetString(PyExc_OverflowError, msg.c_str());
      throw nb::python_error();
    }
    return Scalar::from_int(v);
  }
  if (PyFloat_Check(o)) return Scalar::from_double(PyFloat_AS_DOUBLE(o));
  if (PyComplex_Check(o)) return Scalar::from_complex(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o));
  // numpy scalar: dispatch on its kind
  nb::object dt = nb::getattr(h, "dtype");
  const std::string kind = nb::cast<std::string>(nb::getattr(dt, "kind"));
  if (kind == "b") return Scalar::from_bool(PyObject_IsTrue(o));
  if (kind == "i" || kind == "u") return Scalar::from_int(PyLong_AsLongLong(nb::int_(h).ptr()));
  if (kind == "c") {
    Py_complex c = PyComplex_AsCComplex(o);
    return Scalar::from_complex(c.real, c.imag);
  }
  return Scalar::from_double(PyFloat_AsDouble(o));
}

nb::object scalar_to_python(const Scalar& s) {
  switch (s.kind) {
    case DtypeCategory::Bool: return nb::bool_(s.b);
    case DtypeCategory::Integral: return nb::int_(s.i);
    case DtypeCategory::Floating: return nb::float_(s.re);
    case DtypeCategory::Complex: return nb::steal(PyComplex_FromDoubles(s.re, s.im));
  }
  return nb::none();
}

void init_core(nb::module_& m) {
  // ---- errors: lucid.errors registers its classes here at import
  m.def("_register_error_classes", [](nb::list classes) {
    for (size_t i = 0; i < classes.size() && i < 10; ++i) {
      g_error_classes[i] = classes[i].ptr();
      Py_INCREF(g_error_classes[i]);
    }
  });
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      PyObject* cls = g_error_classes[int(e.kind())];
      if (!cls) cls = e.kind() == ErrorKind::Value ? PyExc_ValueError
                      : e.kind() == ErrorKind::Type ? PyExc_TypeError
                                                    : PyExc_RuntimeError;
      PyErr_SetString(cls, e.what());
    }
  });

  // ---- dtypes
  nb::class_<DtypeObj>(m, "dtype")
      .def_prop_ro("itemsize", [](const DtypeObj& d) { return itemsize(d.dtype); })
      .def_prop_ro("is_floating_point", [](const DtypeObj& d) { return is_floating(d.dtype); })
      .def_prop_ro("is_complex", [](const DtypeObj& d) { return is_complex(d.dtype); })
      .def_prop_ro("is_signed", [](const DtypeObj& d) { return is_signed(d.dtype); })
      .def_prop_ro("name", [](const DtypeObj& d) { return std::string(dtype_name(d.dtype)); })
      .def_prop_ro("_index", [](const DtypeObj& d) { return int(d.dtype); })
      .def("to_real", [](const DtypeObj& d) { return to_real(d.dtype); })
      .def("to_complex", [](const DtypeObj& d) { return to_complex(d.dtype); })
      .def("__repr__", [](const DtypeObj& d) { return std::string("lucid.") + dtype_name(d.dtype); })
      .def("__str__", [](const DtypeObj& d) { return std::string("lucid.") + dtype_name(d.dtype); })
      .def("__reduce__", [](const DtypeObj& d) { return std::string(dtype_name(d.dtype)); })
      .def("__hash__", [](const DtypeObj& d) { return int(d.dtype) + 1000; });
  for (int i = 0; i < kNumDtypes; ++i) m.attr(dtype_name(Dtype(i))) = nb::cast(&g_dtypes[i], nb::rv_policy::reference);

  m.def("promote_types", &promote_types);
  m.def("can_cast", &can_cast);
  m.def("get_default_dtype", &default_dtype);
  m.def("set_default_dtype", &set_default_dtype);
  m.def("_result_type", [](nb::args args) {
    ResultTypeState st;
    for (nb::handle h : args) {
      if (nb::isinstance<TensorImpl>(h)) {
        const TensorImpl& t = nb::cast<const TensorImpl&>(h);
        st.add_tensor(t.dtype(), t.dim() == 0);
      } else if (nb::isinstance<DtypeObj>(h)) {
        st.add_tensor(nb::cast<DtypeObj*>(h)->dtype, false);
      } else if (is_python_scalar(h)) {
        st.add_scalar(scalar_from_python(h).kind);
      } else {
        throw nb::type_error("result_type expects tensors, dtypes or Python scalars");
      }
    }
    return st.result();
  });

  // ---- devices
  nb::class_<Device>(m, "device")
      .def(nb::init_implicit<std::string>(), nb::arg("type"))
      .def("__init__", [](Device* d, const std::string& type, int index) {
        Device base(type);
        LUCID_CHECK(!base.is_cpu() || index <= 0, Value, "invalid device: cpu has index 0 only, got " << index);
        LUCID_CHECK(index >= 0, Value, "invalid device index " << index);
        new (d) Device(base.type, index);
      }, nb::arg("type"), nb::arg("index"))
      .def_prop_ro("type", [](const Device& d) { return d.is_cpu() ? "cpu" : "cuda"; })
      .def_prop_ro("index", [](const Device& d) -> nb::object { if (d.is_cpu()) return nb::none(); return nb::int_(d.index); })
      .def("__repr__", [](const Device& d) {
        return d.is_cpu() ? std::string("device(type='cpu')")
                          : "device(type='cuda', index=" + std::to_string(d.index) + ")";
      })
      .def("__str__", &Device::str)
      .def("__eq__", [](const Device& a, nb::handle b) {
        if (nb::isinstance<Device>(b)) return a == nb::cast<Device>(b);
        if (nb::isinstance<nb::str>(b)) {
          try { return a == Device(nb::cast<std::string>(b)); } catch (const Error&) { return false; }
        }
        return false;
      }, nb::arg("other").none())
      .def("__hash__", [](const Device& d) { return int(d.type) * 1024 + d.index; })
      .def("__reduce__", [](const Device& d) { return nb::make_tuple(nb::type<Device>(), nb::make_tuple(d.str())); });

  m.def("_cuda_built", [] { return find_device_interface(DeviceType::CUDA) != nullptr; });
  m.def("_cuda_device_count", [] {
    auto* i = find_device_interface(DeviceType::CUDA);
    return i ? i->device_count() : 0;
  });
  m.def("_synchronize", [](Device d) { device_interface(d).synchronize(d.index); });
  m.def("_check_device", [](Device d) { device_interface(d); });

  // ---- memory
  m.def("_memory_stats", [](Device d) { return stats_dict(device_interface(d).memory_stats(d.index)); });
  m.def("_memory_allocated", [](Device d) { return device_interface(d).memory_stats(d.index).allocated; });
  m.def("_max_memory_allocated", [](Device d) { return device_interface(d).memory_stats(d.index).peak_allocated; });
  m.def("_memory_reserved", [](Device d) { return device_interface(d).memory_stats(d.index).reserved; });
  m.def("_max_memory_reserved", [](Device d) { return device_interface(d).memory_stats(d.index).peak_reserved; });
  m.def("_reset_peak_memory_stats", [](Device d) { device_interface(d).reset_peak_memory_stats(d.index); });
  m.def("_empty_cache", [](Device d) { device_interface(d).empty_cache(); });

  // ---- threads, ISA, BLAS
  m.def("get_num_threads", &cpu::get_num_threads);
  m.def("set_num_threads", &cpu::set_num_threads, nb::arg("num"));
  m.def("set_flush_denormal", &cpu::set_flush_denormal, nb::arg("mode"));
  m.def("_flush_denormal", &cpu::flush_denormal);
  m.def("_cpu_isa", [] { return std::string(cpu::isa_name(cpu::isa())); });
  m.def("_cpu_isa_detected", [] { return std::string(cpu::isa_name(cpu::detected_isa())); });
  m.def("_set_cpu_isa", [](const std::string& name) {
    cpu::Isa i = cpu::Isa::Baseline;
    if (name == "avx2") i = cpu::Isa::AVX2;
    else if (name == "avx512") i = cpu::Isa::AVX512;
    else LUCID_CHECK(name == "baseline", Value, "unknown ISA '" << name << "' (baseline, avx2, avx512)");
    return std::string(cpu::isa_name(cpu::set_isa(i)));
  });
  m.def("_blas_info", [] {
    nb::dict d;
    d["library"] = "OpenBLAS";
    d["corename"] = std::string(openblas_get_corename());
    d["config"] = std::string(openblas_get_config());
    return d;
  });
}

}  // namespace lucid::py
