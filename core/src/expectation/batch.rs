//! Fast expected bounds: batched over the bank, factorised for the squared exponential, and
//! screened by a cheap upper bound. Each is exact to rounding: they compute what
//! [`super::expected_bound`] computes, faster.
//!
//! - [`expected_bound_batched`] (any kernel, a stack scratch of `(2C + 1)·N` scalars): the bank
//!   is processed `C` points at a time. For one candidate `x`, the `C` bank points of a chunk
//!   give `C` kernel columns against the `n` training inputs; they are solved against the
//!   Cholesky factor together, walking `L` once per chunk instead of once per point, with the
//!   `C` right-hand sides of a row contiguous in memory (the inner loops run over them and
//!   vectorise). The gradient of `Σₛ σₛ` needs `wₛ = L⁻ᵀ(L⁻¹kₛ)/σₛ` for every bank point; that
//!   backward solve is batched the same way, and everything the gradient needs is folded into
//!   one coefficient per training input, so the gradient itself costs O(nD) at the end. Each
//!   chunk's values are computed with exactly the operations, in exactly the order, of
//!   [`Gp::predict_with_gradient`] (kernel value, `μ = m + kᵀα`, forward substitution,
//!   `s − ‖v‖²`), and the per-point bounds are summed in bank order, so the value is bit for bit
//!   that of [`super::expected_bound`]; the gradient agrees to rounding.
//! - [`FactorisedSe`] (squared exponential, `2S·n` scalars of caller workspace per control
//!   set): the kernel factorises over variables, so the random part of every bank point's
//!   kernel row is computed once per set and decision; a candidate then costs `n` exponentials
//!   and the triangular solves, and the gradient's backward solves are skipped when the caller
//!   says the value is too low for the gradient to be used.
//! - [`UcbScreen`] with [`Precision`] (`4·n(n+1)/2` scalars): an O(n²) upper bound of the
//!   expected UCB (Jensen: `E[σ] ≤ √E[σ²]`, and `E[σ²]` has a closed form through `K⁻¹`) and of
//!   the expected LCB (`σ ≥ σ²/√s`), so candidates that the optimiser would ignore anyway need
//!   no triangular solve at all.

use super::{merge, Bound, SampleBank};
use crate::gp::{Gp, GpError};
use crate::linalg::{invert_lower_in_place, row, row_start, tri_len};
use crate::problem::ControlSet;
use crate::real::{all_finite, Real};

/// Scratch of the batched evaluator for `C` bank points against at most `N` training inputs:
/// `(2C + 1)·N` scalars. Its contents between calls mean nothing.
#[derive(Debug, Clone)]
pub struct Chunk<R, const N: usize, const C: usize> {
    // `2s·φ'(r²)` per (training input, bank point): the kernel gradient is this times
    // `(x − xⱼ)/ℓ²`.
    slope: [[R; C]; N],
    // Kernel values, overwritten by `L⁻¹k`, then by `L⁻ᵀ(L⁻¹k)/σ`.
    cols: [[R; C]; N],
    // Gradient coefficient of each training input, summed over the bank.
    coef: [R; N],
}

impl<R: Real, const N: usize, const C: usize> Chunk<R, N, C> {
    /// A zeroed chunk.
    pub fn new() -> Self {
        Chunk {
            slope: [[R::ZERO; C]; N],
            cols: [[R::ZERO; C]; N],
            coef: [R::ZERO; N],
        }
    }

    /// Bytes of the scratch: what it adds to the stack when it lives there.
    pub const fn bytes() -> usize {
        core::mem::size_of::<Self>()
    }
}

impl<R: Real, const N: usize, const C: usize> Default for Chunk<R, N, C> {
    fn default() -> Self {
        Self::new()
    }
}

