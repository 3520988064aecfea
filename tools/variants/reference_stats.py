#!/usr/bin/env python3
"""Reference p-values of Wilcoxon's signed-rank test from SciPy, for the lab's tests.

    /path/to/venv-with-scipy/bin/python tools/variants/reference_stats.py \
        > std-adapter/eval/tests/data/wilcoxon_scipy.csv

Each row: the differences (space separated) and SciPy's two-sided p-value with zeros dropped
(`zero_method="wilcox"`): the exact distribution for untied samples, and for tied ones a
permutation test that enumerates every sign assignment (n_resamples above 2^n), which is the
exact distribution given the mid-ranks.
"""
import math

import numpy as np
import scipy
from scipy import stats

CASES = [
    [0.5, -1.2, 2.3, 0.7, -0.1, 1.9, 3.3, -0.4, 1.1, 0.2],
    [-0.31, -1.2, -2.5, -0.7, 0.05, -1.9, -3.3, -0.4, -1.1, -0.2, -0.6, -0.9],
    [1.0, 2.0, 3.0],
    [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0],
    [0.1 * k * (-1) ** k for k in range(1, 21)],
    [-(k ** 0.5) for k in range(1, 21)],
    [-(k ** 0.5) for k in range(1, 20)] + [0.25],
    # ties and zeros
    [0.0, 0.0, 1.0, -1.0, 2.0, 2.0, -2.0, 3.0, 0.0, 4.0],
    [0.0, -0.5, -0.5, -0.5, 1.5, -2.0, -2.0, 0.0, -3.0, -1.5, -0.7, 0.7],
    [-1.0] * 8 + [1.0] * 2,
    [-2.0, -2.0, -2.0, -1.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, -4.0, -4.0,
     -0.5, -0.5, -6.0, -7.0],
]


def p_value(d):
    d = np.asarray(d, dtype=float)
    nz = d[d != 0]
    tied = len(np.unique(np.abs(nz))) < len(nz)
    if not tied and len(nz) == len(d):
        return stats.wilcoxon(d, zero_method="wilcox", method="exact").pvalue
    perm = stats.PermutationMethod(n_resamples=2 ** (len(nz) + 1))
    return stats.wilcoxon(nz, method=perm).pvalue


print(f"# scipy {scipy.__version__}: differences;two-sided p")
for d in CASES:
    print(" ".join(repr(float(x)) for x in d) + ";" + repr(float(p_value(d))))
