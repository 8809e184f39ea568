// aoti_torch_cpu_cummax: running maximum along dim and the index where it was reached (monotone
// envelopes, alignment). torch's rule: an element >= the running value (so ties take the later
// index) or NaN replaces it; once NaN, NaN stays (each later NaN takes its index).
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_cummax(AtenTensorHandle self, int64_t dim,
                                                                 AtenTensorHandle* ret0, AtenTensorHandle* ret1) {
  return guarded(__func__, [&] { cumulative_extreme(self, dim, ret0, ret1, "cummax", /*max=*/true); });
}
