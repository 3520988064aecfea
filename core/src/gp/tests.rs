//! Unit tests of the GP against independent references: a dense Gauss–Jordan solve with
//! partial pivoting (no Cholesky anywhere), closed forms for tiny cases, and finite differences.
#![allow(clippy::needless_range_loop, clippy::type_complexity)]
extern crate std;

use std::vec;
use std::vec::Vec;

use super::*;
use crate::kernel::Shape;
use crate::linalg::{cholesky_in_place, idx};

const N: usize = 24;
type Gp64 = Gp<f64, N, 3, [f64; tri_len(N)]>;
type Gp32 = Gp<f32, N, 3, [f32; tri_len(N)]>;

/// Deterministic pseudo-random numbers in [0, 1).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn point(&mut self) -> [f64; 3] {
        [self.next(), self.next(), self.next()]
    }
}

fn objective(x: &[f64; 3]) -> f64 {
    (6.0 * x[0]).sin() + (4.0 * x[1]).cos() * x[2] - 0.5 * x[2]
}

fn kernel(shape: Shape) -> Kernel<f64, 3> {
    Kernel::new(shape, [0.3, 0.5, 0.8], 1.3).unwrap()
}

fn new_gp(shape: Shape, noise: f64, when_full: WhenFull) -> Gp64 {
    Gp::new(kernel(shape), 0.2, noise, when_full, [0.0; tri_len(N)]).unwrap()
}

/// Solves `A X = B` for a dense `A` (n×n) and several right-hand sides by Gauss–Jordan
/// elimination with partial pivoting.
fn gauss_jordan(mut a: Vec<Vec<f64>>, mut b: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
    let n = a.len();
    for c in 0..n {
        let p = (c..n)
            .max_by(|&i, &j| a[i][c].abs().partial_cmp(&a[j][c].abs()).unwrap())
            .unwrap();
        a.swap(c, p);
        b.swap(c, p);
        let piv = a[c][c];
        for j in 0..n {
            a[c][j] /= piv;
        }
        for v in b[c].iter_mut() {
            *v /= piv;
        }
        for i in 0..n {
            if i != c {
                let f = a[i][c];
                for j in 0..n {
                    a[i][j] -= f * a[c][j];
                }
                for k in 0..b[i].len() {
                    b[i][k] -= f * b[c][k];
                }
            }
        }
    }
    b
}

/// Dense reference posterior: mean and latent variance at `test` given data.
fn dense_posterior(
    k: &Kernel<f64, 3>,
    mean: f64,
    noise: f64,
    xs: &[[f64; 3]],
    ys: &[f64],
    test: &[f64; 3],
) -> (f64, f64) {
    let n = xs.len();
    let a: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| k.eval(&xs[i], &xs[j]) + if i == j { noise } else { 0.0 })
                .collect()
        })
        .collect();
    let kstar: Vec<f64> = xs.iter().map(|x| k.eval(test, x)).collect();
    let b: Vec<Vec<f64>> = (0..n).map(|i| std::vec![ys[i] - mean, kstar[i]]).collect();
    let sol = gauss_jordan(a, b);
    let m = mean + (0..n).map(|i| kstar[i] * sol[i][0]).sum::<f64>();
    let v = k.outputscale() - (0..n).map(|i| kstar[i] * sol[i][1]).sum::<f64>();
    (m, v)
}

/// Everything observable about a model, to check that failed calls change nothing.
fn snapshot<const D: usize, S: AsRef<[f64]> + AsMut<[f64]>>(
    gp: &Gp<f64, N, D, S>,
) -> (
    Vec<f64>,
    Vec<[f64; D]>,
    Vec<f64>,
    Vec<f64>,
    Vec<f64>,
    Hyperparameters<f64, D>,
) {
    (
        gp.outputs().to_vec(),
        gp.inputs().to_vec(),
        gp.factor().to_vec(),
        gp.alpha().to_vec(),
        gp.jitters().to_vec(),
        gp.hyperparameters(),
    )
}

#[test]
fn posterior_matches_dense_solve_for_every_n() {
    for shape in [Shape::SquaredExponential, Shape::Matern52] {
        let mut rng = Lcg(11);
        let mut gp = new_gp(shape, 1e-3, WhenFull::Reject);
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        let tests: Vec<[f64; 3]> = (0..5).map(|_| rng.point()).collect();
        for n in 1..=N {
            let x = rng.point();
            let y = objective(&x);
            gp.push(&x, y).unwrap();
            xs.push(x);
            ys.push(y);
            for t in tests.iter().chain(xs.last()) {
                let p = gp.predict(t).unwrap();
                let (m, v) = dense_posterior(&kernel(shape), 0.2, 1e-3, &xs, &ys, t);
                assert!(
                    (p.mean - m).abs() < 1e-10 * (1.0 + m.abs()),
                    "{shape:?} n={n}"
                );
                assert!((p.variance - v).abs() < 1e-10, "{shape:?} n={n}");
                assert!((gp.predict_mean(t).unwrap() - p.mean).abs() < 1e-12);
            }
        }
        assert_eq!(gp.len(), N);
    }
}

#[test]
fn incremental_factor_equals_batch_factorisation() {
    let mut rng = Lcg(5);
    let mut gp = new_gp(Shape::Matern52, 1e-4, WhenFull::Reject);
    for _ in 0..N {
        let x = rng.point();
        gp.push(&x, objective(&x)).unwrap();
    }
    let k = kernel(Shape::Matern52);
    let mut a = [0.0; tri_len(N)];
    for i in 0..N {
        for j in 0..=i {
            a[idx(i, j)] = k.eval(&gp.inputs()[i], &gp.inputs()[j]);
        }
        a[idx(i, i)] = k.outputscale() + 1e-4;
    }
    cholesky_in_place(&mut a, N).unwrap();
    assert_eq!(gp.factor(), &a[..]);
}

/// The factor of the kernel matrix one row at a time, every sum written out in the textbook
/// order (`Σ_{k<j} L_ik L_jk` from `k = 0` up): the reference for the blocked paths below.
fn textbook_factor(k: &Kernel<f64, 3>, xs: &[[f64; 3]], noise: f64) -> Vec<f64> {
    let n = xs.len();
    let mut l = vec![0.0; tri_len(n)];
    for i in 0..n {
        for j in 0..i {
            let mut s = 0.0;
            for m in 0..j {
                s += l[idx(j, m)] * l[idx(i, m)];
            }
            l[idx(i, j)] = (k.eval(&xs[i], &xs[j]) - s) / l[idx(j, j)];
        }
        let mut s = 0.0;
        for m in 0..i {
            s += l[idx(i, m)] * l[idx(i, m)];
        }
        l[idx(i, i)] = (k.outputscale() + noise - s).sqrt();
    }
    l
}

#[test]
fn rebuilt_factor_has_the_bits_of_the_textbook_order() {
    // 21 points: two blocks of eight rows and a remainder of five. The model is built under
    // other hyperparameters, then rebuilt (blocked) under `k`; pushes append one row at a time.
    // Every shape (the kernel values come in vector lanes on a desktop).
    for (shape, other) in [
        (Shape::Matern52, Shape::SquaredExponential),
        (Shape::SquaredExponential, Shape::Matern32),
        (Shape::Matern32, Shape::Matern52),
    ] {
        let k = kernel(shape);
        let mut rng = Lcg(11);
        let xs: Vec<[f64; 3]> = (0..21).map(|_| rng.point()).collect();
        let mut rebuilt = new_gp(other, 1e-4, WhenFull::Reject);
        let mut pushed = new_gp(shape, 1e-4, WhenFull::Reject);
        for x in &xs {
            rebuilt.push(x, objective(x)).unwrap();
            pushed.push(x, objective(x)).unwrap();
        }
        rebuilt.set_hyperparameters(k, 0.2, 1e-4).unwrap();
        let want = textbook_factor(&k, &xs, 1e-4);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(rebuilt.factor()), bits(&want), "{shape:?}");
        assert_eq!(bits(pushed.factor()), bits(&want), "{shape:?}");
    }
}

#[test]
fn predictions_have_the_bits_of_the_textbook_formulas() {
    // 21 observations: two groups of eight kernel lanes and a remainder of five. The textbook
    // posterior: m + Σⱼ k(x, xⱼ)αⱼ and k(x, x) − ‖L⁻¹k‖², each sum in order, one kernel value
    // at a time; its gradient from the same solves, L⁻ᵀL⁻¹k by substitution.
    let mut rng = Lcg(21);
    let mut gp = new_gp(Shape::Matern52, 1e-4, WhenFull::Reject);
    let xs: Vec<[f64; 3]> = (0..21).map(|_| rng.point()).collect();
    for x in &xs {
        gp.push(x, objective(x)).unwrap();
    }
    let (k, n, l) = (*gp.kernel(), xs.len(), gp.factor().to_vec());
    let alpha = gp.alpha().to_vec();
    let points: Vec<[f64; 3]> = (0..9).map(|_| rng.point()).collect();
    let mut many = vec![Err(GpError::NoData); points.len()];
    gp.predict_many(&points, &mut many);
    for (p, from_many) in points.iter().zip(&many) {
        let cross: Vec<f64> = xs.iter().map(|xj| k.eval(p, xj)).collect();
        let mut mean = 0.0;
        for (c, a) in cross.iter().zip(&alpha) {
            mean += c * a;
        }
        let mean = gp.prior_mean() + mean;
        let mut v = cross.clone();
        for i in 0..n {
            let mut s = 0.0;
            for m in 0..i {
                s += l[idx(i, m)] * v[m];
            }
            v[i] = (v[i] - s) / l[idx(i, i)];
        }
        let mut q = 0.0;
        for vi in &v {
            q += vi * vi;
        }
        let variance = (k.outputscale() - q).max(0.0);
        let one = gp.predict(p).unwrap();
        let many = from_many.as_ref().unwrap();
        let g = gp.predict_with_gradient(p).unwrap();
        // Eight points side by side, this one among them: every field has the single bits.
        let eight: [[f64; 3]; 8] = core::array::from_fn(|t| if t == 5 { *p } else { points[t] });
        assert_eq!(gp.predict_with_gradient_many(&eight)[5], Ok(g));
        let bits = |q: &PredictionGradient<f64, 3>| {
            let mut b = vec![q.mean.to_bits(), q.variance.to_bits(), q.std.to_bits()];
            b.extend(q.d_mean.iter().chain(&q.d_std).map(|v| v.to_bits()));
            b
        };
        assert_eq!(
            bits(&gp.predict_with_gradient_many(&eight)[5].unwrap()),
            bits(&g)
        );
        for (got, what) in [
            (one.mean, "predict"),
            (many.mean, "predict_many"),
            (g.mean, "gradient"),
        ] {
            assert_eq!(got.to_bits(), mean.to_bits(), "{what} mean");
        }
        for (got, what) in [
            (one.variance, "predict"),
            (many.variance, "predict_many"),
            (g.variance, "gradient"),
        ] {
            assert_eq!(got.to_bits(), variance.to_bits(), "{what} variance");
        }
        // The mean's gradient: Σⱼ αⱼ ∇k(x, xⱼ) in order of j.
        let mut d_mean = [0.0; 3];
        for (xj, a) in xs.iter().zip(&alpha) {
            let mut gj = [0.0; 3];
            k.eval_with_grad(p, xj, &mut gj);
            for i in 0..3 {
                d_mean[i] += a * gj[i];
            }
        }
        assert_eq!(g.d_mean.map(f64::to_bits), d_mean.map(f64::to_bits));
    }
}

