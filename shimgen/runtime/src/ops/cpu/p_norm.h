// The p-norm distance cdist and pdist compute between two vectors (ops/cpu/cdist_forward.cpp,
// pdist_forward.cpp). Nothing here is exported.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace shimgen::rt::cpu {

// From diff(k) = |a_k - b_k| for k < m, in double: p = 0 counts the differing coordinates, p = inf
// takes the largest difference, p = 1 and 2 without pow (exact sums, one sqrt), else
// (sum d^p)^(1/p).
template <class Diff> double p_norm_distance(int64_t m, double p, Diff&& diff) {
  double acc = 0.0;
  for (int64_t k = 0; k < m; ++k) {
    const double d = diff(k);
    if (p == 0.0) acc += d != 0.0 ? 1.0 : 0.0;
    else if (std::isinf(p)) acc = std::max(acc, d);
    else if (p == 1.0) acc += d;
    else if (p == 2.0) acc += d * d;
    else acc += std::pow(d, p);
  }
  if (p == 2.0) return std::sqrt(acc);
  if (p != 0.0 && p != 1.0 && !std::isinf(p)) return std::pow(acc, 1.0 / p);
  return acc;
}

}  // namespace shimgen::rt::cpu
