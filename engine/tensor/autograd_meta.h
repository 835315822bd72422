#pragma once
// Autograd fields of a tensor, created lazily (spec 001). The engine that uses them lives in
// engine/autograd/; this layer only stores them, so Node is forward-declared.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace lucid {

class TensorImpl;
namespace autograd { class Node; }

// A tensor that views another's memory, made under grad mode: its root base and the storage
// version when its grad_fn was last set (a later write elsewhere makes that grad_fn stale).
struct ViewInfo {
  std::shared_ptr<TensorImpl> base;
  int64_t version = 0;
};

struct AutogradMeta {
  bool requires_grad = false;
  bool retains_grad = false;
  std::shared_ptr<TensorImpl> grad;             // accumulated gradient (graph-mode when create_graph)
  std::shared_ptr<autograd::Node> grad_fn;      // null for leaves
  uint32_t output_nr = 0;                       // which output of grad_fn this tensor is
  std::weak_ptr<autograd::Node> grad_accumulator;  // a leaf's AccumulateGrad, shared by all its uses
  // Hooks on a leaf (a non-leaf's hooks live on its grad_fn, spec 000): (id, hook) in order.
  std::vector<std::pair<int, std::function<std::shared_ptr<TensorImpl>(const std::shared_ptr<TensorImpl>&)>>> hooks;
  std::unique_ptr<ViewInfo> view;
  std::string name;
};

}  // namespace lucid
