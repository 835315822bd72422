// lucid._C's switch for the float32 GEMM (engine/backend/cpu/sgemm.h): tests and benchmarks compare
// it with OpenBLAS and run it at every size.
#include "backend/cpu/sgemm.h"
#include "bindings/common.h"

namespace lucid::py {

void init_gemm(nb::module_& m) {
  m.def("_sgemm_mode", [] { return cpu::sgemm_mode(); });
  m.def("_set_sgemm_mode", [](int mode) { cpu::set_sgemm_mode(mode); }, nb::arg("mode"));
}

LUCID_BINDINGS(init_gemm)

}  // namespace lucid::py
