// aoti_torch_cpu__trilinear: aten::_trilinear, what nn.Bilinear / F.bilinear run (x1^T W x2 for each
// output feature). Each input k is given unit dims at the positions expand<k> names, making all three
// of rank R = i1.dim() + len(expand1); the result is the product of the three broadcast inputs
// summed over the dims sumdim names, which are removed: a new contiguous tensor of the remaining
// dims. unroll_dim only chooses torch's evaluation order, not the result. Sums run in double for
// float32/64 (float for bfloat16/float16) and are rounded once.
#include <algorithm>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

// Sizes and strides of t with unit dims inserted at `expand` (positions in the R-d result).
void expanded(const Tensor& t, const std::vector<bool>& expand, std::vector<int64_t>* sizes,
              std::vector<int64_t>* strides, const char* what) {
  size_t next = 0;
  for (size_t i = 0; i < expand.size(); ++i) {
    if (expand[i]) {
      sizes->push_back(1);
      strides->push_back(0);
    } else {
      SHIMGEN_REQUIRE(next < t.sizes.size(),
                      std::string("_trilinear: ") + what + " has too few dims for its expand list");
      sizes->push_back(t.sizes[next]);
      strides->push_back(t.strides[next]);
      ++next;
    }
  }
  SHIMGEN_REQUIRE(next == t.sizes.size(),
                  std::string("_trilinear: ") + what + " has too many dims for its expand list");
}

std::vector<bool> bitset_of(const int64_t* dims, int64_t len, size_t rank, const char* what) {
  SHIMGEN_REQUIRE(len == 0 || dims != nullptr, std::string("_trilinear: ") + what + " is null");
  std::vector<bool> bits(rank, false);
  for (int64_t i = 0; i < len; ++i) {
    const int64_t d = wrap_dim(dims[i], static_cast<int64_t>(rank), what);
    SHIMGEN_REQUIRE(!bits[static_cast<size_t>(d)], std::string("_trilinear: dim ") + std::to_string(d) +
                                                       " appears multiple times in the list of dims");
    bits[static_cast<size_t>(d)] = true;
  }
  return bits;
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__trilinear(
    AtenTensorHandle i1, AtenTensorHandle i2, AtenTensorHandle i3, const int64_t* expand1, int64_t expand1_len_,
    const int64_t* expand2, int64_t expand2_len_, const int64_t* expand3, int64_t expand3_len_, const int64_t* sumdim,
    int64_t sumdim_len_, int64_t unroll_dim, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor* in[3] = {&cpu_tensor(i1, "i1"), &cpu_tensor(i2, "i2"), &cpu_tensor(i3, "i3")};
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(in[1]->dtype == in[0]->dtype && in[2]->dtype == in[0]->dtype,
                    "_trilinear: expected i1, i2 and i3 to have one dtype");
    const size_t rank = in[0]->sizes.size() + static_cast<size_t>(expand1_len_);
    SHIMGEN_REQUIRE(in[1]->sizes.size() + static_cast<size_t>(expand2_len_) == rank &&
                        in[2]->sizes.size() + static_cast<size_t>(expand3_len_) == rank,
                    "_trilinear: inputs and expand lists give different ranks");
    SHIMGEN_REQUIRE(unroll_dim >= 0 && unroll_dim < static_cast<int64_t>(std::max<size_t>(rank, 1)),
                    "_trilinear: unroll_dim out of range");
    const std::vector<bool> ex[3] = {bitset_of(expand1, expand1_len_, rank, "expand1"),
                                     bitset_of(expand2, expand2_len_, rank, "expand2"),
                                     bitset_of(expand3, expand3_len_, rank, "expand3")};
    const std::vector<bool> sum = bitset_of(sumdim, sumdim_len_, rank, "sumdim");
    std::vector<int64_t> sz[3], st[3];
    for (int k = 0; k < 3; ++k) expanded(*in[k], ex[k], &sz[k], &st[k], k == 0 ? "i1" : k == 1 ? "i2" : "i3");
    std::vector<int64_t> full(rank, 1), out_sizes;
    for (size_t d = 0; d < rank; ++d) {
      for (int k = 0; k < 3; ++k) {
        if (sz[k][d] == 1) continue;
        SHIMGEN_REQUIRE(full[d] == 1 || full[d] == sz[k][d],
                        "_trilinear: sizes of the inputs do not match at dim " + std::to_string(d));
        full[d] = sz[k][d];
      }
      if (!sum[d]) out_sizes.push_back(full[d]);
    }
    for (int k = 0; k < 3; ++k)
      for (size_t d = 0; d < rank; ++d)
        if (sz[k][d] == 1) st[k][d] = 0;
    auto out = empty_tensor(out_sizes, contiguous_strides_of(out_sizes), in[0]->dtype, kCPU, -1);
    std::vector<size_t> kept, summed;
    for (size_t d = 0; d < rank; ++d) (sum[d] ? summed : kept).push_back(d);
    int64_t n_out = 1, n_sum = 1;
    for (size_t d : kept) n_out *= full[d];
    for (size_t d : summed) n_sum *= full[d];
    dispatch_floating(in[0]->dtype, "_trilinear", [&](auto t) {
      using T = decltype(t);
      using A = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, double, float>;
      const T* p[3] = {reinterpret_cast<const T*>(in[0]->data()), reinterpret_cast<const T*>(in[1]->data()),
                       reinterpret_cast<const T*>(in[2]->data())};
      auto* dst = reinterpret_cast<T*>(out->data());
      for (int64_t o = 0; o < n_out; ++o) {
        int64_t base[3] = {0, 0, 0}, rest = o;
        for (size_t j = kept.size(); j-- > 0;) {
          const size_t d = kept[j];
          const int64_t i = rest % full[d];
          rest /= full[d];
          for (int k = 0; k < 3; ++k) base[k] += i * st[k][d];
        }
        A acc = 0;
        for (int64_t s = 0; s < n_sum; ++s) {
          int64_t at[3] = {base[0], base[1], base[2]}, r = s;
          for (size_t j = summed.size(); j-- > 0;) {
            const size_t d = summed[j];
            const int64_t i = r % full[d];
            r /= full[d];
            for (int k = 0; k < 3; ++k) at[k] += i * st[k][d];
          }
          acc += static_cast<A>(value_of(p[0][at[0]])) * static_cast<A>(value_of(p[1][at[1]])) *
                 static_cast<A>(value_of(p[2][at[2]]));
        }
        if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) dst[o] = static_cast<T>(acc);
        else dst[o] = T(static_cast<float>(acc));
      }
    });
    *ret0 = wrap(std::move(out));
  });
}
