// aoti_torch_cuda__weight_int4pack_mm: out[M, N] = A[M, K] (bfloat16) @ dequant(B)^T, B being
// int4 weights in the tensor-core layout torch._convert_weight_to_int4pack (CUDA) writes:
//   int32 [N / 8][K / (inner_k_tiles * 16)][32 lanes][inner_k_tiles / 2], inner_k_tiles in {2, 4, 8};
//   each int32 holds two 16-deep k-tiles of one lane's column n = 8 * n_tile + lane / 4, with nibble
//   i (i < 4) at k = 32 * pair + 8 * i + 2 * (lane % 4) and nibble i + 4 at the k after it;
//   a nibble q means (q - 8) * scale + zero, scale and zero in qScaleAndZeros [K / group][N][2].
// That is the B fragment of mma.sync m16n8k16 (PTX ISA, "Matrix Fragments for mma.m16n8k16"), so
// each warp dequantizes its words in registers (bfloat16 FMA, rounded once as PyTorch's kernel
// does) and feeds tensor cores directly. A block owns 8 columns; its warps split K and sum at the end.
// Each warp issues all its weight loads for 32 k-tiles before the first multiply (one DRAM latency per
// warp at K = 4096, where 8 k-tiles a step paid four); two accumulator sets halve the mma.sync chain.
// For M <= 8 (decoding) a second kernel also stages the warp's slice of A and its scales and zeros in
// shared memory with cp.async before the first multiply: read from global memory inside the loop,
// they put about a dozen dependent load latencies between the mma.sync (measured: ~10 us at K = N =
// 4096 against torch's 6 us, whatever the weight loads did).
#include "op_support.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

#include <cstring>

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

