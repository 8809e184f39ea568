// Internal tests of the CPU fast paths (part of shimgen_runtime_internal_tests, see
// internal_tests.cpp): the small GEMM's packed-weight cache, the small-shape attention against a
// double-precision reference, and the free lists that make a steady-state run allocate nothing.
// The program replaces the global operator new to count C++ allocations (as leak_tests.cpp does).
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "cpu_kernels.h"
#include "cpu_packed_weights.h"
#include "expect.h"
#include "immutable_ranges.h"
#include "internal.h"
#include "ops/cpu/onednn_quant.h"
#include "shimgen_runtime/shim_cpu_ops.h"

namespace {
std::atomic<long> g_news{0};
}  // namespace

void* operator new(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (p == nullptr) throw std::bad_alloc();
  g_news.fetch_add(1, std::memory_order_relaxed);
  return p;
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

using shimgen::rt::Tensor;
using namespace shimgen::rt::cpu;

// w: n rows of k floats, ld apart; the reference [k][n] copy.
std::vector<float> transposed(const std::vector<float>& w, int64_t k, int64_t n, int64_t ld) {
  std::vector<float> t(static_cast<size_t>(k * n));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t kk = 0; kk < k; ++kk) t[static_cast<size_t>(kk * n + j)] = w[static_cast<size_t>(j * ld + kk)];
  return t;
}

bool equal(const float* got, const std::vector<float>& want) {
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) return false;
  return true;
}

std::vector<float> pattern(size_t n, float seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(seed + 0.37f * static_cast<float>(i));
  return v;
}

// The cache serves a weight's packed copy while its bytes are unchanged, repacks it after an
// in-place change, ignores bytes between a strided weight's rows, and stays within its bounds.
// Negative control: a cache that trusts the address alone serves the stale copy after the change,
// so the comparisons below do detect a stale entry.
void packed_weight_cache() {
  const int64_t k = 20, n = 24, ld = 27;  // W's rows 27 floats apart: 7 floats of gap after each
  std::vector<float> w = pattern(static_cast<size_t>(n * ld), 1.0f);
  for (bool check : {true, false}) {
    PackedWeightCache cache(pack_transposed, check);
    const float* first = cache.get(w.data(), k, n, ld);
    EXPECT(first != nullptr && equal(first, transposed(w, k, n, ld)));
    EXPECT(cache.get(w.data(), k, n, ld) == first && cache.stats().hits == 1 && cache.stats().packs == 1);
    w[static_cast<size_t>(ld + k)] += 1.0f;  // the gap after row 1: not part of W
    EXPECT(cache.get(w.data(), k, n, ld) == first && cache.stats().hits == 2);
    const std::vector<float> before = transposed(w, k, n, ld);
    w[static_cast<size_t>(5 * ld + 3)] += 1.0f;  // W[5, 3], changed in place
    const float* again = cache.get(w.data(), k, n, ld);
    if (check) {
      EXPECT(equal(again, transposed(w, k, n, ld)) && cache.stats().packs == 2);
    } else {
      EXPECT(equal(again, before) && !equal(again, transposed(w, k, n, ld)));  // stale: the control
    }
  }
  // Bounds: 40 weights make it evict down to kMaxEntries; large ones down to kMaxBytes.
  PackedWeightCache cache(pack_transposed);
  std::vector<std::vector<float>> many;
  for (int i = 0; i < 40; ++i) many.push_back(pattern(64 * 8, static_cast<float>(i)));
  for (auto& m : many) EXPECT(cache.get(m.data(), 8, 64, 8) != nullptr);
  EXPECT(cache.entries() == PackedWeightCache::kMaxEntries && cache.stats().evictions == 8);
  EXPECT(equal(cache.get(many.back().data(), 8, 64, 8), transposed(many.back(), 8, 64, 8)));
  std::vector<std::vector<float>> large;
  for (int i = 0; i < 12; ++i) large.push_back(pattern(128 * 512, static_cast<float>(i)));
  for (auto& m : large) EXPECT(cache.get(m.data(), 128, 512, 128) != nullptr);
  EXPECT(cache.bytes() <= PackedWeightCache::kMaxBytes && cache.entries() <= 8);
  std::vector<float> huge = pattern(256 * 1024, 0.5f);  // 2 MiB of packed copy and snapshot: not kept
  EXPECT(cache.get(huge.data(), 256, 1024, 256) == nullptr);

  // Through the kernel (AVX-512 CPUs): c = x @ W^T, W then changed in place, c again.
  if (small_gemm_weight_cache() == nullptr) {
    std::printf("packed_weight_cache: no AVX-512 here, kernel part skipped\n");
    return;
  }
  const int64_t m = 6;
  std::vector<float> x = pattern(static_cast<size_t>(m * k), 3.0f), c(static_cast<size_t>(m * n));
  auto product = [&] {
    const Matrix<const float> a{x.data(), m, k, k, 1}, b{w.data(), k, n, 1, ld};  // b = W^T, a view
    EXPECT(small_gemm(a, b, Matrix<float>{c.data(), m, n, n, 1}, 1.0f, 0.0f));
    double worst = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (int64_t kk = 0; kk < k; ++kk) want += double(x[size_t(i * k + kk)]) * w[size_t(j * ld + kk)];
        worst = std::fmax(worst, std::fabs(want - c[size_t(i * n + j)]));
      }
    return worst;
  };
  const PackedWeightCache::Stats start = small_gemm_weight_cache()->stats();
  EXPECT(product() < 1e-5);
  EXPECT(product() < 1e-5);
  const PackedWeightCache::Stats& now = small_gemm_weight_cache()->stats();
  EXPECT(now.hits == start.hits + 1 && now.packs == start.packs + 1);
  w[static_cast<size_t>(7 * ld + 11)] = 100.0f;
  EXPECT(product() < 1e-4);
  EXPECT(now.packs == start.packs + 2);
}

