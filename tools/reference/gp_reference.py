#!/usr/bin/env python3
"""High-precision reference values for Gaussian-process regression.

This script is an independent reference for the Rust GP core. It generates
test cases from a fixed seed, evaluates them with mpmath at 40 significant
digits, checks the analytic gradients against central finite differences, and
writes

    tests/fixtures/gp_cases.json        (all cases)
    tests/fixtures/gp_cli_case/*.csv    (one SE case for the CLI end-to-end test)

Run from the repository root:

    python3 tools/reference/gp_reference.py

Only the random inputs come from Python's `random` module (seeded per case);
every computation is done in mpmath. All inputs (points, targets,
hyperparameters) are IEEE doubles, converted exactly to mpmath numbers, so
a consumer reading the JSON sees exactly the inputs that were used. Outputs
are rounded to the nearest double.

Conventions
-----------
Inputs x in R^d (here in [0,1]^d); per-dimension lengthscales l_i,
outputscale s, constant prior mean c, Gaussian noise variance v.

    q(x, z) = sum_i ((x_i - z_i) / l_i)^2,   r = sqrt(q)
    se:        k(x, z) = s * exp(-q / 2)
    matern52:  k(x, z) = s * (1 + sqrt(5) r + 5 q / 3) * exp(-sqrt(5) r)

    K_y = K(X, X) + v I,   a = K_y^{-1} (y - c)   (Cholesky, K_y = L L^T)

Posterior at a test point x* with k* = K(X, x*):

    mean(x*)   = c + k*^T a
    var(x*)    = k(x*, x*) - k*^T K_y^{-1} k*        (latent: noise NOT added)
    cov(a, b)  = k(a, b) - k_a^T K_y^{-1} k_b
    std(x*)    = sqrt(var(x*))

Log marginal likelihood:

    LML = -1/2 (y - c)^T a - 1/2 log det K_y - n/2 log(2 pi),
    log det K_y = 2 sum_i log L_ii

LML gradient w.r.t. theta in {log l_i, log s, log v} and w.r.t. c (not logged):

    dLML/dtheta = 1/2 tr((a a^T - K_y^{-1}) dK_y/dtheta)
    dK/dlog l_i = -2 q_i dk/dq,  q_i = ((x_i - z_i) / l_i)^2
    dK/dlog s   = K(X, X)
    dK_y/dlog v = v I
    dLML/dc     = sum_j a_j

with dk/dq = -k / 2 (se) and -(5/6) s (1 + sqrt(5) r) exp(-sqrt(5) r) (matern52).

Gradients w.r.t. the test input x*:

    dk(x*, z)/dx*_j = 2 (x*_j - z_j) / l_j^2 * dk/dq
    d mean / dx*_j  = sum_i a_i dk(x*, x_i)/dx*_j
    d var  / dx*_j  = -2 sum_i (K_y^{-1} k*)_i dk(x*, x_i)/dx*_j
    d std  / dx*_j  = (d var / dx*_j) / (2 std)

`well_conditioned` is cond_2(K_y) = lambda_max / lambda_min < 1e6.
"""

import json
import math
import random
import sys
import time
from pathlib import Path

import mpmath
from mpmath import mp

mp.dps = 40

SEED = 20250611
REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = REPO_ROOT / "tests" / "fixtures"

FD_STEP = mp.mpf(10) ** -12  # central-difference step, in theta / x units
FD_RTOL = 1e-15              # required agreement of analytic vs FD gradients
COND_LIMIT = 1e6             # well_conditioned <=> cond_2(K_y) < COND_LIMIT
NOISE_LEVELS = [1e-6, 1e-4, 1e-2, 0.1]


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------

def kernel_terms(kind, x, z, ls, s):
    """Return (k(x, z), dk/dq, [(x_i - z_i) / l_i]) for the given kernel."""
    scaled = [(xi - zi) / li for xi, zi, li in zip(x, z, ls)]
    q = mp.fsum(t * t for t in scaled)
    if kind == "se":
        k = s * mp.exp(-q / 2)
        dk_dq = -k / 2
    elif kind == "matern52":
        sr = mp.sqrt(5 * q)  # sqrt(5) * r
        e = mp.exp(-sr)
        k = s * (1 + sr + 5 * q / 3) * e
        dk_dq = -mp.mpf(5) / 6 * s * (1 + sr) * e
    else:
        raise ValueError(f"unknown kernel {kind!r}")
    return k, dk_dq, scaled


