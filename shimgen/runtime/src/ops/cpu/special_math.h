// Scalar special functions of the proxy executor's elementwise table (special_functions.cpp), our own,
// written from the mathematics: recurrences, series, continued fractions, asymptotic expansions
// (DLMF chapters 5, 6, 7, 8, 9, 10, 18, 25) and the C++17 special math functions of <cmath>.
// Everything is computed in double; float32 callers round the result. Accuracy figures are relative
// unless stated, measured against torch's CPU kernels (tests/integration/test_proxy_executor.py).
// Edge values (poles, 0, +-inf, NaN, out-of-domain arguments) follow torch's observed outputs.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace shimgen::rt::special_math {

constexpr double kPi = 3.14159265358979323846264338327950288;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kSqrt1_2 = 0.707106781186547524400844362104849039;
constexpr double kLnSqrt2Pi = 0.918938533204672741780329736405617640;  // ln sqrt(2 pi)
constexpr double kEps = std::numeric_limits<double>::epsilon();

// digamma psi(x): psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series
// ln x - 1/(2x) - sum B_2k / (2k x^2k) (7 terms, remainder < 1e-17); reflection
// psi(x) = psi(1 - x) - pi / tan(pi x) for x < 0 (tan of pi times x's exact offset from the
// nearest integer, tan having period pi).
// ~1e-15 relative, absolute ~4e-16 near the positive root 1.4616. psi(+-0) = -+inf, NaN at
// negative integers and -inf.
inline double digamma(double x) {
  if (x == 0) return std::copysign(kInf, -x);
  if (std::isnan(x) || x == -kInf) return kNaN;
  if (x == kInf) return kInf;
  double result = 0;
  if (x < 0) {
    const double nearest = std::nearbyint(x);
    if (x == nearest) return kNaN;
    result = -kPi / std::tan(kPi * (x - nearest));
    x = 1 - x;
  }
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const double z = 1 / (x * x);
  const double series =
      z *
      (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return result + std::log(x) - 0.5 / x - series;
}

// trigamma psi'(x): psi'(x) = psi'(x + 1) + 1/x^2 up to x >= 10, then the asymptotic series
// 1/x + 1/(2x^2) + sum B_2k / x^(2k+1) (7 terms); reflection psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x)
// for x < 0.5. ~1e-15 relative for x > 0. At the poles (non-positive integers) torch's value is
// pi^2 / sin^2 of the rounded product pi x at the operand's precision: +inf at 0, a large finite value
// at a negative integer (6.6e32 in double, 1.3e15 in float); single selects float's.
inline double trigamma(double x, bool single = false) {
  if (x < 0.5) {
    double s;
    if (single && x == std::floor(x)) s = std::sin(static_cast<float>(kPi) * static_cast<float>(x));
    else s = std::sin(kPi * x);
    return kPi * kPi / (s * s) - trigamma(1 - x);
  }
  if (x == kInf) return 0;
  if (std::isnan(x)) return kNaN;
  double result = 0;
  while (x < 10) {
    result += 1 / (x * x);
    x += 1;
  }
  const double z = 1 / (x * x);
  const double odd =
      z *
      (1.0 / 6 - z * (1.0 / 30 - z * (1.0 / 42 - z * (1.0 / 30 - z * (5.0 / 66 - z * (691.0 / 2730 - z * 7.0 / 6))))));
  return result + (1 + 0.5 / x + odd) / x;
}

// Hurwitz zeta zeta(s, q) = sum_k (q + k)^-s: direct terms until q + k >= max(10, s) (or until the
// rest is negligible), then Euler-Maclaurin: w^(1-s)/(s-1) + w^-s/2 + sum_j B_2j/(2j)! (s)_(2j-1) w^(-s-2j+1),
// stopped once a term is below 1e-17 of the sum. ~2e-15 relative. torch's conventions: s = 1 -> inf,
// s < 1 -> NaN, q a non-positive integer -> inf, q < 0 with non-integer s -> NaN, q = inf -> NaN,
// s = inf -> inf for q < 1, 1 for q = 1, NaN for q > 1.
inline double zeta(double s, double q) {
  if (s == 1) return kInf;
  if (s < 1) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (s != std::floor(s)) return kNaN;
  }
  if (std::isnan(s) || std::isnan(q) || q == kInf) return kNaN;
  if (s == kInf) return q < 1 ? kInf : q == 1 ? 1.0 : kNaN;
  // B_2j / (2j)!, j = 1..12
  static constexpr double kB[] = {1.0 / 6 / 2,
                                  -1.0 / 30 / 24,
                                  1.0 / 42 / 720,
                                  -1.0 / 30 / 40320,
                                  5.0 / 66 / 3628800,
                                  -691.0 / 2730 / 479001600,
                                  7.0 / 6 / 87178291200.0,
                                  -3617.0 / 510 / 20922789888000.0,
                                  43867.0 / 798 / 6402373705728000.0,
                                  -174611.0 / 330 / 2432902008176640000.0,
                                  854513.0 / 138 / 1.1240007277776077e21,
                                  -236364091.0 / 2730 / 6.204484017332394e23};
  const double start = std::fmax(10.0, s);
  double sum = 0;
  double w = q;
  for (int k = 0; w < start && k < 100000; ++k) {
    const double term = std::pow(w, -s);
    sum += term;
    w += 1;
    // the rest is below term (1 + w/(s-1)): done once that is negligible
    if (k > 0 && std::fabs(term) * (1 + w / (s - 1)) <= 1e-17 * std::fabs(sum)) return sum;
  }
  const double ws = std::pow(w, -s);
  sum += w * ws / (s - 1) + 0.5 * ws;
  double factor = s * ws / w;  // (s)_(2j-1) w^(-s-2j+1) for j = 1
  for (int j = 0; j < 12; ++j) {
    const double term = kB[j] * factor;
    sum += term;
    if (std::fabs(term) <= 1e-17 * std::fabs(sum)) break;
    factor *= (s + 2 * j + 1) * (s + 2 * j + 2) / (w * w);
  }
  return sum;
}