#[test]
fn batched_predictions_have_the_bits_of_single_ones() {
    let mut rng = Lcg(12);
    for n in [3, 13] {
        let mut gp = new_gp(Shape::Matern52, 1e-4, WhenFull::Reject);
        for _ in 0..n {
            let x = rng.point();
            gp.push(&x, objective(&x)).unwrap();
        }
        // 11 points: groups of PREDICT_BLOCK (eight on a desktop, four on Arm) and a remainder;
        // one group holds a NaN.
        let mut xs: Vec<[f64; 3]> = (0..11).map(|_| rng.point()).collect();
        xs[5][1] = f64::NAN;
        let mut out = vec![Err(GpError::NoData); 11];
        gp.predict_many(&xs, &mut out);
        for (x, got) in xs.iter().zip(&out) {
            match (gp.predict(x), got) {
                (Ok(w), Ok(g)) => {
                    assert_eq!(w.mean.to_bits(), g.mean.to_bits());
                    assert_eq!(w.variance.to_bits(), g.variance.to_bits());
                }
                (w, g) => assert_eq!(w, *g),
            }
        }
        assert_eq!(out[5], Err(GpError::NonFinite));
    }
}

#[test]
fn drop_oldest_matches_a_fresh_model_of_the_window() {
    let mut rng = Lcg(3);
    let mut gp = new_gp(Shape::SquaredExponential, 1e-3, WhenFull::DropOldest);
    let mut all = Vec::new();
    for _ in 0..N + 17 {
        let x = rng.point();
        let y = objective(&x);
        all.push((x, y));
        gp.push(&x, y).unwrap();
    }
    assert_eq!(gp.len(), N);
    let mut fresh = new_gp(Shape::SquaredExponential, 1e-3, WhenFull::Reject);
    for (x, y) in &all[all.len() - N..] {
        fresh.push(x, *y).unwrap();
    }
    assert_eq!(gp.inputs(), fresh.inputs());
    for (a, b) in gp.factor().iter().zip(fresh.factor()) {
        assert!((a - b).abs() < 1e-11, "{a} vs {b}");
    }
    for _ in 0..10 {
        let t = rng.point();
        let (p, q) = (gp.predict(&t).unwrap(), fresh.predict(&t).unwrap());
        assert!((p.mean - q.mean).abs() < 1e-9 && (p.variance - q.variance).abs() < 1e-9);
    }
    gp.remove_oldest().unwrap();
    assert_eq!(gp.len(), N - 1);
}

#[test]
fn log_marginal_likelihood_closed_forms() {
    // n = 1: y ~ N(m, s + σ²).
    let mut gp = new_gp(Shape::SquaredExponential, 0.01, WhenFull::Reject);
    gp.push(&[0.1, 0.2, 0.3], 1.7).unwrap();
    let v = 1.3 + 0.01;
    let want =
        -0.5 * (1.7f64 - 0.2).powi(2) / v - 0.5 * v.ln() - 0.5 * (2.0 * core::f64::consts::PI).ln();
    assert!((gp.log_marginal_likelihood() - want).abs() < 1e-14);
    // n = 2: explicit 2×2 inverse and determinant.
    let x2 = [0.4, 0.1, 0.9];
    gp.push(&x2, -0.4).unwrap();
    let c = kernel(Shape::SquaredExponential).eval(&[0.1, 0.2, 0.3], &x2);
    let det = v * v - c * c;
    let (r1, r2) = (1.5, -0.6);
    let quad = (v * r1 * r1 - 2.0 * c * r1 * r2 + v * r2 * r2) / det;
    let want = -0.5 * quad - 0.5 * det.ln() - (2.0 * core::f64::consts::PI).ln();
    assert!((gp.log_marginal_likelihood() - want).abs() < 1e-13);
}

#[test]
fn likelihood_gradient_matches_finite_differences() {
    for shape in [Shape::SquaredExponential, Shape::Matern52] {
        let mut rng = Lcg(17);
        let mut gp = new_gp(shape, 0.02, WhenFull::Reject);
        for _ in 0..15 {
            let x = rng.point();
            gp.push(&x, objective(&x)).unwrap();
        }
        let mut ws = [0.0; tri_len(N)];
        let (lml, grad) = gp.log_marginal_likelihood_gradient(&mut ws).unwrap();
        assert_eq!(lml, gp.log_marginal_likelihood());
        let h0 = gp.hyperparameters();
        let eps = 1e-5;
        for i in 0..Hyperparameters::<f64, 3>::LEN {
            let mut f = [0.0; 2];
            for (s, sign) in [(0, 1.0), (1, -1.0)] {
                let mut h = h0;
                *h.get_mut(i) += sign * eps;
                let mut g2 = gp.clone();
                g2.set_log_hyperparameters(&h).unwrap();
                f[s] = g2.log_marginal_likelihood();
            }
            let fd = (f[0] - f[1]) / (2.0 * eps);
            assert!(
                (fd - grad.get(i)).abs() < 1e-6 * (1.0 + fd.abs()),
                "{shape:?} {i}: fd {fd} vs {}",
                grad.get(i)
            );
        }
    }
}

#[test]
fn input_gradients_match_finite_differences() {
    for shape in [Shape::SquaredExponential, Shape::Matern52] {
        let mut rng = Lcg(23);
        let mut gp = new_gp(shape, 1e-3, WhenFull::Reject);
        for _ in 0..12 {
            let x = rng.point();
            gp.push(&x, objective(&x)).unwrap();
        }
        for _ in 0..6 {
            let t = rng.point();
            let g = gp.predict_with_gradient(&t).unwrap();
            let p = gp.predict(&t).unwrap();
            assert!((g.mean - p.mean).abs() < 1e-14 && (g.variance - p.variance).abs() < 1e-14);
            let h = 1e-6;
            for i in 0..3 {
                let (mut a, mut b) = (t, t);
                a[i] += h;
                b[i] -= h;
                let (pa, pb) = (gp.predict(&a).unwrap(), gp.predict(&b).unwrap());
                let fd_mean = (pa.mean - pb.mean) / (2.0 * h);
                let fd_std = (pa.variance.sqrt() - pb.variance.sqrt()) / (2.0 * h);
                assert!((fd_mean - g.d_mean[i]).abs() < 1e-6, "{shape:?} mean {i}");
                assert!((fd_std - g.d_std[i]).abs() < 1e-6, "{shape:?} std {i}");
            }
        }
    }
}

#[test]
fn covariance_agrees_with_variance_and_dense_solve() {
    let mut rng = Lcg(29);
    let mut gp = new_gp(Shape::Matern52, 1e-3, WhenFull::Reject);
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        let x = rng.point();
        gp.push(&x, objective(&x)).unwrap();
        xs.push(x);
        ys.push(objective(&x));
    }
    let (a, b) = (rng.point(), rng.point());
    assert!((gp.covariance(&a, &a).unwrap() - gp.predict(&a).unwrap().variance).abs() < 1e-14);
    // Var(f(a) + f(b)) = Var a + Var b + 2 Cov: check the covariance through the dense
    // posterior of the sum, obtained by conditioning a kernel on the sum of two points.
    let k = kernel(Shape::Matern52);
    let n = xs.len();
    let a_mat: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| k.eval(&xs[i], &xs[j]) + if i == j { 1e-3 } else { 0.0 })
                .collect()
        })
        .collect();
    let rhs: Vec<Vec<f64>> = (0..n)
        .map(|i| std::vec![k.eval(&a, &xs[i]), k.eval(&b, &xs[i])])
        .collect();
    let sol = gauss_jordan(a_mat, rhs);
    let want = k.eval(&a, &b) - (0..n).map(|i| k.eval(&a, &xs[i]) * sol[i][1]).sum::<f64>();
    assert!((gp.covariance(&a, &b).unwrap() - want).abs() < 1e-12);
}

#[test]
#[cfg_attr(
    feature = "fast-math",
    ignore = "compares f32 with f64 at libm's tolerances; fast-math's f32 exp is 2.4e-3 relative"
)]
fn f32_agrees_with_f64() {
    // Tolerances for a well-conditioned problem (noise 1e-3, condition number below 1e4):
    // mean within 1e-3 relative to the output scale, variance within 1e-3 absolute.
    let mut rng = Lcg(31);
    let mut g64 = new_gp(Shape::SquaredExponential, 1e-3, WhenFull::Reject);
    let k32 = Kernel::squared_exponential([0.3f32, 0.5, 0.8], 1.3).unwrap();
    let mut g32: Gp32 = Gp::new(k32, 0.2, 1e-3, WhenFull::Reject, [0.0; tri_len(N)]).unwrap();
    for _ in 0..N {
        let x = rng.point();
        let y = objective(&x);
        g64.push(&x, y).unwrap();
        g32.push(&x.map(|v| v as f32), y as f32).unwrap();
    }
    for _ in 0..20 {
        let t = rng.point();
        let p = g64.predict(&t).unwrap();
        let q = g32.predict(&t.map(|v| v as f32)).unwrap();
        assert!(
            (p.mean - q.mean as f64).abs() < 1e-3,
            "{} vs {}",
            p.mean,
            q.mean
        );
        assert!((p.variance - q.variance as f64).abs() < 1e-3);
    }
    let rel = (g64.log_marginal_likelihood() - g32.log_marginal_likelihood() as f64).abs()
        / g64.log_marginal_likelihood().abs();
    assert!(rel < 1e-3);
}