namespace {

constexpr int kWarps = 8;
// k-tiles (16 deep) a warp loads before it multiplies: at K = 4096 that is a warp's whole share, so
// every weight load of a warp is in flight at once and the kernel pays one DRAM latency, not four.
constexpr int kTilesPerStep = 32;

__device__ inline uint32_t bf16x2_bits(__nv_bfloat162 v) {
  uint32_t bits;
  memcpy(&bits, &v, 4);
  return bits;
}

__device__ inline __nv_bfloat162 bits_bf16x2(uint32_t bits) {
  __nv_bfloat162 v;
  memcpy(&v, &bits, 4);
  return v;
}

// Two adjacent bfloat16 at column `col` of a row of A; `row` is null outside the M rows.
__device__ inline uint32_t a_pair(const __nv_bfloat16* row, int col) {
  return row != nullptr ? __ldg(reinterpret_cast<const unsigned int*>(row + col)) : 0u;
}

// A lane's kWords consecutive int32 of B, as one vector load when the words are aligned for it.
template <int kWords>
__device__ inline void load_words(const int32_t* src, bool vector, uint32_t (&dst)[kWords]) {
  if constexpr (kWords == 4) {
    if (vector) {
      const uint4 v = __ldg(reinterpret_cast<const uint4*>(src));
      dst[0] = v.x; dst[1] = v.y; dst[2] = v.z; dst[3] = v.w;
      return;
    }
  } else if constexpr (kWords == 2) {
    if (vector) {
      const uint2 v = __ldg(reinterpret_cast<const uint2*>(src));
      dst[0] = v.x; dst[1] = v.y;
      return;
    }
  }
#pragma unroll
  for (int w = 0; w < kWords; ++w) dst[w] = static_cast<uint32_t>(__ldg(src + w));
}

template <int InnerKTiles>
__global__ void __launch_bounds__(kWarps * 32, 4)
    int4_mm_kernel(const __nv_bfloat16* __restrict__ a, int64_t lda, const int32_t* __restrict__ b, bool b_vector,
                   const __nv_bfloat16* __restrict__ qinfo, __nv_bfloat16* __restrict__ out, int64_t m, int64_t n,
                   int k, int group_shift) {
  constexpr int kWords = InnerKTiles / 2;                // int32 words per lane per outer tile
  constexpr int kOuterPerStep = kTilesPerStep / InnerKTiles;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t n_tile = blockIdx.x, m_tile = blockIdx.y;
  const int outer_tiles = k / (InnerKTiles * 16);
  const int64_t column = n_tile * 8 + lane / 4;
  const int64_t row0 = m_tile * 16 + lane / 4;
  // Per-lane base pointers, computed once: the loop below does 32-bit index arithmetic only.
  const __nv_bfloat16* a_lo = row0 < m ? a + row0 * lda : nullptr;
  const __nv_bfloat16* a_hi = row0 + 8 < m ? a + (row0 + 8) * lda : nullptr;
  const int32_t* b_lane = b + (n_tile * outer_tiles * 32 + lane) * kWords;
  const __nv_bfloat16* q_col = qinfo + column * 2;
  const int64_t q_row = n * 2;  // qScaleAndZeros' stride between groups
  // Two accumulator sets (the two 16-deep halves of a word) halve the chain of dependent mma.sync.
  float c[2][4] = {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};
  const __nv_bfloat162 bias = __floats2bfloat162_rn(-136.0f, -136.0f), one = __floats2bfloat162_rn(1.0f, 1.0f);

  for (int base = warp * kOuterPerStep; base < outer_tiles; base += kWarps * kOuterPerStep) {
    // Issue every weight load of this step first.
    uint32_t words[kOuterPerStep][kWords];
#pragma unroll
    for (int u = 0; u < kOuterPerStep; ++u) {
      const int outer = base + u;
      if (outer < outer_tiles) {
        load_words<kWords>(b_lane + outer * 32 * kWords, b_vector, words[u]);
      } else {
#pragma unroll
        for (int w = 0; w < kWords; ++w) words[u][w] = 0u;
      }
    }
#pragma unroll
    for (int u = 0; u < kOuterPerStep; ++u) {
      const int outer = base + u;
      if (outer >= outer_tiles) break;
#pragma unroll
      for (int w = 0; w < kWords; ++w) {
        const int k0 = (outer * InnerKTiles + 2 * w) * 16;  // first k of this word's two k-tiles
        const __nv_bfloat162 sz = *reinterpret_cast<const __nv_bfloat162*>(q_col + (k0 >> group_shift) * q_row);
        const __nv_bfloat162 scale = __bfloat162bfloat162(sz.x), zero = __bfloat162bfloat162(sz.y);
        uint32_t frag[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          // Nibbles i and i + 4 as bfloat16 128 + q (exponent of 128, q in the low mantissa bits).
          const __nv_bfloat162 raw = bits_bf16x2(((words[u][w] >> (4 * i)) & 0x000F000Fu) | 0x43004300u);
          frag[i] = bf16x2_bits(__hfma2(__hfma2(raw, one, bias), scale, zero));
        }
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int col = k0 + half * 16 + 2 * (lane % 4);
          const uint32_t a0 = a_pair(a_lo, col), a1 = a_pair(a_hi, col);
          const uint32_t a2 = a_pair(a_lo, col + 8), a3 = a_pair(a_hi, col + 8);
          asm volatile(
              "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
              "{%0,%1,%2,%3};\n"
              : "+f"(c[half][0]), "+f"(c[half][1]), "+f"(c[half][2]), "+f"(c[half][3])
              : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(frag[2 * half]), "r"(frag[2 * half + 1]));
        }
      }
    }
  }
  // Sum the warps' partial tiles; warp 0 writes. C fragment: rows lane/4 (+8), columns 2*(lane%4) (+1).
  __shared__ float4 partial[kWarps][32];
  partial[warp][lane] = make_float4(c[0][0] + c[1][0], c[0][1] + c[1][1], c[0][2] + c[1][2], c[0][3] + c[1][3]);
  __syncthreads();
  if (warp != 0) return;
  float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    const float4 p = partial[w][lane];
    sum.x += p.x; sum.y += p.y; sum.z += p.z; sum.w += p.w;
  }
  const int64_t out_col = n_tile * 8 + 2 * (lane % 4);
  if (row0 < m) *reinterpret_cast<__nv_bfloat162*>(out + row0 * n + out_col) = __floats2bfloat162_rn(sum.x, sum.y);
  if (row0 + 8 < m) *reinterpret_cast<__nv_bfloat162*>(out + (row0 + 8) * n + out_col) = __floats2bfloat162_rn(sum.z, sum.w);
}


