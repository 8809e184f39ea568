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
// The "swap" kernels (M <= 8, or 16 with two row tiles) make the weights the MMA's A operand and
// the activations its B operand (below). Every kernel variant can be forced for measuring with
// SHIMGEN_INT4_MM_KERNEL (kVariants); otherwise kAutoByM picks per M. All of them share one
// dequantize helper (dequant_word) and one MMA wrapper.
#include "op_support.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

#include <cstdlib>
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
// kStream: the weights are read once, so they skip L1 (which keeps A and the scales) and ask L2
// for the whole 256-byte line (a warp reads 256 or 512 contiguous bytes).
template <int kWords, bool kStream = false>
__device__ inline void load_words(const int32_t* src, bool vector, uint32_t (&dst)[kWords]) {
  if constexpr (kStream && kWords == 4) {
    if (vector) {
      asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
          : "=r"(dst[0]), "=r"(dst[1]), "=r"(dst[2]), "=r"(dst[3])
          : "l"(src));
      return;
    }
  } else if constexpr (kStream && kWords == 2) {
    if (vector) {
      asm("ld.global.nc.L1::no_allocate.L2::256B.v2.u32 {%0, %1}, [%2];" : "=r"(dst[0]), "=r"(dst[1]) : "l"(src));
      return;
    }
  }
  if constexpr (kWords == 4) {
    if (vector) {
      const uint4 v = __ldg(reinterpret_cast<const uint4*>(src));
      dst[0] = v.x;
      dst[1] = v.y;
      dst[2] = v.z;
      dst[3] = v.w;
      return;
    }
  } else if constexpr (kWords == 2) {
    if (vector) {
      const uint2 v = __ldg(reinterpret_cast<const uint2*>(src));
      dst[0] = v.x;
      dst[1] = v.y;
      return;
    }
  }
#pragma unroll
  for (int w = 0; w < kWords; ++w) dst[w] = static_cast<uint32_t>(__ldg(src + w));
}

// One lane's share of one packed word (two 16-deep k-tiles of its column), dequantized with the
// column's scale and zero and multiplied into c[0] (first k-tile) and c[1] (second) by two
// m16n8k16 MMAs; fetch_a(half, regs) gives the lane's four A fragment registers of k-tile `half`.
// Nibbles i and i + 4 become bfloat16 128 + q (exponent of 128, q in the low mantissa bits), then
// (q - 8) * scale + zero with one rounding, as PyTorch's kernel does.
__device__ inline void dequant_word(uint32_t word, __nv_bfloat162 sz, uint32_t (&frag)[4]) {
  const __nv_bfloat162 bias = __floats2bfloat162_rn(-136.0f, -136.0f), one = __floats2bfloat162_rn(1.0f, 1.0f);
  const __nv_bfloat162 scale = __bfloat162bfloat162(sz.x), zero = __bfloat162bfloat162(sz.y);
  // (word >> 4i) & 0x000F000F | 0x43004300 as one LOP3: the compiler splits it in two (one 32-bit
  // immediate per instruction), so the OR constant goes in a register.
  const uint32_t exponent = 0x43004300u;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    uint32_t bits;
    asm("lop3.b32 %0, %1, %2, %3, 0xea;" : "=r"(bits) : "r"(word >> (4 * i)), "n"(0x000F000F), "r"(exponent));
    frag[i] = bf16x2_bits(__hfma2(__hfma2(bits_bf16x2(bits), one, bias), scale, zero));
  }
}

__device__ inline void mma_bf16(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0,
                                uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

template <typename FetchA>
__device__ inline void dequant_mma_word(uint32_t word, __nv_bfloat162 sz, float (&c)[2][4], FetchA fetch_a) {
  uint32_t frag[4];
  dequant_word(word, sz, frag);
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    uint32_t a[4];
    fetch_a(half, a);
    mma_bf16(c[half], a[0], a[1], a[2], a[3], frag[2 * half], frag[2 * half + 1]);
  }
}

