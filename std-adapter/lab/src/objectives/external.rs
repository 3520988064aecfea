//! `external`: an objective evaluated by a user's program, over JSON lines on its standard
//! input and output.
//!
//! ```text
//! costbo pandora --objective external --dim 3 --command "python3 my_sim.py" \
//!     --cost external --rule pbgi --budget 50
//! ```
//!
//! **Protocol.** The program is started once ([`External::spawn`]; the command is split on
//! whitespace, no shell and no quoting: wrap anything fancier in a script) and lives for the
//! whole run. For each point, costbo writes one line to the program's standard input,
//!
//! ```text
//! {"x": [0.25, 0.5, 0.875]}
//! ```
//!
//! with the point's `d` unit-cube coordinates (in `[0, 1]`, full precision), and reads one line
//! from its standard output,
//!
//! ```text
//! {"y": -1.2345, "cost": 3.5}
//! ```
//!
//! - `y` (required): the value, a finite number, **maximised** (negate a loss);
//! - `cost` (optional): what the evaluation cost, a finite number `> 0`; required when the
//!   run prices points by the program's report (`--cost external`), ignored otherwise;
//! - other fields are ignored.
//!
//! The program must answer each line before the next is written, flush its output after each
//! answer (Python: `print(..., flush=True)`), and write nothing else to standard output (use
//! standard error, which is passed through, for messages). End of input means the run is over:
//! the program should exit; it is killed if it has not within a second.
//!
//! **Errors** are [`ExternalError`]s, each with a one-line message: the program could not be
//! started, exited (or closed its output) before answering, answered with a line that is not a
//! JSON object, left out `y`, or sent a value that is not a finite number (or a cost `≤ 0`).
//! After an error the program's state is unknown: the objective refuses further points.
//!
//! The optimum is unknown: [`External::optimum`] is NaN (regret columns read NaN).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{check_point, Evaluation, Objective, ObjectiveError};

/// Why the external program failed.
#[derive(Debug, Clone, PartialEq)]
pub enum ExternalError {
    /// The command is empty.
    EmptyCommand,
    /// The program could not be started.
    Spawn {
        /// The command.
        command: String,
        /// The system's reason.
        reason: String,
    },
    /// The program exited, or closed its output, before answering.
    Exited {
        /// Its exit status if it has exited (e.g. `exit status: 1`).
        status: Option<String>,
    },
    /// Writing to or reading from the program failed.
    Io(String),
    /// The answer is not a JSON object.
    BadJson {
        /// The line received (shortened to 80 characters).
        line: String,
        /// The parser's reason.
        reason: String,
    },
    /// The answer has no `y`.
    MissingValue {
        /// The line received (shortened to 80 characters).
        line: String,
    },
    /// A field is not a finite number (or a cost is `≤ 0`).
    BadNumber {
        /// `y` or `cost`.
        field: &'static str,
        /// The JSON received for it.
        value: String,
    },
    /// An earlier error left the program in an unknown state.
    Failed,
}

impl std::fmt::Display for ExternalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExternalError::EmptyCommand => write!(f, "external objective: the command is empty"),
            ExternalError::Spawn { command, reason } => {
                write!(f, "external objective: cannot start `{command}`: {reason}")
            }
            ExternalError::Exited { status: Some(s) } => {
                write!(
                    f,
                    "external objective: the program exited ({s}) before answering"
                )
            }
            ExternalError::Exited { status: None } => write!(
                f,
                "external objective: the program closed its output before answering"
            ),
            ExternalError::Io(e) => write!(f, "external objective: {e}"),
            ExternalError::BadJson { line, reason } => write!(
                f,
                "external objective: answer `{line}` is not a JSON object ({reason})"
            ),
            ExternalError::MissingValue { line } => {
                write!(f, "external objective: answer `{line}` has no field `y`")
            }
            ExternalError::BadNumber { field, value } if *field == "cost" => write!(
                f,
                "external objective: `cost` is {value}, not a finite number > 0"
            ),
            ExternalError::BadNumber { field, value } => write!(
                f,
                "external objective: `{field}` is {value}, not a finite number"
            ),
            ExternalError::Failed => write!(
                f,
                "external objective: the program failed earlier and its state is unknown"
            ),
        }
    }
}

impl std::error::Error for ExternalError {}

/// The running program.
#[derive(Debug)]
struct Process {
    child: Child,
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
    failed: bool,
}

/// An objective evaluated by a program speaking the JSON-lines protocol of the module
/// documentation.
#[derive(Debug)]
pub struct External {
    command: String,
    dim: usize,
    process: Mutex<Process>,
}

/// `line` shortened to 80 characters for messages.
fn shorten(line: &str) -> String {
    let line = line.trim_end();
    match line.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

/// Parses one answer line: `y` (finite) and `cost` (finite and `> 0`, optional).
pub fn parse_answer(line: &str) -> Result<Evaluation, ExternalError> {
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| ExternalError::BadJson {
            line: shorten(line),
            reason: e.to_string(),
        })?;
    let Some(object) = value.as_object() else {
        return Err(ExternalError::BadJson {
            line: shorten(line),
            reason: "not an object".into(),
        });
    };
    let number = |field: &'static str| -> Result<Option<f64>, ExternalError> {
        match object.get(field) {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(x) if x.is_finite() && (field == "y" || x > 0.0) => Ok(Some(x)),
                _ => Err(ExternalError::BadNumber {
                    field,
                    value: shorten(&v.to_string()),
                }),
            },
        }
    };
    let Some(y) = number("y")? else {
        return Err(ExternalError::MissingValue {
            line: shorten(line),
        });
    };
    Ok(Evaluation {
        value: y,
        cost: number("cost")?,
    })
}

