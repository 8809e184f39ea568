// Strided element copy between two host views (any strides, including 0 for broadcast).
#include <cstring>

#include "internal.h"

namespace shimgen::rt {
namespace {

template <size_t N>
void copy_rows(char* dst, int64_t dst_stride, const char* src, int64_t src_stride, int64_t count) noexcept {
  for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * dst_stride * N, src + i * src_stride * N, N);
}

void copy_row(char* dst, int64_t dst_stride, const char* src, int64_t src_stride, int64_t count,
              size_t itemsize) noexcept {
  if (dst_stride == 1 && src_stride == 1) {
    std::memcpy(dst, src, static_cast<size_t>(count) * itemsize);
    return;
  }
  switch (itemsize) {
    case 1: copy_rows<1>(dst, dst_stride, src, src_stride, count); break;
    case 2: copy_rows<2>(dst, dst_stride, src, src_stride, count); break;
    case 4: copy_rows<4>(dst, dst_stride, src, src_stride, count); break;
    case 8: copy_rows<8>(dst, dst_stride, src, src_stride, count); break;
    default:
      for (int64_t i = 0; i < count; ++i)
        std::memcpy(dst + i * dst_stride * static_cast<int64_t>(itemsize),
                    src + i * src_stride * static_cast<int64_t>(itemsize), itemsize);
  }
}

}  // namespace

void host_strided_copy(char* dst, const int64_t* dst_strides, const char* src, const int64_t* src_strides,
                       const std::vector<int64_t>& sizes, size_t itemsize) noexcept {
  const size_t nd = sizes.size();
  if (nd == 0) {
    std::memcpy(dst, src, itemsize);
    return;
  }
  for (int64_t s : sizes)
    if (s == 0) return;
  const int64_t item = static_cast<int64_t>(itemsize);
  std::vector<int64_t> index(nd, 0);
  const size_t inner = nd - 1;
  while (true) {
    int64_t doff = 0, soff = 0;
    for (size_t d = 0; d < inner; ++d) {
      doff += index[d] * dst_strides[d];
      soff += index[d] * src_strides[d];
    }
    copy_row(dst + doff * item, dst_strides[inner], src + soff * item, src_strides[inner], sizes[inner], itemsize);
    // Odometer over the outer dimensions.
    size_t d = inner;
    while (d-- > 0) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) return;
  }
}

}  // namespace shimgen::rt
