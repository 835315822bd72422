#include "autograd/grad_mode.h"

namespace lucid::autograd {

namespace {
thread_local bool t_grad = true;
thread_local bool t_inference = false;
}  // namespace

bool grad_enabled() { return t_grad; }
void set_grad_enabled(bool on) { t_grad = on; }
bool inference_mode() { return t_inference; }
void set_inference_mode(bool on) { t_inference = on; }

}  // namespace lucid::autograd