/// `E[b([x^set, X])]` over the bank, like [`super::expected_bound`], computed `C` bank points
/// at a time in `chunk`; the gradient only when `gradient` is true (zeros otherwise, which
/// saves the backward solves: half of the work).
pub fn expected_bound_batched<R, const N: usize, const D: usize, const C: usize, S, B>(
    gp: &Gp<R, N, D, S>,
    bank: &SampleBank<R, D, B>,
    set: ControlSet,
    x: &[R; D],
    bound: Bound<R>,
    gradient: bool,
    chunk: &mut Chunk<R, N, C>,
) -> Result<(R, [R; D]), GpError>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    let (beta, with_std) = match bound {
        Bound::Upper(b) => (b, true),
        Bound::Lower(b) => (-b, true),
        Bound::Mean => (R::ZERO, false),
    };
    let full = (0..D).all(|l| set.contains(l));
    let points = if full {
        &bank.points()[..1]
    } else {
        bank.points()
    };
    let n = gp.len();
    let kernel = gp.kernel();
    let os = kernel.outputscale();
    let shape = kernel.shape();
    let prior = gp.prior_mean();
    let inputs = gp.inputs();
    let alpha = gp.alpha();
    let l = gp.factor();
    let Chunk { slope, cols, coef } = chunk;
    let (slope, cols, coef) = (&mut slope[..n], &mut cols[..n], &mut coef[..n]);
    coef.fill(R::ZERO);
    let mut value = R::ZERO;
    for block in points.chunks(C) {
        let m = block.len();
        let mut pts = [[R::ZERO; D]; C];
        for (p, random) in pts.iter_mut().zip(block) {
            *p = merge(set, x, random);
            if !all_finite(p) {
                return Err(GpError::NonFinite);
            }
        }
        // Kernel columns, their slopes and the posterior means. `predict_with_gradient` forms
        // `m + Σ kⱼαⱼ` (the sum first), `predict_mean_with_gradient` `(m + k₀α₀) + k₁α₁ + …`.
        let mut mean = [if with_std { R::ZERO } else { prior }; C];
        for (((xj, aj), kj), sj) in inputs
            .iter()
            .zip(alpha)
            .zip(cols.iter_mut())
            .zip(slope.iter_mut())
        {
            for c in 0..m {
                let (v, dv) = shape.profile(kernel.scaled_sq_dist(&pts[c], xj));
                kj[c] = os * v;
                sj[c] = os * dv * R::TWO;
                mean[c] += kj[c] * *aj;
            }
            for c in m..C {
                kj[c] = R::ZERO;
                sj[c] = R::ZERO;
            }
        }
        if gradient {
            for ((cj, aj), sj) in coef.iter_mut().zip(alpha).zip(slope.iter()) {
                let mut s = R::ZERO;
                for v in &sj[..m] {
                    s += *v;
                }
                *cj += *aj * s;
            }
        }
        if !with_std {
            for mc in &mean[..m] {
                value += *mc;
            }
            continue;
        }
        // Forward substitution for all C columns: row i of L outer, the columns inner.
        let mut sq = [R::ZERO; C];
        for i in 0..n {
            let li = row(l, i);
            let (done, rest) = cols.split_at_mut(i);
            let mut acc = [R::ZERO; C];
            for (lij, vj) in li[..i].iter().zip(done.iter()) {
                for c in 0..C {
                    acc[c] += *lij * vj[c];
                }
            }
            let vi = &mut rest[0];
            let d = li[i];
            for c in 0..C {
                vi[c] = (vi[c] - acc[c]) / d;
                sq[c] += vi[c] * vi[c];
            }
        }
        let mut inv_std = [R::ZERO; C];
        for c in 0..m {
            let variance = (os - sq[c]).max(R::ZERO);
            let std = variance.sqrt();
            value += (prior + mean[c]) + beta * std;
            if std > R::ZERO {
                inv_std[c] = R::ONE / std;
            }
        }
        if !gradient {
            continue;
        }
        // Backward substitution `W = L⁻ᵀ(V / σ)` in place, reading column j of L, with
        // `Σ_c W[j][c]·slope[j][c]` folded into the coefficient of input j.
        for j in (0..n).rev() {
            let (head, tail) = cols.split_at_mut(j + 1);
            let mut acc = [R::ZERO; C];
            let mut k = row_start(j + 1) + j;
            for (t, wi) in tail.iter().enumerate() {
                let lij = l[k];
                for c in 0..C {
                    acc[c] += lij * wi[c];
                }
                k += j + 2 + t;
            }
            let vj = &mut head[j];
            let d = l[row_start(j) + j];
            let sj = &slope[j];
            let mut q = R::ZERO;
            for c in 0..C {
                vj[c] = (vj[c] * inv_std[c] - acc[c]) / d;
                q += vj[c] * sj[c];
            }
            coef[j] -= beta * q;
        }
    }
    let inv = R::ONE / R::from_usize(points.len());
    let mut grad = [R::ZERO; D];
    if gradient {
        for li in 0..D {
            if !set.contains(li) {
                continue;
            }
            let inv_sq = kernel.inverse_squared_lengthscales()[li];
            let mut g = R::ZERO;
            for (cj, xj) in coef.iter().zip(inputs) {
                g += *cj * (x[li] - xj[li]);
            }
            grad[li] = g * inv_sq * inv;
        }
    }
    Ok((value * inv, grad))
}

