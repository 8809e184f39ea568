// The small GEMM's packed-weight cache (cpu_packed_weights.h).
#include "cpu_packed_weights.h"

#include <algorithm>
#include <cstring>

#include "immutable_ranges.h"

namespace shimgen::rt::cpu {

namespace {

// The bytes W spans: n rows of k floats, ld apart.
size_t span_bytes(int64_t k, int64_t n, int64_t ld) {
  return (static_cast<size_t>(n - 1) * static_cast<size_t>(ld) + static_cast<size_t>(k)) * sizeof(float);
}

}  // namespace

bool PackedWeightCache::same_bytes(const Entry& e) const {
  const size_t row = static_cast<size_t>(e.k) * sizeof(float);
  if (e.ld == e.k || e.n == 1) return std::memcmp(e.source, e.snapshot.data(), row * static_cast<size_t>(e.n)) == 0;
  for (int64_t j = 0; j < e.n; ++j)
    if (std::memcmp(e.source + j * e.ld, e.snapshot.data() + j * e.k, row) != 0) return false;
  return true;
}

// Snapshot first, then pack the snapshot: the packed copy is exactly what the next comparison checks.
void PackedWeightCache::fill(Entry& e, const float* w, int64_t k, int64_t n, int64_t ld) {
  const size_t count = static_cast<size_t>(k * n);
  bytes_ -= (e.snapshot.capacity() + e.packed.capacity()) * sizeof(float);
  e.snapshot.resize(count);
  e.packed.resize(count);
  bytes_ += (e.snapshot.capacity() + e.packed.capacity()) * sizeof(float);
  if (ld == k || n == 1) {
    std::memcpy(e.snapshot.data(), w, count * sizeof(float));
  } else {
    for (int64_t j = 0; j < n; ++j)
      std::memcpy(e.snapshot.data() + j * k, w + j * ld, static_cast<size_t>(k) * sizeof(float));
  }
  pack_(e.snapshot.data(), k, n, k, e.packed.data());
  e.source = w;
  e.k = k;
  e.n = n;
  e.ld = ld;
}

const float* PackedWeightCache::get(const float* w, int64_t k, int64_t n, int64_t ld) {
  const size_t need = 2 * static_cast<size_t>(k * n) * sizeof(float);
  if (need > kMaxBytes / 4) return nullptr;  // one weight may take a quarter of the budget at most
  ++clock_;
  for (Entry& e : entries_) {
    if (e.source != w || e.k != k || e.n != n || e.ld != ld) continue;
    e.used = clock_;
    if (check_bytes_ && e.immutable_generation != 0 && e.immutable_generation == rt::immutable_generation()) {
      ++stats_.hits;
      ++stats_.trusted;
      return e.packed.data();
    }
    // Asked before the comparison: a model closed or opened meanwhile moves the generation past it.
    const uint64_t immutable = rt::immutable_generation_of(w, span_bytes(k, n, ld));
    if (check_bytes_ && !same_bytes(e)) {
      fill(e, w, k, n, ld);
      ++stats_.packs;
    } else {
      ++stats_.hits;
    }
    e.immutable_generation = immutable;
    return e.packed.data();
  }
  // A new entry; the least recently used ones make room (the last one evicted lends its buffers).
  Entry fresh;
  while (!entries_.empty() && (entries_.size() >= kMaxEntries || bytes_ + need > kMaxBytes)) {
    auto lru = std::min_element(entries_.begin(), entries_.end(),
                                [](const Entry& x, const Entry& y) { return x.used < y.used; });
    bytes_ -= (lru->snapshot.capacity() + lru->packed.capacity()) * sizeof(float);
    fresh = std::move(*lru);
    *lru = std::move(entries_.back());
    entries_.pop_back();
    ++stats_.evictions;
  }
  bytes_ += (fresh.snapshot.capacity() + fresh.packed.capacity()) * sizeof(float);
  const uint64_t immutable = rt::immutable_generation_of(w, span_bytes(k, n, ld));
  fill(fresh, w, k, n, ld);
  if (bytes_ > kMaxBytes) {  // a recycled buffer larger than needed: give it back rather than exceed the bound
    bytes_ -= (fresh.snapshot.capacity() + fresh.packed.capacity()) * sizeof(float);
    fresh.snapshot.shrink_to_fit();
    fresh.packed.shrink_to_fit();
    bytes_ += (fresh.snapshot.capacity() + fresh.packed.capacity()) * sizeof(float);
  }
  fresh.used = clock_;
  fresh.immutable_generation = immutable;
  ++stats_.packs;
  entries_.push_back(std::move(fresh));
  return entries_.back().packed.data();
}

}  // namespace shimgen::rt::cpu