// A weight inside a registered immutable range (an open model's parameters) is compared once, then
// served without the comparison until the registry changes: the model's close unregisters first,
// so other bytes at the same address afterwards (the next model's weights in reused memory) are
// compared and packed again, never served stale. Negative control: with the registration left in
// place across the change (a close that forgot to unregister), the cache does serve the stale
// copy, so the unregistering is what prevents it.
void packed_weight_immutable() {
  const int64_t k = 16, n = 32;
  const std::vector<float> first = pattern(static_cast<size_t>(k * n), 1.0f),
                           second = pattern(static_cast<size_t>(k * n), 2.0f);
  for (bool unregister : {true, false}) {
    std::vector<float> w(first);
    const auto start = reinterpret_cast<uintptr_t>(w.data());
    int owner = 0;
    shimgen::rt::register_immutable(&owner, {{start, start + w.size() * sizeof(float)}});
    PackedWeightCache cache(pack_transposed);
    EXPECT(equal(cache.get(w.data(), k, n, k), transposed(first, k, n, k)));
    EXPECT(equal(cache.get(w.data(), k, n, k), transposed(first, k, n, k)));
    EXPECT(cache.get(w.data(), k, n, k) != nullptr && cache.stats().packs == 1 && cache.stats().trusted == 2);
    if (unregister) shimgen::rt::unregister_immutable(&owner);  // the model goes ...
    w = second;                                                 // ... other bytes, same address
    EXPECT(reinterpret_cast<uintptr_t>(w.data()) == start);
    const float* again = cache.get(w.data(), k, n, k);
    if (unregister) {
      EXPECT(equal(again, transposed(second, k, n, k)) && cache.stats().packs == 2 && cache.stats().trusted == 2);
    } else {
      EXPECT(equal(again, transposed(first, k, n, k)) && cache.stats().trusted == 3);  // stale: the control
      shimgen::rt::unregister_immutable(&owner);
    }
    // A weight outside every registered range is compared on each hit; one straddling a range's end too.
    std::vector<float> heap(second);
    PackedWeightCache other(pack_transposed);
    other.get(heap.data(), k, n, k);
    other.get(heap.data(), k, n, k);
    const auto begin = reinterpret_cast<uintptr_t>(heap.data());
    shimgen::rt::register_immutable(&owner, {{begin, begin + heap.size() * sizeof(float) - 4}});
    other.get(heap.data(), k, n, k);
    other.get(heap.data(), k, n, k);
    shimgen::rt::unregister_immutable(&owner);
    EXPECT(other.stats().hits == 3 && other.stats().trusted == 0);
  }
}

