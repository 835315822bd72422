#include "autograd/grad_mode.h"

#include <atomic>

namespace lucid::autograd {

namespace {
thread_local bool t_grad = true;
thread_local bool t_inference = false;
}  // namespace

std::atomic<bool> g_anomaly{false}, g_anomaly_nan{true};

bool anomaly_enabled() { return g_anomaly.load(std::memory_order_relaxed); }
bool anomaly_check_nan() { return g_anomaly_nan.load(std::memory_order_relaxed); }
void set_anomaly_enabled(bool on, bool check_nan) {
  g_anomaly.store(on);
  g_anomaly_nan.store(check_nan);
}

bool grad_enabled() { return t_grad; }
void set_grad_enabled(bool on) { t_grad = on; }
bool inference_mode() { return t_inference; }
void set_inference_mode(bool on) { t_inference = on; }

}  // namespace lucid::autograd
