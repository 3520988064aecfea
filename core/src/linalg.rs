//! Dense linear algebra on packed lower-triangular matrices.
//!
//! A symmetric `n × n` matrix, or a lower-triangular factor, is stored row by row with only the
//! entries on or below the diagonal: element `(i, j)` with `j <= i` lives at `i (i + 1) / 2 + j`.
//! That halves the memory of a Gaussian process (8.3 KiB instead of 16 KiB for 64 points in
//! `f32`) and makes appending a row a write at the end of the buffer, so the Cholesky factor
//! grows in O(n²) per observation without moving anything.
//!
//! Every function takes the logical size `n` and a slice that holds at least
//! [`tri_len`]`(n)` elements; callers (the GP) check lengths once, so these functions only
//! `debug_assert` them.

use crate::real::{dot, Real};

/// Number of stored elements of a packed triangle of order `n`.
#[inline]
pub const fn tri_len(n: usize) -> usize {
    n * (n + 1) / 2
}

/// Offset of the start of row `i` in a packed triangle.
#[inline]
pub const fn row_start(i: usize) -> usize {
    i * (i + 1) / 2
}

/// Index of element `(i, j)`, `j <= i`, in a packed triangle.
#[inline]
pub const fn idx(i: usize, j: usize) -> usize {
    row_start(i) + j
}

/// The stored part of row `i` (columns `0..=i`).
#[inline]
pub fn row<R: Real>(l: &[R], i: usize) -> &[R] {
    &l[row_start(i)..row_start(i) + i + 1]
}

/// The factorisation met a pivot that is not positive: the matrix is not (numerically)
/// positive definite from this row on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotPositiveDefinite {
    /// Row at which the pivot failed.
    pub row: usize,
}

/// Cholesky factorisation in place: on entry `a` holds the lower triangle of a symmetric
/// matrix, on success it holds `L` with `A = L Lᵀ`.
///
/// Row-oriented (each row is a forward solve against the rows above), which is the same
/// arithmetic [`append_row`] performs; batch and incremental factors therefore agree to the
/// last bit when the same pivots are accepted.
pub fn cholesky_in_place<R: Real>(a: &mut [R], n: usize) -> Result<(), NotPositiveDefinite> {
    debug_assert!(a.len() >= tri_len(n));
    for i in 0..n {
        let (done, rest) = a.split_at_mut(row_start(i));
        let row_i = &mut rest[..i + 1];
        let pivot = factor_row(done, i, row_i);
        // Also rejects NaN, for which every comparison is false.
        if !pivot.is_finite() || pivot <= R::ZERO {
            return Err(NotPositiveDefinite { row: i });
        }
        row_i[i] = pivot.sqrt();
    }
    Ok(())
}

/// Given the factor `l` of order `i` and the new row `r = [k_0 .. k_{i-1}, k_ii]` of the
/// matrix, overwrites `r[..i]` with `L⁻¹ k` and returns the Schur complement
/// `k_ii − ‖L⁻¹ k‖²` (the squared new diagonal of the factor) without writing it.
#[inline]
pub fn factor_row<R: Real>(l: &[R], i: usize, r: &mut [R]) -> R {
    factor_row_from(l, i, 0, r)
}

/// [`factor_row`] for a row whose entries before column `from` are already those of `L⁻¹ k`
/// (left by [`eliminate_rows`]): solves for entries `from..i` and returns the Schur complement.
#[inline]
pub fn factor_row_from<R: Real>(l: &[R], i: usize, from: usize, r: &mut [R]) -> R {
    forward_rows(l, from, i, r);
    r[i] - dot(&r[..i], &r[..i])
}

/// Entries `from..to` of a forward solve `L x = b` in place, entries `..from` already solved:
/// `b[i] = (b[i] − Σ_{k<i} L_ik b[k]) / L_ii`, each sum from `k = 0` upwards.
///
/// Why `FORWARD_BLOCK` rows at a time: each entry's sum is a chain of dependent additions
/// that runs at the adder's latency. The sums of rows `i..i + 4` over the columns `k < i` do
/// not depend on one another, so they run side by side as four chains, and each then adds its last terms
/// (columns `i..`, solved meanwhile) in the order of one row at a time. Every entry adds the same
/// terms in the same order as one row at a time: the bits are unchanged. Not on 32-bit Arm:
/// the Cortex-M's in-order FPU adds in a cycle or so, so there is no latency to hide, and the
/// blocked loop took 6 % more instructions a PBGI-D decision on the M4F than one row at a time
/// (docs/embedded.md).
#[inline]
pub fn forward_rows<R: Real>(l: &[R], from: usize, to: usize, b: &mut [R]) {
    let mut i = from;
    if !cfg!(target_arch = "arm") {
        i = forward_row_blocks::<R, FORWARD_BLOCK>(l, i, to, b);
    }
    for j in i..to {
        let lj = row(l, j);
        b[j] = (b[j] - dot(&lj[..j], &b[..j])) / lj[j];
    }
}