// ---- small_attention vs a double-precision reference ----

struct Case {
  int64_t B, H, L, S, E, Ev;
  bool causal;
  int mask;           // 0 none, 1 bool [L, S], 2 float [B, 1, L, S] with -inf rows
  bool transposed_q;  // q as [B, L, H, E].transpose(1, 2), as a Linear's output split into heads
};

std::unique_ptr<Tensor> tensor(std::vector<int64_t> sizes, std::vector<int64_t> strides, int32_t dtype, float seed) {
  auto t = shimgen::rt::empty_tensor(sizes, strides, dtype, shimgen::rt::kCPU, 0);
  const int64_t span = shimgen::rt::span_elements(sizes, strides);
  for (int64_t i = 0; i < span; ++i) {
    if (dtype == shimgen::rt::kBool)
      reinterpret_cast<bool*>(t->data())[i] = (i * 7 + static_cast<int64_t>(seed)) % 5 != 0;
    else reinterpret_cast<float*>(t->data())[i] = std::sin(seed + 0.61f * static_cast<float>(i));
  }
  return t;
}

float at(const Tensor& t, std::initializer_list<int64_t> index) {
  int64_t off = 0, d = 0;
  for (int64_t i : index) off += i * t.strides[static_cast<size_t>(d++)];
  return reinterpret_cast<const float*>(t.data())[off];
}

