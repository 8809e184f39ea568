// aoti_torch_cuda_index_Tensor: advanced indexing self[indices] (boolean-mask selection x[x > t],
// gathers by index tensors) with a device gather. The index tensors (small; a mask's size decides
// the result's shape, so the host reads them anyway) are copied to the host and planned by the CPU
// op's own planner (../index_plan.h: the result's shape, torch's layout, each point's offset into
// self, every index checked); one kernel then copies self's elements, which never leave the device.
// Index tensors may be CUDA or CPU tensors, as torch allows. Any dtype (elements move as bytes).
#include "../index_plan.h"
#include "host_staged.h"
#include "op_support.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"
#include "strided.cuh"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

namespace {

// out[k] = self[self offset of k + point_offsets[(k / after) % points]] (index_plan::Plan's rule);
// T: an element-sized type.
template <typename T> __global__ void gather_kernel(Strided<2> walk, int64_t total, int64_t after, int64_t points,
                                                    const int64_t* point_offsets, const T* self, T* out) {
  SHIMGEN_GRID_STRIDE_LOOP(k, total) {
    int64_t at[2];
    walk.offsets(k, at);
    out[at[0]] = self[at[1] + point_offsets[(k / after) % points]];
  }
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_index_Tensor(AtenTensorHandle self,
                                                                        const AtenTensorHandle** indices,
                                                                        int64_t indices_len_, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cuda_arg(self, "self");
    SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
    SHIMGEN_REQUIRE(indices_len_ >= 0 && (indices != nullptr || indices_len_ == 0), "indices is null");
    HostStaged staged;  // holds the host copies of the index tensors
    std::vector<const Tensor*> index(static_cast<size_t>(indices_len_), nullptr);
    for (size_t i = 0; i < index.size(); ++i)
      if (indices[i] != nullptr && *indices[i] != nullptr) index[i] = unwrap(staged.host(*indices[i]), "indices");
    const index_plan::Plan plan = index_plan::plan(in, index);
    const int32_t device = in.storage->device_index;
    Owned out;
    empty(out, plan.sizes, plan.strides, in.dtype, kCUDA, device);
    const int64_t total = out.get()->numel();
    if (total > 0) {
      DeviceScope scope(device);
      cudaStream_t stream = stream_of(device);
      const size_t bytes = plan.point_offsets.size() * sizeof(int64_t);
      Scratch offsets(device, bytes);
      // From pageable memory: returns once the bytes are staged, so the plan may go out of scope.
      check_cuda(cudaMemcpyAsync(offsets.data(), plan.point_offsets.data(), bytes, cudaMemcpyHostToDevice, stream),
                 "copying the index offsets");
      const Strided<2> walk = strided<2>(plan.sizes, {plan.strides.data(), plan.self_strides.data()});
      auto launch = [&](auto tag) {
        using T = decltype(tag);
        gather_kernel<T><<<grid_for(total), 256, 0, stream>>>(
            walk, total, plan.after, plan.points(), offsets.as<int64_t>(), reinterpret_cast<const T*>(in.data()),
            reinterpret_cast<T*>(out.get()->data()));
        check_cuda(cudaGetLastError(), "index gather kernel launch");
      };
      dispatch_bits(in.itemsize(), "index", launch);
    }
    *ret0 = out.release();
  });
}
