#pragma once
// The autograd graph (spec 001): a Node per recorded op, Edges to the nodes that produced its
// inputs, saved tensors with version checks, and tensor hooks. The engine is in engine.h.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor_impl.h"

namespace lucid::autograd {

class Node;
using Hook = std::function<Tensor(const Tensor&)>;  // returns nullptr to keep the gradient

struct Edge {
  std::shared_ptr<Node> fn;  // null: this input needs no gradient
  uint32_t input_nr = 0;     // which output slot of fn the gradient flows into
};

struct OutputInfo {
  Shape shape;
  Dtype dtype;
  Device device;
};

// Saved-tensor hooks (autograd.graph.saved_tensors_hooks): pack turns a tensor being saved into
// anything (e.g. a CPU copy); unpack turns that back into a tensor when backward needs it.
struct SavedTensorHooks {
  std::function<std::shared_ptr<void>(const Tensor&)> pack;
  std::function<Tensor(const std::shared_ptr<void>&)> unpack;
};
// A thread-local stack; the innermost pair applies to tensors saved while it is pushed.
void push_saved_tensor_hooks(SavedTensorHooks hooks);
void pop_saved_tensor_hooks();

// A tensor a node keeps for its backward. Inputs are held as they are; outputs are held without
// their grad_fn (which is the saving node itself) to avoid a cycle, and get it back on unpack.
// An output saved before its node exists (record(...) builds the saved list first) is bound to
// the node by bind_output once the node is its history.
class SavedTensor {
 public:
  SavedTensor() = default;
  SavedTensor(const Tensor& t, bool is_output);
  Tensor unpack(const Node& owner) const;  // VersionMismatch if the tensor was modified in place
  // If this saved `out` before `out` had a grad_fn, take out's node and slot now and drop the
  // strong reference to out's autograd meta (which would hold the node: a cycle, a leaked graph).
  void bind_output(const Tensor& out);
  void reset() {
    data_.reset();
    packed_.reset();
    leaf_.reset();
    in_fn_.reset();
    released_ = true;
  }
  bool defined() const { return was_defined_; }

 private:
  Tensor data_;
  std::shared_ptr<void> packed_;  // set instead of data_ when saved-tensor hooks were active
  std::function<Tensor(const std::shared_ptr<void>&)> unpack_;
  // With hooks, the autograd identity of a saved input: a leaf is kept itself (it is alive anyway),
  // a non-leaf only by its node and slot, so its memory can go.
  Tensor leaf_;
  std::shared_ptr<Node> in_fn_;
  std::weak_ptr<Node> fn_;
  const TensorImpl* unbound_output_ = nullptr;  // identity only (never dereferenced): see bind_output
  uint32_t output_nr_ = 0;
  int64_t version_ = 0;
  bool is_output_ = false, was_defined_ = false, released_ = false, requires_grad_ = false;
};

class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node() = default;
  // grads: one per output slot, zeros materialised for slots that received none. Returns one
  // gradient per next_edge (nullptr where that input needs none).
  virtual std::vector<Tensor> apply(std::vector<Tensor>&& grads) = 0;
  virtual std::string name() const = 0;
  // Frees saved tensors after a backward without retain_graph. Returns whether there were any.
  virtual bool release_saved() { return false; }

  std::vector<Edge> next_edges;
  std::vector<OutputInfo> outputs;
  // Hooks on this node's outputs (tensor.register_hook on a non-leaf): per slot, (id, hook).
  // retain_grad() targets per output slot. Both sized on first use (hooks_of, retained_of): most
  // nodes never get one, and two allocations per recorded op were a tenth of `a + b`'s time.
  std::vector<std::vector<std::pair<int, Hook>>> tensor_hooks;
  std::vector<std::weak_ptr<TensorImpl>> retained;
  std::vector<std::pair<int, Hook>>& hooks_of(size_t slot) {
    if (tensor_hooks.size() <= slot) tensor_hooks.resize(std::max(outputs.size(), slot + 1));
    return tensor_hooks[slot];
  }
  std::weak_ptr<TensorImpl>& retained_of(size_t slot) {
    if (retained.size() <= slot) retained.resize(std::max(outputs.size(), slot + 1));
    return retained[slot];
  }
  uint64_t sequence_nr;
  bool released = false;
  bool materialize_grads = true;  // zeros for output slots that received no gradient
  std::string creation_trace;     // where the forward ran (anomaly mode only)

  bool needs_input_grad(size_t i) const { return i < next_edges.size() && next_edges[i].fn != nullptr; }
};

// The node at a leaf that requires grad: adds the incoming gradient into .grad.
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor leaf);
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  Tensor leaf;
};

// Arithmetic the engine needs (summing gradients, zeros for slots that got none, copying a grad
// buffer), supplied by ops/ at start-up so this layer does not depend on ops (DESIGN.md §2).
struct GraphOps {
  Tensor (*add)(const Tensor&, const Tensor&) = nullptr;        // out of place, recorded in graph mode
  void (*add_inplace)(const Tensor&, const Tensor&) = nullptr;  // dst += src (no graph)
  Tensor (*zeros)(const OutputInfo&) = nullptr;
  Tensor (*clone)(const Tensor&) = nullptr;
  bool (*has_nan)(const Tensor&) = nullptr;
  void (*regenerate_view)(const Tensor&) = nullptr;  // a stale view's grad_fn from its base's history
};

// Anomaly mode: who describes "where the forward ran" (the Python bindings give a traceback).
using TraceProvider = std::string (*)();
void set_trace_provider(TraceProvider fn);
void register_graph_ops(const GraphOps& ops);
const GraphOps& graph_ops();

// ---- recording (used by ops)

// True when grad mode is on and any of the tensors requires grad.
bool any_requires_grad(std::initializer_list<const Tensor*> ts);
bool requires_grad(const Tensor& t);
// The edge a gradient for `t` flows along (its grad_fn slot, or its AccumulateGrad).
Edge gradient_edge(const Tensor& t);
// Connects `node` to `inputs` (null edges for those that need no grad) and makes it the grad_fn of
// `outputs`.
// (Spans: the lists are read in place, no vector built per recorded op.)
using TensorPtrs = std::span<const Tensor* const>;
void set_history(const std::shared_ptr<Node>& node, TensorPtrs inputs, TensorPtrs outputs);
inline TensorPtrs tensor_ptrs(std::initializer_list<const Tensor*> l) { return {l.begin(), l.size()}; }
inline void set_history(const std::shared_ptr<Node>& node, std::initializer_list<const Tensor*> inputs,
                        std::initializer_list<const Tensor*> outputs) {
  set_history(node, tensor_ptrs(inputs), tensor_ptrs(outputs));
}
inline void set_history(const std::shared_ptr<Node>& node, const std::vector<const Tensor*>& inputs,
                        std::initializer_list<const Tensor*> outputs) {
  set_history(node, TensorPtrs(inputs), tensor_ptrs(outputs));
}
// In-place writes (spec 001): refuses leaves that require grad (outside no_grad). Returns true when
// autograd must record the write, i.e. rewrite self's history; that is refused, for now, when self
// shares its memory with another tensor (a view, or a view's base): see docs/notes/autograd.md.
bool check_inplace(const Tensor& self, std::initializer_list<const Tensor*> others, const char* op);

}  // namespace lucid::autograd