/// Expected bounds for the squared-exponential kernel through its factorisation over
/// variables, `k(p, xⱼ) = cⱼ(pⁱ)·rⱼ(p⁻ⁱ)` with `cⱼ = s·exp(−½Σ_{l∈I}(p_l − x_{jl})²/ℓ_l²)` and
/// `rⱼ = exp(−½Σ_{l∉I}(p_l − x_{jl})²/ℓ_l²)`.
///
/// With the bank fixed, the `S × n` matrix of `r` values depends only on the control set, so
/// it is computed once (in a caller's workspace) and every candidate then needs `n`
/// exponentials for `c` instead of `S·n`; the expected mean and its gradient reduce to O(n)
/// through `Σₛ rₛⱼ`. The forward solves of all chunks are kept, so that the gradient (the
/// backward solves, half of the work) can be computed only when the value asks for it (see
/// [`evaluate`](Self::evaluate)). The values agree with [`super::expected_bound`] to rounding
/// (the exponential of a sum is taken as a product of two, divisions by the factor's diagonal
/// as multiplications by its reciprocal).
#[derive(Debug)]
pub struct FactorisedSe<'w, R, const C: usize> {
    set: ControlSet,
    n: usize,
    // Bank points averaged over (1 for a set that controls every variable).
    count: usize,
    // `r` in chunks: chunk q, input j, lane c at `(q·n + j)·C + c`; zero past the bank's end.
    rand: &'w [R],
    // `L⁻¹k` of the last evaluation, same layout.
    solved: &'w mut [R],
    // `1/σ` of every bank point in the last evaluation (0 where σ = 0), chunk by chunk.
    inv_std: &'w mut [R],
    // `Σₛ rₛⱼ`.
    rsum: &'w [R],
    // `1/Lⱼⱼ`.
    inv_diag: &'w [R],
}

impl<'w, R: Real, const C: usize> FactorisedSe<'w, R, C> {
    /// Workspace scalars needed for `n` observations and a bank of `bank` points:
    /// `2⌈S/C⌉C·n + ⌈S/C⌉C + 2n`.
    pub const fn workspace_len(n: usize, bank: usize) -> usize {
        let lanes = bank.div_ceil(C) * C;
        2 * lanes * n + lanes + 2 * n
    }

