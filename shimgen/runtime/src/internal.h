// Internal declarations shared by the runtime's translation units. Nothing here is exported.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "shimgen_runtime/runtime.h"
#include "shimgen_runtime/shim.h"
#include "shimgen_runtime/shim_cuda.h"

namespace shimgen::rt {

constexpr int32_t kCPU = 0;
constexpr int64_t kMaxDims = 64;  // the most dimensions a tensor may have (checked when it is made)
constexpr int32_t kCUDA = 1;

// The one list of dtype codes: PyTorch's c10::ScalarType values, which the AOTI ABI passes as
// int32_t. Unscoped so a code compares with a Tensor's int32_t dtype directly. Runtime code uses these
// names, never literals and never the exported aoti_torch_dtype_*() getters (a getter is a shim call:
// it would count in shimgen_runtime_shim_call_count() as if the model had made it).
enum Dtype : int32_t {
  kUInt8 = 0,
  kInt8 = 1,
  kInt16 = 2,
  kInt32 = 3,
  kInt64 = 4,
  kFloat16 = 5,
  kFloat32 = 6,
  kFloat64 = 7,
  kComplex32 = 8,
  kComplex64 = 9,
  kComplex128 = 10,
  kBool = 11,
  kBFloat16 = 15,
  kFloat8_e5m2 = 23,
  kFloat8_e4m3fn = 24,
  kFloat8_e5m2fnuz = 25,
  kFloat8_e4m3fnuz = 26,
  kUInt16 = 27,
  kUInt32 = 28,
  kUInt64 = 29,
  kFloat8_e8m0fnu = 44,
  kFloat4_e2m1fn_x2 = 45,
};

// Thrown inside a shim; the shim boundary turns it into the return code and the last error.
struct ShimError : std::runtime_error {
  ShimError(int32_t code, const std::string& message) : std::runtime_error(message), code(code) {}
  int32_t code;
};

[[noreturn]] void fail(int32_t code, const std::string& message);
// Argument check: fails with InvalidArgument. A macro, so that `message` (usually a concatenation
// of std::strings) is built only when the check fails: checks sit on every shim call, and a model
// run makes dozens of them, where building each message eagerly cost a third of the runtime's time.
#define SHIMGEN_REQUIRE(ok, message)                                                   \
  do {                                                                                 \
    if (!(ok)) ::shimgen::rt::fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, (message)); \
  } while (0)

void count_shim_call() noexcept;
void set_last_error(const char* shim, const char* message) noexcept;

// Runs body(); maps exceptions to an error code and the thread's last error. Outputs are written
// by the body only after every check passed, so a failure leaves them untouched.
template <class Body> AOTITorchError run_guarded(const char* shim, Body&& body) noexcept {
  try {
    body();
    return AOTI_TORCH_SUCCESS;
  } catch (const ShimError& e) {
    set_last_error(shim, e.what());
    return e.code;
  } catch (const std::bad_alloc&) {
    set_last_error(shim, "out of memory");
    return SHIMGEN_RUNTIME_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    set_last_error(shim, e.what());
    return SHIMGEN_RUNTIME_ERROR_INTERNAL;
  } catch (...) {
    set_last_error(shim, "unknown exception");
    return SHIMGEN_RUNTIME_ERROR_INTERNAL;
  }
}

// A shim entry: counted (shimgen_runtime_shim_call_count), then guarded.
template <class Body> AOTITorchError guarded(const char* shim, Body&& body) noexcept {
  count_shim_call();
  return run_guarded(shim, static_cast<Body&&>(body));
}

// Element size of a dtype code, or 0 when the code is unknown.
size_t element_size(int32_t dtype) noexcept;

enum class MemoryKind { kHost, kHostPinned, kDevice, kBorrowed };

// One allocation, shared by every tensor handle and view made from it.
struct Storage {
  void* data = nullptr;
  int64_t nbytes = 0;
  int32_t device_type = kCPU;
  int32_t device_index = -1;
  MemoryKind kind = MemoryKind::kHost;
  // Holds a oneDNN-packed constant unpacked by unpack_mkldnn (mkldnn_layout.cpp), in oneDNN's
  // logical order: a transposed convolution's weight is then [O, I/g, *k], not torch's [I, O/g, *k].
  bool unpacked_mkldnn = false;
  Storage() = default;
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage();
};

struct Tensor {
  std::shared_ptr<Storage> storage;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t storage_offset = 0;  // in elements
  int32_t dtype = kFloat32;

