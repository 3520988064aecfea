//! Online learning-rate tuning with paid validations: a small, CPU-only analogue of paper 003's
//! STN and SimCLR studies (notes `seed-003.md` §§ 5.3–5.4).
//!
//! A small classifier is trained by minibatch SGD, one *round* (a fixed number of minibatches)
//! at a time. Before each round the tuner picks `x ∈ [0, 1]`, which sets that round's learning
//! rate. After the round it may *pay* for a validation, which reveals the round's reward: how
//! much the round improved the model on a held-out validation split. Rounds it does not pay
//! for cost nothing and reveal nothing. This is the costly-feedback, time-varying bandit of
//! paper 003 §1: the reward of a learning rate depends on how far training has gone.
//!
//! # Data
//!
//! The **red wine quality** data set: 1599 red *vinho verde* wines, 11 physico-chemical
//! measurements each (fixed and volatile acidity, citric acid, residual sugar, chlorides, free
//! and total sulphur dioxide, density, pH, sulphates, alcohol) and a sensory quality score from
//! 3 to 8, used here as a 6-class label (`quality − 3`; class sizes 10, 53, 681, 638, 199, 18).
//! Source: P. Cortez, A. Cerdeira, F. Almeida, T. Matos and J. Reis, "Modeling wine preferences
//! by data mining from physicochemical properties", *Decision Support Systems* 47(4):547–553,
//! 2009, distributed by the UCI Machine Learning Repository ("Wine Quality"). It is read from
//! the copy that the crate `linfa-datasets` 0.8.1 (feature `winequality`) embeds in its library
//! (`data/winequality-red.csv.gz`, `include_bytes!`), so nothing is downloaded at run time.
//!
//! Why this data set and not a cleaner one (e.g. the 8×8 digits): the tuning problem must
//! really vary in time. Wine quality is noisy (labels are human scores; no model separates the
//! classes), so SGD settles at a noise floor whose height grows with the learning rate: a large
//! rate is best at first and a smaller one later. On digits, which a small network separates,
//! the best per-round rate barely moves after the first few rounds (measured while choosing;
//! see `docs` of the tests below for the numbers on this task).
//!
//! # Split and features
//!
//! Per seed, the 1599 rows are shuffled (Fisher–Yates with [`Xoshiro256PlusPlus`] seeded by the
//! seed) and cut into validation (first [`TuningConfig::validation_size`] rows), held-out test
//! (next [`TuningConfig::test_size`]) and training (the rest; 959 rows by default). Features
//! are standardised with the *training* rows' mean and standard deviation only, so neither the
//! validation nor the test split leaks into training.
//!
//! # Model and training
//!
//! A one-hidden-layer network with `tanh` units ([`TuningConfig::hidden`], 16 by default;
//! `0` gives multinomial logistic regression) and a softmax output, trained on the mean
//! cross-entropy by plain SGD (no momentum, no weight decay) on minibatches of
//! [`TuningConfig::batch_size`] rows drawn without replacement (the training rows are
//! reshuffled at every epoch). Weights start Glorot-uniform, biases at zero. A round is
//! [`TuningConfig::batches_per_round`] minibatches (4 × 8 = 32 rows by default, so 200 rounds
//! are about 6.7 epochs). All randomness (split, initial weights, minibatches) comes from one
//! seeded [`Xoshiro256PlusPlus`] stream; validations and test evaluations draw nothing, so
//! whether a round is validated never changes training.
//!
//! # Hyperparameter
//!
//! The learning rate, log-uniform over the domain: `x ∈ [0, 1] ↦ 10^(lo + (hi − lo)·x)` with
//! `(lo, hi) = `[`TuningConfig::log10_learning_rate`], `(−3, 0)` by default, i.e. from 0.001 to
//! 1. At 1 the network is unstable early in training (the loss jumps), at 0.001 it barely
//! moves: both ends are bad, and the best rate between them drifts down as training goes on.
//!
//! # Reward (the paid measurement)
//!
//! `validate` evaluates the model on the validation split **twice** — with the weights as they
//! were before the round (a copy that `train_round` keeps for free: copying weights measures
//! nothing) and as they are after it — and returns
//!
//! `reward = clamp(scale · (m_after − m_before), −clip, clip)`,
//!
//! where `m` is the negative mean validation cross-entropy in nats ([`RewardMetric::Loss`],
//! default) or the validation accuracy ([`RewardMetric::Accuracy`]). Both evaluations are part
//! of the one paid validation, so a round that is not validated costs nothing at all, and the
//! reward of a round never depends on which earlier rounds were validated.
//!
//! Scaling: `scale = 100`, `clip = 2` by default, so the loss reward is the decrease of the
//! validation loss in hundredths of a nat clipped to `[−2, 2]` (the analogue of the paper's
//! SimCLR reward, accuracy gain in percentage points clipped to `[−2, 2]`; with
//! [`RewardMetric::Accuracy`] the same defaults give exactly that). Typical values of the loss
//! reward with the defaults: about `+2` (clipped) in the first rounds at good rates, `0.1`–`0.5`
//! after 20–200 rounds at good rates, and down to `−2` at too-large rates.
//!
//! Why loss and not accuracy by default: on this data set the validation accuracy (320 rows, so
//! steps of 0.31 points) hardly moves after the first few rounds, and its per-round change is
//! then noise (mean ≈ 0 at every rate, standard deviation 0.3–2 points across seeds), whereas
//! the loss decrease keeps a clear maximum that moves from about `10^−0.25` in the first rounds
//! to about `10^−1.25` after 50–200 rounds.

