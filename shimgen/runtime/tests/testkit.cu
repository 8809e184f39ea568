// CUDA helpers for the GPU tests, called through ctypes: streams, a spin kernel that occupies a
// stream for a given time, pointer attributes, and device queries. Test code only; not shipped.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace {
__global__ void spin_kernel(uint64_t nanoseconds) {
  uint64_t start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
}
}  // namespace

extern "C" {
__attribute__((visibility("default"))) int tk_device_count(int* count) { return cudaGetDeviceCount(count); }
__attribute__((visibility("default"))) int tk_get_device(int* device) { return cudaGetDevice(device); }
__attribute__((visibility("default"))) int tk_set_device(int device) { return cudaSetDevice(device); }
__attribute__((visibility("default"))) int tk_stream_create(int device, void** stream) {
  int previous = 0;
  cudaGetDevice(&previous);
  cudaSetDevice(device);
  int status = cudaStreamCreateWithFlags(reinterpret_cast<cudaStream_t*>(stream), cudaStreamNonBlocking);
  cudaSetDevice(previous);
  return status;
}
__attribute__((visibility("default"))) int tk_stream_destroy(void* stream) {
  return cudaStreamDestroy(static_cast<cudaStream_t>(stream));
}
__attribute__((visibility("default"))) int tk_stream_query(void* stream) {
  return cudaStreamQuery(static_cast<cudaStream_t>(stream));  // 0 done, 600 (NotReady) busy
}
__attribute__((visibility("default"))) int tk_stream_sync(void* stream) {
  return cudaStreamSynchronize(static_cast<cudaStream_t>(stream));
}
__attribute__((visibility("default"))) int tk_spin(void* stream, uint64_t nanoseconds) {
  spin_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(nanoseconds);
  return cudaGetLastError();
}
// type: 0 unregistered, 1 host (page-locked), 2 device, 3 managed.
__attribute__((visibility("default"))) int tk_pointer_attributes(const void* ptr, int* type, int* device) {
  cudaPointerAttributes attributes{};
  int status = cudaPointerGetAttributes(&attributes, ptr);
  *type = static_cast<int>(attributes.type);
  *device = attributes.device;
  return status;
}
__attribute__((visibility("default"))) int tk_device_sync(void) { return cudaDeviceSynchronize(); }
// CUDA graph capture on a stream (thread-local mode: only this thread's calls are captured), then
// end it, instantiate the graph and launch it once on the same stream.
__attribute__((visibility("default"))) int tk_capture_begin(void* stream) {
  return cudaStreamBeginCapture(static_cast<cudaStream_t>(stream), cudaStreamCaptureModeThreadLocal);
}
__attribute__((visibility("default"))) int tk_capture_end_and_launch(void* stream, int* nodes) {
  cudaGraph_t graph = nullptr;
  int status = cudaStreamEndCapture(static_cast<cudaStream_t>(stream), &graph);
  if (status != cudaSuccess) return status;
  size_t count = 0;
  cudaGraphGetNodes(graph, nullptr, &count);
  *nodes = static_cast<int>(count);
  cudaGraphExec_t exec = nullptr;
  status = cudaGraphInstantiate(&exec, graph, 0);
  if (status == cudaSuccess) status = cudaGraphLaunch(exec, static_cast<cudaStream_t>(stream));
  if (status == cudaSuccess) status = cudaStreamSynchronize(static_cast<cudaStream_t>(stream));
  if (exec != nullptr) cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  return status;
}
}