def kernel(kind, x, z, ls, s):
    return kernel_terms(kind, x, z, ls, s)[0]


def kernel_grad_x(kind, x, z, ls, s):
    """d k(x, z) / d x  (d-vector)."""
    _, dk_dq, scaled = kernel_terms(kind, x, z, ls, s)
    return [2 * t / li * dk_dq for t, li in zip(scaled, ls)]


def kernel_grad_log_ls(kind, x, z, ls, s):
    """d k(x, z) / d log l_i  (d-vector)."""
    _, dk_dq, scaled = kernel_terms(kind, x, z, ls, s)
    return [-2 * t * t * dk_dq for t in scaled]


# ---------------------------------------------------------------------------
# Linear algebra helpers (vectors are Python lists of mpf)
# ---------------------------------------------------------------------------

def dot(u, w):
    return mp.fsum(a * b for a, b in zip(u, w))


def forward_sub(L, b):
    """Solve L y = b for lower-triangular L."""
    n = L.rows
    y = [mp.zero] * n
    for i in range(n):
        y[i] = (b[i] - mp.fsum(L[i, j] * y[j] for j in range(i))) / L[i, i]
    return y


def backward_sub_t(L, y):
    """Solve L^T x = y for lower-triangular L."""
    n = L.rows
    x = [mp.zero] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - mp.fsum(L[j, i] * x[j] for j in range(i + 1, n))) / L[i, i]
    return x


def chol_solve(L, b):
    """Solve (L L^T) x = b."""
    return backward_sub_t(L, forward_sub(L, b))


# ---------------------------------------------------------------------------
# Gaussian process
# ---------------------------------------------------------------------------

class GaussianProcess:
    """Exact GP regression posterior for fixed hyperparameters (all mpf)."""

    def __init__(self, kind, X, y, ls, s, v, c):
        self.kind, self.X, self.y = kind, X, y
        self.ls, self.s, self.v, self.c = ls, s, v, c
        n = len(X)
        self.K = mp.matrix(n, n)
        for i in range(n):
            for j in range(i + 1):
                self.K[i, j] = self.K[j, i] = kernel(kind, X[i], X[j], ls, s)
        self.Ky = self.K.copy()
        for i in range(n):
            self.Ky[i, i] += v
        self.L = mp.cholesky(self.Ky)
        self.resid = [yi - c for yi in y]
        self.alpha = chol_solve(self.L, self.resid)

    @classmethod
    def from_theta(cls, kind, X, y, theta):
        """theta = [log l_1, ..., log l_d, log s, log v, c]."""
        d = len(X[0])
        ls = [mp.exp(t) for t in theta[:d]]
        return cls(kind, X, y, ls, mp.exp(theta[d]), mp.exp(theta[d + 1]), theta[d + 2])

    def theta(self):
        return [mp.log(l) for l in self.ls] + [mp.log(self.s), mp.log(self.v), self.c]

    # -- marginal likelihood -------------------------------------------------

    def lml(self):
        n = len(self.X)
        logdet = 2 * mp.fsum(mp.log(self.L[i, i]) for i in range(n))
        return -dot(self.resid, self.alpha) / 2 - logdet / 2 - n * mp.log(2 * mp.pi) / 2

    def ky_inverse(self):
        n = len(self.X)
        cols = [chol_solve(self.L, [mp.one if i == j else mp.zero for i in range(n)])
                for j in range(n)]
        return [[cols[j][i] for j in range(n)] for i in range(n)]

    def lml_grad(self):
        """Analytic gradient, ordered like theta()."""
        n, d = len(self.X), len(self.ls)
        a, kinv = self.alpha, self.ky_inverse()
        W = [[a[i] * a[j] - kinv[i][j] for j in range(n)] for i in range(n)]

        def half_trace(dK):  # 1/2 tr(W dK) for symmetric W, dK
            return mp.fsum(W[i][j] * dK[i][j] for i in range(n) for j in range(n)) / 2

        dK_dls = [[None] * n for _ in range(n)]
        for i in range(n):
            for j in range(i + 1):
                dK_dls[i][j] = dK_dls[j][i] = kernel_grad_log_ls(
                    self.kind, self.X[i], self.X[j], self.ls, self.s)
        grad = [half_trace([[dK_dls[i][j][p] for j in range(n)] for i in range(n)])
                for p in range(d)]
        grad.append(half_trace([[self.K[i, j] for j in range(n)] for i in range(n)]))
        grad.append(self.v * mp.fsum(W[i][i] for i in range(n)) / 2)
        grad.append(mp.fsum(a))
        return grad

    def condition_number(self):
        eig = mp.eigsy(self.Ky, eigvals_only=True)
        return max(eig) / min(eig)

    # -- prediction ----------------------------------------------------------

    def cross(self, x):
        return [kernel(self.kind, x, xi, self.ls, self.s) for xi in self.X]

    def predict(self, x):
        """(mean, latent variance) at x."""
        kx = self.cross(x)
        w = forward_sub(self.L, kx)
        return self.c + dot(kx, self.alpha), kernel(self.kind, x, x, self.ls, self.s) - dot(w, w)

    def posterior_cov(self, xs):
        ws = [forward_sub(self.L, self.cross(x)) for x in xs]
        return [[kernel(self.kind, xa, xb, self.ls, self.s) - dot(wa, wb)
                 for xb, wb in zip(xs, ws)] for xa, wa in zip(xs, ws)]

    def predict_grad(self, x):
        """(d mean/dx, d std/dx) at x."""
        kx = self.cross(x)
        b = chol_solve(self.L, kx)
        _, var = self.predict(x)
        std = mp.sqrt(var)
        dk = [kernel_grad_x(self.kind, x, xi, self.ls, self.s) for xi in self.X]
        d = len(x)
        g_mean = [mp.fsum(self.alpha[i] * dk[i][j] for i in range(len(self.X))) for j in range(d)]
        g_var = [-2 * mp.fsum(b[i] * dk[i][j] for i in range(len(self.X))) for j in range(d)]
        return g_mean, [gv / (2 * std) for gv in g_var]


