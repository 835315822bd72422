#pragma once
// Helpers for ops that record autograd nodes: each op's backward node sits right under its
// forward, written in lucid ops (DESIGN.md §3), so graph-mode backward works for every op.
#include <memory>
#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/node.h"

namespace lucid {

using autograd::Node;
using autograd::SavedTensor;

// A node whose backward is a lambda over the output gradients and its saved tensors.
template <typename F>
class FnNode final : public Node {
 public:
  FnNode(const char* name, std::vector<SavedTensor> saved, F f) : name_(name), saved_(std::move(saved)), f_(std::move(f)) {}
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    std::vector<Tensor> s;
    s.reserve(saved_.size());
    for (auto& t : saved_) s.push_back(t.unpack(*this));
    return f_(*this, grads, s);
  }
  std::string name() const override { return name_; }
  void bind_saved_outputs(std::initializer_list<const Tensor*> outputs) {
    for (auto& t : saved_)
      for (const Tensor* o : outputs) t.bind_output(*o);
  }
  bool release_saved() override {
    for (auto& t : saved_) t.reset();
    return !saved_.empty();
  }

 private:
  const char* name_;
  std::vector<SavedTensor> saved_;
  F f_;
};

// Records `f` as the backward of `outputs` given `inputs` when grad mode is on and an input
// requires grad. f(node, grads, saved) returns one gradient per input (nullptr for none).
template <typename F>
void record(const char* name, std::initializer_list<const Tensor*> inputs, std::initializer_list<const Tensor*> outputs,
            std::vector<SavedTensor> saved, F f) {
  bool any = false;
  if (autograd::grad_enabled())
    for (const Tensor* t : inputs) any = any || (t && autograd::requires_grad(*t));
  if (!any) return;
  for (const Tensor* o : outputs)
    if (!(is_floating((*o)->dtype()) || is_complex((*o)->dtype()))) return;  // integer results carry no gradient
  auto node = std::make_shared<FnNode<F>>(name, std::move(saved), std::move(f));
  autograd::set_history(node, inputs, outputs);
  node->bind_saved_outputs(outputs);
}

inline bool should_record(std::initializer_list<const Tensor*> inputs) { return autograd::any_requires_grad(inputs); }

// After an in-place write, makes `node`-like history for self: inputs are self's previous gradient
// edge and `others`; a retain_grad() on self moves to the new node. Hooks registered before the
// write stay on the old node, so they see the gradient of the value before the write (spec 000).
template <typename F>
void rebase_history(const char* name, const Tensor& self, std::initializer_list<const Tensor*> others, F f) {
  AutogradMeta* m = self->autograd_meta();
  std::shared_ptr<Node> old = m ? m->grad_fn : nullptr;
  const uint32_t old_nr = m ? m->output_nr : 0;
  std::vector<const Tensor*> inputs{&self};
  inputs.insert(inputs.end(), others.begin(), others.end());
  auto node = std::make_shared<FnNode<F>>(name, std::vector<SavedTensor>{}, std::move(f));
  autograd::set_history(node, inputs, {&self});
  if (old && old_nr < old->retained.size() && old->retained[old_nr].lock() == self) {
    old->retained[old_nr].reset();
    node->retained_of(0) = self;
  }
}

// The history of `self` after `result`'s values were written into it: a view's write is recorded on
// its base (CopySlices); any other tensor gets `result` as its new history.
void record_inplace(const Tensor& self, const Tensor& result);

}  // namespace lucid
