// Tensor handles: metadata, allocation, views and copies.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "internal.h"

namespace shimgen::rt {

Storage::~Storage() {
  if (data == nullptr) return;
  switch (kind) {
    case MemoryKind::kHost: host_free(data, static_cast<size_t>(nbytes)); break;
    case MemoryKind::kHostPinned: pinned_free(data, static_cast<size_t>(nbytes)); break;
    case MemoryKind::kDevice: cuda_free(device_index, data); break;
    case MemoryKind::kBorrowed: break;
  }
}

// Shapes are validated when a tensor is made (read_shape): numel and span fit in int64 there.
int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes) n = checked_mul(n, s, "numel");
  return n;
}

int64_t span_elements(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  for (int64_t s : sizes)
    if (s == 0) return 0;
  int64_t span = 1;
  for (size_t i = 0; i < sizes.size(); ++i)
    span = checked_add(span, checked_mul(sizes[i] - 1, strides[i], "extent"), "extent");
  return span;
}

bool channels_last_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  std::vector<size_t> order;
  if (sizes.size() == 4) order = {1, 3, 2, 0};
  else if (sizes.size() == 5) order = {1, 4, 3, 2, 0};
  else return false;
  if (strides[1] == 0) return false;
  int64_t min = 0;
  for (size_t d : order) {
    if (sizes[d] == 0) return false;
    if (strides[d] < min) return false;
    if (d == 0 && min == strides[1]) return false;  // N, C both size-1 ambiguity: not channels-last
    min = strides[d];
    if (sizes[d] > 1) min *= sizes[d];
  }
  return true;
}

bool convolution_output_channels_last(const Tensor& input, const Tensor& weight) {
  const std::vector<int64_t>& w = weight.sizes;
  if (w.size() == 3) {  // unsqueeze(2): a size-1 dim whose stride is the next dim's extent
    return channels_last_strides({w[0], w[1], 1, w[2]},
                                 {weight.strides[0], weight.strides[1], w[2] * weight.strides[2], weight.strides[2]});
  }
  if (w.size() == 5 && input.dtype == kFloat64) return false;
  return channels_last_strides(input.sizes, input.strides) || channels_last_strides(w, weight.strides);
}

std::vector<int64_t> channels_last_strides_of(const std::vector<int64_t>& sizes) {
  const size_t n = sizes.size();
  SHIMGEN_REQUIRE(n >= 3, "channels-last strides need [N, C, spatial...], got " + std::to_string(n) + " dims");
  std::vector<int64_t> strides(n);
  int64_t s = 1;
  auto next = [&](size_t d) {
    strides[d] = s;
    s = checked_mul(s, sizes[d] > 0 ? sizes[d] : 1, "channels-last stride");
  };
  next(1);
  for (size_t d = n; d-- > 2;) next(d);
  next(0);
  return strides;
}

std::vector<int64_t> contiguous_strides_of(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s = checked_mul(s, sizes[i] > 0 ? sizes[i] : 1, "contiguous stride");
  }
  return strides;
}

bool non_overlapping_and_dense(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  return non_overlapping_and_dense(sizes, strides.data());
}

bool has_internal_overlap(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  if (non_overlapping_and_dense(sizes, strides)) return false;
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] > 1 && strides[i] == 0) return true;
  return false;
}

void require_no_internal_overlap(const Tensor& written) {
  SHIMGEN_REQUIRE(!has_internal_overlap(written.sizes, written.strides),
                  "unsupported operation: more than one element of the written-to tensor refers to a single "
                  "memory location. Please clone() the tensor before performing the operation.");
}

bool same_dense_layout(const int64_t* dst_strides, const int64_t* src_strides, const std::vector<int64_t>& sizes) {
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] != 1 && dst_strides[i] != src_strides[i]) return false;
  return non_overlapping_and_dense(sizes, dst_strides);
}

