//! `external:COMMAND`: an objective computed by a user's program — a simulator, a lab script, a
//! Python benchmark — that talks JSON lines over its standard input and output.
//!
//! # Protocol
//!
//! costbo starts `COMMAND` through the shell (`sh -c COMMAND`; `cmd /C` on Windows) before the
//! first evaluation and keeps it running. For each point it writes **one line** to the
//! program's standard input,
//!
//! ```text
//! {"x": [0.25, 0.5, 0.125]}
//! ```
//!
//! the unit-cube point (`d` numbers in `[0, 1]`, printed to the last bit), and reads **one line**
//! from its standard output,
//!
//! ```text
//! {"y": -3.2, "cost": 1.5}
//! ```
//!
//! the objective value (maximised) and the cost of the evaluation (a finite number `> 0`).
//! Other keys are ignored; blank lines are skipped. The program must flush its output after
//! each line (Python: `print(json.dumps(...), flush=True)`) and should exit when its input
//! closes, which costbo does when the objective is dropped (after one second it is killed).
//! Its standard error is passed through, so diagnostics reach the terminal. A minimal program:
//!
//! ```text
//! import json, sys
//! for line in sys.stdin:
//!     x = json.loads(line)["x"]
//!     print(json.dumps({"y": -sum((v - 0.5) ** 2 for v in x), "cost": 1.0}), flush=True)
//! ```
//!
//! Anything else is an [`ExternalError`]: the program cannot be started, exits or closes its
//! output ([`ExternalError::Exited`]), answers a line that is not a JSON object
//! ([`ExternalError::BadJson`]), leaves out `y` or `cost` ([`ExternalError::MissingField`]),
//! gives a field that is not a number ([`ExternalError::NotANumber`]), a non-finite one
//! (`NaN`, `Infinity`, as Python's `json.dumps` prints them; [`ExternalError::NonFinite`]) or a
//! cost that is not positive ([`ExternalError::NonPositiveCost`]). After an error the program is
//! stopped; the next evaluation starts it again. There is no timeout: a program that never
//! answers blocks the caller.
//!
//! # Use
//!
//! [`External::evaluate`] returns the value and the cost, or the error. Through the
//! [`Objective`] trait, [`checked_eval`](Objective::checked_eval) returns the error as
//! [`ObjectiveError::External`]; [`eval`](Objective::eval), which cannot fail, returns NaN
//! instead, prints the error on standard error and keeps it for [`External::last_error`].
//! [`External::last_outcome`] gives the cost of the latest evaluation to a runner that
//! evaluated through the trait. The maximum is unknown ([`Objective::optimum`] is NaN,
//! [`Objective::argmax`] `None`).
//!
//! On the command line the objective is named `external:COMMAND` and needs its dimension:
//! `costbo objective eval --name 'external:python3 sim.py' --dim 12 --points P.csv`.

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{check_point, Objective, ObjectiveError, Options};

/// The prefix of an external objective's name.
pub const PREFIX: &str = "external:";

/// One evaluation's answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// The objective value.
    pub y: f64,
    /// The cost of the evaluation (finite, `> 0`).
    pub cost: f64,
}

