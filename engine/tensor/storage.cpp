#include "tensor/storage.h"

#include "core/device_interface.h"
#include "core/error.h"

namespace lucid {

std::shared_ptr<Storage> Storage::allocate(int64_t nbytes, Device device, bool pinned) {
  LUCID_CHECK(nbytes >= 0, Value, "cannot allocate a negative number of bytes (" << nbytes << ")");
  std::shared_ptr<Storage> s(new Storage());
  s->nbytes_ = nbytes;
  s->device_ = device;
  if (pinned) {
    LUCID_CHECK(device.is_cpu(), Value, "pinned memory is host memory; got device " << device);
    auto* cuda = find_device_interface(DeviceType::CUDA);
    LUCID_CHECK(cuda && cuda->device_count() > 0, Generic,
                "pin_memory needs a CUDA device, and none is available");
    s->data_ = nbytes ? cuda->allocate_pinned(size_t(nbytes)) : nullptr;
    s->pinned_ = true;
    return s;
  }
  auto& iface = device_interface(device);
  s->data_ = iface.allocate(size_t(nbytes), device.index);
  return s;
}

std::shared_ptr<Storage> Storage::wrap(void* data, int64_t nbytes, Device device, Deleter deleter) {
  std::shared_ptr<Storage> s(new Storage());
  s->data_ = data;
  s->nbytes_ = nbytes;
  s->device_ = device;
  s->deleter_ = deleter ? std::move(deleter) : Deleter([](void*) {});
  return s;
}

Storage::~Storage() {
  if (deleter_) {
    deleter_(data_);
    return;
  }
  if (pinned_) {
    if (auto* cuda = find_device_interface(DeviceType::CUDA); cuda && data_) cuda->free_pinned(data_);
    return;
  }
  if (auto* iface = find_device_interface(device_.type)) iface->deallocate(data_, size_t(nbytes_), device_.index);
}

}  // namespace lucid