/// Rows solved side by side by [`forward_rows`]: four chains of additions (each addition
/// waits about four cycles for the one before); eight measured no faster.
const FORWARD_BLOCK: usize = 4;

/// [`forward_rows`]'s blocks of `W` rows from `from` while a whole block fits below `to`;
/// returns the first row left.
#[inline(always)]
fn forward_row_blocks<R: Real, const W: usize>(
    l: &[R],
    from: usize,
    to: usize,
    b: &mut [R],
) -> usize {
    let mut i = from;
    while i + W <= to {
        let rows: [&[R]; W] = core::array::from_fn(|r| &row(l, i + r)[..=i + r]);
        let mut s = [R::ZERO; W];
        for (k, bk) in b[..i].iter().enumerate() {
            for (st, lr) in s.iter_mut().zip(&rows) {
                *st += lr[k] * *bk;
            }
        }
        // The block's own triangle, in order: row r adds columns i.., each once solved.
        for r in 0..W {
            let x = (b[i + r] - s[r]) / rows[r][i + r];
            b[i + r] = x;
            for (st, lr) in s[r + 1..].iter_mut().zip(&rows[r + 1..]) {
                *st += lr[i + r] * x;
            }
        }
        i += W;
    }
    i
}

/// The first `i0` entries of `B` consecutive rows `i0..i0 + B` of a packed factor whose rows
/// `0..i0` are finished: on entry each row holds its matrix row (in place, packed), on exit
/// entries `0..i0` are those [`factor_row`] computes; the rest of each row is untouched and
/// [`factor_row_from`]`(l, i, i0, row)` completes it. (Entries `0..i0` of each row are a
/// forward solve against the finished rows: [`solve_lower_many`].)
pub fn eliminate_rows<R: Real, const B: usize>(l: &mut [R], i0: usize) {
    debug_assert!(l.len() >= tri_len(i0 + B));
    let (done, block) = l.split_at_mut(row_start(i0));
    let mut rows: [&mut [R]; B] = [(); B].map(|_| -> &mut [R] { &mut [] });
    let mut rest = block;
    for (t, slot) in rows.iter_mut().enumerate() {
        let (r, tail) = core::mem::take(&mut rest).split_at_mut(i0 + t + 1);
        *slot = &mut r[..i0];
        rest = tail;
    }
    solve_lower_many(done, i0, &mut rows);
}

/// [`solve_lower`] for `B` right-hand sides at once (each at least `n` long), with the bits of
/// `B` separate calls.
///
/// Why: each entry of a forward solve is a dot product summed in a fixed order, a chain of
/// dependent additions that runs at the adder's latency, not its throughput. The `B` chains
/// are independent, so running them side by side (and reading each row of `L` once for all of
/// them) is several times faster, while every entry adds the same terms in the same order.
pub fn solve_lower_many<R: Real, const B: usize>(l: &[R], n: usize, bs: &mut [&mut [R]; B]) {
    for i in 0..n {
        let li = row(l, i);
        let mut s = [R::ZERO; B];
        for (k, a) in li[..i].iter().enumerate() {
            for (st, b) in s.iter_mut().zip(bs.iter()) {
                *st += *a * b[k];
            }
        }
        for (st, b) in s.iter().zip(bs.iter_mut()) {
            b[i] = (b[i] - *st) / li[i];
        }
    }
}

