// The arithmetic the autograd engine borrows from ops (autograd/node.h GraphOps).
#include "autograd/node.h"
#include "ops/graph.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/host.h"
#include "ops/view.h"

namespace lucid {
namespace {
const bool registered = [] {
  autograd::GraphOps g;
  g.add = [](const Tensor& a, const Tensor& b) { return add(a, b); };
  g.add_inplace = [](const Tensor& a, const Tensor& b) { binary_(BinaryOp::Add, a, b); };
  g.zeros = [](const autograd::OutputInfo& i) { return zeros(i.shape, i.dtype, i.device); };
  g.clone = [](const Tensor& t) { return clone(t); };
  g.has_nan = [](const Tensor& t) {
    if (!is_floating(t->dtype()) && !is_complex(t->dtype())) return false;
    Tensor h = to_host_contiguous(t);
    return dispatch_dtype(h->dtype(), [&]<typename T>() {
      const T* p = h->data<T>();
      for (int64_t i = 0; i < h->numel(); ++i) {
        if constexpr (std::is_same_v<T, c64> || std::is_same_v<T, c128>) {
          if (p[i].re != p[i].re || p[i].im != p[i].im) return true;
        } else if constexpr (!std::is_integral_v<T>) {
          const double v = double(p[i]);
          if (v != v) return true;
        }
      }
      return false;
    });
  };
  g.regenerate_view = &regenerate_view_history;
  autograd::register_graph_ops(g);
  return true;
}();
}  // namespace
}  // namespace lucid

namespace lucid {

void record_inplace(const Tensor& self, const Tensor& result) {
  const AutogradMeta* m = self->autograd_meta();
  if (m && m->view) {
    copy_slices(self, result);
    return;
  }
  rebase_history("CopyBackwards", self, {&result}, [](Node&, std::vector<Tensor>& g, std::vector<Tensor>&) {
    return std::vector<Tensor>{zeros(g[0]->shape(), g[0]->dtype(), g[0]->device()), g[0]};
  });
}

}  // namespace lucid
