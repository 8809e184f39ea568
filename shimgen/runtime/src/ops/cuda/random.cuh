// The CUDA random ops' generator: counter-based (splitmix64 over seed and element index), so
// every element is independent and no state lives on the device. Like PyTorch's default CUDA
// generator, a process starts from a fixed seed; each call takes a fresh range of the counter.
#pragma once

#include <atomic>
#include <cstdint>

namespace shimgen::rt::cuda_ops {

constexpr uint64_t kDefaultSeed = 67280421310721ull;  // PyTorch's default_rng_seed_val

// The first counter value of a call that draws `count` numbers.
inline uint64_t reserve_counter(uint64_t count) {
  static std::atomic<uint64_t> next{0};
  return next.fetch_add(count, std::memory_order_relaxed);
}

__device__ inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__device__ inline uint64_t random_bits(uint64_t seed, uint64_t counter) { return mix64(mix64(seed) ^ counter); }

}  // namespace shimgen::rt::cuda_ops
