// lucid._C's generic pooling and embedding ops (engine/ops/pool.h); lucid.nn._functional_pool spells
// their arguments.
#include "bindings/common.h"
#include "ops/pool.h"

namespace lucid::py {

namespace {

// An int or a sequence of ints.
IntVec ints_arg(nb::handle h, const char* op, const char* name) {
  if (PyLong_Check(h.ptr())) return {nb::cast<int64_t>(h)};
  IntVec v;
  if (!nb::try_cast(h, v))
    LUCID_FAIL(Type, "[" << op << "] " << name << " must be an int or a tuple of ints, got " << nb::str(h).c_str());
  return v;
}

// output_size entries may be None (keep the input extent): kKeepExtent.
IntVec sizes_arg(nb::handle h, const char* op) {
  if (PyLong_Check(h.ptr())) return {nb::cast<int64_t>(h)};
  if (h.is_none()) return {kKeepExtent};
  IntVec v;
  try {
    for (nb::handle e : h) v.push_back(e.is_none() ? kKeepExtent : nb::cast<int64_t>(e));
  } catch (const std::exception&) {
    LUCID_FAIL(Type, "[" << op << "] output_size must be an int or a tuple of ints/None, got " << nb::str(h).c_str());
  }
  return v;
}

}  // namespace

void init_nn_pool(nb::module_& m) {
  m.def("avg_pool", [](const Tensor& x, int nd, nb::handle k, nb::handle s, nb::handle p, bool ceil_mode,
                       bool count_include_pad, std::optional<int64_t> divisor_override) {
    const char* op = "avg_pool";
    IntVec sv = s.is_none() ? IntVec{} : ints_arg(s, op, "stride");
    if (!s.is_none() && sv.empty()) sv = {};
    return avg_pool(x, nd, ints_arg(k, op, "kernel_size"), sv, ints_arg(p, op, "padding"), ceil_mode,
                    count_include_pad, divisor_override);
  }, nb::arg("input"), nb::arg("nd"), nb::arg("kernel_size"), nb::arg("stride").none() = nb::none(),
     nb::arg("padding") = 0, nb::arg("ceil_mode") = false, nb::arg("count_include_pad") = true,
     nb::arg("divisor_override").none() = nb::none());
  m.def("max_pool_with_indices", [](const Tensor& x, int nd, nb::handle k, nb::handle s, nb::handle p, nb::handle d,
                                    bool ceil_mode) {
    const char* op = "max_pool";
    IntVec sv = s.is_none() ? IntVec{} : ints_arg(s, op, "stride");
    return max_pool_with_indices(x, nd, ints_arg(k, op, "kernel_size"), sv, ints_arg(p, op, "padding"),
                                 ints_arg(d, op, "dilation"), ceil_mode);
  }, nb::arg("input"), nb::arg("nd"), nb::arg("kernel_size"), nb::arg("stride").none() = nb::none(),
     nb::arg("padding") = 0, nb::arg("dilation") = 1, nb::arg("ceil_mode") = false);
  m.def("adaptive_avg_pool", [](const Tensor& x, int nd, nb::handle o) {
    return adaptive_avg_pool(x, nd, sizes_arg(o, "adaptive_avg_pool"));
  }, nb::arg("input"), nb::arg("nd"), nb::arg("output_size"));
  m.def("adaptive_max_pool", [](const Tensor& x, int nd, nb::handle o) {
    return adaptive_max_pool(x, nd, sizes_arg(o, "adaptive_max_pool"));
  }, nb::arg("input"), nb::arg("nd"), nb::arg("output_size"));
  m.def("max_unpool", [](const Tensor& x, const Tensor& i, int nd, nb::handle o) {
    return max_unpool(x, i, nd, ints_arg(o, "max_unpool", "output_size"));
  }, nb::arg("input"), nb::arg("indices"), nb::arg("nd"), nb::arg("output_size"));
  m.def("fractional_max_pool", [](const Tensor& x, int nd, nb::handle k, nb::handle o, const Tensor& samples) {
    return fractional_max_pool(x, nd, ints_arg(k, "fractional_max_pool", "kernel_size"),
                               ints_arg(o, "fractional_max_pool", "output_size"), samples);
  }, nb::arg("input"), nb::arg("nd"), nb::arg("kernel_size"), nb::arg("output_size"), nb::arg("samples"));
  m.def("embedding", [](const Tensor& w, const Tensor& i, int64_t padding_idx, bool scale_grad_by_freq) {
    return embedding(w, i, padding_idx, scale_grad_by_freq);
  }, nb::arg("weight"), nb::arg("input"), nb::arg("padding_idx") = -1, nb::arg("scale_grad_by_freq") = false);
}

LUCID_BINDINGS(init_nn_pool)

}  // namespace lucid::py
