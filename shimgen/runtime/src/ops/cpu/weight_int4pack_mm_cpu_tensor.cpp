// aoti_torch_cpu__weight_int4pack_mm_cpu_tensor: the int4 weight-only linear on CPU
// (torch.ops.aten._weight_int4pack_mm_for_cpu, what torchao's int4 weight-only quantization lowers
// to; inductor calls this shim with the group size as a 0-d int64 constant tensor).
//   A [M, K] float32/bfloat16/float16 (any strides), B uint8 [N, K/2] contiguous as made by
//   torch.ops.aten._convert_weight_to_int4pack_for_cpu(W int32 [N, K] of codes 0..15, innerKTiles),
//   qGroupSize 32, 64, 128 or 256 dividing K, qScaleAndZeros [K/qGroupSize (or more), N, 2] of A's
//   dtype (any strides).
//   out [M, N] = A @ W'^T with W'[n, k] = (W[n, k] - 8) * scale + zero, (scale, zero) =
//   qScaleAndZeros[k / qGroupSize, n]; float32 arithmetic, rounded once to A's dtype.
// The packed layout (measured on torch 2.13; innerKTiles does not change it): N in blocks of 64
// columns from the start, the last block the remaining 16, 32 or 48 (N must be a multiple of 16).
// A block of BN columns starting at column n0 is the bytes from n0 * K/2 on, BN/2 bytes per k in k
// order. In a 64-block byte j of a k holds column n0 + j in its low nibble and n0 + 32 + j in its
// high nibble; in a smaller block, columns n0 + 2j (low) and n0 + 2j + 1 (high).
#include "shimgen_runtime/shim_cpu_ops.h"
#include "weight_only_mm.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

constexpr int64_t kTile = woq::kTileN;

struct Packed {
  const uint8_t* bytes;
  int64_t n, k, group;
};

// The (scale, zero) pairs of group g for columns n0 .. n0+63, as float (zero past n).
template <class T> void group_params(const Tensor& sz, int64_t g, int64_t n0, int64_t nb, float* scale, float* zero) {
  const auto* p = reinterpret_cast<const T*>(sz.data());
  for (int64_t j = 0; j < kTile; ++j) {
    const bool in = j < nb;
    const T* at = p + g * sz.strides[0] + (n0 + j) * sz.strides[1];
    scale[j] = in ? static_cast<float>(at[0]) : 0.0f;
    zero[j] = in ? static_cast<float>(at[sz.strides[2]]) : 0.0f;
  }
}

// The code of column n0 + j (j < nb) at row k of the block starting at n0.
inline int code_at(const Packed& w, int64_t n0, int64_t nb, int64_t j, int64_t k) {
  const uint8_t* row = w.bytes + n0 * (w.k / 2) + k * (nb / 2);
  if (nb == kTile) return j < 32 ? (row[j] & 15) : (row[j - 32] >> 4);
  return j % 2 == 0 ? (row[j / 2] & 15) : (row[j / 2] >> 4);
}

template <class T> void dequant_portable(const Packed& w, const Tensor& sz, int64_t n0, float* tile) {
  const int64_t nb = std::min(kTile, w.n - n0);
  float scale[kTile], zero[kTile];
  for (int64_t g = 0; g < w.k / w.group; ++g) {
    group_params<T>(sz, g, n0, nb, scale, zero);
    for (int64_t k = g * w.group; k < (g + 1) * w.group; ++k) {
      float* dst = tile + k * kTile;
      for (int64_t j = 0; j < nb; ++j) dst[j] = static_cast<float>(code_at(w, n0, nb, j, k) - 8) * scale[j] + zero[j];
      for (int64_t j = nb; j < kTile; ++j) dst[j] = 0.0f;
    }
  }
}

#ifdef SHIMGEN_HAVE_AVX512
// A full 64-column block: 32 bytes per k, low nibbles columns 0..31, high nibbles 32..63.
template <class T>
SHIMGEN_AVX512 void dequant_block64_avx512(const Packed& w, const Tensor& sz, int64_t n0, float* tile) {
  alignas(64) float scale[kTile], zero[kTile];
  const uint8_t* block = w.bytes + n0 * (w.k / 2);
  const __m512i eight = _mm512_set1_epi32(8), mask = _mm512_set1_epi32(15);
  for (int64_t g = 0; g < w.k / w.group; ++g) {
    group_params<T>(sz, g, n0, kTile, scale, zero);
    __m512 s[4], z[4];
    for (int v = 0; v < 4; ++v) {
      s[v] = _mm512_load_ps(scale + 16 * v);
      z[v] = _mm512_load_ps(zero + 16 * v);
    }
    for (int64_t k = g * w.group; k < (g + 1) * w.group; ++k) {
      const uint8_t* row = block + k * (kTile / 2);
      const __m512i b0 = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row)));
      const __m512i b1 = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 16)));
      const __m512i q[4] = {_mm512_and_si512(b0, mask), _mm512_and_si512(b1, mask), _mm512_srli_epi32(b0, 4),
                            _mm512_srli_epi32(b1, 4)};
      float* dst = tile + k * kTile;
      for (int v = 0; v < 4; ++v) {
        const __m512 x = _mm512_cvtepi32_ps(_mm512_sub_epi32(q[v], eight));
        _mm512_storeu_ps(dst + 16 * v, _mm512_add_ps(_mm512_mul_ps(x, s[v]), z[v]));
      }
    }
  }
}
#endif

