// lucid._C's activation functions (engine/ops/activation.h); lucid.nn.functional spells their
// arguments. Each takes its parameters positionally (a, b, c as ActParams documents).
#include "bindings/common.h"
#include "ops/activation.h"

namespace lucid::py {

namespace {

void def_act(nb::module_& m, const char* name, const char* shown, ActOp op) {
  m.def(name, [op, name = shown](const Tensor& x, double a, double b, double c) { return activation(op, x, {a, b, c}, name); },
        nb::arg("input"), nb::arg("a") = 0.0, nb::arg("b") = 0.0, nb::arg("c") = 0.0);
}

void def_act_(nb::module_& m, const char* name, const char* base, ActOp op) {
  m.def(name, [op, base](const Tensor& x, double a, double b, double c) { return activation_(op, x, {a, b, c}, base); },
        nb::arg("input"), nb::arg("a") = 0.0, nb::arg("b") = 0.0, nb::arg("c") = 0.0);
}

}  // namespace

void init_nn_activation(nb::module_& m) {
  static const struct { const char* name; const char* inplace; ActOp op; } acts[] = {
      {"leaky_relu", "leaky_relu_", ActOp::LeakyRelu},   {"elu", "elu_", ActOp::Elu},
      {"selu", "selu_", ActOp::Elu},                     {"celu", "celu_", ActOp::Elu},
      {"gelu_erf", "gelu_erf_", ActOp::Gelu},            {"gelu_tanh", "gelu_tanh_", ActOp::GeluTanh},
      {"silu", "silu_", ActOp::Silu},                    {"mish", "mish_", ActOp::Mish},
      {"softplus", "softplus_", ActOp::Softplus},        {"softsign", "softsign_", ActOp::Softsign},
      {"softshrink", "softshrink_", ActOp::Softshrink},  {"hardshrink", "hardshrink_", ActOp::Hardshrink},
      {"tanhshrink", "tanhshrink_", ActOp::Tanhshrink},  {"hardtanh", "hardtanh_", ActOp::Hardtanh},
      {"relu6", "relu6_", ActOp::Hardtanh},              {"hardsigmoid", "hardsigmoid_", ActOp::Hardsigmoid},
      {"hardswish", "hardswish_", ActOp::Hardswish},     {"logsigmoid", "logsigmoid_", ActOp::LogSigmoid},
      {"threshold", "threshold_", ActOp::Threshold},
  };
  for (const auto& a : acts) {
    const char* shown = a.op == ActOp::Gelu || a.op == ActOp::GeluTanh ? "gelu" : a.name;  // errors name the op
    def_act(m, a.name, shown, a.op);
    def_act_(m, a.inplace, shown, a.op);
  }
  m.def("rrelu", [](const Tensor& x, double lower, double upper, bool training) {
    return rrelu(x, lower, upper, training);
  }, nb::arg("input"), nb::arg("lower") = 1.0 / 8, nb::arg("upper") = 1.0 / 3, nb::arg("training") = false);
  m.def("rrelu_", [](const Tensor& x, double lower, double upper, bool training) {
    return rrelu_(x, lower, upper, training);
  }, nb::arg("input"), nb::arg("lower") = 1.0 / 8, nb::arg("upper") = 1.0 / 3, nb::arg("training") = false);
  m.def("prelu", [](const Tensor& x, const Tensor& w) { return prelu(x, w); }, nb::arg("input"), nb::arg("weight"));
  m.def("glu", [](const Tensor& x, int64_t dim) { return glu(x, dim); }, nb::arg("input"), nb::arg("dim") = -1);
}

LUCID_BINDINGS(init_nn_activation)

}  // namespace lucid::py
