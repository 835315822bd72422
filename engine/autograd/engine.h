#pragma once
// The backward engine: topological execution with dependency counts, each node run once per
// pass, gradients summed per output slot before the node runs (spec 000/001).
#include <vector>

#include "autograd/node.h"

namespace lucid::autograd {

struct BackwardOptions {
  bool keep_graph = false;    // retain_graph
  bool create_graph = false;  // record the backward itself (higher-order gradients)
  bool accumulate = true;     // backward(): add into .grad; autograd.grad(): return the gradients
  bool allow_unused = false;  // autograd.grad: an input the outputs do not depend on gets None
};

// roots[i] receives grads[i] (same shape). When `inputs` is non-empty only they receive gradients
// (and, with accumulate=false, the result holds one gradient per input, nullptr when unused).
std::vector<Tensor> run_backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grads,
                                 const std::vector<Tensor>& inputs, const BackwardOptions& opt);

}  // namespace lucid::autograd
