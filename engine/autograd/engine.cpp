#include "autograd/engine.h"

#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/grad_mode.h"
#include "core/profiler.h"

namespace lucid::autograd {

namespace {

struct ByNewest {
  bool operator()(Node* a, Node* b) const { return a->sequence_nr < b->sequence_nr; }
};

Tensor run_hooks(const std::vector<std::pair<int, Hook>>& hooks, Tensor g, const OutputInfo& info) {
  for (const auto& [id, hook] : hooks) {
    Tensor r = hook(g);
    if (!r) continue;
    LUCID_CHECK(r->shape() == info.shape, ShapeMismatch,
                "hook returned a gradient of shape " << shape_str(r->shape()) << " for a tensor of shape "
                                                     << shape_str(info.shape));
    g = r;
  }
  return g;
}

// .grad of a non-leaf (retain_grad, backward(inputs=[non-leaf])): set on the first pass, added after.
void accumulate_into(const Tensor& t, const Tensor& g, bool graph) {
  AutogradMeta& m = t->ensure_autograd_meta();
  if (!m.grad) m.grad = graph_ops().clone(g);  // never alias an engine buffer or a caller's tensor
  else if (graph) m.grad = graph_ops().add(m.grad, g);
  else graph_ops().add_inplace(m.grad, g);
}

}  // namespace

std::vector<Tensor> run_backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grads,
                                 const std::vector<Tensor>& inputs, const BackwardOptions& opt) {
  const GraphOps& ops = graph_ops();
  LUCID_CHECK(roots.size() == grads.size(), Value,
              "backward: got " << roots.size() << " tensors but " << grads.size() << " gradients");
  std::vector<Edge> root_edges;
  for (size_t i = 0; i < roots.size(); ++i) {
    LUCID_CHECK(requires_grad(roots[i]), Generic,
                "element " << i << " of tensors does not require grad and does not have a grad_fn");
    LUCID_CHECK(grads[i] && grads[i]->shape() == roots[i]->shape(), ShapeMismatch,
                "backward: gradient of shape " << (grads[i] ? shape_str(grads[i]->shape()) : "None")
                                               << " for a tensor of shape " << shape_str(roots[i]->shape()));
    root_edges.push_back(gradient_edge(roots[i]));
  }
  // Where gradients are wanted: (node, slot) -> index into inputs.
  std::vector<Edge> input_edges;
  for (size_t i = 0; i < inputs.size(); ++i) {
    LUCID_CHECK(requires_grad(inputs[i]), Generic, "one of the differentiated tensors (input " << i
                                                                                             << ") does not require grad");
    input_edges.push_back(gradient_edge(inputs[i]));
  }

  // Discover the graph and count each node's incoming edges.
  std::unordered_map<Node*, int> deps;
  std::unordered_map<Node*, std::vector<Node*>> children;
  std::vector<Node*> stack;
  std::unordered_set<Node*> seen;
  for (auto& e : root_edges)
    if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (auto& e : n->next_edges) {
      if (!e.fn) continue;
      ++deps[e.fn.get()];
      children[n].push_back(e.fn.get());
      if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
    }
  }
  // With inputs given, only nodes on a path to one of them run.
  std::unordered_set<Node*> targets, needed, below;  // below: some child leads to a target
  for (auto& e : input_edges) targets.insert(e.fn.get());
  if (!inputs.empty()) {
    std::unordered_map<Node*, int> state;  // 0 unvisited, 1 visiting, 2 done
    std::function<bool(Node*)> reaches = [&](Node* n) -> bool {
      auto it = state.find(n);
      if (it != state.end()) return it->second == 2 && needed.count(n);
      state[n] = 1;
      bool down = false;
      for (Node* c : children[n]) down = reaches(c) || down;
      const bool r = down || targets.count(n) > 0;
      state[n] = 2;
      if (r) needed.insert(n);
      if (down) below.insert(n);
      return r;
    };
    for (auto& e : root_edges) reaches(e.fn.get());
  }
  auto is_needed = [&](Node* n) { return inputs.empty() || needed.count(n) > 0; };

  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  // Several gradients into one slot (a weight used at T time steps, a tensor used twice) are summed
  // in place into a buffer only the engine can see: the tensor and its storage have no other owner
  // (no caller, hook, saved tensor or view), it is contiguous and matches the incoming gradient.
  // Never under create_graph (the sum must be recorded).
  auto exclusive = [](const Tensor& t, const Tensor& other) {
    return t.use_count() == 1 && t->storage() && t->storage().use_count() == 1 && t->is_contiguous() &&
           !requires_grad(t) && t->shape() == other->shape() && t->dtype() == other->dtype() &&
           t->device() == other->device();
  };
  auto add_to = [&](Node* n, uint32_t slot, const Tensor& g) {
    auto& v = buffers[n];
    if (v.size() < n->outputs.size()) v.resize(n->outputs.size());
    Tensor& cur = v[slot];
    if (!cur) {
      cur = g;
    } else if (opt.create_graph || !ops.add_inplace) {
      cur = ops.add(cur, g);
    } else if (exclusive(cur, g)) {
      ops.add_inplace(cur, g);
    } else if (g.use_count() == 1 && exclusive(g, cur)) {  // only the caller's `outs` holds g: sum into it
      Tensor owned = g;
      ops.add_inplace(owned, cur);
      cur = std::move(owned);
    } else {
      cur = ops.add(cur, g);
    }
  };
  std::vector<Tensor> captured(inputs.size());

  GradModeGuard guard(opt.create_graph);
  std::priority_queue<Node*, std::vector<Node*>, ByNewest> ready;
  for (size_t i = 0; i < roots.size(); ++i) add_to(root_edges[i].fn.get(), root_edges[i].input_nr, grads[i]);
  for (auto& e : root_edges)
    if (deps[e.fn.get()] == 0) {
      deps[e.fn.get()] = -1;  // queued
      ready.push(e.fn.get());
    }
  std::vector<std::shared_ptr<Node>> ran;
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    std::vector<Tensor> g = std::move(buffers[n]);
    buffers.erase(n);
    g.resize(n->outputs.size());
    std::vector<Tensor> outs;
    bool any = false;
    for (auto& x : g) any = any || x;
    if (any && is_needed(n)) {
      auto* acc = dynamic_cast<AccumulateGrad*>(n);
      for (size_t i = 0; i < g.size(); ++i) {
        if (!g[i]) continue;
        if (acc) {
          if (auto* m = acc->leaf->autograd_meta(); m && !m->hooks.empty()) {
            std::vector<std::pair<int, Hook>> hooks(m->hooks.begin(), m->hooks.end());
            g[i] = run_hooks(hooks, g[i], n->outputs[i]);
          }
        } else {
          if (i < n->tensor_hooks.size()) g[i] = run_hooks(n->tensor_hooks[i], g[i], n->outputs[i]);
          if (i < n->retained.size())
            if (auto t = n->retained[i].lock()) accumulate_into(t, g[i], opt.create_graph);
        }
      }
      // Gradients requested at this node's slots.
      for (size_t k = 0; k < input_edges.size(); ++k) {
        if (input_edges[k].fn.get() != n || !g[input_edges[k].input_nr]) continue;
        const Tensor& gk = g[input_edges[k].input_nr];
        if (!opt.accumulate) captured[k] = gk;
        else if (!acc) accumulate_into(inputs[k], gk, opt.create_graph);
      }
      // autograd.grad stops at its inputs: an input's own node runs only if it leads to another input.
      const bool run = acc ? opt.accumulate && (inputs.empty() || targets.count(n))
                           : (opt.accumulate || inputs.empty() || below.count(n));
      if (run) {
        for (size_t i = 0; i < g.size() && n->materialize_grads; ++i)
          if (!g[i]) g[i] = ops.zeros(n->outputs[i]);
        if (profiler::enabled()) {
          Device dev;
          for (auto& gi : g)
            if (gi) { dev = gi->device(); break; }
          profiler::Scope scope(n->name(), profiler::EventKind::Backward, dev);
          outs = n->apply(std::move(g));
        } else {
          outs = n->apply(std::move(g));
        }
        ran.push_back(n->shared_from_this());
        if (anomaly_enabled() && anomaly_check_nan() && ops.has_nan) {
          for (size_t j = 0; j < outs.size(); ++j)
            LUCID_CHECK(!(outs[j] && ops.has_nan(outs[j])), Generic,
                        "Function '" << n->name() << "' returned nan values in its " << j << "th output."
                                     << (n->creation_trace.empty()
                                             ? std::string()
                                             : "\nTraceback of forward call that caused the error:\n" + n->creation_trace));
        }
      }
    }
    for (size_t j = 0; j < n->next_edges.size(); ++j) {
      const Edge& e = n->next_edges[j];
      if (!e.fn) continue;
      if (j < outs.size() && outs[j]) add_to(e.fn.get(), e.input_nr, outs[j]);
      if (--deps[e.fn.get()] == 0) {
        deps[e.fn.get()] = -1;
        ready.push(e.fn.get());
      }
    }
  }
  if (!opt.keep_graph) {
    for (auto& n : ran)
      if (n->release_saved()) {
        // Hooks live with the node's saved state (spec 000).
        for (auto& h : n->tensor_hooks) h.clear();
      }
  }
  if (!opt.accumulate) {
    for (size_t k = 0; k < inputs.size(); ++k)
      LUCID_CHECK(captured[k] || opt.allow_unused, Generic,
                  "one of the differentiated tensors (input " << k
                      << ") appears to not have been used in the graph. Set allow_unused=True if this is the desired "
                         "behavior.");
  }
  return captured;
}

}  // namespace lucid::autograd
