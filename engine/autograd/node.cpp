#include "autograd/node.h"

#include <atomic>

#include "autograd/grad_mode.h"

namespace lucid::autograd {

namespace {
std::atomic<uint64_t> g_sequence{0};
GraphOps g_ops;
Tensor alias(const Tensor& t) { return t->as_view(t->shape(), t->strides(), t->storage_offset()); }
}  // namespace

TraceProvider g_trace = nullptr;

void register_graph_ops(const GraphOps& ops) { g_ops = ops; }
void set_trace_provider(TraceProvider fn) { g_trace = fn; }
const GraphOps& graph_ops() {
  LUCID_CHECK(g_ops.add, Generic, "autograd: graph ops were not registered (ops/autograd_ops.cpp not linked)");
  return g_ops;
}

Node::Node() : sequence_nr(g_sequence.fetch_add(1, std::memory_order_relaxed)) {}

namespace {
thread_local std::vector<SavedTensorHooks> t_saved_hooks;
}  // namespace

void push_saved_tensor_hooks(SavedTensorHooks hooks) { t_saved_hooks.push_back(std::move(hooks)); }
void pop_saved_tensor_hooks() {
  if (!t_saved_hooks.empty()) t_saved_hooks.pop_back();
}

SavedTensor::SavedTensor(const Tensor& t, bool is_output) {
  if (!t) return;
  was_defined_ = true;
  is_output_ = is_output;
  version_ = t->version();
  requires_grad_ = requires_grad(t);
  const bool has_fn = t->autograd_meta() && t->autograd_meta()->grad_fn;
  if (is_output && has_fn) {
    fn_ = t->autograd_meta()->grad_fn;
    output_nr_ = t->autograd_meta()->output_nr;
  } else if (is_output) {
    unbound_output_ = t.get();
  }
  if (!t_saved_hooks.empty()) {
    // The hooks see the values only (no autograd meta), as in PyTorch.
    const SavedTensorHooks& h = t_saved_hooks.back();
    packed_ = h.pack(alias(t));
    unpack_ = h.unpack;
    if (!is_output) {
      if (has_fn) {
        in_fn_ = t->autograd_meta()->grad_fn;
        output_nr_ = t->autograd_meta()->output_nr;
      } else if (requires_grad_) {
        leaf_ = t;
      }
    }
    return;
  }
  data_ = (is_output && has_fn) ? alias(t) : t;  // outputs: no autograd meta, so no cycle through the node
}

void SavedTensor::bind_output(const Tensor& out) {
  if (!unbound_output_ || out.get() != unbound_output_) return;
  unbound_output_ = nullptr;
  const AutogradMeta* m = out->autograd_meta();
  if (!m || !m->grad_fn) return;
  fn_ = m->grad_fn;
  output_nr_ = m->output_nr;
  if (data_) data_ = alias(data_);  // keep the values and version counter, not the history
}

Tensor SavedTensor::unpack(const Node& owner) const {
  if (!was_defined_) return nullptr;
  if (unpack_ && !released_) {
    Tensor v = unpack_(packed_);
    LUCID_CHECK(v, Generic, "saved-tensor unpack hook returned None (node " << owner.name() << ")");
    if (leaf_) {  // the unpacked values, routed to the leaf's own AccumulateGrad
      Tensor t = v->as_view(v->shape(), v->strides(), v->storage_offset());
      auto& m = t->ensure_autograd_meta();
      m.requires_grad = true;
      const Edge e = gradient_edge(leaf_);
      m.grad_accumulator = e.fn;
      return t;
    }
    std::shared_ptr<Node> fn = is_output_ ? fn_.lock() : in_fn_;
    if (fn) {  // give the unpacked values their autograd identity back (graph-mode backward)
      Tensor t = v->as_view(v->shape(), v->strides(), v->storage_offset());
      auto& m = t->ensure_autograd_meta();
      m.grad_fn = fn;
      m.output_nr = output_nr_;
      m.requires_grad = requires_grad_;
      return t;
    }
    return v;
  }
  LUCID_CHECK(!released_, Generic,
              "Trying to backward through the graph a second time (or directly access saved tensors after they "
              "have already been freed). Saved intermediate values of the graph are freed when you call "
              ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph "
              "a second time or if you need to access saved tensors after calling backward. (node "
                  << owner.name() << ")");
  LUCID_CHECK(data_->version() == version_, VersionMismatch,
              "one of the tensors needed for gradient computation has been modified by an inplace operation: ["
                  << owner.name() << "] saved a tensor of shape " << shape_str(data_->shape()) << " at version "
                  << version_ << ", and it is now at version " << data_->version()
                  << ". Find the in-place write (clone the tensor before it, or move the write).");
  if (!is_output_) return data_;
  auto fn = fn_.lock();
  if (!fn) return data_;
  // Re-attach the output to its node so a graph-mode backward can differentiate through it.
  Tensor t = alias(data_);
  auto& m = t->ensure_autograd_meta();
  m.grad_fn = fn;
  m.output_nr = output_nr_;
  m.requires_grad = requires_grad_;
  return t;
}

AccumulateGrad::AccumulateGrad(Tensor l) : leaf(std::move(l)) {
  outputs.push_back({leaf->shape(), leaf->dtype(), leaf->device()});
}

std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor>&& grads) {
  Tensor g = std::move(grads[0]);
  auto& meta = leaf->ensure_autograd_meta();
  if (!g) return {};
  const bool graph = grad_enabled();  // the engine turns grad mode on under create_graph
  if (!meta.grad) {
    // Steal the buffer when nothing else can see it; otherwise keep a private copy.
    const bool private_buffer = g.use_count() == 1 && g->storage().use_count() == 1 && g->is_contiguous();
    // (Under create_graph the clone is recorded, so .grad stays differentiable.)
    meta.grad = !graph && private_buffer ? g : graph_ops().clone(g);
  } else if (graph) {
    meta.grad = graph_ops().add(meta.grad, g);  // differentiable accumulation (spec 001)
  } else {
    graph_ops().add_inplace(meta.grad, g);
  }
  return {};
}

