// The device backend of a CUDA build. Allocations and copies run on the effective stream (the
// caller's selection, else the runtime's current stream of the device); a block is freed on the
// stream it was allocated on, ordered after the stream current at free time. Device-to-device copies
// never synchronise the host (they work under CUDA graph capture). Pinned memory is cudaHostAlloc'd
// and freed with cudaFreeHost.
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "cuda_internal.h"
#include "internal.h"

namespace shimgen::rt {

// strided_copy.cu
void launch_strided_copy(char* dst, const int64_t* dst_strides, const char* src, const int64_t* src_strides,
                         const std::vector<int64_t>& sizes, size_t itemsize, cudaStream_t stream);
void preload_strided_copy_kernels();  // strided_copy.cu
void preload_op_kernels();            // cuda_ops.cu

namespace {

bool query_pools_supported(int32_t device) {
  int value = 0;
  return cudaDeviceGetAttribute(&value, cudaDevAttrMemoryPoolsSupported, device) == cudaSuccess && value != 0;
}

// Asked of the driver once per device (the attribute cannot change), not on every allocation and
// free: a model run allocates and frees each intermediate.
bool pools_supported(int32_t device) {
  constexpr int32_t kCached = 64;
  static std::atomic<int8_t> known[kCached] = {};  // 0 not asked yet, 1 no, 2 yes
  if (device < 0 || device >= kCached) return query_pools_supported(device);
  int8_t value = known[device].load(std::memory_order_relaxed);
  if (value == 0) {
    value = query_pools_supported(device) ? 2 : 1;
    known[device].store(value, std::memory_order_relaxed);
  }
  return value == 2;
}

cudaStream_t stream_for(int32_t device) { return static_cast<cudaStream_t>(effective_stream(device)); }

// CUDA loads a module's kernels lazily, on first launch (CUDA_MODULE_LOADING=LAZY, the default since
// 12.2), and loading may synchronise the whole context: the first strided copy launched while other
// work runs would block the host until that work is done (measured on the H200: the whole 300 ms of a
// busy stream). The runtime's kernels are therefore loaded when it first allocates on a device, which
// comes before any of its kernels can run there. `device` is current (the caller's DeviceScope).
void preload_kernels(int32_t device) {
  constexpr int kMaxDevices = 64;
  static std::once_flag loaded[kMaxDevices];
  if (device < 0 || device >= kMaxDevices) return;
  std::call_once(loaded[device], [] {
    preload_strided_copy_kernels();
    preload_op_kernels();
  });
}

// An event that is destroyed on every path out of its scope.
class Event {
 public:
  Event() { check_cuda(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreateWithFlags"); }
  ~Event() { (void)cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  // `waiter` waits for the work queued on `stream` so far.
  void order(cudaStream_t stream, cudaStream_t waiter) {
    check_cuda(cudaEventRecord(event_, stream), "cudaEventRecord");
    check_cuda(cudaStreamWaitEvent(waiter, event_, 0), "cudaStreamWaitEvent");
  }

 private:
  cudaEvent_t event_ = nullptr;
};

// The stream each live device block was allocated on: its free is ordered on that stream, where
// the kernels that filled it were queued, not on whatever stream is current when it is deleted.
std::mutex g_alloc_mutex;
std::unordered_map<void*, cudaStream_t>& alloc_streams() {
  static auto* streams = new std::unordered_map<void*, cudaStream_t>();  // never destroyed: frees at exit
  return *streams;
}

bool is_contiguous(const int64_t* strides, const std::vector<int64_t>& sizes) {
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] != 1 && strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

// A temporary contiguous buffer on a device (or the host, device -1), freed at scope exit.
class Scratch {
 public:
  Scratch(int32_t device_type, int32_t device, size_t nbytes) : device_type_(device_type), device_(device) {
    if (device_type == kCPU) {
      data_ = static_cast<char*>(std::malloc(nbytes));
      if (!data_) fail(SHIMGEN_RUNTIME_ERROR_OUT_OF_MEMORY, "staging allocation failed");
    } else {
      data_ = static_cast<char*>(cuda_malloc(device, nbytes));
    }
  }
  ~Scratch() {
    if (device_type_ == kCPU) std::free(data_);
    else cuda_free(device_, data_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  char* data() const { return data_; }

 private:
  int32_t device_type_;
  int32_t device_;
  char* data_ = nullptr;
};

// One contiguous block from src to dst (any of host/device), ordered after the work already on
// both sides' streams and, when blocking, finished before returning.
void copy_block(const View& dst, const View& src, size_t nbytes, bool non_blocking) {
  const bool dst_dev = dst.device_type == kCUDA;
  const bool src_dev = src.device_type == kCUDA;
  const int32_t device = dst_dev ? dst.device_index : src.device_index;
  DeviceScope scope(device);
  cudaStream_t stream = stream_for(device);
  const bool cross_device = dst_dev && src_dev && dst.device_index != src.device_index;
  cudaStream_t src_stream = cross_device ? stream_for(src.device_index) : stream;
  if (cross_device) {
    // The copy (on dst's stream) waits for pending work on src's stream.
    DeviceScope src_scope(src.device_index);
    Event ready;
    ready.order(src_stream, stream);
  }
  check_cuda(cudaMemcpyAsync(dst.data, src.data, nbytes, cudaMemcpyDefault, stream), "cudaMemcpyAsync");
  if (cross_device) {
    // ... and src's stream waits for the copy, so src's memory is not reused under it (as PyTorch).
    Event done;
    done.order(stream, src_stream);
  }
  // Device-to-device copies are stream-ordered and never wait on the host (PyTorch does not either;
  // a host sync would also break CUDA graph capture). With host memory involved, a blocking copy
  // returns when it is done, and pageable host memory is always waited for.
  if (dst_dev && src_dev) return;
  bool host_pageable = (!dst_dev && !dst.pinned) || (!src_dev && !src.pinned);
  if (!non_blocking || host_pageable) check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

}  // namespace

bool cuda_built() noexcept { return true; }

int32_t cuda_get_device() {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

void cuda_set_device(int32_t device) { check_cuda(cudaSetDevice(device), "cudaSetDevice"); }

int32_t cuda_resolve_device(int32_t device_index) {
  int count = 0;
  check_cuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (device_index < 0) return cuda_get_device();
  SHIMGEN_REQUIRE(device_index < count, "CUDA device index " + std::to_string(device_index) + " out of range (" +
                                            std::to_string(count) + " device(s))");
  return device_index;
}

int32_t cuda_stream_device(void* stream) {
  int device = -1;
  check_cuda(cudaStreamGetDevice(static_cast<cudaStream_t>(stream), &device),
             "cudaStreamGetDevice (not a valid stream?)");
  return device;
}

void* cuda_malloc(int32_t device, size_t nbytes) {
  DeviceScope scope(device);
  preload_kernels(device);
  void* ptr = nullptr;
  if (pools_supported(device)) {
    cudaStream_t stream = stream_for(device);
    check_cuda(cudaMallocAsync(&ptr, nbytes, stream), "cudaMallocAsync");
    try {
      std::lock_guard<std::mutex> lock(g_alloc_mutex);
      alloc_streams()[ptr] = stream;
    } catch (...) {
      (void)cudaFreeAsync(ptr, stream);
      throw;
    }
  } else {
    check_cuda(cudaMalloc(&ptr, nbytes), "cudaMalloc");
  }
  return ptr;
}

void cuda_free(int32_t device, void* ptr) noexcept {
  if (ptr == nullptr) return;
  int previous = -1;
  if (cudaGetDevice(&previous) != cudaSuccess) return;
  if (previous != device) (void)cudaSetDevice(device);
  if (pools_supported(device)) {
    cudaStream_t current = stream_for(device);
    cudaStream_t owner = current;
    {
      std::lock_guard<std::mutex> lock(g_alloc_mutex);
      auto found = alloc_streams().find(ptr);
      if (found != alloc_streams().end()) {
        owner = found->second;
        alloc_streams().erase(found);
      }
    }
    // Stream-ordered on the allocation stream, after the work queued there (which filled the
    // block) and after the work queued so far on the current stream (which may still read it).
    bool ordered = owner == current;
    if (!ordered) {
      try {
        Event used;
        used.order(current, owner);
        ordered = true;
      } catch (...) {
        (void)cudaGetLastError();
      }
    }
    if (!ordered || cudaFreeAsync(ptr, owner) != cudaSuccess) {
      // The allocation stream is gone (destroyed before its tensors, against the contract) or
      // cannot wait: free on the current stream rather than leak.
      (void)cudaGetLastError();
      (void)cudaFreeAsync(ptr, current);
    }
  } else {
    (void)cudaFree(ptr);
  }
  if (previous != device) (void)cudaSetDevice(previous);
}

void* pinned_malloc(size_t nbytes) {
  void* ptr = nullptr;
  // Portable: page-locked for every device, not only the current one.
  check_cuda(cudaHostAlloc(&ptr, nbytes, cudaHostAllocPortable), "cudaHostAlloc");
  return ptr;
}

void pinned_free(void* ptr, size_t) noexcept { (void)cudaFreeHost(ptr); }

void zero_block(const View& dst, size_t nbytes) {
  if (dst.device_type == kCPU) {
    std::memset(dst.data, 0, nbytes);
    return;
  }
  DeviceScope scope(dst.device_index);
  // Stream-ordered like a device-to-device copy: the kernel that accumulates next runs after it.
  check_cuda(cudaMemsetAsync(dst.data, 0, nbytes, stream_for(dst.device_index)), "cudaMemsetAsync");
}

void copy_views(const View& dst, const View& src, const std::vector<int64_t>& sizes, size_t itemsize,
                bool non_blocking) {
  if (dst.device_type == kCPU && src.device_type == kCPU) {
    host_strided_copy(dst.data, dst.strides, src.data, src.strides, sizes, itemsize);
    return;
  }
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  const size_t nbytes = static_cast<size_t>(numel) * itemsize;
  // One flat block only when both layouts are the same permuted-contiguous one: a span equal to
  // numel is not enough (sizes [2, 2, 2], strides [1, 1, 5] span 8 elements and overlap).
  if (same_dense_layout(dst.strides, src.strides, sizes)) {
    copy_block(dst, src, nbytes, non_blocking);
    return;
  }
  if (dst.device_type == kCUDA && src.device_type == kCUDA && dst.device_index == src.device_index) {
    DeviceScope scope(dst.device_index);
    preload_kernels(dst.device_index);  // views of foreign memory may reach here before any allocation
    cudaStream_t stream = stream_for(dst.device_index);
    launch_strided_copy(dst.data, dst.strides, src.data, src.strides, sizes, itemsize, stream);
    return;  // stream-ordered, no host sync (see copy_block)
  }
  // Different layouts across host/devices: gather src into a contiguous block on its side, move
  // the block, scatter it into dst on its side. Always synchronous.
  const std::vector<int64_t> packed = contiguous_strides_of(sizes);
  const bool src_packed = is_contiguous(src.strides, sizes);
  const bool dst_packed = is_contiguous(dst.strides, sizes);
  std::unique_ptr<Scratch> src_tmp, dst_tmp;
  View from = src;
  if (!src_packed) {
    src_tmp = std::make_unique<Scratch>(src.device_type, src.device_index, nbytes);
    View packed_view{src_tmp->data(), packed.data(), src.device_type, src.device_index, false};
    copy_views(packed_view, src, sizes, itemsize, false);
    from = packed_view;
  }
  from.strides = packed.data();
  View to = dst;
  if (!dst_packed) {
    dst_tmp = std::make_unique<Scratch>(dst.device_type, dst.device_index, nbytes);
    to = View{dst_tmp->data(), packed.data(), dst.device_type, dst.device_index, false};
  }
  to.strides = packed.data();
  copy_block(to, from, nbytes, false);
  if (!dst_packed) copy_views(dst, to, sizes, itemsize, false);
}

}  // namespace shimgen::rt