/// Why an external evaluation failed.
#[derive(Debug, Clone, PartialEq)]
pub enum ExternalError {
    /// The command is empty.
    NoCommand,
    /// The program could not be started.
    Spawn {
        /// The command.
        command: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The program exited, or closed its output, before answering.
    Exited {
        /// Its exit code, if it exited with one.
        status: Option<i32>,
    },
    /// Writing the point or reading the answer failed.
    Io(String),
    /// The answer is not a JSON object.
    BadJson {
        /// The line read.
        line: String,
        /// The parser's reason.
        reason: String,
    },
    /// The answer lacks a field.
    MissingField {
        /// `y` or `cost`.
        field: &'static str,
        /// The line read.
        line: String,
    },
    /// A field is not a number.
    NotANumber {
        /// `y` or `cost`.
        field: &'static str,
        /// The line read.
        line: String,
    },
    /// A field is NaN or infinite.
    NonFinite {
        /// `y` or `cost`.
        field: &'static str,
        /// The line read.
        line: String,
    },
    /// The cost is zero or negative.
    NonPositiveCost {
        /// The cost given.
        cost: f64,
    },
}

impl fmt::Display for ExternalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExternalError::NoCommand => write!(f, "no command given (name it {PREFIX}COMMAND)"),
            ExternalError::Spawn { command, reason } => {
                write!(f, "cannot start `{command}`: {reason}")
            }
            ExternalError::Exited { status: Some(c) } => write!(
                f,
                "the program exited with status {c} before answering a point"
            ),
            ExternalError::Exited { status: None } => write!(
                f,
                "the program closed its output (or was killed by a signal) before answering a point"
            ),
            ExternalError::Io(e) => write!(f, "talking to the program: {e}"),
            ExternalError::BadJson { line, reason } => write!(
                f,
                "the answer `{line}` is not a JSON object ({reason}); expected {{\"y\": number, \"cost\": number}}"
            ),
            ExternalError::MissingField { field, line } => {
                write!(f, "the answer `{line}` has no field \"{field}\"")
            }
            ExternalError::NotANumber { field, line } => {
                write!(f, "field \"{field}\" of the answer `{line}` is not a number")
            }
            ExternalError::NonFinite { field, line } => {
                write!(f, "field \"{field}\" of the answer `{line}` is not finite")
            }
            ExternalError::NonPositiveCost { cost } => {
                write!(f, "the cost {cost:?} is not positive")
            }
        }
    }
}

impl std::error::Error for ExternalError {}

/// A running program.
#[derive(Debug)]
struct Running {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Running {
    /// Closes the program's input, waits up to a second for it to exit, then kills it.
    fn stop(self) {
        let Running {
            mut child, input, ..
        } = self;
        drop(input);
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(1) {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

#[derive(Debug, Default)]
struct State {
    running: Option<Running>,
    last: Option<Outcome>,
    error: Option<ExternalError>,
}

/// An objective computed by a program (see the module documentation).
#[derive(Debug)]
pub struct External {
    name: String,
    command: String,
    dim: usize,
    state: Mutex<State>,
}

impl External {
    /// The objective computed by `command` in `dim` dimensions. The program starts at the first
    /// evaluation.
    pub fn new(command: &str, dim: usize) -> Self {
        External {
            name: format!("{PREFIX}{command}"),
            command: command.to_string(),
            dim,
            state: Mutex::new(State::default()),
        }
    }

    /// The command line.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Evaluates `u` (which must have [`dim`](Objective::dim) coordinates; not checked here).
    pub fn evaluate(&self, u: &[f64]) -> Result<Outcome, ExternalError> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let result = self.exchange(&mut state, u);
        match &result {
            Ok(o) => {
                state.last = Some(*o);
                state.error = None;
            }
            Err(e) => {
                state.last = None;
                state.error = Some(e.clone());
                if let Some(r) = state.running.take() {
                    r.stop();
                }
            }
        }
        result
    }

    /// The value and cost of the latest evaluation, if it succeeded.
    pub fn last_outcome(&self) -> Option<Outcome> {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).last
    }

    /// The error of the latest evaluation, if it failed.
    pub fn last_error(&self) -> Option<ExternalError> {
        self.state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .error
            .clone()
    }

    fn spawn(&self) -> Result<Running, ExternalError> {
        if self.command.trim().is_empty() {
            return Err(ExternalError::NoCommand);
        }
        let mut command = if cfg!(windows) {
            let mut c = Command::new("cmd");
            c.arg("/C").arg(&self.command);
            c
        } else {
            let mut c = Command::new("sh");
            c.arg("-c").arg(&self.command);
            c
        };
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| ExternalError::Spawn {
                command: self.command.clone(),
                reason: e.to_string(),
            })?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(ExternalError::Io("the program's pipes are missing".into()));
        };
        Ok(Running {
            child,
            input,
            output: BufReader::new(output),
        })
    }