template <int InnerKTiles> __global__ void __launch_bounds__(kWarps * 32, 4)
    int4_mm_kernel(const __nv_bfloat16* __restrict__ a, int64_t lda, const int32_t* __restrict__ b, bool b_vector,
                   const __nv_bfloat16* __restrict__ qinfo, __nv_bfloat16* __restrict__ out, int64_t m, int64_t n,
                   int k, int group_shift) {
  constexpr int kWords = InnerKTiles / 2;  // int32 words per lane per outer tile
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
        dequant_mma_word(words[u][w], sz, c, [&](int half, uint32_t (&r)[4]) {
          const int col = k0 + half * 16 + 2 * (lane % 4);
          r[0] = a_pair(a_lo, col);
          r[1] = a_pair(a_hi, col);
          r[2] = a_pair(a_lo, col + 8);
          r[3] = a_pair(a_hi, col + 8);
        });
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
    sum.x += p.x;
    sum.y += p.y;
    sum.z += p.z;
    sum.w += p.w;
  }
  const int64_t out_col = n_tile * 8 + 2 * (lane % 4);
  if (row0 < m) *reinterpret_cast<__nv_bfloat162*>(out + row0 * n + out_col) = __floats2bfloat162_rn(sum.x, sum.y);
  if (row0 + 8 < m)
    *reinterpret_cast<__nv_bfloat162*>(out + (row0 + 8) * n + out_col) = __floats2bfloat162_rn(sum.z, sum.w);
}

// ---- M <= 8: A and the scales staged in shared memory ----

constexpr int kSmallRows = 8;               // rows of A the staged kernel serves (fragment rows 0..7)
constexpr int kStepK = kTilesPerStep * 16;  // k a warp covers per step (512)
constexpr int kRowStride = kStepK + 8;      // staged row, padded: consecutive rows 4 banks apart
constexpr int kMaxGroupsPerStep = kStepK / 32;
// Column tiles per block in the staged kernel: 4 (1024 threads, one block per SM) for M = 3..8, 2
// (512 threads, two per SM) for M <= 2. Measured on the H200 at K = N = 4096 against torch's kernel:
// 4 tiles 0.80 at M = 1, 2 and 0.93..1.38 at M = 3..8; 2 tiles 0.89 / 0.84 at M = 1 / 2.
constexpr int kSmallTiles = 4;  // the most the staged kernel's shared memory is sized for