#[test]
fn duplicate_inputs_without_noise_get_jitter() {
    // An exact repeat merges into its slot (no jitter needed); a near repeat gets a jitter.
    let mut gp = new_gp(Shape::SquaredExponential, 0.0, WhenFull::Reject);
    let x = [0.3, 0.3, 0.3];
    gp.push(&x, 1.0).unwrap();
    gp.push(&x, 1.0).unwrap();
    gp.push(&[0.3, 0.3, 0.3 + 1e-9], 1.0).unwrap();
    assert_eq!((gp.len(), gp.counts()), (2, &[2, 1][..]));
    assert_eq!(gp.jitters()[0], 0.0);
    assert!(gp.jitters()[1] > 0.0);
    let p = gp.predict(&x).unwrap();
    assert!((p.mean - 1.0).abs() < 1e-6 && p.variance < 1e-6);
}

#[test]
fn errors_leave_the_model_unchanged() {
    let mut rng = Lcg(37);
    let mut gp = new_gp(Shape::SquaredExponential, 1e-3, WhenFull::Reject);
    for _ in 0..N {
        let x = rng.point();
        gp.push(&x, objective(&x)).unwrap();
    }
    let before = snapshot(&gp);
    assert_eq!(gp.push(&[0.1, 0.1, 0.1], 1.0), Err(GpError::Full));
    gp.clear();
    let mut gp2 = new_gp(Shape::SquaredExponential, 1e-3, WhenFull::Reject);
    for (x, y) in before.1.iter().zip(&before.0) {
        gp2.push(x, *y).unwrap();
    }
    let mut gp = gp2;
    assert_eq!(snapshot(&gp), before);
    gp.remove_oldest().unwrap();
    let before = snapshot(&gp);
    assert_eq!(gp.push(&[f64::NAN, 0.1, 0.1], 1.0), Err(GpError::NonFinite));
    assert_eq!(
        gp.push(&[0.1, 0.1, 0.1], f64::INFINITY),
        Err(GpError::NonFinite)
    );
    assert_eq!(gp.predict(&[0.1, f64::NAN, 0.1]), Err(GpError::NonFinite));
    assert_eq!(
        gp.set_hyperparameters(kernel(Shape::Matern52), 0.0, -1.0),
        Err(GpError::InvalidHyperparameter)
    );
    assert_eq!(
        gp.set_hyperparameters(kernel(Shape::Matern52), f64::NAN, 1.0),
        Err(GpError::NonFinite)
    );
    let mut bad = gp.hyperparameters();
    bad.log_lengthscales[1] = f64::INFINITY;
    assert_eq!(gp.set_log_hyperparameters(&bad), Err(GpError::NonFinite));
    bad.log_lengthscales[1] = -800.0; // lengthscale underflows to zero
    assert_eq!(
        gp.set_log_hyperparameters(&bad),
        Err(GpError::InvalidHyperparameter)
    );
    let mut ws = [0.0; 3];
    assert!(matches!(
        gp.log_marginal_likelihood_gradient(&mut ws),
        Err(GpError::StorageTooSmall { .. })
    ));
    let mut cfg = FitConfig::unit_cube(-1.0, 1.0);
    cfg.lower.log_noise = 1.0; // lower > upper
    assert_eq!(gp.fit(&cfg), Err(GpError::InvalidBounds));
    let (mut m, mut v) = ([0.0; 2], [0.0; 3]);
    assert_eq!(
        gp.predict_batch(&[[0.1; 3], [0.2; 3]], &mut m, &mut v),
        Err(GpError::LengthMismatch)
    );
    assert_eq!(snapshot(&gp), before);
    let empty: Result<Gp64, _> = Gp::new(
        kernel(Shape::Matern52),
        0.0,
        0.0,
        WhenFull::Reject,
        [0.0; tri_len(N)],
    );
    assert!(empty.unwrap().remove_oldest() == Err(GpError::NoData));
    let small: Result<Gp<f64, N, 3, [f64; 10]>, _> = Gp::new(
        kernel(Shape::Matern52),
        0.0,
        0.0,
        WhenFull::Reject,
        [0.0; 10],
    );
    assert_eq!(
        small.err(),
        Some(GpError::StorageTooSmall {
            needed: tri_len(N),
            got: 10
        })
    );
}

#[test]
fn failed_refactorisation_restores_the_model() {
    let mut rng = Lcg(41);
    let mut gp = new_gp(Shape::SquaredExponential, 1e-3, WhenFull::Reject);
    for _ in 0..8 {
        let x = rng.point();
        gp.push(&x, objective(&x)).unwrap();
    }
    let before = snapshot(&gp);
    // An outputscale of 1e300 overflows k(x,x)+noise arithmetic in the factor (inf − inf).
    let k = Kernel::squared_exponential([0.3, 0.5, 0.8], 1e308).unwrap();
    assert_eq!(
        gp.set_hyperparameters(k, 0.0, 1e308),
        Err(GpError::NotPositiveDefinite)
    );
    assert_eq!(snapshot(&gp), before);
}

#[test]
fn fit_improves_likelihood_and_reaches_a_stationary_point() {
    let mut rng = Lcg(43);
    // Data from a smooth function with known scale: the fitted lengthscales should be moderate.
    let mut gp = new_gp(Shape::SquaredExponential, 0.1, WhenFull::Reject);
    for _ in 0..N {
        let x = rng.point();
        gp.push(&x, objective(&x) + 0.01 * (rng.next() - 0.5))
            .unwrap();
    }
    let start = gp.log_marginal_likelihood();
    let mut cfg = FitConfig::unit_cube(-2.0, 2.0);
    cfg.evaluations_per_start = 200;
    let report = gp.fit(&cfg).unwrap();
    assert!(report.log_marginal_likelihood > start + 1.0);
    assert_eq!(report.log_marginal_likelihood, gp.log_marginal_likelihood());
    assert_eq!(gp.hyperparameters(), report.hyperparameters);
    // Projected gradient vanishes: interior coordinates have ~zero gradient, coordinates at a
    // bound have a gradient pointing out of the box.
    let mut ws = [0.0; tri_len(N)];
    let (_, g) = gp.log_marginal_likelihood_gradient(&mut ws).unwrap();
    for i in 0..Hyperparameters::<f64, 3>::LEN {
        let (h, lo, hi) = (
            report.hyperparameters.get(i),
            cfg.lower.get(i),
            cfg.upper.get(i),
        );
        let gi = g.get(i);
        if h <= lo + 1e-9 {
            assert!(
                gi <= 1e-2,
                "coordinate {i} at lower bound with gradient {gi}"
            );
        } else if h >= hi - 1e-9 {
            assert!(
                gi >= -1e-2,
                "coordinate {i} at upper bound with gradient {gi}"
            );
        } else {
            assert!(
                gi.abs() < 1e-2 * (1.0 + report.log_marginal_likelihood.abs()),
                "coordinate {i}: {gi}"
            );
        }
    }
    // A grid over the first log lengthscale with the others fixed cannot beat the fit by more
    // than the grid's resolution allows.
    for k in 0..=40 {
        let mut h = report.hyperparameters;
        h.log_lengthscales[0] = cfg.lower.log_lengthscales[0]
            + (cfg.upper.log_lengthscales[0] - cfg.lower.log_lengthscales[0]) * k as f64 / 40.0;
        let mut g2 = gp.clone();
        g2.set_log_hyperparameters(&h).unwrap();
        assert!(g2.log_marginal_likelihood() <= report.log_marginal_likelihood + 1e-6);
    }
}

#[test]
fn map_fit_is_pulled_towards_the_prior() {
    let mut rng = Lcg(47);
    let mut gp = new_gp(Shape::Matern52, 0.05, WhenFull::Reject);
    for _ in 0..12 {
        let x = rng.point();
        gp.push(&x, objective(&x)).unwrap();
    }
    let cfg = FitConfig::unit_cube(-2.0, 2.0);
    let ml = gp.clone().fit(&cfg).unwrap();
    let mut map_cfg = cfg;
    let mut center = ml.hyperparameters;
    center.log_outputscale = ml.hyperparameters.log_outputscale + 2.0;
    map_cfg.prior = Some(Prior::normal(center, Hyperparameters::splat(0.1)));
    let map = gp.fit(&map_cfg).unwrap();
    assert!(map.hyperparameters.log_outputscale > ml.hyperparameters.log_outputscale + 1.0);
    assert!(map.log_marginal_likelihood <= ml.log_marginal_likelihood + 1e-6);
}

/// The MAP objective `ln p(y | θ) + Σ ln p(θᵢ)` of `cfg`'s prior, evaluated directly: the
/// log marginal likelihood of a model set to `h`, plus the Gamma and normal log densities written
/// out here (not through the fitter).
fn map_objective(gp: &Gp64, cfg: &FitConfig<f64, 3>, h: &Hyperparameters<f64, 3>) -> f64 {
    let mut g = gp.clone();
    g.set_log_hyperparameters(h).unwrap();
    let mut v = g.log_marginal_likelihood();
    let prior = cfg.prior.as_ref().unwrap();
    for i in 0..Hyperparameters::<f64, 3>::LEN {
        let t = h.get(i);
        v += match *prior.coordinate(i) {
            CoordinatePrior::Flat => 0.0,
            CoordinatePrior::Normal { center, scale } => -0.5 * ((t - center) / scale).powi(2),
            CoordinatePrior::Gamma { shape, rate, shift } => {
                let theta = (t - shift).exp();
                (shape - 1.0) * theta.ln() - rate * theta
            }
        };
    }
    v
}

