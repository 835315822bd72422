#include "core/device_interface.h"

#include "core/error.h"

namespace lucid {

namespace {
DeviceInterface* g_ifaces[kNumDeviceTypes] = {};
}

void register_device_interface(DeviceType type, DeviceInterface* iface) { g_ifaces[int(type)] = iface; }

DeviceInterface* find_device_interface(DeviceType type) { return g_ifaces[int(type)]; }

bool device_available(DeviceType type) {
  auto* i = g_ifaces[int(type)];
  return i && i->device_count() > 0;
}

DeviceInterface& device_interface(Device d) {
  auto* i = g_ifaces[int(d.type)];
  if (d.is_cuda()) {
    LUCID_CHECK(i, Generic,
                "device " << d << " requested, but lucid was built without CUDA support (no CUDA toolkit found at build time)");
    const int n = i->device_count();
    LUCID_CHECK(n > 0, Generic, "device " << d << " requested, but no CUDA device is available on this machine");
    LUCID_CHECK(d.index < n, Generic, "device " << d << " requested, but only " << n << " CUDA device(s) exist");
  }
  LUCID_CHECK(i, Generic, "no backend registered for device " << d);
  return *i;
}

}  // namespace lucid
