#pragma once
// Storage: one device buffer shared by a tensor and all its views. It also carries the version
// counter, so every view of one storage sees one count (docs/notes/version-counter.md).
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "core/device.h"

namespace lucid {

class Storage {
 public:
  using Deleter = std::function<void(void*)>;

  // Allocates through the device's interface (64-byte aligned on the host). pinned: page-locked
  // host memory from the CUDA backend.
  static std::shared_ptr<Storage> allocate(int64_t nbytes, Device device, bool pinned = false);
  // Wraps memory owned elsewhere (NumPy, DLPack); `deleter` runs when the storage dies.
  static std::shared_ptr<Storage> wrap(void* data, int64_t nbytes, Device device, Deleter deleter);

  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage();

  void* data() const { return data_; }
  int64_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  bool pinned() const { return pinned_; }
  bool external() const { return bool(deleter_); }

  int64_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  Storage() = default;
  void* data_ = nullptr;
  int64_t nbytes_ = 0;
  Device device_;
  bool pinned_ = false;
  Deleter deleter_;
  std::atomic<int64_t> version_{0};
};

using StoragePtr = std::shared_ptr<Storage>;

}  // namespace lucid