#[test]
fn botorch_map_fit_is_a_local_maximum_of_the_map_objective() {
    let mut rng = Lcg(61);
    let mut gp = new_gp(Shape::Matern52, 1e-4, WhenFull::Reject);
    for _ in 0..20 {
        let x = rng.point();
        gp.push(&x, 3.0 + 50.0 * objective(&x)).unwrap();
    }
    let cfg = FitConfig::botorch_map(gp.outputs(), 1e-4);
    let r = gp.fit(&cfg).unwrap();
    let h = r.hyperparameters;
    assert_eq!(h.log_noise, 1e-4f64.ln(), "the noise stays fixed");
    let best = map_objective(&gp, &cfg, &h);
    assert!((best - r.objective).abs() < 1e-8 * best.abs().max(1.0));
    // No coordinate move (nor a random direction) improves it by more than the stopping rule.
    for i in [0, 1, 2, 3, 5] {
        for step in [1e-3, -1e-3, 3e-2, -3e-2] {
            let mut p = h;
            *p.get_mut(i) += step;
            let v = map_objective(&gp, &cfg, &p);
            assert!(
                v <= best + 1e-6 * best.abs().max(1.0),
                "coordinate {i} {step}: {v} > {best}"
            );
        }
    }
    // The Gamma priors act: the same data with the lengthscale prior's mode pushed from 1/3
    // to 3 (rate 6 → 2/3) fit longer lengthscales.
    let mut wide = cfg;
    if let Some(p) = wide.prior.as_mut() {
        p.lengthscales = [CoordinatePrior::Gamma {
            shape: 3.0,
            rate: 2.0 / 3.0,
            shift: 0.0,
        }; 3];
    }
    let w = gp.clone().fit(&wide).unwrap();
    for l in 0..3 {
        assert!(
            w.hyperparameters.log_lengthscales[l] > h.log_lengthscales[l],
            "{l}"
        );
    }
}

#[test]
fn botorch_map_fit_is_invariant_to_an_affine_change_of_the_outputs() {
    // Standardised outputs: fitting a·y + b gives the same lengthscales, the outputscale times
    // a², and the mean a·m + b (the noise is fixed in raw units, so it scales too here).
    let mut rng = Lcg(67);
    let (a, b) = (40.0, -7.0);
    let mut g1 = new_gp(Shape::Matern52, 1e-4, WhenFull::Reject);
    let mut g2 = new_gp(Shape::Matern52, 1e-4 * a * a, WhenFull::Reject);
    for _ in 0..15 {
        let x = rng.point();
        g1.push(&x, objective(&x)).unwrap();
        g2.push(&x, a * objective(&x) + b).unwrap();
    }
    let r1 = g1.fit(&FitConfig::botorch_map(g1.outputs(), 1e-4)).unwrap();
    let r2 = g2
        .fit(&FitConfig::botorch_map(g2.outputs(), 1e-4 * a * a))
        .unwrap();
    let (h1, h2) = (r1.hyperparameters, r2.hyperparameters);
    for l in 0..3 {
        assert!(
            (h1.log_lengthscales[l] - h2.log_lengthscales[l]).abs() < 1e-3,
            "{h1:?} vs {h2:?}"
        );
    }
    assert!((h2.log_outputscale - h1.log_outputscale - (a * a).ln()).abs() < 1e-3);
    assert!((h2.mean - (a * h1.mean + b)).abs() < 1e-3 * a);
}

/// Inputs and outputs of `objective` at `n` points, with Gaussian-ish noise of standard
/// deviation `sd` (a sum of 12 uniforms, centred).
fn noisy_data(seed: u64, n: usize, sd: f64) -> Vec<([f64; 3], f64)> {
    let mut rng = Lcg(seed);
    (0..n)
        .map(|_| {
            let x = rng.point();
            let z = (0..12).map(|_| rng.next()).sum::<f64>() - 6.0;
            (x, 3.0 + 5.0 * objective(&x) + sd * z)
        })
        .collect()
}

#[test]
fn learned_noise_map_fit_is_a_local_maximum_and_finds_the_noise() {
    // 24 points of 5·objective with noise sd 0.3 (variance 0.09) against outputs of sd ≈ 4.
    let data = noisy_data(71, N, 0.3);
    let mut gp = new_gp(Shape::SquaredExponential, 1e-4, WhenFull::Reject);
    for (x, y) in &data {
        gp.push(x, *y).unwrap();
    }
    let cfg = FitConfig::map_learned_noise(gp.outputs(), 1e-6);
    let r = gp.fit(&cfg).unwrap();
    let h = r.hyperparameters;
    // The objective the fitter reports is the directly evaluated MAP objective (the log
    // marginal likelihood is checked against mpmath in tests/gp_reference.rs).
    let best = map_objective(&gp, &cfg, &h);
    assert!((best - r.objective).abs() < 1e-8 * best.abs().max(1.0));
    // No coordinate move, the noise's included, improves it beyond the stopping rule.
    for i in 0..Hyperparameters::<f64, 3>::LEN {
        for step in [1e-3, -1e-3, 3e-2, -3e-2] {
            let mut p = h;
            *p.get_mut(i) += step;
            if p.get(i) < cfg.lower.get(i) || p.get(i) > cfg.upper.get(i) {
                continue;
            }
            let v = map_objective(&gp, &cfg, &p);
            assert!(
                v <= best + 1e-6 * best.abs().max(1.0),
                "coordinate {i} {step}: {v} > {best}"
            );
        }
    }
    // The noise was learned, from a start of 2·s² (s² ≈ 16) down to near the truth.
    let noise = h.log_noise.exp();
    assert!(noise > 0.09 / 4.0 && noise < 0.09 * 4.0, "noise {noise}");
    // The same data without noise: the fit goes far below 0.09 (the floor is 1e-6).
    let mut clean = new_gp(Shape::SquaredExponential, 1e-4, WhenFull::Reject);
    for (x, _) in &data {
        clean.push(x, 3.0 + 5.0 * objective(x)).unwrap();
    }
    let c = clean
        .fit(&FitConfig::map_learned_noise(clean.outputs(), 1e-6))
        .unwrap();
    assert!(c.hyperparameters.log_noise.exp() < 0.09 / 20.0);
    assert!(c.hyperparameters.log_noise >= 1e-6f64.ln() - 1e-12);
}

#[test]
fn learned_noise_map_fit_is_invariant_to_an_affine_change_of_the_outputs() {
    // Standardised outputs and a prior on the standardised noise: a·y + b fits the same
    // lengthscales, outputscale and noise times a², and the mean a·m + b.
    let data = noisy_data(73, 18, 0.1);
    let (a, b) = (30.0, -11.0);
    let mut g1 = new_gp(Shape::Matern52, 1e-4, WhenFull::Reject);
    let mut g2 = new_gp(Shape::Matern52, 1e-4, WhenFull::Reject);
    for (x, y) in &data {
        g1.push(x, *y).unwrap();
        g2.push(x, a * y + b).unwrap();
    }
    let r1 = g1
        .fit(&FitConfig::map_learned_noise(g1.outputs(), 1e-8))
        .unwrap();
    let r2 = g2
        .fit(&FitConfig::map_learned_noise(g2.outputs(), 1e-8 * a * a))
        .unwrap();
    let (h1, h2) = (r1.hyperparameters, r2.hyperparameters);
    for l in 0..3 {
        assert!(
            (h1.log_lengthscales[l] - h2.log_lengthscales[l]).abs() < 1e-3,
            "{h1:?} vs {h2:?}"
        );
    }
    assert!((h2.log_outputscale - h1.log_outputscale - (a * a).ln()).abs() < 1e-3);
    assert!((h2.log_noise - h1.log_noise - (a * a).ln()).abs() < 1e-3);
    assert!((h2.mean - (a * h1.mean + b)).abs() < 1e-3 * a);
}

#[test]
fn learned_noise_map_fit_in_f32_agrees_with_f64() {
    let data = noisy_data(79, 16, 0.3);
    let mut g64 = new_gp(Shape::SquaredExponential, 1e-4, WhenFull::Reject);
    let k32 = Kernel::squared_exponential([0.3f32, 0.5, 0.8], 1.3).unwrap();
    let mut g32: Gp32 = Gp::new(k32, 0.2, 1e-4, WhenFull::Reject, [0.0; tri_len(N)]).unwrap();
    for (x, y) in &data {
        g64.push(x, *y).unwrap();
        g32.push(&x.map(|v| v as f32), *y as f32).unwrap();
    }
    let c64 = FitConfig::map_learned_noise(g64.outputs(), 1e-6);
    let h64 = g64.fit(&c64).unwrap().hyperparameters;
    let h32 = g32
        .fit(&FitConfig::map_learned_noise(g32.outputs(), 1e-6f32))
        .unwrap()
        .hyperparameters;
    // The f32 fit lands where the f64 objective is within a small fraction of its maximum
    // (judged by the f64 objective, not by the f32 fitter's own report).
    let h32_in_f64 = Hyperparameters::<f64, 3> {
        log_lengthscales: h32.log_lengthscales.map(f64::from),
        log_outputscale: h32.log_outputscale.into(),
        log_noise: h32.log_noise.into(),
        mean: h32.mean.into(),
    };
    let best = map_objective(&g64, &c64, &h64);
    let at32 = map_objective(&g64, &c64, &h32_in_f64);
    assert!(best - at32 < 0.05 * best.abs().max(1.0), "{at32} vs {best}");
    assert!((h32_in_f64.log_noise - h64.log_noise).abs() < 0.5);
}

