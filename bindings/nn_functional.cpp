// lucid._C's neural-network ops (engine/ops/nn.h); lucid.nn.functional spells their arguments.
#include "bindings/common.h"
#include "ops/nn.h"

namespace lucid::py {

namespace {

// An int or a pair of ints (PyTorch's _pair).
Pair pair_arg(nb::handle h, const char* op, const char* name) {
  if (PyLong_Check(h.ptr())) {
    const int64_t v = nb::cast<int64_t>(h);
    return {v, v};
  }
  std::vector<int64_t> v;
  if (!nb::try_cast(h, v) || !(v.size() == 2 || v.size() == 1))
    LUCID_FAIL(Type, "[" << op << "] " << name << " must be an int or a pair of ints, got "
                         << nb::str(h).c_str());
  return v.size() == 1 ? Pair{v[0], v[0]} : Pair{v[0], v[1]};
}

}  // namespace

void init_nn_functional(nb::module_& m) {
  m.def("unfold", [](const Tensor& x, nb::handle k, nb::handle d, nb::handle p, nb::handle s) {
    return unfold2d(x, pair_arg(k, "unfold", "kernel_size"), pair_arg(d, "unfold", "dilation"),
                    pair_arg(p, "unfold", "padding"), pair_arg(s, "unfold", "stride"));
  }, nb::arg("input"), nb::arg("kernel_size"), nb::arg("dilation") = 1, nb::arg("padding") = 0, nb::arg("stride") = 1);
  m.def("fold", [](const Tensor& x, nb::handle o, nb::handle k, nb::handle d, nb::handle p, nb::handle s) {
    return fold2d(x, pair_arg(o, "fold", "output_size"), pair_arg(k, "fold", "kernel_size"),
                  pair_arg(d, "fold", "dilation"), pair_arg(p, "fold", "padding"), pair_arg(s, "fold", "stride"));
  }, nb::arg("input"), nb::arg("output_size"), nb::arg("kernel_size"), nb::arg("dilation") = 1,
     nb::arg("padding") = 0, nb::arg("stride") = 1);
  m.def("max_pool2d_with_indices", [](const Tensor& x, nb::handle k, nb::handle s, nb::handle p, nb::handle d,
                                      bool ceil_mode) {
    const Pair kp = pair_arg(k, "max_pool2d", "kernel_size");
    const Pair sp = s.is_none() ? Pair{0, 0} : pair_arg(s, "max_pool2d", "stride");
    LUCID_CHECK(s.is_none() || (sp[0] > 0 && sp[1] > 0), Value,
                "[max_pool2d] stride must be positive, got (" << sp[0] << ", " << sp[1] << ")");
    return max_pool2d_with_indices(x, kp, sp, pair_arg(p, "max_pool2d", "padding"),
                                   pair_arg(d, "max_pool2d", "dilation"), ceil_mode);
  }, nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride").none() = nb::none(), nb::arg("padding") = 0,
     nb::arg("dilation") = 1, nb::arg("ceil_mode") = false);
  m.def("softmax", [](const Tensor& x, int64_t dim, std::optional<Dtype> dtype) { return softmax(x, dim, dtype); },
        nb::arg("input"), nb::arg("dim"), nb::arg("dtype").none() = nb::none());
  m.def("log_softmax", [](const Tensor& x, int64_t dim, std::optional<Dtype> dtype) { return log_softmax(x, dim, dtype); },
        nb::arg("input"), nb::arg("dim"), nb::arg("dtype").none() = nb::none());
  m.def("nll_loss", [](const Tensor& x, const Tensor& t, std::optional<Tensor> w, const std::string& reduction,
                       int64_t ignore_index) { return nll_loss(x, t, w, reduction, ignore_index); },
        nb::arg("input"), nb::arg("target"), nb::arg("weight").none() = nb::none(), nb::arg("reduction") = "mean",
        nb::arg("ignore_index") = -100);
  m.def("layer_norm", [](const Tensor& x, std::vector<int64_t> shape, std::optional<Tensor> w, std::optional<Tensor> b,
                         double eps) { return layer_norm(x, shape, w, b, eps); },
        nb::arg("input"), nb::arg("normalized_shape"), nb::arg("weight").none() = nb::none(),
        nb::arg("bias").none() = nb::none(), nb::arg("eps") = 1e-5);
  m.def("batch_norm", [](const Tensor& x, std::optional<Tensor> rm, std::optional<Tensor> rv, std::optional<Tensor> w,
                         std::optional<Tensor> b, bool training, double momentum, double eps) {
    return batch_norm(x, rm, rv, w, b, training, momentum, eps);
  }, nb::arg("input"), nb::arg("running_mean").none(), nb::arg("running_var").none(),
     nb::arg("weight").none() = nb::none(), nb::arg("bias").none() = nb::none(), nb::arg("training") = false,
     nb::arg("momentum") = 0.1, nb::arg("eps") = 1e-5);
  auto cls = nb::borrow<nb::class_<TensorImpl>>(m.attr("Tensor"));
  cls.def("softmax", [](const Tensor& x, int64_t dim, std::optional<Dtype> dtype) { return softmax(x, dim, dtype); },
          nb::arg("dim"), nb::arg("dtype").none() = nb::none());
  cls.def("log_softmax", [](const Tensor& x, int64_t dim, std::optional<Dtype> dtype) { return log_softmax(x, dim, dtype); },
          nb::arg("dim"), nb::arg("dtype").none() = nb::none());
}

LUCID_BINDINGS(init_nn_functional)

}  // namespace lucid::py
