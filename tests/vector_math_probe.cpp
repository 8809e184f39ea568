// Compares the runtime's SLEEF entry points with libtorch's own SLEEF, lane by lane.
//
//   vector_math_probe RUNTIME.so PREFIX LIBTORCH_CPU.so NAME:ARITY...
//   vector_math_probe RUNTIME.so PREFIX --sweep exp|tanh|erf [LIBTORCH_CPU.so]
//                                      (the runtime's own vector float functions: see sweep below)
//
// Built once per width: -mavx512f for the f16/d8 names, -mavx2 -mfma for the f8/d4 ones (so the
// AVX2 build runs on a CPU without AVX-512); the caller passes each build the names of its width.
// For each name: PREFIX+NAME from the runtime, NAME from libtorch_cpu, both called on the same
// vectors (every lane a different input: specials, [-1, 1], [-20, 20], magnitudes 1e-30..1e30 of
// either sign). Prints one line per name: "NAME max_ulp worst_a worst_b nan_mismatches
// their_overflows" (the last: lanes where libtorch's SLEEF overflowed to inf and the C library did
// not; left out of max_ulp). Exit 2 on a
// missing symbol or a name of the other width.
#include <dlfcn.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

template <class T>
struct Bits;
template <>
struct Bits<float> {
  using Int = int32_t;
};
template <>
struct Bits<double> {
  using Int = int64_t;
};

// Distance in units in the last place: the IEEE bit patterns mapped to one ordered integer line.
template <class T>
double ulp_distance(T a, T b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isnan(a) || std::isnan(b)) return INFINITY;
  if (a == b) return 0;
  using Int = typename Bits<T>::Int;
  Int ia, ib;
  std::memcpy(&ia, &a, sizeof a);
  std::memcpy(&ib, &b, sizeof b);
  const Int top = static_cast<Int>(Int{1} << (sizeof(Int) * 8 - 1));
  if (ia < 0) ia = static_cast<Int>(top - ia);
  if (ib < 0) ib = static_cast<Int>(top - ib);
  const __int128 d = static_cast<__int128>(ia) - static_cast<__int128>(ib);  // exact for doubles too
  return static_cast<double>(d < 0 ? -d : d);
}

