// aoti_torch_cpu_cummin: running minimum along dim and its index; cummax's rules mirrored (an
// element <= the running value, or NaN, replaces it).
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_cummin(AtenTensorHandle self, int64_t dim,
                                                                 AtenTensorHandle* ret0, AtenTensorHandle* ret1) {
  return guarded(__func__, [&] { cumulative_extreme(self, dim, ret0, ret1, "cummin", /*max=*/false); });
}
