"""The polynomial coefficients of the runtime's vector float tanh and erf (src/ops/cpu/vector_math.cpp).

    python scripts/fit_vector_math.py

Both functions are evaluated in double and rounded to float once, so each polynomial only needs a
relative (or, where the result is near 1, absolute) error far below float's half ulp (2^-25); every
fit here is a Chebyshev interpolant (near-minimax, no Remez iterations needed at these margins),
computed in 50-digit arithmetic with mpmath and converted to a monomial basis. Printed: each table
as C++ (highest degree first, as the Horner loops read them) and its measured error with the
coefficients rounded to double, on a 4,001-point grid.

- expm1_quotient: (e^r - 1) / r on |r| <= ln(2)/2, degree 7 (the reduced argument of exp/expm1),
  its first two coefficients fixed at 1 and 1/2 and the rest fitted to the remainder divided by r^2;
- erf_small: erf(a) / a as a polynomial in u = a^2, a in [0, 1], degree 7, its constant fixed at
  2/sqrt(pi) (rounded to double) and the rest fitted to the remainder divided by u.

The fixed leading terms make the result at tiny arguments the exact one (to double rounding): a
free fit spreads its error over the interval, the origin included, and a relative error of 2^-35
there misrounds thousands of tiny inputs that sit near a float tie.
- erfc_scaled: e^(a^2) erfc(a) as a polynomial in a - 2.5, a in [1, 4], degree 12 (its error is
  printed as that of erfc itself, e^(-a^2) times it: what 1 - erfc sees).
"""

from __future__ import annotations

import mpmath as mp

mp.mp.dps = 50


def chebyshev_fit(f, lo, hi, degree: int, center) -> list:
    """Coefficients (lowest degree first) of the polynomial in t = x - center through f at the
    degree + 1 Chebyshev nodes of [lo, hi]."""
    lo, hi, center = mp.mpf(lo), mp.mpf(hi), mp.mpf(center)
    n = degree + 1
    xs = [(lo + hi) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (k + mp.mpf(1) / 2) / n) for k in range(n)]
    vandermonde = mp.matrix([[(x - center) ** j for j in range(n)] for x in xs])
    solved = mp.lu_solve(vandermonde, mp.matrix([f(x) for x in xs]))
    return [float(solved[j]) for j in range(n)]  # rounded to double, as the C++ tables hold them


def max_error(f, lo, hi, center, coefficients, scale) -> float:
    """Largest |polynomial - f| * scale(x) over a grid of [lo, hi], the polynomial in double coefficients."""
    worst = mp.mpf(0)
    for i in range(4001):
        x = mp.mpf(lo) + (mp.mpf(hi) - mp.mpf(lo)) * i / 4000
        value = mp.mpf(0)
        for c in reversed(coefficients):
            value = value * (x - center) + mp.mpf(c)
        worst = max(worst, abs(value - f(x)) * scale(x))
    return float(worst)


def show(name: str, comment: str, coefficients: list, error: float) -> None:
    print(f"// {comment}; max error {error:.2g} (2^{float(mp.log(error, 2)):.1f})")
    body = ", ".join(f"{c:.17g}" for c in reversed(coefficients))
    print(f"constexpr double {name}[] = {{{body}}};")


def main() -> int:
    half_ln2 = mp.log(2) / 2
    expm1_q = lambda r: mp.expm1(r) / r if r else mp.mpf(1)  # noqa: E731
    rest = lambda r: (expm1_q(r) - 1 - r / 2) / (r * r) if r else mp.mpf(1) / 6  # noqa: E731
    c = [1.0, 0.5, *chebyshev_fit(rest, -half_ln2, half_ln2, 5, 0)]
    show("kExpm1Quotient", "(e^r - 1) / r, |r| <= ln2/2, relative",
         c, max_error(expm1_q, -half_ln2, half_ln2, 0, c, lambda r: 1 / expm1_q(r)))

    erf_q = lambda u: mp.erf(mp.sqrt(u)) / mp.sqrt(u) if u else 2 / mp.sqrt(mp.pi)  # noqa: E731
    c0 = float(2 / mp.sqrt(mp.pi))
    rest = lambda u: (erf_q(u) - c0) / u if u else -2 / (3 * mp.sqrt(mp.pi))  # noqa: E731
    c = [c0, *chebyshev_fit(rest, 0, 1, 6, 0)]
    show("kErfSmall", "erf(a) / a in u = a^2, a in [0, 1], relative", c,
         max_error(erf_q, 0, 1, 0, c, lambda u: 1 / erf_q(u)))

    erfcx = lambda a: mp.erfc(a) * mp.exp(a * a)  # noqa: E731
    c = chebyshev_fit(erfcx, 1, 4, 12, 2.5)
    show("kErfcScaled", "e^(a^2) erfc(a) in a - 2.5, a in [1, 4], erfc's absolute", c,
         max_error(erfcx, 1, 4, 2.5, c, lambda a: mp.exp(-a * a)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
