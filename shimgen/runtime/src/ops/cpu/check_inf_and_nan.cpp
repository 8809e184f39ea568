// aoti_torch_check_inf_and_nan: what a model compiled with inductor's nan_asserts
// (TORCHINDUCTOR_NAN_ASSERTS=1) calls on each graph input. Fails, as torch's does, with
// "At least one NaN in <name>" (checked first) or "At least one INF in <name>"; integer and bool
// tensors have neither. A CUDA tensor is read through a host copy.
#include <cmath>
#include <string>

#include "../../internal.h"
#include "cpu_op.h"
#include "host_view.h"
#include "shimgen_runtime/shim.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

struct Found {
  bool nan = false;
  bool inf = false;
  void add(double v) {
    nan = nan || std::isnan(v);
    inf = inf || std::isinf(v);
  }
};

// float8 codes by their bit patterns: e5m2 has infinities and NaNs as IEEE does; e4m3fn only the
// NaN S.1111.111; the fnuz formats and e8m0fnu one NaN each (0x80, 0xFF).
void add_float8(Found& found, int32_t dtype, uint8_t b) {
  switch (dtype) {
    case kFloat8_e5m2:
      if ((b & 0x7C) == 0x7C) ((b & 0x03) != 0 ? found.nan : found.inf) = true;
      break;
    case kFloat8_e4m3fn: found.nan = found.nan || (b & 0x7F) == 0x7F; break;
    case kFloat8_e5m2fnuz:
    case kFloat8_e4m3fnuz: found.nan = found.nan || b == 0x80; break;
    case kFloat8_e8m0fnu: found.nan = found.nan || b == 0xFF; break;
    default: break;
  }
}

Found scan(const Tensor& t) {
  Found found;
  switch (t.dtype) {
    case kFloat32:
    case kFloat64:
    case kBFloat16:
    case kFloat16:
      dispatch_real(t.dtype, "check_inf_and_nan", [&](auto type) {
        const auto* p = reinterpret_cast<const decltype(type)*>(t.data());
        for_each_element(t, [&](int64_t at) { found.add(static_cast<double>(value_of(p[at]))); });
      });
      break;
    case kComplex64: {  // NaN or Inf in either part, as torch's isnan/isinf of a complex number
      const auto* p = reinterpret_cast<const float*>(t.data());
      for_each_element(t, [&](int64_t at) { found.add(p[2 * at]), found.add(p[2 * at + 1]); });
      break;
    }
    case kComplex128: {
      const auto* p = reinterpret_cast<const double*>(t.data());
      for_each_element(t, [&](int64_t at) { found.add(p[2 * at]), found.add(p[2 * at + 1]); });
      break;
    }
    default: {
      const auto* p = reinterpret_cast<const uint8_t*>(t.data());
      if (element_size(t.dtype) == 1) for_each_element(t, [&](int64_t at) { add_float8(found, t.dtype, p[at]); });
      break;  // integers and bool: neither
    }
  }
  return found;
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_check_inf_and_nan(const char* tensor_name,
                                                                        AtenTensorHandle tensor) {
  return guarded(__func__, [&] {
    const std::string name = tensor_name != nullptr ? tensor_name : "";
    const HostView host(tensor);
    const Found found = scan(*host);
    SHIMGEN_REQUIRE(!found.nan, "At least one NaN in " + name);
    SHIMGEN_REQUIRE(!found.inf, "At least one INF in " + name);
  });
}
