// torchvision::nms (a custom op with no C shim: AOTInductor hands it to the proxy executor; every
// torchvision detector's box filter). Boxes dets [N, 4] (x1, y1, x2, y2) visited in descending score
// order (a stable sort: equal scores keep index order; NaN first, as torch's sort); a box is kept unless
// an already kept box overlaps it with IoU > iou_threshold, IoU = intersection / (area_i + area_j -
// intersection) in the boxes' dtype (half boxes: suppresses() below). Returns the kept indices (int64)
// in that order: a data-dependent length, the generated code reads it from the result.
#include <algorithm>
#include <numeric>

#include "../proxy_ops.h"
#include "roi_common.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {
namespace {

template <class T> constexpr bool kRounded = false;
template <int32_t D> constexpr bool kRounded<roi::Rounded<D>> = true;

// A score as the built-in type its comparisons take (a Rounded one as its float: NaN sorts first).
template <class T> auto plain(T v) {
  if constexpr (kRounded<T>) return static_cast<float>(v);
  else return v;
}

// A box's area as torchvision computes it: in T for float and double (its CPU kernel); for a 16-bit
// type as its CUDA kernel does on half boxes, in float (at::acc_type), the width widened before its
// subtraction and the height after.
template <class T> auto area_of(const T* box) {
  if constexpr (kRounded<T>) {
    return (static_cast<float>(box[2]) - static_cast<float>(box[0])) * static_cast<float>(box[3] - box[1]);
  } else {
    return (box[2] - box[0]) * (box[3] - box[1]);
  }
}

// Whether box b overlaps box a (a scored higher) with IoU above the threshold, as torchvision decides
// it, in area_of's type: for a 16-bit type the overlap's sides in half, their product, the ratio and
// the threshold (its CUDA kernel takes it as float) in float.
template <class T, class A> bool suppresses(const T* a, const T* b, A area_a, A area_b, double threshold) {
  const T w = std::max(T{0}, std::min(a[2], b[2]) - std::max(a[0], b[0]));
  const T h = std::max(T{0}, std::min(a[3], b[3]) - std::max(a[1], b[1]));
  const A inter = static_cast<A>(w) * static_cast<A>(h);
  const A ratio = inter / (area_a + area_b - inter);
  if constexpr (kRounded<T>) return ratio > static_cast<float>(threshold);
  else return ratio > threshold;
}

}  // namespace

AtenTensorHandle cpu_nms(AtenTensorHandle dets_handle, AtenTensorHandle scores_handle, double iou_threshold,
                         int32_t rounding) {
  HostView dets((cpu_tensor(dets_handle, "dets"), dets_handle), true);
  HostView scores((cpu_tensor(scores_handle, "scores"), scores_handle), true);
  SHIMGEN_REQUIRE(dets->sizes.size() == 2,
                  "boxes should be a 2d tensor, got " + std::to_string(dets->sizes.size()) + "D");
  SHIMGEN_REQUIRE(dets->sizes[1] == 4,
                  "boxes should have 4 elements in dimension 1, got " + std::to_string(dets->sizes[1]));
  SHIMGEN_REQUIRE(scores->sizes.size() == 1,
                  "scores should be a 1d tensor, got " + std::to_string(scores->sizes.size()) + "D");
  SHIMGEN_REQUIRE(dets->sizes[0] == scores->sizes[0],
                  "boxes and scores should have same number of elements in dimension 0, got " +
                      std::to_string(dets->sizes[0]) + " and " + std::to_string(scores->sizes[0]));
  SHIMGEN_REQUIRE(dets->dtype == scores->dtype, "dets should have the same type as scores");
  const int64_t n = dets->sizes[0];
  std::vector<int64_t> keep;
  roi::dispatch_roi(dets->dtype, rounding, "nms", [&](auto zero) {
    using T = decltype(zero);
    const T* box = reinterpret_cast<const T*>(dets->data());
    const T* score = reinterpret_cast<const T*>(scores->data());
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t i, int64_t j) { return nan_first_greater(plain(score[i]), plain(score[j])); });
    std::vector<decltype(area_of(box))> area(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) area[i] = area_of(box + i * 4);
    std::vector<char> suppressed(static_cast<size_t>(n), 0);
    for (int64_t a = 0; a < n; ++a) {
      const int64_t i = order[a];
      if (suppressed[i]) continue;
      keep.push_back(i);
      for (int64_t b = a + 1; b < n; ++b) {
        const int64_t j = order[b];
        if (suppressed[j]) continue;
        if (suppresses(box + i * 4, box + j * 4, area[i], area[j], iou_threshold)) suppressed[j] = 1;
      }
    }
  });
  const std::vector<int64_t> sizes{static_cast<int64_t>(keep.size())};
  auto out = empty_tensor(sizes, contiguous_strides_of(sizes), kInt64, kCPU, -1);
  if (!keep.empty()) std::memcpy(out->data(), keep.data(), keep.size() * sizeof(int64_t));
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