// The staged kernel's dynamic shared memory: A's slices [kWarps][m][kRowStride] bfloat16, the scales
// [kSmallTiles][kWarps][kMaxGroupsPerStep][8] and the partial sums [kSmallTiles][kWarps][32] float2.
__host__ __device__ constexpr size_t staged_a_bytes(int m) { return size_t{kWarps} * m * kRowStride * 2; }
constexpr size_t kStagedQBytes = size_t{kSmallTiles} * kWarps * kMaxGroupsPerStep * 8 * 4;
constexpr size_t kStagedPartialBytes = size_t{kSmallTiles} * kWarps * 32 * 8;
__host__ __device__ constexpr size_t staged_bytes(int m) {
  return staged_a_bytes(m) + kStagedQBytes + kStagedPartialBytes;
}

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
template <int InnerKTiles, int kTiles> __global__ void __launch_bounds__(kTiles * kWarps * 32, 4 / kTiles)
    int4_mm_small_m_kernel(const __nv_bfloat16* __restrict__ a, int64_t lda, bool a_vector,
                           const int32_t* __restrict__ b, bool b_vector, const __nv_bfloat16* __restrict__ qinfo,
                           __nv_bfloat16* __restrict__ out, int m, int64_t n, int k, int group_shift) {
  constexpr int kWords = InnerKTiles / 2;
  constexpr int kOuterPerStep = kTilesPerStep / InnerKTiles;
  extern __shared__ __align__(16) unsigned char staged[];
  __nv_bfloat16* s_a = reinterpret_cast<__nv_bfloat16*>(staged);
  uint32_t (*s_q)[kWarps][kMaxGroupsPerStep][8] =
      reinterpret_cast<uint32_t (*)[kWarps][kMaxGroupsPerStep][8]>(staged + staged_a_bytes(m));
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
        const __nv_bfloat162 sz =
            bits_bf16x2(s_q[tile][slice][((k_begin + k_local) >> group_shift) - group0][lane / 4]);
        dequant_mma_word(words[u][w], sz, c, [&](int half, uint32_t (&r)[4]) {
          const int col = k_local + half * 16 + 2 * (lane % 4);
          const __nv_bfloat16* s_row = s_a + (slice * m + row) * kRowStride;
          r[0] = has_row ? *reinterpret_cast<const uint32_t*>(s_row + col) : 0u;
          r[2] = has_row ? *reinterpret_cast<const uint32_t*>(s_row + col + 8) : 0u;
          r[1] = 0u;
          r[3] = 0u;
        });
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

// ---- M <= 8, "swap A and B": the weights are the MMA's A operand, the activations its B ----
// Two adjacent column tiles' words of one lane are exactly the A fragment of m16n8k16 for 16
// columns (rows g and g + 8 of the fragment: tile 2p's column g and tile 2p+1's), and the
// activations' M <= 8 rows are the B operand's 8 columns: out^T = W · A^T. Half the MMAs of the
// n8 form per weight, and a lane loads only its own activation row's pairs (none when g >= M).
// A block owns one pair of column tiles; its kWarpsPB warps split K, each loading every weight
// word, scale and activation pair of kOuterPerWarp outer tiles into registers before multiplying.
// Launch bounds: 1024 threads per SM (64 registers a thread), so 2 blocks of 16 warps.
template <int InnerKTiles, int kWarpsPB, int kOuterPerWarp>
__global__ void __launch_bounds__(kWarpsPB * 32, kWarpsPB >= 32 ? 1 : 32 / kWarpsPB)
    int4_mm_swap_kernel(const __nv_bfloat16* __restrict__ a, int64_t lda, const int32_t* __restrict__ b, bool b_vector,
                        const __nv_bfloat16* __restrict__ qinfo, __nv_bfloat16* __restrict__ out, int m, int64_t n,
                        int k, int group_shift) {
  constexpr int kWords = InnerKTiles / 2;
  constexpr int kChunk = kOuterPerWarp * kWords;  // words per lane per tile per step
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane / 4, t = lane % 4;
  const int64_t tiles = n / 8;
  const int64_t tile0 = blockIdx.x * int64_t{2};
  const bool has1 = tile0 + 1 < tiles;
  const int64_t tile1 = has1 ? tile0 + 1 : tile0;
  const int outer_tiles = k / (InnerKTiles * 16);
  const int32_t* b0 = b + (tile0 * outer_tiles * 32 + lane) * kWords;
  const int32_t* b1 = b + (tile1 * outer_tiles * 32 + lane) * kWords;
  const __nv_bfloat16* x = g < m ? a + g * lda + 2 * t : nullptr;
  const __nv_bfloat16* q0 = qinfo + (tile0 * 8 + g) * 2;
  const __nv_bfloat16* q1 = qinfo + (tile1 * 8 + g) * 2;
  const int64_t q_row = n * 2;
  const int group_words_mask = ((1 << group_shift) >> 5) - 1;  // words per group - 1 (groups >= 32)
  float c[2][4] = {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};
  for (int base = warp * kOuterPerWarp; base < outer_tiles; base += kWarpsPB * kOuterPerWarp) {
    uint32_t w0[kChunk], w1[kChunk], s0[kChunk], s1[kChunk], act[kChunk][4];
#pragma unroll
    for (int u = 0; u < kOuterPerWarp; ++u) {
      uint32_t (&d0)[kWords] = *reinterpret_cast<uint32_t (*)[kWords]>(&w0[u * kWords]);
      uint32_t (&d1)[kWords] = *reinterpret_cast<uint32_t (*)[kWords]>(&w1[u * kWords]);
      if (base + u < outer_tiles) {
        load_words<kWords>(b0 + (base + u) * 32 * kWords, b_vector, d0);
        load_words<kWords>(b1 + (base + u) * 32 * kWords, b_vector, d1);
      } else {
#pragma unroll
        for (int w = 0; w < kWords; ++w) d0[w] = d1[w] = 0u;
      }
    }
#pragma unroll
    for (int j = 0; j < kChunk; ++j) {
      const int word = base * kWords + j;  // word index along K: k0 = 32 * word
      const bool ok = word < outer_tiles * kWords;
      const int k0 = word * 32;
      if (j == 0 || (word & group_words_mask) == 0) {
        const int64_t off = ok ? (k0 >> group_shift) * q_row : 0;
        s0[j] = *reinterpret_cast<const uint32_t*>(q0 + off);
        s1[j] = *reinterpret_cast<const uint32_t*>(q1 + off);
      } else {
        s0[j] = s0[j - 1];
        s1[j] = s1[j - 1];
      }
#pragma unroll
      for (int r = 0; r < 4; ++r) act[j][r] = ok ? a_pair(x, k0 + 8 * r) : 0u;
    }
#pragma unroll
    for (int j = 0; j < kChunk; ++j) {
      uint32_t f0[4], f1[4];
      dequant_word(w0[j], bits_bf16x2(s0[j]), f0);
      dequant_word(w1[j], bits_bf16x2(s1[j]), f1);
      // k-tile 0: A regs {tile0 k 2t, tile1 k 2t, tile0 k 2t+8, tile1 k 2t+8}; B regs: k 2t, 2t+8.
      mma_bf16(c[0], f0[0], f1[0], f0[1], f1[1], act[j][0], act[j][1]);
      mma_bf16(c[1], f0[2], f1[2], f0[3], f1[3], act[j][2], act[j][3]);
    }
  }
  // D fragment: rows g (tile0's column g) and g + 8 (tile1's), columns 2t, 2t+1 = rows of out.
  __shared__ float4 partial[kWarpsPB][32];
  partial[warp][lane] = make_float4(c[0][0] + c[1][0], c[0][1] + c[1][1], c[0][2] + c[1][2], c[0][3] + c[1][3]);
  __syncthreads();
  if (warp != 0 || 2 * t >= m) return;
  float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
  for (int w = 0; w < kWarpsPB; ++w) {
    const float4 p = partial[w][lane];
    sum.x += p.x;
    sum.y += p.y;
    sum.z += p.z;
    sum.w += p.w;
  }
  const int64_t col0 = tile0 * 8 + g, col1 = tile1 * 8 + g;
  out[2 * t * n + col0] = __float2bfloat16_rn(sum.x);
  if (has1) out[2 * t * n + col1] = __float2bfloat16_rn(sum.z);
  if (2 * t + 1 < m) {
    out[(2 * t + 1) * n + col0] = __float2bfloat16_rn(sum.y);
    if (has1) out[(2 * t + 1) * n + col1] = __float2bfloat16_rn(sum.w);
  }
}

// The swap form with the activations staged: each step, the block copies its k range of A's M rows
// into shared memory with cp.async while its warps issue their weight and scale loads (registers),
// waits once, and multiplies reading the activation pairs from shared memory. A block owns kPairs
// pairs of column tiles (sharing the staged copy); per pair, kWarpsPB warps split the step's K,
// kChunkWords words (32 k each) a warp.
template <int kChunkWords, int kWarpsPB> __host__ __device__ constexpr int swap_step_k() {
  return kChunkWords * 32 * kWarpsPB;
}
__host__ __device__ constexpr int swap_row_stride(int step_k) { return step_k + 8; }  // rows 4 banks apart

// Blocks per SM the launch bounds ask for: 1024 threads (64 registers each) for one row tile and up
// to 8 words a warp, half that (128 registers) for two row tiles or 16 words.
constexpr int swap_min_blocks(int warps, int row_tiles, int chunk_words) {
  const int units = warps * row_tiles * (chunk_words > 8 ? chunk_words / 8 : 1);
  return units >= 32 ? 1 : 32 / units;
}

// kGroupWords: words (32 k) a scale group spans at least, known at compile time (4 when the group
// size is 128 or more), so a warp holds one scale per group in registers, not one per word.
template <int InnerKTiles, int kPairs, int kWarpsPB, int kChunkWords, bool kStream = false, int kRowTiles = 1,
          int kGroupWords = 1>
__global__ void __launch_bounds__(kPairs * kWarpsPB * 32, swap_min_blocks(kPairs* kWarpsPB, kRowTiles, kChunkWords))
    int4_mm_swap_staged_kernel(const __nv_bfloat16* __restrict__ a, int64_t lda, bool a_vector,
                               const int32_t* __restrict__ b, bool b_vector, const __nv_bfloat16* __restrict__ qinfo,
                               __nv_bfloat16* __restrict__ out, int m, int64_t n, int k, int group_shift) {
  constexpr int kWords = InnerKTiles / 2;
  static_assert(kChunkWords % kWords == 0, "a warp's chunk is whole outer tiles");
  constexpr int kStepK = swap_step_k<kChunkWords, kWarpsPB>();
  constexpr int kStride = swap_row_stride(kStepK);
  constexpr int kThreads = kPairs * kWarpsPB * 32;
  extern __shared__ __align__(16) unsigned char staged[];
  __nv_bfloat16* s_x = reinterpret_cast<__nv_bfloat16*>(staged);
  float4(*partial)[kWarpsPB][kRowTiles][32] =
      reinterpret_cast<float4(*)[kWarpsPB][kRowTiles][32]>(staged + size_t{2} * m * kStride);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int slice = warp % kWarpsPB, pair_in_block = warp / kWarpsPB;
  const int g = lane / 4, t = lane % 4;
  const int64_t tiles = n / 8;
  const int64_t tile0 = (blockIdx.x * int64_t{kPairs} + pair_in_block) * 2;
  const bool has0 = tile0 < tiles, has1 = tile0 + 1 < tiles;
  const int64_t t0 = has0 ? tile0 : 0, t1 = has1 ? tile0 + 1 : t0;
  const int outer_tiles = k / (InnerKTiles * 16);
  const int total_words = outer_tiles * kWords;
  const int32_t* b0 = b + (t0 * outer_tiles * 32 + lane) * kWords;
  const int32_t* b1 = b + (t1 * outer_tiles * 32 + lane) * kWords;
  const __nv_bfloat16* q0 = qinfo + (t0 * 8 + g) * 2;
  const __nv_bfloat16* q1 = qinfo + (t1 * 8 + g) * 2;
  const int64_t q_row = n * 2;
  const int group_words_mask = ((1 << group_shift) >> 5) - 1;
  // Row tile rt holds A's rows 8 rt .. 8 rt + 7 (the B operand's columns): lane row g + 8 rt.
  float c[kRowTiles][2][4];
#pragma unroll
  for (int rt = 0; rt < kRowTiles; ++rt) {
#pragma unroll
    for (int i = 0; i < 4; ++i) c[rt][0][i] = c[rt][1][i] = 0.0f;
  }
  for (int k_begin = 0; k_begin < k; k_begin += kStepK) {
    const int k_count = min(kStepK, k - k_begin);
    // Stage A's rows [k_begin, k_begin + k_count) (k_count is a multiple of 32).
    for (int r = 0; r < m; ++r) {
      const __nv_bfloat16* a_row = a + r * lda + k_begin;
      __nv_bfloat16* s_row = s_x + r * kStride;
      if (a_vector) {
        for (int ch = threadIdx.x * 8; ch < k_count; ch += kThreads * 8) cp_async16(s_row + ch, a_row + ch);
      } else {
        for (int p = threadIdx.x * 2; p < k_count; p += kThreads * 2) cp_async4(s_row + p, a_row + p);
      }
    }
    cp_async_commit();
    const int word0 = (k_begin >> 5) + slice * kChunkWords;  // this warp's first word along K
    uint32_t w0[kChunkWords], w1[kChunkWords], s0[kChunkWords], s1[kChunkWords];
#pragma unroll
    for (int u = 0; u < kChunkWords / kWords; ++u) {
      uint32_t (&d0)[kWords] = *reinterpret_cast<uint32_t (*)[kWords]>(&w0[u * kWords]);
      uint32_t (&d1)[kWords] = *reinterpret_cast<uint32_t (*)[kWords]>(&w1[u * kWords]);
      const int outer = word0 / kWords + u;
      if (has0 && outer < outer_tiles) {
        load_words<kWords, kStream>(b0 + outer * 32 * kWords, b_vector, d0);
        load_words<kWords, kStream>(b1 + outer * 32 * kWords, b_vector, d1);
      } else {
#pragma unroll
        for (int w = 0; w < kWords; ++w) d0[w] = d1[w] = 0u;
      }
    }
#pragma unroll
    for (int j = 0; j < kChunkWords; ++j) {
      const int word = word0 + j;
      if (j % kGroupWords != 0) {  // the same group as word j - 1 (word0 is a multiple of kGroupWords)
        s0[j] = s0[j - 1];
        s1[j] = s1[j - 1];
      } else if (j == 0 || (word & group_words_mask) == 0) {
        const int64_t off = word < total_words ? ((word * 32) >> group_shift) * q_row : 0;
        s0[j] = *reinterpret_cast<const uint32_t*>(q0 + off);
        s1[j] = *reinterpret_cast<const uint32_t*>(q1 + off);
      } else {
        s0[j] = s0[j - 1];
        s1[j] = s1[j - 1];
      }
    }
    cp_async_wait_all();
    __syncthreads();
    if (has0) {
#pragma unroll
      for (int j = 0; j < kChunkWords; ++j) {
        const int word = word0 + j;
        if (word >= total_words) break;
        uint32_t f0[4], f1[4];
        dequant_word(w0[j], bits_bf16x2(s0[j]), f0);
        dequant_word(w1[j], bits_bf16x2(s1[j]), f1);
#pragma unroll
        for (int rt = 0; rt < kRowTiles; ++rt) {
          const bool has_row = g + 8 * rt < m;
          const __nv_bfloat16* xs = s_x + (g + 8 * rt) * kStride + 2 * t + (word * 32 - k_begin);
          uint32_t act[4];
#pragma unroll
          for (int r = 0; r < 4; ++r) act[r] = has_row ? *reinterpret_cast<const uint32_t*>(xs + 8 * r) : 0u;
          mma_bf16(c[rt][0], f0[0], f1[0], f0[1], f1[1], act[0], act[1]);
          mma_bf16(c[rt][1], f0[2], f1[2], f0[3], f1[3], act[2], act[3]);
        }
      }
    }
    if (k_begin + kStepK < k) __syncthreads();  // the next step's copies overwrite this one's
  }
#pragma unroll
  for (int rt = 0; rt < kRowTiles; ++rt) {
    partial[pair_in_block][slice][rt][lane] = make_float4(c[rt][0][0] + c[rt][1][0], c[rt][0][1] + c[rt][1][1],
                                                          c[rt][0][2] + c[rt][1][2], c[rt][0][3] + c[rt][1][3]);
  }
  __syncthreads();
  if (slice != 0 || !has0) return;
  const int64_t col0 = tile0 * 8 + g, col1 = tile0 * 8 + 8 + g;
#pragma unroll
  for (int rt = 0; rt < kRowTiles; ++rt) {
    const int r0 = 8 * rt + 2 * t;  // D columns 2t, 2t + 1 of this row tile: rows of out
    if (r0 >= m) break;
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int w = 0; w < kWarpsPB; ++w) {
      const float4 p = partial[pair_in_block][w][rt][lane];
      sum.x += p.x;
      sum.y += p.y;
      sum.z += p.z;
      sum.w += p.w;
    }
    out[r0 * n + col0] = __float2bfloat16_rn(sum.x);
    if (has1) out[r0 * n + col1] = __float2bfloat16_rn(sum.z);
    if (r0 + 1 < m) {
      out[(r0 + 1) * n + col0] = __float2bfloat16_rn(sum.y);
      if (has1) out[(r0 + 1) * n + col1] = __float2bfloat16_rn(sum.w);
    }
  }
}

