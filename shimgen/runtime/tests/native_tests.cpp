// Caller-stream contract tests, compiled against the runtime's public C++ API. Run one case per
// process: `shimgen_runtime_native_tests <case>`; exit 0 = pass, 1 = fail (with the reason).
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "expect.h"
#include "shimgen_runtime/runtime.h"
#include "shimgen_runtime/shim.h"

using shimgen::runtime::CallerStreamGuard;
using shimgen::runtime::get_caller_stream;
using shimgen::runtime::stream_t;

namespace {

// Distinct fake stream values: the contract never dereferences a selected stream.
stream_t fake(uintptr_t n) { return reinterpret_cast<stream_t>(n * 16 + 0x1000); }

void no_guard() { EXPECT(!get_caller_stream().has_value()); }

void null_is_selection() {
  EXPECT(!get_caller_stream().has_value());
  {
    CallerStreamGuard guard(nullptr);
    auto selected = get_caller_stream();
    EXPECT(selected.has_value());
    EXPECT(selected.has_value() && *selected == nullptr);
  }
  EXPECT(!get_caller_stream().has_value());
}

void nesting() {
  {
    CallerStreamGuard outer(fake(1));
    EXPECT(get_caller_stream() == fake(1));
    {
      CallerStreamGuard middle(nullptr);
      EXPECT(get_caller_stream().has_value() && *get_caller_stream() == nullptr);
      {
        CallerStreamGuard inner(fake(3));
        EXPECT(get_caller_stream() == fake(3));
      }
      EXPECT(get_caller_stream().has_value() && *get_caller_stream() == nullptr);
    }
    EXPECT(get_caller_stream() == fake(1));
  }
  EXPECT(!get_caller_stream().has_value());
  // Through the C ABI, deleting the outer guard first is refused and changes nothing.
  ShimgenCallerStreamGuardHandle a = nullptr, b = nullptr;
  EXPECT(shimgen_runtime_caller_stream_guard_create(fake(7), &a) == 0);
  EXPECT(shimgen_runtime_caller_stream_guard_create(fake(8), &b) == 0);
  EXPECT(shimgen_runtime_caller_stream_guard_delete(a) == SHIMGEN_RUNTIME_ERROR_STATE);
  EXPECT(std::strstr(shimgen_runtime_last_error(), "out of order") != nullptr);
  EXPECT(get_caller_stream() == fake(8));
  EXPECT(shimgen_runtime_caller_stream_guard_delete(b) == 0);
  EXPECT(shimgen_runtime_caller_stream_guard_delete(a) == 0);
  EXPECT(!get_caller_stream().has_value());
}

void per_thread() {
  CallerStreamGuard main_guard(fake(42));
  std::atomic<int> step{0};
  bool child_saw_none = false, child_saw_own = false;
  std::thread child([&] {
    child_saw_none = !get_caller_stream().has_value();  // a new thread starts with no selection
    CallerStreamGuard child_guard(fake(43));
    child_saw_own = get_caller_stream() == fake(43);
    step = 1;
    while (step != 2) std::this_thread::yield();  // hold the guard while main looks
  });
  while (step != 1) std::this_thread::yield();
  EXPECT(get_caller_stream() == fake(42));  // the child's guard is not seen here
  step = 2;
  child.join();
  EXPECT(child_saw_none);
  EXPECT(child_saw_own);
  // Deleting a guard on another thread is refused.
  ShimgenCallerStreamGuardHandle handle = nullptr;
  EXPECT(shimgen_runtime_caller_stream_guard_create(fake(44), &handle) == 0);
  AOTITorchError other = 0;
  std::thread([&] { other = shimgen_runtime_caller_stream_guard_delete(handle); }).join();
  EXPECT(other == SHIMGEN_RUNTIME_ERROR_STATE);
  EXPECT(shimgen_runtime_caller_stream_guard_delete(handle) == 0);
  EXPECT(get_caller_stream() == fake(42));
}

void stress() {
  constexpr int kThreads = 32;
  constexpr int kIterations = 10000;
  std::atomic<long> wrong{0};
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();  // start together: maximum overlap
      long local_wrong = 0;
      for (int i = 0; i < kIterations; ++i) {
        uintptr_t base = static_cast<uintptr_t>(t) * 1000003u + static_cast<uintptr_t>(i) * 3u;
        if (get_caller_stream().has_value()) ++local_wrong;
        {
          CallerStreamGuard a(fake(base));
          if (get_caller_stream() != fake(base)) ++local_wrong;
          {
            CallerStreamGuard b(i % 2 ? nullptr : fake(base + 1));
            auto want = i % 2 ? nullptr : fake(base + 1);
            if (!get_caller_stream().has_value() || *get_caller_stream() != want) ++local_wrong;
            {
              CallerStreamGuard c(fake(base + 2));
              if (get_caller_stream() != fake(base + 2)) ++local_wrong;
            }
            if (!get_caller_stream().has_value() || *get_caller_stream() != want) ++local_wrong;
          }
          if (get_caller_stream() != fake(base)) ++local_wrong;
        }
        if (get_caller_stream().has_value()) ++local_wrong;
      }
      wrong.fetch_add(local_wrong);
    });
  }
  for (auto& thread : threads) thread.join();
  std::printf("stress: %d threads x %d nested iterations, %ld wrong observations\n", kThreads, kIterations,
              wrong.load());
  EXPECT(wrong.load() == 0);
}

