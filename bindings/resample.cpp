// lucid._C's resampling ops (engine/ops/nn_resample.h); lucid.nn._functional_resample spells PyTorch's
// arguments (size / scale_factor rules, modes, warnings).
#include "bindings/common.h"
#include "ops/nn_resample.h"

namespace lucid::py {

namespace {

InterpMode interp_mode(const std::string& m) {
  if (m == "nearest") return InterpMode::Nearest;
  if (m == "nearest-exact") return InterpMode::NearestExact;
  if (m == "nearest-idx") return InterpMode::NearestIdx;
  if (m == "linear") return InterpMode::Linear;
  if (m == "cubic") return InterpMode::Cubic;
  if (m == "linear-aa") return InterpMode::LinearAA;
  if (m == "cubic-aa") return InterpMode::CubicAA;
  if (m == "lanczos-aa") return InterpMode::LanczosAA;
  LUCID_FAIL(Value, "[interpolate] unknown mode '" << m << "'");
}

GridMode grid_mode(const std::string& m) {
  if (m == "bilinear") return GridMode::Bilinear;
  if (m == "nearest") return GridMode::Nearest;
  if (m == "bicubic") return GridMode::Bicubic;
  LUCID_FAIL(Value, "[grid_sample] expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '" << m << "'");
}

GridPadding grid_padding(const std::string& m) {
  if (m == "zeros") return GridPadding::Zeros;
  if (m == "border") return GridPadding::Border;
  if (m == "reflection") return GridPadding::Reflection;
  LUCID_FAIL(Value, "[grid_sample] expected padding_mode to be 'zeros', 'border', or 'reflection', but got: '" << m
                                                                                                               << "'");
}

}  // namespace

void init_resample(nb::module_& m) {
  m.def("interpolate", [](const Tensor& x, int nd, std::vector<int64_t> size, std::optional<std::vector<double>> scales,
                          const std::string& mode, bool align_corners) {
    return interpolate(x, nd, std::move(size), scales.value_or(std::vector<double>{}), interp_mode(mode), align_corners);
  }, nb::arg("input"), nb::arg("nd"), nb::arg("size"), nb::arg("scales").none(), nb::arg("mode"),
     nb::arg("align_corners"));
  m.def("grid_sample", [](const Tensor& x, const Tensor& grid, const std::string& mode, const std::string& padding,
                          bool align_corners) {
    return grid_sample(x, grid, grid_mode(mode), grid_padding(padding), align_corners);
  }, nb::arg("input"), nb::arg("grid"), nb::arg("mode"), nb::arg("padding_mode"), nb::arg("align_corners"));
}

LUCID_BINDINGS(init_resample)

}  // namespace lucid::py