use std::fmt;
use std::sync::OnceLock;

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Number of input features (physico-chemical measurements).
pub const FEATURES: usize = 11;

/// Number of classes (quality scores 3 to 8).
pub const CLASSES: usize = 6;

/// Number of rows of the data set.
pub const ROWS: usize = 1599;

/// The lowest quality score; the class of a row is `quality − LOWEST_QUALITY`.
const LOWEST_QUALITY: f64 = 3.0;

/// Largest hidden layer accepted: far beyond what "fast" means here, it only guards against
/// absurd allocations from a mistyped configuration.
const MAX_HIDDEN: usize = 4096;

/// The learning-rate domain must lie inside `[10^−8, 10^1]`: below, SGD does not move; above,
/// one minibatch saturates every unit (and the numbers would only grow).
const LOG10_LEARNING_RATE_LIMITS: (f64, f64) = (-8.0, 1.0);

/// What a validation measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RewardMetric {
    /// Decrease of the mean validation cross-entropy (nats). The default: see the module docs.
    #[default]
    Loss,
    /// Increase of the validation accuracy (a fraction in `[0, 1]`; × 100 gives points).
    Accuracy,
}

/// Settings of the task. [`TuningConfig::default`] is the studied configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct TuningConfig {
    /// Units of the hidden layer (`tanh`); `0` = multinomial logistic regression.
    pub hidden: usize,
    /// Rows per minibatch (≥ 1).
    pub batch_size: usize,
    /// Minibatches per round (≥ 1).
    pub batches_per_round: usize,
    /// Rows of the validation split (≥ 1).
    pub validation_size: usize,
    /// Rows of the held-out test split (≥ 1); training gets the other rows (at least 2).
    pub test_size: usize,
    /// `(lo, hi)`: `x ∈ [0, 1]` maps to the learning rate `10^(lo + (hi − lo)·x)`. Needs
    /// `lo < hi`, both in `[−8, 1]`.
    pub log10_learning_rate: (f64, f64),
    /// What a validation measures.
    pub metric: RewardMetric,
    /// Multiplies the measured gain (finite, > 0).
    pub reward_scale: f64,
    /// The scaled gain is clipped to `[−reward_clip, reward_clip]` (> 0; `f64::INFINITY`
    /// disables clipping).
    pub reward_clip: f64,
}

impl Default for TuningConfig {
    fn default() -> Self {
        TuningConfig {
            hidden: 16,
            batch_size: 8,
            batches_per_round: 4,
            validation_size: 320,
            test_size: 320,
            log10_learning_rate: (-3.0, 0.0),
            metric: RewardMetric::Loss,
            reward_scale: 100.0,
            reward_clip: 2.0,
        }
    }
}

