// The device scatter (scatter.h): aoti_torch_cuda_scatter_src_out, scatter_value_out and
// scatter_reduce_two_out. One kernel checks every index (read back once: an out-of-range index is
// an error with out untouched, where torch's kernel asserts on the device). Assignment is
// deterministic: a first pass finds, per target, the last index element (serial order) that writes
// it, and only that one writes (torch's CPU result for duplicate targets). Reductions accumulate per
// target in a scratch buffer of the accumulation type (float for the 16-bit floats, double,
// int64 for the integers) with atomics, counting the values of each target; a last pass writes
// every element of out: self where nothing landed (include_self=0), else the reduction (mean:
// sum / count, floored for integers, as torch). Sums of floats are in atomic order, as torch's.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "scatter.h"
#include "strided.cuh"

namespace shimgen::rt::cuda_ops {
namespace {

constexpr int kThreads = 256;

__global__ void check_kernel(const int64_t* index, Strided<1> walk, int64_t n, int64_t limit, int* bad) {
  SHIMGEN_GRID_STRIDE_LOOP(p, n) {
    int64_t o[1];
    walk.offsets(p, o);
    const int64_t j = index[o[0]];
    if (j < 0 || j >= limit) atomicExch(bad, 1);
  }
}

// Assignment, pass 1: winner[target] = 1 + the largest position (row-major over index) that writes
// it. winner has out's shape, row-major (offsets o[2] + index * dense_step): out itself may be a strided
// view (offsets o[3] + index * out_step), whose offsets need not be 0..numel-1.
__global__ void winner_kernel(unsigned long long* winner, int64_t dense_step, const int64_t* index, Strided<4> walk,
                              int64_t n) {
  SHIMGEN_GRID_STRIDE_LOOP(p, n) {
    int64_t o[4];
    walk.offsets(p, o);
    atomicMax(winner + o[2] + index[o[0]] * dense_step, static_cast<unsigned long long>(p) + 1);
  }
}

// Pass 2: only the winner writes, so duplicate targets get the last source element in serial order
// (torch's CPU kernel's result, and its CUDA kernel's in practice). U: an unsigned type of the
// element's size (assignment moves bits).
template <typename U> __global__ void assign_kernel(U* out, int64_t dense_step, int64_t out_step, const int64_t* index,
                                                    const U* src, U value, Strided<4> walk, int64_t n,
                                                    const unsigned long long* winner) {
  SHIMGEN_GRID_STRIDE_LOOP(p, n) {
    int64_t o[4];
    walk.offsets(p, o);
    const int64_t j = index[o[0]];
    if (winner[o[2] + j * dense_step] == static_cast<unsigned long long>(p) + 1) {
      out[o[3] + j * out_step] = src != nullptr ? src[o[1]] : value;
    }
  }
}

// *address = f(*address), atomically, for 4- and 8-byte A.
template <typename A, typename F> __device__ void atomic_update(A* address, F f) {
  static_assert(sizeof(A) == 4 || sizeof(A) == 8, "4- or 8-byte accumulators");
  using Bits = std::conditional_t<sizeof(A) == 4, unsigned int, unsigned long long>;
  Bits* p = reinterpret_cast<Bits*>(address);
  Bits old = *p, assumed;
  do {
    assumed = old;
    A current;
    memcpy(&current, &assumed, sizeof(A));
    const A next = f(current);
    Bits bits;
    memcpy(&bits, &next, sizeof(A));
    if (bits == assumed) return;
    old = atomicCAS(p, assumed, bits);
  } while (old != assumed);
}

template <typename A> __device__ inline A identity(ScatterMode mode) {
  switch (mode) {
    case ScatterMode::kProd: return A(1);
    case ScatterMode::kMax:
      if constexpr (std::is_floating_point_v<A>) return -INFINITY;
      else return A(INT64_MIN);  // A is int64_t
    case ScatterMode::kMin:
      if constexpr (std::is_floating_point_v<A>) return INFINITY;
      else return A(INT64_MAX);
    default: return A(0);
  }
}

template <typename T, typename A> __global__ void init_kernel(const T* self, Strided<1> walk, int64_t numel, A* acc,
                                                              int* count, ScatterMode mode, bool include_self) {
  SHIMGEN_GRID_STRIDE_LOOP(k, numel) {
    int64_t o[1];
    walk.offsets(k, o);
    acc[k] = include_self ? load_as<A>(self[o[0]]) : identity<A>(mode);
    count[k] = include_self ? 1 : 0;
  }
}

template <typename T, typename A> __global__ void accumulate_kernel(A* acc, int* count, int64_t acc_step,
                                                                    const int64_t* index, const T* src, Strided<3> walk,
                                                                    int64_t n, ScatterMode mode) {
  SHIMGEN_GRID_STRIDE_LOOP(p, n) {
    int64_t o[3];
    walk.offsets(p, o);
    const int64_t k = o[2] + index[o[0]] * acc_step;
    const A v = load_as<A>(src[o[1]]);
    switch (mode) {
      case ScatterMode::kSum:
      case ScatterMode::kMean:
        if constexpr (std::is_same_v<A, int64_t>) {
          atomicAdd(reinterpret_cast<unsigned long long*>(acc + k), static_cast<unsigned long long>(v));
        } else {
          atomicAdd(acc + k, v);
        }
        break;
      case ScatterMode::kProd: atomic_update(acc + k, [v](A a) { return static_cast<A>(a * v); }); break;
      case ScatterMode::kMax:
        atomic_update(acc + k, [v](A a) { return is_nan(a) || is_nan(v) ? (is_nan(a) ? a : v) : (v > a ? v : a); });
        break;
      case ScatterMode::kMin:
        atomic_update(acc + k, [v](A a) { return is_nan(a) || is_nan(v) ? (is_nan(a) ? a : v) : (v < a ? v : a); });
        break;
      default: break;
    }
    atomicAdd(count + k, 1);
  }
}

template <typename T, typename A> __global__ void finish_kernel(T* out, const T* self, Strided<2> walk, int64_t numel,
                                                                const A* acc, const int* count, ScatterMode mode) {
  SHIMGEN_GRID_STRIDE_LOOP(k, numel) {
    int64_t o[2];
    walk.offsets(k, o);
    const int c = count[k];
    if (c == 0) {
      out[o[1]] = self[o[0]];
      continue;
    }
    A v = acc[k];
    if (mode == ScatterMode::kMean) {
      if constexpr (std::is_floating_point_v<A>) {
        v = v / static_cast<A>(c);
      } else {
        A q = v / c;
        if (v % c != 0 && v < 0) q -= 1;  // floor division (c > 0)
        v = q;
      }
    }
    out[o[1]] = store_as<T>(v);
  }
}

// The bits of `value` converted to `dtype` (scatter_value_out's fill), in the low bytes.
unsigned long long value_bits(double value, int32_t dtype) {
  unsigned long long bits = 0;
  auto put = [&](auto v) { std::memcpy(&bits, &v, sizeof(v)); };
  switch (dtype) {
    case kFloat32: put(static_cast<float>(value)); break;
    case kFloat64: put(value); break;
    case kFloat16: put(__float2half(static_cast<float>(value))); break;
    case kBFloat16: put(__float2bfloat16(static_cast<float>(value))); break;
    case kInt64: put(static_cast<int64_t>(value)); break;
    case kInt32: put(static_cast<int32_t>(value)); break;
    case kInt16: put(static_cast<int16_t>(value)); break;
    case kInt8: put(static_cast<int8_t>(value)); break;
    case kUInt8: put(static_cast<uint8_t>(value)); break;
    case kBool: put(static_cast<uint8_t>(value != 0.0 ? 1 : 0)); break;
    default: fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "scatter of dtype code " + str(dtype) + " is not supported");
  }
  return bits;
}

}  // namespace