bool non_overlapping_and_dense(const std::vector<int64_t>& sizes, const int64_t* strides) {
  // Dense: some permutation of the dimensions is contiguous. Size-1 dimensions never matter;
  // equal strides on two dimensions of size > 1 are an overlap, caught by the running product.
  // The order is sorted on the stack (tensors have at most kMaxDims dimensions): this runs on
  // every tensor an op allocates, and allocates nothing.
  for (int64_t s : sizes)
    if (s == 0) return true;
  size_t stack[kMaxDims];
  std::vector<size_t> heap(sizes.size() > static_cast<size_t>(kMaxDims) ? sizes.size() : 0);
  size_t* order = heap.empty() ? stack : heap.data();
  size_t n = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 1) continue;
    size_t at = n++;  // insertion sort by stride, stable
    for (; at > 0 && strides[order[at - 1]] > strides[i]; --at) order[at] = order[at - 1];
    order[at] = i;
  }
  int64_t expected = 1;
  for (size_t k = 0; k < n; ++k) {
    if (strides[order[k]] != expected) return false;
    expected *= sizes[order[k]];  // bounded by numel, validated at creation
  }
  return true;
}

void dense_strides_like(const std::vector<int64_t>& sizes, const int64_t* strides, int64_t* out) {
  if (non_overlapping_and_dense(sizes, strides)) {
    std::copy(strides, strides + sizes.size(), out);
    return;
  }
  dense_strides_in_order(sizes, strides, out);
}

