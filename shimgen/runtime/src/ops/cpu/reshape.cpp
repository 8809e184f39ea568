// aoti_torch_cpu_reshape: torch.reshape. A view sharing self's storage when ATen's computeStride
// finds strides that address self's elements in `shape`'s row-major order (any contiguous self,
// and many strided ones: a permuted tensor merged along dims that stay adjacent in memory); else a
// new contiguous copy, as torch's _unsafe_view(self.clone(contiguous)). Inductor reshapes real
// tensors itself and falls back for complex ones (the FNO's spectral einsum, a complex linear's
// flattening). views::reshape serves the CUDA shim too: the copy is a copy on self's device.
#include <algorithm>
#include <string>

#include "../views.h"
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

std::string list(const int64_t* values, int64_t n) {
  std::string out = "[";
  for (int64_t i = 0; i < n; ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

// ATen's infer_size: shape with its one -1 replaced so that it holds numel elements (its messages).
std::vector<int64_t> infer_size(const int64_t* shape, int64_t n, int64_t numel) {
  SHIMGEN_REQUIRE(n >= 0 && (shape != nullptr || n == 0), "reshape: shape is null");
  std::vector<int64_t> out(shape, shape + n);
  int64_t product = 1, inferred = -1;
  for (int64_t d = 0; d < n; ++d) {
    if (shape[d] == -1) {
      SHIMGEN_REQUIRE(inferred < 0, "only one dimension can be inferred");
      inferred = d;
    } else {
      SHIMGEN_REQUIRE(shape[d] >= 0, "invalid shape dimension " + std::to_string(shape[d]) + " at index " +
                                         std::to_string(d) + " of shape " + list(shape, n));
      product = checked_mul(product, shape[d], "reshape size");
    }
  }
  if (numel == product || (inferred >= 0 && product > 0 && numel % product == 0)) {
    if (inferred >= 0) {
      SHIMGEN_REQUIRE(product != 0, "cannot reshape tensor of 0 elements into shape " + list(shape, n) +
                                        " because the unspecified dimension size -1 can be any value and is ambiguous");
      out[static_cast<size_t>(inferred)] = numel / product;
    }
    return out;
  }
  fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT,
       "shape '" + list(shape, n) + "' is invalid for input of size " + std::to_string(numel));
}

}  // namespace

bool shimgen::rt::views::view_strides(const Tensor& in, const std::vector<int64_t>& shape,
                                      std::vector<int64_t>* strides) {
  // ATen's computeStride (TensorUtils.cpp), step for step.
  const std::vector<int64_t>& old_shape = in.sizes;
  const std::vector<int64_t>& old_stride = in.strides;
  if (old_shape.empty()) {
    strides->assign(shape.size(), 1);
    return true;
  }
  int64_t numel = 1;
  for (int64_t s : old_shape) numel *= s;  // validated when the tensor was made
  if (numel == 0 && old_shape == shape) {
    *strides = old_stride;
    return true;
  }
  std::vector<int64_t> out(shape.size(), 0);
  if (numel == 0) {
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      const size_t i = static_cast<size_t>(d);
      out[i] = d == static_cast<int64_t>(shape.size()) - 1
                   ? 1
                   : checked_mul(std::max<int64_t>(shape[i + 1], 1), out[i + 1], "reshape stride");
    }
    *strides = std::move(out);
    return true;
  }
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = old_stride.back();  // the stride of each subspace in the chunk
  int64_t tensor_numel = 1, view_numel = 1;       // elements in the current chunk
  for (int64_t tensor_d = static_cast<int64_t>(old_shape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= old_shape[static_cast<size_t>(tensor_d)];
    // At the end of a chunk of dims laid out contiguously with each other, match the view's dims.
    int64_t chunk_stride = 0;  // where the next dim out must step for the chunk to go on
    const bool wraps = __builtin_mul_overflow(tensor_numel, chunk_base_stride, &chunk_stride);
    if (tensor_d == 0 || (old_shape[static_cast<size_t>(tensor_d - 1)] != 1 &&
                          (wraps || old_stride[static_cast<size_t>(tensor_d - 1)] != chunk_stride))) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[static_cast<size_t>(view_d)] == 1)) {
        out[static_cast<size_t>(view_d)] = checked_mul(view_numel, chunk_base_stride, "reshape stride");
        view_numel *= shape[static_cast<size_t>(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (tensor_d > 0) {
        chunk_base_stride = old_stride[static_cast<size_t>(tensor_d - 1)];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return false;
  *strides = std::move(out);
  return true;
}

std::unique_ptr<Tensor> shimgen::rt::views::reshape(const Tensor& in, const int64_t* shape, int64_t shape_len) {
  const std::vector<int64_t> sizes = infer_size(shape, shape_len, in.numel());
  std::vector<int64_t> strides;
  if (view_strides(in, sizes, &strides)) {
    auto view = alias(in);
    view->sizes = sizes;
    view->strides = std::move(strides);
    return view;
  }
  // No view: a contiguous copy on self's device (copy_views moves host and device memory alike).
  auto out = empty_tensor(in.sizes, contiguous_strides_of(in.sizes), in.dtype, in.storage->device_type,
                          in.storage->device_index);
  if (in.numel() > 0) {
    const View to{out->data(), out->strides.data(), out->storage->device_type, out->storage->device_index,
                  out->storage->kind == MemoryKind::kHostPinned};
    const View from{in.data(), in.strides.data(), in.storage->device_type, in.storage->device_index,
                    in.storage->kind == MemoryKind::kHostPinned};
    copy_views(to, from, in.sizes, in.itemsize(), false);
  }
  out->sizes = sizes;
  out->strides = contiguous_strides_of(sizes);
  return out;
}

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_reshape(AtenTensorHandle self, const int64_t* shape,
                                                                  int64_t shape_len_, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    *ret0 = wrap(views::reshape(in, shape, shape_len_));
  });
}
