// The random sources inductor's CPU code calls: aoti_torch_cpu_randint_low_out (the seeds its
// generated rand/randn kernels start from) and aoti_torch_cpu_rand. One process-wide 64-bit
// Mersenne Twister, seeded from std::random_device once, under a mutex: the values are not torch's
// stream (torch's generator state is not in this process), only the same distributions.
#include <mutex>
#include <random>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::cpu {

std::mt19937_64& random_engine() {
  static std::mt19937_64 e{(static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}()};
  return e;
}

std::mutex& random_mutex() {
  static std::mutex m;
  return m;
}

std::unique_ptr<Tensor> new_random_tensor(const char* op, const int64_t* size, int64_t size_len, const int32_t* dtype,
                                          const int32_t* layout, const int32_t* device) {
  SHIMGEN_REQUIRE(size_len >= 0 && (size != nullptr || size_len == 0), "size is null");
  SHIMGEN_REQUIRE(layout == nullptr || *layout == 0, "only the strided layout is supported");
  SHIMGEN_REQUIRE(device == nullptr || *device == kCPU,
                  std::string("aoti_torch_cpu_") + op + " makes CPU tensors only");
  const std::vector<int64_t> sizes(size, size + size_len);
  return empty_tensor(sizes, contiguous_strides_of(sizes), dtype != nullptr ? *dtype : kFloat32, kCPU, -1);
}

}  // namespace shimgen::rt::cpu

namespace {

std::mt19937_64& engine() { return random_engine(); }

template <class T> constexpr int kMantissaBits = 24;  // float
template <> constexpr int kMantissaBits<double> = 53;
template <> constexpr int kMantissaBits<BFloat16> = 8;
template <> constexpr int kMantissaBits<Half> = 11;

// k random bits scaled by 2^-k, k the type's precision: every value is exact in T and lies in [0, 1),
// as torch's uniform_ draws them.
template <class T> void fill_uniform(Tensor& out) {
  constexpr int bits = kMantissaBits<T>;
  constexpr double scale = 1.0 / static_cast<double>(uint64_t{1} << bits);
  auto* dst = reinterpret_cast<T*>(out.data());
  std::lock_guard<std::mutex> lock(random_mutex());
  for (int64_t i = 0, n = out.numel(); i < n; ++i) {
    const double v = static_cast<double>(engine()() >> (64 - bits)) * scale;
    if constexpr (std::is_same_v<T, double>) dst[i] = v;
    else dst[i] = static_cast<T>(static_cast<float>(v));
  }
}

}  // namespace

extern "C" {

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_randint_low_out(AtenTensorHandle out_h, int64_t low, int64_t high,
                                                               const int64_t* size, int64_t size_len_) {
  return guarded(__func__, [&] {
    Tensor& out = const_cast<Tensor&>(cpu_tensor(out_h, "out"));
    SHIMGEN_REQUIRE(size_len_ >= 0 && (size != nullptr || size_len_ == 0), "size is null");
    SHIMGEN_REQUIRE(std::vector<int64_t>(size, size + size_len_) == out.sizes, "out's shape is not size");
    SHIMGEN_REQUIRE(low < high, "random_ expects 'from' to be less than 'to', but got from=" + std::to_string(low) +
                                    " >= to=" + std::to_string(high));
    SHIMGEN_REQUIRE(out.dtype == kInt64 || out.dtype == kInt32, "out must be int64 or int32");
    SHIMGEN_REQUIRE(out.is_contiguous(), "out must be contiguous");
    const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
    std::uniform_int_distribution<uint64_t> pick(0, range - 1);
    std::lock_guard<std::mutex> lock(random_mutex());
    for (int64_t i = 0, n = out.numel(); i < n; ++i) {
      const int64_t v = static_cast<int64_t>(static_cast<uint64_t>(low) + pick(engine()));
      if (out.dtype == kInt64) reinterpret_cast<int64_t*>(out.data())[i] = v;
      else reinterpret_cast<int32_t*>(out.data())[i] = static_cast<int32_t>(v);
    }
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_rand(const int64_t* size, int64_t size_len_, int32_t* dtype,
                                                    int32_t* layout, int32_t* device, int32_t device_index_,
                                                    int32_t* pin_memory, AtenTensorHandle* ret0) {
  (void)device_index_;
  (void)pin_memory;
  return guarded(__func__, [&] {
    require_out(ret0, "ret0");
    const int32_t type = dtype != nullptr ? *dtype : kFloat32;
    auto out = new_random_tensor("rand", size, size_len_, dtype, layout, device);
    switch (type) {
      case kFloat32: fill_uniform<float>(*out); break;
      case kFloat64: fill_uniform<double>(*out); break;
      case kBFloat16: fill_uniform<BFloat16>(*out); break;
      case kFloat16: fill_uniform<Half>(*out); break;
      default:
        fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "rand: dtype code " + std::to_string(type) + " is not a floating type");
    }
    *ret0 = wrap(std::move(out));
  });
}

}  // extern "C"
