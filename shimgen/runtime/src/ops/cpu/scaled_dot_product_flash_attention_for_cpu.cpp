// aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu: softmax(q k^T * scale + mask) v per
// (batch, head), scores and the value product through the BLAS. Returns PyTorch's two outputs: the
// attention output (laid out like empty_like(query)) and logsumexp [B, H, L] (strides of
// empty([B, L, H]).transpose(1, 2)), as torch's meta function promises the compiled model.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "../../cpu_kernels.h"
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

namespace shimgen::rt::cpu {
namespace {

// e^x for the softmax, where x = score - row maximum <= 0 (or -inf for a masked score). libm's expf
// is a call per element that the compiler cannot vectorize, and it was a quarter of a small
// transformer block's time; this is straight-line code the loop below vectorizes. x = n ln2 + r
// with |r| <= ln2/2 (Cody-Waite: ln2 split in two so n ln2 is exact), e^r by its Taylor series to
// r^7 (truncation error < 3e-9 relative, below float's 6e-8), 2^n put into the exponent bits.
// Below -87.3, e^x is under float's smallest normal: the result is 0 there, exactly 0 for -inf.
inline float softmax_exp(float x) {
  const float clamped = x < -87.0f ? -87.0f : x;
  const float shifter = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer (round-to-nearest)
  const float n = (clamped * 1.44269504088896341f + shifter) - shifter;
  const float r = (clamped - n * 0.693359375f) - n * -2.12194440e-4f;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return x < -87.0f ? 0.0f : p * scale;
}
inline double softmax_exp(double x) { return std::exp(x); }

// The exp pass over a whole score block. On x86-64 the float version is also compiled for AVX2 and
// picked at load time (an ifunc) where the CPU has it: twice the lanes of the SSE2 baseline, the
// same per-lane IEEE arithmetic (ISO C++ mode contracts no multiply-add), so the same results.
// Not in sanitizer builds: the ifunc resolver runs during relocation, before ThreadSanitizer's
// runtime is initialised, and its instrumented code then crashes the process (SIGSEGV at load).
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SHIMGEN_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SHIMGEN_SANITIZED 1
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(__linux__) && \
    !defined(SHIMGEN_SANITIZED)
__attribute__((target_clones("avx2", "default")))
#endif
void exp_block(float* x, int64_t n) {
  for (int64_t e = 0; e < n; ++e) x[e] = softmax_exp(x[e]);
}
void exp_block(double* x, int64_t n) {
  for (int64_t e = 0; e < n; ++e) x[e] = softmax_exp(x[e]);
}

// Softmax of each row of scores [L, S] in place, row i over its first visible[i] keys (the others
// become 0: keys a causal row cannot see, or all of them when every score is -inf); lse[i * lse_stride]
// gets the row's logsumexp. Whole-block passes rather than row by row: rows are short (S keys), and
// the exp pass is then one long loop the compiler vectorizes without a remainder per row.
template <typename T>
void softmax_rows(T* scores, int64_t L, int64_t S, const int64_t* visible, T* lse, int64_t lse_stride, T* best) {
  const T neg_inf = -std::numeric_limits<T>::infinity();
  for (int64_t i = 0; i < L; ++i) {
    T* row = scores + i * S;
    T m = neg_inf;
    for (int64_t j = 0; j < visible[i]; ++j) m = row[j] > m ? row[j] : m;
    for (int64_t j = visible[i]; j < S; ++j) row[j] = neg_inf;
    best[i] = m;
    const T shift = m == neg_inf ? T(0) : m;  // an all -inf row stays -inf, so exp gives 0
    for (int64_t j = 0; j < S; ++j) row[j] -= shift;
  }
  exp_block(scores, L * S);
  for (int64_t i = 0; i < L; ++i) {
    T* row = scores + i * S;
    T sum = 0;
    for (int64_t j = 0; j < S; ++j) sum += row[j];
    const T inv = sum > 0 ? T(1) / sum : T(0);
    for (int64_t j = 0; j < S; ++j) row[j] *= inv;
    lse[i * lse_stride] = sum > 0 ? best[i] + std::log(sum) : neg_inf;
  }
}

template <typename T> void attend(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask, bool causal,
                                  double scale, const Tensor& out, const Tensor& lse) {
  if constexpr (std::is_same_v<T, float>) {
    // cpu_small_attention.cpp reads key/value head h for query head h: not for grouped heads.
    if (k.sizes[1] == q.sizes[1] && small_attention(q, k, v, mask, causal, scale, out, lse)) return;
  }
  const int64_t B = q.sizes[0], H = q.sizes[1], L = q.sizes[2], E = q.sizes[3], S = k.sizes[2], Ev = v.sizes[3];
  // Scratch kept per thread: three allocations a call were a visible share of a small model's time.
  // Every element is written before it is read, so what a previous call left there never matters.
  thread_local std::vector<T> scores, best;
  thread_local std::vector<int64_t> visible;
  scores.resize(static_cast<size_t>(L * S));
  best.resize(static_cast<size_t>(L));
  // Causal is top-left aligned, as PyTorch's is_causal: row i sees keys 0..i.
  visible.resize(static_cast<size_t>(L));
  for (int64_t i = 0; i < L; ++i) visible[static_cast<size_t>(i)] = causal ? std::min<int64_t>(i + 1, S) : S;
  const T* qp = reinterpret_cast<const T*>(q.data());
  const T* kp = reinterpret_cast<const T*>(k.data());
  const T* vp = reinterpret_cast<const T*>(v.data());
  T* op = reinterpret_cast<T*>(out.data());
  T* lp = reinterpret_cast<T*>(lse.data());
  // The mask broadcast to [B, H, L, S]: right-aligned, size-1 dimensions repeat (stride 0).
  int64_t ms[4] = {0, 0, 0, 0};
  if (mask) {
    const size_t md = mask->sizes.size();
    for (size_t i = 0; i < md; ++i) ms[4 - md + i] = mask->sizes[i] == 1 ? 0 : mask->strides[i];
  }
  const bool bool_mask = mask && mask->dtype == kBool;
  const T neg_inf = -std::numeric_limits<T>::infinity();
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < H; ++h) {
      Matrix<const T> qm{qp + b * q.strides[0] + h * q.strides[1], L, E, q.strides[2], q.strides[3]};
      // Grouped-query attention (enable_gqa): query head h reads key/value head h / (H / H_kv).
      const int64_t kv = h / (H / k.sizes[1]);
      Matrix<const T> km{kp + b * k.strides[0] + kv * k.strides[1], S, E, k.strides[2], k.strides[3]};
      Matrix<const T> vm{vp + b * v.strides[0] + kv * v.strides[1], S, Ev, v.strides[2], v.strides[3]};
      Matrix<T> sm{scores.data(), L, S, S, 1};
      gemm(qm, km.transposed(), sm, static_cast<T>(scale), T(0), BOperand::kActivation);
      for (int64_t i = 0; i < L; ++i) {
        T* row = scores.data() + i * S;
        if (mask) {
          for (int64_t j = 0; j < visible[i]; ++j) {
            const char* m =
                mask->data() + (b * ms[0] + h * ms[1] + i * ms[2] + j * ms[3]) * static_cast<int64_t>(mask->itemsize());
            if (bool_mask) {
              if (!*reinterpret_cast<const bool*>(m)) row[j] = neg_inf;
            } else {
              row[j] += *reinterpret_cast<const T*>(m);
            }
          }
        }
      }
      softmax_rows(scores.data(), L, S, visible.data(), lp + b * lse.strides[0] + h * lse.strides[1], lse.strides[2],
                   best.data());
      Matrix<T> om{op + b * out.strides[0] + h * out.strides[1], L, Ev, out.strides[2], out.strides[3]};
      gemm(Matrix<const T>{scores.data(), L, S, S, 1}, vm, om, T(1), T(0), BOperand::kActivation);
    }
  }
}

}  // namespace
}  // namespace shimgen::rt::cpu

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" {