// A consumer compiled with the PUBLIC prefix definition calls the plain names, which export.h
// renamed to the prefixed symbols; the counter proves this library served the calls.
void prefixed_calls() {
  uint64_t before = shimgen_runtime_shim_call_count();
  EXPECT(aoti_torch_dtype_float32() == 6);
  int64_t sizes[2] = {2, 3};
  AtenTensorHandle t = nullptr;
  EXPECT(aoti_torch_empty_strided(2, sizes, nullptr, 6, 0, 0, &t) == 0);
  EXPECT(aoti_torch_delete_tensor_object(t) == 0);
  EXPECT(shimgen_runtime_shim_call_count() == before + 3);
}

// Tensor lifecycle natively, so the sanitizer builds (shimgen build --sanitize) cover the tensor
// code too: refcounted views, blob tensors, strided and broadcast copies, clones, refused
// arguments (outputs untouched), and the last handle freeing the storage.
void tensors() {
  const int32_t f32 = aoti_torch_dtype_float32(), cpu = aoti_torch_device_type_cpu();
  int64_t sizes[2] = {3, 4}, strides[2] = {4, 1};
  AtenTensorHandle base = nullptr;
  EXPECT(aoti_torch_empty_strided(2, sizes, strides, f32, cpu, 0, &base) == 0);
  void* data = nullptr;
  EXPECT(aoti_torch_get_data_ptr(base, &data) == 0 && data != nullptr);
  float* values = static_cast<float*>(data);
  for (int i = 0; i < 12; ++i) values[i] = static_cast<float>(i);

  // A transposed view (4x3, strides 1,4) shares the storage; the base handle dies first.
  AtenTensorHandle view = nullptr;
  int64_t vsizes[2] = {4, 3}, vstrides[2] = {1, 4};
  EXPECT(aoti_torch__reinterpret_tensor(base, 2, vsizes, vstrides, 0, &view) == 0);
  AtenTensorHandle alias = nullptr;
  EXPECT(aoti_torch_new_tensor_handle(view, &alias) == 0);
  EXPECT(aoti_torch_delete_tensor_object(base) == 0);

  // clone copies into new storage (keeping a dense layout, like PyTorch's preserve_format):
  // element (i, j) of the view is values[j * 4 + i], wherever the clone's strides put it.
  AtenTensorHandle dense = nullptr;
  EXPECT(aoti_torch_clone(view, &dense) == 0);
  void* dense_data = nullptr;
  int64_t* ds = nullptr;
  EXPECT(aoti_torch_get_data_ptr(dense, &dense_data) == 0 && dense_data != data);
  EXPECT(aoti_torch_get_strides(dense, &ds) == 0);
  const float* d = static_cast<const float*>(dense_data);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) EXPECT(d[i * ds[0] + j * ds[1]] == static_cast<float>(j * 4 + i));

  // A view reaching past the storage is refused and leaves the output untouched.
  AtenTensorHandle untouched = reinterpret_cast<AtenTensorHandle>(0x1);
  int64_t big[2] = {4, 4};
  EXPECT(aoti_torch__reinterpret_tensor(alias, 2, big, vstrides, 1, &untouched) != 0);
  EXPECT(untouched == reinterpret_cast<AtenTensorHandle>(0x1));
  int64_t negative[1] = {-1};
  EXPECT(aoti_torch_empty_strided(1, negative, nullptr, f32, cpu, 0, &untouched) != 0);
  EXPECT(untouched == reinterpret_cast<AtenTensorHandle>(0x1));

  // Broadcast copy from a borrowed 1x3 row into the 4x3 clone, then back into a blob.
  float row[3] = {7.f, 8.f, 9.f};
  int64_t rsizes[2] = {1, 3}, rstrides[2] = {3, 1};
  AtenTensorHandle blob = nullptr;
  EXPECT(aoti_torch_create_tensor_from_blob(row, 2, rsizes, rstrides, 0, f32, cpu, 0, &blob) == 0);
  EXPECT(aoti_torch_copy_(dense, blob, 0) == 0);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) EXPECT(d[i * ds[0] + j * ds[1]] == row[j]);
  float out[12] = {};
  int64_t osizes[2] = {4, 3}, ostrides[2] = {3, 1};
  AtenTensorHandle out_blob = nullptr;
  EXPECT(aoti_torch_create_tensor_from_blob(out, 2, osizes, ostrides, 0, f32, cpu, 0, &out_blob) == 0);
  EXPECT(aoti_torch_copy_(out_blob, view, 0) == 0);  // strided source
  EXPECT(out[1] == 4.f && out[3] == 1.f && out[11] == 11.f);
  EXPECT(aoti_torch_copy_(blob, dense, 0) != 0);  // not broadcastable the other way

  for (AtenTensorHandle handle : {view, alias, dense, blob, out_blob})
    EXPECT(aoti_torch_delete_tensor_object(handle) == 0);
}

