// What a CPU op file (runtime/src/ops/cpu/<op>.cpp) needs: tensor arguments, dims, the dtype
// dispatch over the element types torch's CPU kernels take, 16-bit float conversions and a walk
// over every 1-D line of a tensor along one dim. Nothing here is exported.
//
// The error convention of every op (and every shim): the body runs inside guarded(__func__, ...);
// a bad argument is SHIMGEN_REQUIRE(ok, message) (InvalidArgument), a dtype or mode the op does not
// implement is fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, message); every check comes before the first
// write, and output handles are stored last, so a refused call changes nothing.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "../../cpu_kernels.h"
#include "../../internal.h"

namespace shimgen::rt::cpu {

// ---- 16-bit floats: storage types with float conversion (round to nearest even) ----
struct BFloat16 {
  uint16_t bits;
  BFloat16() = default;
  BFloat16(float f) {  // NOLINT: implicit, like c10::BFloat16
    uint32_t u;
    std::memcpy(&u, &f, 4);
    bits = std::isnan(f) ? uint16_t{0x7fc0} : static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  operator float() const {
    const uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

struct Half {
  uint16_t bits;
  Half() = default;
  Half(float f);  // NOLINT: implicit, like c10::Half
  operator float() const;
};

// The type a running sum or comparison of T is computed in: torch's CPU acc_type (float -> double,
// 16-bit floats -> float, integers -> int64).
template <class T> struct Acc { using type = T; };
template <> struct Acc<float> { using type = double; };
template <> struct Acc<BFloat16> { using type = float; };
template <> struct Acc<Half> { using type = float; };
template <> struct Acc<bool> { using type = int64_t; };
template <> struct Acc<uint8_t> { using type = int64_t; };
template <> struct Acc<int8_t> { using type = int64_t; };
template <> struct Acc<int16_t> { using type = int64_t; };
template <> struct Acc<int32_t> { using type = int64_t; };
template <class T> using acc_t = typename Acc<T>::type;

template <class T> constexpr bool is_floating_v =
    std::is_floating_point_v<T> || std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>;

// Value of an element as the type comparisons use (float for the 16-bit floats).
template <class T> inline auto value_of(T v) {
  if constexpr (std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>) return static_cast<float>(v);
  else return v;
}

bool is_integral_dtype(int32_t dtype) noexcept;
// c10's name of a dtype code (toString(ScalarType): "Float", "BFloat16", "Long", ...), for errors worded
// as torch's ("\"avg_pool2d\" not implemented for 'Int'"); "Undefined" for an unknown code.
const char* scalar_type_name(int32_t dtype) noexcept;

// torch's sort order: NaN is larger than every number (ascending puts NaNs last, descending first).
template <class V> inline bool nan_last_less(V a, V b) {
  if constexpr (std::is_floating_point_v<V>) return !std::isnan(a) && (std::isnan(b) || a < b);
  else return a < b;
}
template <class V> inline bool nan_first_greater(V a, V b) {
  if constexpr (std::is_floating_point_v<V>) return !std::isnan(b) && (std::isnan(a) || a > b);
  else return a > b;
}  // bool and the integer codes

// Calls f(T{}) with the C++ type of `dtype` among the real types torch's CPU sort/scan kernels take
// (float32/64, bfloat16, float16, int8-64, uint8, bool); any other code fails Unsupported, naming `op`.
template <class F> void dispatch_real(int32_t dtype, const char* op, F&& f) {
  switch (dtype) {
    case kFloat32: f(float{}); break;
    case kFloat64: f(double{}); break;
    case kBFloat16: f(BFloat16{}); break;
    case kFloat16: f(Half{}); break;
    case kInt64: f(int64_t{}); break;
    case kInt32: f(int32_t{}); break;
    case kInt16: f(int16_t{}); break;
    case kInt8: f(int8_t{}); break;
    case kUInt8: f(uint8_t{}); break;
    case kBool: f(bool{}); break;
    default:
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
           std::string(op) + ": dtype code " + std::to_string(dtype) + " is not supported");
  }
}

// ---- random numbers (random.cpp): one process-wide engine for every CPU op that draws ----
// Not torch's stream (torch's generator state is not in this process), only its distributions.
std::mt19937_64& random_engine();
std::mutex& random_mutex();
// A double uniform in [0, 1) with 53 random bits; the caller holds random_mutex().
inline double uniform_double(std::mt19937_64& e) { return static_cast<double>(e() >> 11) * 0x1.0p-53; }
// The new contiguous CPU tensor a random factory op (rand, randn) fills: size, dtype (null: float32),
// the strided layout and the CPU device checked, errors naming `op`. random.cpp.
std::unique_ptr<Tensor> new_random_tensor(const char* op, const int64_t* size, int64_t size_len, const int32_t* dtype,
                                          const int32_t* layout, const int32_t* device);
// A standard normal draw (Box-Muller on two uniforms); the caller holds random_mutex().
inline double normal_double(std::mt19937_64& e) {
  const double u1 = 1.0 - uniform_double(e), u2 = uniform_double(e);  // u1 in (0, 1]: log is finite
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// Calls f(T{}) with the C++ type of a floating dtype (float32/64, bfloat16, float16); any other code
// fails Unsupported, naming `op`.
template <class F> void dispatch_floating(int32_t dtype, const char* op, F&& f) {
  switch (dtype) {
    case kFloat32: f(float{}); break;
    case kFloat64: f(double{}); break;
    case kBFloat16: f(BFloat16{}); break;
    case kFloat16: f(Half{}); break;
    default:
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
           std::string(op) + ": dtype code " + std::to_string(dtype) + " is not a floating type");
  }
}

// ---- arguments ----
const Tensor& cpu_tensor(AtenTensorHandle handle, const char* what);  // non-null, CPU, known dtype
// A dim in [-rank, rank) made non-negative; a 0-d tensor takes dims -1 and 0 (torch's rule).
int64_t wrap_dim(int64_t dim, int64_t rank, const char* what);
void require_out(const AtenTensorHandle* ret, const char* what);  // output pointer not null

// cummax (max) / cummin: values (self's dtype) and int64 indices of the running extreme along dim,
// new contiguous tensors, stored in *ret0 / *ret1 (torch's tie and NaN rules: cummax.cpp).
void cumulative_extreme(AtenTensorHandle self, int64_t dim, AtenTensorHandle* ret0, AtenTensorHandle* ret1,
                        const char* op, bool max);

// Plane p of self's first `lead` dims (row-major, the last fastest): its offset in self and, through
// out_strides over the same dims, in an output. The pools' per-plane walk (avg_pool.h, adaptive_pool.h).
inline void plane_offsets(const Tensor& in, const std::vector<int64_t>& out_strides, size_t lead, int64_t p,
                          int64_t* in_base, int64_t* out_base) {
  int64_t in_at = 0, out_at = 0, rest = p;
  for (size_t d = lead; d-- > 0;) {
    const int64_t i = rest % in.sizes[d];
    rest /= in.sizes[d];
    in_at += i * in.strides[d];
    out_at += i * out_strides[d];
  }
  *in_base = in_at;
  *out_base = out_at;
}

// The rank-th smallest (0-based) element of every line of `in` along dim: values (in's dtype) and
// int64 indices as new contiguous tensors in *values / *indices, dim kept as size 1 when keepdim,
// else removed. NaN is the largest value; nan_wins: a line holding NaN answers its first NaN
// (torch.median's rule). kthvalue, median. Among equal values the index is the one torch's kernel
// returns: kValueThenIndex, the rank-th of the line ordered by value, then index (torch's median
// and nanmedian along a dim); kHoareQuickSelect, torch's kthvalue quickselect replayed on the line
// in index order.
enum class KthMethod { kValueThenIndex, kHoareQuickSelect };
void select_kth(const Tensor& in, int64_t dim, int64_t rank, bool keepdim, const char* op, bool nan_wins,
                AtenTensorHandle* values, AtenTensorHandle* indices, KthMethod method = KthMethod::kValueThenIndex);

// torch.searchsorted of `values` in `seq` (searchsorted.cpp, which documents the rules); bucketize
// is the same call with a 1-d sequence. A new contiguous int64 (int32 when out_int32) tensor.
std::unique_ptr<Tensor> searchsorted(const Tensor& seq, const Tensor& values, int32_t out_int32, int32_t right,
                                     const char** side, const AtenTensorHandle* sorter);

// The positions index_add / index_reduce write along dim d of self: index (int64/int32, 0-d or 1-d)
// read and checked against self's dim (negative counts from the end), source checked to be self's
// shape with dim d of the index's length and self's dtype. Errors name `op` ("index_add_()").
std::vector<int64_t> index_positions(const Tensor& self, int64_t d, const Tensor& index, const Tensor& source,
                                     const std::string& op);

// ---- 16-bit float operands of float32 kernels ----
bool is_half_dtype(int32_t dtype) noexcept;  // bfloat16 or float16
// A new contiguous float32 tensor holding t's values (t: bfloat16 or float16, any strides).
std::unique_ptr<Tensor> widened(const Tensor& t);
// dst (bfloat16 or float16, any strides) = src (float32, dst's shape) rounded to nearest even.
void store_narrowed(const Tensor& src, const Tensor& dst);

// ---- walking lines: the tensor seen as lines along `dim` ----
// Calls f(base offsets of each of the N tensors) once per line: every index of `sizes` with the
// index along `dim` fixed at 0. strides[i] are tensor i's strides (elements), same rank as sizes.
template <size_t N, class F> void for_each_line(const std::vector<int64_t>& sizes, int64_t dim,
                                                const std::vector<int64_t>* const (&strides)[N], F&& f) {
  std::vector<size_t> outer;  // the dims the walk steps through: all but `dim`
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (static_cast<int64_t>(d) == dim) continue;
    if (sizes[d] == 0) return;
    outer.push_back(d);
  }
  std::vector<int64_t> index(outer.size(), 0);
  int64_t offsets[N] = {};
  while (true) {
    f(static_cast<const int64_t*>(offsets));
    size_t k = outer.size();
    while (true) {
      if (k == 0) return;
      const size_t d = outer[--k];
      if (++index[k] < sizes[d]) {
        for (size_t i = 0; i < N; ++i) offsets[i] += (*strides[i])[d];
        break;
      }
      for (size_t i = 0; i < N; ++i) offsets[i] -= (*strides[i])[d] * (sizes[d] - 1);
      index[k] = 0;
    }
  }
}

// The selection ops (sort, topk): for each line of `in` along dim, order(indices, key) rearranges
// the indices 0..n-1 of the line (key(i) is element i's value, as comparisons see it) and returns how
// many of them to write; values and int64 indices of that many go to the same line of the outputs.
template <class T, class Order>
void select_lines(const Tensor& in, const Tensor& values, const Tensor& indices, int64_t dim, Order&& order) {
  const bool scalar = in.sizes.empty();
  const int64_t n = scalar ? 1 : in.sizes[dim];
  const int64_t s_in = scalar ? 0 : in.strides[dim], s_v = scalar ? 0 : values.strides[dim];
  const int64_t s_i = scalar ? 0 : indices.strides[dim];
  const auto* src = reinterpret_cast<const T*>(in.data());
  auto* v_out = reinterpret_cast<T*>(values.data());
  auto* i_out = reinterpret_cast<int64_t*>(indices.data());
  std::vector<int64_t> picked(static_cast<size_t>(n));
  const std::vector<int64_t>* strides[3] = {&in.strides, &values.strides, &indices.strides};
  for_each_line(in.sizes, scalar ? -1 : dim, strides, [&](const int64_t* base) {
    const T* line = src + base[0];
    for (int64_t i = 0; i < n; ++i) picked[static_cast<size_t>(i)] = i;
    const int64_t count = order(picked, [&](int64_t i) { return value_of(line[i * s_in]); });
    for (int64_t j = 0; j < count; ++j) {
      v_out[base[1] + j * s_v] = line[picked[static_cast<size_t>(j)] * s_in];
      i_out[base[2] + j * s_i] = picked[static_cast<size_t>(j)];
    }
  });
}

// Walks every element of a tensor in row-major order: f(offset in elements from data()).
template <class F> void for_each_element(const Tensor& t, F&& f) {
  const int64_t rank = static_cast<int64_t>(t.sizes.size());
  const int64_t last = rank == 0 ? -1 : rank - 1;
  const int64_t n = rank == 0 ? 1 : t.sizes[last];
  const int64_t step = rank == 0 ? 0 : t.strides[last];
  const std::vector<int64_t>* strides[1] = {&t.strides};
  for_each_line(t.sizes, last, strides, [&](const int64_t* base) {
    for (int64_t i = 0; i < n; ++i) f(base[0] + i * step);
  });
}

}  // namespace shimgen::rt::cpu
