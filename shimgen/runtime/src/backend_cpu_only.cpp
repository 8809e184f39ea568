// The device backend of a CPU-only build: CUDA requests fail with SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
// and pinned memory is host memory locked into RAM with mlock(2) (the CPU meaning of
// "page-locked"); when the lock is refused (RLIMIT_MEMLOCK) the allocation fails rather than
// silently returning pageable memory.
#include <sys/mman.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "internal.h"

namespace shimgen::rt {
namespace {
[[noreturn]] void no_cuda() { fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "this runtime was built without CUDA"); }
}  // namespace

bool cuda_built() noexcept { return false; }
int32_t cuda_get_device() { no_cuda(); }
void cuda_set_device(int32_t) { no_cuda(); }
int32_t cuda_resolve_device(int32_t) { no_cuda(); }
void* cuda_malloc(int32_t, size_t) { no_cuda(); }
void cuda_free(int32_t, void*) noexcept {}
int32_t cuda_stream_device(void*) { return -1; }

void* pinned_malloc(size_t nbytes) {
  size_t rounded = (nbytes + 4095) / 4096 * 4096;
  void* p = std::aligned_alloc(4096, rounded);
  if (p == nullptr)
    fail(SHIMGEN_RUNTIME_ERROR_OUT_OF_MEMORY, "host allocation of " + std::to_string(nbytes) + " bytes failed");
  if (mlock(p, rounded) != 0) {
    int err = errno;
    std::free(p);
    fail(SHIMGEN_RUNTIME_ERROR_OUT_OF_MEMORY,
         "mlock of " + std::to_string(rounded) + " bytes failed (" + std::strerror(err) +
             "); pinned memory is not replaced by pageable memory: raise RLIMIT_MEMLOCK (ulimit -l)");
  }
  return p;
}

void pinned_free(void* ptr, size_t nbytes) noexcept {
  munlock(ptr, (nbytes + 4095) / 4096 * 4096);
  std::free(ptr);
}

void zero_block(const View& dst, size_t nbytes) { std::memset(dst.data, 0, nbytes); }

void copy_views(const View& dst, const View& src, const std::vector<int64_t>& sizes, size_t itemsize, bool) {
  // check_device() already refused every non-CPU tensor.
  host_strided_copy(dst.data, dst.strides, src.data, src.strides, sizes, itemsize);
}

}  // namespace shimgen::rt
