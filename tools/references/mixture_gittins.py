#!/usr/bin/env python3
"""Reference values for core's `mixture_gittins_index` (issue 20), computed with mpmath at 60
digits: the g with (1/S) sum_s EI(mu_s, sigma_s; g) = price, found by bisection on the exact
EI = sigma*(phi(u) + u*Phi(u)), u = (mu - g)/sigma (or max(mu - g, 0) for sigma = 0), and the
sensitivities dg/dmu_s = Phi(u_s)/sum Phi, dg/dsigma_s = phi(u_s)/sum Phi.

    python3 tools/references/mixture_gittins.py   # prints the Rust table in core/src/special/tests.rs
"""
import mpmath as mp

mp.mp.dps = 60


def ei(mu, sd, g):
    if sd == 0:
        return max(mu - g, mp.mpf(0))
    u = (mu - g) / sd
    return sd * (mp.npdf(u) + u * mp.ncdf(u))


def root(mus, sds, price):
    f = lambda g: sum(ei(m, s, g) for m, s in zip(mus, sds)) / len(mus) - price
    lo, hi = min(mus) - price - 100, max(mus) + 100 * max(sds) + 10
    while f(hi) > 0:
        hi += 100
    for _ in range(400):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


CASES = [
    # (means, stds, log10 of the price)
    ([0.3, -0.2, 1.1, 0.05], [0.5, 0.8, 0.2, 1.3], -2),
    ([0.3, -0.2, 1.1, 0.05], [0.5, 0.8, 0.2, 1.3], 0),
    ([0.3, -0.2, 1.1, 0.05], [0.5, 0.8, 0.2, 1.3], -12),
    ([0.0, 0.0], [1.0, 1e-3], -40),
    ([2.0, -1.0, 0.5], [0.0, 0.3, 0.01], -3),
    ([5.0, 4.0], [0.1, 0.1], 1),
]

for mus, sds, lp in CASES:
    mus_m = [mp.mpf(repr(m)) for m in mus]
    sds_m = [mp.mpf(repr(s)) for s in sds]
    price = mp.mpf(10) ** lp
    g = root(mus_m, sds_m, price)
    cdfs, pdfs = [], []
    for m, s in zip(mus_m, sds_m):
        if s == 0:
            cdfs.append(mp.mpf(1) if m > g else mp.mpf(0))
            pdfs.append(mp.mpf(0))
        else:
            u = (m - g) / s
            cdfs.append(mp.ncdf(u))
            pdfs.append(mp.npdf(u))
    tot = sum(cdfs)
    fmt = lambda v: '0.0' if abs(v) < mp.mpf('1e-300') else mp.nstr(v, 20, min_fixed=-3, max_fixed=3)
    print(f"    (&{mus}, &{sds}, {lp}, {mp.nstr(g, 20)},")
    print(f"     &[{', '.join(fmt(c / tot) for c in cdfs)}],")
    print(f"     &[{', '.join(fmt(p / tot) for p in pdfs)}]),")
