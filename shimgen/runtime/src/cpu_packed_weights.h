// The packed-weight cache of the small GEMM (cpu_small_gemm.cpp): `x @ W^T` reads W transposed,
// and the register kernel wants it row-major ([k][n]), so W is copied once, kept, and reused by
// later calls on the same weight. Nothing here is exported.
//
// An entry is found by W's address, shape and row stride, and used only after W's current bytes
// compare equal to the snapshot taken when it was packed: a weight changed in place (or another
// tensor that reuses the address) is packed again, never served stale. The one exception: a weight
// inside a registered immutable range (immutable_ranges.h: an open model's parameters) is trusted
// without the comparison once it compared equal there, until any model is opened or closed. Per thread (no locks), at
// most kMaxEntries entries and kMaxBytes of snapshots and packed copies; the least recently used
// entry makes room.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shimgen::rt::cpu {

class PackedWeightCache {
 public:
  static constexpr size_t kMaxEntries = 32;
  static constexpr size_t kMaxBytes = size_t{4} << 20;

  struct Stats {
    uint64_t hits = 0;     // served from a valid entry
    uint64_t trusted = 0;  // of those, served without the byte comparison (an immutable weight)
    uint64_t packs = 0;    // packed: a new entry, or an entry whose source bytes had changed
    uint64_t evictions = 0;
  };

  // `pack(src, ld, dst)` writes the [k][n] row-major copy of the n x k weight at src (row j at
  // src + j * ld) into dst. `check_bytes` false skips the byte comparison (trusting the address):
  // only the native test's negative control builds such a cache, to show what it would serve.
  using PackFn = void (*)(const float* src, int64_t k, int64_t n, int64_t ld, float* dst);
  explicit PackedWeightCache(PackFn pack, bool check_bytes = true) : pack_(pack), check_bytes_(check_bytes) {}

  // The packed [k][n] copy of the weight at `w` (n rows of k floats, ld apart), valid until the
  // next call; nullptr when the weight is too large to keep (the caller packs into scratch).
  const float* get(const float* w, int64_t k, int64_t n, int64_t ld);

  const Stats& stats() const { return stats_; }
  size_t entries() const { return entries_.size(); }
  size_t bytes() const { return bytes_; }

 private:
  struct Entry {
    const float* source = nullptr;
    int64_t k = 0, n = 0, ld = 0;
    std::vector<float> snapshot;  // W's elements when packed, row after row (n x k)
    std::vector<float> packed;    // [k][n]
    uint64_t used = 0;
    uint64_t immutable_generation = 0;  // nonzero: W lay in an immutable range under this generation
  };
  bool same_bytes(const Entry& e) const;
  void fill(Entry& e, const float* w, int64_t k, int64_t n, int64_t ld);

  PackFn pack_;
  bool check_bytes_;
  std::vector<Entry> entries_;
  uint64_t clock_ = 0;
  size_t bytes_ = 0;
  Stats stats_;
};

}  // namespace shimgen::rt::cpu
