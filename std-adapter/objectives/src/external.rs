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
//! with the point's `d` unit-cube coordinates (in `[0, 1]`, full precision) and its number
//! `id` (0, 1, 2, … in the order asked), and reads one line from its standard output,
//!
//! ```text
//! {"y": -1.2345, "cost": 3.5, "id": 0}
//! ```
//!
//! - `y` (required): the value, a finite number, **maximised** (negate a loss);
//! - `cost` (optional): what the evaluation cost, a finite number `> 0`; required when the
//!   run prices points by the program's report (`--cost external`), ignored otherwise;
//! - `id` (optional, recommended): the request's `id`, echoed; an answer whose `id` is another
//!   point's is refused;
//! - other fields are ignored.
//!
//! The program must answer each line before the next is written, flush its output after each
//! answer (Python: `print(..., flush=True)`), and write nothing else to standard output (use
//! standard error, which is passed through, for messages). End of input means the run is over:
//! the program should exit; it is killed if it has not within a second.
//!
//! **Limits.** An answer longer than [`MAX_ANSWER_BYTES`] is refused as soon as that many
//! bytes have come without a newline (the line is never held whole); an answer that has not
//! come within the timeout ([`DEFAULT_TIMEOUT`], or [`External::with_timeout`]: `costbo
//! pandora --timeout`) is an error, and every [`PATIENCE_NOTE`] of waiting says so on standard
//! error; a line that comes before its point was asked (a second answer to the previous point)
//! is refused.
//!
//! **Errors** are [`ExternalError`]s, each with a one-line message: the program could not be
//! started, exited (or closed its output) before answering, did not answer in time, answered
//! twice, answered with a line that is not a JSON object, too long, or for another point, left
//! out `y`, or sent a value that is not a finite number (or a cost `≤ 0`). After an error the
//! program's state is unknown: the objective refuses further points (and the program is
//! killed when the objective is dropped).
//!
//! The optimum is unknown: [`External::optimum`] is NaN (`costbo pandora` leaves the regret
//! column empty).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{check_point, Evaluation, Objective, ObjectiveError};

/// Longest answer line, in bytes (a megabyte: far beyond `{"y": …, "cost": …}`).
pub const MAX_ANSWER_BYTES: usize = 1 << 20;

/// How long an answer may take unless [`External::with_timeout`] says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// While waiting for an answer, a line on standard error after every this much silence.
pub const PATIENCE_NOTE: Duration = Duration::from_secs(30);

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
    /// No answer came within the timeout.
    Timeout {
        /// The point's `id`.
        id: u64,
        /// The timeout, in seconds.
        seconds: f64,
    },
    /// An answer line grew past [`MAX_ANSWER_BYTES`] without a newline.
    TooLong,
    /// A line came before its point was asked: a second answer to an earlier point.
    Unasked {
        /// The `id` of the point about to be asked.
        id: u64,
        /// The line received (shortened).
        line: String,
    },
    /// The answer carries another point's `id`.
    WrongId {
        /// The `id` asked.
        asked: u64,
        /// The `id` answered (as received, shortened).
        answered: String,
    },
    /// The answer is not a JSON object.
    BadJson {
        /// The line received (escaped and cut: `output::Shown`).
        line: String,
        /// The parser's reason.
        reason: String,
    },
    /// The answer has no `y`.
    MissingValue {
        /// The line received (escaped and cut: `output::Shown`).
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
            ExternalError::Timeout { id, seconds } => write!(
                f,
                "external objective: no answer to point {id} within {seconds} s (the program \
                 is stuck, or did not flush its output; raise --timeout if it needs longer)"
            ),
            ExternalError::TooLong => write!(
                f,
                "external objective: an answer ran past {MAX_ANSWER_BYTES} bytes without a \
                 newline"
            ),
            ExternalError::Unasked { id, line } => write!(
                f,
                "external objective: `{line}` came before point {id} was asked (a second \
                 answer to an earlier point?)"
            ),
            ExternalError::WrongId { asked, answered } => write!(
                f,
                "external objective: the answer to point {asked} carries the id {answered}"
            ),
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

/// What the reader thread passes on from the program's standard output.
#[derive(Debug)]
enum Received {
    /// A line (without its newline; the last one may have had none).
    Line(String),
    /// A line grew past [`MAX_ANSWER_BYTES`]; nothing more is read.
    TooLong,
    /// The output closed.
    Closed,
    /// Reading failed.
    Error(String),
}

/// Reads the program's output on a thread of its own, line by line with a bound on the length,
/// so that waiting for an answer can time out.
fn read_lines(output: ChildStdout, lines: mpsc::Sender<Received>) {
    let mut output = BufReader::new(output);
    loop {
        let mut line = Vec::new();
        let limit = MAX_ANSWER_BYTES as u64 + 1;
        let received = match (&mut output).take(limit).read_until(b'\n', &mut line) {
            Ok(0) => Received::Closed,
            Ok(_) if line.last() == Some(&b'\n') => {
                line.pop();
                Received::Line(String::from_utf8_lossy(&line).into_owned())
            }
            Ok(n) if n as u64 == limit => Received::TooLong,
            Ok(_) => Received::Line(String::from_utf8_lossy(&line).into_owned()),
            Err(e) => Received::Error(e.to_string()),
        };
        let last = !matches!(received, Received::Line(_));
        if lines.send(received).is_err() || last {
            return;
        }
    }
}

/// The running program.
#[derive(Debug)]
struct Process {
    child: Child,
    input: Option<ChildStdin>,
    answers: Receiver<Received>,
    asked: u64,
    failed: bool,
}

/// An objective evaluated by a program speaking the JSON-lines protocol of the module
/// documentation.
#[derive(Debug)]
pub struct External {
    command: String,
    dim: usize,
    timeout: Duration,
    process: Mutex<Process>,
}

/// Writes a line to standard error, ignoring a failure: a note that the run is waiting must
/// never end it.
fn waiting_line(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.write_all(b"\n"));
}