    /// Precomputes the random factors of `set` for the current state of `gp` in `workspace`
    /// (`S·n` exponentials). `None` when the kernel is not the squared exponential, the
    /// workspace is shorter than [`workspace_len`](Self::workspace_len) or a bank point or the
    /// factor's diagonal is not usable (the generic path then reports the error).
    pub fn new<const N: usize, const D: usize, S, B>(
        gp: &Gp<R, N, D, S>,
        bank: &SampleBank<R, D, B>,
        set: ControlSet,
        workspace: &'w mut [R],
    ) -> Option<Self>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        let kernel = gp.kernel();
        if kernel.shape() != crate::kernel::Shape::SquaredExponential || !kernel.is_stationary() {
            return None;
        }
        let full = (0..D).all(|l| set.contains(l));
        let points = if full {
            &bank.points()[..1]
        } else {
            bank.points()
        };
        if !points.iter().all(|p| all_finite(p)) {
            return None;
        }
        let n = gp.len();
        let lanes = points.len().div_ceil(C) * C;
        let need = Self::workspace_len(n, points.len());
        if workspace.len() < need {
            return None;
        }
        let (rand, rest) = workspace[..need].split_at_mut(lanes * n);
        let (solved, rest) = rest.split_at_mut(lanes * n);
        let (inv_std, rest) = rest.split_at_mut(lanes);
        let (rsum, inv_diag) = rest.split_at_mut(n);
        let l = gp.factor();
        for (j, d) in inv_diag.iter_mut().enumerate() {
            *d = R::ONE / l[row_start(j) + j];
            if !d.is_finite() {
                return None;
            }
        }
        rsum.fill(R::ZERO);
        let inputs = gp.inputs();
        for (q, block) in points.chunks(C).enumerate() {
            let rows = &mut rand[q * n * C..(q + 1) * n * C];
            for ((row, xj), sj) in rows.chunks_exact_mut(C).zip(inputs).zip(rsum.iter_mut()) {
                for (c, r) in row.iter_mut().enumerate() {
                    *r = match block.get(c) {
                        Some(p) => {
                            let r2 = kernel.scaled_sq_dist_over(p, xj, |l| !set.contains(l));
                            (-R::HALF * r2).exp()
                        }
                        None => R::ZERO,
                    };
                    *sj += *r;
                }
            }
        }
        Some(FactorisedSe {
            set,
            n,
            count: points.len(),
            rand,
            solved,
            inv_std,
            rsum,
            inv_diag,
        })
    }

    /// The control set this was built for.
    pub fn set(&self) -> ControlSet {
        self.set
    }

    /// Writes the controlled factors `cⱼ` through `ctrl` and `−cⱼαⱼΣₛrₛⱼ` (the mean's gradient
    /// coefficients) into `coef`; returns `Σⱼ cⱼαⱼΣₛrₛⱼ`, `S` times the expected mean's
    /// deviation from the prior mean.
    fn controlled<'a, const N: usize, const D: usize, S>(
        &self,
        gp: &Gp<R, N, D, S>,
        x: &[R; D],
        ctrl: impl Iterator<Item = &'a mut R>,
        coef: &mut [R],
    ) -> R
    where
        R: 'a,
        S: AsRef<[R]> + AsMut<[R]>,
    {
        let kernel = gp.kernel();
        let os = kernel.outputscale();
        let mut mean_sum = R::ZERO;
        for ((((cj, xj), aj), rs), kj) in ctrl
            .zip(gp.inputs())
            .zip(gp.alpha())
            .zip(self.rsum)
            .zip(coef.iter_mut())
        {
            let r2 = kernel.scaled_sq_dist_over(x, xj, |l| self.set.contains(l));
            let c = os * (-R::HALF * r2).exp();
            *cj = c;
            let t = c * *aj * *rs;
            mean_sum += t;
            // Σₛ ∂kₛⱼ/∂x = −cⱼ Σₛ rₛⱼ (x − xⱼ)/ℓ².
            *kj = -t;
        }
        mean_sum
    }

    /// `E[b([x^set, X])]` over the bank, and its gradient if that value is at least
    /// `gradient_from` (`−∞`: always; `+∞`: never) — the backward solves are skipped
    /// otherwise. For the GP this was built from (unchanged since: [`GpError::LengthMismatch`]
    /// if its size differs).
    pub fn evaluate<const N: usize, const D: usize, S>(
        &mut self,
        gp: &Gp<R, N, D, S>,
        x: &[R; D],
        bound: Bound<R>,
        gradient_from: R,
        chunk: &mut Chunk<R, N, C>,
    ) -> Result<(R, Option<[R; D]>), GpError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
    {
        let n = self.n;
        if gp.len() != n || n > N {
            return Err(GpError::LengthMismatch);
        }
        let set = self.set;
        if !(0..D).all(|l| !set.contains(l) || x[l].is_finite()) {
            return Err(GpError::NonFinite);
        }
        let (beta, with_std) = match bound {
            Bound::Upper(b) => (b, true),
            Bound::Lower(b) => (-b, true),
            Bound::Mean => (R::ZERO, false),
        };
        let kernel = gp.kernel();
        let os = kernel.outputscale();
        let l = gp.factor();
        let Chunk { slope, coef, .. } = chunk;
        // The controlled factor of every input, kept in `slope[j][0]`.
        let ctrl = &mut slope[..n];
        let coef = &mut coef[..n];
        let count = R::from_usize(self.count);
        let mean_sum = self.controlled(gp, x, ctrl.iter_mut().map(|r| &mut r[0]), coef);
        let mut value = gp.prior_mean() + mean_sum / count;
        if with_std && n == 0 {
            value += beta * os.sqrt();
        } else if with_std {
            let mut std_sum = R::ZERO;
            let chunks = self
                .rand
                .chunks_exact(n * C)
                .zip(self.solved.chunks_exact_mut(n * C))
                .zip(self.inv_std.chunks_exact_mut(C));
            for (q, ((rq, vq), iq)) in chunks.enumerate() {
                let m = C.min(self.count - q * C);
                let mut sq = [R::ZERO; C];
                for i in 0..n {
                    let li = row(l, i);
                    let (done, rest) = vq.split_at_mut(i * C);
                    let mut acc = [R::ZERO; C];
                    for (lij, vj) in li[..i].iter().zip(done.chunks_exact(C)) {
                        for c in 0..C {
                            acc[c] += *lij * vj[c];
                        }
                    }
                    let vi = &mut rest[..C];
                    let ri = &rq[i * C..(i + 1) * C];
                    let (ci, d) = (ctrl[i][0], self.inv_diag[i]);
                    for c in 0..C {
                        vi[c] = (ci * ri[c] - acc[c]) * d;
                        sq[c] += vi[c] * vi[c];
                    }
                }
                iq.fill(R::ZERO);
                for c in 0..m {
                    let std = (os - sq[c]).max(R::ZERO).sqrt();
                    std_sum += std;
                    if std > R::ZERO {
                        iq[c] = R::ONE / std;
                    }
                }
            }
            value += beta * std_sum / count;
        }
        // No gradient below the threshold, nor for a NaN value.
        if matches!(
            value.partial_cmp(&gradient_from),
            None | Some(core::cmp::Ordering::Less)
        ) {
            return Ok((value, None));
        }
        if with_std && n > 0 {
            let chunks = self
                .rand
                .chunks_exact(n * C)
                .zip(self.solved.chunks_exact_mut(n * C))
                .zip(self.inv_std.chunks_exact(C));
            for ((rq, vq), iq) in chunks {
                // Backward substitution `W = L⁻ᵀ(V / σ)` in place, reading column j of L, with
                // `Σ_c W[j][c]·r[j][c]` folded into the coefficient of input j.
                for j in (0..n).rev() {
                    let (head, tail) = vq.split_at_mut((j + 1) * C);
                    let mut acc = [R::ZERO; C];
                    let mut k = row_start(j + 1) + j;
                    for (t, wi) in tail.chunks_exact(C).enumerate() {
                        let lij = l[k];
                        for c in 0..C {
                            acc[c] += lij * wi[c];
                        }
                        k += j + 2 + t;
                    }
                    let vj = &mut head[j * C..];
                    let rj = &rq[j * C..(j + 1) * C];
                    let d = self.inv_diag[j];
                    let mut t = R::ZERO;
                    for c in 0..C {
                        vj[c] = (vj[c] * iq[c] - acc[c]) * d;
                        t += vj[c] * rj[c];
                    }
                    // Σ_c wⱼ ∂kⱼ = −cⱼ Σ_c wⱼ rⱼ (x − xⱼ)/ℓ²; the σ part enters with −β.
                    coef[j] += beta * ctrl[j][0] * t;
                }
            }
        }
        let inputs = gp.inputs();
        let mut grad = [R::ZERO; D];
        for (ll, g) in grad.iter_mut().enumerate() {
            if !set.contains(ll) {
                continue;
            }
            let inv_sq = kernel.inverse_squared_lengthscales()[ll];
            let mut s = R::ZERO;
            for (cj, xj) in coef.iter().zip(inputs) {
                s += *cj * (x[ll] - xj[ll]);
            }
            *g = s * inv_sq / count;
        }
        Ok((value, Some(grad)))
    }
}

