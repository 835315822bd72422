#include "core/profiler.h"

#include <chrono>
#include <mutex>

#include "core/device_interface.h"
#include "core/error.h"

namespace lucid::profiler {

namespace detail {
std::atomic<bool> enabled{false};
}

namespace {
std::mutex mu;
std::vector<Event> events;
thread_local int depth = 0;
}  // namespace

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void start() {
  std::lock_guard<std::mutex> lock(mu);
  LUCID_CHECK(!detail::enabled.load(), Generic, "[profiler] a profile is already running; profiles do not nest");
  events.clear();
  detail::enabled.store(true);
}

std::vector<Event> stop() {
  std::lock_guard<std::mutex> lock(mu);
  detail::enabled.store(false);
  std::vector<Event> out;
  out.swap(events);
  return out;
}

Scope::Scope(std::string name, EventKind kind, Device device) {
  ev_.name = std::move(name);
  ev_.kind = kind;
  ev_.device = device;
  ev_.depth = depth++;
  t0_ = now_ns();
}

Scope::~Scope() {
  --depth;
  if (!enabled()) return;
  if (ev_.device.is_cuda()) {
    try {
      device_interface(ev_.device).synchronize(ev_.device.index);
    } catch (...) {
    }
  }
  const int64_t t1 = now_ns();
  std::lock_guard<std::mutex> lock(mu);
  if (!detail::enabled.load()) return;
  ev_.start_ns = t0_;
  ev_.duration_ns = t1 - t0_;
  events.push_back(std::move(ev_));
}

}  // namespace lucid::profiler
