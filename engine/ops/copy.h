#pragma once
// Copies, casts and device moves.
#include <optional>

#include "tensor/tensor_impl.h"

namespace lucid {

// dst <- src (broadcast to dst's shape), across any pair of devices and dtypes. Bumps dst's version.
void copy_(const Tensor& dst, const Tensor& src);
// The same copy into a tensor an op has just allocated: no write check, no version bump (a fresh
// tensor starts at version 0, as in PyTorch).
void copy_into(const Tensor& dst, const Tensor& src);
// Spec 000: returns `t` itself when dtype and device already match and copy is false.
Tensor to(const Tensor& t, std::optional<Dtype> dtype, std::optional<Device> device, bool copy = false);
Tensor cast(const Tensor& t, Dtype dtype);  // to(t, dtype, none)
Tensor contiguous(const Tensor& t);          // `t` itself when already contiguous
Tensor clone(const Tensor& t);               // always a fresh contiguous copy
Tensor pin_memory(const Tensor& t);
bool is_pinned(const Tensor& t);

}  // namespace lucid
