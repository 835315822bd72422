#pragma once
// Where a tensor lives. "gpu" is accepted as an alias of "cuda" (DESIGN.md §1).
#include <cstdint>
#include <ostream>
#include <string>

namespace lucid {

enum class DeviceType : uint8_t { CPU = 0, CUDA = 1 };
constexpr int kNumDeviceTypes = 2;

struct Device {
  DeviceType type = DeviceType::CPU;
  int16_t index = -1;  // -1 on CPU; 0.. on CUDA

  Device() = default;
  constexpr Device(DeviceType t, int idx = -1) : type(t), index(t == DeviceType::CPU ? -1 : (idx < 0 ? 0 : idx)) {}
  explicit Device(const std::string& spec);  // "cpu", "cuda", "cuda:1", "gpu"; ValueError otherwise

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  std::string str() const;  // "cpu", "cuda:0"
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
};

std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace lucid
