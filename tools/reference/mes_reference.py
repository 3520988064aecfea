#!/usr/bin/env python3
"""High-precision references for max-value entropy search (MES), printed as Rust tuples.

MES of a noiseless observation at a point with posterior N(mean, std^2), given samples y*_k of
the maximum (Wang & Jegelka 2017; BoTorch's qMaxValueEntropy without noise):

    alpha = (1/K) sum_k [ g_k phi(g_k) / (2 Phi(g_k)) - ln Phi(g_k) ],  g_k = (y*_k - mean)/std.

Computed with mpmath at 60 digits from the definition (no asymptotic forms), so it is an
independent reference for core/src/special/entropy.rs. Each g_k is formed in f64 first, as the
Rust code forms it, so the reference measures the function's error, not the rounding of its
arguments. Run from the repository root:

    python3 tools/reference/mes_reference.py

and paste the output into core/src/special/tests.rs (`mes_matches_mpmath`).
"""
from mpmath import mp, mpf, npdf, ncdf, log, log1p

mp.dps = 60

TERMS = [-1e6, -1e3, -300.0, -40.0, -37.5, -30.0, -8.0, -3.0, -1.0, -1e-8, 0.0, 1e-8, 0.5,
         1.0, 3.0, 8.0, 20.0, 38.0, 1e3]

CASES = [
    # (mean, std, max values)
    (0.0, 1.0, [1.0, 2.0, 0.5]),
    (1.5, 0.3, [1.2, 1.6, 2.5, 3.0]),
    (-2.0, 1e-3, [-1.999, -2.5]),
    (10.0, 2.0, [100.0]),
    (0.0, 1e-6, [1e-7, 3e-6]),
]


def term(g):
    g = mpf(g)
    # For g > 0, ln Phi(g) = ln(1 - Phi(-g)) through log1p: 1 - Phi(-g) itself would round to 1
    # at any fixed working precision once Phi(-g) < 10^-dps.
    log_cdf = log1p(-ncdf(-g)) if g > 0 else log(ncdf(g))
    return g * npdf(g) / (2 * ncdf(g)) - log_cdf


def main():
    print("// mes_term: (gamma, reference)")
    for g in TERMS:
        print(f"    ({g!r}, {mp.nstr(term(g), 20)}),")
    print("// max_value_entropy: (mean, std, max values, reference)")
    for mean, std, ys in CASES:
        value = sum(term((y - mean) / std) for y in ys) / len(ys)
        print(f"    ({float(mean)!r}, {float(std)!r}, &{[float(y) for y in ys]!r}, "
              f"{mp.nstr(value, 20)}),")


if __name__ == "__main__":
    main()