void attention_case(const Case& c) {
  using shimgen::rt::kBool;
  using shimgen::rt::kFloat32;
  auto q = c.transposed_q ? tensor({c.B, c.H, c.L, c.E}, {c.L * c.H * c.E, c.E, c.H * c.E, 1}, kFloat32, 1.0f)
                          : tensor({c.B, c.H, c.L, c.E}, {c.H * c.L * c.E, c.L * c.E, c.E, 1}, kFloat32, 1.0f);
  auto k = tensor({c.B, c.H, c.S, c.E}, {c.H * c.S * c.E, c.S * c.E, 1, c.S}, kFloat32, 2.0f);  // e outermost
  auto v = tensor({c.B, c.H, c.S, c.Ev}, {c.H * c.S * c.Ev, c.S * c.Ev, c.Ev, 1}, kFloat32, 3.0f);
  std::unique_ptr<Tensor> mask;
  if (c.mask == 1) mask = tensor({c.L, c.S}, {c.S, 1}, kBool, 4.0f);
  if (c.mask == 2) {
    mask = tensor({c.B, 1, c.L, c.S}, {c.L * c.S, c.L * c.S, c.S, 1}, kFloat32, 5.0f);
    for (int64_t j = 0; j < c.S; ++j) reinterpret_cast<float*>(mask->data())[1 * c.S + j] = -INFINITY;  // row 1: no key
  }
  auto out = tensor({c.B, c.H, c.L, c.Ev}, {c.H * c.L * c.Ev, c.L * c.Ev, c.Ev, 1}, kFloat32, 0.0f);
  auto lse = tensor({c.B, c.H, c.L}, {c.L * c.H, 1, c.H}, kFloat32, 0.0f);
  const double scale = 1.0 / std::sqrt(static_cast<double>(c.E > 0 ? c.E : 1));
  if (!small_attention(*q, *k, *v, mask.get(), c.causal, scale, *out, *lse)) {
    std::printf("small_attention: shape not taken (no AVX-512?)\n");
    return;
  }
  double worst = 0;
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t h = 0; h < c.H; ++h)
      for (int64_t i = 0; i < c.L; ++i) {
        std::vector<double> s(static_cast<size_t>(c.S), -INFINITY);
        double best = -INFINITY;
        for (int64_t j = 0; j < c.S; ++j) {
          if (c.causal && j > i) continue;
          if (c.mask == 1 && !reinterpret_cast<const bool*>(mask->data())[i * c.S + j]) continue;
          double dot = 0;
          for (int64_t e = 0; e < c.E; ++e) dot += double(at(*q, {b, h, i, e})) * at(*k, {b, h, j, e});
          s[size_t(j)] = dot * scale + (c.mask == 2 ? double(at(*mask, {b, 0, i, j})) : 0.0);
          best = std::fmax(best, s[size_t(j)]);
        }
        double sum = 0;
        for (double& x : s) sum += (x = best == -INFINITY ? 0.0 : std::exp(x - best));
        for (int64_t e = 0; e < c.Ev; ++e) {
          double want = 0;
          for (int64_t j = 0; j < c.S; ++j) want += s[size_t(j)] * at(*v, {b, h, j, e});
          want = sum > 0 ? want / sum : 0.0;
          worst = std::fmax(worst, std::fabs(want - at(*out, {b, h, i, e})));
        }
        const double want_lse = sum > 0 ? best + std::log(sum) : -INFINITY;
        const float got_lse = at(*lse, {b, h, i});
        if (want_lse == -INFINITY) EXPECT(got_lse == -INFINITY);
        else worst = std::fmax(worst, std::fabs(want_lse - got_lse));
      }
  if (!(worst < 2e-5)) {
    std::fprintf(stderr, "small_attention B%lld H%lld L%lld S%lld E%lld Ev%lld causal %d mask %d: error %g\n",
                 (long long)c.B, (long long)c.H, (long long)c.L, (long long)c.S, (long long)c.E, (long long)c.Ev,
                 int(c.causal), c.mask, worst);
    ++g_failures;
  }
}

// Edge shapes for the sanitizers (masked loads and stores at every 16-lane boundary) and values.
void small_attention_cases() {
  const Case cases[] = {
      {2, 4, 16, 16, 8, 8, true, 0, true},     {1, 2, 17, 33, 5, 7, false, 0, false},
      {1, 1, 8, 1, 1, 1, true, 0, false},      {1, 1, 40, 20, 16, 24, true, 0, true},
      {2, 1, 31, 47, 33, 17, false, 1, false}, {2, 2, 16, 16, 8, 8, true, 2, true},
      {1, 1, 9, 256, 64, 64, false, 2, false}, {1, 1, 12, 5, 0, 3, false, 0, false},
  };
  for (const Case& c : cases) attention_case(c);
}

