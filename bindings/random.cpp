// Random numbers: the Philox Generator and in-place fills.
#include "bindings/common.h"
#include "ops/random.h"

namespace lucid::py {

void init_random(nb::module_& m) {
  nb::class_<Generator>(m, "Generator")
      .def(nb::init<>())
      .def("manual_seed", [](const std::shared_ptr<Generator>& g, nb::int_ seed) {
        // Python ints of any sign map onto 64 bits, as in PyTorch.
        const uint64_t s = PyLong_AsUnsignedLongLongMask(seed.ptr());
        g->manual_seed(s);
        return g;
      }, nb::arg("seed"))
      .def("seed", &Generator::seed)
      .def("initial_seed", &Generator::initial_seed)
      .def("get_state", [](const Generator& g) {
        const std::string s = g.get_state();
        return nb::bytes(s.data(), s.size());
      })
      .def("set_state", [](Generator& g, nb::bytes b) { g.set_state(std::string(b.c_str(), b.size())); }, nb::arg("new_state"));
  m.def("default_generator", &default_generator);
  nb::enum_<RandomDist>(m, "_RandomDist")
      .value("uniform", RandomDist::Uniform)
      .value("normal", RandomDist::Normal)
      .value("bernoulli", RandomDist::Bernoulli)
      .value("integer", RandomDist::Integer);
  m.def("_random_", [](const Tensor& t, RandomDist d, double a, double b, std::shared_ptr<Generator> g) {
    return random_(t, d, a, b, g);
  }, nb::arg("tensor"), nb::arg("dist"), nb::arg("a"), nb::arg("b"), nb::arg("generator").none());
  // Factories fill tensors they just made: no version bump.
  m.def("_random_into", [](const Tensor& t, RandomDist d, double a, double b, std::shared_ptr<Generator> g) {
    return random_into(t, d, a, b, g);
  }, nb::arg("tensor"), nb::arg("dist"), nb::arg("a"), nb::arg("b"), nb::arg("generator").none());
  m.def("_randperm", [](int64_t n, Dtype dt, Device dev, std::shared_ptr<Generator> g) { return randperm(n, dt, dev, g); },
        nb::arg("n"), nb::arg("dtype"), nb::arg("device"), nb::arg("generator").none());
}

}  // namespace lucid::py