#[test]
fn fixed_coordinates_do_not_move() {
    let mut rng = Lcg(53);
    let mut gp = new_gp(Shape::SquaredExponential, 1e-4, WhenFull::Reject);
    for _ in 0..10 {
        let x = rng.point();
        gp.push(&x, objective(&x)).unwrap();
    }
    let mut cfg = FitConfig::unit_cube(0.2, 0.2);
    cfg.lower.log_noise = 1e-4f64.ln();
    cfg.upper.log_noise = 1e-4f64.ln();
    let r = gp.fit(&cfg).unwrap();
    assert_eq!(r.hyperparameters.mean, 0.2);
    assert_eq!(r.hyperparameters.log_noise, 1e-4f64.ln());
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    type Small = Gp<f64, 16, 2, [f64; tri_len(16)]>;

    fn arb_problem() -> impl Strategy<Value = (Vec<([f64; 2], f64)>, [f64; 2], f64, f64, bool)> {
        (
            prop::collection::vec(((0.0..1.0f64, 0.0..1.0f64), -2.0..2.0f64), 1..40),
            (0.1..2.0f64, 0.1..2.0f64),
            0.2..3.0f64,
            1e-3..0.5f64,
            any::<bool>(),
        )
            .prop_map(|(obs, ls, s, noise, matern)| {
                let obs = obs.into_iter().map(|((a, b), y)| ([a, b], y)).collect();
                (obs, [ls.0, ls.1], s, noise, matern)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever the data, a sliding-window model predicts what a dense solve on the window
        /// predicts, and its factor reproduces the kernel matrix.
        #[test]
        fn sliding_window_matches_dense((obs, ls, s, noise, matern) in arb_problem(),
                                        probe in (0.0..1.0f64, 0.0..1.0f64)) {
            let shape = if matern { Shape::Matern52 } else { Shape::SquaredExponential };
            let k = Kernel::new(shape, ls, s).unwrap();
            let mut gp: Small = Gp::new(k, 0.1, noise, WhenFull::DropOldest, [0.0; tri_len(16)]).unwrap();
            for (x, y) in &obs {
                gp.push(x, *y).unwrap();
            }
            let window = &obs[obs.len().saturating_sub(16)..];
            prop_assert_eq!(gp.len(), window.len());
            let n = window.len();
            let l = gp.factor();
            for i in 0..n {
                for j in 0..=i {
                    let llt: f64 = (0..=j).map(|m| l[idx(i, m)] * l[idx(j, m)]).sum();
                    let want = k.eval(&window[i].0, &window[j].0) + if i == j { noise } else { 0.0 };
                    prop_assert!((llt - want).abs() < 1e-10 * s, "({}, {}): {} vs {}", i, j, llt, want);
                }
            }
            let xs: Vec<[f64; 2]> = window.iter().map(|o| o.0).collect();
            let ys: Vec<f64> = window.iter().map(|o| o.1).collect();
            let a: Vec<Vec<f64>> = (0..n)
                .map(|i| (0..n).map(|j| k.eval(&xs[i], &xs[j]) + if i == j { noise } else { 0.0 }).collect())
                .collect();
            let t = [probe.0, probe.1];
            let ks: Vec<f64> = xs.iter().map(|x| k.eval(&t, x)).collect();
            let b: Vec<Vec<f64>> = (0..n).map(|i| std::vec![ys[i] - 0.1, ks[i]]).collect();
            let sol = gauss_jordan(a, b);
            let mean = 0.1 + (0..n).map(|i| ks[i] * sol[i][0]).sum::<f64>();
            let var = s - (0..n).map(|i| ks[i] * sol[i][1]).sum::<f64>();
            let p = gp.predict(&t).unwrap();
            prop_assert!((p.mean - mean).abs() < 1e-8 * (1.0 + mean.abs()), "{} vs {}", p.mean, mean);
            prop_assert!((p.variance - var.max(0.0)).abs() < 1e-8 * s);
            prop_assert!(p.variance >= 0.0 && p.variance <= s * (1.0 + 1e-12));
        }

        /// Failed pushes (non-finite data, full buffer) never change the model.
        #[test]
        fn rejected_pushes_change_nothing((obs, ls, s, noise, _m) in arb_problem(), bad in 0usize..3) {
            let k = Kernel::squared_exponential(ls, s).unwrap();
            let mut gp: Small = Gp::new(k, 0.0, noise, WhenFull::Reject, [0.0; tri_len(16)]).unwrap();
            for (x, y) in obs.iter().take(16) {
                gp.push(x, *y).unwrap();
            }
            let before = (gp.inputs().to_vec(), gp.factor().to_vec(), gp.alpha().to_vec());
            let full = gp.len() == 16;
            let r = match bad {
                0 => gp.push(&[f64::NAN, 0.5], 0.0),
                1 => gp.push(&[0.5, 0.5], f64::NEG_INFINITY),
                _ => gp.push(&[0.5, 0.5], 0.0),
            };
            if bad < 2 || full {
                prop_assert!(r.is_err());
                prop_assert_eq!(before, (gp.inputs().to_vec(), gp.factor().to_vec(), gp.alpha().to_vec()));
            }
        }
    }
}

#[test]
fn mean_gradient_agrees_with_full_gradient() {
    let mut rng = Lcg(59);
    let mut gp = new_gp(Shape::Matern52, 1e-3, WhenFull::Reject);
    for _ in 0..10 {
        let x = rng.point();
        gp.push(&x, objective(&x)).unwrap();
    }
    let t = rng.point();
    let (m, g) = gp.predict_mean_with_gradient(&t).unwrap();
    let full = gp.predict_with_gradient(&t).unwrap();
    assert!((m - full.mean).abs() < 1e-14);
    for i in 0..3 {
        assert!((g[i] - full.d_mean[i]).abs() < 1e-13);
    }
}

// ---- repeated inputs --------------------------------------------------------------------------
//
// Reference: the exact posterior of `c` copies at one input with noise σ² equals that of one
// observation of their mean with noise σ²/c. Given distinct inputs xᵢ with means ȳᵢ and counts
// cᵢ, the posterior is a dense solve with K + diag(σ²/cᵢ) (Gauss–Jordan, no Cholesky), and the
// log marginal likelihood of all copies is that of the means plus, per input,
// −(cᵢ−1)/2 ln(2πσ²) − ½ ln cᵢ − Σⱼ(yᵢⱼ − ȳᵢ)²/(2σ²).

/// Posterior mean and variance at `test` from groups `(x, outcomes)` by the closed form above.
fn grouped_reference(
    k: &Kernel<f64, 3>,
    mean: f64,
    noise: f64,
    groups: &[([f64; 3], Vec<f64>)],
    test: &[f64; 3],
) -> (f64, f64) {
    let n = groups.len();
    let ybar: Vec<f64> = groups
        .iter()
        .map(|(_, ys)| ys.iter().sum::<f64>() / ys.len() as f64)
        .collect();
    let a: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    let v = k.eval(&groups[i].0, &groups[j].0);
                    if i == j {
                        v + noise / groups[i].1.len() as f64
                    } else {
                        v
                    }
                })
                .collect()
        })
        .collect();
    let kstar: Vec<f64> = groups.iter().map(|(x, _)| k.eval(test, x)).collect();
    let b: Vec<Vec<f64>> = (0..n)
        .map(|i| std::vec![ybar[i] - mean, kstar[i]])
        .collect();
    let sol = gauss_jordan(a, b);
    let m = mean + (0..n).map(|i| kstar[i] * sol[i][0]).sum::<f64>();
    let v = k.outputscale() - (0..n).map(|i| kstar[i] * sol[i][1]).sum::<f64>();
    (m, v)
}

/// Log marginal likelihood of every copy by a dense solve over all of them (no merging).
fn ungrouped_lml(k: &Kernel<f64, 3>, mean: f64, noise: f64, xs: &[[f64; 3]], ys: &[f64]) -> f64 {
    let n = xs.len();
    let mut a = std::vec![0.0; tri_len(n)];
    for i in 0..n {
        for j in 0..=i {
            a[idx(i, j)] = k.eval(&xs[i], &xs[j]) + if i == j { noise } else { 0.0 };
        }
    }
    cholesky_in_place(&mut a, n).unwrap();
    let mut r: Vec<f64> = ys.iter().map(|y| y - mean).collect();
    crate::linalg::solve_lower(&a, n, &mut r);
    let quad: f64 = r.iter().map(|v| v * v).sum();
    -0.5 * (quad + log_det(&a, n) + n as f64 * core::f64::consts::TAU.ln())
}

fn unit_kernel32() -> Kernel<f32, 3> {
    Kernel::squared_exponential([0.3f32, 0.5, 0.8], 1.0).unwrap()
}

fn unit_kernel64() -> Kernel<f64, 3> {
    Kernel::squared_exponential([0.3, 0.5, 0.8], 1.0).unwrap()
}

/// Pushes `(x, y)` into an f64 and an f32 GP (prior mean 0) and returns both.
fn both_precisions<const M: usize>(
    noise: f64,
    data: &[([f64; 3], f64)],
    f64_factor: Vec<f64>,
    f32_factor: Vec<f32>,
) -> (Gp<f64, M, 3, Vec<f64>>, Gp<f32, M, 3, Vec<f32>>) {
    let mut g64 = Gp::new(unit_kernel64(), 0.0, noise, WhenFull::Reject, f64_factor).unwrap();
    let mut g32 = Gp::new(
        unit_kernel32(),
        0.0,
        noise as f32,
        WhenFull::Reject,
        f32_factor,
    )
    .unwrap();
    for (x, y) in data {
        g64.push(x, *y).unwrap();
        g32.push(&x.map(|v| v as f32), *y as f32).unwrap();
    }
    (g64, g32)
}

/// The GP tests' f32 tolerances (`f32_agrees_with_f64`): mean within 1e-3 of the output scale,
/// variance within 1e-3 absolute.
fn assert_close_to(want: (f64, f64), got: Prediction<f64>, what: &str) {
    assert!(
        (got.mean - want.0).abs() < 1e-3 && (got.variance - want.1).abs() < 1e-3,
        "{what}: mean {} variance {}, want {} {}",
        got.mean,
        got.variance,
        want.0,
        want.1
    );
}

fn widen(p: Prediction<f32>) -> Prediction<f64> {
    Prediction {
        mean: p.mean as f64,
        variance: p.variance as f64,
    }
}

#[test]
#[cfg_attr(
    feature = "fast-math",
    ignore = "compares f32 with f64 at libm's tolerances; fast-math's f32 exp is 2.4e-3 relative"
)]
fn alternating_repeats_with_tiny_noise_predict_their_mean_in_f32() {
    // The first case: 30 outcomes 0, 1, 0, 1, ... at one input, noise 1e-6. Before
    // merging, f32 predicted 0.034 here (the first copy dominated).
    let x = [0.4, 0.6, 0.2];
    let data: Vec<([f64; 3], f64)> = (0..30).map(|i| (x, (i % 2) as f64)).collect();
    let (g64, g32) = both_precisions::<4>(1e-6, &data, std::vec![0.0; 10], std::vec![0.0; 10]);
    let group = [(x, data.iter().map(|d| d.1).collect::<Vec<_>>())];
    for t in [x, [0.5, 0.5, 0.5], [0.1, 0.9, 0.3]] {
        let want = grouped_reference(&unit_kernel64(), 0.0, 1e-6, &group, &t);
        assert_close_to(want, g64.predict(&t).unwrap(), "f64");
        assert_close_to(
            want,
            widen(g32.predict(&t.map(|v| v as f32)).unwrap()),
            "f32",
        );
    }
    // At the input itself: the mean of the outcomes, 0.5, to the noise's shrinkage.
    let p = g32.predict(&x.map(|v| v as f32)).unwrap();
    assert!((p.mean - 0.5).abs() < 1e-3, "{}", p.mean);
    assert_eq!((g32.len(), g32.observations()), (1, 30));
    assert_eq!(g32.counts(), &[30]);
    // Spread: 30 outcomes of 0 and 1 around 0.5 → 30 · 0.25.
    assert!((g64.spreads()[0] - 7.5).abs() < 1e-12);
}

