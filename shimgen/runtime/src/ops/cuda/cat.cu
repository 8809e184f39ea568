// aoti_torch_cuda_cat: torch.cat of CUDA tensors along dim into a new tensor on their device. Inductor
// writes real concatenations in Triton and falls back for complex ones (Qwen-Image's rotary tables:
// diffusers' QwenEmbedRope concatenates complex frequency slices). The layout and checks are the CPU
// shim's (../cat.h: torch's rules, channels-last choice, one dtype); each input is one strided
// device-to-device copy into its slice of the result, on the effective stream.
#include <string>

#include "../cat.h"
#include "op_support.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_cat(const AtenTensorHandle* tensors, int64_t tensors_len_,
                                                               int64_t dim, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(tensors_len_ > 0, "torch.cat(): expected a non-empty list of Tensors");
    SHIMGEN_REQUIRE(tensors != nullptr, "cat: tensors is null");
    SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
    std::vector<const Tensor*> in;
    in.reserve(static_cast<size_t>(tensors_len_));
    for (int64_t i = 0; i < tensors_len_; ++i) {
      in.push_back(&cuda_arg(tensors[i], "tensors"));
      SHIMGEN_REQUIRE(in.back()->storage->device_index == in[0]->storage->device_index,
                      "Expected all tensors to be on the same device, but found cuda:" +
                          str(in[0]->storage->device_index) + " and cuda:" + str(in.back()->storage->device_index));
    }
    const cat::Layout plan = cat::layout(in, dim);
    const int32_t device = in[0]->storage->device_index;
    DeviceScope scope(device);  // the copies launch on this device, restored after
    auto out = empty_tensor(plan.sizes, plan.strides, in[0]->dtype, kCUDA, device);
    cat::copy_pieces(in, plan, *out, [&](char* to, const Tensor& t) {
      copy_strided(to, out->strides.data(), t.data(), t.strides.data(), t.sizes, t.itemsize(), device);
    });
    *ret0 = wrap(std::move(out));
  });
}