    fn exchange(&self, state: &mut State, u: &[f64]) -> Result<Outcome, ExternalError> {
        if state.running.is_none() {
            state.running = Some(self.spawn()?);
        }
        let Some(running) = state.running.as_mut() else {
            unreachable!("started above");
        };
        let request = serde_json::json!({ "x": u }).to_string();
        let sent = writeln!(running.input, "{request}").and_then(|()| running.input.flush());
        if let Err(e) = sent {
            return Err(match e.kind() {
                std::io::ErrorKind::BrokenPipe => exited(running),
                _ => ExternalError::Io(e.to_string()),
            });
        }
        let mut line = String::new();
        loop {
            line.clear();
            match running.output.read_line(&mut line) {
                Ok(0) => return Err(exited(running)),
                Ok(_) if line.trim().is_empty() => continue,
                Ok(_) => break,
                Err(e) => return Err(ExternalError::Io(e.to_string())),
            }
        }
        parse_answer(line.trim())
    }
}

/// The exit status of a program whose pipe closed (waiting briefly for it to finish exiting).
fn exited(running: &mut Running) -> ExternalError {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(1) {
        match running.child.try_wait() {
            Ok(Some(status)) => {
                return ExternalError::Exited {
                    status: status.code(),
                }
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => break,
        }
    }
    ExternalError::Exited { status: None }
}

/// Parses one answer line `{"y": number, "cost": number}`.
pub fn parse_answer(line: &str) -> Result<Outcome, ExternalError> {
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            // Python's json.dumps prints NaN and ±Infinity, which JSON forbids: name the
            // field rather than reporting a syntax error.
            let lenient = line
                .replace("-Infinity", "null")
                .replace("Infinity", "null")
                .replace("NaN", "null");
            if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&lenient) {
                for field in ["y", "cost"] {
                    if map.get(field).is_some_and(Value::is_null) {
                        return Err(ExternalError::NonFinite {
                            field,
                            line: line.to_string(),
                        });
                    }
                }
            }
            return Err(ExternalError::BadJson {
                line: line.to_string(),
                reason: e.to_string(),
            });
        }
    };
    let Value::Object(map) = &value else {
        return Err(ExternalError::BadJson {
            line: line.to_string(),
            reason: "not an object".into(),
        });
    };
    let number = |field: &'static str| -> Result<f64, ExternalError> {
        let v = map.get(field).ok_or_else(|| ExternalError::MissingField {
            field,
            line: line.to_string(),
        })?;
        let x = v.as_f64().ok_or_else(|| ExternalError::NotANumber {
            field,
            line: line.to_string(),
        })?;
        if x.is_finite() {
            Ok(x)
        } else {
            Err(ExternalError::NonFinite {
                field,
                line: line.to_string(),
            })
        }
    };
    let y = number("y")?;
    let cost = number("cost")?;
    if cost <= 0.0 {
        return Err(ExternalError::NonPositiveCost { cost });
    }
    Ok(Outcome { y, cost })
}

impl Drop for External {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Some(r) = state.running.take() {
            r.stop();
        }
    }
}

impl Objective for External {
    fn name(&self) -> &str {
        &self.name
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn eval(&self, u: &[f64]) -> f64 {
        match self.evaluate(&u[..self.dim]) {
            Ok(o) => o.y,
            Err(e) => {
                eprintln!("costbo: {}: {e}", self.name);
                f64::NAN
            }
        }
    }
    fn optimum(&self) -> f64 {
        f64::NAN
    }
    fn argmax(&self) -> Option<Vec<f64>> {
        None
    }
    fn checked_eval(&self, u: &[f64]) -> Result<f64, ObjectiveError> {
        check_point(u, self.dim)?;
        self.evaluate(u)
            .map(|o| o.y)
            .map_err(|e| ObjectiveError::External(format!("{}: {e}", self.name)))
    }
}

/// Builds `external:COMMAND` (`name` with the prefix) for [`build`](super::build): the
/// dimension must be given, a seed is refused.
pub fn build(name: &str, options: &Options) -> Result<External, ObjectiveError> {
    let command = name.strip_prefix(PREFIX).unwrap_or(name);
    if options.seed.is_some() {
        return Err(ObjectiveError::SeedNotApplicable(name.to_string()));
    }
    let Some(dim) = options.dim.filter(|&d| d >= 1) else {
        return Err(ObjectiveError::External(format!(
            "{name}: give the program's input dimension (--dim)"
        )));
    };
    if command.trim().is_empty() {
        return Err(ObjectiveError::External(
            ExternalError::NoCommand.to_string(),
        ));
    }
    Ok(External::new(command, dim))
}