template <class T>
std::vector<T> inputs(size_t count, uint64_t seed) {
  const T specials[] = {T(0), -T(0), T(1), T(-1), T(0.5), T(-0.5), T(2), T(1e-7), T(-1e-7), T(88), T(-88), T(100),
                        T(-104), T(3.14159265358979), INFINITY, -INFINITY, NAN};
  std::vector<T> out(std::begin(specials), std::end(specials));
  uint64_t s = seed;
  auto next = [&s] {  // splitmix64: reproducible, no <random> differences between libraries
    s += 0x9E3779B97F4A7C15ull;
    uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<double>((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
  };
  while (out.size() < count) {
    const double u = next(), v = next();
    switch (out.size() % 3) {
      case 0: out.push_back(static_cast<T>(2 * u - 1)); break;
      case 1: out.push_back(static_cast<T>(40 * u - 20)); break;
      default: out.push_back(static_cast<T>((v < 0.5 ? -1 : 1) * std::pow(10.0, 60 * u - 30)));
    }
  }
  return out;
}

struct Result {
  double max_ulp = 0;
  double worst_a = 0, worst_b = 0;
  int nan_mismatches = 0;
  int their_overflows = 0;  // libtorch's SLEEF gave +-inf where the C library's result is finite
};

template <class V, class T>
void compare(void* ours, void* theirs, int arity, Result& r) {
  constexpr size_t lanes = sizeof(V) / sizeof(T);
  const std::vector<T> a = inputs<T>(4096, 1), b = inputs<T>(4096, 2);
  for (size_t at = 0; at + lanes <= a.size(); at += lanes) {
    V va, vb, got, want;
    std::memcpy(&va, &a[at], sizeof va);
    std::memcpy(&vb, &b[at + lanes < b.size() ? at + lanes : 0], sizeof vb);  // b's lanes shifted: unrelated pairs
    if (arity == 1) {
      got = reinterpret_cast<V (*)(V)>(ours)(va);
      want = reinterpret_cast<V (*)(V)>(theirs)(va);
    } else {
      got = reinterpret_cast<V (*)(V, V)>(ours)(va, vb);
      want = reinterpret_cast<V (*)(V, V)>(theirs)(va, vb);
    }
    T g[lanes], w[lanes], x[lanes], y[lanes];
    std::memcpy(g, &got, sizeof got);
    std::memcpy(w, &want, sizeof want);
    std::memcpy(x, &va, sizeof va);
    std::memcpy(y, &vb, sizeof vb);
    for (size_t i = 0; i < lanes; ++i) {
      if (std::isinf(w[i]) && std::isfinite(g[i]) && std::isfinite(x[i]) && std::isfinite(y[i])) {
        ++r.their_overflows;  // SLEEF's asinhf/acoshf square x first: inf beyond ~1.8e19
        continue;
      }
      const double d = ulp_distance(g[i], w[i]);
      if (std::isnan(g[i]) != std::isnan(w[i])) ++r.nan_mismatches;
      if (d > r.max_ulp) {
        r.max_ulp = d;
        r.worst_a = x[i];
        r.worst_b = y[i];
      }
    }
  }
}

}  // namespace

// The runtime's own vector float functions (exp, tanh, erf) against the correctly rounded result
// ((float)f(double), one rounding of a result accurate to ~2^-53), for every 97th float bit pattern:
// 44 million inputs, both signs, subnormals, NaNs; then special inputs against glibc's own function:
// zeros (their sign), infinities and NaNs give the same bits (or both NaN), subnormals, the normal
// ends and +-1 within 1 ulp of glibc's result (glibc's erff is itself 1 ulp off at FLT_MIN).
struct SweepResult {
  double max_ulp = 0;
  float worst = 0;
  uint64_t not_rounded = 0;  // results that differ from the correctly rounded one (at most by max_ulp)
  uint64_t inputs = 0;
  int glibc_mismatches = 0;
  double sleef_max_ulp = -1;  // largest distance from libtorch's SLEEF over the same inputs, if given
};

struct SweptFunction {
  const char* stem;
  double (*exact)(double);
  float (*libc)(float);
};

constexpr SweptFunction kSwept[] = {{"exp", ::exp, ::expf}, {"tanh", ::tanh, ::tanhf}, {"erf", ::erf, ::erff}};

template <class V>
V apply(void* fn, const float* x) {
  V v;
  std::memcpy(&v, x, sizeof v);
  return reinterpret_cast<V (*)(V)>(fn)(v);
}

template <class V>
SweepResult sweep(void* ours, void* theirs, const SweptFunction& f) {
  constexpr size_t lanes = sizeof(V) / sizeof(float);
  SweepResult r;
  for (uint64_t bits = 0; bits + 97 * lanes <= 0xFFFFFFFFull; bits += 97 * lanes) {
    float x[lanes], y[lanes], s[lanes];
    for (size_t i = 0; i < lanes; ++i) {
      const uint32_t b = static_cast<uint32_t>(bits + 97 * i);
      std::memcpy(&x[i], &b, 4);
    }
    const V got = apply<V>(ours, x);
    std::memcpy(y, &got, sizeof got);
    if (theirs) {
      const V want = apply<V>(theirs, x);
      std::memcpy(s, &want, sizeof want);
    }
    for (size_t i = 0; i < lanes; ++i) {
      const double d = ulp_distance(y[i], static_cast<float>(f.exact(static_cast<double>(x[i]))));
      r.not_rounded += d != 0;
      if (d > r.max_ulp) r.max_ulp = d, r.worst = x[i];
      if (theirs) r.sleef_max_ulp = std::max(r.sleef_max_ulp, ulp_distance(y[i], s[i]));
    }
    r.inputs += lanes;
  }
  const float specials[] = {0.f, -0.f, INFINITY, -INFINITY, NAN, -NAN, 1e-45f, -1e-45f, 3e-45f, 1e-40f,
                            -2.5e-39f, 1.1754942e-38f, -1.1754942e-38f, 1.17549435e-38f, -1.17549435e-38f,
                            3.4028235e38f, -3.4028235e38f, 1.f, -1.f};
  constexpr size_t count = sizeof specials / sizeof(float);
  for (size_t at = 0; at < count; at += lanes) {
    float x[lanes] = {}, y[lanes];
    for (size_t i = 0; i < lanes && at + i < count; ++i) x[i] = specials[at + i];
    const V got = apply<V>(ours, x);
    std::memcpy(y, &got, sizeof got);
    for (size_t i = 0; i < lanes && at + i < count; ++i) {
      const float want = f.libc(x[i]);
      const bool exact = x[i] == 0 || std::isinf(x[i]) || std::isnan(x[i]);
      const bool same = (std::isnan(want) && std::isnan(y[i])) || std::memcmp(&want, &y[i], 4) == 0;
      r.glibc_mismatches += exact ? !same : ulp_distance(y[i], want) > 1;
    }
  }
  return r;
}

// "--sweep STEM [LIBTORCH_CPU]": prints "NAME max_ulp worst not_rounded inputs glibc_mismatches
// sleef_max_ulp" (the last -1 without libtorch).
int sweep_main(int argc, char** argv) {
  void* runtime = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  void* torch = argc > 5 ? dlopen(argv[5], RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (!runtime || (argc > 5 && !torch)) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  for (const SweptFunction& f : kSwept) {
    if (std::string(argv[4]) != f.stem) continue;
#ifdef __AVX512F__
    const std::string name = std::string("Sleef_") + f.stem + "f16_u10";
#else
    const std::string name = std::string("Sleef_") + f.stem + "f8_u10";
#endif
    void* ours = dlsym(runtime, (argv[2] + name).c_str());
    void* theirs = torch ? dlsym(torch, name.c_str()) : nullptr;
    if (!ours || (torch && !theirs)) {
      std::fprintf(stderr, "%s: missing\n", name.c_str());
      return 2;
    }
#ifdef __AVX512F__
    const SweepResult r = sweep<__m512>(ours, theirs, f);
#else
    const SweepResult r = sweep<__m256>(ours, theirs, f);
#endif
    std::printf("%s %.17g %.9g %llu %llu %d %.17g\n", name.c_str(), r.max_ulp, r.worst,
                static_cast<unsigned long long>(r.not_rounded), static_cast<unsigned long long>(r.inputs),
                r.glibc_mismatches, r.sleef_max_ulp);
    return 0;
  }
  std::fprintf(stderr, "%s: not one of the swept functions (exp, tanh, erf)\n", argv[4]);
  return 2;
}

int main(int argc, char** argv) {
  if ((argc == 5 || argc == 6) && std::string(argv[3]) == "--sweep") return sweep_main(argc, argv);
  if (argc < 4) {
    std::fprintf(stderr, "usage: vector_math_probe RUNTIME PREFIX LIBTORCH_CPU NAME:ARITY...\n");
    return 2;
  }
  void* runtime = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  void* torch = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
  if (!runtime || !torch) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  for (int i = 4; i < argc; ++i) {
    const std::string spec = argv[i];
    const std::string name = spec.substr(0, spec.find(':'));
    const int arity = std::stoi(spec.substr(spec.find(':') + 1));
    void* ours = dlsym(runtime, (argv[2] + name).c_str());
    void* theirs = dlsym(torch, name.c_str());
    if (!ours || !theirs) {
      std::fprintf(stderr, "%s: missing in %s\n", name.c_str(), ours ? "libtorch_cpu" : "the runtime");
      return 2;
    }
    // The width is the name's: Sleef_<stem><f16|d8|f8|d4>[_<accuracy>].
    const std::string stem = name.substr(0, name.find('_', 6));
    auto ends = [&stem](const char* w) { return stem.size() > 3 && stem.compare(stem.size() - std::strlen(w), std::string::npos, w) == 0; };
    Result r;
#ifdef __AVX512F__
    if (ends("f16")) compare<__m512, float>(ours, theirs, arity, r);
    else if (ends("d8")) compare<__m512d, double>(ours, theirs, arity, r);
#else
    if (ends("f8")) compare<__m256, float>(ours, theirs, arity, r);
    else if (ends("d4")) compare<__m256d, double>(ours, theirs, arity, r);
#endif
    else {
      std::fprintf(stderr, "%s: not of this build's width\n", name.c_str());
      return 2;
    }
    std::printf("%s %.17g %.17g %.17g %d %d\n", name.c_str(), r.max_ulp, r.worst_a, r.worst_b, r.nan_mismatches,
                r.their_overflows);
  }
  return 0;
}