/// `K⁻¹ = L⁻ᵀL⁻¹` and `|L⁻¹|ᵀ|L⁻¹|` of a GP's factor, as packed lower triangles: what
/// [`UcbScreen`] needs, built once per decision in O(n³).
#[derive(Debug)]
pub struct Precision<'w, R> {
    n: usize,
    kinv: &'w [R],
    kabs: &'w [R],
}

impl<'w, R: Real> Precision<'w, R> {
    /// Workspace scalars for `n` observations (`scratch` needs half as many, only during
    /// [`new`](Self::new)).
    pub const fn workspace_len(n: usize) -> usize {
        2 * tri_len(n)
    }

    /// Inverts the factor of `gp` in `scratch` and forms both products in `workspace`. `None`
    /// when a buffer is too short or the inverse is not finite.
    pub fn new<const N: usize, const D: usize, S>(
        gp: &Gp<R, N, D, S>,
        workspace: &'w mut [R],
        scratch: &mut [R],
    ) -> Option<Self>
    where
        S: AsRef<[R]> + AsMut<[R]>,
    {
        let n = gp.len();
        let t = tri_len(n);
        if workspace.len() < 2 * t || scratch.len() < t {
            return None;
        }
        let m = &mut scratch[..t];
        m.copy_from_slice(gp.factor());
        invert_lower_in_place(m, n);
        if !all_finite(m) {
            return None;
        }
        let (kinv, rest) = workspace.split_at_mut(t);
        let kabs = &mut rest[..t];
        kinv.fill(R::ZERO);
        kabs.fill(R::ZERO);
        // Σₖ mₖmₖᵀ over the rows mₖ of L⁻¹ (row k is zero beyond column k).
        for k in 0..n {
            let mk = row(m, k);
            for (i, &a) in mk.iter().enumerate() {
                let start = row_start(i);
                let (ki, ka) = (&mut kinv[start..=start + i], &mut kabs[start..=start + i]);
                let aa = a.abs();
                for ((p, q), b) in ki.iter_mut().zip(ka.iter_mut()).zip(&mk[..=i]) {
                    *p += a * *b;
                    *q += aa * b.abs();
                }
            }
        }
        Some(Precision { n, kinv, kabs })
    }
}