void dense_strides_in_order(const std::vector<int64_t>& sizes, const int64_t* strides, int64_t* out) {
  const size_t n = sizes.size();
  // perm[0] is the innermost dimension; ties and zero strides keep the default (last dim innermost).
  size_t stack[kMaxDims];
  std::vector<size_t> heap(n > static_cast<size_t>(kMaxDims) ? n : 0);
  size_t* perm = heap.empty() ? stack : heap.data();
  for (size_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
  auto should_swap = [&](size_t d0, size_t d1) {
    if (strides[d0] == 0 || strides[d1] == 0) return 0;
    if (strides[d0] < strides[d1]) return -1;
    if (strides[d0] > strides[d1]) return 1;
    return sizes[d0] > sizes[d1] ? 1 : 0;
  };
  for (size_t i = 1; i < n; ++i) {
    size_t d1 = i;
    for (size_t d0 = i; d0-- > 0;) {
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  int64_t current = 1;
  for (size_t i = 0; i < n; ++i) {
    out[perm[i]] = current;
    current = checked_mul(current, sizes[perm[i]] > 0 ? sizes[perm[i]] : 1, "dense stride");
  }
}

std::vector<int64_t> dense_strides_like(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  std::vector<int64_t> out(sizes.size());
  dense_strides_like(sizes, strides.data(), out.data());
  return out;
}

bool Tensor::is_contiguous() const {
  if (numel() == 0) return true;  // as in PyTorch: an empty tensor is contiguous
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;  // a size-1 dimension's stride never matters
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

bool Tensor::is_non_overlapping_and_dense() const { return non_overlapping_and_dense(sizes, strides); }

Tensor* unwrap(AtenTensorHandle handle, const char* what) {
  SHIMGEN_REQUIRE(handle != nullptr, std::string(what) + " is a null tensor handle");
  return reinterpret_cast<Tensor*>(handle);
}

AtenTensorHandle wrap(std::unique_ptr<Tensor> tensor) noexcept {
  return reinterpret_cast<AtenTensorHandle>(tensor.release());
}

namespace {

std::string str(int64_t v) { return std::to_string(v); }

void check_dtype(int32_t dtype) { SHIMGEN_REQUIRE(element_size(dtype) != 0, "unknown dtype code " + str(dtype)); }

// Reads and validates sizes/strides; null strides means contiguous (as in PyTorch's shims).
void read_shape(int64_t ndim, const int64_t* sizes_ptr, const int64_t* strides_ptr, std::vector<int64_t>& sizes,
                std::vector<int64_t>& strides) {
  SHIMGEN_REQUIRE(ndim >= 0 && ndim <= kMaxDims, "ndim " + str(ndim) + " is out of range [0, " + str(kMaxDims) + "]");
  SHIMGEN_REQUIRE(ndim == 0 || sizes_ptr != nullptr, "sizes_ptr is null");
  sizes.assign(sizes_ptr, sizes_ptr + ndim);
  for (int64_t i = 0; i < ndim; ++i)
    SHIMGEN_REQUIRE(sizes[i] >= 0, "size " + str(sizes[i]) + " at dim " + str(i) + " is negative");
  strides.resize(static_cast<size_t>(ndim));
  if (strides_ptr != nullptr) {
    for (int64_t i = 0; i < ndim; ++i) {
      SHIMGEN_REQUIRE(strides_ptr[i] >= 0, "stride " + str(strides_ptr[i]) + " at dim " + str(i) + " is negative");
      strides[i] = strides_ptr[i];
    }
  } else {  // contiguous, computed in place (no temporary vector)
    int64_t step = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
      strides[i] = step;
      step = checked_mul(step, sizes[i] > 0 ? sizes[i] : 1, "contiguous stride");
    }
  }
  // Both must fit in int64, so no later product or sum over this shape can wrap.
  int64_t numel = 1;
  for (int64_t s : sizes) numel = checked_mul(numel, s, "numel");
  (void)span_elements(sizes, strides);
}

// Byte count for an allocation of `elements`, rejecting overflow.
size_t byte_count(int64_t elements, size_t itemsize) {
  SHIMGEN_REQUIRE(elements >= 0 && static_cast<uint64_t>(elements) <= std::numeric_limits<int64_t>::max() / itemsize,
                  "tensor too large");
  return static_cast<size_t>(elements) * itemsize;
}

void check_device(int32_t device_type, int32_t device_index) {
  if (device_type == kCPU) return;
  if (device_type == kCUDA) {
    if (!cuda_built())
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "CUDA tensor requested, but this runtime was built without CUDA");
    return;
  }
  (void)device_index;
  fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "device type " + str(device_type) + " is not supported (CPU=0, CUDA=1)");
}

std::unique_ptr<Tensor> allocate(int64_t ndim, const int64_t* sizes_ptr, const int64_t* strides_ptr, int32_t dtype,
                                 int32_t device_type, int32_t device_index, bool pinned) {
  check_dtype(dtype);
  check_device(device_type, device_index);
  auto tensor = new_tensor();
  read_shape(ndim, sizes_ptr, strides_ptr, tensor->sizes, tensor->strides);
  tensor->dtype = dtype;
  auto storage = new_storage();
  storage->nbytes =
      static_cast<int64_t>(byte_count(span_elements(tensor->sizes, tensor->strides), element_size(dtype)));
  storage->device_type = device_type;
  size_t nbytes = static_cast<size_t>(storage->nbytes);
  if (pinned) {
    SHIMGEN_REQUIRE(device_type == kCPU,
                    "pinned memory is host memory: device_type must be CPU (0), not " + str(device_type));
    storage->kind = MemoryKind::kHostPinned;
    storage->data = nbytes ? pinned_malloc(nbytes) : nullptr;
  } else if (device_type == kCPU) {
    storage->kind = MemoryKind::kHost;
    if (nbytes) {
      storage->data = host_alloc(nbytes);  // 64-byte aligned, from this thread's free list when it can
      if (!storage->data)
        fail(SHIMGEN_RUNTIME_ERROR_OUT_OF_MEMORY, "host allocation of " + str(storage->nbytes) + " bytes failed");
    }
  } else {
    storage->device_index = cuda_resolve_device(device_index);
    storage->kind = MemoryKind::kDevice;
    storage->data = nbytes ? cuda_malloc(storage->device_index, nbytes) : nullptr;
  }
  tensor->storage = std::move(storage);
  return tensor;
}

std::unique_ptr<Tensor> from_blob(void* data, int64_t ndim, const int64_t* sizes_ptr, const int64_t* strides_ptr,
                                  int64_t storage_offset, int32_t dtype, int32_t device_type, int32_t device_index) {
  check_dtype(dtype);
  check_device(device_type, device_index);
  SHIMGEN_REQUIRE(storage_offset >= 0, "storage_offset " + str(storage_offset) + " is negative");
  auto tensor = new_tensor();
  read_shape(ndim, sizes_ptr, strides_ptr, tensor->sizes, tensor->strides);
  int64_t span = span_elements(tensor->sizes, tensor->strides);
  SHIMGEN_REQUIRE(data != nullptr || span == 0, "data is null for a non-empty tensor");
  tensor->dtype = dtype;
  tensor->storage_offset = storage_offset;
  // Everything that can throw comes before the Storage owns `data`: a Storage is made with kind
  // kHost, and one destroyed by a failed check would free the caller's (borrowed) memory.
  const int64_t nbytes =
      static_cast<int64_t>(byte_count(checked_add(storage_offset, span, "storage extent"), element_size(dtype)));
  const int32_t index = device_type == kCUDA ? cuda_resolve_device(device_index) : -1;
  auto storage = new_storage();
  storage->kind = MemoryKind::kBorrowed;
  storage->data = data;
  storage->nbytes = nbytes;
  storage->device_type = device_type;
  storage->device_index = index;
  tensor->storage = std::move(storage);
  return tensor;
}

View view_of(const Tensor& t) {
  return View{t.data(), t.strides.data(), t.storage->device_type, t.storage->device_index,
              t.storage->kind == MemoryKind::kHostPinned};
}

// A new tensor on self's device holding a copy of self, with the given strides.
std::unique_ptr<Tensor> copy_with_strides(const Tensor& self, const std::vector<int64_t>& strides) {
  auto out = allocate(static_cast<int64_t>(self.sizes.size()), self.sizes.data(), strides.data(), self.dtype,
                      self.storage->device_type, self.storage->device_index, false);
  if (self.numel() > 0) copy_views(view_of(*out), view_of(self), self.sizes, self.itemsize(), false);
  return out;
}

}  // namespace

std::unique_ptr<Tensor> empty_tensor(int64_t ndim, const int64_t* sizes, const int64_t* strides, int32_t dtype,
                                     int32_t device_type, int32_t device_index) {
  return allocate(ndim, sizes, strides, dtype, device_type, device_index, false);
}

std::unique_ptr<Tensor> empty_tensor(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                     int32_t dtype, int32_t device_type, int32_t device_index) {
  SHIMGEN_REQUIRE(sizes.size() == strides.size(), "sizes and strides differ in length");
  return allocate(static_cast<int64_t>(sizes.size()), sizes.data(), strides.data(), dtype, device_type, device_index,
                  false);
}

}  // namespace shimgen::rt

