#pragma once
// Autograd fields of a tensor, created lazily (spec 001). The engine that uses them lives in
// engine/autograd/; this layer only stores them, so Node is forward-declared.
#include <cstdint>
#include <memory>
#include <string>

namespace lucid {

class TensorImpl;
namespace autograd { class Node; }

struct AutogradMeta {
  bool requires_grad = false;
  bool retains_grad = false;
  std::shared_ptr<TensorImpl> grad;             // accumulated gradient (graph-mode when create_graph)
  std::shared_ptr<autograd::Node> grad_fn;      // null for leaves
  uint32_t output_nr = 0;                       // which output of grad_fn this tensor is
  std::string name;
};

}  // namespace lucid
