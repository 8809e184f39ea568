// aten::constant_pad_nd of a complex tensor (inductor pads real tensors itself and falls back for
// complex ones: irfft2/irfftn with s= pads the kept modes back to the signal's size before the
// inverse transform, F.pad of a complex tensor). torch's algorithm (PadNd.cpp): pad holds (before,
// after) pairs from the last dim backwards; a negative entry narrows self, a positive one adds
// `value` cells; when no entry is positive the result is the narrowed self cloned (preserve
// format). Else a new tensor of the padded shape, channels-last when self is (suggest_memory_format),
// filled with value + 0i, and self's remaining cells copied into place. Its checks and messages.
#include <string>

#include "../proxy_ops.h"
#include "elementwise.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_constant_pad_nd(AtenTensorHandle self, const std::vector<int64_t>& pad, double value) {
  const Tensor& in = cpu_tensor(self, "self");
  const int64_t rank = static_cast<int64_t>(in.sizes.size());
  const int64_t pairs = static_cast<int64_t>(pad.size() / 2);
  SHIMGEN_REQUIRE(pad.size() % 2 == 0,
                  "Length of pad must be even but instead it equals " + std::to_string(pad.size()));
  SHIMGEN_REQUIRE(rank >= pairs,
                  "Length of pad should be no more than twice the number of dimensions of the input. "
                  "Pad length is " +
                      std::to_string(pad.size()) + "while the input has " + std::to_string(rank) + "dimensions.");
  if (!elementwise::is_complex(in.dtype))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string("constant_pad_nd: dtype ") + scalar_type_name(in.dtype) +
                                                " is not served (complex64/128; inductor pads real tensors itself)");
  // self narrowed by the negative entries, as torch narrows it (a view: offset and sizes).
  Tensor part{in.storage, in.sizes, in.strides, in.storage_offset, in.dtype};
  bool grows = false;
  for (int64_t d = rank - pairs; d < rank; ++d) {
    const size_t i = static_cast<size_t>(d), at = static_cast<size_t>(2 * (rank - d - 1));
    if (pad[at] < 0) {
      SHIMGEN_REQUIRE(part.sizes[i] + pad[at] >= 0, "narrow(): length must be non-negative.");
      part.storage_offset =
          checked_add(part.storage_offset, checked_mul(-pad[at], part.strides[i], "offset"), "offset");
      part.sizes[i] += pad[at];
    } else if (pad[at] != 0) {
      grows = true;
    }
    if (pad[at + 1] < 0) {
      SHIMGEN_REQUIRE(part.sizes[i] + pad[at + 1] >= 0, "narrow(): length must be non-negative.");
      part.sizes[i] += pad[at + 1];
    } else if (pad[at + 1] != 0) {
      grows = true;
    }
  }
  const std::vector<int64_t> part_strides = part.strides;
  if (!grows) {  // torch returns c_input.clone(): the narrowed self, preserve format
    auto out = empty_tensor(part.sizes, dense_strides_like(part.sizes, part.strides), in.dtype, kCPU, -1);
    const std::vector<int64_t>* strides[2] = {&out->strides, &part_strides};
    elementwise::for_each(part.sizes, strides, [&](const int64_t* at) {
      elementwise::write_complex(*out, at[0], elementwise::read_complex(part, at[1]));
    });
    return wrap(std::move(out));
  }
  std::vector<int64_t> sizes(in.sizes.begin(), in.sizes.end());
  for (int64_t d = rank - pairs; d < rank; ++d) {
    const size_t i = static_cast<size_t>(d), at = static_cast<size_t>(2 * (rank - d - 1));
    const int64_t grown = checked_add(checked_add(in.sizes[i], pad[at], "padded size"), pad[at + 1], "padded size");
    SHIMGEN_REQUIRE(grown >= 0, "The input size " + std::to_string(in.sizes[i]) + ", plus negative padding " +
                                    std::to_string(pad[at]) + " and " + std::to_string(pad[at + 1]) +
                                    " resulted in a negative output size, which is invalid. Check dimension " +
                                    std::to_string(d) + " of your input.");
    sizes[i] = grown;
  }
  const int64_t format = !channels_last_strides(in.sizes, in.strides) ? kContiguousFormat
                         : rank == 4                                  ? kChannelsLast
                                                                      : kChannelsLast3d;
  const std::vector<int64_t> strides = clone_strides(sizes, contiguous_strides_of(sizes), format);
  auto out = empty_tensor(sizes, strides, in.dtype, kCPU, -1);
  const std::vector<int64_t>* all[1] = {&out->strides};
  const std::complex<double> fill(value, 0.0);
  elementwise::for_each(sizes, all, [&](const int64_t* at) { elementwise::write_complex(*out, at[0], fill); });
  // The destination of self's kept cells: out narrowed by the positive entries.
  int64_t offset = 0;
  for (int64_t d = rank - pairs; d < rank; ++d) {
    const size_t at = static_cast<size_t>(2 * (rank - d - 1));
    if (pad[at] > 0)
      offset = checked_add(offset, checked_mul(pad[at], out->strides[static_cast<size_t>(d)], "offset"), "offset");
  }
  const std::vector<int64_t>* strides2[2] = {&out->strides, &part_strides};
  elementwise::for_each(part.sizes, strides2, [&](const int64_t* at) {
    elementwise::write_complex(*out, offset + at[0], elementwise::read_complex(part, at[1]));
  });
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
