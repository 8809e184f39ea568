// aoti_torch_cpu_adaptive_max_pool3d: F.adaptive_max_pool3d(self, output_size) over [N, C, D, H, W]
// or [C, D, H, W]. Output cell i of a spatial dim of input size n and output size m covers
// [floor(i n / m), ceil((i + 1) n / m)); values (self's dtype) and int64 indices (the flat position
// d * H * W + h * W + w of the maximum within its plane), both new and contiguous. The first maximum
// in (d, h, w) order wins; a NaN wins over any number (torch's pooling rule).
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

int64_t start_of(int64_t i, int64_t in, int64_t out) { return (i * in) / out; }
int64_t end_of(int64_t i, int64_t in, int64_t out) { return ((i + 1) * in + out - 1) / out; }

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_adaptive_max_pool3d(AtenTensorHandle self,
                                                                              const int64_t* output_size,
                                                                              int64_t output_size_len_,
                                                                              AtenTensorHandle* ret0,
                                                                              AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    require_out(ret1, "ret1");
    const size_t rank = in.sizes.size();
    SHIMGEN_REQUIRE(rank == 4 || rank == 5, "adaptive_max_pool3d(): Expected 4D or 5D tensor, but got " +
                                                shape_str(in.sizes));
    SHIMGEN_REQUIRE(output_size != nullptr && output_size_len_ == 3,
                    "adaptive_max_pool3d(): internal error: output_size.size() must be 3");
    for (size_t d = 1; d < rank; ++d)
      SHIMGEN_REQUIRE(in.sizes[d] > 0, "adaptive_max_pool3d(): Expected input to have non-zero size for non-batch "
                                       "dimensions, but input has sizes " + shape_str(in.sizes));
    for (int i = 0; i < 3; ++i)
      SHIMGEN_REQUIRE(output_size[i] >= 0, "adaptive_max_pool3d: output_size must be non-negative");
    const size_t lead = rank - 3;  // N and C, or C
    std::vector<int64_t> sizes(in.sizes.begin(), in.sizes.begin() + static_cast<std::ptrdiff_t>(lead));
    for (int i = 0; i < 3; ++i) sizes.push_back(output_size[i]);
    const std::vector<int64_t> strides = contiguous_strides_of(sizes);
    auto values = empty_tensor(sizes, strides, in.dtype, kCPU, -1);
    auto indices = empty_tensor(sizes, strides, kInt64, kCPU, -1);
    const int64_t D = in.sizes[lead], H = in.sizes[lead + 1], W = in.sizes[lead + 2];
    const int64_t sd = in.strides[lead], sh = in.strides[lead + 1], sw = in.strides[lead + 2];
    const int64_t oD = output_size[0], oH = output_size[1], oW = output_size[2];
    int64_t planes = 1;
    for (size_t d = 0; d < lead; ++d) planes *= in.sizes[d];
    dispatch_real(in.dtype, "adaptive_max_pool3d", [&](auto t) {
      using T = decltype(t);
      const auto* src = reinterpret_cast<const T*>(in.data());
      auto* v = reinterpret_cast<T*>(values->data());
      auto* ix = reinterpret_cast<int64_t*>(indices->data());
      int64_t o = 0;
      for (int64_t p = 0; p < planes; ++p) {
        int64_t base = 0, rest = p;  // the plane's offset through self's leading strides
        for (size_t d = lead; d-- > 0;) {
          base += (rest % in.sizes[d]) * in.strides[d];
          rest /= in.sizes[d];
        }
        for (int64_t od = 0; od < oD; ++od)
          for (int64_t oh = 0; oh < oH; ++oh)
            for (int64_t ow = 0; ow < oW; ++ow, ++o) {
              int64_t best = -1;
              T best_v{};
              for (int64_t d = start_of(od, D, oD); d < end_of(od, D, oD); ++d)
                for (int64_t h = start_of(oh, H, oH); h < end_of(oh, H, oH); ++h)
                  for (int64_t w = start_of(ow, W, oW); w < end_of(ow, W, oW); ++w) {
                    const T x = src[base + d * sd + h * sh + w * sw];
                    const auto xv = value_of(x);
                    bool take = best < 0;
                    if constexpr (is_floating_v<T>) take = take || (!std::isnan(value_of(best_v)) && (xv > value_of(best_v) || std::isnan(xv)));
                    else take = take || xv > value_of(best_v);
                    if (take) {
                      best = (d * H + h) * W + w;
                      best_v = x;
                    }
                  }
              v[o] = best_v;
              ix[o] = best;
            }
      }
    });
    *ret0 = wrap(std::move(values));
    *ret1 = wrap(std::move(indices));
  });
}