# ---------------------------------------------------------------------------
# Finite-difference verification
# ---------------------------------------------------------------------------

def central_diff(f, x0, i, h=FD_STEP):
    xp, xm = list(x0), list(x0)
    xp[i] += h
    xm[i] -= h
    return (f(xp) - f(xm)) / (2 * h)


def max_rel_err(analytic, numeric):
    """Largest |analytic_i - numeric_i| / max(|analytic_i|, 1e-12 * ||analytic||_inf).

    The floor keeps components that are (numerically) zero, e.g. the gradient
    of the std exactly at a training point in 1-D, from dividing by ~0.
    """
    scale = max(abs(g) for g in analytic)
    if scale == 0:
        return float(max(abs(g) for g in numeric))
    return float(max(abs(g - f) / max(abs(g), scale * mp.mpf(10) ** -12)
                     for g, f in zip(analytic, numeric)))


def check_lml_grad(gp, grad):
    theta = gp.theta()
    lml = lambda t: GaussianProcess.from_theta(gp.kind, gp.X, gp.y, t).lml()
    return max_rel_err(grad, [central_diff(lml, theta, i) for i in range(len(theta))])


def check_input_grads(gp, x, g_mean, g_std):
    mean = lambda z: gp.predict(z)[0]
    std = lambda z: mp.sqrt(gp.predict(z)[1])
    fd_mean = [central_diff(mean, x, j) for j in range(len(x))]
    fd_std = [central_diff(std, x, j) for j in range(len(x))]
    return max_rel_err(g_mean, fd_mean), max_rel_err(g_std, fd_std)


# ---------------------------------------------------------------------------
# Case generation (inputs are Python floats, i.e. IEEE doubles)
# ---------------------------------------------------------------------------

def smooth_targets(rng, X, noise_sd=0.01):
    """Sum of three random sinusoids, scaled to max |f| = 1, plus small noise."""
    d = len(X[0])
    waves = [([rng.uniform(-1.5, 1.5) for _ in range(d)], rng.uniform(0, 2 * math.pi),
              rng.uniform(0.3, 1.0)) for _ in range(3)]
    f = [sum(amp * math.sin(2 * math.pi * sum(w * xi for w, xi in zip(ws, x)) + ph)
             for ws, ph, amp in waves) for x in X]
    scale = max(abs(v) for v in f) or 1.0
    return [v / scale + rng.gauss(0.0, noise_sd) for v in f]


def uniform_points(rng, n, d, lo=0.0, hi=1.0):
    return [[rng.uniform(lo, hi) for _ in range(d)] for _ in range(n)]


