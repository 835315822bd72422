// NumPy and DLPack, both ways, zero-copy where the device allows.
#include <nanobind/ndarray.h>

#include "bindings/common.h"
#include "core/device_interface.h"
#include "ops/copy.h"

namespace lucid::py {

namespace {

nb::dlpack::dtype to_dl(Dtype d) {
  using C = nb::dlpack::dtype_code;
  auto mk = [](C c, int bits) { return nb::dlpack::dtype{uint8_t(c), uint8_t(bits), 1}; };
  switch (d) {
    case Dtype::Bool: return mk(C::Bool, 8);
    case Dtype::U8: return mk(C::UInt, 8);
    case Dtype::I8: return mk(C::Int, 8);
    case Dtype::I16: return mk(C::Int, 16);
    case Dtype::I32: return mk(C::Int, 32);
    case Dtype::I64: return mk(C::Int, 64);
    case Dtype::F16: return mk(C::Float, 16);
    case Dtype::BF16: return mk(C::Bfloat, 16);
    case Dtype::F32: return mk(C::Float, 32);
    case Dtype::F64: return mk(C::Float, 64);
    case Dtype::C64: return mk(C::Complex, 64);
    case Dtype::C128: return mk(C::Complex, 128);
  }
  return mk(C::Float, 32);
}

Dtype from_dl(nb::dlpack::dtype t) {
  using C = nb::dlpack::dtype_code;
  LUCID_CHECK(t.lanes == 1, Type, "[from_dlpack] vector dtypes (lanes " << int(t.lanes) << ") are not supported");
  switch (C(t.code)) {
    case C::Bool: return Dtype::Bool;
    case C::UInt: if (t.bits == 8) return Dtype::U8; break;
    case C::Int:
      if (t.bits == 8) return Dtype::I8;
      if (t.bits == 16) return Dtype::I16;
      if (t.bits == 32) return Dtype::I32;
      if (t.bits == 64) return Dtype::I64;
      break;
    case C::Float:
      if (t.bits == 16) return Dtype::F16;
      if (t.bits == 32) return Dtype::F32;
      if (t.bits == 64) return Dtype::F64;
      break;
    case C::Bfloat: if (t.bits == 16) return Dtype::BF16; break;
    case C::Complex:
      if (t.bits == 64) return Dtype::C64;
      if (t.bits == 128) return Dtype::C128;
      break;
    default: break;
  }
  LUCID_FAIL(Type, "[from_dlpack] unsupported dtype (code " << int(t.code) << ", " << int(t.bits) << " bits)");
}

using AnyArray = nb::ndarray<nb::ro>;

// Wraps an imported array's memory in a Storage that keeps the array alive.
Tensor wrap_array(const AnyArray& a, bool reject_negative, const char* op) {
  const Dtype dt = from_dl(a.dtype());
  Device dev(DeviceType::CPU);
  if (a.device_type() == nb::device::cuda::value) dev = Device(DeviceType::CUDA, a.device_id());
  else LUCID_CHECK(a.device_type() == nb::device::cpu::value || a.device_type() == nb::device::cuda_host::value, Type,
                   "[" << op << "] unsupported device type " << a.device_type());
  Shape shape(a.ndim());
  Strides strides(a.ndim());
  int64_t lo = 0, hi = 0;
  for (size_t i = 0; i < a.ndim(); ++i) {
    shape[i] = int64_t(a.shape(i));
    strides[i] = a.stride(i);
    LUCID_CHECK(!reject_negative || strides[i] >= 0, Value,
                "[" << op << "] at least one stride in the given array is negative, and tensors with negative strides "
                       "are not supported (you can make a copy with array.copy())");
    if (shape[i] > 0) (strides[i] < 0 ? lo : hi) += (shape[i] - 1) * strides[i];
  }
  const int64_t isz = itemsize(dt);
  const int64_t numel = numel_of(shape);
  if (numel == 0) lo = hi = 0;
  char* base = static_cast<char*>(const_cast<void*>(a.data())) + lo * isz;
  const int64_t nbytes = numel == 0 ? 0 : (hi - lo + 1) * isz;
  auto* keep = new AnyArray(a);
  auto storage = Storage::wrap(base, nbytes, dev, [keep](void*) {
    nb::gil_scoped_acquire g;
    delete keep;
  });
  if (lo < 0) {
    // negative strides: express as a view with a positive offset (copy to a dense tensor)
    Tensor v = std::make_shared<TensorImpl>(storage, dt, shape, strides, -lo);
    return clone(v);
  }
  return std::make_shared<TensorImpl>(storage, dt, shape, strides, 0);
}

nb::object export_array(const Tensor& t, bool numpy) {
  if (numpy) {
    LUCID_CHECK(t->dtype() != Dtype::BF16, Type,
                "[numpy] got unsupported ScalarType bfloat16: NumPy has no bfloat16; convert with .float() first");
  }
  Tensor h = t;
  if (numpy && !t->device().is_cpu()) h = to(t, std::nullopt, Device(DeviceType::CPU));
  if (h->device().is_cuda()) device_interface(h->device()).synchronize(h->device().index);
  std::vector<size_t> shape(h->shape().begin(), h->shape().end());
  nb::object owner = nb::cast(h);
  const int dev_type = h->device().is_cuda() ? nb::device::cuda::value : nb::device::cpu::value;
  const int dev_id = h->device().is_cuda() ? h->device().index : 0;
  if (numpy) {
    nb::ndarray<nb::numpy> arr(h->data_ptr(), h->dim(), shape.data(), owner, h->strides().data(), to_dl(h->dtype()),
                               dev_type, dev_id);
    return nb::cast(arr);
  }
  nb::ndarray<nb::array_api> arr(h->data_ptr(), h->dim(), shape.data(), owner, h->strides().data(), to_dl(h->dtype()),
                                 dev_type, dev_id);
  return nb::cast(arr);
}

}  // namespace

void init_interop(nb::module_& m) {
  auto cls = nb::borrow<nb::class_<TensorImpl>>(m.attr("Tensor"));
  cls.def("numpy", [](const Tensor& t, bool force) { return export_array(t, true); }, nb::kw_only(), nb::arg("force") = false)
      .def("__dlpack__", [](const Tensor& t, nb::kwargs kw) {
        nb::object arr = export_array(t, false);
        return arr.attr("__dlpack__")(**kw);
      })
      .def("__dlpack_device__", [](const TensorImpl& t) {
        return nb::make_tuple(t.device().is_cuda() ? 2 : 1, t.device().is_cuda() ? int(t.device().index) : 0);
      });
  m.def("from_numpy", [](AnyArray a) { return wrap_array(a, true, "from_numpy"); }, nb::arg("ndarray"));
  m.def("_from_dlpack", [](AnyArray a) { return wrap_array(a, false, "from_dlpack"); }, nb::arg("ext_tensor"));
}

}  // namespace lucid::py
