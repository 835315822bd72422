#include "core/device.h"

#include <cstdlib>

#include "core/error.h"

namespace lucid {

Device::Device(const std::string& spec) {
  std::string kind = spec;
  int idx = -1;
  const auto colon = spec.find(':');
  if (colon != std::string::npos) {
    kind = spec.substr(0, colon);
    const std::string num = spec.substr(colon + 1);
    // Plain digits only, no sign, spaces or leading zeros (as PyTorch).
    bool ok = !num.empty() && num.size() <= 4 && (num.size() == 1 || num[0] != '0');
    for (char c : num) ok = ok && c >= '0' && c <= '9';
    LUCID_CHECK(ok, Value, "invalid device string: '" << spec << "'");
    idx = std::atoi(num.c_str());
    LUCID_CHECK(idx < 1024, Value, "invalid device string: '" << spec << "' (index out of range)");
  }
  if (kind == "cpu") {
    LUCID_CHECK(idx <= 0, Value, "invalid device string: '" << spec << "' (the CPU has index 0 only)");
    *this = Device(DeviceType::CPU);
  } else if (kind == "cuda" || kind == "gpu") {
    *this = Device(DeviceType::CUDA, idx < 0 ? 0 : idx);
  } else {
    LUCID_FAIL(Value, "invalid device string: '" << spec << "' (expected 'cpu', 'cuda', 'cuda:N' or 'gpu')");
  }
}

std::string Device::str() const { return is_cpu() ? "cpu" : "cuda:" + std::to_string(index); }

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace lucid