// polygamma psi^(n)(x): digamma for n = 0, trigamma for n = 1, (-1)^(n+1) n! zeta(n + 1, x) above.
inline double polygamma(int64_t n, double x, bool single = false) {
  if (n == 0) return digamma(x);
  if (n == 1) return trigamma(x, single);
  const double sign = n % 2 == 0 ? -1.0 : 1.0;
  return sign * std::tgamma(static_cast<double>(n) + 1) * zeta(static_cast<double>(n) + 1, x);
}

// ndtr Phi(x) = erfc(-x / sqrt 2) / 2: relative accuracy in both tails' small side (~1e-15).
inline double ndtr(double x) { return 0.5 * std::erfc(-x * kSqrt1_2); }

// log_ndtr ln Phi(x): log1p(-erfc(x/sqrt2)/2) for x > 0, ln(erfc(-x/sqrt2)/2) down to x = -20, then
// the asymptotic series ln Phi(x) = -x^2/2 - ln(-x) - ln sqrt(2 pi) + ln sum_k (-1)^k (2k-1)!! / x^2k.
// ~1e-15 relative.
inline double log_ndtr(double x) {
  if (std::isnan(x)) return kNaN;
  if (x > 0) return std::log1p(-0.5 * std::erfc(x * kSqrt1_2));
  if (x > -20) return std::log(0.5 * std::erfc(-x * kSqrt1_2));
  if (x == -kInf) return -kInf;
  const double z = 1 / (x * x);
  double term = 1, sum = 1;
  for (int k = 1; k < 30; ++k) {
    term *= -(2 * k - 1) * z;
    sum += term;
    if (std::fabs(term) < 1e-17) break;
  }
  return -0.5 * x * x - std::log(-x) - kLnSqrt2Pi + std::log(sum);
}

