// A tensor's values readable on the host: the tensor itself when it lives there, else a host copy
// (made through the exported shims, so a CUDA build reads its device tensors the same way). For the
// debugging shims (print_tensor_handle, check_inf_and_nan), which take any device's tensor.
#pragma once

#include <vector>

#include "cpu_op.h"
#include "shimgen_runtime/shim.h"

namespace shimgen::rt::cpu {

class HostView {
 public:
  // contiguous: the view is row-major contiguous too (a copy where the tensor is not).
  explicit HostView(AtenTensorHandle handle, bool contiguous = false) : tensor_(unwrap(handle, "self")) {
    if (tensor_->storage->device_type == kCPU && (!contiguous || tensor_->is_contiguous())) return;
    std::vector<int64_t> strides = tensor_->strides;
    if (contiguous) {
      int64_t step = 1;
      for (size_t d = strides.size(); d-- > 0;) {
        strides[d] = step;
        step *= tensor_->sizes[d] > 1 ? tensor_->sizes[d] : 1;
      }
    }
    if (aoti_torch_empty_strided(static_cast<int64_t>(tensor_->sizes.size()), tensor_->sizes.data(), strides.data(),
                                 tensor_->dtype, kCPU, -1, &copy_) != 0 ||
        aoti_torch_copy_(copy_, handle, 0) != 0) {
      fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, "its host copy failed");
    }
    tensor_ = unwrap(copy_, "host copy");
  }
  ~HostView() {
    if (copy_ != nullptr) (void)aoti_torch_delete_tensor_object(copy_);
  }
  HostView(const HostView&) = delete;
  HostView& operator=(const HostView&) = delete;

  const Tensor& operator*() const { return *tensor_; }
  const Tensor* operator->() const { return tensor_; }

 private:
  const Tensor* tensor_;
  AtenTensorHandle copy_ = nullptr;
};

}  // namespace shimgen::rt::cpu