#[test]
fn conflicting_noise_free_repeats_stay_inside_the_data_in_f32() {
    // The second case: 2 000 copies with noise 0 and outcomes that disagree. Before
    // merging, f32 predicted 1.74, outside the data; the σ² → 0 limit of the exact posterior is
    // their mean.
    let x = [0.25, 0.75, 0.5];
    let data: Vec<([f64; 3], f64)> = (0..2000).map(|i| (x, (i % 3) as f64 * 0.5)).collect();
    let (g64, g32) = both_precisions::<2>(0.0, &data, std::vec![0.0; 3], std::vec![0.0; 3]);
    let mean = data.iter().map(|d| d.1).sum::<f64>() / 2000.0;
    let p64 = g64.predict(&x).unwrap();
    let p32 = g32.predict(&x.map(|v| v as f32)).unwrap();
    assert!((p64.mean - mean).abs() < 1e-9 && p64.variance < 1e-9);
    assert!(
        (p32.mean as f64 - mean).abs() < 1e-3,
        "{} vs {mean}",
        p32.mean
    );
    assert!(p32.variance < 1e-3);
    assert_eq!(g32.observations(), 2000);
}

#[test]
#[cfg_attr(
    feature = "fast-math",
    ignore = "compares f32 with f64 at libm's tolerances; fast-math's f32 exp is 2.4e-3 relative"
)]
fn mixed_repeats_and_distinct_points_match_the_grouped_closed_form() {
    // Four inputs measured 1, 5, 12 and 40 times with noise 1e-5 (below f32's old jitter of
    // about 3.5e-4), plus ten distinct points; interleaved so merges happen into every
    // position of the factor, not only the newest.
    let mut rng = Lcg(97);
    let repeated: Vec<[f64; 3]> = (0..4).map(|_| rng.point()).collect();
    let times = [1usize, 5, 12, 40];
    let mut groups: Vec<([f64; 3], Vec<f64>)> = repeated.iter().map(|x| (*x, Vec::new())).collect();
    let mut data = Vec::new();
    for round in 0..40 {
        for (g, &t) in times.iter().enumerate() {
            if round < t {
                let y = objective(&repeated[g]) + 0.3 * (rng.next() - 0.5);
                groups[g].1.push(y);
                data.push((repeated[g], y));
            }
        }
        if round % 4 == 0 {
            let x = rng.point();
            let y = objective(&x);
            groups.push((x, std::vec![y]));
            data.push((x, y));
        }
    }
    let noise = 1e-5;
    let (g64, g32) = both_precisions::<16>(
        noise,
        &data,
        std::vec![0.0; tri_len(16)],
        std::vec![0.0; tri_len(16)],
    );
    assert_eq!(g64.len(), 14);
    assert_eq!(g32.observations(), data.len() as u64);
    for _ in 0..20 {
        let t = rng.point();
        let want = grouped_reference(&unit_kernel64(), 0.0, noise, &groups, &t);
        assert_close_to(want, g64.predict(&t).unwrap(), "f64");
        assert_close_to(
            want,
            widen(g32.predict(&t.map(|v| v as f32)).unwrap()),
            "f32",
        );
    }
    for (x, ys) in &groups {
        let want = grouped_reference(&unit_kernel64(), 0.0, noise, &groups, x);
        let got = widen(g32.predict(&x.map(|v| v as f32)).unwrap());
        assert_close_to(want, got, "f32 at a data point");
        assert!(
            ys.len() == 1 || (got.mean - ys.iter().sum::<f64>() / ys.len() as f64).abs() < 0.05
        );
    }
    // The likelihood counts every copy: against a dense Cholesky over all of them (feasible
    // in f64 with noise 1e-2, where the unmerged matrix is well conditioned).
    let (xs, ys): (Vec<[f64; 3]>, Vec<f64>) = data.iter().cloned().unzip();
    let mut g = Gp::<f64, 16, 3, Vec<f64>>::new(
        unit_kernel64(),
        0.1,
        1e-2,
        WhenFull::Reject,
        std::vec![0.0; tri_len(16)],
    )
    .unwrap();
    for (x, y) in &data {
        g.push(x, *y).unwrap();
    }
    let want = ungrouped_lml(&unit_kernel64(), 0.1, 1e-2, &xs, &ys);
    let got = g.log_marginal_likelihood();
    assert!((got - want).abs() < 1e-9 * want.abs(), "{got} vs {want}");
}

#[test]
fn likelihood_gradient_with_repeats_matches_finite_differences() {
    let mut rng = Lcg(5);
    let a = rng.point();
    let mut gp = new_gp(Shape::Matern52, 3e-2, WhenFull::Reject);
    for i in 0..6 {
        gp.push(&a, objective(&a) + 0.1 * i as f64).unwrap();
        let x = rng.point();
        gp.push(&x, objective(&x)).unwrap();
    }
    assert_eq!(gp.counts().iter().filter(|c| **c == 6).count(), 1);
    let mut ws = std::vec![0.0; tri_len(N)];
    let (_, grad) = gp.log_marginal_likelihood_gradient(&mut ws).unwrap();
    let h0 = gp.hyperparameters();
    for c in 0..Hyperparameters::<f64, 3>::LEN {
        let step = 1e-5;
        let at = |d: f64| {
            let mut h = h0;
            *h.get_mut(c) += d;
            let mut g = gp.clone();
            g.set_log_hyperparameters(&h).unwrap();
            g.log_marginal_likelihood()
        };
        let fd = (at(step) - at(-step)) / (2.0 * step);
        assert!(
            (fd - grad.get(c)).abs() < 1e-5 * (1.0 + fd.abs()),
            "coordinate {c}: {fd} vs {}",
            grad.get(c)
        );
    }
}

#[test]
fn merging_errors_leave_the_model_unchanged_and_full_models_still_merge() {
    let mut rng = Lcg(23);
    let mut gp = new_gp(Shape::SquaredExponential, 1e-3, WhenFull::Reject);
    for _ in 0..N {
        let x = rng.point();
        gp.push(&x, objective(&x)).unwrap();
    }
    let first = gp.inputs()[0];
    // Full and rejecting, yet a repeat needs no room: it merges and moves to the newest slot.
    gp.push(&first, 2.0).unwrap();
    assert_eq!((gp.len(), gp.observations()), (N, N as u64 + 1));
    assert_eq!(gp.inputs()[N - 1], first);
    assert_eq!(gp.counts()[N - 1], 2);
    let before = snapshot(&gp);
    let counts = gp.counts().to_vec();
    assert_eq!(
        gp.push_merged(&first, 1.0, 0, 0.0),
        Err(GpError::InvalidHyperparameter)
    );
    assert_eq!(
        gp.push_merged(&first, 1.0, 1, 0.5),
        Err(GpError::InvalidHyperparameter)
    );
    assert_eq!(
        gp.push_merged(&first, 1.0, 3, -1.0),
        Err(GpError::InvalidHyperparameter)
    );
    assert_eq!(
        gp.push_merged(&first, 1.0, u32::MAX, 0.0),
        Err(GpError::Full)
    );
    assert_eq!(snapshot(&gp), before);
    assert_eq!(gp.counts(), &counts[..]);
    // push_merged of a summary equals pushing its observations one by one.
    let x = rng.point();
    let mut one_by_one = new_gp(Shape::SquaredExponential, 1e-3, WhenFull::Reject);
    let mut summary = new_gp(Shape::SquaredExponential, 1e-3, WhenFull::Reject);
    for y in [1.0, 2.0, 4.0] {
        one_by_one.push(&x, y).unwrap();
    }
    summary.push_merged(&x, 7.0 / 3.0, 3, 14.0 / 3.0).unwrap();
    assert!((one_by_one.outputs()[0] - summary.outputs()[0]).abs() < 1e-15);
    assert!((one_by_one.spreads()[0] - summary.spreads()[0]).abs() < 1e-14);
    assert_eq!(one_by_one.counts(), summary.counts());
}

#[test]
fn drop_oldest_forgets_the_input_measured_least_recently() {
    let mut gp: Gp<f64, 3, 3, [f64; tri_len(3)]> = Gp::new(
        kernel(Shape::SquaredExponential),
        0.0,
        1e-3,
        WhenFull::DropOldest,
        [0.0; tri_len(3)],
    )
    .unwrap();
    let (a, b, c, d) = (
        [0.1, 0.1, 0.1],
        [0.5, 0.5, 0.5],
        [0.9, 0.9, 0.9],
        [0.3, 0.7, 0.2],
    );
    for (x, y) in [(a, 1.0), (b, 2.0), (c, 3.0), (a, 3.0), (d, 0.0)] {
        gp.push(&x, y).unwrap();
    }
    // a was re-measured after c, so b is the oldest and goes.
    assert_eq!(gp.inputs(), &[c, a, d]);
    assert_eq!(gp.outputs(), &[3.0, 2.0, 0.0]);
    // The factor is that of the stored slots built from scratch (a with noise σ²/2).
    let mut fresh: Gp<f64, 3, 3, [f64; tri_len(3)]> = Gp::new(
        kernel(Shape::SquaredExponential),
        0.0,
        1e-3,
        WhenFull::Reject,
        [0.0; tri_len(3)],
    )
    .unwrap();
    fresh.push(&c, 3.0).unwrap();
    fresh.push_merged(&a, 2.0, 2, 2.0).unwrap();
    fresh.push(&d, 0.0).unwrap();
    for (u, v) in gp.factor().iter().zip(fresh.factor()) {
        assert!((u - v).abs() < 1e-12);
    }
}

#[test]
fn a_subnormal_outputscale_is_refused_instead_of_looping() {
    // Found by the snapshot fuzz target: with k(x, x) = 5e-324 and no noise, the jitter ladder
    // started at diag·√ε = 0 and never grew. A near repeat must now fail fast, unchanged.
    let k = Kernel::squared_exponential([0.3, 0.5, 0.8], 5e-324).unwrap();
    let mut gp: Gp64 = Gp::new(k, 0.0, 0.0, WhenFull::Reject, [0.0; tri_len(N)]).unwrap();
    gp.push(&[0.3, 0.3, 0.3], 1.0).unwrap();
    let before = snapshot(&gp);
    assert_eq!(
        gp.push(&[0.3, 0.3, 0.3 + 1e-12], 1.0),
        Err(GpError::NotPositiveDefinite)
    );
    assert_eq!(snapshot(&gp), before);
}