/// Safety factor of the screening margin, in units of `(n+1)·ε` times the magnitude of the
/// terms of the quadratic form (see [`UcbScreen::upper_bound`]).
const SCREEN_MARGIN: f64 = 1024.0;

/// A cheap upper bound of the expected UCB (and, looser, of the expected LCB) of one control
/// set, for screening candidates.
///
/// By Jensen, `E[σ] ≤ √E[σ²]`, and for the squared-exponential kernel the bank average of the
/// posterior variance has the closed form `E[σ²] = s − cᵀ(K⁻¹ ⊙ G)c / S` with
/// `G = Σₛ rₛrₛᵀ` the Gram matrix of the random factors ([`FactorisedSe`]): one O(n²)
/// quadratic form per candidate instead of `S` triangular solves.
#[derive(Debug)]
pub struct UcbScreen<'w, R> {
    n: usize,
    // K⁻¹ ⊙ G and |L⁻¹|ᵀ|L⁻¹| ⊙ G, packed.
    p: &'w [R],
    pabs: &'w [R],
}

impl<'w, R: Real> UcbScreen<'w, R> {
    /// Workspace scalars for `n` observations.
    pub const fn workspace_len(n: usize) -> usize {
        2 * tri_len(n)
    }

    /// Forms `G` from the random factors of `fs` (`S·n²/2` operations, the price of one
    /// candidate's exact value) and the two products. `None` when the sizes disagree or the
    /// workspace is too short.
    pub fn new<const N: usize, const C: usize>(
        precision: &Precision<'_, R>,
        fs: &FactorisedSe<'_, R, C>,
        workspace: &'w mut [R],
        chunk: &mut Chunk<R, N, C>,
    ) -> Option<Self> {
        let n = fs.n;
        let t = tri_len(n);
        if precision.n != n || workspace.len() < 2 * t || n > N {
            return None;
        }
        let (p, rest) = workspace.split_at_mut(t);
        let pabs = &mut rest[..t];
        pabs.fill(R::ZERO);
        let r = &mut chunk.coef[..n];
        // G accumulates in `pabs`, one bank point at a time.
        for s in 0..fs.count {
            let (q, c) = (s / C, s % C);
            for (j, rj) in r.iter_mut().enumerate() {
                *rj = fs.rand[(q * n + j) * C + c];
            }
            for (i, &a) in r.iter().enumerate() {
                let start = row_start(i);
                for (g, b) in pabs[start..=start + i].iter_mut().zip(&r[..=i]) {
                    *g += a * *b;
                }
            }
        }
        for (((pv, av), kv), ka) in p
            .iter_mut()
            .zip(pabs.iter_mut())
            .zip(precision.kinv)
            .zip(precision.kabs)
        {
            *pv = *kv * *av;
            *av = *ka * *av;
        }
        Some(UcbScreen { n, p, pabs })
    }