/// Why the task refused a request.
#[derive(Debug, Clone, PartialEq)]
pub enum TuningError {
    /// The hyperparameter `x` is not a finite number in `[0, 1]`.
    InvalidX {
        /// The value received.
        x: f64,
    },
    /// A setting of [`TuningConfig`] is out of range.
    InvalidConfig {
        /// The field.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// `validate` was called before any round was trained.
    NothingToValidate,
    /// A round made a weight non-finite; the round was undone (weights, round count).
    Diverged {
        /// The round (0-based) that was undone.
        round: usize,
    },
    /// The embedded data set is not what this module expects.
    Data(String),
}

impl fmt::Display for TuningError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TuningError::InvalidX { x } => {
                write!(f, "tuning: x = {x} is not a finite number in [0, 1]")
            }
            TuningError::InvalidConfig { field, reason } => {
                write!(f, "tuning: bad setting `{field}`: {reason}")
            }
            TuningError::NothingToValidate => {
                write!(f, "tuning: nothing to validate, no round has been trained")
            }
            TuningError::Diverged { round } => write!(
                f,
                "tuning: round {round} made a weight non-finite and was undone"
            ),
            TuningError::Data(reason) => write!(f, "tuning: unexpected data set: {reason}"),
        }
    }
}

impl std::error::Error for TuningError {}

/// What one paid validation measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Validation {
    /// The round (0-based) it measured.
    pub round: usize,
    /// Mean validation cross-entropy (nats) before the round.
    pub loss_before: f64,
    /// Mean validation cross-entropy (nats) after the round.
    pub loss_after: f64,
    /// Validation accuracy before the round.
    pub accuracy_before: f64,
    /// Validation accuracy after the round.
    pub accuracy_after: f64,
    /// The reward returned by `validate` (scaled, clipped).
    pub reward: f64,
}

/// The rows of the data set, as loaded (features raw, labels `0..CLASSES`).
struct Wine {
    /// Row-major `ROWS × FEATURES`.
    features: Vec<f64>,
    labels: Vec<usize>,
}

/// The data set, parsed once per process: every task shares it (a study builds hundreds).
fn wine() -> Result<&'static Wine, TuningError> {
    static WINE: OnceLock<Result<Wine, String>> = OnceLock::new();
    WINE.get_or_init(load_wine)
        .as_ref()
        .map_err(|e| TuningError::Data(e.clone()))
}

