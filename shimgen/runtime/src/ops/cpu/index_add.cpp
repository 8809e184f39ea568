// aten::index_add (served by the proxy executor: inductor decomposes index_add itself except for
// bfloat16, which it leaves to the op, torch issue 137425): out = a new contiguous copy of self, then
// for each i in order, slice index[i] of out along dim += alpha * slice i of source. Each sum is
// rounded to self's dtype as it is made (torch's CPU kernel adds slice by slice; the 16-bit floats
// add in float). Any real dtype; index int64 or int32, 0-d or 1-d, negative counting from the end.
#include "../proxy_ops.h"
#include "cpu_op.h"
#include "elementwise.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

template <class T>
void add_slices(const Tensor& out, int64_t dim, const std::vector<int64_t>& rows, const Tensor& src, double alpha) {
  std::vector<int64_t> slice = out.sizes;
  if (!slice.empty()) slice[static_cast<size_t>(dim)] = 1;
  const std::vector<int64_t>* strides[2] = {&out.strides, &src.strides};
  auto* dst = reinterpret_cast<T*>(out.data());
  const auto* from = reinterpret_cast<const T*>(src.data());
  const int64_t so = out.sizes.empty() ? 0 : out.strides[static_cast<size_t>(dim)];
  const int64_t ss = src.sizes.empty() ? 0 : src.strides[static_cast<size_t>(dim)];
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t base_out = rows[i] * so, base_src = static_cast<int64_t>(i) * ss;
    elementwise::for_each(slice, strides, [&](const int64_t* at) {
      T& d = dst[base_out + at[0]];
      const T s = from[base_src + at[1]];
      if constexpr (std::is_same_v<T, bool>) d = d || (s && alpha != 0);
      else if constexpr (is_floating_v<T> && !std::is_floating_point_v<T>)
        d = T(float(d) + static_cast<float>(alpha) * float(s));
      else if constexpr (std::is_floating_point_v<T>) d = static_cast<T>(d + static_cast<T>(alpha) * s);
      else d = static_cast<T>(d + static_cast<T>(alpha) * s);
    });
  }
}

}  // namespace

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_index_add(AtenTensorHandle self, int64_t dim, AtenTensorHandle index, AtenTensorHandle source,
                               double alpha) {
  const Tensor& s = cpu_tensor(self, "self");
  const Tensor& idx = cpu_tensor(index, "index");
  const Tensor& src = cpu_tensor(source, "source");
  const int64_t rank = static_cast<int64_t>(s.sizes.size());
  const int64_t d = wrap_dim(dim, rank, "dim");
  const std::vector<int64_t> rows = index_positions(s, d, idx, src, "index_add_()");
  dispatch_real(s.dtype, "index_add", [&](auto) {});  // a dtype refused before anything is made
  auto out = empty_tensor(s.sizes, contiguous_strides_of(s.sizes), s.dtype, kCPU, -1);
  AtenTensorHandle result = wrap(std::move(out));
  const Tensor& o = *unwrap(result, "out");
  if (o.numel() > 0) {
    const AOTITorchError copied = aoti_torch_copy_(result, self, 0);
    if (copied != AOTI_TORCH_SUCCESS) {
      (void)aoti_torch_delete_tensor_object(result);
      fail(copied, std::string("copy_: ") + shimgen_runtime_last_error());
    }
    dispatch_real(s.dtype, "index_add", [&](auto t) { add_slices<decltype(t)>(o, d, rows, src, alpha); });
  }
  return result;
}

}  // namespace shimgen::rt::proxy_ops
