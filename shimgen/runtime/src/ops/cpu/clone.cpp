// aten::clone with a memory format (inductor clones complex tensors through the proxy executor:
// the FNO einsum's permuted spectrum made contiguous before its bmm, x.conj() materialised,
// .contiguous(memory_format=...) of a complex tensor; real ones it copies itself). torch's layout
// rule: preserve_format keeps a non-overlapping and dense self's strides and gives any other self
// dense strides in its dims' order (empty_like's infer_dense_strides); contiguous_format,
// channels_last (4-d) and channels_last_3d (5-d) give those layouts. Any dtype (a copy of the
// bytes), any device: a new tensor on self's device filled by a strided copy there.
#include <cstring>
#include <string>

#include "../proxy_ops.h"
#include "cpu_op.h"

using namespace shimgen::rt;

namespace shimgen::rt::proxy_ops {

std::vector<int64_t> clone_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                   int64_t memory_format) {
  switch (memory_format) {
    case kPreserveFormat: return dense_strides_like(sizes, strides);
    case kContiguousFormat: return contiguous_strides_of(sizes);
    case kChannelsLast:
      SHIMGEN_REQUIRE(sizes.size() == 4, "required rank 4 tensor to use channels_last format");
      return channels_last_strides_of(sizes);
    case kChannelsLast3d:
      SHIMGEN_REQUIRE(sizes.size() == 5, "required rank 5 tensor to use channels_last_3d format");
      return channels_last_strides_of(sizes);
    default:
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
           "clone: memory format " + std::to_string(memory_format) +
               " is not served (preserve, contiguous, channels_last, channels_last_3d)");
  }
}

std::unique_ptr<Tensor> clone_preserve_strides(const Tensor& self) {
  if (has_internal_overlap(self.sizes, self.strides)) {
    auto out = empty_tensor(self.sizes, clone_strides(self.sizes, self.strides, kPreserveFormat), self.dtype, kCPU, -1);
    if (self.numel() > 0)
      host_strided_copy(out->data(), out->strides.data(), self.data(), self.strides.data(), self.sizes,
                        self.itemsize());
    return out;
  }
  const int64_t count = self.storage->nbytes / static_cast<int64_t>(self.itemsize());
  auto out = empty_tensor({count}, {1}, self.dtype, kCPU, -1);
  if (count > 0) std::memcpy(out->data(), self.storage->data, static_cast<size_t>(count) * self.itemsize());
  out->sizes = self.sizes;
  out->strides = self.strides;
  out->storage_offset = self.storage_offset;
  return out;
}

AtenTensorHandle clone(AtenTensorHandle self, int64_t memory_format) {
  const Tensor& in = *unwrap(self, "self");
  SHIMGEN_REQUIRE(element_size(in.dtype) != 0, "clone: unknown dtype code " + std::to_string(in.dtype));
  const std::vector<int64_t> strides = clone_strides(in.sizes, in.strides, memory_format);
  auto out = empty_tensor(in.sizes, strides, in.dtype, in.storage->device_type, in.storage->device_index);
  if (in.numel() > 0) {
    const View to{out->data(), out->strides.data(), out->storage->device_type, out->storage->device_index,
                  out->storage->kind == MemoryKind::kHostPinned};
    const View from{in.data(), in.strides.data(), in.storage->device_type, in.storage->device_index,
                    in.storage->kind == MemoryKind::kHostPinned};
    copy_views(to, from, in.sizes, in.itemsize(), false);
  }
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
