// The fused recurrent-cell kernel stubs (backend/kernels/rnn.h).
#include "backend/kernels/rnn.h"

namespace lucid {
LUCID_DEFINE_KERNEL(lstm_cell_kernel)
LUCID_DEFINE_KERNEL(lstm_cell_backward_kernel)
LUCID_DEFINE_KERNEL(gru_cell_kernel)
LUCID_DEFINE_KERNEL(gru_cell_backward_kernel)
LUCID_DEFINE_KERNEL(rnn_cell_kernel)
LUCID_DEFINE_KERNEL(rnn_cell_backward_kernel)
}  // namespace lucid