// ndtri Phi^-1(p): Abramowitz & Stegun 26.2.23 as the starting value (|error| < 4.5e-4), then Halley
// steps on Phi(x) - p; the centre (0.25 <= p <= 0.75) solves erf(x/sqrt2)/2 = p - 1/2 (exact
// difference), the lower tail erfc(-x/sqrt2)/2 = p, the upper tail x = -ndtri(1 - p) (1 - p exact).
// ~1e-15 relative. 0 -> -inf, 1 -> inf, outside [0, 1] -> NaN.
inline double ndtri(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return kNaN;
  if (p == 0) return -kInf;
  if (p == 1) return kInf;
  const double kSqrt2Pi = 2.506628274631000502415765284811045253;
  if (p >= 0.25 && p <= 0.75) {
    const double d = p - 0.5;
    double x = kSqrt2Pi * d;
    for (int i = 0; i < 50; ++i) {
      const double density = std::exp(-0.5 * x * x) / kSqrt2Pi;
      const double r = (0.5 * std::erf(x * kSqrt1_2) - d) / density;
      const double step = r / (1 + 0.5 * x * r);
      x -= step;
      if (std::fabs(step) <= 1e-16 * std::fabs(x)) break;
    }
    return x;
  }
  const bool upper = p > 0.5;
  const double tail = upper ? 1 - p : p;
  const double t = std::sqrt(-2 * std::log(tail));
  double x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
  for (int i = 0; i < 50; ++i) {
    const double log_density = -0.5 * x * x - kLnSqrt2Pi;
    // (Phi(x) - tail) / phi(x), formed as a ratio of exponentials so deep tails do not underflow first
    const double r = (0.5 * std::erfc(-x * kSqrt1_2) - tail) * std::exp(-log_density);
    const double step = r / (1 + 0.5 * x * r);
    x -= step;
    if (std::fabs(step) <= 1e-16 * std::fabs(x)) break;
  }
  return upper ? -x : x;
}

// The large-argument expansion of the exponentially scaled modified Bessel functions (DLMF 10.40.1,
// 10.40.2): sqrt(2 pi x) e^-x I_nu(x) = sum_k (-1)^k a_k(nu) / x^k and
// sqrt(2x/pi) e^x K_nu(x) = sum_k a_k(nu) / x^k, a_k(nu) = prod_{j<=k} (4 nu^2 - (2j-1)^2) / (k! 8^k).
// Summed until the terms stop shrinking or fall below 1e-17 of the sum; for x >= 25 that is ~1e-16.
inline double bessel_asymptotic_sum(double nu, double x, double sign) {
  const double mu = 4 * nu * nu;
  double term = 1, sum = 1;
  for (int k = 1; k < 60; ++k) {
    const double next = term * sign * (mu - (2 * k - 1) * (2 * k - 1)) / (k * 8 * x);
    if (std::fabs(next) >= std::fabs(term)) break;
    term = next;
    sum += term;
    if (std::fabs(term) <= 1e-17 * std::fabs(sum)) break;
  }
  return sum;
}

// i0e(x) = e^-|x| I_0(x): std::cyl_bessel_i(0, |x|) e^-|x| for |x| < 25, the asymptotic expansion
// beyond. ~1e-15 relative.
inline double i0e(double x) {
  if (std::isnan(x)) return kNaN;
  const double ax = std::fabs(x);
  if (ax < 25) return std::cyl_bessel_i(0.0, ax) * std::exp(-ax);
  if (ax == kInf) return 0;
  return bessel_asymptotic_sum(0, ax, -1) / std::sqrt(2 * kPi * ax);
}

// i1e(x) = e^-|x| I_1(x), odd: as i0e with order 1. ~1e-15 relative.
inline double i1e(double x) {
  if (std::isnan(x)) return kNaN;
  const double ax = std::fabs(x);
  double r;
  if (ax < 25) r = std::cyl_bessel_i(1.0, ax) * std::exp(-ax);
  else if (ax == kInf) r = 0;
  else r = bessel_asymptotic_sum(1, ax, -1) / std::sqrt(2 * kPi * ax);
  return x < 0 ? -r : r;
}

