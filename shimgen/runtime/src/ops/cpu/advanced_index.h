// Advanced indexing self[indices], resolved once (advanced_index.cpp) for the ops that read or write
// through it: index_Tensor (gather into a new tensor) and index_put_out (scatter values into self).
// indices[i] is null (None: dim i is kept) or an int64/int32 index tensor (negative counts from the
// end) or a bool/uint8 mask, which stands for as many dims as it has (its nonzero coordinates).
// Index tensors broadcast together; their shape replaces the indexed dims where those are adjacent,
// else goes in front (numpy's rule). Every index is checked against its dim when the plan is made.
// Nothing here is exported.
#pragma once

#include <algorithm>
#include <vector>

#include "cpu_op.h"

namespace shimgen::rt::cpu {

class AdvancedIndex {
 public:
  // Resolves indices (null entries: None) against self's sizes; throws on a bad index.
  AdvancedIndex(const Tensor& self, const std::vector<const Tensor*>& indices);

  // The shape of self[indices].
  const std::vector<int64_t>& sizes() const { return sizes_; }

  // f(offset) for every element of self[indices] in row-major order: its offset (in elements) into a
  // tensor of self's sizes with `strides` (self's own, or another tensor's of the same sizes).
  template <class F> void for_each(const std::vector<int64_t>& strides, F&& f) const {
    const int64_t before_n = count(before_), after_n = count(after_);
    std::vector<int64_t> bpos(before_.size(), 0), apos(after_.size(), 0);
    for (int64_t b = 0; b < before_n; ++b) {
      int64_t boff = 0;
      for (size_t i = 0; i < before_.size(); ++i) boff += bpos[i] * strides[before_[i]];
      for (int64_t p = 0; p < points_; ++p) {
        int64_t poff = boff;
        for (size_t k = 0; k < indexed_.size(); ++k) poff += at_point_[k][static_cast<size_t>(p)] * strides[indexed_[k]];
        std::fill(apos.begin(), apos.end(), 0);
        for (int64_t a = 0; a < after_n; ++a) {
          int64_t off = poff;
          for (size_t i = 0; i < after_.size(); ++i) off += apos[i] * strides[after_[i]];
          f(off);
          step(apos, after_);
        }
      }
      step(bpos, before_);
    }
  }

 private:
  int64_t count(const std::vector<size_t>& dims) const {
    int64_t n = 1;
    for (size_t d : dims) n *= self_sizes_[d];
    return n;
  }
  void step(std::vector<int64_t>& pos, const std::vector<size_t>& dims) const {  // row-major odometer
    for (size_t i = dims.size(); i-- > 0;) {
      if (++pos[i] < self_sizes_[dims[i]]) break;
      pos[i] = 0;
    }
  }

  std::vector<int64_t> self_sizes_, sizes_;
  std::vector<size_t> before_, indexed_, after_;  // self's dims: kept in front, indexed, kept behind
  int64_t points_ = 1;                            // elements of the broadcast index shape
  std::vector<std::vector<int64_t>> at_point_;    // per indexed dim: its (wrapped) index at each point
};

// The indices argument of the index ops as tensors: null handles (None) stay null.
std::vector<const Tensor*> index_tensors(const AtenTensorHandle* const* indices, int64_t count);

}  // namespace shimgen::rt::cpu