  int64_t numel() const;
  size_t itemsize() const { return element_size(dtype); }
  char* data() const { return static_cast<char*>(storage->data) + storage_offset * static_cast<int64_t>(itemsize()); }
  bool is_contiguous() const;
  bool is_non_overlapping_and_dense() const;
};

// ---- Free lists (free_lists.cpp): per thread and bounded, so that a model run in steady state
// takes its tensor handles, storages and small host buffers from the previous run's and calls no
// malloc. Everything they hand out is ordinary heap memory (a Tensor from new_tensor() may also be
// deleted; a Storage is a shared_ptr as any other). ----
// Whether this build keeps anything (not under AddressSanitizer, which must see every free).
bool free_lists_kept() noexcept;
// An empty Tensor (a recycled one keeps its sizes/strides capacity).
std::unique_ptr<Tensor> new_tensor();
// Drops t (its storage reference first) and keeps the object for new_tensor(): what
// aoti_torch_delete_tensor_object does with a handle.
void delete_tensor(Tensor* t) noexcept;
// An empty Storage whose shared_ptr control block comes from the free list.
std::shared_ptr<Storage> new_storage();
// 64-byte aligned host memory for a CPU tensor's `nbytes` (> 0); nullptr when the heap is out.
void* host_alloc(size_t nbytes);
// Gives back what host_alloc(nbytes) returned.
void host_free(void* p, size_t nbytes) noexcept;
// The Storage control blocks' free list (new_storage's allocator).
void* block_alloc(size_t nbytes);
void block_free(void* p, size_t nbytes) noexcept;

Tensor* unwrap(AtenTensorHandle handle, const char* what);
AtenTensorHandle wrap(std::unique_ptr<Tensor> tensor) noexcept;

// ---- Overflow-checked index arithmetic: every product or sum of sizes, strides and offsets goes
// through these, so a huge stride is refused instead of wrapping past a bounds check. ----
// Inline: they run for every dimension of every tensor a shim makes; the error path is out of line.
[[noreturn]] void fail_overflow(int64_t a, char op, int64_t b, const char* what);
inline int64_t checked_mul(int64_t a, int64_t b, const char* what) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) fail_overflow(a, '*', b, what);
  return r;
}
inline int64_t checked_add(int64_t a, int64_t b, const char* what) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) fail_overflow(a, '+', b, what);
  return r;
}
// Elements from the first to one past the last addressed element (0 when the tensor is empty);
// refuses a span that does not fit in int64.
int64_t span_elements(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);
// PyTorch's infer_dense_strides: dense strides that keep the order of `strides` (what empty_like
// and clone give a tensor that is not itself non-overlapping and dense).
std::vector<int64_t> dense_strides_like(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);
// The same into out[0 .. sizes.size()), allocating nothing.
void dense_strides_like(const std::vector<int64_t>& sizes, const int64_t* strides, int64_t* out);
// Dense strides in the order of `strides` by infer_dense_strides' sort (innermost first by stride;
// zero strides and equal ones keep their place), even when `strides` is already dense: the order
// TensorIterator gives one operand's output (index_Tensor's result layout).
void dense_strides_in_order(const std::vector<int64_t>& sizes, const int64_t* strides, int64_t* out);
std::vector<int64_t> contiguous_strides_of(const std::vector<int64_t>& sizes);
// PyTorch's test for channels-last strides (c10's is_channels_last_strides_2d/3d: the channel dim
// innermost, then the spatial ones from last to first, then the batch; size-1 dims are ambiguous and
// resolved as c10 does). Convolution's output layout follows it on both devices, and the generated
// code indexes the result with the strides torch's meta function predicted from it.
bool channels_last_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);
// The channels-last strides of `sizes` (rank 3 or more: [N, C, spatial...]): C innermost, then the
// spatial dims from last to first, then N; c10's get_channels_last_strides_2d/3d, size-0 dims counted
// as 1 as contiguous_strides_of does. What torch's ops give a tensor whose input suggests channels-last.
std::vector<int64_t> channels_last_strides_of(const std::vector<int64_t>& sizes);
// Whether torch lays a convolution's output channels-last (then channels_last_strides_of): as its fake
// kernel decides, which is what the generated code checks the result's strides against. A 2-d or 3-d
// convolution: the input or the weight suggests channels-last (a 3-d one of float64 never: only oneDNN,
// which has no float64, lays 3-d convolutions channels-last on the CPU). A 1-d one: torch makes the
// input contiguous and views both with a size-1 height, so only the weight, viewed [F, C, 1, K], counts
// (WavLM's x-vector TDNN: a Linear's weight viewed and transposed into a convolution's).
bool convolution_output_channels_last(const Tensor& input, const Tensor& weight);
bool non_overlapping_and_dense(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);
bool non_overlapping_and_dense(const std::vector<int64_t>& sizes, const int64_t* strides);
// ATen's has_internal_overlap == Yes: not dense, and a dim of more than one element at stride 0 (more
// than one element in one place). require_no_internal_overlap refuses a tensor an op writes to with
// ATen's assert_no_internal_overlap message.
bool has_internal_overlap(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);
void require_no_internal_overlap(const Tensor& written);
// Two views of `sizes` that one flat copy of numel elements can move: the same stride on every
// dimension that has more than one element, and that layout non-overlapping and dense (a permuted
// contiguous block: no gap, no element twice, no broadcast). The CUDA backend's copy fast path.
bool same_dense_layout(const int64_t* dst_strides, const int64_t* src_strides, const std::vector<int64_t>& sizes);
// A new tensor with its own storage (validated like aoti_torch_empty_strided); the pointer form
// allocates nothing but the tensor (from the free lists).
std::unique_ptr<Tensor> empty_tensor(int64_t ndim, const int64_t* sizes, const int64_t* strides, int32_t dtype,
                                     int32_t device_type, int32_t device_index);