def make_case(name, kind, d, n, *, noise, n_test=None, lengthscales=None,
              outputscale=None, mean=None, box=(0.0, 1.0), coincide=False):
    """Draw the inputs of one case; unspecified hyperparameters are random."""
    rng = random.Random(f"{SEED}/{name}")
    ls = lengthscales or [round(rng.uniform(0.1, 1.5), 3) for _ in range(d)]
    s = outputscale if outputscale is not None else round(rng.uniform(0.3, 3.0), 3)
    c = mean if mean is not None else round(rng.uniform(-1.0, 1.0), 3)
    train_x = uniform_points(rng, n, d, *box)
    train_y = smooth_targets(rng, train_x)
    test_x = uniform_points(rng, n_test or rng.randint(5, 10), d)
    if coincide:  # put one test point exactly on a training point
        test_x[0] = list(train_x[rng.randrange(n)])
    return dict(name=name, kernel=kind, d=d, lengthscales=ls, outputscale=s,
                noise=noise, mean=c, train_x=train_x, train_y=train_y, test_x=test_x)


def hand_case(kind):
    """1-D, n = 1: K_y = s + v is a scalar, everything can be checked by hand."""
    return dict(name=f"{kind}_d1_n1_hand", kernel=kind, d=1, lengthscales=[0.5],
                outputscale=2.0, noise=0.1, mean=0.25, train_x=[[0.5]], train_y=[0.8],
                test_x=[[0.5], [0.0], [0.25], [0.75], [1.0]])


CLI_CASE = dict(name="cli_se_d3_n20", kind="se", d=3, n=20, noise=1e-4, n_test=10,
                lengthscales=[0.3, 0.5, 0.7], outputscale=1.3, mean=0.2)

# (d, n) grid run for both kernels; noise levels cycle through NOISE_LEVELS.
GRID = [(1, 1), (1, 2), (1, 3), (1, 8), (1, 16),
        (2, 2), (2, 8), (2, 16), (2, 40),
        (3, 3), (3, 16), (3, 40), (3, 64),
        (5, 8), (5, 16), (5, 40), (5, 64)]


def all_case_inputs():
    cases = [hand_case("se"), hand_case("matern52")]
    k = 0
    for kind in ("se", "matern52"):
        for d, n in GRID:
            cases.append(make_case(f"{kind}_d{d}_n{n}", kind, d, n,
                                   noise=NOISE_LEVELS[k % len(NOISE_LEVELS)],
                                   coincide=(k % 3 == 0)))
            k += 1
    # Deliberately ill-conditioned: tiny noise, clustered points, long lengthscale.
    cases.append(make_case("se_d1_n40_illcond", "se", 1, 40, noise=1e-6, lengthscales=[1.5],
                           outputscale=1.0, box=(0.45, 0.55), coincide=True))
    cases.append(make_case("matern52_d1_n16_illcond", "matern52", 1, 16, noise=1e-6,
                           lengthscales=[1.5], outputscale=2.0, box=(0.48, 0.52)))
    cases.append(make_case("se_d2_n40_illcond", "se", 2, 40, noise=1e-6,
                           lengthscales=[1.5, 1.5], outputscale=1.0, box=(0.4, 0.6)))
    cli = dict(CLI_CASE)
    cases.append(make_case(cli.pop("name"), cli.pop("kind"), cli.pop("d"), cli.pop("n"), **cli))
    return cases


# ---------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------

def to_f64(x):
    """Round an mpf to the nearest double."""
    return mpmath.libmp.to_float(mp.mpf(x)._mpf_, rnd="n")