template <int kPairs, int kWarpsPB, int kChunkWords, int kRowTiles = 1>
__host__ __device__ constexpr size_t swap_staged_bytes(int m) {
  return size_t{2} * m * swap_row_stride(swap_step_k<kChunkWords, kWarpsPB>()) +
         size_t{16} * kPairs * kWarpsPB * kRowTiles * 32;
}

// The kernel variants, for measuring them against each other in one process (benchmarks/
// int4_mm_cuda.py --variants, tests/gpu): SHIMGEN_INT4_MM_KERNEL=<name> forces one, read at every
// call (a benchmark switches it between CUDA-graph captures). Internal, not a user setting: names
// may change with the kernels. Unset or "auto": the per-M choice below. The staged and swap
// variants serve M <= 8 only; larger M always takes the general kernel.
enum class Variant {
  kAuto,
  kGeneral,
  kStaged1,
  kStaged2,
  kStaged4,
  kSwap8x4,
  kSwap16x2,
  kSwap32x1,
  kSwap16x1,
  kSwapS16x8,
  kSwapS8x8,
  kSwapS32x4,
  kSwapS2p8x8,
  kSwapS2p16x4,
  kSwapS16x8n,
  kSwapS2p16x4n,
  kSwapS8x8m16,
  kSwapS16x8m16,
  kSwapS16x8g,
  kSwapS8x16g
};
constexpr struct {
  const char* name;
  Variant variant;
} kVariants[] = {{"auto", Variant::kAuto},
                 {"general", Variant::kGeneral},
                 {"staged1", Variant::kStaged1},
                 {"staged2", Variant::kStaged2},
                 {"staged4", Variant::kStaged4},
                 {"swap8x4", Variant::kSwap8x4},
                 {"swap16x2", Variant::kSwap16x2},
                 {"swap32x1", Variant::kSwap32x1},
                 {"swap16x1", Variant::kSwap16x1},
                 {"swapS16x8", Variant::kSwapS16x8},
                 {"swapS8x8", Variant::kSwapS8x8},
                 {"swapS32x4", Variant::kSwapS32x4},
                 {"swapS2p8x8", Variant::kSwapS2p8x8},
                 {"swapS2p16x4", Variant::kSwapS2p16x4},
                 {"swapS16x8n", Variant::kSwapS16x8n},
                 {"swapS2p16x4n", Variant::kSwapS2p16x4n},
                 {"swapS8x8m16", Variant::kSwapS8x8m16},
                 {"swapS16x8m16", Variant::kSwapS16x8m16},
                 {"swapS16x8g", Variant::kSwapS16x8g},
                 {"swapS8x16g", Variant::kSwapS8x16g}};