bool requires_grad(const Tensor& t) {
  const AutogradMeta* m = t ? t->autograd_meta() : nullptr;
  if (!m) return false;
  if (m->requires_grad || m->grad_fn) return true;
  // A view of a tensor that requires grad requires grad too (its grad_fn may still have to be made).
  return m->view && m->view->base != t && requires_grad(m->view->base);
}

bool any_requires_grad(std::initializer_list<const Tensor*> ts) {
  if (!grad_enabled()) return false;
  for (const Tensor* t : ts)
    if (t && requires_grad(*t)) return true;
  return false;
}

Edge gradient_edge(const Tensor& t) {
  if (!requires_grad(t)) return {};
  AutogradMeta& m = t->ensure_autograd_meta();
  // A view whose memory was written since its grad_fn was set (through its base or another view)
  // gets a grad_fn made afresh from the base's current history.
  if (m.view && (t->version() != m.view->version || !m.grad_fn) && requires_grad(m.view->base) && g_ops.regenerate_view)
    g_ops.regenerate_view(t);
  if (m.grad_fn) return {m.grad_fn, m.output_nr};
  auto acc = m.grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    m.grad_accumulator = acc;
  }
  return {acc, 0};
}

void set_history(const std::shared_ptr<Node>& node, TensorPtrs inputs, TensorPtrs outputs) {
  node->next_edges.clear();
  node->next_edges.reserve(inputs.size());
  for (const Tensor* t : inputs) node->next_edges.push_back(t ? gradient_edge(*t) : Edge{});
  uint32_t k = 0;
  node->outputs.clear();
  node->outputs.reserve(outputs.size());
  for (const Tensor* t : outputs) {
    node->outputs.push_back({(*t)->shape(), (*t)->dtype(), (*t)->device()});
    AutogradMeta& m = (*t)->ensure_autograd_meta();
    m.grad_fn = node;
    m.output_nr = k++;
    m.requires_grad = true;
  }
  if (anomaly_enabled() && g_trace) node->creation_trace = g_trace();
}

bool check_inplace(const Tensor& self, std::initializer_list<const Tensor*> others, const char* op) {
  if (!grad_enabled()) return false;
  const AutogradMeta* m = self->autograd_meta();
  LUCID_CHECK(!(m && m->requires_grad && !m->grad_fn), Generic,
              "[" << op << "] a leaf tensor that requires grad is being used in an in-place operation (shape "
                  << shape_str(self->shape()) << "). Wrap the update in lucid.no_grad() or clone the tensor first.");
  if (m && m->view) {
    const AutogradMeta* bm = m->view->base->autograd_meta();
    LUCID_CHECK(!(bm && bm->requires_grad && !bm->grad_fn), Generic,
                "[" << op << "] a view of a leaf tensor that requires grad is being used in an in-place operation (shape "
                    << shape_str(self->shape()) << "). Wrap the update in lucid.no_grad() or clone the leaf first.");
  }
  bool involved = requires_grad(self);
  for (const Tensor* o : others) involved = involved || (o && requires_grad(*o));
  return involved;
}

}  // namespace lucid::autograd
