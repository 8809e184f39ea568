// aoti_torch_cuda_grid_sampler_3d: F.grid_sample of a volume. Computed by the CPU op on host copies
// (host_staged.h): the same results as on the CPU, where tests/integration/test_cpu_ring_ops.py
// compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_grid_sampler_3d(AtenTensorHandle input,
                                                                           AtenTensorHandle grid,
                                                                           int64_t interpolation_mode,
                                                                           int64_t padding_mode, int32_t align_corners,
                                                                           AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(input, "input");
    s.run("grid_sampler_3d", {ret0}, [&](AtenTensorHandle* r) {
      return aoti_torch_cpu_grid_sampler_3d(s.host(input), s.host(grid), interpolation_mode, padding_mode,
                                            align_corners, &r[0]);
    });
  });
}