/// `line` for messages: control characters escaped, cut (see [`crate::shown::Shown`]).
fn shorten(line: &str) -> String {
    crate::shown::Shown(line.trim_end()).to_string()
}

/// Parses the answer to point `id`: `y` (finite), `cost` (finite and `> 0`, optional) and
/// `id` (optional; if given, `id`).
pub fn parse_answer_to(line: &str, id: u64) -> Result<Evaluation, ExternalError> {
    let evaluation = parse_answer(line)?;
    if let Ok(serde_json::Value::Object(object)) = serde_json::from_str(line) {
        if let Some(answered) = object.get("id") {
            if answered.as_u64() != Some(id) {
                return Err(ExternalError::WrongId {
                    asked: id,
                    answered: shorten(&answered.to_string()),
                });
            }
        }
    }
    Ok(evaluation)
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
            let _ = child.kill();
            let _ = child.wait();
            return Err(ExternalError::Io(
                "the program's pipes were not opened".into(),
            ));
        };
        let (sender, answers) = mpsc::channel();
        std::thread::Builder::new()
            .name("costbo-external-reader".into())
            .spawn(move || read_lines(output, sender))
            .map_err(|e| ExternalError::Io(format!("cannot start the reader thread: {e}")))?;
        Ok(External {
            command: command.to_string(),
            dim,
            timeout: DEFAULT_TIMEOUT,
            process: Mutex::new(Process {
                child,
                input: Some(input),
                answers,
                asked: 0,
                failed: false,
            }),
        })
    }

    /// The same, waiting at most `timeout` for each answer (instead of [`DEFAULT_TIMEOUT`]).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The command it runs.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// One exchange: writes the point, reads and parses the answer.
    fn exchange(
        p: &mut Process,
        u: &[f64],
        timeout: Duration,
    ) -> Result<Evaluation, ExternalError> {
        let id = p.asked;
        let exited = |p: &mut Process| ExternalError::Exited {
            status: p.child.try_wait().ok().flatten().map(|s| s.to_string()),
        };
        // Anything already waiting came before this point was asked.
        match p.answers.try_recv() {
            Ok(Received::Line(line)) => {
                return Err(ExternalError::Unasked {
                    id,
                    line: shorten(&line),
                })
            }
            Ok(Received::TooLong) => return Err(ExternalError::TooLong),
            Ok(Received::Error(e)) => {
                return Err(ExternalError::Io(format!("reading the answer: {e}")))
            }
            Ok(Received::Closed) | Err(mpsc::TryRecvError::Disconnected) => {
                std::thread::sleep(Duration::from_millis(50));
                return Err(exited(p));
            }
            Err(mpsc::TryRecvError::Empty) => {}
        }
        let request = serde_json::json!({ "x": u, "id": id }).to_string();
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
        p.asked += 1;
        let asked_at = Instant::now();
        loop {
            let left = timeout.saturating_sub(asked_at.elapsed());
            if left.is_zero() {
                return Err(ExternalError::Timeout {
                    id,
                    seconds: timeout.as_secs_f64(),
                });
            }
            match p.answers.recv_timeout(left.min(PATIENCE_NOTE)) {
                Ok(Received::Line(line)) => return parse_answer_to(&line, id),
                Ok(Received::TooLong) => return Err(ExternalError::TooLong),
                Ok(Received::Error(e)) => {
                    return Err(ExternalError::Io(format!("reading the answer: {e}")))
                }
                Ok(Received::Closed) | Err(RecvTimeoutError::Disconnected) => {
                    // The output closed: wait briefly for the program's status.
                    let waited = Instant::now();
                    while waited.elapsed() < Duration::from_millis(500) {
                        if let Ok(Some(_)) = p.child.try_wait() {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    return Err(exited(p));
                }
                Err(RecvTimeoutError::Timeout) => {
                    if asked_at.elapsed() < timeout {
                        waiting_line(format_args!(
                            "costbo: waiting for the external program's answer to point {id} \
                             ({:.0} s of {:.0} s)",
                            asked_at.elapsed().as_secs_f64(),
                            timeout.as_secs_f64()
                        ));
                    }
                }
            }
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
        let result = Self::exchange(&mut p, u, self.timeout);
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
