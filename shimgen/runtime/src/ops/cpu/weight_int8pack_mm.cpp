// aoti_torch_cpu__weight_int8pack_mm: the int8 weight-only linear (torch.ops.aten._weight_int8pack_mm,
// what torchao's int8 weight-only quantization lowers to on CPU): out [M, N] = (A @ B^T) * scales,
// A [M, K] float32/bfloat16/float16, B int8 [N, K] contiguous, scales [N] of A's dtype. Like torch's
// CPU kernel: the products and sums in float32, the scale applied to the sum, rounded once to A's
// dtype. A may have any strides (torch wants unit column stride); the new output is contiguous.
#include "shimgen_runtime/shim_cpu_ops.h"
#include "weight_only_mm.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

constexpr int64_t kTile = woq::kTileN;

// tile[k * 64 + j] = B[n0 + j, k] for the rows of B from n0 (zero past n).
void dequant_portable(const int8_t* b, int64_t n, int64_t k, int64_t n0, float* tile) {
  const int64_t nb = std::min(kTile, n - n0);
  for (int64_t p = 0; p < k; ++p) {
    float* dst = tile + p * kTile;
    for (int64_t j = 0; j < nb; ++j) dst[j] = static_cast<float>(b[(n0 + j) * k + p]);
    for (int64_t j = nb; j < kTile; ++j) dst[j] = 0.0f;
  }
}

#ifdef SHIMGEN_HAVE_AVX512
// 16 rows x 16 codes at a time: widened to float in registers and transposed into the tile.
SHIMGEN_AVX512 void dequant_avx512(const int8_t* b, int64_t n, int64_t k, int64_t n0, float* tile) {
  const int64_t nb = std::min(kTile, n - n0);
  const int64_t k16 = k - k % 16;
  for (int64_t j0 = 0; j0 < kTile; j0 += 16) {
    const int64_t rows = std::max<int64_t>(0, std::min<int64_t>(16, nb - j0));
    for (int64_t p = 0; p < k16; p += 16) {
      __m512 r[16];
      for (int64_t j = 0; j < 16; ++j) {
        if (j < rows) {
          const __m128i codes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + (n0 + j0 + j) * k + p));
          r[j] = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(codes));
        } else {
          r[j] = _mm512_setzero_ps();
        }
      }
      avx512::transpose16_store(r, tile + p * kTile + j0, kTile);
    }
    for (int64_t p = k16; p < k; ++p)
      for (int64_t j = 0; j < 16; ++j)
        tile[p * kTile + j0 + j] = j < rows ? static_cast<float>(b[(n0 + j0 + j) * k + p]) : 0.0f;
  }
}
#endif

template <class T> void int8pack_mm(const Tensor& a, const Tensor& b, const Tensor& scales, const Tensor& out) {
  const int64_t n = b.sizes[0], k = b.sizes[1];
  const auto* codes = reinterpret_cast<const int8_t*>(b.data());
  const auto* scale = reinterpret_cast<const T*>(scales.data());
  const int64_t scale_step = scales.strides[0];
  std::vector<float> col_scale(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) col_scale[static_cast<size_t>(j)] = static_cast<float>(scale[j * scale_step]);
  woq::product<T>(
      a, out, n,
      [&](int64_t n0, float* tile) {
#ifdef SHIMGEN_HAVE_AVX512
        if (avx512::has_avx512()) return dequant_avx512(codes, n, k, n0, tile);
#endif
        dequant_portable(codes, n, k, n0, tile);
      },
      [&](int64_t, int64_t j, float sum) { return sum * col_scale[static_cast<size_t>(j)]; });
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__weight_int8pack_mm(AtenTensorHandle self,
                                                                              AtenTensorHandle mat2,
                                                                              AtenTensorHandle scales,
                                                                              AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& a = cpu_tensor(self, "self");
    const Tensor& b = cpu_tensor(mat2, "mat2");
    const Tensor& s = cpu_tensor(scales, "scales");
    require_out(ret0, "ret0");
    const char* op = "_weight_int8pack_mm";
    SHIMGEN_REQUIRE(a.sizes.size() == 2, std::string(op) + ": expected A to be 2-D, got " + shape_str(a.sizes));
    SHIMGEN_REQUIRE(b.sizes.size() == 2 && b.dtype == kInt8,
                    std::string(op) + ": expected B to be a 2-D int8 tensor, got " + shape_str(b.sizes) +
                        " of dtype code " + std::to_string(b.dtype));
    SHIMGEN_REQUIRE(b.strides[1] == 1 && (b.sizes[0] <= 1 || b.strides[0] == b.sizes[1]),
                    std::string(op) + ": expected B to be contiguous");
    const int64_t n = b.sizes[0], k = b.sizes[1];
    SHIMGEN_REQUIRE(a.sizes[1] == k,
                    std::string(op) + ": A " + shape_str(a.sizes) + " and B " + shape_str(b.sizes) + " disagree on K");
    SHIMGEN_REQUIRE(s.sizes.size() == 1 && s.sizes[0] == n, std::string(op) + ": expected scales of shape [" +
                                                                std::to_string(n) + "], got " + shape_str(s.sizes));
    woq::dispatch_activation(a.dtype, op, [](auto) {});
    SHIMGEN_REQUIRE(s.dtype == a.dtype, std::string(op) + ": scales (dtype code " + std::to_string(s.dtype) +
                                            ") must have A's dtype (code " + std::to_string(a.dtype) + ")");
    const std::vector<int64_t> sizes{a.sizes[0], n};
    auto out = empty_tensor(sizes, contiguous_strides_of(sizes), a.dtype, kCPU, -1);
    woq::dispatch_activation(a.dtype, op, [&](auto type) { int8pack_mm<decltype(type)>(a, b, s, *out); });
    *ret0 = wrap(std::move(out));
  });
}