using namespace shimgen::rt;

extern "C" {

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_delete_tensor_object(AtenTensorHandle tensor) {
  return guarded(__func__, [&] { delete_tensor(unwrap(tensor, "tensor")); });
}

#define SHIMGEN_GETTER(name, type, expr)                                     \
  AOTI_SHIM_EXPORT AOTITorchError name(AtenTensorHandle tensor, type* ret) { \
    return guarded(#name, [&] {                                              \
      const Tensor* t = unwrap(tensor, "tensor");                            \
      SHIMGEN_REQUIRE(ret != nullptr, "output pointer is null");             \
      *ret = (expr);                                                         \
    });                                                                      \
  }

SHIMGEN_GETTER(aoti_torch_get_data_ptr, void*, static_cast<void*>(t->data()))
SHIMGEN_GETTER(aoti_torch_get_storage_size, int64_t, t->storage->nbytes)
SHIMGEN_GETTER(aoti_torch_get_storage_numel, int64_t, t->storage->nbytes / static_cast<int64_t>(t->itemsize()))
SHIMGEN_GETTER(aoti_torch_get_dim, int64_t, static_cast<int64_t>(t->sizes.size()))
SHIMGEN_GETTER(aoti_torch_get_numel, int64_t, t->numel())
SHIMGEN_GETTER(aoti_torch_get_sizes, int64_t*, const_cast<int64_t*>(t->sizes.data()))
SHIMGEN_GETTER(aoti_torch_get_strides, int64_t*, const_cast<int64_t*>(t->strides.data()))
SHIMGEN_GETTER(aoti_torch_get_dtype, int32_t, t->dtype)
SHIMGEN_GETTER(aoti_torch_get_device_type, int32_t, t->storage->device_type)
SHIMGEN_GETTER(aoti_torch_get_device_index, int32_t, t->storage->device_index)
SHIMGEN_GETTER(aoti_torch_get_layout, int32_t, (static_cast<void>(t), 0))  // strided: the only layout here
SHIMGEN_GETTER(aoti_torch_get_storage_offset, int64_t, t->storage_offset)
SHIMGEN_GETTER(aoti_torch_is_contiguous, bool, t->is_contiguous())

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_size(AtenTensorHandle tensor, int64_t d, int64_t* ret_size) {
  return guarded(__func__, [&] {
    const Tensor* t = unwrap(tensor, "tensor");
    SHIMGEN_REQUIRE(ret_size != nullptr, "output pointer is null");
    int64_t dim = static_cast<int64_t>(t->sizes.size());
    SHIMGEN_REQUIRE(d >= -dim && d < dim,
                    "dimension " + std::to_string(d) + " out of range for a " + std::to_string(dim) + "-d tensor");
    *ret_size = t->sizes[static_cast<size_t>(d < 0 ? d + dim : d)];
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_stride(AtenTensorHandle tensor, int64_t d, int64_t* ret_stride) {
  return guarded(__func__, [&] {
    const Tensor* t = unwrap(tensor, "tensor");
    SHIMGEN_REQUIRE(ret_stride != nullptr, "output pointer is null");
    int64_t dim = static_cast<int64_t>(t->sizes.size());
    SHIMGEN_REQUIRE(d >= -dim && d < dim,
                    "dimension " + std::to_string(d) + " out of range for a " + std::to_string(dim) + "-d tensor");
    *ret_stride = t->strides[static_cast<size_t>(d < 0 ? d + dim : d)];
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_new_tensor_handle(AtenTensorHandle orig_handle,
                                                             AtenTensorHandle* new_handle) {
  return guarded(__func__, [&] {
    const Tensor* t = unwrap(orig_handle, "orig_handle");
    SHIMGEN_REQUIRE(new_handle != nullptr, "new_handle is null");
    auto copy = new_tensor();
    *copy = *t;
    *new_handle = wrap(std::move(copy));
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch__reinterpret_tensor(AtenTensorHandle self, int64_t ndim,
                                                               const int64_t* sizes_ptr, const int64_t* strides_ptr,
                                                               int64_t storage_offset,
                                                               AtenTensorHandle* ret_new_tensor) {
  return guarded(__func__, [&] {
    const Tensor* t = unwrap(self, "self");
    SHIMGEN_REQUIRE(ret_new_tensor != nullptr, "ret_new_tensor is null");
    SHIMGEN_REQUIRE(strides_ptr != nullptr || ndim == 0, "strides_ptr is null");
    auto view = new_tensor();
    read_shape(ndim, sizes_ptr, strides_ptr, view->sizes, view->strides);
    view->storage = t->storage;
    view->dtype = t->dtype;
    view->storage_offset = checked_add(t->storage_offset, storage_offset, "storage offset");
    SHIMGEN_REQUIRE(view->storage_offset >= 0,
                    "resulting storage offset " + std::to_string(view->storage_offset) + " is negative");
    // PyTorch does not check; a view past the storage would read or write foreign memory. Checked
    // arithmetic: a wrapped product would pass this test and let a later copy run off the storage.
    int64_t end =
        checked_mul(checked_add(view->storage_offset, span_elements(view->sizes, view->strides), "view extent"),
                    static_cast<int64_t>(view->itemsize()), "view extent in bytes");
    SHIMGEN_REQUIRE(view->numel() == 0 || end <= t->storage->nbytes, "view ends at byte " + std::to_string(end) +
                                                                         ", past the storage's " +
                                                                         std::to_string(t->storage->nbytes) + " bytes");
    *ret_new_tensor = wrap(std::move(view));
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_empty_strided(int64_t ndim, const int64_t* sizes_ptr,
                                                         const int64_t* strides_ptr, int32_t dtype, int32_t device_type,
                                                         int32_t device_index, AtenTensorHandle* ret_new_tensor) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret_new_tensor != nullptr, "ret_new_tensor is null");
    *ret_new_tensor = wrap(allocate(ndim, sizes_ptr, strides_ptr, dtype, device_type, device_index, false));
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_empty_strided_pinned(int64_t ndim, const int64_t* sizes_ptr,
                                                                const int64_t* strides_ptr, int32_t dtype,
                                                                int32_t device_type, int32_t device_index,
                                                                AtenTensorHandle* ret_new_tensor) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret_new_tensor != nullptr, "ret_new_tensor is null");
    *ret_new_tensor = wrap(allocate(ndim, sizes_ptr, strides_ptr, dtype, device_type, device_index, true));
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_create_tensor_from_blob(void* data, int64_t ndim, const int64_t* sizes_ptr,
                                                                   const int64_t* strides_ptr, int64_t storage_offset,
                                                                   int32_t dtype, int32_t device_type,
                                                                   int32_t device_index, AtenTensorHandle* ret) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret != nullptr, "ret is null");
    *ret = wrap(from_blob(data, ndim, sizes_ptr, strides_ptr, storage_offset, dtype, device_type, device_index));
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_create_tensor_from_blob_v2(
    void* data, int64_t ndim, const int64_t* sizes_ptr, const int64_t* strides_ptr, int64_t storage_offset,
    int32_t dtype, int32_t device_type, int32_t device_index, AtenTensorHandle* ret, int32_t layout,
    const uint8_t* opaque_metadata, int64_t opaque_metadata_size) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret != nullptr, "ret is null");
    SHIMGEN_REQUIRE(opaque_metadata_size >= 0, "opaque_metadata_size is negative");
    // Only strided tensors exist here. A oneDNN-packed constant (freezing=True's prepacked weights,
    // layout _mkldnn = 3) is unpacked once into a dense tensor the runtime owns; its strides
    // argument is meaningless (inductor writes {1, 0, ...}) and is not read.
    if (layout == 3) {
      check_dtype(dtype);
      SHIMGEN_REQUIRE(device_type == kCPU, "an mkldnn-layout constant must be on the CPU");
      SHIMGEN_REQUIRE(storage_offset == 0, "an mkldnn-layout constant has storage offset " + str(storage_offset));
      SHIMGEN_REQUIRE(ndim >= 0 && (sizes_ptr != nullptr || ndim == 0), "sizes is null");
      *ret = wrap(unpack_mkldnn(data, ndim, sizes_ptr, dtype, opaque_metadata, opaque_metadata_size));
      return;
    }
    if (layout != 0)
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
           "layout " + std::to_string(layout) + " is not supported (strided 0, _mkldnn 3)");
    *ret = wrap(from_blob(data, ndim, sizes_ptr, strides_ptr, storage_offset, dtype, device_type, device_index));
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_clone(AtenTensorHandle self, AtenTensorHandle* ret) {
  return guarded(__func__, [&] {
    const Tensor* t = unwrap(self, "self");
    SHIMGEN_REQUIRE(ret != nullptr, "ret is null");
    // torch.clone() (preserve_format) keeps a dense tensor's strides and gives anything else
    // (overlapping, gapped, broadcast) dense strides in the same dimension order.
    *ret = wrap(copy_with_strides(*t, dense_strides_like(t->sizes, t->strides)));
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_clone_preserve_strides(AtenTensorHandle self, AtenTensorHandle* ret) {
  return guarded(__func__, [&] {
    const Tensor* t = unwrap(self, "self");
    SHIMGEN_REQUIRE(ret != nullptr, "ret is null");
    // Same sizes and strides, even overlapping or gapped ones: copy the whole addressed span.
    int64_t span = span_elements(t->sizes, t->strides);
    std::vector<int64_t> one{span};
    std::vector<int64_t> unit{1};
    auto flat_src = Tensor{t->storage, one, unit, t->storage_offset, t->dtype};
    auto flat = copy_with_strides(flat_src, unit);
    flat->sizes = t->sizes;
    flat->strides = t->strides;
    *ret = wrap(std::move(flat));
  });
}

// self (complex64/128, CPU) = src (float32/64, CPU, strides already broadcast to self's sizes) + 0i.
static void copy_real_to_complex(const Tensor& dst, const Tensor& src, const std::vector<int64_t>& src_strides) {
  const size_t nd = dst.sizes.size();
  std::vector<int64_t> index(nd, 0);
  const int64_t n = dst.numel();
  for (int64_t i = 0; i < n; ++i) {
    int64_t d_off = 0, s_off = 0;
    for (size_t k = 0; k < nd; ++k) {
      d_off += index[k] * dst.strides[k];
      s_off += index[k] * src_strides[k];
    }
    const double v = src.dtype == kFloat32 ? static_cast<double>(reinterpret_cast<const float*>(src.data())[s_off])
                                           : reinterpret_cast<const double*>(src.data())[s_off];
    if (dst.dtype == kComplex64) {
      reinterpret_cast<float*>(dst.data())[2 * d_off] = static_cast<float>(v);
      reinterpret_cast<float*>(dst.data())[2 * d_off + 1] = 0.0f;
    } else {
      reinterpret_cast<double*>(dst.data())[2 * d_off] = v;
      reinterpret_cast<double*>(dst.data())[2 * d_off + 1] = 0.0;
    }
    for (size_t k = nd; k-- > 0;) {
      if (++index[k] < dst.sizes[k]) break;
      index[k] = 0;
    }
  }
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_zero_(AtenTensorHandle self) {
  return guarded(__func__, [&] {
    const Tensor* t = unwrap(self, "self");
    check_device(t->storage->device_type, t->storage->device_index);
    const int64_t n = t->numel();
    if (n == 0) return;
    if (non_overlapping_and_dense(t->sizes, t->strides)) {  // strides >= 0: element 0 is the lowest address
      zero_block(view_of(*t), static_cast<size_t>(n) * t->itemsize());
      return;
    }
    // A gapped or overlapping view: only its own elements, from one zero element broadcast.
    const std::vector<int64_t> broadcast(t->sizes.size(), 0);
    alignas(16) char zero[16] = {};  // the widest element (complex128)
    copy_views(view_of(*t), View{zero, broadcast.data(), kCPU, -1, false}, t->sizes, t->itemsize(), false);
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_copy_(AtenTensorHandle self, AtenTensorHandle src, int32_t non_blocking) {
  return guarded(__func__, [&] {
    const Tensor* dst = unwrap(self, "self");
    const Tensor* from = unwrap(src, "src");
    // The one conversion served: a real float32/64 src into a complex64/128 self (imaginary part 0),
    // which is how AOTInductor promotes a real tensor before a complex fallback (FNet's FFT). On the
    // CPU any widths; with a device on either side the widths must pair (float32 -> complex64,
    // float64 -> complex128), and the parts are two strided copies.
    const bool host_only = dst->storage->device_type == kCPU && from->storage->device_type == kCPU;
    const bool to_complex =
        (dst->dtype == kComplex64 && (from->dtype == kFloat32 || (host_only && from->dtype == kFloat64))) ||
        (dst->dtype == kComplex128 && (from->dtype == kFloat64 || (host_only && from->dtype == kFloat32)));
    if (dst->dtype != from->dtype && !to_complex) {
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "dtype conversion in copy_ is not supported (self dtype " +
                                                  std::to_string(dst->dtype) + ", src dtype " +
                                                  std::to_string(from->dtype) + ")");
    }
    check_device(dst->storage->device_type, dst->storage->device_index);
    check_device(from->storage->device_type, from->storage->device_index);
    // Broadcast src to self's sizes (right-aligned; size-1 or missing dimensions get stride 0).
    size_t nd = dst->sizes.size();
    SHIMGEN_REQUIRE(from->sizes.size() <= nd, "src has more dimensions than self");
    std::vector<int64_t> src_strides(nd, 0);
    size_t lead = nd - from->sizes.size();
    for (size_t i = 0; i < from->sizes.size(); ++i) {
      int64_t have = from->sizes[i], want = dst->sizes[lead + i];
      SHIMGEN_REQUIRE(have == want || have == 1, "src size " + std::to_string(have) +
                                                     " cannot broadcast to self size " + std::to_string(want) +
                                                     " at dim " + std::to_string(lead + i));
      src_strides[lead + i] = have == 1 && want != 1 ? 0 : from->strides[i];
    }
    if (dst->numel() == 0) return;
    if (to_complex && host_only) {
      copy_real_to_complex(*dst, *from, src_strides);
      return;
    }
    if (to_complex) {  // self seen as (real, imaginary) pairs of src's dtype: src into the real parts, 0 into the
                       // others
      std::vector<int64_t> pair_strides(nd), zeros(nd, 0);
      for (size_t k = 0; k < nd; ++k) pair_strides[k] = checked_mul(dst->strides[k], 2, "stride");
      View real = view_of(*dst);
      real.strides = pair_strides.data();
      View s = view_of(*from);
      s.strides = src_strides.data();
      copy_views(real, s, dst->sizes, from->itemsize(), non_blocking != 0);
      const double zero = 0.0;  // 0.0f's bytes are a prefix of 0.0's
      View imag = real;
      imag.data += from->itemsize();
      copy_views(imag, View{const_cast<char*>(reinterpret_cast<const char*>(&zero)), zeros.data(), kCPU, -1, false},
                 dst->sizes, from->itemsize(), false);
      return;
    }
    View d = view_of(*dst);
    View s = view_of(*from);
    s.strides = src_strides.data();
    copy_views(d, s, dst->sizes, dst->itemsize(), non_blocking != 0);
  });
}

}  // extern "C"
