// aoti_torch_cpu_grid_sampler_3d: F.grid_sample on volumes (3-D detection and registration heads):
// input [N, C, D, H, W], grid [N, D', H', W', 3] of (x, y, z) in [-1, 1] (x along W, z along D);
// output [N, C, D', H', W'], contiguous. interpolation_mode 0 trilinear, 1 nearest (round half to
// even); padding_mode 0 zeros, 1 border, 2 reflection; align_corners maps -1/1 to the corner voxels'
// centres (else to their outer faces). torch's CPU kernel's arithmetic, corner order included:
// source index = unnormalized, then clipped or reflected; out-of-volume corners count as zero.
// float32/float64; bfloat16/float16 computed in float.
#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

template <class V> V reflect(V in, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return V(0);
  const V min = static_cast<V>(twice_low) / 2, span = static_cast<V>(twice_high - twice_low) / 2;
  in = std::fabs(in - min);
  const V extra = std::fmod(in, span);
  const int64_t flips = static_cast<int64_t>(std::floor(in / span));
  return flips % 2 == 0 ? extra + min : span - extra + min;
}

// The source coordinate of a grid value along a dim of `size` voxels (torch's
// grid_sampler_compute_source_index).
template <class V> V source_index(V coord, int64_t size, int64_t padding, bool align) {
  coord = align ? ((coord + 1) / 2) * static_cast<V>(size - 1) : ((coord + 1) * static_cast<V>(size) - 1) / 2;
  auto clip = [&](V c) { return std::min(static_cast<V>(size - 1), std::max(c, V(0))); };
  if (padding == 1) {
    coord = clip(coord);
  } else if (padding == 2) {
    coord = align ? reflect(coord, 0, 2 * (size - 1)) : reflect(coord, -1, 2 * size - 1);
    coord = clip(coord);
  }
  return coord;
}

template <class T>
void sample(const Tensor& in, const Tensor& grid, const Tensor& out, int64_t mode, int64_t padding, bool align) {
  using V = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int64_t N = in.sizes[0], C = in.sizes[1], D = in.sizes[2], H = in.sizes[3], W = in.sizes[4];
  const int64_t OD = grid.sizes[1], OH = grid.sizes[2], OW = grid.sizes[3];
  const auto* x = reinterpret_cast<const T*>(in.data());
  const auto* g = reinterpret_cast<const T*>(grid.data());
  auto* y = reinterpret_cast<T*>(out.data());
  const auto& is = in.strides;
  const auto& gs = grid.strides;
  auto inside = [&](int64_t d, int64_t h, int64_t w) { return d >= 0 && d < D && h >= 0 && h < H && w >= 0 && w < W; };
  for (int64_t n = 0; n < N; ++n)
    for (int64_t od = 0; od < OD; ++od)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          const T* at = g + n * gs[0] + od * gs[1] + oh * gs[2] + ow * gs[3];
          const V ix = source_index(static_cast<V>(value_of(at[0])), W, padding, align);
          const V iy = source_index(static_cast<V>(value_of(at[gs[4]])), H, padding, align);
          const V iz = source_index(static_cast<V>(value_of(at[2 * gs[4]])), D, padding, align);
          T* dst = y + ((n * C * OD + od) * OH + oh) * OW + ow;
          const int64_t plane = OD * OH * OW;
          const T* src = x + n * is[0];
          if (mode == 1) {
            const int64_t w = static_cast<int64_t>(std::nearbyint(ix)), h = static_cast<int64_t>(std::nearbyint(iy));
            const int64_t d = static_cast<int64_t>(std::nearbyint(iz));
            for (int64_t c = 0; c < C; ++c)
              dst[c * plane] = inside(d, h, w) ? src[c * is[1] + d * is[2] + h * is[3] + w * is[4]] : T(0.0f);
            continue;
          }
          const V fx = std::floor(ix), fy = std::floor(iy), fz = std::floor(iz);
          const int64_t w0 = static_cast<int64_t>(fx), h0 = static_cast<int64_t>(fy), d0 = static_cast<int64_t>(fz);
          const V e = ix - fx, s = iy - fy, b = iz - fz;  // toward east, south, bottom
          // torch's corner order: tnw, tne, tsw, tse, bnw, bne, bsw, bse (t: z0, n: y0, w: x0).
          const struct {
            int64_t dz, dy, dx;
            V weight;
          } corners[8] = {{0, 0, 0, (1 - e) * (1 - s) * (1 - b)},
                          {0, 0, 1, e * (1 - s) * (1 - b)},
                          {0, 1, 0, (1 - e) * s * (1 - b)},
                          {0, 1, 1, e * s * (1 - b)},
                          {1, 0, 0, (1 - e) * (1 - s) * b},
                          {1, 0, 1, e * (1 - s) * b},
                          {1, 1, 0, (1 - e) * s * b},
                          {1, 1, 1, e * s * b}};
          for (int64_t c = 0; c < C; ++c) {
            V acc = 0;
            for (const auto& k : corners) {
              const int64_t d = d0 + k.dz, h = h0 + k.dy, w = w0 + k.dx;
              if (inside(d, h, w))
                acc += static_cast<V>(value_of(src[c * is[1] + d * is[2] + h * is[3] + w * is[4]])) * k.weight;
            }
            dst[c * plane] = static_cast<T>(acc);
          }
        }
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_grid_sampler_3d(AtenTensorHandle input, AtenTensorHandle grid,
                                                                          int64_t interpolation_mode,
                                                                          int64_t padding_mode, int32_t align_corners,
                                                                          AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(input, "input");
    const Tensor& g = cpu_tensor(grid, "grid");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(in.sizes.size() == 5 && g.sizes.size() == 5 && g.sizes[4] == 3 && g.sizes[0] == in.sizes[0],
                    "grid_sampler(): expected a 5-D input [N, C, D, H, W] and a grid [N, D', H', W', 3], got " +
                        shape_str(in.sizes) + " and " + shape_str(g.sizes));
    SHIMGEN_REQUIRE(in.dtype == g.dtype, "grid_sampler(): expected input and grid to have the same dtype");
    SHIMGEN_REQUIRE(padding_mode >= 0 && padding_mode <= 2, "grid_sampler(): padding_mode must be 0, 1 or 2");
    SHIMGEN_REQUIRE(interpolation_mode >= 0 && interpolation_mode <= 2, "grid_sampler(): bad interpolation_mode");
    if (interpolation_mode == 2) fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "grid_sampler(): bicubic needs a 4-D input");
    for (size_t d = 2; d < 5; ++d)
      SHIMGEN_REQUIRE(in.sizes[d] > 0, "grid_sampler(): expected input to have non-empty spatial dimensions");
    const std::vector<int64_t> sizes{in.sizes[0], in.sizes[1], g.sizes[1], g.sizes[2], g.sizes[3]};
    auto out = empty_tensor(sizes, contiguous_strides_of(sizes), in.dtype, kCPU, -1);
    dispatch_floating(in.dtype, "grid_sampler_3d", [&](auto t) {
      sample<decltype(t)>(in, g, *out, interpolation_mode, padding_mode, align_corners != 0);
    });
    *ret0 = wrap(std::move(out));
  });
}