/// Pushes five clusters of six near-duplicate inputs (offsets of `delta` lengthscales, one
/// coordinate at a time) with conflicting outcomes into an f32 and an f64 model of the same
/// kernel, the inputs rounded to f32 first so that both see the same points; returns the
/// largest differences of mean and variance at the cluster centres and two points between.
fn near_duplicate_errors(delta: f64, noise: f64, matern: bool) -> (f64, f64) {
    const M: usize = 32;
    let ls = [0.3, 0.5, 0.8];
    let (k64, k32) = if matern {
        (
            Kernel::matern52(ls, 1.0).unwrap(),
            Kernel::matern52(ls.map(|v| v as f32), 1.0).unwrap(),
        )
    } else {
        (
            Kernel::squared_exponential(ls, 1.0).unwrap(),
            Kernel::squared_exponential(ls.map(|v| v as f32), 1.0).unwrap(),
        )
    };
    let mut g64: Gp<f64, M, 3, Vec<f64>> = Gp::new(
        k64,
        0.0,
        noise,
        WhenFull::Reject,
        std::vec![0.0; tri_len(M)],
    )
    .unwrap();
    let mut g32: Gp<f32, M, 3, Vec<f32>> = Gp::new(
        k32,
        0.0,
        noise as f32,
        WhenFull::Reject,
        std::vec![0.0; tri_len(M)],
    )
    .unwrap();
    let centres = [
        [0.4, 0.6, 0.2],
        [0.1, 0.2, 0.9],
        [0.8, 0.3, 0.5],
        [0.5, 0.9, 0.1],
        [0.25, 0.45, 0.65],
    ];
    for r in 0..6 {
        for (c, x0) in centres.iter().enumerate() {
            let mut x = *x0;
            x[r % 3] += delta * ls[r % 3] * (1 + r / 3) as f64;
            let y = ((r + c) % 2) as f64 + 0.1 * c as f64;
            let x32 = x.map(|v| v as f32);
            g64.push(&x32.map(f64::from), y).unwrap();
            g32.push(&x32, y as f32).unwrap();
        }
    }
    let mut worst = (0.0f64, 0.0f64);
    for t in centres.iter().chain(&[[0.5, 0.5, 0.5], [0.3, 0.3, 0.6]]) {
        let t32 = t.map(|v| v as f32);
        let p = g64.predict(&t32.map(f64::from)).unwrap();
        let q = widen(g32.predict(&t32).unwrap());
        worst.0 = worst.0.max((p.mean - q.mean).abs());
        worst.1 = worst.1.max((p.variance - q.variance).abs());
    }
    worst
}

#[test]
#[cfg_attr(
    feature = "fast-math",
    ignore = "compares f32 with f64 at libm's tolerances; fast-math's f32 exp is 2.4e-3 relative"
)]
fn near_duplicates_agree_in_f32_when_the_noise_conditions_the_problem() {
    // Near-duplicates (within a thousandth of a lengthscale, down to 1e-7: below f32's
    // resolution of the kernel) with conflicting outcomes. With noise at least 1e-3 of the
    // output scale the posterior is well conditioned whatever the spacing, and f32 agrees with
    // f64 within the GP tests' tolerances (mean 1e-3, variance 1e-3). Below that noise the
    // posterior itself is ill conditioned (f64's own mean swings by tens on this data at
    // noise 1e-6), and no f32 computation can follow it: docs/architecture.md, "Repeated and
    // near-repeated inputs", has the measured sweep and the merge rule that was rejected.
    for matern in [false, true] {
        for noise in [1e-3, 1e-2] {
            for delta in [1e-7, 1e-6, 1e-5, 1e-4, 1e-3] {
                let (mean, var) = near_duplicate_errors(delta, noise, matern);
                assert!(
                    mean < 1e-3 && var < 1e-3,
                    "matern {matern} noise {noise} delta {delta}: mean {mean:.2e} var {var:.2e}"
                );
            }
        }
    }
}

/// `botorch_map_with_scale_floor` on outputs `[1, 3]` (mean 2, unbiased sd √2, s² = 2): a
/// floor below √2 (or not finite and positive) changes nothing; a floor of 10 standardises by
/// 10, so every scale-dependent setting moves by hand-computed amounts (s² = 100).
fn check_scale_floor<R: Real + core::fmt::Debug>(tol: f64) {
    let f = R::from_f64;
    let y = [f(1.0), f(3.0)];
    let noise = f(1e-4);
    let plain = FitConfig::<R, 2>::botorch_map(&y, noise);
    for floor in [1.0, 1.4, 0.0, -5.0, f64::NAN, f64::INFINITY] {
        assert_eq!(
            FitConfig::botorch_map_with_scale_floor(&y, noise, f(floor)),
            plain,
            "floor {floor}"
        );
    }
    let c = FitConfig::<R, 2>::botorch_map_with_scale_floor(&y, noise, f(10.0));
    let close = |a: R, b: f64, what: &str| {
        assert!(
            (a.to_f64() - b).abs() <= tol * b.abs().max(1.0),
            "{what}: {a:?} vs {b}"
        )
    };
    let ln100 = 100f64.ln();
    close(
        c.lower.log_outputscale,
        ln100 + 1e-6f64.ln(),
        "outputscale lower",
    );
    close(
        c.upper.log_outputscale,
        ln100 + 1e6f64.ln(),
        "outputscale upper",
    );
    close(c.lower.mean, 2.0 - 1000.0, "mean lower");
    close(c.upper.mean, 2.0 + 1000.0, "mean upper");
    close(c.lower.log_noise, 1e-4f64.ln(), "noise lower");
    close(c.upper.log_noise, 1e-4f64.ln(), "noise upper");
    let start = c.first_start.unwrap();
    close(
        start.log_outputscale,
        2f64.ln().ln() + ln100,
        "start outputscale",
    );
    close(start.mean, 2.0, "start mean");
    match c.prior.unwrap().outputscale {
        CoordinatePrior::Gamma { shape, rate, shift } => {
            close(shape, 2.0, "shape");
            close(rate, 0.15, "rate");
            close(shift, ln100, "prior shift");
        }
        p => panic!("outputscale prior {p:?}"),
    }
    // The lengthscale settings do not depend on the outputs' scale.
    assert_eq!(c.lower.log_lengthscales, plain.lower.log_lengthscales);
    assert_eq!(c.upper.log_lengthscales, plain.upper.log_lengthscales);
}

#[test]
fn botorch_map_scale_floor_standardises_by_the_larger_scale_f64() {
    check_scale_floor::<f64>(1e-12);
}

#[test]
fn botorch_map_scale_floor_standardises_by_the_larger_scale_f32() {
    check_scale_floor::<f32>(1e-5);
}

/// `a(x) = 1 + x²`, the amplitude of the modulated-kernel tests.
fn quadratic_amplitude<R: Real>(x: &[R; 1]) -> (R, [R; 1]) {
    (R::ONE + x[0].sq(), [R::TWO * x[0]])
}

/// `a(x) = x − ½`: negative below ½, so kernel values there are not finite.
fn broken_amplitude<R: Real>(x: &[R; 1]) -> (R, [R; 1]) {
    (x[0] - R::HALF, [R::ONE])
}

fn modulated_gp<R: Real>(
    amplitude: crate::kernel::Amplitude<R, 1>,
) -> Gp<R, 8, 1, [R; tri_len(8)]> {
    let k = Kernel::matern52([R::from_f64(0.4)], R::from_f64(1.5))
        .unwrap()
        .with_amplitude(amplitude);
    Gp::new(
        k,
        R::from_f64(0.1),
        R::from_f64(1e-3),
        WhenFull::Reject,
        [R::ZERO; tri_len(8)],
    )
    .unwrap()
}

#[test]
fn modulated_kernel_posterior_matches_the_one_point_closed_form() {
    // One observation y₀ at x₀: μ(x) = m + k₀(y₀ − m)/(s·a(x₀) + σ²) and
    // σ²(x) = s·a(x) − k₀²/(s·a(x₀) + σ²), k₀ = √(a(x)a(x₀))·s·φ(|x − x₀|/ℓ).
    let phi = |r: f64| (1.0 + 5f64.sqrt() * r + 5.0 * r * r / 3.0) * (-(5f64.sqrt()) * r).exp();
    let a = |x: f64| 1.0 + x * x;
    let (x0, y0, m, s, noise) = (0.2, 1.0, 0.1, 1.5, 1e-3);
    let mut gp = modulated_gp::<f64>(crate::kernel::Amplitude(quadratic_amplitude));
    let prior = gp.predict(&[0.6]).unwrap();
    assert_eq!(prior.mean, 0.1);
    assert!((prior.variance - 1.5 * 1.36).abs() < 1e-15);
    gp.push(&[x0], y0).unwrap();
    let mut gp32 = modulated_gp::<f32>(crate::kernel::Amplitude(quadratic_amplitude));
    gp32.push(&[x0 as f32], y0 as f32).unwrap();
    for x in [0.2, 0.35, 0.6, 1.1] {
        let k0 = (a(x) * a(x0)).sqrt() * s * phi((x - x0).abs() / 0.4);
        let big_k = s * a(x0) + noise;
        let (mean, var) = (m + k0 * (y0 - m) / big_k, s * a(x) - k0 * k0 / big_k);
        let p = gp.predict(&[x]).unwrap();
        assert!(
            (p.mean - mean).abs() < 1e-13,
            "x = {x}: {} vs {mean}",
            p.mean
        );
        assert!(
            (p.variance - var).abs() < 1e-12,
            "x = {x}: {} vs {var}",
            p.variance
        );
        let q = gp.predict_with_gradient(&[x]).unwrap();
        assert!((q.mean - mean).abs() < 1e-13 && (q.variance - var).abs() < 1e-12);
        let p32 = gp32.predict(&[x as f32]).unwrap();
        assert!(
            (p32.mean as f64 - mean).abs() < 1e-5,
            "{} vs {mean}",
            p32.mean
        );
        // Variance: cancellation near x₀ costs f32 a few units of 1e-4 absolute.
        assert!(
            (p32.variance as f64 - var).abs() < 1e-3,
            "{} vs {var}",
            p32.variance
        );
    }
}

