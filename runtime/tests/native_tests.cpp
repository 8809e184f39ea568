// Caller-stream contract tests, compiled against the runtime's public C++ API. Run one case per
// process: `shimgen_runtime_native_tests <case>`; exit 0 = pass, 1 = fail (with the reason).
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "shimgen_runtime/runtime.h"
#include "shimgen_runtime/shim.h"

using shimgen::runtime::CallerStreamGuard;
using shimgen::runtime::get_caller_stream;
using shimgen::runtime::stream_t;

namespace {

int g_failures = 0;

#define EXPECT(cond)                                                      \
  do {                                                                    \
    if (!(cond)) {                                                        \
      std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                       \
    }                                                                     \
  } while (0)

// Distinct fake stream values: the contract never dereferences a selected stream.
stream_t fake(uintptr_t n) { return reinterpret_cast<stream_t>(n * 16 + 0x1000); }

void no_guard() {
  EXPECT(!get_caller_stream().has_value());
}

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
  std::printf("stress: %d threads x %d nested iterations, %ld wrong observations\n", kThreads, kIterations, wrong.load());
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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s no_guard|null_is_selection|nesting|per_thread|stress|prefixed_calls\n", argv[0]);
    return 2;
  }
  std::string name = argv[1];
  if (name == "no_guard") no_guard();
  else if (name == "null_is_selection") null_is_selection();
  else if (name == "nesting") nesting();
  else if (name == "per_thread") per_thread();
  else if (name == "stress") stress();
  else if (name == "prefixed_calls") prefixed_calls();
  else {
    std::fprintf(stderr, "unknown case %s\n", name.c_str());
    return 2;
  }
  std::printf("%s: %s\n", name.c_str(), g_failures ? "FAIL" : "ok");
  return g_failures ? 1 : 0;
}