// The most rows of A a variant serves (larger M takes the general kernel).
constexpr int64_t max_rows(Variant v) {
  return v == Variant::kGeneral || v == Variant::kAuto               ? INT64_MAX
         : v == Variant::kSwapS8x8m16 || v == Variant::kSwapS16x8m16 ? 16
                                                                     : kSmallRows;
}

Variant pick_variant(int64_t m) {
  if (const char* env = std::getenv("SHIMGEN_INT4_MM_KERNEL"); env != nullptr && *env != '\0') {
    for (const auto& v : kVariants) {
      if (std::strcmp(env, v.name) == 0 && v.variant != Variant::kAuto) return v.variant;
    }
  }
  // The variant per M = 1..16 (larger M: general), from benchmarks/int4_mm_cuda.py --variants on the
  // H200 at K = N = 4096, inner_k_tiles 8, group 128 (its last lines print this table): speed vs
  // torch's tinygemm 1.10 at M = 1 (swapS16x8g), 1.07..1.63 at M = 2..8 (swap16x1), 1.02..1.34 at
  // M = 9..16 (the two-row-tile staged swap kernels); the old picks were 0.83..1.38 and 0.95..1.00.
  constexpr Variant kAutoByM[16] = {
      Variant::kSwapS16x8g,   Variant::kSwap16x1,     Variant::kSwap16x1,     Variant::kSwap16x1,
      Variant::kSwap16x1,     Variant::kSwap16x1,     Variant::kSwap16x1,     Variant::kSwap16x1,
      Variant::kSwapS16x8m16, Variant::kSwapS8x8m16,  Variant::kSwapS16x8m16, Variant::kSwapS8x8m16,
      Variant::kSwapS8x8m16,  Variant::kSwapS16x8m16, Variant::kSwapS16x8m16, Variant::kSwapS8x8m16};
  if (m >= 1 && m <= 16) return kAutoByM[m - 1];
  return Variant::kGeneral;
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
    SHIMGEN_REQUIRE(b.dtype == kInt32 && b.is_contiguous(),
                    "mat2 must be a contiguous int32 tensor (torch._convert_weight_to_int4pack's)");
    SHIMGEN_REQUIRE(q.dtype == kBFloat16 && q.is_contiguous(), "qScaleAndZeros must be a contiguous bfloat16 tensor");
    const int32_t device = a.storage->device_index;
    SHIMGEN_REQUIRE(b.storage->device_index == device && q.storage->device_index == device,
                    "the tensors are on different CUDA devices");
    const int64_t inner = b.sizes[3] * 2;
    SHIMGEN_REQUIRE(inner == 2 || inner == 4 || inner == 8,
                    "mat2's last dim gives inner_k_tiles " + str(inner) + "; 2, 4 or 8 expected");
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
    const bool direct =
        (a.strides[1] == 1 || k == 1) && a.strides[0] % 2 == 0 && reinterpret_cast<uintptr_t>(a.data()) % 4 == 0;
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
    const int mm = static_cast<int>(m);
    Variant variant = pick_variant(m);
    if (m > max_rows(variant)) variant = Variant::kGeneral;
    auto general = [&](auto kernel) {
      kernel<<<grid, kWarps * 32, 0, stream>>>(a_data, lda, b_data, b_vector, q_data, o, m, n, kk, group_shift);
    };
    // cp.async's 16-byte copies need 16-byte aligned rows; 4-byte copies otherwise.
    const bool a_vector = lda % 8 == 0 && reinterpret_cast<uintptr_t>(a_data) % 16 == 0;
    auto staged = [&](auto kernel, int tiles) {
      const dim3 blocks(static_cast<unsigned>((n / 8 + tiles - 1) / tiles));
      // Above 48 KiB a kernel must opt in to dynamic shared memory (per device; idempotent).
      check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(staged_bytes(kSmallRows))),
                 "int4 mm shared memory");
      kernel<<<blocks, tiles * kWarps * 32, staged_bytes(mm), stream>>>(a_data, lda, a_vector, b_data, b_vector, q_data,
                                                                        o, mm, n, kk, group_shift);
    };
    auto swap = [&](auto kernel, int warps) {
      const dim3 blocks(static_cast<unsigned>((n / 8 + 1) / 2));
      kernel<<<blocks, warps * 32, 0, stream>>>(a_data, lda, b_data, b_vector, q_data, o, mm, n, kk, group_shift);
    };
    // The staged swap kernel: (pairs per block, warps per pair, words per warp).
    auto swap_staged = [&](auto kernel, int pairs, int warps, size_t bytes) {
      const dim3 blocks(static_cast<unsigned>((n / 8 + 2 * pairs - 1) / (2 * pairs)));
      if (bytes > 48 * 1024) {
        check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
                   "int4 mm shared memory");
      }
      kernel<<<blocks, pairs * warps * 32, bytes, stream>>>(a_data, lda, a_vector, b_data, b_vector, q_data, o, mm, n,
                                                            kk, group_shift);
    };
