#pragma once
// Host bridges (spec 000 rule H4): item, to_bytes and the engine-side repr. Each synchronises
// with the tensor's device first.
#include <string>

#include "core/scalar.h"
#include "tensor/tensor_impl.h"

namespace lucid {

Scalar item(const Tensor& t);
std::string to_bytes(const Tensor& t);  // contiguous row-major snapshot
Tensor to_host_contiguous(const Tensor& t);
// The data part of a repr: "[[1., 2.],\n <indent>[3., 4.]]"; `indent` is the width of the prefix
// the caller prints before it ("tensor(" is 7).
std::string format_data(const Tensor& t, int indent);

}  // namespace lucid