/// [`solve_lower`] for `B` right-hand sides stored interleaved (`bs[k][t]` is entry `k` of
/// right-hand side `t`; at least `n` entries), with the bits of `B` separate calls.
///
/// Why interleaved: entry `k` of every right-hand side is one contiguous group, so each term
/// of the `B` sums is one vector multiply and one vector add (on a desktop core's 4- or 8-lane
/// registers) instead of `B` scalar ones. Why four rows at a time (as [`forward_rows`]): one
/// row's vector of sums is still one chain of dependent additions, so rows `i..i + 4` sum their
/// columns `k < i` side by side and then add their last terms in order. Every lane adds the
/// same terms in the same order as [`solve_lower`], so the bits are the same.
pub fn solve_lower_interleaved<R: Real, const B: usize>(l: &[R], n: usize, bs: &mut [[R; B]]) {
    /// `s[t] += a · b[t]` for every lane.
    #[inline(always)]
    fn add_scaled<R: Real, const B: usize>(s: &mut [R; B], a: R, b: &[R; B]) {
        for (st, bt) in s.iter_mut().zip(b) {
            *st += a * *bt;
        }
    }
    /// `(b[t] − s[t]) / d` for every lane.
    #[inline(always)]
    fn finish<R: Real, const B: usize>(b: &[R; B], s: &[R; B], d: R) -> [R; B] {
        core::array::from_fn(|t| (b[t] - s[t]) / d)
    }
    let mut i = 0;
    while i + 4 <= n {
        let (l0, l1, l2, l3) = (row(l, i), row(l, i + 1), row(l, i + 2), row(l, i + 3));
        let (l0, l1, l2, l3) = (&l0[..=i], &l1[..=i + 1], &l2[..=i + 2], &l3[..=i + 3]);
        let [mut s0, mut s1, mut s2, mut s3] = [[R::ZERO; B]; 4];
        for (k, bk) in bs[..i].iter().enumerate() {
            add_scaled(&mut s0, l0[k], bk);
            add_scaled(&mut s1, l1[k], bk);
            add_scaled(&mut s2, l2[k], bk);
            add_scaled(&mut s3, l3[k], bk);
        }
        let x0 = finish(&bs[i], &s0, l0[i]);
        add_scaled(&mut s1, l1[i], &x0);
        add_scaled(&mut s2, l2[i], &x0);
        add_scaled(&mut s3, l3[i], &x0);
        let x1 = finish(&bs[i + 1], &s1, l1[i + 1]);
        add_scaled(&mut s2, l2[i + 1], &x1);
        add_scaled(&mut s3, l3[i + 1], &x1);
        let x2 = finish(&bs[i + 2], &s2, l2[i + 2]);
        add_scaled(&mut s3, l3[i + 2], &x2);
        let x3 = finish(&bs[i + 3], &s3, l3[i + 3]);
        bs[i..i + 4].copy_from_slice(&[x0, x1, x2, x3]);
        i += 4;
    }
    for j in i..n {
        let lj = row(l, j);
        let mut s = [R::ZERO; B];
        for (a, bk) in lj[..j].iter().zip(&bs[..j]) {
            add_scaled(&mut s, *a, bk);
        }
        bs[j] = finish(&bs[j], &s, lj[j]);
    }
}

/// [`solve_upper_transposed`] for `B` right-hand sides stored interleaved (`bs[k][t]` is entry
/// `k` of right-hand side `t`), with the bits of `B` separate calls.
///
/// [`solve_upper_transposed`] takes `L_jk·x_j` from `b_k` as each row `j` is finished, from the
/// last row down; here each entry gathers the same terms in the same order (`j` descending)
/// before its division, four entries side by side (as [`solve_lower_interleaved`] does going
/// up), so that the lanes of a right-hand side sit in one vector register and four chains of
/// subtractions overlap.
pub fn solve_upper_transposed_interleaved<R: Real, const B: usize>(
    l: &[R],
    n: usize,
    bs: &mut [[R; B]],
) {
    /// `s[t] −= a · x[t]` for every lane.
    #[inline(always)]
    fn take_scaled<R: Real, const B: usize>(s: &mut [R; B], a: R, x: &[R; B]) {
        for (st, xt) in s.iter_mut().zip(x) {
            *st -= a * *xt;
        }
    }
    /// `s[t] / d` for every lane.
    #[inline(always)]
    fn divided<R: Real, const B: usize>(s: &[R; B], d: R) -> [R; B] {
        core::array::from_fn(|t| s[t] / d)
    }
    let mut top = n;
    while top >= 4 {
        let i = top - 1;
        let [mut s0, mut s1, mut s2, mut s3] = [bs[i], bs[i - 1], bs[i - 2], bs[i - 3]];
        for j in (top..n).rev() {
            let lj = row(l, j);
            let xj = bs[j];
            take_scaled(&mut s0, lj[i], &xj);
            take_scaled(&mut s1, lj[i - 1], &xj);
            take_scaled(&mut s2, lj[i - 2], &xj);
            take_scaled(&mut s3, lj[i - 3], &xj);
        }
        let (l0, l1, l2) = (row(l, i), row(l, i - 1), row(l, i - 2));
        let x0 = divided(&s0, l0[i]);
        take_scaled(&mut s1, l0[i - 1], &x0);
        take_scaled(&mut s2, l0[i - 2], &x0);
        take_scaled(&mut s3, l0[i - 3], &x0);
        let x1 = divided(&s1, l1[i - 1]);
        take_scaled(&mut s2, l1[i - 2], &x1);
        take_scaled(&mut s3, l1[i - 3], &x1);
        let x2 = divided(&s2, l2[i - 2]);
        take_scaled(&mut s3, l2[i - 3], &x2);
        let x3 = divided(&s3, row(l, i - 3)[i - 3]);
        (bs[i], bs[i - 1], bs[i - 2], bs[i - 3]) = (x0, x1, x2, x3);
        top -= 4;
    }
    for k in (0..top).rev() {
        let mut s = bs[k];
        for j in (k + 1..n).rev() {
            take_scaled(&mut s, row(l, j)[k], &bs[j]);
        }
        bs[k] = divided(&s, row(l, k)[k]);
    }
}

