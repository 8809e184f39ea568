// aoti_torch_cpu_gcd: torch.gcd(self, other) of integer tensors, broadcast: the non-negative greatest
// common divisor (gcd(0, 0) = 0), Euclid's algorithm on magnitudes. The result dtype is the wider of
// the two integer dtypes (int64 when either is; uint8 with int8 gives int16), torch's elementwise
// output layout.
#include <numeric>

#include "cpu_op.h"
#include "elementwise.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

int rank_of(int32_t dtype) {  // integer promotion order of the signed-compatible types
  switch (dtype) {
    case kUInt8: return 1;
    case kInt8: return 1;
    case kInt16: return 2;
    case kInt32: return 3;
    case kInt64: return 4;
    default: return 0;
  }
}

int64_t read_int(const Tensor& t, int64_t at) {
  int64_t v = 0;
  dispatch_real(t.dtype, "gcd", [&](auto x) {
    using T = decltype(x);
    if constexpr (std::is_integral_v<T>) v = static_cast<int64_t>(reinterpret_cast<const T*>(t.data())[at]);
  });
  return v;
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_gcd(AtenTensorHandle self, AtenTensorHandle other,
                                                              AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& a = cpu_tensor(self, "self");
    const Tensor& b = cpu_tensor(other, "other");
    require_out(ret0, "ret0");
    const int ra = rank_of(a.dtype), rb = rank_of(b.dtype);
    if (ra == 0 || rb == 0)
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "gcd: \"gcd_cpu\" is implemented for integer dtypes only, got codes " +
                                                  std::to_string(a.dtype) + " and " + std::to_string(b.dtype));
    int32_t type = ra >= rb ? a.dtype : b.dtype;
    if (a.dtype != b.dtype && ra == rb) type = kInt16;  // uint8 with int8
    const std::vector<int64_t> sizes = elementwise::broadcast_shape(a.sizes, b.sizes);
    const std::vector<int64_t> sa = elementwise::broadcast_strides(a, sizes),
                               sb = elementwise::broadcast_strides(b, sizes);
    auto out = empty_tensor(sizes, elementwise::output_strides(sizes, {&a, &b}), type, kCPU, -1);
    const Tensor& o = *out;
    const std::vector<int64_t>* strides[3] = {&o.strides, &sa, &sb};
    dispatch_real(type, "gcd", [&](auto x) {
      using T = decltype(x);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        auto* dst = reinterpret_cast<T*>(o.data());
        elementwise::for_each(sizes, strides, [&](const int64_t* at) {
          uint64_t p = static_cast<uint64_t>(std::abs(read_int(a, at[1]))),
                   q = static_cast<uint64_t>(std::abs(read_int(b, at[2])));
          while (q != 0) {
            const uint64_t r = p % q;
            p = q;
            q = r;
          }
          dst[at[0]] = static_cast<T>(p);
        });
      }
    });
    *ret0 = wrap(std::move(out));
  });
}