// Sizes/strides whose products wrap int64 must be refused, not wrapped past the bounds check: a
// 4-byte blob reinterpreted as sizes [3], strides [2^61] ends at byte (1 + 2 * 2^61) * 4, which
// wraps to 4 in unchecked arithmetic.
void overflow() {
  const int32_t f32 = aoti_torch_dtype_float32(), cpu = aoti_torch_device_type_cpu();
  float one = 1.f;
  int64_t s1[1] = {1}, st1[1] = {1};
  AtenTensorHandle blob = nullptr;
  EXPECT(aoti_torch_create_tensor_from_blob(&one, 1, s1, st1, 0, f32, cpu, 0, &blob) == 0);
  AtenTensorHandle view = reinterpret_cast<AtenTensorHandle>(0x1);
  int64_t sizes[1] = {3}, strides[1] = {int64_t(1) << 61};
  EXPECT(aoti_torch__reinterpret_tensor(blob, 1, sizes, strides, 0, &view) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(std::strstr(shimgen_runtime_last_error(), "overflow") != nullptr);
  EXPECT(view == reinterpret_cast<AtenTensorHandle>(0x1));
  int64_t off_sizes[1] = {1}, off_strides[1] = {1};
  EXPECT(aoti_torch__reinterpret_tensor(blob, 1, off_sizes, off_strides, INT64_MAX, &view) != 0);
  EXPECT(view == reinterpret_cast<AtenTensorHandle>(0x1));
  // empty_strided: the span overflows; numel overflows with zero strides.
  int64_t big[2] = {int64_t(1) << 40, int64_t(1) << 40}, zero[2] = {0, 0}, wide[2] = {int64_t(1) << 40, 1};
  EXPECT(aoti_torch_empty_strided(2, big, wide, f32, cpu, 0, &view) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(aoti_torch_empty_strided(2, big, zero, f32, cpu, 0, &view) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(aoti_torch_empty_strided(2, big, nullptr, f32, cpu, 0, &view) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(aoti_torch_create_tensor_from_blob(&one, 1, sizes, strides, 0, f32, cpu, 0, &view) != 0);
  EXPECT(view == reinterpret_cast<AtenTensorHandle>(0x1));
  EXPECT(aoti_torch_delete_tensor_object(blob) == 0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s no_guard|null_is_selection|nesting|per_thread|stress|prefixed_calls|tensors\n",
                 argv[0]);
    return 2;
  }
  std::string name = argv[1];
  if (name == "no_guard") no_guard();
  else if (name == "null_is_selection") null_is_selection();
  else if (name == "nesting") nesting();
  else if (name == "per_thread") per_thread();
  else if (name == "stress") stress();
  else if (name == "prefixed_calls") prefixed_calls();
  else if (name == "tensors") tensors();
  else if (name == "overflow") overflow();
  else {
    std::fprintf(stderr, "unknown case %s\n", name.c_str());
    return 2;
  }
  std::printf("%s: %s\n", name.c_str(), g_failures ? "FAIL" : "ok");
  return g_failures ? 1 : 0;
}
