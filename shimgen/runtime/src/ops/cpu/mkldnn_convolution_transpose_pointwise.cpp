// aoti_torch_cpu_mkldnn__convolution_transpose_pointwise: torch.ops.mkldnn._convolution_transpose_pointwise,
// ConvTranspose (+ bias) with a fused unary post-op, as inductor emits it with freezing=True. A
// prepacked weight (unpacked at creation, tensor.cpp) is in oneDNN's deconvolution order
// [O, I / groups, *k] (what torch's packed tensor reports as its shape); a plain weight is torch's
// [I, O / groups, *k]. The former is rearranged to the latter, then the runtime's transposed
// convolution runs in float32 and the post-op is applied before the one rounding. Output
// channels-last when X is, X's dtype.
#include <cstring>

#include "mkldnn_fused.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

// [O, I/g, *k] (group-major O) -> torch's [I, O/g, *k]: element (g*Ig + i, o, k) = w[g*Og + o, i, k].
std::unique_ptr<Tensor> to_torch_order(const Tensor& w, int64_t groups, int64_t in_channels) {
  const int64_t og_total = w.sizes[0], ig = w.sizes[1];
  SHIMGEN_REQUIRE(groups >= 1 && og_total % groups == 0 && ig * groups == in_channels,
                  "_convolution_transpose_pointwise: packed weight " + shape_str(w.sizes) + " does not fit " +
                      std::to_string(in_channels) + " input channels with groups=" + std::to_string(groups));
  const int64_t og = og_total / groups;
  std::vector<int64_t> sizes(w.sizes);
  sizes[0] = in_channels;
  sizes[1] = og;
  auto out = empty_tensor(sizes, contiguous_strides_of(sizes), w.dtype, kCPU, -1);
  int64_t taps = 1;
  for (size_t d = 2; d < sizes.size(); ++d) taps *= sizes[d];
  const size_t item = w.itemsize();
  // unpack_mkldnn made it row-major; a view of it taken since would not be.
  SHIMGEN_REQUIRE(w.is_contiguous(), "_convolution_transpose_pointwise: the packed weight is not contiguous");
  const char* src = w.data();
  char* dst = out->data();
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t i = 0; i < ig; ++i)
      for (int64_t o = 0; o < og; ++o)
        std::memcpy(dst + (((g * ig + i) * og + o) * taps) * static_cast<int64_t>(item),
                    src + (((g * og + o) * ig + i) * taps) * static_cast<int64_t>(item),
                    static_cast<size_t>(taps) * item);
  return out;
}

}  // namespace

extern "C" {

AOTITorchError aoti_torch_cpu_mkldnn__convolution_transpose_pointwise(
    AtenTensorHandle X, AtenTensorHandle W, AtenTensorHandle* B, const int64_t* padding, int64_t padding_len_,
    const int64_t* output_padding, int64_t output_padding_len_, const int64_t* stride, int64_t stride_len_,
    const int64_t* dilation, int64_t dilation_len_, int64_t groups, const char* attr, const double** scalars,
    int64_t scalars_len_, const char** algorithm, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    static const char* const op = "_convolution_transpose_pointwise";
    require_out(ret0, "ret0");
    const fused::Operands in = fused::operands(op, X, W, B);
    const Tensor &x = in.x, &w = in.w;
    const Tensor* b = in.b;
    SHIMGEN_REQUIRE(x.sizes.size() >= 3 && w.sizes.size() == x.sizes.size(),
                    std::string(op) + ": X " + shape_str(x.sizes) + " and W " + shape_str(w.sizes) +
                        " must be [N, C, *spatial] and [*, *, *k] of one rank");
    if (b != nullptr) fused::require_fused_dtype(op, *b, "B");
    const fused::Unary unary = fused::parse_unary(op, attr, scalars, scalars_len_, algorithm);
    std::unique_ptr<Tensor> reordered;
    const Tensor* weight = &w;
    if (w.storage->unpacked_mkldnn) {
      reordered = to_torch_order(w, groups, x.sizes[1]);
      weight = reordered.get();
    }
    auto acc = fused::convolve_float(op, x, *weight, b, padding, padding_len_, output_padding, output_padding_len_,
                                     stride, stride_len_, dilation, dilation_len_, groups, true);
    *ret0 = wrap(fused::epilogue(std::move(acc), nullptr, fused::Binary::kAdd, unary, x.dtype));
  });
}

}  // extern "C"