// ---- M <= 8: A and the scales staged in shared memory ----

constexpr int kSmallRows = 8;               // rows of A the staged kernel serves (fragment rows 0..7)
constexpr int kStepK = kTilesPerStep * 16;  // k a warp covers per step (512)
constexpr int kRowStride = kStepK + 8;      // staged row, padded: consecutive rows 4 banks apart
constexpr int kMaxGroupsPerStep = kStepK / 32;
// Column tiles per block in the staged kernel: 4 (1024 threads, one block per SM) for M = 3..8, 2
// (512 threads, two per SM) for M <= 2. Measured on the H200 at K = N = 4096 against torch's kernel:
// 4 tiles 0.80 at M = 1, 2 and 0.93..1.38 at M = 3..8; 2 tiles 0.89 / 0.84 at M = 1 / 2.
constexpr int kSmallTiles = 4;
constexpr int kSmallTilesFewRows = 2;

// The staged kernel's dynamic shared memory: A's slices [kWarps][m][kRowStride] bfloat16, the scales
// [kSmallTiles][kWarps][kMaxGroupsPerStep][8] and the partial sums [kSmallTiles][kWarps][32] float2.
__host__ __device__ constexpr size_t staged_a_bytes(int m) { return size_t{kWarps} * m * kRowStride * 2; }
constexpr size_t kStagedQBytes = size_t{kSmallTiles} * kWarps * kMaxGroupsPerStep * 8 * 4;
constexpr size_t kStagedPartialBytes = size_t{kSmallTiles} * kWarps * 32 * 8;
__host__ __device__ constexpr size_t staged_bytes(int m) { return staged_a_bytes(m) + kStagedQBytes + kStagedPartialBytes; }

__device__ inline void cp_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}

__device__ inline void cp_async4(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(gmem));
}

__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ inline void cp_async_wait_all() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }

