// The helpers of cpu_op.h.
#include "cpu_op.h"

#include <algorithm>

namespace shimgen::rt::cpu {

// IEEE binary16 <-> binary32, bit-exact with c10::Half (round to nearest even, NaN kept quiet).
Half::Half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    bits = static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    return;
  }
  if (abs >= 0x477ff000u) {  // rounds to >= 65520: overflow to inf
    bits = static_cast<uint16_t>(sign | 0x7c00u);
    return;
  }
  if (abs < 0x38800000u) {  // below the smallest normal half: subnormal or zero
    // Add 0.5 (as float) so the FPU's own round-to-nearest-even does the rounding.
    float a;
    std::memcpy(&a, &abs, 4);
    a += 0.5f;
    uint32_t r;
    std::memcpy(&r, &a, 4);
    bits = static_cast<uint16_t>(sign | (r - 0x3f000000u));
    return;
  }
  const uint32_t mantissa_odd = (abs >> 13) & 1u;
  const uint32_t rounded = abs + 0xc8000fffu + mantissa_odd;  // rebias exponent (-112 << 23) and round
  bits = static_cast<uint16_t>(sign | (rounded >> 13));
}

Half::operator float() const {
  const uint32_t sign = (static_cast<uint32_t>(bits) & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  uint32_t out;
  if (exponent == 0x1f) {
    out = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    out = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    out = sign;
  } else {  // subnormal: value = mantissa * 2^-24
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    std::memcpy(&out, &magnitude, 4);
    out |= sign;
  }
  float f;
  std::memcpy(&f, &out, 4);
  return f;
}

bool is_integral_dtype(int32_t dtype) noexcept {
  switch (dtype) {
    case kBool:
    case kUInt8:
    case kInt8:
    case kInt16:
    case kInt32:
    case kInt64:
    case kUInt16:
    case kUInt32:
    case kUInt64: return true;
    default: return false;
  }
}

const char* scalar_type_name(int32_t dtype) noexcept {
  switch (dtype) {
    case kUInt8: return "Byte";
    case kInt8: return "Char";
    case kInt16: return "Short";
    case kInt32: return "Int";
    case kInt64: return "Long";
    case kFloat16: return "Half";
    case kFloat32: return "Float";
    case kFloat64: return "Double";
    case kComplex32: return "ComplexHalf";
    case kComplex64: return "ComplexFloat";
    case kComplex128: return "ComplexDouble";
    case kBool: return "Bool";
    case kBFloat16: return "BFloat16";
    case kFloat8_e5m2: return "Float8_e5m2";
    case kFloat8_e4m3fn: return "Float8_e4m3fn";
    case kFloat8_e5m2fnuz: return "Float8_e5m2fnuz";
    case kFloat8_e4m3fnuz: return "Float8_e4m3fnuz";
    case kUInt16: return "UInt16";
    case kUInt32: return "UInt32";
    case kUInt64: return "UInt64";
    case kFloat8_e8m0fnu: return "Float8_e8m0fnu";
    case kFloat4_e2m1fn_x2: return "Float4_e2m1fn_x2";
    default: return "Undefined";
  }
}

const Tensor& cpu_tensor(AtenTensorHandle handle, const char* what) {
  const Tensor* t = unwrap(handle, what);
  SHIMGEN_REQUIRE(t->storage->device_type == kCPU, std::string(what) + " is not a CPU tensor");
  return *t;
}

int64_t wrap_dim(int64_t dim, int64_t rank, const char* what) {
  const int64_t extent = rank == 0 ? 1 : rank;
  SHIMGEN_REQUIRE(dim >= -extent && dim < extent, std::string(what) + " " + std::to_string(dim) +
                                                      " is out of range for a " + std::to_string(rank) + "-d tensor");
  return dim < 0 ? dim + extent : dim;
}

void require_out(const AtenTensorHandle* ret, const char* what) {
  SHIMGEN_REQUIRE(ret != nullptr, std::string(what) + " is null");
}

bool is_half_dtype(int32_t dtype) noexcept { return dtype == kBFloat16 || dtype == kFloat16; }

namespace {
// Element-wise dst = src between two tensors of one shape, converting through float.
template <class To, class From> void convert(const Tensor& src, const Tensor& dst) {
  const int64_t rank = static_cast<int64_t>(src.sizes.size());
  const int64_t last = rank == 0 ? -1 : rank - 1;
  const int64_t n = rank == 0 ? 1 : src.sizes[last];
  const int64_t s_step = rank == 0 ? 0 : src.strides[last], d_step = rank == 0 ? 0 : dst.strides[last];
  const auto* from = reinterpret_cast<const From*>(src.data());
  auto* to = reinterpret_cast<To*>(dst.data());
  const std::vector<int64_t>* strides[2] = {&src.strides, &dst.strides};
  for_each_line(src.sizes, last, strides, [&](const int64_t* base) {
    for (int64_t i = 0; i < n; ++i) to[base[1] + i * d_step] = To(static_cast<float>(from[base[0] + i * s_step]));
  });
}
}  // namespace

std::unique_ptr<Tensor> widened(const Tensor& t) {
  auto out = empty_tensor(t.sizes, contiguous_strides_of(t.sizes), kFloat32, kCPU, -1);
  if (t.dtype == kBFloat16) convert<float, BFloat16>(t, *out);
  else convert<float, Half>(t, *out);
  return out;
}

void store_narrowed(const Tensor& src, const Tensor& dst) {
  if (dst.dtype == kBFloat16) convert<BFloat16, float>(src, dst);
  else convert<Half, float>(src, dst);
}

namespace {
template <class T>
void extreme_lines(const Tensor& in, const Tensor& values, const Tensor& indices, int64_t dim, bool max) {
  const bool scalar = in.sizes.empty();
  const int64_t n = scalar ? 1 : in.sizes[dim];
  const int64_t s_in = scalar ? 0 : in.strides[dim], s_v = scalar ? 0 : values.strides[dim];
  const int64_t s_i = scalar ? 0 : indices.strides[dim];
  const auto* src = reinterpret_cast<const T*>(in.data());
  auto* v_out = reinterpret_cast<T*>(values.data());
  auto* i_out = reinterpret_cast<int64_t*>(indices.data());
  const std::vector<int64_t>* strides[3] = {&in.strides, &values.strides, &indices.strides};
  for_each_line(in.sizes, scalar ? -1 : dim, strides, [&](const int64_t* base) {
    T best = src[base[0]];
    int64_t at = 0;
    for (int64_t i = 0; i < n; ++i) {
      const T x = src[base[0] + i * s_in];
      const auto xv = value_of(x), bv = value_of(best);
      bool take;
      if constexpr (std::is_floating_point_v<decltype(xv)>)
        take = std::isnan(xv) || (!std::isnan(bv) && (max ? xv >= bv : xv <= bv));
      else take = max ? xv >= bv : xv <= bv;
      if (take) {
        best = x;
        at = i;
      }
      v_out[base[1] + i * s_v] = best;
      i_out[base[2] + i * s_i] = at;
    }
  });
}
}  // namespace

void cumulative_extreme(AtenTensorHandle self, int64_t dim, AtenTensorHandle* ret0, AtenTensorHandle* ret1,
                        const char* op, bool max) {
  const Tensor& in = cpu_tensor(self, "self");
  require_out(ret0, "ret0");
  require_out(ret1, "ret1");
  const int64_t d = wrap_dim(dim, static_cast<int64_t>(in.sizes.size()), "dim");
  auto values = empty_tensor(in.sizes, contiguous_strides_of(in.sizes), in.dtype, kCPU, -1);
  auto indices = empty_tensor(in.sizes, contiguous_strides_of(in.sizes), kInt64, kCPU, -1);
  if (in.numel() > 0)
    dispatch_real(in.dtype, op, [&](auto t) { extreme_lines<decltype(t)>(in, *values, *indices, d, max); });
  *ret0 = wrap(std::move(values));
  *ret1 = wrap(std::move(indices));
}

namespace {

// torch.kthvalue's CPU selection: quickselect with a median-of-three pivot moved to lo and Hoare
// partitioning (the TH routine after Sedgewick's Program 2), on `greater or NaN`. Equal values move
// only where it swaps them, so replaying its swaps on the line in index order lands on its index.
template <class Key> void hoare_quick_select(std::vector<int64_t>& order, int64_t rank, Key key) {
  auto after = [&](int64_t a, int64_t b) {  // a sorts after b: greater, or NaN before a number
    const auto x = key(order[static_cast<size_t>(a)]), y = key(order[static_cast<size_t>(b)]);
    return (x != x && y == y) || x > y;
  };
  auto swap_at = [&](int64_t a, int64_t b) { std::swap(order[static_cast<size_t>(a)], order[static_cast<size_t>(b)]); };
  int64_t lo = 0, hi = static_cast<int64_t>(order.size()) - 1;
  while (hi > lo) {
    if (hi == lo + 1) {
      if (after(lo, hi)) swap_at(lo, hi);
      return;
    }
    swap_at((lo + hi) >> 1, lo + 1);  // lo+1 <= lo <= hi after these three
    if (after(lo + 1, hi)) swap_at(lo + 1, hi);
    if (after(lo, hi)) swap_at(lo, hi);
    if (after(lo + 1, lo)) swap_at(lo + 1, lo);
    const int64_t pivot = lo;  // stays in place until the final swap
    int64_t i = lo + 1, j = hi;
    while (true) {
      do ++i;
      while (after(pivot, i));
      do --j;
      while (after(j, pivot));
      if (j < i) break;
      swap_at(i, j);
    }
    swap_at(lo, j);
    if (j <= rank) lo = i;
    if (j >= rank) hi = j - 1;
  }
}

}  // namespace

void select_kth(const Tensor& in, int64_t dim, int64_t rank, bool keepdim, const char* op, bool nan_wins,
                AtenTensorHandle* values, AtenTensorHandle* indices, KthMethod method) {
  require_out(values, "values");
  require_out(indices, "indices");
  std::vector<int64_t> sizes = in.sizes;
  if (!sizes.empty()) sizes[dim] = 1;
  auto v = empty_tensor(sizes, contiguous_strides_of(sizes), in.dtype, kCPU, -1);
  auto i = empty_tensor(sizes, contiguous_strides_of(sizes), kInt64, kCPU, -1);
  dispatch_real(in.dtype, op, [&](auto t) {
    select_lines<decltype(t)>(in, *v, *i, dim, [&](std::vector<int64_t>& order, auto key) {
      if (nan_wins) {
        for (int64_t j : order) {
          const auto x = key(j);
          if (x != x) {  // NaN (integers never)
            order[0] = j;
            return int64_t{1};
          }
        }
      }
      if (method == KthMethod::kHoareQuickSelect) hoare_quick_select(order, rank, key);
      else
        std::nth_element(order.begin(), order.begin() + rank, order.end(), [&](int64_t a, int64_t b) {
          return nan_last_less(key(a), key(b)) || (!nan_last_less(key(b), key(a)) && a < b);
        });
      order[0] = order[static_cast<size_t>(rank)];
      return int64_t{1};
    });
  });
  if (!keepdim && !sizes.empty()) {
    for (auto* t : {v.get(), i.get()}) {
      t->sizes.erase(t->sizes.begin() + dim);
      t->strides = contiguous_strides_of(t->sizes);
    }
  }
  *values = wrap(std::move(v));
  *indices = wrap(std::move(i));
}

std::vector<int64_t> index_positions(const Tensor& s, int64_t d, const Tensor& idx, const Tensor& src,
                                     const std::string& op) {
  const int64_t rank = static_cast<int64_t>(s.sizes.size());
  SHIMGEN_REQUIRE(idx.sizes.size() <= 1, op + ": Index is supposed to be a vector");
  SHIMGEN_REQUIRE(idx.dtype == kInt64 || idx.dtype == kInt32, op + ": Expected dtype int32/int64 for index");
  SHIMGEN_REQUIRE(src.dtype == s.dtype, op + ": self and source must have the same scalar type");
  const int64_t count = idx.numel();
  SHIMGEN_REQUIRE(src.sizes.size() == s.sizes.size(), op + ": source and self must have one rank");
  for (int64_t k = 0; k < rank; ++k)
    SHIMGEN_REQUIRE(k == d ? src.sizes[k] == count : src.sizes[k] == s.sizes[k],
                    op + ": source " + shape_str(src.sizes) + " does not match self " + shape_str(s.sizes) + " and " +
                        std::to_string(count) + " indices");
  const int64_t n = rank == 0 ? 1 : s.sizes[d];
  std::vector<int64_t> positions(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const int64_t at = idx.sizes.empty() ? 0 : i * idx.strides[0];
    const int64_t v = idx.dtype == kInt64 ? reinterpret_cast<const int64_t*>(idx.data())[at]
                                          : reinterpret_cast<const int32_t*>(idx.data())[at];
    SHIMGEN_REQUIRE(v >= -n && v < n,
                    op + ": index " + std::to_string(v) + " is out of bounds for a dim of size " + std::to_string(n));
    positions[static_cast<size_t>(i)] = v < 0 ? v + n : v;
  }
  return positions;
}

}  // namespace shimgen::rt::cpu
