#pragma once
// lucid's engine in one include (DESIGN.md §2). A short tour:
//
//   #include "lucid.h"
//   using namespace lucid;
//   Tensor x = reshape(arange(Scalar::from_int(0), Scalar::from_int(6), Scalar::from_int(1), Dtype::F32,
//                             Device()), {2, 3});   // ops/creation.h, ops/view.h
//   Tensor y = matmul(x, transpose(x, 0, 1));       // ops/matmul.h, ops/view.h: views share storage
//   Tensor z = sum(add(y, Scalar::from_double(1.0)), std::nullopt);   // ops/binary.h, ops/reduce.h
//   // autograd::run_backward (autograd/engine.h) runs reverse mode from roots that require grad
//
// Every op checks its inputs (typed errors, core/error.h), promotes dtypes as PyTorch, dispatches
// to the kernel registered for the device (backend/kernels/*.h) and records its vjp, written in
// these same ops, right below its forward (ops/graph.h). The Python package is a thin layer over
// this API (bindings/).
#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/complex.h"
#include "core/device.h"
#include "core/device_interface.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/half.h"
#include "core/macros.h"
#include "core/profiler.h"
#include "core/scalar.h"
#include "core/shape.h"
#include "ops/activation.h"
#include "ops/binary.h"
#include "ops/compare.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/host.h"
#include "ops/indexing.h"
#include "ops/loss.h"
#include "ops/matmul.h"
#include "ops/nn.h"
#include "ops/nn_conv.h"
#include "ops/optim.h"
#include "ops/pool.h"
#include "ops/products.h"
#include "ops/random.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "ops/sorting.h"
#include "ops/unary.h"
#include "ops/view.h"
#include "tensor/autograd_meta.h"
#include "tensor/storage.h"
#include "tensor/tensor_impl.h"