// A run's worth of shim calls (allocate, view, new handle, addmm, attention, free); every handle
// is freed before it returns.
void one_run() {
  AtenTensorHandle x = nullptr, w = nullptr, bias = nullptr, y = nullptr, view = nullptr, alias = nullptr;
  const int64_t xs[2] = {32, 32}, ws[2] = {96, 32}, bs[1] = {96}, ys[2] = {32, 96};
  const int64_t w_t[2] = {1, 32};  // W^T as a view: [32, 96], strides (1, 32)
  EXPECT(aoti_torch_empty_strided(2, xs, nullptr, 6, 0, 0, &x) == 0);
  EXPECT(aoti_torch_empty_strided(2, ws, nullptr, 6, 0, 0, &w) == 0);
  EXPECT(aoti_torch_empty_strided(1, bs, nullptr, 6, 0, 0, &bias) == 0);
  EXPECT(aoti_torch_empty_strided(2, ys, nullptr, 6, 0, 0, &y) == 0);
  for (AtenTensorHandle h : {x, w, bias}) {
    void* p = nullptr;
    aoti_torch_get_data_ptr(h, &p);
    int64_t n = 0;
    aoti_torch_get_numel(h, &n);
    for (int64_t i = 0; i < n; ++i) static_cast<float*>(p)[i] = 0.01f * static_cast<float>(i % 17);
  }
  const int64_t wt_sizes[2] = {32, 96};
  EXPECT(aoti_torch__reinterpret_tensor(w, 2, wt_sizes, w_t, 0, &view) == 0);
  EXPECT(aoti_torch_cpu_addmm_out(y, bias, x, view, 1.0, 1.0) == 0);
  EXPECT(aoti_torch_new_tensor_handle(y, &alias) == 0);
  const int64_t qs[4] = {2, 4, 16, 8}, qst[4] = {16 * 96, 8, 96, 1};
  AtenTensorHandle q = nullptr, out = nullptr, lse = nullptr;
  // y holds [32, 96]; as [2, 16, 96], q, k and v are head-split views 0, 32 and 64 floats in.
  AtenTensorHandle k = nullptr, v = nullptr;
  EXPECT(aoti_torch__reinterpret_tensor(alias, 4, qs, qst, 0, &q) == 0);
  EXPECT(aoti_torch__reinterpret_tensor(alias, 4, qs, qst, 32, &k) == 0);
  EXPECT(aoti_torch__reinterpret_tensor(alias, 4, qs, qst, 64, &v) == 0);
  EXPECT(aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, 1, nullptr, nullptr, &out, &lse) ==
         0);
  for (AtenTensorHandle h : {x, w, bias, y, view, alias, q, k, v, out, lse}) aoti_torch_delete_tensor_object(h);
}

// Free lists: once warm, a run's handles, storages and buffers come back from them (the same
// objects), and no C++ allocation happens. Control: the counter does see an allocation.
void free_lists() {
  for (int i = 0; i < 3; ++i) one_run();
  if (!shimgen::rt::free_lists_kept()) {
    std::printf("free_lists: not kept in this build (AddressSanitizer)\n");
    return;
  }
  const long before = g_news.load();
  for (int i = 0; i < 100; ++i) one_run();
  const long during = g_news.load() - before;
  if (during != 0) {
    std::fprintf(stderr, "free_lists: %ld C++ allocations in 100 warm runs\n", during);
    ++g_failures;
  }
  const long control = g_news.load();
  std::vector<int>* probe = new std::vector<int>(5);
  delete probe;
  EXPECT(g_news.load() - control == 2);  // the vector and its buffer: the counter works
  // The same Tensor object and buffer come back for the next tensor of that size class.
  AtenTensorHandle a = nullptr, b = nullptr;
  const int64_t sizes[1] = {100};
  aoti_torch_empty_strided(1, sizes, nullptr, 6, 0, 0, &a);
  void* data_a = nullptr;
  aoti_torch_get_data_ptr(a, &data_a);
  aoti_torch_delete_tensor_object(a);
  const int64_t other[2] = {9, 11};  // 396 bytes: the same 512-byte class as 400
  aoti_torch_empty_strided(2, other, nullptr, 6, 0, 0, &b);
  void* data_b = nullptr;
  aoti_torch_get_data_ptr(b, &data_b);
  EXPECT(b == a && data_b == data_a);
  int64_t dim = 0;
  aoti_torch_get_dim(b, &dim);
  EXPECT(dim == 2);
  aoti_torch_delete_tensor_object(b);
  // Handles made on one thread and freed on another; both threads end (their lists emptied).
  std::vector<AtenTensorHandle> made(64, nullptr);
  std::thread maker([&] {
    for (auto& h : made) aoti_torch_empty_strided(1, sizes, nullptr, 6, 0, 0, &h);
  });
  maker.join();
  std::thread dropper([&] {
    for (auto h : made) aoti_torch_delete_tensor_object(h);
    for (int i = 0; i < 10; ++i) one_run();
  });
  dropper.join();
}