/// Appends one row to the factor: `l` holds a factor of order `n` and room for order `n + 1`;
/// `k` holds the new matrix row (`n` off-diagonal entries then the diagonal).
///
/// Returns the Schur complement. If it is positive and finite the new row (with its square
/// root) has been written and the factor is of order `n + 1`; otherwise nothing is written and
/// the caller may retry with a larger diagonal.
pub fn append_row<R: Real>(l: &mut [R], n: usize, k: &mut [R]) -> R {
    debug_assert!(l.len() >= tri_len(n + 1) && k.len() > n);
    let (done, rest) = l.split_at_mut(row_start(n));
    let pivot = factor_row(done, n, k);
    if pivot > R::ZERO && pivot.is_finite() {
        rest[..n].copy_from_slice(&k[..n]);
        rest[n] = pivot.sqrt();
    }
    pivot
}

/// Solves `L x = b` in place (forward substitution).
pub fn solve_lower<R: Real>(l: &[R], n: usize, b: &mut [R]) {
    forward_rows(l, 0, n, b);
}

/// Solves `Lᵀ x = b` in place (backward substitution, reading `L` by rows): row `i` divides
/// `b[i]` by `L_ii`, then takes `L_ij·b[i]` from every `b[j]`, `j < i`.
///
/// Why `b[i − 1]` is updated apart from the rest: it is the next row's divisor input, so
/// keeping it in a register puts only a multiply, a subtraction and a division between one
/// row and the next, instead of a round trip through memory behind the vector loop's stores.
/// Every entry still takes its terms in the same order (rows from the last down), so the bits
/// are those of the plain loop.
pub fn solve_upper_transposed<R: Real>(l: &[R], n: usize, b: &mut [R]) {
    let Some(last) = n.checked_sub(1) else {
        return;
    };
    let mut next = b[last];
    for i in (0..n).rev() {
        let li = row(l, i);
        let bi = next / li[i];
        b[i] = bi;
        if let Some(j) = i.checked_sub(1) {
            next = b[j] - li[j] * bi;
            for (bk, lik) in b[..j].iter_mut().zip(&li[..j]) {
                *bk -= *lik * bi;
            }
        }
    }
}

/// Solves `L Lᵀ x = b` in place.
pub fn solve_cholesky<R: Real>(l: &[R], n: usize, b: &mut [R]) {
    solve_lower(l, n, b);
    solve_upper_transposed(l, n, b);
}

/// `log det(L Lᵀ) = 2 Σ ln L_ii`.
pub fn log_det<R: Real>(l: &[R], n: usize) -> R {
    let mut s = R::ZERO;
    for i in 0..n {
        s += l[idx(i, i)].ln();
    }
    s + s
}

/// Rank-one update: replaces `L` by the factor of `L Lᵀ + x xᵀ`. `x` is destroyed.
///
/// Uses the hyperbolic-free rotation form, which is unconditionally stable for updates.
pub fn rank_one_update<R: Real>(l: &mut [R], n: usize, x: &mut [R]) {
    rank_one_update_trailing(l, n, 0, x);
}

