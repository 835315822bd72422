// lucid._C's convolutions (engine/ops/nn_conv.h): conv1d/2d/3d and conv_transpose1d/2d/3d.
#include "bindings/common.h"
#include "ops/nn_conv.h"

namespace lucid::py {

namespace {

// An int, or a sequence of 1 or nd ints (PyTorch expands a single value to every spatial dim).
IntList nd_arg(nb::handle h, int64_t nd, const std::string& op, const char* name) {
  if (PyLong_Check(h.ptr())) return IntList(size_t(nd), nb::cast<int64_t>(h));
  std::vector<int64_t> v;
  if (!nb::try_cast(h, v) || !(int64_t(v.size()) == nd || v.size() == 1))
    LUCID_FAIL(Type, "[" << op << "] " << name << " must be an int or a tuple of " << nd << " ints, got "
                         << nb::str(h).c_str());
  return v.size() == 1 ? IntList(size_t(nd), v[0]) : v;
}

template <int64_t ND>
void def_conv(nb::module_& m) {
  static const std::string name = "conv" + std::to_string(ND) + "d";
  m.def(name.c_str(), [](const Tensor& x, const Tensor& w, std::optional<Tensor> b, nb::handle stride,
                         nb::handle padding, nb::handle dilation, int64_t groups) {
    const IntList s = nd_arg(stride, ND, name, "stride"), d = nd_arg(dilation, ND, name, "dilation");
    if (nb::isinstance<nb::str>(padding))
      return convolution(x, w, b, ND, s, nb::cast<std::string>(padding), d, groups);
    return convolution(x, w, b, ND, s, nd_arg(padding, ND, name, "padding"), d, groups);
  }, nb::arg("input"), nb::arg("weight"), nb::arg("bias").none() = nb::none(), nb::arg("stride") = 1,
     nb::arg("padding") = 0, nb::arg("dilation") = 1, nb::arg("groups") = 1);
}

template <int64_t ND>
void def_conv_transpose(nb::module_& m) {
  static const std::string name = "conv_transpose" + std::to_string(ND) + "d";
  m.def(name.c_str(), [](const Tensor& x, const Tensor& w, std::optional<Tensor> b, nb::handle stride,
                         nb::handle padding, nb::handle output_padding, int64_t groups, nb::handle dilation) {
    return conv_transpose(x, w, b, ND, nd_arg(stride, ND, name, "stride"), nd_arg(padding, ND, name, "padding"),
                          nd_arg(output_padding, ND, name, "output_padding"), groups,
                          nd_arg(dilation, ND, name, "dilation"));
  }, nb::arg("input"), nb::arg("weight"), nb::arg("bias").none() = nb::none(), nb::arg("stride") = 1,
     nb::arg("padding") = 0, nb::arg("output_padding") = 0, nb::arg("groups") = 1, nb::arg("dilation") = 1);
}

}  // namespace

void init_conv(nb::module_& m) {
  def_conv<1>(m);
  def_conv<2>(m);
  def_conv<3>(m);
  def_conv_transpose<1>(m);
  def_conv_transpose<2>(m);
  def_conv_transpose<3>(m);
}

LUCID_BINDINGS(init_conv)

}  // namespace lucid::py
