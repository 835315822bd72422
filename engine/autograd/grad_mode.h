#pragma once
// Grad mode (thread-local, as in PyTorch): ops record graph nodes only while it is on.
namespace lucid::autograd {

bool grad_enabled();
void set_grad_enabled(bool on);
bool inference_mode();
void set_inference_mode(bool on);

// Anomaly mode (process-wide, as in PyTorch): nodes remember where their forward ran, and a
// backward that produces NaN names the node and shows that place.
bool anomaly_enabled();
bool anomaly_check_nan();
void set_anomaly_enabled(bool on, bool check_nan = true);

// RAII: sets grad mode for a scope and restores the previous value.
class GradModeGuard {
 public:
  explicit GradModeGuard(bool on) : prev_(grad_enabled()) { set_grad_enabled(on); }
  ~GradModeGuard() { set_grad_enabled(prev_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool prev_;
};

}  // namespace lucid::autograd