// K_nu(x) e^x for nu = 0, 1: std::cyl_bessel_k(nu, x) e^x for x < 25, the asymptotic expansion
// sqrt(pi/(2x)) sum_k a_k(nu)/x^k beyond. ~1e-15 relative. x = 0 -> inf, x < 0 -> NaN, inf -> 0.
inline double scaled_bessel_k(double nu, double x) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInf;
  if (x == kInf) return 0;
  if (x < 25) return std::cyl_bessel_k(nu, x) * std::exp(x);
  return bessel_asymptotic_sum(nu, x, 1) * std::sqrt(kPi / (2 * x));
}

// K_nu(x) for nu = 0, 1: std::cyl_bessel_k below 25, the scaled expansion times e^-x above.
inline double bessel_k(double nu, double x) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInf;
  if (x < 25) return std::cyl_bessel_k(nu, x);
  if (x > 800) return 0;
  return scaled_bessel_k(nu, x) * std::exp(-x);
}

// Airy Ai(x) (DLMF 9.4.1, 9.6.6, 9.6.7): the Maclaurin series Ai(0) f(x) + Ai'(0) g(x) for |x| <= 1,
// (1/pi) sqrt(x/3) K_1/3(zeta) above, (sqrt(-x)/2) (J_1/3(zeta) - Y_1/3(zeta)/sqrt3) below,
// zeta = (2/3)|x|^(3/2). ~1e-14 relative away from the zeros of Ai (absolute there). +-inf -> NaN
// (torch's convention), 0 once Ai underflows.
inline double airy_ai(double x) {
  if (std::isnan(x) || std::isinf(x)) return kNaN;
  const double kAi0 = 0.355028053887817239260063186004183176;
  const double kAip0 = -0.258819403792806798405183560189203963;
  if (std::fabs(x) <= 1) {
    const double x3 = x * x * x;
    double f = 1, g = x, tf = 1, tg = x;
    for (int k = 1; k < 40; ++k) {
      tf *= x3 / ((3.0 * k - 1) * (3.0 * k));
      tg *= x3 / ((3.0 * k) * (3.0 * k + 1));
      f += tf;
      g += tg;
      if (std::fabs(tf) + std::fabs(tg) < 1e-18) break;
    }
    return kAi0 * f + kAip0 * g;
  }
  const double ax = std::fabs(x);
  const double z = 2.0 / 3.0 * ax * std::sqrt(ax);
  if (x > 0) {
    if (z > 740) return 0;
    return std::sqrt(x / 3) / kPi * std::cyl_bessel_k(1.0 / 3.0, z);
  }
  return 0.5 * std::sqrt(ax) * (std::cyl_bessel_j(1.0 / 3.0, z) - std::cyl_neumann(1.0 / 3.0, z) / std::sqrt(3.0));
}

// spherical Bessel j_0(x) = sin x / x, its Maclaurin series 1 - x^2/6 + x^4/120 - x^6/5040 for
// |x| < 1e-3. Exact to rounding. +-inf -> 0.
inline double spherical_bessel_j0(double x) {
  if (std::isinf(x)) return 0;
  if (std::fabs(x) < 1e-3) {
    const double z = x * x;
    return 1 - z / 6 * (1 - z / 20 * (1 - z / 42));
  }
  return std::sin(x) / x;
}