std::unique_ptr<Tensor> empty_tensor(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                     int32_t dtype, int32_t device_type, int32_t device_index);
// A oneDNN-packed ("mkldnn" layout) CPU constant unpacked into a new dense row-major tensor of the
// declared sizes, from its serialized memory descriptor `md` (mkldnn_layout.cpp documents the
// bytes read). Malformed or unsupported metadata is refused before anything is read from data.
std::unique_ptr<Tensor> unpack_mkldnn(const void* data, int64_t ndim, const int64_t* sizes, int32_t dtype,
                                      const uint8_t* md, int64_t md_size);

// ---- Memory and copies on a device: implemented by backend_cuda.cpp or backend_cpu_only.cpp ----
bool cuda_built() noexcept;
int32_t cuda_get_device();
void cuda_set_device(int32_t device);
int32_t cuda_resolve_device(int32_t device_index);   // -1 -> current device; validates the index
void* cuda_malloc(int32_t device, size_t nbytes);    // on the effective stream of device
void cuda_free(int32_t device, void* ptr) noexcept;  // on the effective stream of device
void* pinned_malloc(size_t nbytes);                  // page-locked host memory
void pinned_free(void* ptr, size_t nbytes) noexcept;
// Copies a strided view: dst/src are element pointers, strides in elements, src strides may be 0
// (broadcast). Handles every combination of CPU and CUDA pointers.
struct View {
  char* data;
  const int64_t* strides;
  int32_t device_type;
  int32_t device_index;
  bool pinned;
};
void copy_views(const View& dst, const View& src, const std::vector<int64_t>& sizes, size_t itemsize,
                bool non_blocking);
// Zeroes nbytes at dst.data: memset on the host, stream-ordered cudaMemsetAsync on a device.
void zero_block(const View& dst, size_t nbytes);
// Strided copy between two host views (used by the CUDA backend for staging too).
void host_strided_copy(char* dst, const int64_t* dst_strides, const char* src, const int64_t* src_strides,
                       const std::vector<int64_t>& sizes, size_t itemsize) noexcept;

// ---- Streams (caller_stream.cpp) ----
// The stream CUDA work for `device` must use on this thread (caller selection or current stream).
void* effective_stream(int32_t device) noexcept;
// The caller's selection, as the stream guards see it: stream, device (-1: any) and sequence.
struct CurrentStreamSlot {
  void* stream = nullptr;
  uint64_t seq = 0;  // 0: never set (the legacy default stream)
};
CurrentStreamSlot current_stream_slot(int32_t device) noexcept;
CurrentStreamSlot set_current_stream_slot(int32_t device, void* stream);  // returns the previous slot
void restore_current_stream_slot(int32_t device, CurrentStreamSlot previous);
// Device a CUDA stream belongs to; -1 for the legacy default stream (belongs to every device).
int32_t cuda_stream_device(void* stream);

}  // namespace shimgen::rt
