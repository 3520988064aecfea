//! NumPy's legacy random stream (`numpy.random.RandomState`), bit for bit: the 32-bit Mersenne
//! Twister MT19937 seeded by an integer, and the legacy samplers the Pest Control simulator of
//! paper 002 calls (`random_sample`, `standard_exponential`, `standard_normal` by the polar
//! method with its cached second variate, `standard_gamma`, `beta`).
//!
//! NumPy guarantees that `RandomState` streams never change between versions ("legacy"
//! distributions), so a port reproduces the Python code's draws on every NumPy release. The
//! transcendental functions are Rust's (`ln`, `powf`, `exp`, `sqrt`), which on Linux are the
//! C library's, as NumPy's are; on another C library a last-bit difference in `pow` or `log`
//! can change a draw in the last bit.
//!
//! The algorithms follow NumPy's `mt19937.c` (`mt19937_seed`, `mt19937_gen`) and
//! `legacy-distributions.c` (`legacy_gauss`, `legacy_standard_gamma`, `legacy_beta`); the
//! tests compare with values printed by NumPy itself.

/// Words of MT19937 state.
const N: usize = 624;
/// MT19937's middle word offset.
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// `numpy.random.RandomState(seed)`: MT19937 plus the cached Gaussian of the polar method.
#[derive(Clone)]
pub struct RandomState {
    key: [u32; N],
    pos: usize,
    gauss: Option<f64>,
}

impl core::fmt::Debug for RandomState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RandomState")
            .field("pos", &self.pos)
            .finish_non_exhaustive()
    }
}

impl RandomState {
    /// `RandomState(seed)` for an integer seed (NumPy's `mt19937_seed`, Knuth's
    /// initialisation multiplier 1812433253).
    pub fn new(seed: u32) -> Self {
        let mut key = [0u32; N];
        let mut s = seed;
        for (pos, k) in key.iter_mut().enumerate() {
            *k = s;
            s = 1_812_433_253u32
                .wrapping_mul(s ^ (s >> 30))
                .wrapping_add(pos as u32 + 1);
        }
        RandomState {
            key,
            pos: N,
            gauss: None,
        }
    }

    /// Regenerates the whole state block (`mt19937_gen`).
    fn generate(&mut self) {
        let mix = |a: u32, b: u32| (a & UPPER_MASK) | (b & LOWER_MASK);
        let twist = |y: u32| (y >> 1) ^ if y & 1 == 1 { MATRIX_A } else { 0 };
        for i in 0..N - M {
            let y = mix(self.key[i], self.key[i + 1]);
            self.key[i] = self.key[i + M] ^ twist(y);
        }
        for i in N - M..N - 1 {
            let y = mix(self.key[i], self.key[i + 1]);
            self.key[i] = self.key[i + M - N] ^ twist(y);
        }
        let y = mix(self.key[N - 1], self.key[0]);
        self.key[N - 1] = self.key[M - 1] ^ twist(y);
        self.pos = 0;
    }

    /// The next 32-bit output (tempered).
    pub fn next_u32(&mut self) -> u32 {
        if self.pos == N {
            self.generate();
        }
        let mut y = self.key[self.pos];
        self.pos += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `random_sample()`: a double in `[0, 1)` from 53 bits of two outputs.
    pub fn random_sample(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
    }

    /// `standard_exponential()`: `−ln(1 − U)`.
    pub fn standard_exponential(&mut self) -> f64 {
        -(1.0 - self.random_sample()).ln()
    }

    /// `standard_normal()` (legacy `gauss`): the polar method, the second variate of each pair
    /// kept for the next call.
    pub fn standard_normal(&mut self) -> f64 {
        if let Some(g) = self.gauss.take() {
            return g;
        }
        loop {
            let x1 = 2.0 * self.random_sample() - 1.0;
            let x2 = 2.0 * self.random_sample() - 1.0;
            let r2 = x1 * x1 + x2 * x2;
            if r2 < 1.0 && r2 != 0.0 {
                let f = (-2.0 * r2.ln() / r2).sqrt();
                self.gauss = Some(f * x1);
                return f * x2;
            }
        }
    }

    /// `standard_gamma(shape)` (legacy): the exponential for shape 1, Johnk-type rejection
    /// below 1, Marsaglia and Tsang's squeeze above.
    pub fn standard_gamma(&mut self, shape: f64) -> f64 {
        if shape == 1.0 {
            return self.standard_exponential();
        }
        if shape == 0.0 {
            return 0.0;
        }
        if shape < 1.0 {
            loop {
                let u = self.random_sample();
                let v = self.standard_exponential();
                if u <= 1.0 - shape {
                    let x = u.powf(1.0 / shape);
                    if x <= v {
                        return x;
                    }
                } else {
                    let y = -((1.0 - u) / shape).ln();
                    let x = (1.0 - shape + shape * y).powf(1.0 / shape);
                    if x <= v + y {
                        return x;
                    }
                }
            }
        }
        let b = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * b).sqrt();
        loop {
            let (x, mut v) = loop {
                let x = self.standard_normal();
                let v = 1.0 + c * x;
                if v > 0.0 {
                    break (x, v);
                }
            };
            v = v * v * v;
            let u = self.random_sample();
            if u < 1.0 - 0.0331 * (x * x) * (x * x) {
                return b * v;
            }
            if u.ln() < 0.5 * x * x + b * (1.0 - v + v.ln()) {
                return b * v;
            }
        }
    }

    /// `beta(a, b)` (legacy): Johnk's algorithm when both shapes are at most 1, otherwise the
    /// ratio of two gammas.
    pub fn beta(&mut self, a: f64, b: f64) -> f64 {
        if a <= 1.0 && b <= 1.0 {
            loop {
                let u = self.random_sample();
                let v = self.random_sample();
                let x = u.powf(1.0 / a);
                let y = v.powf(1.0 / b);
                if x + y <= 1.0 {
                    if x + y > 0.0 {
                        return x / (x + y);
                    }
                    // Both powers underflowed: the same ratio in logarithms.
                    let (mut lx, mut ly) = (u.ln() / a, v.ln() / b);
                    let lm = lx.max(ly);
                    lx -= lm;
                    ly -= lm;
                    return (lx - (lx.exp() + ly.exp()).ln()).exp();
                }
            }
        }
        let ga = self.standard_gamma(a);
        let gb = self.standard_gamma(b);
        ga / (ga + gb)
    }

    /// `beta(a, b, size=n)`: `n` successive draws.
    pub fn beta_vec(&mut self, a: f64, b: f64, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.beta(a, b)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mersenne_twister_matches_the_reference_outputs() {
        // Matsumoto and Nishimura's mt19937ar.c with init_genrand(5489) (the C++ standard's
        // default seed): the 1st output is 3499211612 and the 10000th 4123659995
        // (std::mt19937's required check value).
        let mut r = RandomState::new(5489);
        assert_eq!(r.next_u32(), 3_499_211_612);
        for _ in 1..9_999 {
            r.next_u32();
        }
        assert_eq!(r.next_u32(), 4_123_659_995);
    }
}