// kTiles column tiles per block share one staged copy of A (each tile's 8 warps split K as above):
// every block reads all of A from L2, so fewer, wider blocks read less of it.
template <int InnerKTiles, int kTiles>
__global__ void __launch_bounds__(kTiles * kWarps * 32, 4 / kTiles)
    int4_mm_small_m_kernel(const __nv_bfloat16* __restrict__ a, int64_t lda, bool a_vector,
                           const int32_t* __restrict__ b, bool b_vector, const __nv_bfloat16* __restrict__ qinfo,
                           __nv_bfloat16* __restrict__ out, int m, int64_t n, int k, int group_shift) {
  constexpr int kWords = InnerKTiles / 2;
  constexpr int kOuterPerStep = kTilesPerStep / InnerKTiles;
  extern __shared__ __align__(16) unsigned char staged[];
  __nv_bfloat16* s_a = reinterpret_cast<__nv_bfloat16*>(staged);
  uint32_t(*s_q)[kWarps][kMaxGroupsPerStep][8] =
      reinterpret_cast<uint32_t(*)[kWarps][kMaxGroupsPerStep][8]>(staged + staged_a_bytes(m));
  float2(*partial)[kWarps][32] = reinterpret_cast<float2(*)[kWarps][32]>(staged + staged_a_bytes(m) + kStagedQBytes);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int slice = warp % kWarps, tile = warp / kWarps;  // this warp's k slice and column tile
  const int64_t n_tile = blockIdx.x * int64_t{kTiles} + tile;
  const bool tile_ok = n_tile * 8 < n;  // the last block's extra tiles only help stage A
  const int outer_tiles = k / (InnerKTiles * 16);
  const int row = lane / 4;  // this lane's A fragment row; rows 8..15 never exist here
  const bool has_row = row < m;
  const int32_t* b_lane = b + (n_tile * outer_tiles * 32 + lane) * kWords;
  float c[2][4] = {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};
  const __nv_bfloat162 bias = __floats2bfloat162_rn(-136.0f, -136.0f), one = __floats2bfloat162_rn(1.0f, 1.0f);

  // Every warp runs every step (the block synchronises in it); a slice past K just idles.
  for (int step = 0; step < outer_tiles; step += kWarps * kOuterPerStep) {
    const int base = step + slice * kOuterPerStep;
    const bool active = base < outer_tiles;
    const int k_begin = base * InnerKTiles * 16;  // a multiple of kStepK, so of every group size
    const int k_count = active ? min(kStepK, (outer_tiles - base) * InnerKTiles * 16) : 0;
    const int group0 = k_begin >> group_shift;
    const int groups = (k_count + (1 << group_shift) - 1) >> group_shift;
    // Stage A's m rows of this slice (the kTiles warps of a slice share the copying) and this
    // tile's scales and zeros, asynchronously ...
    const int first = lane + 32 * tile, stride = 32 * kTiles;
    for (int r = 0; r < m; ++r) {
      const __nv_bfloat16* a_row = a + r * lda + k_begin;
      __nv_bfloat16* s_row = s_a + (slice * m + r) * kRowStride;
      if (a_vector) {
        for (int ch = first * 8; ch < k_count; ch += stride * 8) cp_async16(s_row + ch, a_row + ch);
      } else {
        for (int p = first * 2; p < k_count; p += stride * 2) cp_async4(s_row + p, a_row + p);
      }
    }
    if (tile_ok) {
      for (int i = lane; i < groups * 8; i += 32) {
        cp_async4(&s_q[tile][slice][i / 8][i % 8], qinfo + ((group0 + i / 8) * n + n_tile * 8 + i % 8) * 2);
      }
    }
    cp_async_commit();
    // ... then every weight load, then wait once for all of them.
    uint32_t words[kOuterPerStep][kWords];
#pragma unroll
    for (int u = 0; u < kOuterPerStep; ++u) {
      if (tile_ok && base + u < outer_tiles) {
        load_words<kWords>(b_lane + (base + u) * 32 * kWords, b_vector, words[u]);
      } else {
#pragma unroll
        for (int w = 0; w < kWords; ++w) words[u][w] = 0u;
      }
    }
    cp_async_wait_all();
    __syncthreads();
#pragma unroll
    for (int u = 0; u < kOuterPerStep; ++u) {
      if (!tile_ok || base + u >= outer_tiles) break;
#pragma unroll
      for (int w = 0; w < kWords; ++w) {
        const int k_local = ((base + u) * InnerKTiles + 2 * w) * 16 - k_begin;
        const __nv_bfloat162 sz = bits_bf16x2(s_q[tile][slice][((k_begin + k_local) >> group_shift) - group0][lane / 4]);
        const __nv_bfloat162 scale = __bfloat162bfloat162(sz.x), zero = __bfloat162bfloat162(sz.y);
        uint32_t frag[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const __nv_bfloat162 raw = bits_bf16x2(((words[u][w] >> (4 * i)) & 0x000F000Fu) | 0x43004300u);
          frag[i] = bf16x2_bits(__hfma2(__hfma2(raw, one, bias), scale, zero));
        }
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int col = k_local + half * 16 + 2 * (lane % 4);
          const __nv_bfloat16* s_row = s_a + (slice * m + row) * kRowStride;
          const uint32_t a0 = has_row ? *reinterpret_cast<const uint32_t*>(s_row + col) : 0u;
          const uint32_t a2 = has_row ? *reinterpret_cast<const uint32_t*>(s_row + col + 8) : 0u;
          asm volatile(
              "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
              "{%0,%1,%2,%3};\n"
              : "+f"(c[half][0]), "+f"(c[half][1]), "+f"(c[half][2]), "+f"(c[half][3])
              : "r"(a0), "r"(0u), "r"(a2), "r"(0u), "r"(frag[2 * half]), "r"(frag[2 * half + 1]));
        }
      }
    }
    __syncthreads();  // the next step's copies overwrite this step's staging
  }
  // Sum each tile's partial results (rows 0..7 only: c[.][2..3] belong to rows 8..15); a tile's
  // first warp writes.
  partial[tile][slice][lane] = make_float2(c[0][0] + c[1][0], c[0][1] + c[1][1]);
  __syncthreads();
  if (slice != 0 || !tile_ok || !has_row) return;
  float2 sum = make_float2(0.0f, 0.0f);
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    sum.x += partial[tile][w][lane].x;
    sum.y += partial[tile][w][lane].y;
  }
  const int64_t out_col = n_tile * 8 + 2 * (lane % 4);
  *reinterpret_cast<__nv_bfloat162*>(out + row * n + out_col) = __floats2bfloat162_rn(sum.x, sum.y);
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__weight_int4pack_mm(AtenTensorHandle self,
                                                                               AtenTensorHandle mat2,
                                                                               int64_t qGroupSize,
                                                                               AtenTensorHandle qScaleAndZeros,
                                                                               AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
    const Tensor& a = cuda_arg(self, "self", 2);
    const Tensor& b = cuda_arg(mat2, "mat2", 4);
    const Tensor& q = cuda_arg(qScaleAndZeros, "qScaleAndZeros", 3);
    SHIMGEN_REQUIRE(a.dtype == kBFloat16, "self must be bfloat16 (dtype code 15), not code " + str(a.dtype));
    SHIMGEN_REQUIRE(b.dtype == kInt32 && b.is_contiguous(), "mat2 must be a contiguous int32 tensor (torch._convert_weight_to_int4pack's)");
    SHIMGEN_REQUIRE(q.dtype == kBFloat16 && q.is_contiguous(), "qScaleAndZeros must be a contiguous bfloat16 tensor");
    const int32_t device = a.storage->device_index;
    SHIMGEN_REQUIRE(b.storage->device_index == device && q.storage->device_index == device, "the tensors are on different CUDA devices");
    const int64_t inner = b.sizes[3] * 2;
    SHIMGEN_REQUIRE(inner == 2 || inner == 4 || inner == 8, "mat2's last dim gives inner_k_tiles " + str(inner) + "; 2, 4 or 8 expected");
    SHIMGEN_REQUIRE(b.sizes[2] == 32, "mat2's dim 2 must be 32 (lanes)");
    const int64_t m = a.sizes[0], k = a.sizes[1], n = b.sizes[0] * 8;
    SHIMGEN_REQUIRE(k % (inner * 16) == 0 && b.sizes[1] == k / (inner * 16),
                    "self's K " + str(k) + " does not match mat2's packed K tiles");
    SHIMGEN_REQUIRE(qGroupSize == 32 || qGroupSize == 64 || qGroupSize == 128 || qGroupSize == 256,
                    "qGroupSize must be 32, 64, 128 or 256, not " + str(qGroupSize));
    SHIMGEN_REQUIRE(k % qGroupSize == 0 && q.sizes[0] == k / qGroupSize && q.sizes[1] == n && q.sizes[2] == 2,
                    "qScaleAndZeros must be [K / qGroupSize, N, 2]");
    Owned out;
    empty(out, {m, n}, {}, kBFloat16, kCUDA, device);
    if (m == 0 || n == 0) {
      *ret0 = out.release();
      return;
    }
    DeviceScope scope(device);
    cudaStream_t stream = stream_of(device);
    // The kernel reads pairs of A as 32-bit words: a unit column stride, an even row stride and an
    // aligned base; anything else is packed first.
    const bool direct = (a.strides[1] == 1 || k == 1) && a.strides[0] % 2 == 0 &&
                        reinterpret_cast<uintptr_t>(a.data()) % 4 == 0;
    Scratch packed(device, direct ? 0 : static_cast<size_t>(m * k) * 2);
    const __nv_bfloat16* a_data = reinterpret_cast<const __nv_bfloat16*>(a.data());
    int64_t lda = a.strides[0];
    if (!direct) {
      const std::vector<int64_t> dense{k, 1};
      copy_strided(packed.data(), dense.data(), a.data(), a.strides.data(), a.sizes, 2, device);
      a_data = packed.as<const __nv_bfloat16>();
      lda = k;
    }
    SHIMGEN_REQUIRE((m + 15) / 16 <= 65535, "too many rows");
    // The kernel indexes K (and a column's packed words, K of them) with 32-bit arithmetic.
    SHIMGEN_REQUIRE(k <= (int64_t{1} << 30), "K " + str(k) + " is too large (2^30 at most)");
    const dim3 grid(static_cast<unsigned>(n / 8), static_cast<unsigned>((m + 15) / 16));
    const int32_t* b_data = reinterpret_cast<const int32_t*>(b.data());
    const __nv_bfloat16* q_data = reinterpret_cast<const __nv_bfloat16*>(q.data());
    __nv_bfloat16* o = reinterpret_cast<__nv_bfloat16*>(out.get()->data());
    // A lane's words are one 8- or 16-byte vector load when mat2's data is aligned for it (a view
    // with a storage offset may not be).
    const bool b_vector = reinterpret_cast<uintptr_t>(b_data) % (inner * 2) == 0;
    const int group_shift = __builtin_ctzll(static_cast<unsigned long long>(qGroupSize));
    const int kk = static_cast<int>(k);
    if (m <= kSmallRows) {
      const int mm = static_cast<int>(m);
      // cp.async's 16-byte copies need 16-byte aligned rows; 4-byte copies otherwise.
      const bool a_vector = lda % 8 == 0 && reinterpret_cast<uintptr_t>(a_data) % 16 == 0;
      const int tiles = m <= 2 ? kSmallTilesFewRows : kSmallTiles;
      const dim3 blocks(static_cast<unsigned>((n / 8 + tiles - 1) / tiles));
      const size_t bytes = staged_bytes(mm);
      auto launch = [&](auto kernel) {
        // Above 48 KiB a kernel must opt in to dynamic shared memory (per device; idempotent).
        check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(staged_bytes(kSmallRows))),
                   "int4 mm shared memory");
        kernel<<<blocks, tiles * kWarps * 32, bytes, stream>>>(a_data, lda, a_vector, b_data, b_vector, q_data, o, mm,
                                                               n, kk, group_shift);
      };
      if (tiles == kSmallTilesFewRows) {
        if (inner == 2) launch(int4_mm_small_m_kernel<2, kSmallTilesFewRows>);
        else if (inner == 4) launch(int4_mm_small_m_kernel<4, kSmallTilesFewRows>);
        else launch(int4_mm_small_m_kernel<8, kSmallTilesFewRows>);
      } else {
        if (inner == 2) launch(int4_mm_small_m_kernel<2, kSmallTiles>);
        else if (inner == 4) launch(int4_mm_small_m_kernel<4, kSmallTiles>);
        else launch(int4_mm_small_m_kernel<8, kSmallTiles>);
      }
    } else if (inner == 2) int4_mm_kernel<2><<<grid, kWarps * 32, 0, stream>>>(a_data, lda, b_data, b_vector, q_data, o, m, n, kk, group_shift);
    else if (inner == 4) int4_mm_kernel<4><<<grid, kWarps * 32, 0, stream>>>(a_data, lda, b_data, b_vector, q_data, o, m, n, kk, group_shift);
    else int4_mm_kernel<8><<<grid, kWarps * 32, 0, stream>>>(a_data, lda, b_data, b_vector, q_data, o, m, n, kk, group_shift);
    check_cuda(cudaGetLastError(), "int4 mm kernel launch");
    *ret0 = out.release();
  });
}
