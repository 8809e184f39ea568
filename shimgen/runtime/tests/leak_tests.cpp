// Error paths release what they took: the model loader, the guards and (CUDA builds) the CUDA
// backend. One case per process, `shimgen_runtime_leak_tests <case> [args]`; exit 0 = pass.
//
// How a leak is seen without a sanitizer: this program replaces the global operator new/delete
// and counts live C++ allocations process-wide (the runtime's references to operator new bind to
// the executable's definition first). Each case runs its error paths once to warm up (thread-local
// message buffers, one-time initialisation), then many times, and the live count must not move.
// Files and mappings are checked directly: no private model directory left under $TMPDIR, no model
// .so still mapped. Under `shimgen build --sanitize address` LeakSanitizer checks malloc too.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "expect.h"
#include "shimgen_runtime/model_loader.h"
#include "shimgen_runtime/runtime.h"
#include "shimgen_runtime/shim.h"
#include "shimgen_runtime/shim_cuda.h"

#ifdef SHIMGEN_RUNTIME_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace {
std::atomic<long> g_live{0};
}  // namespace

void* operator new(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (p == nullptr) throw std::bad_alloc();
  g_live.fetch_add(1, std::memory_order_relaxed);
  return p;
}
void operator delete(void* p) noexcept {
  if (p == nullptr) return;
  g_live.fetch_sub(1, std::memory_order_relaxed);
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }

namespace {

constexpr int kRepeats = 50;

// Runs `paths` once, then kRepeats times, and expects no live allocation to remain from the repeats.
void no_growth(const char* what, const std::function<void()>& paths) {
  paths();
  const long before = g_live.load();
  for (int i = 0; i < kRepeats; ++i) paths();
  const long after = g_live.load();
  if (after != before) {
    std::fprintf(stderr, "%s: %ld C++ allocations left by %d runs of its error paths\n", what, after - before,
                 kRepeats);
    ++g_failures;
  }
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

// Distinct private model copies still mapped into this process.
size_t mapped_models() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  std::vector<std::string> seen;
  while (std::getline(maps, line)) {
    const size_t at = line.find('/');
    if (at == std::string::npos || line.find("shimgen-model-") == std::string::npos) continue;
    const std::string path = line.substr(at);
    if (std::find(seen.begin(), seen.end(), path) == seen.end()) seen.push_back(path);
  }
  return seen.size();
}

// $TMPDIR holds nothing but what the caller put there before: every failed open removed its
// private directory; and at most `mapped` model copies are still mapped.
void expect_clean(const std::string& tmp, size_t expected_entries, size_t mapped = 0) {
  const auto left = entries(tmp);
  if (left.size() != expected_entries) {
    std::fprintf(stderr, "%zu entries in TMPDIR %s (expected %zu), e.g. %s\n", left.size(), tmp.c_str(),
                 expected_entries, left.empty() ? "-" : left.back().c_str());
    ++g_failures;
  }
  if (mapped_models() > mapped) {
    std::fprintf(stderr, "%zu model copies still mapped (at most %zu expected)\n", mapped_models(), mapped);
    ++g_failures;
  }
}

std::string tmpdir() {
  const char* t = std::getenv("TMPDIR");
  return t != nullptr ? t : "";
}

// Every way shimgen_model_open can refuse a file that is not a loadable model. `dir` holds the
// inputs (tests/integration/test_runtime.py writes them): corrupt and unusual archives, an ELF
// that does not load, a shared library without the AOTInductor API.
void loader_errors(const std::string& dir) {
  const std::string tmp = tmpdir();
  EXPECT(!tmp.empty());
  const size_t before = entries(tmp).size();
  const char* files[] = {
      "missing.pt2",   "",          "empty.pt2",   "text.pt2",    "nomodel.pt2", "corrupt.pt2", "deflated.pt2",
      "twomodels.pt2", "broken.so", "notmodel.so", "notmodel.pt2"};
  no_growth("shimgen_model_open", [&] {
    for (const char* f : files) {
      const std::string path = dir + "/" + f;  // "" names the directory itself
      shimgen_model* model = reinterpret_cast<shimgen_model*>(0x1);
      const int32_t code = shimgen_model_open(path.c_str(), nullptr, "cpu", 1, &model);
      if (code == 0) {
        std::fprintf(stderr, "%s: opened\n", path.c_str());
        ++g_failures;
        shimgen_model_close(model);
      }
      EXPECT(model == reinterpret_cast<shimgen_model*>(0x1));  // untouched on failure
      EXPECT(std::strlen(shimgen_model_last_error()) > 0);
    }
    shimgen_model* model = nullptr;
    EXPECT(shimgen_model_open(nullptr, nullptr, "cpu", 1, &model) != 0);
    EXPECT(shimgen_model_run(nullptr, nullptr, 0, nullptr, 0, nullptr) != 0);
  });
  expect_clean(tmp, before);
}

// A real model (argv: a prefixed .pt2 of one float32 input [shape...]) refused at open (unknown
// model name, a device string the container rejects) and at run (wrong counts, an invalid handle, a
// wrong-shaped input under AOTI_RUNTIME_CHECK_INPUTS=1): nothing left behind, the open model intact.
//
// The opens run on a thread of their own, one per round: AOTInductor's generated code keeps its
// last error in a `thread_local std::string`, whose destructor (registered with
// __cxa_thread_atexit on first use) pins the model's .so until the calling thread exits; glibc
// unloads it at the next dlclose after that. So at most one copy may still be mapped at the end.
// (A model that also exports an STB_GNU_UNIQUE symbol is never unloaded at all: prefix-imports
// makes those private, see shimgen/aoti/localize.py.)
void loader_model_errors(const std::string& pt2, const std::vector<int64_t>& shape) {
  const std::string tmp = tmpdir();
  const size_t before = entries(tmp).size();
  no_growth("shimgen_model_open of a real model", [&] {
    std::thread([&] {
      shimgen_model* model = nullptr;
      EXPECT(shimgen_model_open(pt2.c_str(), "no_such_model", "cpu", 1, &model) != 0);
      EXPECT(std::strstr(shimgen_model_last_error(), "choose a model by name") != nullptr);
      // The container itself refuses a device it cannot parse: created, then torn down.
      EXPECT(shimgen_model_open(pt2.c_str(), nullptr, "no-such-device:3", 1, &model) != 0);
      EXPECT(std::strstr(shimgen_model_last_error(), "creating the model container failed") != nullptr);
      EXPECT(model == nullptr);
      if (model != nullptr) shimgen_model_close(model);
    }).join();
  });
  expect_clean(tmp, before, 1);

  shimgen_model* model = nullptr;
  EXPECT(shimgen_model_open(pt2.c_str(), nullptr, "cpu", 1, &model) == 0);
  if (model == nullptr) return;
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  std::vector<float> data(static_cast<size_t>(numel) + 64, 0.5f);
  AtenTensorHandle good = nullptr, wrong = nullptr;
  EXPECT(aoti_torch_create_tensor_from_blob(data.data(), static_cast<int64_t>(shape.size()), shape.data(), nullptr, 0,
                                            aoti_torch_dtype_float32(), aoti_torch_device_type_cpu(), 0, &good) == 0);
  std::vector<int64_t> bad_shape = shape;
  bad_shape.back() += 1;
  EXPECT(aoti_torch_create_tensor_from_blob(data.data(), static_cast<int64_t>(bad_shape.size()), bad_shape.data(),
                                            nullptr, 0, aoti_torch_dtype_float32(), aoti_torch_device_type_cpu(), 0,
                                            &wrong) == 0);
  no_growth("shimgen_model_run", [&] {
    AtenTensorHandle out[2] = {nullptr, nullptr};
    AtenTensorHandle ins[2] = {good, good};
    EXPECT(shimgen_model_run(model, ins, 2, out, 1, nullptr) != 0);  // too many inputs
    EXPECT(shimgen_model_run(model, ins, 1, out, 2, nullptr) != 0);  // too many outputs
    AtenTensorHandle null_in[1] = {nullptr};
    EXPECT(shimgen_model_run(model, null_in, 1, out, 1, nullptr) != 0);
    AtenTensorHandle bad[1] = {wrong};
    EXPECT(shimgen_model_run(model, bad, 1, out, 1, nullptr) != 0);  // the model's own input check
    EXPECT(out[0] == nullptr);
    // ... and the model still runs.
    EXPECT(shimgen_model_run(model, ins, 1, out, 1, nullptr) == 0);
    if (out[0] != nullptr) EXPECT(aoti_torch_delete_tensor_object(out[0]) == 0);
  });
  EXPECT(aoti_torch_delete_tensor_object(good) == 0);
  EXPECT(aoti_torch_delete_tensor_object(wrong) == 0);
  EXPECT(shimgen_model_close(model) == 0);
  expect_clean(tmp, before, 2);  // this thread's model and the last one opened on a worker thread
}

// Handle misuse (argv: fake_model.so, a library with the container API): a double close, calls
// after close, and pointers that never came from shimgen_model_open are refused with an error
// code, never dereferenced; an open model used beside them still works. The garbage pointers
// point at unmapped memory or at bytes that are not a model: dereferencing either would crash.
void handle_misuse(const std::string& fake_model) {
  const std::string tmp = tmpdir();
  const size_t before = entries(tmp).size();
  no_growth("model handle misuse", [&] {
    shimgen_model* live = nullptr;
    shimgen_model* closed = nullptr;
    EXPECT(shimgen_model_open(fake_model.c_str(), nullptr, "cpu", 1, &live) == 0 && live != nullptr);
    EXPECT(shimgen_model_open(fake_model.c_str(), nullptr, "cpu", 1, &closed) == 0 && closed != nullptr);
    EXPECT(shimgen_model_close(closed) == 0);
    char not_a_model[256];
    std::memset(not_a_model, 0xAB, sizeof not_a_model);
    shimgen_model* garbage[] = {closed, reinterpret_cast<shimgen_model*>(0x10),
                                reinterpret_cast<shimgen_model*>(not_a_model),
                                reinterpret_cast<shimgen_model*>(~uintptr_t(0) - 4095)};
    size_t count = 7;
    AtenTensorHandle none[1] = {nullptr};
    for (shimgen_model* bad : garbage) {
      EXPECT(shimgen_model_num_inputs(bad, &count) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
      EXPECT(std::strstr(shimgen_model_last_error(), "not an open model") != nullptr);
      EXPECT(shimgen_model_num_outputs(bad, &count) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
      EXPECT(shimgen_model_so_path(bad) == nullptr);
      EXPECT(shimgen_model_run(bad, none, 0, none, 0, nullptr) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
      EXPECT(shimgen_model_close(bad) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);  // incl. the double close
    }
    EXPECT(count == 7);  // nothing was written through a refused handle
    // The control: the open model answers, runs and closes as before.
    EXPECT(shimgen_model_num_inputs(live, &count) == 0 && count == 0);
    EXPECT(shimgen_model_so_path(live) != nullptr);
    EXPECT(shimgen_model_run(live, none, 0, none, 0, nullptr) == 0);
    EXPECT(shimgen_model_close(live) == 0);
    EXPECT(shimgen_model_close(live) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
    EXPECT(shimgen_model_close(nullptr) == 0);
  });
  expect_clean(tmp, before);
}

void* fake_stream(uintptr_t n) { return reinterpret_cast<void*>(n * 16 + 0x1000); }

// The caller-stream guard's refusals (null output, out-of-order or foreign-thread delete) and, in
// a CPU-only build, the CUDA guards' (no CUDA): no allocation is lost, the selection is restored.
void guard_errors() {
  no_growth("guards", [&] {
    EXPECT(shimgen_runtime_caller_stream_guard_create(fake_stream(1), nullptr) ==
           SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
    EXPECT(shimgen_runtime_caller_stream_guard_delete(nullptr) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
    ShimgenCallerStreamGuardHandle outer = nullptr, inner = nullptr;
    EXPECT(shimgen_runtime_caller_stream_guard_create(fake_stream(2), &outer) == 0);
    EXPECT(shimgen_runtime_caller_stream_guard_create(fake_stream(3), &inner) == 0);
    EXPECT(shimgen_runtime_caller_stream_guard_delete(outer) == SHIMGEN_RUNTIME_ERROR_STATE);
    int32_t from_thread = 0;
    std::thread([&] { from_thread = shimgen_runtime_caller_stream_guard_delete(inner); }).join();
    EXPECT(from_thread == SHIMGEN_RUNTIME_ERROR_STATE);
    EXPECT(shimgen_runtime_caller_stream_guard_delete(inner) == 0);
    EXPECT(shimgen_runtime_caller_stream_guard_delete(outer) == 0);
    int32_t selected = 1;
    void* stream = nullptr;
    EXPECT(shimgen_runtime_get_caller_stream(&selected, &stream) == 0 && selected == 0);
    if (shimgen_runtime_has_cuda() == 0) {
      CUDAGuardHandle guard = nullptr;
      CUDAStreamGuardHandle stream_guard = nullptr;
      EXPECT(aoti_torch_create_cuda_guard(0, &guard) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED && guard == nullptr);
      EXPECT(aoti_torch_create_cuda_stream_guard(nullptr, 0, &stream_guard) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);
      EXPECT(stream_guard == nullptr);
    }
    EXPECT(aoti_torch_delete_cuda_guard(nullptr) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
    EXPECT(aoti_torch_delete_cuda_stream_guard(nullptr) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  });
}

#ifdef SHIMGEN_RUNTIME_WITH_CUDA
// The CUDA backend's refusals: allocations too large for the device, guards for a device that does
// not exist, copies that cannot broadcast. Neither host allocations nor device memory may grow.
void cuda_errors() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "cuda_errors: no CUDA device\n");
    ++g_failures;
    return;
  }
  const int32_t f32 = aoti_torch_dtype_float32(), cuda = aoti_torch_device_type_cuda();
  int64_t small[1] = {1024};
  AtenTensorHandle keep = nullptr;  // a live device tensor throughout: the pool is in use
  EXPECT(aoti_torch_empty_strided(1, small, nullptr, f32, cuda, 0, &keep) == 0);
  EXPECT(cudaDeviceSynchronize() == cudaSuccess);
  size_t free_before = 0, total = 0;
  EXPECT(cudaMemGetInfo(&free_before, &total) == cudaSuccess);
  no_growth("CUDA backend", [&] {
    int64_t huge[1] = {int64_t{1} << 46};  // 256 TiB of float32
    AtenTensorHandle t = nullptr;
    EXPECT(aoti_torch_empty_strided(1, huge, nullptr, f32, cuda, 0, &t) == SHIMGEN_RUNTIME_ERROR_OUT_OF_MEMORY);
    EXPECT(t == nullptr);
    EXPECT(aoti_torch_empty_strided(1, small, nullptr, f32, cuda, devices + 7, &t) ==
           SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
    CUDAGuardHandle guard = nullptr;
    EXPECT(aoti_torch_create_cuda_guard(devices + 7, &guard) != 0 && guard == nullptr);
    CUDAStreamGuardHandle stream_guard = nullptr;
    EXPECT(aoti_torch_create_cuda_stream_guard(nullptr, devices + 7, &stream_guard) != 0 && stream_guard == nullptr);
    int64_t three[1] = {3};
    AtenTensorHandle src = nullptr;
    EXPECT(aoti_torch_empty_strided(1, three, nullptr, f32, cuda, 0, &src) == 0);
    EXPECT(aoti_torch_copy_(keep, src, 0) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);  // 3 does not broadcast to 1024
    EXPECT(aoti_torch_delete_tensor_object(src) == 0);
    int32_t device = -1;
    EXPECT(cudaGetDevice(&device) == cudaSuccess && device == 0);  // no failed guard left a device selected
  });
  EXPECT(aoti_torch_delete_tensor_object(keep) == 0);
  EXPECT(cudaDeviceSynchronize() == cudaSuccess);
  size_t free_after = 0;
  EXPECT(cudaMemGetInfo(&free_after, &total) == cudaSuccess);
  // The pool may keep freed blocks; what must not happen is device memory taken per failed call.
  if (free_after + (size_t{64} << 20) < free_before) {
    std::fprintf(stderr, "device memory shrank by %zu bytes over the error paths\n", free_before - free_after);
    ++g_failures;
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "";
  if (name == "loader_errors" && argc == 3) {
    loader_errors(argv[2]);
  } else if (name == "loader_model_errors" && argc >= 4) {
    std::vector<int64_t> shape;
    for (int i = 3; i < argc; ++i) shape.push_back(std::atoll(argv[i]));
    loader_model_errors(argv[2], shape);
  } else if (name == "handle_misuse" && argc == 3) {
    handle_misuse(argv[2]);
  } else if (name == "guard_errors" && argc == 2) {
    guard_errors();
#ifdef SHIMGEN_RUNTIME_WITH_CUDA
  } else if (name == "cuda_errors" && argc == 2) {
    cuda_errors();
#endif
  } else {
    std::fprintf(stderr,
                 "usage: %s loader_errors DIR | loader_model_errors MODEL.pt2 SIZE... | handle_misuse FAKE_MODEL.so | "
                 "guard_errors | cuda_errors\n",
                 argv[0]);
    return 2;
  }
  std::printf("%s: %s\n", name.c_str(), g_failures ? "FAIL" : "ok");
  return g_failures ? 1 : 0;
}