/// [`rank_one_update`] of the trailing block (rows and columns `start..n`) of the factor only:
/// replaces that block `L₂₂` by the factor of `L₂₂ L₂₂ᵀ + x xᵀ`, reading `x[start..n]`.
fn rank_one_update_trailing<R: Real>(l: &mut [R], n: usize, start: usize, x: &mut [R]) {
    for k in start..n {
        let lkk = l[idx(k, k)];
        let xk = x[k];
        let r = hypot(lkk, xk);
        let c = r / lkk;
        let s = xk / lkk;
        l[idx(k, k)] = r;
        for i in k + 1..n {
            let lik = (l[idx(i, k)] + s * x[i]) / c;
            l[idx(i, k)] = lik;
            x[i] = c * x[i] - s * lik;
        }
    }
}

/// Removes the first row and column of the factored matrix: on return `l` holds the factor of
/// order `n − 1` of the matrix without its first row and column. O(n²), no square roots beyond
/// the `n − 1` of the rank-one update. `scratch` needs `n − 1` elements.
///
/// With `A = [[a, bᵀ], [b, C]]` and `L = [[l₁₁, 0], [l₂₁, L₂₂]]` we have
/// `C = L₂₂ L₂₂ᵀ + l₂₁ l₂₁ᵀ`, so the new factor is a rank-one update of `L₂₂`.
pub fn remove_first<R: Real>(l: &mut [R], n: usize, scratch: &mut [R]) {
    if n == 0 {
        return;
    }
    let m = n - 1;
    // Shift rows 1..n left by one column and up by one row; destinations never overtake sources.
    for i in 1..n {
        scratch[i - 1] = l[idx(i, 0)];
        let src = row_start(i) + 1;
        let dst = row_start(i - 1);
        l.copy_within(src..src + i, dst);
    }
    rank_one_update(l, m, &mut scratch[..m]);
}

/// Removes row and column `j` of the factored matrix: on return `l` holds the factor of order
/// `n − 1` of the matrix without them. O((n − j)² + n), rows before `j` untouched. `scratch`
/// needs `n − 1` elements.
///
/// Rows after `j` keep their columns before `j`; with `l₃₂` the part of column `j` below the
/// diagonal and `L₃₃` the trailing block, the matrix's trailing block is
/// `L₃₃ L₃₃ᵀ + l₃₂ l₃₂ᵀ`, so its new factor is a rank-one update of `L₃₃` (stable: an update,
/// never a downdate). [`remove_first`] is the case `j = 0`.
pub fn remove_row<R: Real>(l: &mut [R], n: usize, j: usize, scratch: &mut [R]) {
    if j >= n {
        return;
    }
    let m = n - 1;
    // Row i moves up to row i − 1 and loses column j; destinations never overtake sources.
    for i in j + 1..n {
        scratch[i - 1] = l[idx(i, j)];
        let (src, dst) = (row_start(i), row_start(i - 1));
        l.copy_within(src..src + j, dst);
        l.copy_within(src + j + 1..src + i + 1, dst + j);
    }
    rank_one_update_trailing(l, m, j, &mut scratch[..m]);
}

/// [`invert_lower_in_place`] with `scratch` (at least `n − 1` elements) as one row of
/// accumulators, giving the same bits several times faster at large `n`.
///
/// Why: entry `(i, j)` of the inverse is the sum over `k = j..i` of `L_ik (L⁻¹)_kj`, which the
/// plain form reads down a column of the packed rows (a stride of `k` elements, one cache line
/// per term once the factor outgrows the cache). Here row `i`'s sums are accumulated for every
/// `j` at once while the rows `k` of the inverse are walked in order, each read contiguously;
/// each sum still starts at zero and adds its terms in increasing `k`, so every rounding is the
/// one the plain form makes and decisions do not change. The independent accumulators also let
/// the compiler use vector lanes without reassociating any sum.
///
/// Returns `false` (and leaves `l` untouched) when `scratch` is too short.
pub fn invert_lower_in_place_with<R: Real>(l: &mut [R], n: usize, scratch: &mut [R]) -> bool {
    if scratch.len() + 1 < n || l.len() < tri_len(n) {
        return false;
    }
    for i in 0..n {
        let (done, rest) = l.split_at_mut(row_start(i));
        let li = &mut rest[..=i];
        let sums = &mut scratch[..i];
        sums.fill(R::ZERO);
        // Four rows k at a time, each sum kept in a register across them (one load and one
        // store of it per four terms instead of per term); every sum still adds its terms in
        // increasing k, the block's own triangle last.
        let mut k = 0;
        while k + 4 <= i {
            let a = [li[k], li[k + 1], li[k + 2], li[k + 3]];
            let r = [
                row(done, k),
                row(done, k + 1),
                row(done, k + 2),
                row(done, k + 3),
            ];
            for (j, s) in sums[..=k].iter_mut().enumerate() {
                *s = *s + a[0] * r[0][j] + a[1] * r[1][j] + a[2] * r[2][j] + a[3] * r[3][j];
            }
            for t in 1..4 {
                for (j, s) in sums.iter_mut().enumerate().take(k + t + 1).skip(k + t) {
                    for u in t..4 {
                        *s += a[u] * r[u][j];
                    }
                }
            }
            k += 4;
        }
        for k in k..i {
            let a = li[k];
            for (s, m) in sums[..=k].iter_mut().zip(row(done, k)) {
                *s += a * *m;
            }
        }
        let lii = li[i];
        for (v, s) in li[..i].iter_mut().zip(sums.iter()) {
            *v = -*s / lii;
        }
        li[i] = R::ONE / lii;
    }
    true
}