AOTITorchError aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value, double dropout_p, int32_t is_causal,
    AtenTensorHandle* attn_mask, double* scale, AtenTensorHandle* ret0, AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret0 != nullptr && ret1 != nullptr, "ret0/ret1 is null");
    // bfloat16/float16 are computed in float32 (torch's CPU flash attention accumulates in float32 too;
    // its logsumexp is float32), the output rounded once.
    auto operand = [](AtenTensorHandle h, const char* what) -> const Tensor& {
      const Tensor* t = unwrap(h, what);
      return is_half_dtype(t->dtype) && t->storage->device_type == kCPU ? *t : float_tensor(h, what);
    };
    const Tensor& q = operand(query, "query");
    const Tensor& k = operand(key, "key");
    const Tensor& v = operand(value, "value");
    const Tensor* mask = optional_tensor(attn_mask, "attn_mask");
    if (dropout_p != 0.0) fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "dropout_p must be 0 (inference only)");
    SHIMGEN_REQUIRE(q.sizes.size() == 4 && k.sizes.size() == 4 && v.sizes.size() == 4,
                    "query, key and value must be 4-d [B, H, L, E], got " + shape_str(q.sizes) + ", " +
                        shape_str(k.sizes) + ", " + shape_str(v.sizes));
    SHIMGEN_REQUIRE(k.dtype == q.dtype && v.dtype == q.dtype, "query, key and value must have one dtype");
    // Key/value heads equal query heads, or divide them (grouped-query attention, enable_gqa).
    SHIMGEN_REQUIRE(k.sizes[0] == q.sizes[0] && v.sizes[0] == q.sizes[0] && v.sizes[1] == k.sizes[1] &&
                        k.sizes[1] > 0 && q.sizes[1] % k.sizes[1] == 0 && k.sizes[3] == q.sizes[3] &&
                        v.sizes[2] == k.sizes[2],
                    "shapes do not match: query " + shape_str(q.sizes) + ", key " + shape_str(k.sizes) + ", value " +
                        shape_str(v.sizes));
    if (mask) {
      SHIMGEN_REQUIRE(mask->storage->device_type == kCPU, "attn_mask is not a CPU tensor");
      SHIMGEN_REQUIRE(mask->dtype == q.dtype || mask->dtype == kBool, "attn_mask must be bool or query's dtype");
      SHIMGEN_REQUIRE(mask->sizes.size() <= 4, "attn_mask has more than 4 dimensions");
      const int64_t want[4] = {q.sizes[0], q.sizes[1], q.sizes[2], k.sizes[2]};
      const size_t md = mask->sizes.size();
      for (size_t i = 0; i < md; ++i)
        SHIMGEN_REQUIRE(mask->sizes[i] == 1 || mask->sizes[i] == want[4 - md + i],
                        "attn_mask " + shape_str(mask->sizes) + " does not broadcast to [B, H, L, S]");
    }
    const double s = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(q.sizes[3]));
    // Shapes on the stack: the tensors come from the free lists, and a call allocates nothing.
    const int64_t B = q.sizes[0], H = q.sizes[1], L = q.sizes[2];
    const int64_t out_sizes[4] = {B, H, L, v.sizes[3]};
    int64_t out_strides[4];
    if (v.sizes[3] == q.sizes[3]) {
      dense_strides_like(q.sizes, q.strides.data(), out_strides);
    } else {
      out_strides[3] = 1;
      for (int d = 3; d > 0; --d)
        out_strides[d - 1] = checked_mul(out_strides[d], out_sizes[d] > 0 ? out_sizes[d] : 1, "stride");
    }
    auto out = empty_tensor(4, out_sizes, out_strides, q.dtype, kCPU, 0);
    const bool half = is_half_dtype(q.dtype);
    const int64_t lse_sizes[3] = {B, H, L}, lse_strides[3] = {checked_mul(L, H, "logsumexp stride"), 1, H};
    auto lse = empty_tensor(3, lse_sizes, lse_strides, half ? kFloat32 : q.dtype, kCPU, 0);
    if (out->numel() > 0 && k.sizes[2] > 0) {
      if (q.dtype == kFloat32) {
        attend<float>(q, k, v, mask, is_causal != 0, s, *out, *lse);
      } else if (q.dtype == kFloat64) {
        attend<double>(q, k, v, mask, is_causal != 0, s, *out, *lse);
      } else {
        const auto wq = widened(q), wk = widened(k), wv = widened(v);
        const auto wmask = mask != nullptr && mask->dtype != kBool ? widened(*mask) : nullptr;
        const auto wide_out = empty_tensor(4, out_sizes, out_strides, kFloat32, kCPU, 0);
        attend<float>(*wq, *wk, *wv, wmask ? wmask.get() : mask, is_causal != 0, s, *wide_out, *lse);
        store_narrowed(*wide_out, *out);
      }
    }
    *ret0 = wrap(std::move(out));
    *ret1 = wrap(std::move(lse));
  });
}

}  // extern "C"
