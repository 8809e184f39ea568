// aoti_torch_cuda__embedding_bag and _embedding_bag_forward_only: nn.EmbeddingBag. Computed by the
// CPU op on host copies (host_staged.h): the same four outputs as on the CPU, where
// tests/integration/test_cpu_ring_ops.py compares them with torch.
#include "host_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

namespace {

using CpuBag = AOTITorchError (*)(AtenTensorHandle, AtenTensorHandle, AtenTensorHandle, int32_t, int64_t, int32_t,
                                  AtenTensorHandle*, int32_t, int64_t, AtenTensorHandle*, AtenTensorHandle*,
                                  AtenTensorHandle*, AtenTensorHandle*);

void staged_bag(CpuBag cpu, AtenTensorHandle weight, AtenTensorHandle indices, AtenTensorHandle offsets,
                int32_t scale_grad_by_freq, int64_t mode, int32_t sparse, AtenTensorHandle* per_sample_weights,
                int32_t include_last_offset, int64_t padding_idx, AtenTensorHandle* const (&rets)[4]) {
  HostStaged s;
  require_cuda(weight, "weight");
  s.run("embedding_bag", rets, [&](AtenTensorHandle* r) {
    return cpu(s.host(weight), s.host(indices), s.host(offsets), scale_grad_by_freq, mode, sparse,
               s.host(per_sample_weights), include_last_offset, padding_idx, &r[0], &r[1], &r[2], &r[3]);
  });
}

}  // namespace

extern "C" {

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__embedding_bag(AtenTensorHandle weight, AtenTensorHandle indices,
                                                               AtenTensorHandle offsets, int32_t scale_grad_by_freq,
                                                               int64_t mode, int32_t sparse,
                                                               AtenTensorHandle* per_sample_weights,
                                                               int32_t include_last_offset, int64_t padding_idx,
                                                               AtenTensorHandle* ret0, AtenTensorHandle* ret1,
                                                               AtenTensorHandle* ret2, AtenTensorHandle* ret3) {
  return guarded(__func__, [&] {
    staged_bag(aoti_torch_cpu__embedding_bag, weight, indices, offsets, scale_grad_by_freq, mode, sparse,
               per_sample_weights, include_last_offset, padding_idx, {ret0, ret1, ret2, ret3});
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__embedding_bag_forward_only(
    AtenTensorHandle weight, AtenTensorHandle indices, AtenTensorHandle offsets, int32_t scale_grad_by_freq,
    int64_t mode, int32_t sparse, AtenTensorHandle* per_sample_weights, int32_t include_last_offset,
    int64_t padding_idx, AtenTensorHandle* ret0, AtenTensorHandle* ret1, AtenTensorHandle* ret2,
    AtenTensorHandle* ret3) {
  return guarded(__func__, [&] {
    staged_bag(aoti_torch_cpu__embedding_bag_forward_only, weight, indices, offsets, scale_grad_by_freq, mode, sparse,
               per_sample_weights, include_last_offset, padding_idx, {ret0, ret1, ret2, ret3});
  });
}

}  // extern "C"