def evaluate(case, fd_stats):
    mpv = lambda v: [mp.mpf(t) for t in v]  # exact: doubles -> mpf
    gp = GaussianProcess(case["kernel"], [mpv(x) for x in case["train_x"]],
                         mpv(case["train_y"]), mpv(case["lengthscales"]),
                         mp.mpf(case["outputscale"]), mp.mpf(case["noise"]),
                         mp.mpf(case["mean"]))
    d = case["d"]
    test_x = [mpv(x) for x in case["test_x"]]

    grad = gp.lml_grad()
    fd_stats["lml_grad"] = max(fd_stats["lml_grad"], check_lml_grad(gp, grad))

    preds = [gp.predict(x) for x in test_x]
    cov = gp.posterior_cov(test_x)
    g_mean, g_std = [], []
    for x in test_x:
        gm, gs = gp.predict_grad(x)
        em, es = check_input_grads(gp, x, gm, gs)
        fd_stats["grad_mean"] = max(fd_stats["grad_mean"], em)
        fd_stats["grad_std"] = max(fd_stats["grad_std"], es)
        g_mean.append(gm)
        g_std.append(gs)

    cond = gp.condition_number()
    f64 = lambda v: [to_f64(t) for t in v]
    out = {k: case[k] for k in ("name", "kernel", "d", "lengthscales", "outputscale",
                                "noise", "mean", "train_x", "train_y", "test_x")}
    out.update(
        pred_mean=f64(m for m, _ in preds),
        pred_var=f64(v for _, v in preds),
        pred_cov=[f64(row) for row in cov],
        grad_mean=[f64(g) for g in g_mean],
        grad_std=[f64(g) for g in g_std],
        lml=to_f64(gp.lml()),
        lml_grad={"log_lengthscales": f64(grad[:d]), "log_outputscale": to_f64(grad[d]),
                  "log_noise": to_f64(grad[d + 1]), "mean": to_f64(grad[d + 2])},
        well_conditioned=bool(cond < COND_LIMIT),
    )
    return out, cond


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------

def to_json(value, indent=0):
    """JSON with one case field per line and number arrays kept on one line."""
    pad = "  " * indent
    if isinstance(value, dict):
        items = [f'{pad}  {json.dumps(k)}: {to_json(v, indent + 1)}' for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        items = [f"{pad}  {to_json(v, indent + 1)}" for v in value]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return json.dumps(value)  # scalars and flat lists; floats use repr


DESCRIPTION = (
    "Reference GP regression values from tools/reference/gp_reference.py (mpmath, 40 digits, "
    "outputs rounded to nearest double). Kernels: se k=s*exp(-r2/2); matern52 "
    "k=s*(1+sqrt5 r+5r^2/3)exp(-sqrt5 r); r2=sum((x_i-z_i)/l_i)^2. K_y=K+noise*I, constant "
    "prior mean. pred_var/pred_cov are latent (noise not added). grad_mean/grad_std are d/dx* "
    "of the posterior mean and sqrt(pred_var). lml_grad is w.r.t. log lengthscales, log "
    "outputscale, log noise and (unlogged) mean. well_conditioned: cond_2(K_y) < 1e6."
)


def write_cli_case(case):
    out_dir = FIXTURES / "gp_cli_case"
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "train.csv", "w") as f:
        f.write("x1,x2,x3,y\n")
        for x, y in zip(case["train_x"], case["train_y"]):
            f.write(",".join(repr(v) for v in [*x, y]) + "\n")
    with open(out_dir / "test.csv", "w") as f:
        f.write("x1,x2,x3\n")
        for x in case["test_x"]:
            f.write(",".join(repr(v) for v in x) + "\n")
    with open(out_dir / "expected_f64.csv", "w") as f:
        f.write("mean,variance\n")
        for m, v in zip(case["pred_mean"], case["pred_var"]):
            f.write(f"{m:.17g},{v:.17g}\n")


def main():
    start = time.perf_counter()
    fd_stats = {"lml_grad": 0.0, "grad_mean": 0.0, "grad_std": 0.0}
    results = []
    for case in all_case_inputs():
        out, cond = evaluate(case, fd_stats)
        results.append(out)
        print(f"{out['name']:28s} n={len(out['train_x']):3d} m={len(out['test_x']):2d} "
              f"cond={mp.nstr(cond, 3):>9s} well_conditioned={out['well_conditioned']}")

    print("max FD relative error: " + ", ".join(f"{k}={v:.2e}" for k, v in fd_stats.items()))
    bad = {k: v for k, v in fd_stats.items() if not v <= FD_RTOL}
    if bad:
        sys.exit(f"analytic gradients disagree with finite differences: {bad}")

    FIXTURES.mkdir(parents=True, exist_ok=True)
    doc = {"description": DESCRIPTION, "cases": results}
    (FIXTURES / "gp_cases.json").write_text(to_json(doc) + "\n")
    write_cli_case(next(c for c in results if c["name"] == CLI_CASE["name"]))
    print(f"wrote {len(results)} cases to {FIXTURES / 'gp_cases.json'} "
          f"in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