template <class T> void int4pack_mm(const Tensor& a, const Packed& w, const Tensor& sz, const Tensor& out) {
  woq::product<T>(
      a, out, w.n,
      [&](int64_t n0, float* tile) {
#ifdef SHIMGEN_HAVE_AVX512
        if (w.n - n0 >= kTile && avx512::has_avx512()) return dequant_block64_avx512<T>(w, sz, n0, tile);
#endif
        dequant_portable<T>(w, sz, n0, tile);
      },
      [](int64_t, int64_t, float sum) { return sum; });
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError
aoti_torch_cpu__weight_int4pack_mm_cpu_tensor(AtenTensorHandle X, AtenTensorHandle w, AtenTensorHandle qGroupSize,
                                              AtenTensorHandle qScaleAndZeros, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& a = cpu_tensor(X, "X");
    const Tensor& b = cpu_tensor(w, "w");
    const Tensor& gs = cpu_tensor(qGroupSize, "qGroupSize");
    const Tensor& sz = cpu_tensor(qScaleAndZeros, "qScaleAndZeros");
    require_out(ret0, "ret0");
    const std::string op = "_weight_int4pack_mm_for_cpu";
    SHIMGEN_REQUIRE(a.sizes.size() == 2, op + ": expected A to be 2-D, got " + shape_str(a.sizes));
    SHIMGEN_REQUIRE(b.sizes.size() == 2 && b.dtype == kUInt8,
                    op + ": expected B to be a 2-D uint8 tensor (the packed int4 weight), got " + shape_str(b.sizes) +
                        " of dtype code " + std::to_string(b.dtype));
    SHIMGEN_REQUIRE(b.strides[1] == 1 && (b.sizes[0] <= 1 || b.strides[0] == b.sizes[1]),
                    op + ": expected B to be contiguous");
    const int64_t n = b.sizes[0], k = 2 * b.sizes[1];
    SHIMGEN_REQUIRE(n % 16 == 0, op + ": N (" + std::to_string(n) + ") must be a multiple of 16");
    SHIMGEN_REQUIRE(a.sizes[1] == k, op + ": A " + shape_str(a.sizes) +
                                         " does not have K = 2 * B.size(1) = " + std::to_string(k) + " columns");
    SHIMGEN_REQUIRE(gs.numel() == 1 && (gs.dtype == kInt64 || gs.dtype == kInt32),
                    op + ": qGroupSize must be a one-element int64 tensor");
    const int64_t group = gs.dtype == kInt64 ? *reinterpret_cast<const int64_t*>(gs.data())
                                             : *reinterpret_cast<const int32_t*>(gs.data());
    SHIMGEN_REQUIRE(group == 32 || group == 64 || group == 128 || group == 256,
                    op + ": expected qGroupSize to be 32, 64, 128 or 256, got " + std::to_string(group));
    SHIMGEN_REQUIRE(k % group == 0, op + ": K (" + std::to_string(k) + ") is not divisible by qGroupSize (" +
                                        std::to_string(group) + ")");
    SHIMGEN_REQUIRE(sz.sizes.size() == 3 && sz.sizes[0] >= k / group && sz.sizes[1] == n && sz.sizes[2] == 2,
                    op + ": expected qScaleAndZeros of shape [" + std::to_string(k / group) + ", " + std::to_string(n) +
                        ", 2], got " + shape_str(sz.sizes));
    woq::dispatch_activation(a.dtype, op.c_str(), [](auto) {});
    SHIMGEN_REQUIRE(sz.dtype == a.dtype, op + ": qScaleAndZeros (dtype code " + std::to_string(sz.dtype) +
                                             ") must have A's dtype (code " + std::to_string(a.dtype) + ")");
    const std::vector<int64_t> sizes{a.sizes[0], n};
    auto out = empty_tensor(sizes, contiguous_strides_of(sizes), a.dtype, kCPU, -1);
    const Packed packed{reinterpret_cast<const uint8_t*>(b.data()), n, k, group};
    woq::dispatch_activation(a.dtype, op.c_str(), [&](auto type) { int4pack_mm<decltype(type)>(a, packed, sz, *out); });
    *ret0 = wrap(std::move(out));
  });
}
