// aoti_torch_cpu__weight_int4pack_mm_cpu_tensor: torch._weight_int4pack_mm_for_cpu, int4 weight-only
// linear on the CPU (torchao's / gpt-fast's int4 path there): out [M, N] = X [M, K] @ W^T with
// W[n, k] = (q[n, k] - 8) * scale[k / G, n] + zero[k / G, n], qScaleAndZeros [K / G, N, 2] holding
// (scale, zero) in X's dtype, G the group size (qGroupSize: a one-element integer tensor, as the
// generated code passes it). q comes packed as torch._convert_weight_to_int4pack_for_cpu lays it out
// (uint8 [N, K / 2], two 4-bit values a byte; measured from that function's output): the rows in
// blocks of 64 and then one block of the remaining N % 64 (a multiple of 16); in a block of 64, row
// r of column k is byte k * 32 + r % 32 of the block, the low nibble for r < 32 and the high one
// above; in a smaller block of B rows, byte k * B / 2 + r / 2, the low nibble for even r. X float32,
// bfloat16 or float16; sums in float32 (double for float32 X), rounded once to X's dtype.
#include <algorithm>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

// q[n][k] for every n, k (values 0..15) from the packed bytes.
std::vector<uint8_t> unpack_int4(const uint8_t* packed, int64_t N, int64_t K) {
  std::vector<uint8_t> q(static_cast<size_t>(N * K));
  int64_t start = 0;
  while (start < N) {
    const int64_t block = N - start >= 64 ? 64 : N - start;
    const uint8_t* base = packed + start * K / 2;
    for (int64_t r = 0; r < block; ++r)
      for (int64_t k = 0; k < K; ++k) {
        uint8_t byte;
        bool high;
        if (block == 64) {
          byte = base[k * 32 + r % 32];
          high = r >= 32;
        } else {
          byte = base[k * (block / 2) + r / 2];
          high = (r % 2) == 1;
        }
        q[static_cast<size_t>((start + r) * K + k)] = high ? static_cast<uint8_t>(byte >> 4) : static_cast<uint8_t>(byte & 15);
      }
    start += block;
  }
  return q;
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__weight_int4pack_mm_cpu_tensor(
    AtenTensorHandle X, AtenTensorHandle w, AtenTensorHandle qGroupSize, AtenTensorHandle qScaleAndZeros,
    AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& a = cpu_tensor(X, "X");
    const Tensor& b = cpu_tensor(w, "w");
    const Tensor& g = cpu_tensor(qGroupSize, "qGroupSize");
    const Tensor& sz = cpu_tensor(qScaleAndZeros, "qScaleAndZeros");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(a.dtype == kFloat32 || a.dtype == kBFloat16 || a.dtype == kFloat16,
                    "_weight_int4pack_mm_cpu : expect A to be either 32-bit or 16-bit float tensor.");
    SHIMGEN_REQUIRE(a.sizes.size() == 2, "_weight_int4pack_mm_cpu : expect A to be 2D tensor.");
    SHIMGEN_REQUIRE(b.dtype == kUInt8 && b.sizes.size() == 2, "_weight_int4pack_mm_cpu : expect B to be uint8 2D tensor.");
    SHIMGEN_REQUIRE(b.is_contiguous(), "_weight_int4pack_mm_cpu : expect B to be contiguous.");
    const int64_t M = a.sizes[0], K = a.sizes[1], N = b.sizes[0];
    SHIMGEN_REQUIRE(b.sizes[1] * 2 == K, "_weight_int4pack_mm_cpu : expect B.size(1) == " + std::to_string(K / 2) +
                                             ", got " + shape_str(b.sizes));
    SHIMGEN_REQUIRE(N % 16 == 0, "_weight_int4pack_mm_cpu : expect N to be divisible by 16, got " + std::to_string(N));
    SHIMGEN_REQUIRE(g.numel() == 1 && is_integral_dtype(g.dtype), "_weight_int4pack_mm_cpu : qGroupSize must be a "
                                                                  "one-element integer tensor");
    int64_t G = 0;
    dispatch_real(g.dtype, "_weight_int4pack_mm_cpu", [&](auto t) {
      G = static_cast<int64_t>(value_of(reinterpret_cast<const decltype(t)*>(g.data())[0]));
    });
    SHIMGEN_REQUIRE(G == 32 || G == 64 || G == 128 || G == 256,
                    "_weight_int4pack_mm_cpu : qGroupSize must be 32, 64, 128 or 256, got " + std::to_string(G));
    SHIMGEN_REQUIRE(K % G == 0, "_weight_int4pack_mm_cpu : K must be a multiple of qGroupSize");
    SHIMGEN_REQUIRE(sz.sizes == std::vector<int64_t>({K / G, N, 2}) && sz.dtype == a.dtype,
                    "_weight_int4pack_mm_cpu : expect qScaleAndZeros to be " + shape_str({K / G, N, 2}) +
                        " of A's dtype, got " + shape_str(sz.sizes));
    const std::vector<uint8_t> q = unpack_int4(reinterpret_cast<const uint8_t*>(b.data()), N, K);
    const std::vector<int64_t> sizes{M, N};
    auto out = empty_tensor(sizes, contiguous_strides_of(sizes), a.dtype, kCPU, -1);
    dispatch_floating(a.dtype, "_weight_int4pack_mm_cpu", [&](auto t) {
      using T = decltype(t);
      using A = std::conditional_t<std::is_same_v<T, float>, double, float>;
      const auto* x = reinterpret_cast<const T*>(a.data());
      const auto* s = reinterpret_cast<const T*>(sz.data());
      auto* dst = reinterpret_cast<T*>(out->data());
      std::vector<A> wrow(static_cast<size_t>(K));
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t k = 0; k < K; ++k) {
          const int64_t grp = k / G;
          const A scale = static_cast<A>(value_of(s[grp * sz.strides[0] + n * sz.strides[1]]));
          const A zero = static_cast<A>(value_of(s[grp * sz.strides[0] + n * sz.strides[1] + sz.strides[2]]));
          wrow[static_cast<size_t>(k)] = (static_cast<A>(q[static_cast<size_t>(n * K + k)]) - A(8)) * scale + zero;
        }
        for (int64_t m = 0; m < M; ++m) {
          A acc = 0;
          for (int64_t k = 0; k < K; ++k)
            acc += static_cast<A>(value_of(x[m * a.strides[0] + k * a.strides[1]])) * wrow[static_cast<size_t>(k)];
          if constexpr (std::is_same_v<T, float>) dst[m * N + n] = static_cast<float>(acc);
          else dst[m * N + n] = T(static_cast<float>(acc));
        }
      }
    });
    *ret0 = wrap(std::move(out));
  });
}
