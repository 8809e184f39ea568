// CUDA ops served by their CPU implementation on host copies (ops/cuda/<op>.cu of the ring's ops:
// selections, searchsorted, cdist, embedding bags, baddbmm, index_reduce, nonzero, random sources,
// transposed convolution, FFTs, mode; the scans, pdist, scatter, the complex elementwise ops and
// index_Tensor's gather run on the device). Each wrapper is
// `HostStaged s; s.run(name, {outputs}, [&](r) { return cpu_op(s.host(x), ..., &r[0]); })`.
// Each device input is copied to the host on the effective stream (synchronously: the host reads it
// next), the CPU op runs, and each result is copied to a new tensor on the input's device (or back
// into the caller's out tensor). Correct and simple, not fast: these ops run on small tensors once
// per step (sampling, statistics, routing); nonzero's data-dependent size needs the host anyway.
// Nothing here is exported.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "../../internal.h"
#include "shimgen_runtime/shim_cpu_ops.h"

namespace shimgen::rt::cuda_ops {

class HostStaged {
 public:
  HostStaged() = default;
  HostStaged(const HostStaged&) = delete;
  HostStaged& operator=(const HostStaged&) = delete;
  ~HostStaged() {
    for (AtenTensorHandle h : owned_) (void)aoti_torch_delete_tensor_object(h);
  }

  // Fails with the CPU op's own error when it did not succeed.
  static void check(AOTITorchError code, const char* what) {
    if (code != AOTI_TORCH_SUCCESS) fail(code, std::string(what) + ": " + shimgen_runtime_last_error());
  }

  // The host view of `t`: itself when null or on the host, else a new host copy (owned here). The
  // first device tensor seen fixes the device results go to.
  AtenTensorHandle host(AtenTensorHandle t) {
    if (t == nullptr) return nullptr;
    const Tensor& x = *unwrap(t, "tensor");
    if (x.storage->device_type == kCPU) return t;
    if (device_ < 0) device_ = x.storage->device_index;
    AtenTensorHandle copy = nullptr;
    check(aoti_torch_empty_strided(static_cast<int64_t>(x.sizes.size()), x.sizes.data(), x.strides.data(), x.dtype,
                                   kCPU, -1, &copy),
          "empty_strided");
    owned_.push_back(copy);
    check(aoti_torch_copy_(copy, t, 0), "copy_");
    return copy;
  }
  // An optional handle argument (AtenTensorHandle* that may be null or point at null), on the host.
  AtenTensorHandle* host(AtenTensorHandle* t) {
    if (t == nullptr || *t == nullptr) return t;
    optional_.push_back(host(*t));
    return &optional_.back();
  }

  // Sets the device results go to when no input is on a device (creation ops); -1: current.
  void set_device(int32_t device_index) { device_ = cuda_resolve_device(device_index); }

  // The one shape of a host-staged op with results: `call(r)` runs the CPU op on host views (from
  // host()) and fills r[0..N) with new host tensors, returning its error code; each result becomes
  // a new tensor on the device in *outs[i], all or none (on any failure nothing is handed out).
  template <size_t N, typename Call> void run(const char* what, AtenTensorHandle* const (&outs)[N], Call&& call) {
    for (AtenTensorHandle* o : outs) SHIMGEN_REQUIRE(o != nullptr, "an output pointer is null");
    AtenTensorHandle host_results[N] = {};
    const AOTITorchError code = call(host_results);
    for (AtenTensorHandle h : host_results)
      if (h != nullptr) owned_.push_back(h);
    check(code, what);
    AtenTensorHandle device[N] = {};
    try {
      for (size_t i = 0; i < N; ++i)
        device[i] = to_device(host_results[i], i < layouts_.size() ? &layouts_[i] : nullptr);
    } catch (...) {
      for (AtenTensorHandle d : device)
        if (d != nullptr) (void)aoti_torch_delete_tensor_object(d);
      throw;
    }
    for (size_t i = 0; i < N; ++i) *outs[i] = device[i];
  }

  // Lays run's result i out with `strides` on the device instead of the CPU op's layout: for ops whose
  // CUDA result layout (torch's fake tensors on a CUDA device, which inductor compiles against)
  // differs from the CPU one's.
  void set_layout(size_t i, std::vector<int64_t> strides) {
    if (layouts_.size() <= i) layouts_.resize(i + 1);
    layouts_[i] = std::move(strides);
  }

  // A new device tensor with the values of the host tensor `result` (which stays the caller's), in
  // `strides` when given and not empty, else in result's layout.
  AtenTensorHandle to_device(AtenTensorHandle result, const std::vector<int64_t>* strides = nullptr) {
    const Tensor& h = *unwrap(result, "result");
    const int64_t* layout = strides != nullptr && !strides->empty() ? strides->data() : h.strides.data();
    AtenTensorHandle out = nullptr;
    check(aoti_torch_empty_strided(static_cast<int64_t>(h.sizes.size()), h.sizes.data(), layout, h.dtype, kCUDA,
                                   device_ < 0 ? cuda_resolve_device(-1) : device_, &out),
          "empty_strided");
    const AOTITorchError code = aoti_torch_copy_(out, result, 0);
    if (code != AOTI_TORCH_SUCCESS) {
      (void)aoti_torch_delete_tensor_object(out);
      check(code, "copy_");
    }
    return out;
  }

  // Copies a host tensor the CPU op wrote (`host(dst)`) back into the device tensor dst.
  void copy_back(AtenTensorHandle dst, AtenTensorHandle host_copy) {
    if (dst != host_copy) check(aoti_torch_copy_(dst, host_copy, 0), "copy_");
  }

 private:
  std::vector<AtenTensorHandle> owned_;
  std::deque<AtenTensorHandle> optional_;      // stable addresses: handed out as pointers
  std::vector<std::vector<int64_t>> layouts_;  // per result: the device layout (empty: the CPU op's)
  int32_t device_ = -1;
};

// A device tensor argument: non-null and on CUDA, else InvalidArgument naming it.
inline void require_cuda(AtenTensorHandle t, const char* what) {
  SHIMGEN_REQUIRE(unwrap(t, what)->storage->device_type == kCUDA, std::string(what) + " is not a CUDA tensor");
}

}  // namespace shimgen::rt::cuda_ops
