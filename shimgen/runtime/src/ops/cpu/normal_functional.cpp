// aoti_torch_cpu_normal_functional: self.normal_(mean, std) without the mutation (noise added in a
// model, e.g. torch.randn_like(x) * s + m after decomposition). A new tensor of self's shape and
// dtype (self's strides when dense) of normal draws; a generator is refused (the runtime has one
// process-wide engine, random.cpp).
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_normal_functional(AtenTensorHandle self, double mean,
                                                                            double std, AtenGeneratorHandle* generator,
                                                                            AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(std >= 0.0, "normal expects std >= 0.0, but found std " + std::to_string(std));
    if (generator != nullptr && *generator != nullptr)
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "normal: an explicit generator is not supported");
    const std::vector<int64_t> strides =
        in.is_non_overlapping_and_dense() ? in.strides : dense_strides_like(in.sizes, in.strides);
    auto out = empty_tensor(in.sizes, strides, in.dtype, kCPU, -1);
    dispatch_floating(in.dtype, "normal", [&](auto t) {
      using T = decltype(t);
      auto* dst = reinterpret_cast<T*>(out->data());
      std::lock_guard<std::mutex> lock(random_mutex());
      for_each_element(*out, [&](int64_t at) {
        const double v = mean + std * normal_double(random_engine());
        if constexpr (std::is_same_v<T, double>) dst[at] = v;
        else dst[at] = T(static_cast<float>(v));
      });
    });
    *ret0 = wrap(std::move(out));
  });
}
