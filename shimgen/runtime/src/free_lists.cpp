// Per-thread free lists for what a model run makes and drops by the dozen: tensor handles (a Tensor
// keeps its sizes/strides capacity while it waits), their Storage control blocks, and small host
// buffers (power-of-two classes from 64 B to 64 KiB). In steady state a run then takes everything
// from these lists and gives it back, and never calls malloc. See internal.h.
//
// Each list is per thread (no locks): an object freed on another thread than the one that made it
// joins that thread's list, which is fine, since every object came from the global heap. A list is
// bounded, and is emptied when its thread ends; a free after that (a static destructor running
// after the thread's own thread_locals) goes straight to the heap. Under AddressSanitizer nothing
// is kept, so a use after free is still reported.
#include <array>
#include <cstdlib>
#include <new>

#include "internal.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHIMGEN_NO_FREE_LISTS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SHIMGEN_NO_FREE_LISTS 1
#endif

namespace shimgen::rt {
namespace {

#ifdef SHIMGEN_NO_FREE_LISTS
constexpr bool kKeep = false;
#else
constexpr bool kKeep = true;
#endif

constexpr size_t kTensors = 256;     // free Tensor objects kept per thread
constexpr size_t kBlocks = 256;      // free Storage control blocks per thread
constexpr size_t kBlockBytes = 128;  // a block: room for shared_ptr's control block and a Storage
constexpr size_t kReservedDims = 6;  // sizes/strides capacity of a new Tensor
constexpr int kMinShift = 6;         // host buffer classes: 64 B ..
constexpr int kMaxShift = 16;        // .. 64 KiB
constexpr int kClasses = kMaxShift - kMinShift + 1;
constexpr size_t kPerClass = 32;                  // free buffers per class
constexpr size_t kBufferBytes = size_t{2} << 20;  // at most 2 MiB of free buffers per thread

// Set when this thread's lists are gone (their destructor ran): trivially destructible, so it can
// be read at any point of the thread's exit.
thread_local bool t_closed = false;

struct Lists {
  std::array<Tensor*, kTensors> tensors{};
  size_t n_tensors = 0;
  std::array<void*, kBlocks> blocks{};
  size_t n_blocks = 0;
  std::array<std::array<void*, kPerClass>, kClasses> buffers{};
  std::array<size_t, kClasses> n_buffers{};
  size_t buffer_bytes = 0;

  Lists() = default;
  Lists(const Lists&) = delete;
  Lists& operator=(const Lists&) = delete;
  ~Lists() {
    t_closed = true;
    for (size_t i = 0; i < n_tensors; ++i) delete tensors[i];
    for (size_t i = 0; i < n_blocks; ++i) ::operator delete(blocks[i]);
    for (int c = 0; c < kClasses; ++c)
      for (size_t i = 0; i < n_buffers[c]; ++i) std::free(buffers[c][i]);
  }
};

// This thread's lists, or nullptr once they are gone (or never kept).
Lists* lists() noexcept {
  if (!kKeep || t_closed) return nullptr;
  thread_local Lists l;
  return &l;
}

// The class of a host buffer of `nbytes` (> 0), or -1 past the largest class.
int class_of(size_t nbytes) noexcept {
  if (nbytes > (size_t{1} << kMaxShift)) return -1;
  int shift = kMinShift;
  while ((size_t{1} << shift) < nbytes) ++shift;
  return shift - kMinShift;
}

}  // namespace

bool free_lists_kept() noexcept { return kKeep; }

std::unique_ptr<Tensor> new_tensor() {
  if (Lists* l = lists(); l != nullptr && l->n_tensors > 0) return std::unique_ptr<Tensor>(l->tensors[--l->n_tensors]);
  auto t = std::make_unique<Tensor>();
  // Room for the usual ranks up front: a recycled Tensor then takes any of them without a realloc,
  // whichever shape it held before.
  t->sizes.reserve(kReservedDims);
  t->strides.reserve(kReservedDims);
  return t;
}

void delete_tensor(Tensor* t) noexcept {
  if (t == nullptr) return;
  Lists* l = lists();
  if (l == nullptr || l->n_tensors == kTensors) {
    delete t;
    return;
  }
  t->storage.reset();  // may free the storage (and its buffer) now, as delete would
  t->sizes.clear();
  t->strides.clear();
  t->storage_offset = 0;
  t->dtype = kFloat32;
  l->tensors[l->n_tensors++] = t;
}

void* block_alloc(size_t nbytes) {
  if (Lists* l = lists(); l != nullptr && nbytes <= kBlockBytes && l->n_blocks > 0) return l->blocks[--l->n_blocks];
  return ::operator new(nbytes <= kBlockBytes ? kBlockBytes : nbytes);
}

void block_free(void* p, size_t nbytes) noexcept {
  Lists* l = lists();
  if (l == nullptr || nbytes > kBlockBytes || l->n_blocks == kBlocks) {
    ::operator delete(p);
    return;
  }
  l->blocks[l->n_blocks++] = p;
}

namespace {

// allocate_shared's allocator for Storage: its control block (with the Storage inside) from the
// block list.
template <class T> struct BlockAllocator {
  using value_type = T;
  BlockAllocator() = default;
  template <class U> BlockAllocator(const BlockAllocator<U>&) noexcept {}  // NOLINT: implicit, as allocators rebind
  T* allocate(size_t n) { return static_cast<T*>(block_alloc(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { block_free(p, n * sizeof(T)); }
  template <class U> bool operator==(const BlockAllocator<U>&) const noexcept { return true; }
  template <class U> bool operator!=(const BlockAllocator<U>&) const noexcept { return false; }
};

}  // namespace

std::shared_ptr<Storage> new_storage() { return std::allocate_shared<Storage>(BlockAllocator<Storage>{}); }

void* host_alloc(size_t nbytes) {
  const int c = class_of(nbytes);
  if (c >= 0) {
    Lists* l = lists();
    if (l != nullptr && l->n_buffers[c] > 0) {
      l->buffer_bytes -= size_t{1} << (c + kMinShift);
      return l->buffers[c][--l->n_buffers[c]];
    }
  }
  // 64-byte aligned, like c10's CPU allocator (vectorized kernels rely on it); a pooled size is
  // its class's, so any buffer of the class can serve it later.
  const size_t size = c >= 0 ? size_t{1} << (c + kMinShift) : (nbytes + 63) / 64 * 64;
  return std::aligned_alloc(64, size);
}

void host_free(void* p, size_t nbytes) noexcept {
  if (p == nullptr) return;
  const int c = class_of(nbytes);
  Lists* l = c >= 0 ? lists() : nullptr;
  const size_t size = c >= 0 ? size_t{1} << (c + kMinShift) : 0;
  if (l == nullptr || l->n_buffers[c] == kPerClass || l->buffer_bytes + size > kBufferBytes) {
    std::free(p);
    return;
  }
  l->buffer_bytes += size;
  l->buffers[c][l->n_buffers[c]++] = p;
}

}  // namespace shimgen::rt