#define SHIMGEN_INT4_SWAPS(P, W, C) [&](auto kern) { swap_staged(kern, P, W, swap_staged_bytes<P, W, C>(mm)); }
#define SHIMGEN_INT4_SWAPS16(P, W, C) [&](auto kern) { swap_staged(kern, P, W, swap_staged_bytes<P, W, C, 2>(mm)); }
#define SHIMGEN_INT4_BY_INNER(CALL, KERNEL, ...)           \
  do {                                                     \
    if (inner == 2) CALL((KERNEL<2, ##__VA_ARGS__>));      \
    else if (inner == 4) CALL((KERNEL<4, ##__VA_ARGS__>)); \
    else CALL((KERNEL<8, ##__VA_ARGS__>));                 \
  } while (0)
#define SHIMGEN_INT4_GENERAL(K) general(K)
#define SHIMGEN_INT4_STAGED1(K) staged(K, 1)
#define SHIMGEN_INT4_STAGED2(K) staged(K, 2)
#define SHIMGEN_INT4_STAGED4(K) staged(K, 4)
#define SHIMGEN_INT4_SWAP8(K) swap(K, 8)
#define SHIMGEN_INT4_SWAP16(K) swap(K, 16)
#define SHIMGEN_INT4_SWAP32(K) swap(K, 32)
    switch (variant) {
      case Variant::kGeneral: SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_GENERAL, int4_mm_kernel); break;
      case Variant::kStaged1: SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_STAGED1, int4_mm_small_m_kernel, 1); break;
      case Variant::kStaged2: SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_STAGED2, int4_mm_small_m_kernel, 2); break;
      case Variant::kStaged4: SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_STAGED4, int4_mm_small_m_kernel, 4); break;
      case Variant::kSwap8x4: SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAP8, int4_mm_swap_kernel, 8, 4); break;
      case Variant::kSwap16x2: SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAP16, int4_mm_swap_kernel, 16, 2); break;
      case Variant::kSwap32x1: SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAP32, int4_mm_swap_kernel, 32, 1); break;
      case Variant::kSwap16x1: SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAP16, int4_mm_swap_kernel, 16, 1); break;
      case Variant::kSwapS16x8:
        SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAPS(1, 16, 8), int4_mm_swap_staged_kernel, 1, 16, 8);
        break;
      case Variant::kSwapS8x8:
        SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAPS(1, 8, 8), int4_mm_swap_staged_kernel, 1, 8, 8);
        break;
      case Variant::kSwapS32x4:
        SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAPS(1, 32, 4), int4_mm_swap_staged_kernel, 1, 32, 4);
        break;
      case Variant::kSwapS2p8x8:
        SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAPS(2, 8, 8), int4_mm_swap_staged_kernel, 2, 8, 8);
        break;
      case Variant::kSwapS2p16x4:
        SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAPS(2, 16, 4), int4_mm_swap_staged_kernel, 2, 16, 4);
        break;
      case Variant::kSwapS16x8n:
        SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAPS(1, 16, 8), int4_mm_swap_staged_kernel, 1, 16, 8, true);
        break;
      case Variant::kSwapS2p16x4n:
        SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAPS(2, 16, 4), int4_mm_swap_staged_kernel, 2, 16, 4, true);
        break;
      case Variant::kSwapS8x8m16:
        SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAPS16(1, 8, 8), int4_mm_swap_staged_kernel, 1, 8, 8, false, 2);
        break;
      case Variant::kSwapS16x8m16:
        SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAPS16(1, 16, 8), int4_mm_swap_staged_kernel, 1, 16, 8, false, 2);
        break;
      // g: one scale register per group of 128 or more (the group-32/64 path keeps one per word).
      case Variant::kSwapS16x8g:
        if (qGroupSize >= 128)
          SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAPS(1, 16, 8), int4_mm_swap_staged_kernel, 1, 16, 8, false, 1, 4);
        else SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAPS(1, 16, 8), int4_mm_swap_staged_kernel, 1, 16, 8);
        break;
      case Variant::kSwapS8x16g:
        if (qGroupSize >= 128)
          SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAPS(1, 8, 16), int4_mm_swap_staged_kernel, 1, 8, 16, false, 1, 4);
        else SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_SWAPS(1, 8, 16), int4_mm_swap_staged_kernel, 1, 8, 16);
        break;
      default: SHIMGEN_INT4_BY_INNER(SHIMGEN_INT4_GENERAL, int4_mm_kernel); break;
    }
#undef SHIMGEN_INT4_BY_INNER
#undef SHIMGEN_INT4_GENERAL
#undef SHIMGEN_INT4_STAGED1
#undef SHIMGEN_INT4_STAGED2
#undef SHIMGEN_INT4_STAGED4
#undef SHIMGEN_INT4_SWAP8
#undef SHIMGEN_INT4_SWAP16
#undef SHIMGEN_INT4_SWAP32
#undef SHIMGEN_INT4_SWAPS
#undef SHIMGEN_INT4_SWAPS16
    check_cuda(cudaGetLastError(), "int4 mm kernel launch");
    *ret0 = out.release();
  });
}
