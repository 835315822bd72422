#pragma once
// The op-level profiler (lucid.profiler.profile()). While it is on, every kernel call made through a
// kernel stub (backend/kernels/stub.h) and every autograd node run by the backward engine records an
// Event: name, device, input shapes, bytes moved and wall time. Off, the cost is one relaxed atomic
// load per kernel call. CUDA kernels are timed to completion (the stub synchronises the device while
// profiling), so their times are real, not launch times.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/shape.h"

namespace lucid::profiler {

enum class EventKind : uint8_t { Kernel, Backward };

struct Event {
  std::string name;           // op (or kernel family) name; autograd nodes: their node name
  EventKind kind = EventKind::Kernel;
  Device device;
  std::vector<Shape> shapes;  // tensor operands of the kernel (the output first)
  int64_t bytes = 0;          // bytes of the tensor operands (read + written)
  int64_t start_ns = 0;       // now_ns() at the start
  int64_t duration_ns = 0;
  int depth = 0;              // nesting: kernels inside a backward node have depth 1
};

namespace detail {
extern std::atomic<bool> enabled;
}
inline bool enabled() { return detail::enabled.load(std::memory_order_relaxed); }

// Starts recording (clears earlier events); LUCID_CHECKs that no profile is already running.
void start();
// Stops recording and returns the events in start order.
std::vector<Event> stop();
int64_t now_ns();

// Times one region: constructed before the work, records on destruction (only while enabled).
class Scope {
 public:
  Scope(std::string name, EventKind kind, Device device);
  ~Scope();
  void add_operand(const Shape& shape, int64_t nbytes) {
    ev_.shapes.push_back(shape);
    ev_.bytes += nbytes;
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  Event ev_;
  int64_t t0_;
};

}  // namespace lucid::profiler
