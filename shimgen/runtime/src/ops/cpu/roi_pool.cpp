// torchvision::roi_pool and torchvision::ps_roi_pool (custom ops with no C shim: AOTInductor hands them
// to the proxy executor; Fast R-CNN's max pooling over regions and R-FCN's position-sensitive average).
// Both round each box edge (scaled by spatial_scale) to a pixel and split the box into pooled bins with
// floor / ceil edges clipped to the map. roi_pool: the maximum of each bin per channel (0 for an empty
// bin) and its flat h * W + w index (int32, -1 when empty); the box spans end - start + 1 pixels.
// ps_roi_pool: the mean of channel (c_out * PH + ph) * PW + pw over bin (ph, pw) and that channel map
// (int32); the box spans end - start pixels, and its bins are clipped to H - 1 / W - 1, as torchvision's
// forward kernels (CPU and CUDA alike) clip them. New contiguous results; float32 and float64.
#include <cfloat>
#include <cmath>

#include "../proxy_ops.h"
#include "roi_common.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {
namespace {

struct Bin {
  int64_t h0, h1, w0, w1;
  bool empty() const { return h1 <= h0 || w1 <= w0; }
};

// Bin (ph, pw) of a box starting at (start_h, start_w) whose bins are bin_h x bin_w (computed in T),
// clipped to [0, limit_h] x [0, limit_w].
template <class T> Bin bin_of(int64_t ph, int64_t pw, T bin_h, T bin_w, int64_t start_h, int64_t start_w,
                              int64_t limit_h, int64_t limit_w) {
  auto clip = [](int64_t v, int64_t limit) { return std::min(std::max<int64_t>(v, 0), limit); };
  Bin b{};
  b.h0 = clip(roi::to_index(std::floor(static_cast<T>(ph) * bin_h)) + start_h, limit_h);
  b.h1 = clip(roi::to_index(std::ceil(static_cast<T>(ph + 1) * bin_h)) + start_h, limit_h);
  b.w0 = clip(roi::to_index(std::floor(static_cast<T>(pw) * bin_w)) + start_w, limit_w);
  b.w1 = clip(roi::to_index(std::ceil(static_cast<T>(pw + 1) * bin_w)) + start_w, limit_w);
  return b;
}

// A box edge scaled to the map and rounded half away from zero (std::round, torchvision's round).
template <class T> int64_t edge(T value, T spatial_scale) { return roi::to_index(std::round(value * spatial_scale)); }

}  // namespace

void cpu_roi_pool(AtenTensorHandle input, AtenTensorHandle rois, double spatial_scale, int64_t pooled_h,
                  int64_t pooled_w, AtenTensorHandle* output, AtenTensorHandle* argmax, int32_t rounding) {
  roi::RoiArgs a(input, rois, pooled_h, pooled_w, "roi_pool");
  auto out = roi::zeros({a.count, a.channels, pooled_h, pooled_w}, a.input->dtype);
  auto arg = roi::zeros({a.count, a.channels, pooled_h, pooled_w}, kInt32);
  roi::dispatch_roi(a.input->dtype, rounding, "roi_pool", [&](auto zero) {
    using T = decltype(zero);
    a.check_batch_indices<T>();
    const T* x = a.input_data<T>();
    const T* r = a.rois_data<T>();
    T* o = reinterpret_cast<T*>(out->data());
    int32_t* m = reinterpret_cast<int32_t*>(arg->data());
    const T scale = static_cast<T>(spatial_scale);
    const int64_t plane = a.height * a.width, bins = pooled_h * pooled_w;
    for (int64_t n = 0; n < a.count; ++n) {
      const T* roi = r + n * 5;
      const int64_t batch_index = roi::to_index(roi[0]);
      const int64_t start_w = edge(roi[1], scale), start_h = edge(roi[2], scale);
      const int64_t roi_w = std::max<int64_t>(edge(roi[3], scale) - start_w + 1, 1);
      const int64_t roi_h = std::max<int64_t>(edge(roi[4], scale) - start_h + 1, 1);
      const T bin_h = static_cast<T>(roi_h) / static_cast<T>(pooled_h);
      const T bin_w = static_cast<T>(roi_w) / static_cast<T>(pooled_w);
      for (int64_t ph = 0; ph < pooled_h; ++ph)
        for (int64_t pw = 0; pw < pooled_w; ++pw) {
          const Bin b = bin_of<T>(ph, pw, bin_h, bin_w, start_h, start_w, a.height, a.width);
          for (int64_t c = 0; c < a.channels; ++c) {
            const T* p = x + (batch_index * a.channels + c) * plane;
            T best = b.empty() ? T{0} : static_cast<T>(-FLT_MAX);  // torchvision's start, for double too
            int32_t best_index = -1;
            for (int64_t h = b.h0; h < b.h1; ++h)
              for (int64_t w = b.w0; w < b.w1; ++w)
                if (p[h * a.width + w] > best) {  // strictly greater: the first of equal maxima; NaN never wins
                  best = p[h * a.width + w];
                  best_index = static_cast<int32_t>(h * a.width + w);
                }
            const int64_t at = (n * a.channels + c) * bins + ph * pooled_w + pw;
            o[at] = best;
            m[at] = best_index;
          }
        }
    }
  });
  *output = wrap(std::move(out));
  *argmax = wrap(std::move(arg));
}