#[test]
fn modulated_kernel_posterior_gradients_match_finite_differences() {
    let mut gp = modulated_gp::<f64>(crate::kernel::Amplitude(quadratic_amplitude));
    for (x, y) in [(0.1, 0.3), (0.5, -0.2), (0.8, 0.9)] {
        gp.push(&[x], y).unwrap();
    }
    let h = 1e-6;
    for x in [0.05, 0.3, 0.65, 1.2] {
        let g = gp.predict_with_gradient(&[x]).unwrap();
        let (p, q) = (gp.predict(&[x + h]).unwrap(), gp.predict(&[x - h]).unwrap());
        let d_mean = (p.mean - q.mean) / (2.0 * h);
        let d_std = (p.variance.sqrt() - q.variance.sqrt()) / (2.0 * h);
        assert!(
            (g.d_mean[0] - d_mean).abs() < 1e-6,
            "x = {x}: {} vs {d_mean}",
            g.d_mean[0]
        );
        assert!(
            (g.d_std[0] - d_std).abs() < 1e-6,
            "x = {x}: {} vs {d_std}",
            g.d_std[0]
        );
    }
}

#[test]
fn hyperparameters_keep_the_amplitude_and_a_bad_one_is_an_error() {
    let mut gp = modulated_gp::<f64>(crate::kernel::Amplitude(quadratic_amplitude));
    gp.push(&[0.3], 0.5).unwrap();
    let k = Kernel::matern52([0.2], 2.0).unwrap();
    let mut h = gp.hyperparameters();
    h.log_lengthscales = [0.2f64.ln()];
    h.log_outputscale = 2f64.ln();
    gp.set_log_hyperparameters(&h).unwrap();
    assert!(gp.kernel().amplitude().is_some());
    // Prior variance far from the datum (correlation e^{−√5·12.5}·… ≈ 1e-12): s·a(x).
    let far = gp.predict(&[2.8]).unwrap();
    assert!((far.variance - 2.0 * (1.0 + 2.8 * 2.8)).abs() < 1e-9);
    assert_eq!(gp.kernel().eval(&[0.1], &[0.4]), {
        (1.01f64 * 1.16).sqrt() * k.eval(&[0.1], &[0.4])
    });
    // An amplitude that is negative at the point is refused with an error, model unchanged.
    let mut bad = modulated_gp::<f64>(crate::kernel::Amplitude(broken_amplitude));
    bad.push(&[0.9], 1.0).unwrap();
    assert!(bad.push(&[0.2], 1.0).is_err());
    assert_eq!(bad.len(), 1);
    assert!((bad.predict(&[0.9]).unwrap().mean - 1.0).abs() < 1e-2);
}

#[test]
fn a_fit_with_the_profile_cache_has_the_bits_of_one_without() {
    // 21 observations (two factor blocks and a remainder), every shape, both fit configs; a
    // cache one scalar short is not used. The reference is the uncached fit, whose likelihood
    // and gradient are checked against closed forms and finite differences above.
    for shape in [Shape::SquaredExponential, Shape::Matern52, Shape::Matern32] {
        let mut rng = Lcg(31);
        let mut gp = new_gp(shape, 1e-4, WhenFull::Reject);
        for _ in 0..21 {
            let x = rng.point();
            gp.push(&x, objective(&x)).unwrap();
        }
        for cfg in [
            FitConfig::botorch_map(gp.outputs(), 1e-4),
            FitConfig::map_learned_noise(gp.outputs(), 1e-6),
        ] {
            let mut plain = gp.clone();
            let want = plain.fit(&cfg).unwrap();
            for len in [fit_cache_len(21), fit_cache_len(21) - 1, fit_cache_len(24)] {
                let mut cached = gp.clone();
                let mut cache = vec![f64::NAN; len];
                let got = cached.fit_with_cache(&cfg, &mut cache).unwrap();
                assert_eq!(
                    got.objective.to_bits(),
                    want.objective.to_bits(),
                    "{shape:?}"
                );
                assert_eq!(got.evaluations, want.evaluations);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(cached.factor()), bits(plain.factor()), "{shape:?}");
                assert_eq!(cached.hyperparameters(), plain.hyperparameters());
            }
        }
    }
}

/// A model padded with inputs its kernel ignores fits as the model without them, bit for
/// bit, whatever values the padding holds: every fit (multi-start from the model's own
/// hyperparameters, BoTorch's MAP, the quasi-Newton ascent, Adam) and every shape. The
/// reference is the unpadded fit, checked against closed forms and finite differences above.
#[test]
fn a_fit_ignores_the_inputs_the_kernel_ignores() {
    type Padded = Gp<f64, N, 5, [f64; tri_len(N)]>;
    for shape in [Shape::SquaredExponential, Shape::Matern52, Shape::Matern32] {
        let mut rng = Lcg(57);
        let mut gp = new_gp(shape, 1e-3, WhenFull::Reject);
        let wide = Kernel::new(shape, [0.3, 0.5, 0.8, 0.2, 0.7], 1.3)
            .unwrap()
            .ignoring_inputs_from(3);
        let mut padded: Padded =
            Gp::new(wide, 0.2, 1e-3, WhenFull::Reject, [0.0; tri_len(N)]).unwrap();
        for _ in 0..14 {
            let x = rng.point();
            let y = objective(&x);
            gp.push(&x, y).unwrap();
            padded
                .push(&[x[0], x[1], x[2], rng.next(), 5.0 * rng.next()], y)
                .unwrap();
        }
        let mut multi_start = FitConfig::<f64, 3>::unit_cube(-1.0, 1.0);
        multi_start.evaluations_per_start = 30;
        let mut quasi_newton = FitConfig::<f64, 3>::botorch_map(gp.outputs(), 1e-3);
        quasi_newton.ascent = FitAscent::QuasiNewton;
        let widen = |c: &FitConfig<f64, 3>| {
            let h = |h: &Hyperparameters<f64, 3>, pad: f64| Hyperparameters::<f64, 5> {
                log_lengthscales: [
                    h.log_lengthscales[0],
                    h.log_lengthscales[1],
                    h.log_lengthscales[2],
                    pad,
                    pad,
                ],
                log_outputscale: h.log_outputscale,
                log_noise: h.log_noise,
                mean: h.mean,
            };
            FitConfig::<f64, 5> {
                // Bounds, start and prior of the ignored inputs are whatever the caller's.
                lower: h(&c.lower, -3.0),
                upper: h(&c.upper, 2.0),
                prior: c.prior.map(|p| Prior {
                    lengthscales: [
                        p.lengthscales[0],
                        p.lengthscales[1],
                        p.lengthscales[2],
                        p.lengthscales[0],
                        p.lengthscales[0],
                    ],
                    outputscale: p.outputscale,
                    noise: p.noise,
                    mean: p.mean,
                }),
                first_start: c.first_start.map(|s| h(&s, 0.5)),
                starts: c.starts,
                evaluations_per_start: c.evaluations_per_start,
                seed: c.seed,
                ascent: c.ascent,
            }
        };
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let same = |a: &Gp64, b: &Padded, what: &str| {
            assert_eq!(bits(a.factor()), bits(b.factor()), "{shape:?} {what}");
            assert_eq!(bits(a.alpha()), bits(b.alpha()), "{shape:?} {what}");
            let (ha, hb) = (a.hyperparameters(), b.hyperparameters());
            assert_eq!(ha.log_lengthscales[..], hb.log_lengthscales[..3]);
            assert!(hb.log_lengthscales[3..].iter().all(|l| *l == f64::INFINITY));
            assert_eq!(b.kernel().inputs_seen(), 3, "{shape:?} {what}");
            let p = a.predict(&[0.3, 0.6, 0.1]).unwrap();
            let q = b.predict(&[0.3, 0.6, 0.1, 0.9, -4.0]).unwrap();
            assert_eq!(p.mean.to_bits(), q.mean.to_bits(), "{shape:?} {what}");
            assert_eq!(
                p.variance.to_bits(),
                q.variance.to_bits(),
                "{shape:?} {what}"
            );
        };
        for (what, cfg) in [
            ("multi-start", multi_start),
            ("botorch", FitConfig::botorch_map(gp.outputs(), 1e-3)),
            ("quasi-newton", quasi_newton),
        ] {
            let (mut a, mut b) = (gp.clone(), padded.clone());
            let (ra, rb) = (a.fit(&cfg).unwrap(), b.fit(&widen(&cfg)).unwrap());
            assert_eq!(ra.objective.to_bits(), rb.objective.to_bits(), "{what}");
            assert_eq!(ra.evaluations, rb.evaluations, "{what}");
            assert!(ra.evaluations > 3, "{what}: {}", ra.evaluations);
            same(&a, &b, what);
            // A second fit starts from the first's hyperparameters (infinite where ignored).
            let (ra, rb) = (a.fit(&cfg).unwrap(), b.fit(&widen(&cfg)).unwrap());
            assert_eq!(
                ra.objective.to_bits(),
                rb.objective.to_bits(),
                "{what} again"
            );
            same(&a, &b, what);
        }
        let adam = AdamFit::<f64, 3> {
            start: Hyperparameters {
                log_lengthscales: [0.4f64.ln(); 3],
                log_outputscale: 0.0,
                log_noise: 1e-3f64.ln(),
                mean: 0.0,
            },
            lengthscale_bounds: (1e-2, 1e4),
            noise_floor: 1e-4,
            steps: 10,
            learning_rate: 0.1,
        };
        // The same start, its lengthscale also on the ignored inputs.
        let wide_adam = AdamFit::<f64, 5> {
            start: Hyperparameters {
                log_lengthscales: [adam.start.log_lengthscales[0]; 5],
                log_outputscale: adam.start.log_outputscale,
                log_noise: adam.start.log_noise,
                mean: adam.start.mean,
            },
            lengthscale_bounds: adam.lengthscale_bounds,
            noise_floor: adam.noise_floor,
            steps: adam.steps,
            learning_rate: adam.learning_rate,
        };
        let (mut a, mut b) = (gp.clone(), padded.clone());
        let ra = a.fit_adam(&adam, &mut []).unwrap();
        let rb = b.fit_adam(&wide_adam, &mut []).unwrap();
        assert_eq!(ra.objective.to_bits(), rb.objective.to_bits(), "adam");
        same(&a, &b, "adam");
    }
}