// The int8 GEMMs (ops/cpu/onednn_quant.cpp), dispatched and portable, against an int64 reference
// on every remainder the vector kernels have: rows around the 4-row block, k around the 32-wide
// vector and odd (the by-rows kernel reads x in pairs), channels around the 32-wide block, and
// leading dimensions wider than the data. Operands at the ends of their ranges (x in [-255, 255],
// w in [-128, 127]) so that an int16 product or pair sum that overflowed would show.
void int8_gemms() {
  using shimgen::rt::cpu::quant::Int8Gemm;
  uint32_t state = 12345;
  auto next = [&state] { return state = state * 1664525u + 1013904223u; };
  int cases = 0;
  for (int64_t rows : {1, 3, 4, 5, 9})
    for (int64_t k : {1, 2, 31, 32, 33, 64, 95})
      for (int64_t n : {1, 5, 32, 33, 70}) {
        const int64_t x_stride = k + (k & 1) + 2, pad = 3;
        std::vector<int16_t> x(static_cast<size_t>(rows * x_stride), 0);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t i = 0; i < k; ++i)
            x[r * x_stride + i] = static_cast<int16_t>(next() % 3 == 0 ? (next() & 1 ? 255 : -255)
                                                                       : static_cast<int>(next() % 511) - 255);
        std::vector<int8_t> w_rows(static_cast<size_t>(k * (n + pad))), w_cols(static_cast<size_t>(n * (k + pad)));
        std::vector<int64_t> want(static_cast<size_t>(rows * n), 0);
        for (int64_t i = 0; i < k; ++i)
          for (int64_t j = 0; j < n; ++j) {
            const int8_t v = static_cast<int8_t>(next() % 4 == 0 ? -128 : static_cast<int>(next() % 256) - 128);
            w_rows[i * (n + pad) + j] = w_cols[j * (k + pad) + i] = v;
          }
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < k; ++i) want[r * n + j] += int64_t{x[r * x_stride + i]} * w_rows[i * (n + pad) + j];
        for (bool portable : {false, true}) {
          const Int8Gemm by_rows = shimgen::rt::cpu::quant::int8_gemm_by_rows(portable);
          const Int8Gemm by_columns = shimgen::rt::cpu::quant::int8_gemm_by_columns(portable);
          const int64_t acc_stride = n + 1;
          std::vector<int32_t> a(static_cast<size_t>(rows * acc_stride), -1), b(a);
          by_rows(x.data(), x_stride, rows, k, w_rows.data(), n + pad, n, a.data(), acc_stride);
          by_columns(x.data(), x_stride, rows, k, w_cols.data(), k + pad, n, b.data(), acc_stride);
          for (int64_t r = 0; r < rows; ++r) {
            for (int64_t j = 0; j < n; ++j) {
              EXPECT(a[r * acc_stride + j] == want[r * n + j]);
              EXPECT(b[r * acc_stride + j] == want[r * n + j]);
            }
            EXPECT(a[r * acc_stride + n] == -1 && b[r * acc_stride + n] == -1);  // nothing past n written
          }
          ++cases;
        }
      }
  EXPECT(cases == 5 * 7 * 5 * 2);
}

}  // namespace

bool run_cpu_case(const std::string& name) {
  if (name == "int8_gemms") {
    int8_gemms();
    return true;
  }
  if (name == "packed_weight_cache") packed_weight_cache();
  else if (name == "packed_weight_immutable") packed_weight_immutable();
  else if (name == "small_attention") small_attention_cases();
  else if (name == "free_lists") free_lists();
  else return false;
  return true;
}