fn load_wine() -> Result<Wine, String> {
    let ds = linfa_datasets::winequality();
    let (rows, cols) = ds.records.dim();
    if rows != ROWS || cols != FEATURES || ds.targets.len() != ROWS {
        return Err(format!(
            "expected {ROWS} rows × {FEATURES} features, got {rows} × {cols} and {} labels",
            ds.targets.len()
        ));
    }
    // `iter` walks the array in logical (row-major) order whatever its memory layout.
    let features: Vec<f64> = ds.records.iter().copied().collect();
    if features.iter().any(|v| !v.is_finite()) {
        return Err("a feature is not finite".into());
    }
    let labels = ds
        .targets
        .iter()
        .map(|&q| {
            let class = q as f64 - LOWEST_QUALITY;
            if (0.0..CLASSES as f64).contains(&class) {
                Ok(class as usize)
            } else {
                Err(format!("quality {q} is outside 3..=8"))
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Wine { features, labels })
}

/// One split: standardised features (row-major) and labels.
#[derive(Debug, Clone)]
struct Split {
    x: Vec<f64>,
    y: Vec<usize>,
}

impl Split {
    fn rows(&self) -> usize {
        self.y.len()
    }
    fn row(&self, i: usize) -> &[f64] {
        &self.x[i * FEATURES..(i + 1) * FEATURES]
    }
}

/// A uniform integer in `0..n` (`n ≥ 1`) by Lemire's multiply-shift: deterministic, and the
/// bias (≤ n/2⁶⁴) is far below anything measurable here.
fn below(rng: &mut Xoshiro256PlusPlus, n: usize) -> usize {
    ((u128::from(rng.next_u64()) * n as u128) >> 64) as usize
}

/// A uniform number in `[0, 1)` with 53 random bits.
fn unit(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

fn shuffle(rng: &mut Xoshiro256PlusPlus, v: &mut [usize]) {
    for i in (1..v.len()).rev() {
        let j = below(rng, i + 1);
        v.swap(i, j);
    }
}

/// The network's shape and the layout of its flat weight vector: `W1 (hidden × FEATURES)`,
/// `b1 (hidden)`, `W2 (CLASSES × hidden)`, `b2 (CLASSES)`; without a hidden layer,
/// `W (CLASSES × FEATURES)`, `b (CLASSES)`. One flat vector makes the per-round copy (the
/// "before" weights) a single `copy_from_slice`.
#[derive(Debug, Clone, Copy)]
struct Shape {
    hidden: usize,
}

impl Shape {
    fn weights(self) -> usize {
        if self.hidden == 0 {
            CLASSES * FEATURES + CLASSES
        } else {
            self.hidden * FEATURES + self.hidden + CLASSES * self.hidden + CLASSES
        }
    }

    /// Width of the layer feeding the output: the hidden layer, or the inputs.
    fn penultimate(self) -> usize {
        if self.hidden == 0 {
            FEATURES
        } else {
            self.hidden
        }
    }

    /// Offset of the output layer's weights.
    fn output(self) -> usize {
        if self.hidden == 0 {
            0
        } else {
            self.hidden * FEATURES + self.hidden
        }
    }

    /// Logits of one row into `logits`; the hidden activations (if any) into `act`.
    fn forward(self, w: &[f64], x: &[f64], act: &mut [f64], logits: &mut [f64; CLASSES]) {
        let h = self.hidden;
        let input: &[f64] = if h == 0 {
            x
        } else {
            for (j, a) in act.iter_mut().enumerate() {
                let row = &w[j * FEATURES..(j + 1) * FEATURES];
                *a = (w[h * FEATURES + j] + dot(row, x)).tanh();
            }
            act
        };
        let p = self.penultimate();
        let o = self.output();
        for (c, l) in logits.iter_mut().enumerate() {
            *l = w[o + CLASSES * p + c] + dot(&w[o + c * p..o + (c + 1) * p], input);
        }
    }

    /// Mean cross-entropy (nats) and accuracy of weights `w` on `split`.
    fn evaluate(self, w: &[f64], split: &Split) -> (f64, f64) {
        let mut act = vec![0.0; self.hidden];
        let mut logits = [0.0; CLASSES];
        let mut loss = 0.0;
        let mut correct = 0usize;
        for i in 0..split.rows() {
            self.forward(w, split.row(i), &mut act, &mut logits);
            let y = split.y[i];
            loss += log_sum_exp(&logits) - logits[y];
            // Ties go to the lower class: deterministic, and the one rule used everywhere.
            let mut best = 0;
            for c in 1..CLASSES {
                if logits[c] > logits[best] {
                    best = c;
                }
            }
            correct += usize::from(best == y);
        }
        let n = split.rows() as f64;
        (loss / n, correct as f64 / n)
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| u * v).sum()
}

/// `ln Σ exp(l)`, shifted by the maximum so that no logit overflows.
fn log_sum_exp(logits: &[f64; CLASSES]) -> f64 {
    let m = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    m + logits.iter().map(|l| (l - m).exp()).sum::<f64>().ln()
}

/// Online learning-rate tuning of a small classifier on red wine quality, with paid
/// validations (see the module docs for data, model, domain and reward).
///
/// ```
/// use costbo_std::feedback::tuning::{LearningRateTuning, TuningConfig};
///
/// let mut task = LearningRateTuning::new(7, TuningConfig::default()).unwrap();
/// task.train_round(0.8).unwrap(); // learning rate 10^(−3 + 3·0.8) ≈ 0.25
/// task.train_round(0.5).unwrap(); // not validated: costs nothing
/// let reward = task.validate().unwrap(); // the gain of the second round, paid
/// assert!(reward.abs() <= 2.0);
/// assert_eq!((task.rounds(), task.validations()), (2, 1));
/// ```
#[derive(Debug, Clone)]
pub struct LearningRateTuning {
    config: TuningConfig,
    shape: Shape,
    train: Split,
    validation: Split,
    test: Split,
    /// The current weights.
    weights: Vec<f64>,
    /// The weights before the last round (what a validation compares against).
    before: Vec<f64>,
    /// Gradient accumulator and hidden-layer scratch (kept to avoid allocating per round).
    grad: Vec<f64>,
    act: Vec<f64>,
    delta: Vec<f64>,
    /// Training rows in the current epoch's order, and the next position in it.
    order: Vec<usize>,
    cursor: usize,
    rng: Xoshiro256PlusPlus,
    rounds: usize,
    validations: usize,
    last: Option<Validation>,
}

impl LearningRateTuning {
    /// A fresh task: the seed fixes the split, the initial weights and every minibatch.
    pub fn new(seed: u64, config: TuningConfig) -> Result<Self, TuningError> {
        check_config(&config)?;
        let data = wine()?;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);

        let mut rows: Vec<usize> = (0..ROWS).collect();
        shuffle(&mut rng, &mut rows);
        let (validation_rows, rest) = rows.split_at(config.validation_size);
        let (test_rows, train_rows) = rest.split_at(config.test_size);

        // Standardise with the training rows' statistics only.
        let n = train_rows.len() as f64;
        let mut mean = [0.0; FEATURES];
        for &r in train_rows {
            for (f, m) in mean.iter_mut().enumerate() {
                *m += data.features[r * FEATURES + f] / n;
            }
        }
        let mut sd = [0.0; FEATURES];
        for &r in train_rows {
            for (f, s) in sd.iter_mut().enumerate() {
                *s += (data.features[r * FEATURES + f] - mean[f]).powi(2) / n;
            }
        }
        // A constant feature (possible only in a tiny training split) is centred, not scaled.
        let scale = sd.map(|v| if v > 0.0 { 1.0 / v.sqrt() } else { 1.0 });
        let take = |ids: &[usize]| Split {
            x: ids
                .iter()
                .flat_map(|&r| {
                    (0..FEATURES).map(move |f| (data.features[r * FEATURES + f] - mean[f]) * scale[f])
                })
                .collect(),
            y: ids.iter().map(|&r| data.labels[r]).collect(),
        };
        let (validation, test, train) = (take(validation_rows), take(test_rows), take(train_rows));

        let shape = Shape {
            hidden: config.hidden,
        };
        let mut weights = vec![0.0; shape.weights()];
        if shape.hidden > 0 {
            // Glorot-uniform: keeps tanh units out of saturation at the start.
            let h = shape.hidden;
            let a1 = (6.0 / (FEATURES + h) as f64).sqrt();
            for w in &mut weights[..h * FEATURES] {
                *w = a1 * (2.0 * unit(&mut rng) - 1.0);
            }
            let a2 = (6.0 / (h + CLASSES) as f64).sqrt();
            let o = shape.output();
            for w in &mut weights[o..o + CLASSES * h] {
                *w = a2 * (2.0 * unit(&mut rng) - 1.0);
            }
        }
        let order: Vec<usize> = (0..train.rows()).collect();
        let cursor = order.len(); // forces a shuffle before the first minibatch
        Ok(LearningRateTuning {
            shape,
            before: weights.clone(),
            grad: vec![0.0; weights.len()],
            act: vec![0.0; shape.hidden],
            delta: vec![0.0; shape.hidden],
            weights,
            train,
            validation,
            test,
            order,
            cursor,
            rng,
            rounds: 0,
            validations: 0,
            last: None,
            config,
        })
    }

    /// The settings.
    pub fn config(&self) -> &TuningConfig {
        &self.config
    }

    /// The learning rates at `x = 0` and `x = 1`; in between, `x` maps log-linearly.
    pub fn hyperparameter_range(&self) -> (f64, f64) {
        let (lo, hi) = self.config.log10_learning_rate;
        (10f64.powf(lo), 10f64.powf(hi))
    }

    /// The learning rate that `x ∈ [0, 1]` stands for: `10^(lo + (hi − lo)·x)`.
    pub fn learning_rate(&self, x: f64) -> Result<f64, TuningError> {
        if !(0.0..=1.0).contains(&x) {
            return Err(TuningError::InvalidX { x });
        }
        let (lo, hi) = self.config.log10_learning_rate;
        Ok(10f64.powf(lo + (hi - lo) * x))
    }

    /// Trains one round (`batches_per_round` minibatches of SGD) at the learning rate of `x`.
    ///
    /// Free: it measures nothing. It keeps a copy of the weights from before the round, which
    /// the next [`validate`](Self::validate) compares against.
    pub fn train_round(&mut self, x: f64) -> Result<(), TuningError> {
        let rate = self.learning_rate(x)?;
        self.before.copy_from_slice(&self.weights);
        for _ in 0..self.config.batches_per_round {
            self.sgd_step(rate);
        }
        if self.weights.iter().any(|w| !w.is_finite()) {
            // Not expected with the accepted rates (|∂loss/∂logit| ≤ 1 and tanh ≤ 1 bound
            // every step), but a non-finite weight would poison every later round.
            self.weights.copy_from_slice(&self.before);
            return Err(TuningError::Diverged { round: self.rounds });
        }
        self.rounds += 1;
        Ok(())
    }

    /// One minibatch: mean cross-entropy gradient by backpropagation, then `w ← w − rate·g`.
    fn sgd_step(&mut self, rate: f64) {
        let shape = self.shape;
        let (h, p, o) = (shape.hidden, shape.penultimate(), shape.output());
        let batch = self.config.batch_size;
        let mut logits = [0.0; CLASSES];
        self.grad.fill(0.0);
        for _ in 0..batch {
            if self.cursor == self.order.len() {
                shuffle(&mut self.rng, &mut self.order);
                self.cursor = 0;
            }
            let r = self.order[self.cursor];
            self.cursor += 1;
            let x = self.train.row(r);
            shape.forward(&self.weights, x, &mut self.act, &mut logits);
            // ∂loss/∂logits = softmax − one-hot.
            let lse = log_sum_exp(&logits);
            for l in logits.iter_mut() {
                *l = (*l - lse).exp();
            }
            logits[self.train.y[r]] -= 1.0;
            let input: &[f64] = if h == 0 { x } else { &self.act };
            self.delta.fill(0.0);
            for (c, &d) in logits.iter().enumerate() {
                let row = o + c * p;
                for (j, &a) in input.iter().enumerate() {
                    self.grad[row + j] += d * a;
                }
                self.grad[o + CLASSES * p + c] += d;
                if h > 0 {
                    for (j, e) in self.delta.iter_mut().enumerate() {
                        *e += d * self.weights[row + j];
                    }
                }
            }
            for j in 0..h {
                let d = self.delta[j] * (1.0 - self.act[j] * self.act[j]);
                for (g, &xi) in self.grad[j * FEATURES..(j + 1) * FEATURES].iter_mut().zip(x) {
                    *g += d * xi;
                }
                self.grad[h * FEATURES + j] += d;
            }
        }
        let step = rate / batch as f64;
        for (w, g) in self.weights.iter_mut().zip(&self.grad) {
            *w -= step * g;
        }
    }

    /// The paid measurement: the reward of the round just trained (see the module docs), and
    /// one more validation counted.
    ///
    /// Each call is a full, paid validation: calling it twice for the same round counts two
    /// and returns the same reward (the measurement has no noise of its own; the randomness is
    /// in training). Fails with [`TuningError::NothingToValidate`] before the first round.
    pub fn validate(&mut self) -> Result<f64, TuningError> {
        if self.rounds == 0 {
            return Err(TuningError::NothingToValidate);
        }
        let (loss_before, accuracy_before) = self.shape.evaluate(&self.before, &self.validation);
        let (loss_after, accuracy_after) = self.shape.evaluate(&self.weights, &self.validation);
        let gain = match self.config.metric {
            RewardMetric::Loss => loss_before - loss_after,
            RewardMetric::Accuracy => accuracy_after - accuracy_before,
        };
        let clip = self.config.reward_clip;
        let reward = (self.config.reward_scale * gain).clamp(-clip, clip);
        self.validations += 1;
        self.last = Some(Validation {
            round: self.rounds - 1,
            loss_before,
            loss_after,
            accuracy_before,
            accuracy_after,
            reward,
        });
        Ok(reward)
    }

    /// Everything the last validation measured (`None` before the first).
    pub fn last_validation(&self) -> Option<Validation> {
        self.last
    }

    /// Validations paid for so far (calls of [`validate`](Self::validate) that succeeded).
    pub fn validations(&self) -> usize {
        self.validations
    }

    /// Rounds trained so far.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// Accuracy on the held-out test split. For reporting only: not a paid measurement, and a
    /// tuner must not look at it.
    pub fn test_accuracy(&self) -> f64 {
        self.shape.evaluate(&self.weights, &self.test).1
    }

    /// Mean cross-entropy (nats) on the held-out test split; for reporting only, like
    /// [`test_accuracy`](Self::test_accuracy). On this noisy data set it separates schedules
    /// better than accuracy does.
    pub fn test_loss(&self) -> f64 {
        self.shape.evaluate(&self.weights, &self.test).0
    }

    /// Rows of the (training, validation, test) splits.
    pub fn split_sizes(&self) -> (usize, usize, usize) {
        (self.train.rows(), self.validation.rows(), self.test.rows())
    }
}

fn check_config(c: &TuningConfig) -> Result<(), TuningError> {
    let bad = |field: &'static str, reason: String| Err(TuningError::InvalidConfig { field, reason });
    if c.hidden > MAX_HIDDEN {
        return bad("hidden", format!("{} units, at most {MAX_HIDDEN}", c.hidden));
    }
    if c.batch_size == 0 {
        return bad("batch_size", "must be at least 1".into());
    }
    if c.batches_per_round == 0 {
        return bad("batches_per_round", "must be at least 1".into());
    }
    if c.validation_size == 0 {
        return bad("validation_size", "must be at least 1".into());
    }
    if c.test_size == 0 {
        return bad("test_size", "must be at least 1".into());
    }
    if c.validation_size.saturating_add(c.test_size) > ROWS - 2 {
        return bad(
            "validation_size",
            format!(
                "validation {} + test {} leave fewer than 2 of {ROWS} rows for training",
                c.validation_size, c.test_size
            ),
        );
    }
    let (lo, hi) = c.log10_learning_rate;
    let (min, max) = LOG10_LEARNING_RATE_LIMITS;
    if !(lo.is_finite() && hi.is_finite() && min <= lo && lo < hi && hi <= max) {
        return bad(
            "log10_learning_rate",
            format!("({lo}, {hi}): needs {min} ≤ lo < hi ≤ {max}"),
        );
    }
    if !(c.reward_scale.is_finite() && c.reward_scale > 0.0) {
        return bad("reward_scale", format!("{}: needs a finite number > 0", c.reward_scale));
    }
    if c.reward_clip.is_nan() || c.reward_clip <= 0.0 {
        return bad("reward_clip", format!("{}: needs a number > 0", c.reward_clip));
    }
    Ok(())
}

/// What [`run_schedule`] measured.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleRun {
    /// The `x` of each round.
    pub xs: Vec<f64>,
    /// The reward of each round (every round is validated).
    pub rewards: Vec<f64>,
    /// Validations paid (= rounds).
    pub validations: usize,
    /// Held-out test accuracy after the last round.
    pub test_accuracy: f64,
    /// Held-out test cross-entropy (nats) after the last round.
    pub test_loss: f64,
}

/// Runs a fixed schedule `round ↦ x` (rounds numbered from 0) for `rounds` rounds, validating
/// every round: the reference line of a study (a constant, or a hand-made decay), with the
/// cost of full validation (`rounds` validations).
pub fn run_schedule(
    seed: u64,
    config: &TuningConfig,
    rounds: usize,
    mut schedule: impl FnMut(usize) -> f64,
) -> Result<ScheduleRun, TuningError> {
    let mut task = LearningRateTuning::new(seed, config.clone())?;
    let mut xs = Vec::with_capacity(rounds);
    let mut rewards = Vec::with_capacity(rounds);
    for t in 0..rounds {
        let x = schedule(t);
        task.train_round(x)?;
        xs.push(x);
        rewards.push(task.validate()?);
    }
    Ok(ScheduleRun {
        xs,
        rewards,
        validations: task.validations(),
        test_accuracy: task.test_accuracy(),
        test_loss: task.test_loss(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholder_loads() {
        let t = LearningRateTuning::new(1, TuningConfig::default()).unwrap();
        assert_eq!(t.split_sizes(), (959, 320, 320));
    }
}