void cpu_ps_roi_pool(AtenTensorHandle input, AtenTensorHandle rois, double spatial_scale, int64_t pooled_h,
                     int64_t pooled_w, AtenTensorHandle* output, AtenTensorHandle* channel_mapping, int32_t rounding) {
  roi::RoiArgs a(input, rois, pooled_h, pooled_w, "ps_roi_pool");
  roi::PsOutputs made(a, pooled_h, pooled_w);
  const int64_t channels_out = made.channels_out;
  roi::dispatch_roi(a.input->dtype, rounding, "ps_roi_pool", [&](auto zero) {
    using T = decltype(zero);
    a.check_batch_indices<T>();
    const T* x = a.input_data<T>();
    const T* r = a.rois_data<T>();
    T* o = made.values_data<T>();
    int32_t* m = made.map_data();
    const T scale = static_cast<T>(spatial_scale);
    const int64_t plane = a.height * a.width;
    for (int64_t n = 0; n < a.count; ++n) {
      const T* roi = r + n * 5;
      const int64_t batch_index = roi::to_index(roi[0]);
      const int64_t start_w = edge(roi[1], scale), start_h = edge(roi[2], scale);
      const int64_t roi_w = std::max<int64_t>(edge(roi[3], scale) - start_w, 1);
      const int64_t roi_h = std::max<int64_t>(edge(roi[4], scale) - start_h, 1);
      const T bin_h = static_cast<T>(roi_h) / static_cast<T>(pooled_h);
      const T bin_w = static_cast<T>(roi_w) / static_cast<T>(pooled_w);
      for (int64_t c_out = 0; c_out < channels_out; ++c_out)
        for (int64_t ph = 0; ph < pooled_h; ++ph)
          for (int64_t pw = 0; pw < pooled_w; ++pw) {
            const Bin b = bin_of<T>(ph, pw, bin_h, bin_w, start_h, start_w, a.height - 1, a.width - 1);
            const int64_t c_in = (c_out * pooled_h + ph) * pooled_w + pw;
            const T* p = x + (batch_index * a.channels + c_in) * plane;
            T sum = 0;
            for (int64_t h = b.h0; h < b.h1; ++h)
              for (int64_t w = b.w0; w < b.w1; ++w) sum += p[h * a.width + w];
            *o++ = b.empty() ? T{0} : sum / static_cast<T>((b.h1 - b.h0) * (b.w1 - b.w0));
            *m++ = static_cast<int32_t>(c_in);
          }
    }
  });
  *output = wrap(std::move(made.values));
  *channel_mapping = wrap(std::move(made.channel_map));
}

}  // namespace shimgen::rt::proxy_ops