impl External {
    /// Starts `command` (split on whitespace) for points of dimension `dim`.
    pub fn spawn(command: &str, dim: usize) -> Result<Self, ExternalError> {
        let mut words = command.split_whitespace();
        let program = words.next().ok_or(ExternalError::EmptyCommand)?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| ExternalError::Spawn {
                command: command.to_string(),
                reason: e.to_string(),
            })?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            unreachable!("both pipes were requested");
        };
        Ok(External {
            command: command.to_string(),
            dim,
            process: Mutex::new(Process {
                child,
                input: Some(input),
                output: BufReader::new(output),
                failed: false,
            }),
        })
    }

    /// The command it runs.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// One exchange: writes the point, reads and parses the answer.
    fn exchange(p: &mut Process, u: &[f64]) -> Result<Evaluation, ExternalError> {
        let request = serde_json::json!({ "x": u }).to_string();
        let exited = |p: &mut Process| ExternalError::Exited {
            status: p.child.try_wait().ok().flatten().map(|s| s.to_string()),
        };
        let Some(input) = p.input.as_mut() else {
            return Err(ExternalError::Failed);
        };
        if writeln!(input, "{request}")
            .and_then(|_| input.flush())
            .is_err()
        {
            // A broken pipe: the program is gone. Give it a moment to be reaped.
            std::thread::sleep(Duration::from_millis(50));
            return Err(exited(p));
        }
        let mut line = String::new();
        match p.output.read_line(&mut line) {
            Ok(0) => {
                let _ = p.child.wait();
                Err(exited(p))
            }
            Ok(_) => parse_answer(&line),
            Err(e) => Err(ExternalError::Io(format!("reading the answer: {e}"))),
        }
    }
}

impl Objective for External {
    fn name(&self) -> &str {
        "external"
    }
    fn dim(&self) -> usize {
        self.dim
    }
    /// The program's value at `u`; **panics** with the error's message when the program
    /// fails (use [`evaluate`](Objective::evaluate), as the experiment loop does, to get the
    /// error).
    fn eval(&self, u: &[f64]) -> f64 {
        match self.evaluate(u) {
            Ok(e) => e.value,
            Err(e) => panic!("{e}"),
        }
    }
    fn evaluate(&self, u: &[f64]) -> Result<Evaluation, ObjectiveError> {
        check_point(u, self.dim)?;
        let mut p = self
            .process
            .lock()
            .map_err(|_| ObjectiveError::External(ExternalError::Failed))?;
        if p.failed {
            return Err(ObjectiveError::External(ExternalError::Failed));
        }
        let result = Self::exchange(&mut p, u);
        if result.is_err() {
            p.failed = true;
        }
        result.map_err(ObjectiveError::External)
    }
    /// Unknown: NaN.
    fn optimum(&self) -> f64 {
        f64::NAN
    }
    fn argmax(&self) -> Option<Vec<f64>> {
        None
    }
}

impl Drop for External {
    fn drop(&mut self) {
        let p = match self.process.get_mut() {
            Ok(p) => p,
            Err(poisoned) => poisoned.into_inner(),
        };
        // End of input asks the program to finish; kill it if it has not within a second.
        drop(p.input.take());
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(1) {
            if let Ok(Some(_)) = p.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = p.child.kill();
        let _ = p.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_parsed_or_refused_with_a_reason() {
        assert_eq!(
            parse_answer("{\"y\": -1.5, \"cost\": 2}\n").unwrap(),
            Evaluation {
                value: -1.5,
                cost: Some(2.0)
            }
        );
        assert_eq!(
            parse_answer("{\"y\": 3, \"note\": \"ok\"}").unwrap(),
            Evaluation {
                value: 3.0,
                cost: None
            }
        );
        assert!(matches!(
            parse_answer("y = 3"),
            Err(ExternalError::BadJson { .. })
        ));
        assert!(matches!(
            parse_answer("[1, 2]"),
            Err(ExternalError::BadJson { .. })
        ));
        assert!(matches!(
            parse_answer("{\"cost\": 1}"),
            Err(ExternalError::MissingValue { .. })
        ));
        // JSON has no NaN or infinity: programs send null or strings, both refused.
        for (line, field) in [
            ("{\"y\": null}", "y"),
            ("{\"y\": \"NaN\"}", "y"),
            ("{\"y\": 1, \"cost\": 0}", "cost"),
            ("{\"y\": 1, \"cost\": -2}", "cost"),
        ] {
            match parse_answer(line) {
                Err(ExternalError::BadNumber { field: f, .. }) => assert_eq!(f, field, "{line}"),
                other => panic!("{line}: {other:?}"),
            }
        }
        // Out of f64's range: the parser refuses it.
        assert!(parse_answer("{\"y\": 1e999}").is_err());
        let long = format!("{{\"y\": \"{}\"}}", "a".repeat(200));
        let message = parse_answer(&long).unwrap_err().to_string();
        assert!(!message.contains('\n') && message.len() < 200, "{message}");
    }
}
