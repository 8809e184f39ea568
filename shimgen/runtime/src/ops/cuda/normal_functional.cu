// aoti_torch_cuda_normal_functional: a tensor like self of normal(mean, std) draws, drawn on the
// host. Computed by the CPU op on host copies (host_staged.h): the same results as on the CPU,
// where tests/integration/test_cpu_ring_ops.py compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_normal_functional(AtenTensorHandle self, double mean,
                                                                             double std, AtenGeneratorHandle* generator,
                                                                             AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    HostStaged s;
    require_cuda(self, "self");
    s.run("normal", {ret0}, [&](AtenTensorHandle* r) {
      return aoti_torch_cpu_normal_functional(s.host(self), mean, std, generator, &r[0]);
    });
  });
}
