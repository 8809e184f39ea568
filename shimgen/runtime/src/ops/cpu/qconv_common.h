// The output strides of the int8 convolutions (qconv*_pointwise_*.cpp).
#pragma once

#include <vector>

#include "cpu_op.h"

namespace shimgen::rt::cpu::quant {

// Channels-last [N, O, OH, OW] strides when X [N, C, H, W] is channels-last (and more than one
// channel tells it apart), else contiguous: what torch's oneDNN op returns.
inline std::vector<int64_t> conv_out_strides(const Tensor& x, const std::vector<int64_t>& sizes) {
  const bool channels_last = x.sizes[1] > 1 && x.strides[1] == 1 && x.strides[3] == x.sizes[1];
  if (!channels_last) return contiguous_strides_of(sizes);
  return {sizes[1] * sizes[2] * sizes[3], 1, sizes[3] * sizes[1], sizes[1]};
}

}  // namespace shimgen::rt::cpu::quant
