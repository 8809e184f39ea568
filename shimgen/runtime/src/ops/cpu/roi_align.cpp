// torchvision::roi_align and torchvision::ps_roi_align (custom ops with no C shim: AOTInductor hands
// them to the proxy executor; Faster/Mask R-CNN's box and mask heads, R-FCN's position-sensitive
// pooling). For roi n with box (x1, y1, x2, y2) scaled by spatial_scale (and shifted by half a pixel
// when aligned; ps_roi_align always shifts), each output bin averages a grid of bilinear samples
// (roi_common.h's roi_bilinear) spread evenly over the bin: sampling_ratio samples a side, or
// ceil(roi size / pooled size) when it is not positive. roi_align pools every channel; ps_roi_align
// pools channel (c_out * PH + ph) * PW + pw into bin (ph, pw) of output channel c_out and returns that
// channel map (int32) beside. New contiguous results; float32 and float64, computed in that type.
#include <cmath>

#include "../proxy_ops.h"
#include "roi_common.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {
namespace {

// The box of one roi in feature-map coordinates and its bin sizes and sampling grid.
template <class T> struct RoiBins {
  int64_t batch_index;
  T start_h, start_w, bin_h, bin_w;
  int64_t grid_h, grid_w;
};

template <class T> RoiBins<T> bins_of(const T* roi, T spatial_scale, T offset, bool at_least_one, int64_t pooled_h,
                                      int64_t pooled_w, int64_t sampling_ratio) {
  RoiBins<T> b{};
  b.batch_index = roi::to_index(roi[0]);
  b.start_w = roi[1] * spatial_scale - offset;
  b.start_h = roi[2] * spatial_scale - offset;
  T roi_w = roi[3] * spatial_scale - offset - b.start_w;
  T roi_h = roi[4] * spatial_scale - offset - b.start_h;
  if (at_least_one) {  // roi_align without `aligned`: a malformed roi counts as 1 x 1
    roi_w = std::max(roi_w, static_cast<T>(1));
    roi_h = std::max(roi_h, static_cast<T>(1));
  }
  b.bin_h = roi_h / static_cast<T>(pooled_h);
  b.bin_w = roi_w / static_cast<T>(pooled_w);
  b.grid_h = sampling_ratio > 0 ? sampling_ratio : roi::to_index(std::ceil(roi_h / static_cast<T>(pooled_h)));
  b.grid_w = sampling_ratio > 0 ? sampling_ratio : roi::to_index(std::ceil(roi_w / static_cast<T>(pooled_w)));
  SHIMGEN_REQUIRE(std::max<int64_t>(b.grid_h, 0) <= roi::kMaxSamplesPerBin / std::max<int64_t>(b.grid_w, 1),
                  "a roi spans " + std::to_string(b.grid_h) + " x " + std::to_string(b.grid_w) +
                      " samples per bin, more than the runtime takes (" + std::to_string(roi::kMaxSamplesPerBin) + ")");
  return b;
}

// The sum of bin (ph, pw)'s samples of one plane.
template <class T>
T bin_sum(const RoiBins<T>& b, const T* plane, int64_t height, int64_t width, int64_t ph, int64_t pw) {
  T sum = 0;
  for (int64_t iy = 0; iy < b.grid_h; ++iy) {
    const T y = b.start_h + static_cast<T>(ph) * b.bin_h +
                static_cast<T>(static_cast<float>(iy) + .5f) * b.bin_h / static_cast<T>(b.grid_h);
    for (int64_t ix = 0; ix < b.grid_w; ++ix) {
      const T x = b.start_w + static_cast<T>(pw) * b.bin_w +
                  static_cast<T>(static_cast<float>(ix) + .5f) * b.bin_w / static_cast<T>(b.grid_w);
      sum += roi::roi_bilinear(plane, height, width, y, x);
    }
  }
  return sum;
}

}  // namespace

AtenTensorHandle cpu_roi_align(AtenTensorHandle input, AtenTensorHandle rois, double spatial_scale, int64_t pooled_h,
                               int64_t pooled_w, int64_t sampling_ratio, bool aligned, int32_t rounding) {
  roi::RoiArgs a(input, rois, pooled_h, pooled_w, "roi_align");
  auto out = roi::zeros({a.count, a.channels, pooled_h, pooled_w}, a.input->dtype);
  roi::dispatch_roi(a.input->dtype, rounding, "roi_align", [&](auto zero) {
    using T = decltype(zero);
    a.check_batch_indices<T>();
    const T* x = a.input_data<T>();
    const T* r = a.rois_data<T>();
    T* o = reinterpret_cast<T*>(out->data());
    const int64_t plane = a.height * a.width;
    for (int64_t n = 0; n < a.count; ++n) {
      const auto b = bins_of<T>(r + n * 5, static_cast<T>(spatial_scale), aligned ? static_cast<T>(0.5) : T{0},
                                !aligned, pooled_h, pooled_w, sampling_ratio);
      const T count = static_cast<T>(std::max<int64_t>(b.grid_h * b.grid_w, 1));
      for (int64_t c = 0; c < a.channels; ++c) {
        const T* p = x + (b.batch_index * a.channels + c) * plane;
        for (int64_t ph = 0; ph < pooled_h; ++ph)
          for (int64_t pw = 0; pw < pooled_w; ++pw) *o++ = bin_sum(b, p, a.height, a.width, ph, pw) / count;
      }
    }
  });
  return wrap(std::move(out));
}

void cpu_ps_roi_align(AtenTensorHandle input, AtenTensorHandle rois, double spatial_scale, int64_t pooled_h,
                      int64_t pooled_w, int64_t sampling_ratio, AtenTensorHandle* output,
                      AtenTensorHandle* channel_mapping, int32_t rounding) {
  roi::RoiArgs a(input, rois, pooled_h, pooled_w, "ps_roi_align");
  roi::PsOutputs made(a, pooled_h, pooled_w);
  const int64_t channels_out = made.channels_out;
  roi::dispatch_roi(a.input->dtype, rounding, "ps_roi_align", [&](auto zero) {
    using T = decltype(zero);
    a.check_batch_indices<T>();
    const T* x = a.input_data<T>();
    const T* r = a.rois_data<T>();
    T* o = made.values_data<T>();
    int32_t* m = made.map_data();
    const int64_t plane = a.height * a.width;
    for (int64_t n = 0; n < a.count; ++n) {
      // no 1 x 1 floor here, and no guard on an empty grid: torchvision's kernel (0 / 0 is its NaN too)
      const auto b = bins_of<T>(r + n * 5, static_cast<T>(spatial_scale), static_cast<T>(0.5), false, pooled_h,
                                pooled_w, sampling_ratio);
      const T count = static_cast<T>(b.grid_h * b.grid_w);
      for (int64_t c_out = 0; c_out < channels_out; ++c_out)
        for (int64_t ph = 0; ph < pooled_h; ++ph)
          for (int64_t pw = 0; pw < pooled_w; ++pw) {
            const int64_t c_in = (c_out * pooled_h + ph) * pooled_w + pw;
            *o++ = bin_sum(b, x + (b.batch_index * a.channels + c_in) * plane, a.height, a.width, ph, pw) / count;
            *m++ = static_cast<int32_t>(c_in);
          }
    }
  });
  *output = wrap(std::move(made.values));
  *channel_mapping = wrap(std::move(made.channel_map));
}

}  // namespace shimgen::rt::proxy_ops
