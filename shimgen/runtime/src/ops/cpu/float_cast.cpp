// A host tensor's values in another float type (float32, float16, bfloat16): a new contiguous CPU
// tensor, each element rounded to nearest even. The proxy executor's 16-bit path for torchvision's
// operators (proxy_executor.cpp, OnHost::widening_16bit): inputs widened to float32 (exactly), the
// kernels computing with the 16-bit rounding (roi_common.h's Rounded), results narrowed back.
#include "../proxy_ops.h"
#include "cpu_op.h"
#include "host_view.h"
#include "roi_common.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {
namespace {

template <class To, class From> void convert(const void* src, void* dst, int64_t count) {
  const From* s = static_cast<const From*>(src);
  To* d = static_cast<To*>(dst);
  for (int64_t i = 0; i < count; ++i) d[i] = To(static_cast<float>(s[i]));
}

bool is_cast_type(int32_t dtype) { return dtype == kFloat32 || dtype == kFloat16 || dtype == kBFloat16; }

}  // namespace

AtenTensorHandle cpu_float_cast(AtenTensorHandle t, int32_t dtype) {
  HostView from((cpu_tensor(t, "tensor"), t), true);
  SHIMGEN_REQUIRE(is_cast_type(from->dtype) && is_cast_type(dtype),
                  std::string("float_cast: only float32, float16 and bfloat16 convert (got ") +
                      scalar_type_name(from->dtype) + " to " + scalar_type_name(dtype) + ")");
  auto out = roi::zeros(from->sizes, dtype);
  const int64_t n = out->numel();
  auto run = [&](auto to) {
    using To = decltype(to);
    switch (from->dtype) {
      case kFloat32: convert<To, float>(from->data(), out->data(), n); break;
      case kFloat16: convert<To, Half>(from->data(), out->data(), n); break;
      default: convert<To, BFloat16>(from->data(), out->data(), n); break;
    }
  };
  if (dtype == kFloat32) run(float{});
  else if (dtype == kFloat16) run(Half{});
  else run(BFloat16{});
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