    /// An upper bound of `fs.evaluate(gp, x, Bound::Upper(beta), ..)` for `beta ≥ 0`:
    /// `E[μ] + β√(s − cᵀ(K⁻¹⊙G)c/S + δ)` plus a rounding allowance of a few ulps per term of
    /// the exact value. `δ = 1024·(n+1)·ε·cᵀ(|L⁻¹|ᵀ|L⁻¹|⊙G)c/S` covers the rounding of the
    /// quadratic form (whose terms cancel heavily) and of the exact evaluation's solves: about
    /// 500 times the worst error seen over well- and ill-conditioned factors. `fs` and `gp`
    /// must be the ones this screen and `fs` were built from.
    pub fn upper_bound<const N: usize, const D: usize, const C: usize, S>(
        &self,
        fs: &FactorisedSe<'_, R, C>,
        gp: &Gp<R, N, D, S>,
        x: &[R; D],
        beta: R,
        chunk: &mut Chunk<R, N, C>,
    ) -> R
    where
        S: AsRef<[R]> + AsMut<[R]>,
    {
        let (mean, var_sum, delta) = self.mean_and_variance(fs, gp, x, chunk);
        let os = gp.kernel().outputscale();
        let var = (var_sum + delta).max(R::ZERO);
        mean + beta * var.sqrt() + self.slack(fs, mean, beta, os)
    }

    /// An upper bound of `fs.evaluate(gp, x, Bound::Lower(beta), ..)` for `beta ≥ 0`. Each
    /// bank point's `σ` lies in `[0, √s]`, so `σ ≥ σ²/√s`, and `E[σ] ≥ (E[σ²] − δ)/√s` with
    /// the closed form and margin of [`upper_bound`](Self::upper_bound):
    /// `E[μ] − β·max(s − cᵀ(K⁻¹⊙G)c/S − δ, 0)/√s`, plus the same rounding allowance. Looser
    /// than the UCB bound where the posterior is confident, and never above `E[μ]` (plus the
    /// allowance).
    pub fn lcb_upper_bound<const N: usize, const D: usize, const C: usize, S>(
        &self,
        fs: &FactorisedSe<'_, R, C>,
        gp: &Gp<R, N, D, S>,
        x: &[R; D],
        beta: R,
        chunk: &mut Chunk<R, N, C>,
    ) -> R
    where
        S: AsRef<[R]> + AsMut<[R]>,
    {
        let (mean, var_sum, delta) = self.mean_and_variance(fs, gp, x, chunk);
        let os = gp.kernel().outputscale();
        let var = (var_sum - delta).max(R::ZERO);
        let std_floor = if os > R::ZERO {
            var / os.sqrt()
        } else {
            R::ZERO
        };
        mean - beta * std_floor + self.slack(fs, mean, beta, os)
    }

    /// `E[μ]`, the closed-form `E[σ²]` and its rounding margin `δ`.
    fn mean_and_variance<const N: usize, const D: usize, const C: usize, S>(
        &self,
        fs: &FactorisedSe<'_, R, C>,
        gp: &Gp<R, N, D, S>,
        x: &[R; D],
        chunk: &mut Chunk<R, N, C>,
    ) -> (R, R, R)
    where
        S: AsRef<[R]> + AsMut<[R]>,
    {
        let n = self.n;
        let Chunk { slope, coef, .. } = chunk;
        let mean_sum = fs.controlled(
            gp,
            x,
            slope[..n].iter_mut().map(|r| &mut r[0]),
            &mut coef[..n],
        );
        let count = R::from_usize(fs.count);
        let mean = gp.prior_mean() + mean_sum / count;
        let os = gp.kernel().outputscale();
        let (mut t, mut tabs) = (R::ZERO, R::ZERO);
        for i in 0..n {
            let start = row_start(i);
            let ci = slope[i][0];
            let (mut a, mut b) = (R::ZERO, R::ZERO);
            for ((pv, av), sj) in self.p[start..start + i]
                .iter()
                .zip(&self.pabs[start..start + i])
                .zip(&slope[..i])
            {
                a += *pv * sj[0];
                b += *av * sj[0];
            }
            t += ci * (self.p[start + i] * ci + R::TWO * a);
            tabs += ci * (self.pabs[start + i] * ci + R::TWO * b);
        }
        let eps = R::EPSILON;
        let delta = R::from_f64(SCREEN_MARGIN) * R::from_usize(n + 1) * eps * tabs / count;
        (mean, os - t / count, delta)
    }

    /// The exact value sums `S` standard deviations and the mean `n` terms: a few ulps each.
    fn slack<const C: usize>(&self, fs: &FactorisedSe<'_, R, C>, mean: R, beta: R, os: R) -> R {
        R::from_usize(4 * (fs.count + self.n) + 16) * R::EPSILON * (mean.abs() + beta * os.sqrt())
    }
}