// Regularized incomplete gamma (DLMF 8.2.4, 8.7.1, 8.9.2): the prefactor x^a e^-x / Gamma(a), in
// logarithms through Stirling's series for a >= 10 (its large terms cancelled analytically); the
// series P = prefactor/a sum_n x^n / ((a+1)...(a+n)) for x < a + 1, the continued fraction for Q
// (modified Lentz) otherwise; the other one as the complement. ~1e-14 relative (~1e-12 for
// a, x ~ 1e4, where the exponent's rounding dominates).
inline double gamma_prefactor(double a, double x) {
  if (a < 10) return std::exp(a * std::log(x) - x - std::lgamma(a));
  const double z = 1 / (a * a);
  const double stirling =
      (1.0 / 12 -
       z * (1.0 / 360 - z * (1.0 / 1260 - z * (1.0 / 1680 - z * (1.0 / 1188 - z * (691.0 / 360360 - z / 156)))))) /
      a;
  const double t = (x - a) / a;
  const double log_ratio = std::fabs(t) < 0.5 ? std::log1p(t) : std::log(x / a);
  return std::sqrt(a / (2 * kPi)) * std::exp(a * (log_ratio - t) - stirling);
}

// ln Gamma(1 + a) for |a| <= 0.2: -gamma a + sum_k (-1)^k zeta(k) a^k / k (DLMF 5.7.3), k <= 27.
inline double lgamma1p_small(double a) {
  static constexpr double kZeta[] = {1.6449340668482264, 1.2020569031595942, 1.0823232337111381, 1.03692775514337,
                                     1.0173430619844492, 1.008349277381923,  1.0040773561979444, 1.0020083928260821,
                                     1.000994575127818,  1.0004941886041194, 1.000246086553308,  1.0001227133475785,
                                     1.0000612481350588, 1.000030588236307,  1.0000152822594086, 1.0000076371976379,
                                     1.000003817293265,  1.0000019082127165, 1.0000009539620338, 1.0000004769329869,
                                     1.0000002384505027, 1.000000119219926,  1.000000059608189,  1.0000000298035034,
                                     1.0000000149015549, 1.0000000074507118};  // zeta(2) .. zeta(27)
  constexpr double kEulerGamma = 0.5772156649015329;
  double sum = 0, power = -a;  // (-a)^k
  for (int k = 2; k <= 27; ++k) {
    power *= -a;
    sum += kZeta[k - 2] * power / k;
  }
  return -kEulerGamma * a + sum;
}

// Both halves (P, Q) of the regularized incomplete gamma for a > 0, 0 < x < inf. For a < 0.2 and
// x < a + 1, Q is formed directly (DLMF 8.7.1 rearranged): with u = x^a / Gamma(1 + a) and
// S = sum_{n>=1} (-x)^n / (n! (a + n)), P = u (1 + a S) and Q = -expm1(a ln x - ln Gamma(1 + a)) - u a S,
// which keeps Q's relative accuracy when a is tiny.
inline void incomplete_gamma(double a, double x, double& p, double& q) {
  if (a < 0.2 && x < a + 1) {
    double term = 1, sum = 0;
    for (int n = 1; n < 200; ++n) {
      term *= -x / n;
      const double add = term / (a + n);
      sum += add;
      if (std::fabs(add) < 1e-17 * std::fabs(sum)) break;
    }
    const double log_u = a * std::log(x) - lgamma1p_small(a);
    const double u = std::exp(log_u);
    p = u * (1 + a * sum);
    q = -std::expm1(log_u) - u * a * sum;
    return;
  }
  const double pref = gamma_prefactor(a, x);
  if (x < a + 1) {
    double term = 1, sum = 1;
    for (int n = 1; n < 100000; ++n) {
      term *= x / (a + n);
      sum += term;
      if (term < 1e-17 * sum) break;
    }
    p = pref / a * sum;
    q = 1 - p;
    return;
  }
  const double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < kEps) break;
  }
  q = pref * h;
  p = 1 - q;
}

// igamma P(a, x), torch's conventions: a < 0 or x < 0 -> NaN; a = 0 -> 1 for x > 0 else NaN; x = 0 -> 0;
// a = inf -> NaN for x = inf else 0; x = inf -> 1.
inline double igamma(double a, double x) {
  if (a < 0 || x < 0) return kNaN;
  if (a == 0) return x > 0 ? 1.0 : kNaN;
  if (x == 0) return 0;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : 0.0;
  if (std::isinf(x)) return 1;
  if (std::isnan(a) || std::isnan(x)) return kNaN;
  double p, q;
  incomplete_gamma(a, x, p, q);
  return p;
}

