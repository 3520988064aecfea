"""costbo's ask from Python against BoTorch's LogEI candidate generation, in one process, on
the same data: paper 002's iteration at d = 4, 8, 16 and n = 50, 100, 200
(docs/performance.md, "The Python package against BoTorch").

Data: n uniform points of the negated Ackley function on [-1, 1]^d (scaled to the unit cube),
outputs standardised; f64 throughout. Each cell times, as median CPU seconds
(`time.process_time`, every thread counted) of `--repeats` runs:

- costbo ask: `Optimizer.ask()` of a "log-ei" optimizer (Matérn-5/2, fixed hyperparameters,
  noise 1e-4) holding the n points, restored from JSON before each timed ask; its inner
  optimiser scores 200·d quasi-random points (`[inner] pool` = 200·d/16: a set of every
  variable gets 16 times the pool) and refines the best 8 (the most it refines) by up to 50
  evaluations each.
- costbo fit: `GP.fit` (Matérn-5/2 ARD, maximum likelihood, 1 start of up to 100 likelihood
  evaluations) from lengthscale 0.5: a cold fit, what BoTorch's paper iteration does.
- costbo warm fit: the same fit of the n points started from the hyperparameters fitted to the
  first n - 1 (the previous iteration's fit): what a refitting costbo loop adds to each
  iteration.
- BoTorch acq (matched): `optimize_acqf` of LogEI on a SingleTaskGP with its initial
  hyperparameters (no fit), 200·d raw samples, 8 restarts of at most 50 L-BFGS-B iterations
  (costbo's pool, starts and evaluations).
- BoTorch iteration (paper): the paper's iteration, MAP refit (`fit_gpytorch_mll`) and
  `optimize_acqf` with 200·d raw samples and 10·d restarts.

Also prints, at n = 100, the Python package's own overhead per ask: the wall time of the call
minus the time spent inside the Rust optimizer (`Optimizer._core_seconds`).

Not part of CI (torch is several GB):

    python3 -m venv /work/venv-bench && /work/venv-bench/bin/pip install botorch ./python
    /work/venv-bench/bin/python python/bench/ask_vs_botorch.py --repeats 5
"""

import argparse
import math
import statistics
import time
import warnings

import numpy as np

import costbo

warnings.filterwarnings("ignore")


def ackley(u):
    x = 2.0 * u - 1.0
    d = x.shape[-1]
    a = -20.0 * np.exp(-0.2 * np.sqrt((x**2).sum(-1) / d))
    b = -np.exp(np.cos(2.0 * math.pi * x).sum(-1) / d)
    return -(a + b + 20.0 + math.e)


def data(d, n, seed):
    rng = np.random.default_rng(seed)
    x = rng.random((n, d))
    y = ackley(x)
    return x, (y - y.mean()) / y.std()


def costbo_optimizer(x, y, d):
    opt = costbo.Optimizer.build(
        "bench",
        1e6,
        [{"name": f"x{i}", "lower": 0.0, "upper": 1.0} for i in range(d)],
        [([f"x{i}" for i in range(d)], 1.0)],
        rule="log-ei",
        capacity=256,
        kernel="matern52",
        lengthscale=0.5,
        noise=1e-4,
        inner=(200 * d // 16, 8, 50),
    )
    for xi, yi in zip(x, y):
        opt.tell_prior(xi, yi)
    return opt.to_json()


def cpu(f):
    t0 = time.process_time()
    f()
    return time.process_time() - t0


def median_cpu(f, repeats, setup=None):
    times = []
    for _ in range(repeats):
        arg = setup() if setup else None
        times.append(cpu(lambda: f(arg)))
    return statistics.median(times)


def botorch_parts(torch):
    from botorch.acquisition import LogExpectedImprovement
    from botorch.fit import fit_gpytorch_mll
    from botorch.models import SingleTaskGP
    from botorch.optim import optimize_acqf
    from gpytorch.mlls import ExactMarginalLogLikelihood

    def acq(x, y, d, restarts, fit, maxiter=None):
        model = SingleTaskGP(x, y, train_Yvar=torch.full_like(y, 1e-4))
        if fit:
            fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
        ei = LogExpectedImprovement(model, best_f=y.max())
        bounds = torch.stack([torch.zeros(d), torch.ones(d)])
        options = {} if maxiter is None else {"maxiter": maxiter}
        optimize_acqf(ei, bounds=bounds, q=1, num_restarts=restarts, raw_samples=200 * d,
                      options=options)

    return acq


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--dims", default="4,8,16")
    p.add_argument("--ns", default="50,100,200")
    p.add_argument("--no-botorch", action="store_true")
    args = p.parse_args()
    torch = None
    if not args.no_botorch:
        import torch

        torch.set_default_dtype(torch.float64)
        acq = botorch_parts(torch)
        print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    print("d,n,costbo_ask_ms,costbo_fit_ms,costbo_warm_fit_ms,botorch_acq_matched_s,"
          "botorch_iteration_s,ratio_acq,ratio_iteration_cold,ratio_iteration_warm")
    for d in map(int, args.dims.split(",")):
        for n in map(int, args.ns.split(",")):
            x, y = data(d, n, seed=d * 1000 + n)
            saved = costbo_optimizer(x, y, d)
            ask = median_cpu(lambda o: o.ask(), args.repeats,
                             setup=lambda: costbo.Optimizer.from_json(saved))
            gp = costbo.GP("matern52", [0.5] * d, noise=1e-4)
            fit = median_cpu(lambda _: gp.fit(x, y, starts=1, evaluations=100), args.repeats)
            previous = costbo.GP("matern52", [0.5] * d, noise=1e-4)
            before = previous.fit(x[:-1], y[:-1], starts=1, evaluations=100)

            def warm_gp():
                return costbo.GP("matern52", before.lengthscales, outputscale=before.outputscale,
                                 noise=before.noise, mean=before.mean)

            warm = median_cpu(lambda g: g.fit(x, y, starts=1, evaluations=100), args.repeats,
                              setup=warm_gp)
            row = [d, n, f"{ask * 1e3:.2f}", f"{fit * 1e3:.2f}", f"{warm * 1e3:.2f}"]
            if torch is not None:
                tx, ty = torch.tensor(x), torch.tensor(y).unsqueeze(-1)
                matched = median_cpu(lambda _: acq(tx, ty, d, 8, False, 50), args.repeats)
                paper = median_cpu(lambda _: acq(tx, ty, d, 10 * d, True), args.repeats)
                row += [f"{matched:.3f}", f"{paper:.3f}", f"{matched / ask:.0f}",
                        f"{paper / (ask + fit):.0f}", f"{paper / (ask + warm):.0f}"]
            print(",".join(map(str, row)), flush=True)
    # The package's overhead per ask at n = 100 (d = 8).
    x, y = data(8, 100, seed=8100)
    saved = costbo_optimizer(x, y, 8)
    shares = []
    for _ in range(max(args.repeats, 20)):
        opt = costbo.Optimizer.from_json(saved)
        t0 = time.perf_counter()
        opt.ask()
        wall = time.perf_counter() - t0
        shares.append((wall - opt._core_seconds) / opt._core_seconds)
    print(f"overhead of Python over Rust per ask at d = 8, n = 100: median "
          f"{100 * statistics.median(shares):.3f} % (max {100 * max(shares):.3f} %) of the ask")


if __name__ == "__main__":
    main()
