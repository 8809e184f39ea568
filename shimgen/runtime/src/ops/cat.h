// torch.cat's result layout, shared by the CPU shim (ops/cpu/cat.cpp, which defines it) and the CUDA
// one (ops/cuda/cat.cu): the checks torch makes (TensorShape.cpp, cat's meta function), the result's
// sizes and strides, and which inputs are skipped. Throws ShimError; reads no element.
#pragma once

#include <cstdint>
#include <vector>

#include "../internal.h"

namespace shimgen::rt::cat {

// torch's legacy rule: a 1-d empty tensor ([0]) takes no part in the shape checks or the copy.
inline bool skipped(const Tensor& t) { return t.sizes.size() == 1 && t.sizes[0] == 0; }

struct Layout {
  std::vector<int64_t> sizes, strides;  // the result's
  size_t dim = 0;                       // wrapped; meaningful when some input is not skipped
};

// The result of cat(in, dim): every input has a rank (0-d ones are refused, naming their position),
// the first not-skipped tensor fixes the rank and wraps dim, every other must match its sizes except
// along dim; one dtype for every input (mixed ones, which torch promotes, are refused as unsupported);
// channels-last (2-d or 3-d) when every input's suggested memory format is, else contiguous. Every
// input skipped: a [0] result.
Layout layout(const std::vector<const Tensor*>& in, int64_t dim);

// Hands each input with elements, in order, to copy(to, piece): `to` is where the piece starts in
// out, its slice along plan.dim (copied with out's strides). The copy itself is the device's.
template <typename Copy>
void copy_pieces(const std::vector<const Tensor*>& in, const Layout& plan, Tensor& out, Copy copy) {
  int64_t at = 0;  // where along dim the next input goes
  for (const Tensor* t : in) {
    if (skipped(*t)) continue;
    if (t->numel() > 0) copy(out.data() + at * out.strides[plan.dim] * static_cast<int64_t>(out.itemsize()), *t);
    at += t->sizes[plan.dim];
  }
}

}  // namespace shimgen::rt::cat