// igammac Q(a, x) = 1 - P(a, x), the mirror of igamma's conventions.
inline double igammac(double a, double x) {
  if (a < 0 || x < 0) return kNaN;
  if (a == 0) return x > 0 ? 0.0 : kNaN;
  if (x == 0) return 1;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : 1.0;
  if (std::isinf(x)) return 0;
  if (std::isnan(a) || std::isnan(x)) return kNaN;
  double p, q;
  incomplete_gamma(a, x, p, q);
  return q;
}

// The polynomial families (DLMF 18.9.1, 18.9.8, 18.9.13, 18.9.16, 18.9.17), by their three-term
// recurrences p_{k+1} = next(k, p_k, p_{k-1}) from p_0 = 1 and the family's p_1. The degree is n
// truncated toward zero; n < 0, NaN or inf -> 0 (torch's convention). Exact up to the rounding growth
// of the recurrence (~1e-13 relative away from the zeros for degrees <= 25).
template <class Next> double three_term(double n, double p1, Next next) {
  if (!(n >= 0) || std::isinf(n)) return 0;
  const auto degree = static_cast<int64_t>(n);
  if (degree == 0) return 1;
  double prev = 1, cur = p1;
  for (int64_t k = 1; k < degree; ++k) {
    const double following = next(static_cast<double>(k), cur, prev);
    prev = cur;
    cur = following;
  }
  return cur;
}

// Chebyshev T, U, V, W: p_{k+1} = 2x p_k - p_{k-1}, p_1 = x, 2x, 2x - 1, 2x + 1.
inline double chebyshev(double x, double n, double p1) {
  return three_term(n, p1, [x](double, double cur, double prev) { return 2 * x * cur - prev; });
}
inline double chebyshev_t(double x, double n) { return chebyshev(x, n, x); }
inline double chebyshev_u(double x, double n) { return chebyshev(x, n, 2 * x); }
inline double chebyshev_v(double x, double n) { return chebyshev(x, n, 2 * x - 1); }
inline double chebyshev_w(double x, double n) { return chebyshev(x, n, 2 * x + 1); }

// The shifted Chebyshev polynomials: the same families at 2x - 1.
inline double shifted_chebyshev_t(double x, double n) { return chebyshev_t(2 * x - 1, n); }
inline double shifted_chebyshev_u(double x, double n) { return chebyshev_u(2 * x - 1, n); }
inline double shifted_chebyshev_v(double x, double n) { return chebyshev_v(2 * x - 1, n); }
inline double shifted_chebyshev_w(double x, double n) { return chebyshev_w(2 * x - 1, n); }

// Physicists' Hermite H: H_{k+1} = 2x H_k - 2k H_{k-1}, H_1 = 2x.
inline double hermite_h(double x, double n) {
  return three_term(n, 2 * x, [x](double k, double cur, double prev) { return 2 * x * cur - 2 * k * prev; });
}

// Probabilists' Hermite He: He_{k+1} = x He_k - k He_{k-1}, He_1 = x.
inline double hermite_he(double x, double n) {
  return three_term(n, x, [x](double k, double cur, double prev) { return x * cur - k * prev; });
}

// Laguerre L: (k+1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}, L_1 = 1 - x.
inline double laguerre_l(double x, double n) {
  return three_term(n, 1 - x,
                    [x](double k, double cur, double prev) { return ((2 * k + 1 - x) * cur - k * prev) / (k + 1); });
}

// Legendre P: (k+1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}, P_1 = x.
inline double legendre_p(double x, double n) {
  return three_term(n, x,
                    [x](double k, double cur, double prev) { return ((2 * k + 1) * x * cur - k * prev) / (k + 1); });
}

}  // namespace shimgen::rt::special_math
