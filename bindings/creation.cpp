// Factories: empty/full/arange/linspace/logspace/eye and lucid.tensor's nested-sequence parser.
#include <limits>

#include "bindings/common.h"
#include "bindings/shape_args.h"
#include "ops/copy.h"
#include "ops/creation.h"

namespace lucid::py {

namespace {

bool is_sequence(nb::handle h) {
  return nb::isinstance<nb::list>(h) || nb::isinstance<nb::tuple>(h) ||
         (nb::isinstance<TensorImpl>(h) && nb::cast<const TensorImpl&>(h).dim() > 0) ||
         (!nb::isinstance<nb::str>(h) && !nb::isinstance<nb::bytes>(h) && !is_python_scalar(h) &&
          !nb::isinstance<TensorImpl>(h) && PySequence_Check(h.ptr()));
}

struct Parsed {
  Shape shape;
  std::vector<Scalar> values;
  DtypeCategory cat = DtypeCategory::Bool;
  bool any = false;
};

void parse_rec(nb::handle h, size_t depth, Parsed& p) {
  if (depth == p.shape.size()) {
    LUCID_CHECK(!is_sequence(h), Value,
                "[tensor] ragged nested sequence: expected a number at depth " << depth << ", got a sequence");
    Scalar s;
    if (nb::isinstance<TensorImpl>(h)) {
      auto t = nb::cast<Tensor>(h);
      s = nb::cast<Scalar>(nb::cast(t).attr("item")());
    } else if (is_python_scalar(h)) {
      s = scalar_from_python(h);
    } else {
      throw nb::type_error(("[tensor] could not infer dtype of " + std::string(Py_TYPE(h.ptr())->tp_name)).c_str());
    }
    if (!p.any || s.kind > p.cat) p.cat = std::max(p.cat, s.kind);
    p.any = true;
    p.values.push_back(s);
    return;
  }
  LUCID_CHECK(is_sequence(h), Value,
              "[tensor] ragged nested sequence: expected a sequence of length " << p.shape[depth] << " at dim " << depth
                                                                                  << ", got a number");
  nb::object seq = nb::steal(PySequence_Fast(h.ptr(), "expected a sequence"));
  if (!seq) throw nb::python_error();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  LUCID_CHECK(n == p.shape[depth], Value,
              "[tensor] expected sequence of length " << p.shape[depth] << " at dim " << depth << " (got " << n << ")");
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
  for (Py_ssize_t i = 0; i < n; ++i) parse_rec(items[i], depth + 1, p);
}

template <typename T>
void check_range(const Scalar& s) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (s.kind == DtypeCategory::Integral) {
      const bool ok = std::is_same_v<T, int64_t> ||
                      (s.i >= int64_t(std::numeric_limits<T>::min()) && s.i <= int64_t(std::numeric_limits<T>::max()));
      LUCID_CHECK(ok, Value, "[tensor] value " << s.i << " cannot be converted to type " << dtype_name(DtypeOf<T>::value)
                                                << " without overflow");
    }
  }
}

}  // namespace

void init_creation(nb::module_& m) {
  m.def("empty", [](std::vector<int64_t> shape, Dtype dt, Device dev, bool pinned) { return empty(shape, dt, dev, pinned); },
        nb::arg("shape"), nb::arg("dtype"), nb::arg("device"), nb::arg("pin_memory") = false);
  m.def("full", [](std::vector<int64_t> shape, const Scalar& v, Dtype dt, Device dev) { return full(shape, v, dt, dev); });
  m.def("zeros", [](std::vector<int64_t> shape, Dtype dt, Device dev) { return zeros(shape, dt, dev); });
  m.def("ones", [](std::vector<int64_t> shape, Dtype dt, Device dev) { return ones(shape, dt, dev); });
  m.def("arange", [](const Scalar& s, const Scalar& e, const Scalar& st, Dtype dt, Device dev) { return arange(s, e, st, dt, dev); });
  m.def("linspace", &linspace);
  m.def("logspace", &logspace);
  m.def("eye", &eye);

  // Infers the dtype as PyTorch does: bool < int64 < default float < default complex.
  m.def("_from_data", [](nb::handle data, std::optional<Dtype> dtype, Device dev) {
    Parsed p;
    nb::handle cur = data;
    nb::object hold;
    while (is_sequence(cur)) {
      hold = nb::steal(PySequence_Fast(cur.ptr(), "expected a sequence"));
      if (!hold) throw nb::python_error();
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(hold.ptr());
      p.shape.push_back(n);
      if (n == 0) break;
      cur = PySequence_Fast_GET_ITEM(hold.ptr(), 0);
    }
    hold = nb::object();
    parse_rec(data, 0, p);
    Dtype dt = Dtype::F32;
    if (dtype) {
      dt = *dtype;
    } else if (!p.any) {
      dt = default_dtype();
    } else {
      switch (p.cat) {
        case DtypeCategory::Bool: dt = Dtype::Bool; break;
        case DtypeCategory::Integral: dt = Dtype::I64; break;
        case DtypeCategory::Floating: dt = default_dtype(); break;
        case DtypeCategory::Complex: dt = default_complex_dtype(); break;
      }
    }
    Tensor host = TensorImpl::empty(p.shape, dt, Device(DeviceType::CPU));
    dispatch_dtype(dt, [&]<typename T>() {
      T* out = host->data<T>();
      for (size_t i = 0; i < p.values.size(); ++i) {
        const Scalar& s = p.values[i];
        LUCID_CHECK(s.kind != DtypeCategory::Complex || is_complex(dt), Type,
                    "[tensor] cannot convert a complex value to " << dtype_name(dt));
        check_range<T>(s);
        out[i] = s.to<T>();
      }
    });
    return to(host, std::nullopt, dev);
  }, nb::arg("data"), nb::arg("dtype").none(), nb::arg("device"));

  m.def("_from_buffer", [](nb::bytes b, std::vector<int64_t> shape, Dtype dt, Device dev) {
    LUCID_CHECK(int64_t(b.size()) == numel_of(shape) * itemsize(dt), Value,
                "[frombuffer] " << b.size() << " bytes do not hold shape " << shape_str(shape) << " of " << dtype_name(dt));
    return from_host(b.c_str(), shape, dt, dev);
  });
}

}  // namespace lucid::py