ScatterMode parse_scatter_reduce(const char* reduce) {
  SHIMGEN_REQUIRE(reduce != nullptr, "reduce is null");
  const std::string r(reduce);
  if (r == "sum") return ScatterMode::kSum;
  if (r == "prod") return ScatterMode::kProd;
  if (r == "mean") return ScatterMode::kMean;
  if (r == "amax") return ScatterMode::kMax;
  if (r == "amin") return ScatterMode::kMin;
  SHIMGEN_REQUIRE(false, "reduce must be sum, prod, mean, amax or amin, not '" + r + "'");
  return ScatterMode::kSum;
}

void scatter_device(AtenTensorHandle out_h, AtenTensorHandle self_h, int64_t dim, AtenTensorHandle index_h,
                    AtenTensorHandle src_h, double value, ScatterMode mode, bool include_self) {
  const Tensor& out = cuda_arg(out_h, "out");
  const Tensor& self = cuda_arg(self_h, "self");
  const Tensor& index = cuda_arg(index_h, "index");
  const Tensor* src = src_h != nullptr ? &cuda_arg(src_h, "src") : nullptr;
  const size_t rank = self.sizes.size();
  const int64_t d = wrap_dim(dim, rank);
  const int32_t device = self.storage->device_index;
  SHIMGEN_REQUIRE(out.storage->device_index == device && index.storage->device_index == device &&
                      (src == nullptr || src->storage->device_index == device),
                  "out, self, index and src must be on one device");
  SHIMGEN_REQUIRE(index.dtype == kInt64, "index must be int64, not dtype code " + str(index.dtype));
  SHIMGEN_REQUIRE(out.dtype == self.dtype && (src == nullptr || src->dtype == self.dtype),
                  "self, src and out must have one dtype");
  SHIMGEN_REQUIRE(out.sizes == self.sizes, "out must have self's shape");
  const int64_t n = index.numel();
  SHIMGEN_REQUIRE(n == 0 || index.sizes.size() == rank, "index must have self's rank");
  SHIMGEN_REQUIRE(src == nullptr || n == 0 || src->sizes.size() == rank, "src must have self's rank");
  for (size_t k = 0; n != 0 && k < rank; ++k) {
    SHIMGEN_REQUIRE(static_cast<int64_t>(k) == d || index.sizes[k] <= self.sizes[k],
                    "index is larger than self in dim " + str(static_cast<int64_t>(k)));
    SHIMGEN_REQUIRE(src == nullptr || index.sizes[k] <= src->sizes[k],
                    "index is larger than src in dim " + str(static_cast<int64_t>(k)));
  }
  // out may be a strided view (inductor scatters into a slice of a torch.cat's buffer and does not
  // check this call's error code: a refusal would leave the slice unwritten). Refused only where ATen's
  // assert_no_internal_overlap refuses.
  require_no_internal_overlap(out);
  SHIMGEN_REQUIRE(src != nullptr || mode == ScatterMode::kAssign, "src is null");
  if (mode != ScatterMode::kAssign && self.dtype == kBool) {
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "scatter_reduce of bool is not supported");
  }
  const unsigned long long fill = src == nullptr ? value_bits(value, self.dtype) : 0;
  const size_t itemsize = self.itemsize();
  if (mode != ScatterMode::kAssign) dispatch_real(self.dtype, "scatter_reduce", [](auto) {});  // refuses early

  DeviceScope scope(device);
  cudaStream_t stream = stream_of(device);
  const int64_t limit = rank == 0 ? 1 : self.sizes[static_cast<size_t>(d)];
  const int64_t* index_data = reinterpret_cast<const int64_t*>(index.data());
  if (n > 0) {
    Scratch bad(device, sizeof(int));
    check_cuda(cudaMemsetAsync(bad.data(), 0, sizeof(int), stream), "cudaMemsetAsync");
    const Strided<1> walk = strided<1>(index.sizes, {index.strides.data()});
    check_kernel<<<grid_for(n, kThreads), kThreads, 0, stream>>>(index_data, walk, n, limit, bad.as<int>());
    check_cuda(cudaGetLastError(), "scatter index check launch");
    int found = 0;
    check_cuda(cudaMemcpyAsync(&found, bad.data(), sizeof(int), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    SHIMGEN_REQUIRE(found == 0, "an index is out of bounds for dim " + str(d) + " of size " + str(limit));
  }

  // Strides along which an index element reaches its target: the target's own dim comes from the index.
  auto target_strides = [&](const std::vector<int64_t>& strides) {
    std::vector<int64_t> s(rank == 0 ? 1 : rank, 0);
    for (size_t k = 0; k < rank; ++k) s[k] = static_cast<int64_t>(k) == d ? 0 : strides[k];
    return s;
  };
  const std::vector<int64_t> zeros(rank, 0);
  const int64_t* src_strides = src != nullptr ? src->strides.data() : zeros.data();

  if (mode == ScatterMode::kAssign) {
    if (out.data() != self.data() || out.strides != self.strides) {
      copy_strided(out.data(), out.strides.data(), self.data(), self.strides.data(), self.sizes, itemsize, device);
    }
    if (n == 0) return;
    const std::vector<int64_t> dense = row_major(self.sizes);
    const std::vector<int64_t> to_dense = target_strides(dense), to_out = target_strides(out.strides);
    const Strided<4> walk =
        strided<4>(index.sizes, {index.strides.data(), src_strides, to_dense.data(), to_out.data()});
    const int64_t dense_step = rank == 0 ? 0 : dense[static_cast<size_t>(d)];
    const int64_t step = rank == 0 ? 0 : out.strides[static_cast<size_t>(d)];
    Scratch winner(device, static_cast<size_t>(out.numel()) * sizeof(unsigned long long));
    check_cuda(cudaMemsetAsync(winner.data(), 0, static_cast<size_t>(out.numel()) * sizeof(unsigned long long), stream),
               "cudaMemsetAsync");
    winner_kernel<<<grid_for(n, kThreads), kThreads, 0, stream>>>(winner.as<unsigned long long>(), dense_step,
                                                                  index_data, walk, n);
    auto launch = [&](auto tag) {
      using U = decltype(tag);
      U v{};  // the fill's bits (value_bits refuses complex dtypes, so a fill is at most 8 bytes)
      std::memcpy(&v, &fill, sizeof(U) < sizeof(fill) ? sizeof(U) : sizeof(fill));
      assign_kernel<U><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
          reinterpret_cast<U*>(out.data()), dense_step, step, index_data,
          src != nullptr ? reinterpret_cast<const U*>(src->data()) : nullptr, v, walk, n,
          winner.as<const unsigned long long>());
    };
    dispatch_bits(itemsize, "scatter", launch);
    check_cuda(cudaGetLastError(), "scatter kernel launch");
    return;
  }

  const int64_t numel = self.numel();
  if (numel == 0) return;
  const std::vector<int64_t> dense = row_major(self.sizes);
  const std::vector<int64_t> to = target_strides(dense);
  const int64_t step = rank == 0 ? 0 : dense[static_cast<size_t>(d)];
  dispatch_real(self.dtype, "scatter_reduce", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      using A = std::conditional_t<std::is_integral_v<T>, int64_t, acc_of_t<T>>;
      Scratch acc(device, static_cast<size_t>(numel) * sizeof(A));
      Scratch count(device, static_cast<size_t>(numel) * sizeof(int));
      const T* self_data = reinterpret_cast<const T*>(self.data());
      init_kernel<T, A>
          <<<grid_for(numel, kThreads), kThreads, 0, stream>>>(self_data, strided<1>(self.sizes, {self.strides.data()}),
                                                               numel, acc.as<A>(), count.as<int>(), mode, include_self);
      if (n > 0) {
        const Strided<3> walk = strided<3>(index.sizes, {index.strides.data(), src_strides, to.data()});
        accumulate_kernel<T, A><<<grid_for(n, kThreads), kThreads, 0, stream>>>(
            acc.as<A>(), count.as<int>(), step, index_data, reinterpret_cast<const T*>(src->data()), walk, n, mode);
      }
      finish_kernel<T, A><<<grid_for(numel, kThreads), kThreads, 0, stream>>>(
          reinterpret_cast<T*>(out.data()), self_data,
          strided<2>(self.sizes, {self.strides.data(), out.strides.data()}), numel, acc.as<const A>(),
          count.as<const int>(), mode);
      check_cuda(cudaGetLastError(), "scatter_reduce kernel launch");
    }
  });
}

}  // namespace shimgen::rt::cuda_ops