/// Overwrites the factor `L` with `L⁻¹` (also lower triangular), in place.
///
/// Row `i` of the inverse depends on rows `< i` of the inverse and row `i` of `L` from the
/// current column on, so walking columns upward within a row never reads an overwritten value.
/// [`invert_lower_in_place_with`] gives the same bits faster when a row of scratch is at hand.
pub fn invert_lower_in_place<R: Real>(l: &mut [R], n: usize) {
    for i in 0..n {
        let lii = l[idx(i, i)];
        for j in 0..i {
            // (L⁻¹)_ij = −(Σ_{k=j}^{i−1} L_ik (L⁻¹)_kj) / L_ii
            let mut s = R::ZERO;
            for k in j..i {
                s += l[idx(i, k)] * l[idx(k, j)];
            }
            l[idx(i, j)] = -s / lii;
        }
        l[idx(i, i)] = R::ONE / lii;
    }
}

/// `sqrt(a² + b²)` without needless overflow, for `a > 0`.
#[inline]
fn hypot<R: Real>(a: R, b: R) -> R {
    let (big, small) = if a.abs() >= b.abs() {
        (a.abs(), b.abs())
    } else {
        (b.abs(), a.abs())
    };
    if big == R::ZERO {
        return R::ZERO;
    }
    let t = small / big;
    big * (R::ONE + t * t).sqrt()
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // dense matrix loops read best with indices
mod tests {
    use super::*;

    /// A reproducible SPD matrix `B Bᵀ + n I` in full storage.
    fn spd(n: usize, seed: u64) -> [[f64; 12]; 12] {
        let mut s = seed;
        let mut b = [[0.0; 12]; 12];
        for row in b.iter_mut().take(n) {
            for v in row.iter_mut().take(n) {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                *v = ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5;
            }
        }
        let mut a = [[0.0; 12]; 12];
        for i in 0..n {
            for j in 0..n {
                a[i][j] = (0..n).map(|k| b[i][k] * b[j][k]).sum::<f64>();
            }
            a[i][i] += n as f64;
        }
        a
    }

    fn pack(a: &[[f64; 12]; 12], n: usize) -> [f64; 78] {
        let mut p = [0.0; 78];
        for i in 0..n {
            for j in 0..=i {
                p[idx(i, j)] = a[i][j];
            }
        }
        p
    }

    #[test]
    fn factor_reproduces_matrix() {
        for n in 1..=12 {
            let a = spd(n, n as u64);
            let mut l = pack(&a, n);
            cholesky_in_place(&mut l, n).unwrap();
            for i in 0..n {
                for j in 0..=i {
                    let s: f64 = (0..=j).map(|k| l[idx(i, k)] * l[idx(j, k)]).sum();
                    assert!((s - a[i][j]).abs() < 1e-12 * a[i][i], "n={n} ({i},{j})");
                }
            }
        }
    }

    /// Forward substitution one entry at a time, each sum from `k = 0` up.
    fn textbook_forward<R: Real>(l: &[R], n: usize, b: &mut [R]) {
        for i in 0..n {
            let mut s = R::ZERO;
            for k in 0..i {
                s += l[idx(i, k)] * b[k];
            }
            b[i] = (b[i] - s) / l[idx(i, i)];
        }
    }

    /// Backward substitution `Lᵀx = b` one entry at a time: `b[i]` takes `L_ji·x_j` for
    /// `j = n − 1` down to `i + 1`, then is divided by `L_ii`.
    fn textbook_backward<R: Real>(l: &[R], n: usize, b: &mut [R]) {
        for i in (0..n).rev() {
            let mut v = b[i];
            for j in (i + 1..n).rev() {
                v -= l[idx(j, i)] * b[j];
            }
            b[i] = v / l[idx(i, i)];
        }
    }

    fn blocked_solves_match<R: Real>(l: &[R], n: usize, rhs: [[R; 12]; 3]) {
        let same =
            |a: &[R], b: &[R]| (0..n).all(|i| a[i].to_f64().to_bits() == b[i].to_f64().to_bits());
        let mut want = rhs;
        for w in want.iter_mut() {
            textbook_forward(l, n, w);
        }
        let mut one = rhs[0];
        solve_lower(l, n, &mut one);
        assert!(same(&one, &want[0]), "solve_lower, n={n}");
        let (mut back, mut want_back) = (rhs[1], rhs[1]);
        solve_upper_transposed(l, n, &mut back);
        textbook_backward(l, n, &mut want_back);
        assert!(same(&back, &want_back), "solve_upper_transposed, n={n}");
        let mut many = rhs;
        solve_lower_many(l, n, &mut many.each_mut().map(|b| &mut b[..]));
        for (m, w) in many.iter().zip(&want) {
            assert!(same(m, w), "solve_lower_many, n={n}");
        }
        let mut interleaved: [[R; 3]; 12] =
            core::array::from_fn(|k| [rhs[0][k], rhs[1][k], rhs[2][k]]);
        solve_lower_interleaved(l, n, &mut interleaved);
        for (t, w) in want.iter().enumerate() {
            let lane: [R; 12] = core::array::from_fn(|k| interleaved[k][t]);
            assert!(same(&lane, w), "solve_lower_interleaved, n={n}, lane {t}");
        }
        let mut interleaved: [[R; 3]; 12] =
            core::array::from_fn(|k| [rhs[0][k], rhs[1][k], rhs[2][k]]);
        solve_upper_transposed_interleaved(l, n, &mut interleaved);
        for (t, r) in rhs.iter().enumerate() {
            let mut w = *r;
            textbook_backward(l, n, &mut w);
            let lane: [R; 12] = core::array::from_fn(|k| interleaved[k][t]);
            assert!(
                same(&lane, &w),
                "solve_upper_transposed_interleaved, n={n}, lane {t}"
            );
        }
    }

    #[test]
    fn blocked_forward_solves_have_the_bits_of_the_textbook_order() {
        // n = 0..=12 covers no block, whole blocks of four rows and every remainder.
        for n in 0..=12 {
            let a = spd(n, 200 + n as u64);
            let mut l = pack(&a, n);
            cholesky_in_place(&mut l, n).unwrap();
            let rhs: [[f64; 12]; 3] = core::array::from_fn(|r| {
                core::array::from_fn(|i| (i as f64 * 0.7 + r as f64).sin())
            });
            blocked_solves_match(&l, n, rhs);
            blocked_solves_match(&l.map(|v| v as f32), n, rhs.map(|b| b.map(|v| v as f32)));
        }
    }

    #[test]
    fn inverse_with_a_row_of_scratch_equals_the_plain_inverse_bit_for_bit() {
        for n in 0..=12 {
            for seed in 0..4 {
                let a = spd(n, 100 + seed);
                let mut l = pack(&a, n);
                cholesky_in_place(&mut l, n).unwrap();
                let (mut plain, mut fast) = (l, l);
                invert_lower_in_place(&mut plain, n);
                let mut scratch = [f64::NAN; 12];
                assert!(invert_lower_in_place_with(&mut fast, n, &mut scratch));
                assert_eq!(plain.map(f64::to_bits), fast.map(f64::to_bits), "n={n}");
                // In f32 too (the device's precision).
                let mut l32 = l.map(|v| v as f32);
                let mut scratch32 = [f32::NAN; 12];
                let mut plain32 = l32;
                invert_lower_in_place(&mut plain32, n);
                assert!(invert_lower_in_place_with(&mut l32, n, &mut scratch32));
                assert_eq!(plain32.map(f32::to_bits), l32.map(f32::to_bits), "n={n}");
            }
        }
        // Too little scratch: refused, factor untouched.
        let a = spd(5, 1);
        let mut l = pack(&a, 5);
        let before = l;
        assert!(!invert_lower_in_place_with(&mut l, 5, &mut [0.0; 3]));
        assert_eq!(l, before);
    }

    #[test]
    fn incremental_equals_batch_bit_for_bit() {
        let n = 12;
        let a = spd(n, 7);
        let mut batch = pack(&a, n);
        cholesky_in_place(&mut batch, n).unwrap();
        let mut inc = [0.0; 78];
        for m in 0..n {
            let mut k = [0.0; 13];
            k[..=m].copy_from_slice(&a[m][..=m]);
            assert!(append_row(&mut inc, m, &mut k) > 0.0);
        }
        assert_eq!(inc, batch);
    }

    #[test]
    fn solves_and_inverse_and_logdet() {
        let n = 9;
        let a = spd(n, 3);
        let mut l = pack(&a, n);
        cholesky_in_place(&mut l, n).unwrap();
        let x_true: [f64; 9] = core::array::from_fn(|i| (i as f64 * 0.7).sin());
        let mut b = [0.0; 9];
        for i in 0..n {
            b[i] = (0..n).map(|j| a[i][j] * x_true[j]).sum();
        }
        solve_cholesky(&l, n, &mut b);
        for i in 0..n {
            assert!((b[i] - x_true[i]).abs() < 1e-12);
        }
        // log det against the product of pivots from Gaussian elimination without pivoting.
        let mut m = a;
        let mut det_log = 0.0;
        for k in 0..n {
            det_log += m[k][k].ln();
            for i in k + 1..n {
                let f = m[i][k] / m[k][k];
                for j in k..n {
                    m[i][j] -= f * m[k][j];
                }
            }
        }
        assert!((log_det(&l, n) - det_log).abs() < 1e-12);
        let mut inv = l;
        invert_lower_in_place(&mut inv, n);
        for i in 0..n {
            for j in 0..=i {
                let s: f64 = (j..=i).map(|k| inv[idx(i, k)] * l[idx(k, j)]).sum();
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((s - want).abs() < 1e-13);
            }
        }
    }

    #[test]
    fn remove_first_matches_refactorisation() {
        let n = 11;
        let a = spd(n, 5);
        let mut l = pack(&a, n);
        cholesky_in_place(&mut l, n).unwrap();
        let mut scratch = [0.0; 12];
        remove_first(&mut l, n, &mut scratch);
        let mut sub = [[0.0; 12]; 12];
        for i in 1..n {
            for j in 1..n {
                sub[i - 1][j - 1] = a[i][j];
            }
        }
        let mut want = pack(&sub, n - 1);
        cholesky_in_place(&mut want, n - 1).unwrap();
        for (got, want) in l.iter().zip(want.iter()).take(tri_len(n - 1)) {
            assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        }
    }

    #[test]
    fn indefinite_matrix_is_reported() {
        let mut a = [1.0, 2.0, 1.0]; // [[1,2],[2,1]] has eigenvalues 3 and −1
        assert_eq!(
            cholesky_in_place(&mut a, 2),
            Err(NotPositiveDefinite { row: 1 })
        );
    }

    #[test]
    fn removing_any_row_equals_factoring_the_reduced_matrix() {
        let n = 9;
        let a = spd(n, 5);
        for j in 0..n {
            let mut l = pack(&a, n);
            cholesky_in_place(&mut l, n).unwrap();
            let mut scratch = [0.0; 12];
            remove_row(&mut l, n, j, &mut scratch);
            // The matrix without row and column j, factored from scratch.
            let keep = |r: usize| if r < j { r } else { r + 1 };
            let mut reduced = [[0.0; 12]; 12];
            for (r, row) in reduced.iter_mut().enumerate().take(n - 1) {
                for (c, v) in row.iter_mut().enumerate().take(n - 1) {
                    *v = a[keep(r)][keep(c)];
                }
            }
            let mut expected = pack(&reduced, n - 1);
            cholesky_in_place(&mut expected, n - 1).unwrap();
            for e in 0..tri_len(n - 1) {
                assert!((l[e] - expected[e]).abs() < 1e-12, "j={j} element {e}");
            }
            // Rows before j are not touched at all.
            assert_eq!(l[..tri_len(j)], expected[..tri_len(j)]);
        }
    }
}
