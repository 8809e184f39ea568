// aoti_torch_cpu_searchsorted_{Tensor,Scalar}: torch.searchsorted / torch.bucketize (quantile
// buckets, top-p cutoffs, piecewise schedules). sorted_sequence is 1-d (one boundary list for every
// value) or has self's leading dims (one list per row); `sorter` (int64, the sequence's shape) gives
// the sorted order; right / side="right" take the upper bound. A new contiguous int64 (int32 when
// out_int32) tensor of self's shape. torch's comparisons: lower bound = first i with !(seq[i] < v)
// written as seq[i] >= v, so a NaN value lands past every boundary.
#include <cstring>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

struct Query {
  const Tensor* seq;
  const Tensor* sorter;  // null: seq is sorted
  bool right;
};

// Bound of value v in one line of the sequence (n elements, stride `step`), sorter line `order`.
template <class S, class V>
int64_t bound(const S* line, int64_t step, int64_t n, const int64_t* order, int64_t order_step, V v, bool right) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + ((hi - lo) >> 1);
    const auto m = value_of(line[(order != nullptr ? order[mid * order_step] : mid) * step]);
    const auto x = value_of(v);
    const bool before = right ? !(m > x) : !(m >= x);
    if (before) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

template <class S, class V> void search(const Query& q, const Tensor& values, const Tensor& out) {
  const Tensor& seq = *q.seq;
  const int64_t seq_rank = static_cast<int64_t>(seq.sizes.size());
  const int64_t n = seq.sizes[seq_rank - 1], step = seq.strides[seq_rank - 1];
  const int64_t order_step = q.sorter != nullptr ? q.sorter->strides[seq_rank - 1] : 0;
  const auto* s = reinterpret_cast<const S*>(seq.data());
  const auto* order = q.sorter != nullptr ? reinterpret_cast<const int64_t*>(q.sorter->data()) : nullptr;
  const auto* v = reinterpret_cast<const V*>(values.data());
  auto put = [&](int64_t at, int64_t r) {
    if (out.dtype == kInt32) reinterpret_cast<int32_t*>(out.data())[at] = static_cast<int32_t>(r);
    else reinterpret_cast<int64_t*>(out.data())[at] = r;
  };
  if (seq_rank == 1) {  // one boundary list for every value
    int64_t k = 0;
    for_each_element(values, [&](int64_t at) { put(k++, bound(s, step, n, order, order_step, v[at], q.right)); });
    return;
  }
  // One list per row: walk self's rows (last dim), the sequence's and sorter's rows alongside.
  const int64_t rank = static_cast<int64_t>(values.sizes.size());
  const int64_t last = rank - 1, m = values.sizes[last], v_step = values.strides[last];
  const int64_t o_step = out.strides[last];
  std::vector<int64_t> zero(values.sizes.size(), 0);
  const std::vector<int64_t>& sorter_strides = q.sorter != nullptr ? q.sorter->strides : zero;
  const std::vector<int64_t>* strides[4] = {&values.strides, &out.strides, &seq.strides, &sorter_strides};
  for_each_line(values.sizes, last, strides, [&](const int64_t* base) {
    for (int64_t j = 0; j < m; ++j)
      put(base[1] + j * o_step, bound(s + base[2], step, n, order != nullptr ? order + base[3] : nullptr, order_step,
                                      v[base[0] + j * v_step], q.right));
  });
}

}  // namespace

namespace shimgen::rt::cpu {

std::unique_ptr<Tensor> searchsorted(const Tensor& seq, const Tensor& values, int32_t out_int32, int32_t right,
                                     const char** side, const AtenTensorHandle* sorter) {
  bool upper = right != 0;
  if (side != nullptr && *side != nullptr) {
    const std::string s(*side);
    SHIMGEN_REQUIRE(s == "left" || s == "right", "side can only be 'left' or 'right' but got " + s);
    SHIMGEN_REQUIRE(!(s == "left" && upper),
                    "side and right can't be set to opposites, got side of left while right was True");
    upper = s == "right";
  }
  const Tensor* order = optional_tensor(sorter, "sorter");
  const int64_t seq_rank = static_cast<int64_t>(seq.sizes.size());
  SHIMGEN_REQUIRE(seq_rank >= 1,
                  "boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
                  "tensor and input value tensor must match");
  if (seq_rank > 1) {
    SHIMGEN_REQUIRE(values.sizes.size() == seq.sizes.size() &&
                        std::equal(seq.sizes.begin(), seq.sizes.end() - 1, values.sizes.begin()),
                    "the first N-1 dimensions of boundaries tensor and input value tensor must match, but got "
                    "boundaries " +
                        shape_str(seq.sizes) + " and input value " + shape_str(values.sizes));
  }
  if (order != nullptr) {
    SHIMGEN_REQUIRE(order->storage->device_type == kCPU && order->dtype == kInt64 && order->sizes == seq.sizes,
                    "sorter must be a CPU int64 tensor of the boundaries' shape");
    const auto* o = reinterpret_cast<const int64_t*>(order->data());
    bool ok = true;
    for_each_element(*order, [&](int64_t at) { ok &= o[at] >= 0 && o[at] < seq.sizes[seq_rank - 1]; });
    SHIMGEN_REQUIRE(ok, "sorter index out of range");
  }
  auto out =
      empty_tensor(values.sizes, contiguous_strides_of(values.sizes), out_int32 != 0 ? kInt32 : kInt64, kCPU, -1);
  if (out->numel() > 0 && seq.sizes[seq_rank - 1] == 0) {
    std::memset(out->data(), 0, static_cast<size_t>(out->numel()) * out->itemsize());
  } else if (out->numel() > 0) {
    const Query q{&seq, order, upper};
    dispatch_real(seq.dtype, "searchsorted", [&](auto s) {
      dispatch_real(values.dtype, "searchsorted", [&](auto v) { search<decltype(s), decltype(v)>(q, values, *out); });
    });
  }
  return out;
}

}  // namespace shimgen::rt::cpu

extern "C" {

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_searchsorted_Tensor(AtenTensorHandle sorted_sequence,
                                                                   AtenTensorHandle self, int32_t out_int32,
                                                                   int32_t right, const char** side,
                                                                   AtenTensorHandle* sorter, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& seq = cpu_tensor(sorted_sequence, "sorted_sequence");
    const Tensor& values = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    *ret0 = wrap(searchsorted(seq, values, out_int32, right, side, sorter));
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_searchsorted_Scalar(AtenTensorHandle sorted_sequence, double self,
                                                                   int32_t out_int32, int32_t right, const char** side,
                                                                   AtenTensorHandle* sorter, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& seq = cpu_tensor(sorted_sequence, "sorted_sequence");
    require_out(ret0, "ret0");
    SHIMGEN_REQUIRE(seq.sizes.size() == 1, "a scalar value needs a 1-d boundaries tensor");
    auto value = empty_tensor({}, {}, kFloat64, kCPU, -1);
    *reinterpret_cast<double*>(value->data()) = self;
    *ret0 = wrap(searchsorted(seq, *value, out_int32, right, side, sorter));
  });
}

}  // extern "C"
