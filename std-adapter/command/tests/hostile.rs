//! The hostile-input suite: what a careless or hostile user gives the `costbo` command, one
//! table across every subcommand and the classes of issue 38 — output that cannot be written
//! (a full disk, a pipe closed before the first byte), external objective programs that
//! misbehave, numbers at the edges of `f64`, settings that are allowed but extreme, inputs that
//! would make the command fail late or never (endless streams, huge graphs, silent devices),
//! and text that would garble the terminal.
//!
//! Every case must end within [`DEADLINE`] without a panic, an abort or a signal; an error is
//! one line on standard error starting `costbo: ` (after diagnostics, if any), without control
//! characters and of bounded length; a success prints no NaN or infinity. Each case also says what it expects: the
//! error's words, a success, a warning, or a quiet end on a closed pipe.

use std::ffi::OsString;
use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Longest a case may take (the slowest cases wait out a 1–2 s timeout on purpose).
const DEADLINE: Duration = Duration::from_secs(30);

/// Longest line on standard error: the command cuts its error at 500 characters.
const LONGEST_ERROR_LINE: usize = 600;

/// Where standard output goes.
#[derive(Clone, Copy, PartialEq)]
enum Stdout {
    /// Read by the test.
    Captured,
    /// `/dev/full`: every write fails with "no space left on device".
    Full,
    /// A pipe whose reader is gone before the command starts: every write fails with EPIPE.
    Closed,
}

/// What the case must end in.
#[derive(Clone, Copy)]
enum Expect {
    /// A non-zero exit and one line on standard error containing the text (or one of its
    /// `|`-separated alternatives, where two diagnoses are both right and timing picks one).
    Error(&'static str),
    /// Exit 0 with output, none of it NaN or infinite.
    Success,
    /// A line on standard error containing the text, whatever the run then ends in (the
    /// program that provokes it may stop answering).
    Warning(&'static str),
    /// The status a shell gives a tool ended by SIGPIPE (141), nothing on standard error.
    Quiet,
}

struct Case {
    /// The arguments, split on spaces; `'...'` groups words; `{F}` is the fixtures directory,
    /// `{D}` a fresh directory of the case's own, `{PY}` the Python interpreter, `{REPO}` the
    /// repository, `{PORT}` a local port (see [`Case::listener`]).
    args: &'static str,
    stdout: Stdout,
    expect: Expect,
    /// A local TCP server on `{PORT}`: `Some(false)` accepts and stays silent, `Some(true)`
    /// accepts and sends random bytes.
    listener: Option<bool>,
}

fn case(args: &'static str, expect: Expect) -> Case {
    Case {
        args,
        stdout: Stdout::Captured,
        expect,
        listener: None,
    }
}

fn full(args: &'static str) -> Case {
    Case {
        stdout: Stdout::Full,
        ..case(args, Expect::Error("cannot write to standard output"))
    }
}

fn closed(args: &'static str) -> Case {
    Case {
        stdout: Stdout::Closed,
        ..case(args, Expect::Quiet)
    }
}

use Expect::{Error, Success, Warning};

/// Every command's output with its reader gone or its disk full.
const WRITERS: &[&str] = &[
    "objective list",
    "objective eval --name hartmann3 --points {F}/points3.csv",
    "gp predict --train {F}/train.csv --test {F}/test.csv --kernel se --lengthscales 0.3 \
     --outputscale 1 --noise 0.01",
    "gp fit --train {F}/train.csv --kernel matern52",
    "acq pbgi --input {F}/pbgi.csv",
    "acq log-ei --input {F}/log_ei.csv",
    "acq mes --input {F}/mes.csv --max-values {F}/max_values.csv",
    "causal pomps --graph {REPO}/data/causal/fig1.toml",
    "causal pomps --graph {REPO}/data/causal/fig1.toml --json",
    "causal arms --graph {REPO}/data/causal/fig1.toml --experiment",
    "causal envs --samples 1000",
    "pandora --objective hartmann3 --rule log-ei --budget 12 --fast",
    "demo --budget 2 --seeds 0 --out {D}/demo",
    "--help",
    "--version",
];

/// `pandora` on an external program from the fixtures, priced by the program.
macro_rules! external {
    ($program:literal, $extra:literal) => {
        concat!(
            "pandora --objective external --dim 2 --command '{PY} {F}/",
            $program,
            "' --rule log-ei --fast --cost external ",
            $extra
        )
    };
}

fn cases() -> Vec<Case> {
    let mut all: Vec<Case> = Vec::new();
    for args in WRITERS {
        all.push(full(args));
        all.push(closed(args));
    }
    all.extend([
        // Files a user keeps cannot be written, or a path names something that is not a file.
        case(
            "demo --budget 2 --seeds 0 --out /dev/full/x",
            Error("/dev/full/x"),
        ),
        case(
            "run --config {REPO}/std-adapter/configs/quick.toml --out {F}/train.csv/x --jobs 1",
            Error("train.csv"),
        ),
        case(
            "reproduce causal --quick --out {F}/train.csv/sub --jobs 1",
            Error("train.csv"),
        ),
        case("gp fit --train {D} --kernel se", Error("is a directory")),
        case(
            "gp fit --train /dev/zero --kernel se",
            Error("longer than 256 MiB"),
        ),
        case("acq pbgi --input /dev/urandom", Error("/dev/urandom")),
        case(
            "run --config /dev/zero --out {D}/r",
            Error("longer than 16 MiB"),
        ),
        case("causal pomps --graph /dev/urandom", Error("/dev/urandom")),
        case(
            "device --config /dev/zero --tcp 127.0.0.1:1",
            Error("not an experiment file"),
        ),
        case(
            "run --config {REPO}/README.md --out {D}/r",
            Error("README.md"),
        ),
        case(
            "gp fit --train {F}/binary.csv --kernel se",
            Error("not UTF-8"),
        ),
        // External objective programs that misbehave.
        case(external!("ok.py", "--budget 15"), Success),
        case(
            external!("endless.py", "--budget 5"),
            Error("without a newline"),
        ),
        case(
            external!("silent.py", "--budget 5 --timeout 1"),
            Error("no answer to point 0 within 1 s"),
        ),
        case(
            external!("partial.py", "--budget 5 --timeout 1"),
            Error("no answer to point 0"),
        ),
        case(
            external!("closes_output.py", "--budget 5 --timeout 5"),
            Error("closed its output"),
        ),
        case(
            external!("twice.py", "--budget 5"),
            // The second answer to point 0 is seen before point 1 is asked, or, if the reader
            // thread hands it over late, as point 1's answer with point 0's id.
            Error("came before point 1 was asked|the answer to point 1 carries the id 0"),
        ),
        case(
            external!("wrong_id.py", "--budget 5"),
            Error("carries the id 7"),
        ),
        case(
            external!("crashes.py", "--budget 50"),
            Error("exited (exit status: 3)"),
        ),
        case(
            external!("nan.py", "--budget 5"),
            Error("not a JSON object"),
        ),
        case(
            external!("overflow.py", "--budget 5"),
            Error("number out of range"),
        ),
        case(
            external!("extreme.py", "--budget 15"),
            Error("rescale the objective"),
        ),
        case(
            external!("negative_cost.py", "--budget 5"),
            Error("not a finite number > 0"),
        ),
        case(
            external!("tiny_cost.py", "--timeout 5 --budget 1"),
            Warning("more rounds"),
        ),
        case(external!("garbage.py", "--budget 5"), Error("\\u{1b}[31m")),
        case(external!("array.py", "--budget 5"), Error("not an object")),
        case(
            external!("y_text.py", "--budget 5"),
            Error("not a finite number"),
        ),
        case(
            external!("empty_line.py", "--budget 5"),
            Error("not a JSON object"),
        ),
        case(
            external!("exits.py", "--budget 5"),
            Error("exited (exit status: 0)"),
        ),
        case(external!("stubborn.py", "--budget 3"), Success),
        case(
            "pandora --objective external --dim 2 --command /no/such/program --rule log-ei \
             --budget 5",
            Error("cannot start `/no/such/program`"),
        ),
        case(
            "pandora --objective external --dim 2 --command '' --rule log-ei --budget 5",
            Error("the command is empty"),
        ),
        case(
            "pandora --objective external --dim 2 --rule log-ei --budget 5",
            Error("needs --command"),
        ),
        case(
            external!("ok.py", "--budget 5 --timeout nan"),
            Error("--timeout NaN"),
        ),
        case(
            external!("ok.py", "--budget 5 --timeout 1e300"),
            Error("--timeout 1e300"),
        ),
        Case {
            stdout: Stdout::Closed,
            ..case(external!("ok.py", "--budget 30"), Expect::Quiet)
        },
        // Numbers at the edges of f64.
        case(
            "gp fit --train {F}/train_extreme.csv --kernel se",
            Error("rescale y"),
        ),
        case(
            "gp predict --train {F}/train_extreme.csv --test {F}/test.csv --kernel se \
             --lengthscales 0.3 --outputscale 1 --noise 0.01",
            Success,
        ),
        case(
            "gp predict --train {F}/train_extreme.csv --test {F}/test.csv --kernel se \
             --lengthscales 0.3 --outputscale 1 --noise 0.01 --precision f32",
            Error("NaN or infinite"),
        ),
        case(
            "gp predict --train {F}/train.csv --test {F}/test_extreme.csv --kernel se \
             --lengthscales 0.3 --outputscale 1 --noise 0.01",
            Success,
        ),
        case(
            "gp fit --train {F}/train_subnormal.csv --kernel se",
            Success,
        ),
        case(
            "gp predict --train {F}/train.csv --test {F}/test.csv --kernel se \
             --lengthscales 1e-300 --outputscale 1 --noise 0.01",
            Error("--lengthscales 1e-300"),
        ),
        case(
            "gp predict --train {F}/train.csv --test {F}/test.csv --kernel se \
             --lengthscales 0.3 --outputscale 1 --noise 0.01 --mean 1e308",
            Success,
        ),
        case("acq log-ei --input {F}/log_ei_far.csv", Success),
        case(
            "acq log-ei --input {F}/log_ei_none.csv",
            Error("row 2: LogEI is -inf"),
        ),
        case(
            "acq log-ei --input {F}/log_ei_beyond.csv",
            Error("row 1: LogEI is below the range of f64"),
        ),
        case(
            "acq pbgi --input {F}/pbgi_beyond.csv",
            Error("row 1: the value is beyond the range of f64"),
        ),
        case("acq pbgi --input {F}/pbgi_edges.csv", Success),
        case(
            "acq mes --input {F}/mes.csv --max-values {F}/max_values_extreme.csv",
            Success,
        ),
        case(
            "objective eval --name hartmann3 --points {F}/points3_outside.csv",
            Error("outside the unit interval"),
        ),
        case(
            "objective eval --name hartmann3 --points {F}/points3_edges.csv",
            Success,
        ),
        case(
            "objective eval --name gp-sample --seed 18446744073709551615 --points \
             {F}/points3.csv",
            Success,
        ),
        // Settings that are allowed, at their extremes, and settings that are not.
        case(
            "causal envs --samples 1",
            Error("--samples 1: must be in 2..="),
        ),
        case("causal envs --samples 2", Success),
        case(
            "causal envs --samples 100 --seed 18446744073709551615",
            Success,
        ),
        case(
            "pandora --objective hartmann3 --rule log-ei --budget 5e-324 --fast",
            Success,
        ),
        case(
            "pandora --objective hartmann3 --rule log-ei --budget 1e308 --fast",
            Error("--budget 1e308"),
        ),
        case(
            "pandora --objective ackley --dim 7 --rule log-ei --budget 2 --fast",
            Error("supported: [1, 2, 3, 4, 5, 6, 8"),
        ),
        case(
            "pandora --objective hartmann3 --rule '' --budget 3 --fast",
            Error("pbgi"),
        ),
        case(
            "pandora --objective hartmann3 --rule log-ei --model fixed:-1 --budget 3",
            Error("fixed:LENGTHSCALE > 0"),
        ),
        case(
            "pandora --objective gp-sample --objective-seed 18446744073709551615 --rule \
             log-ei --budget 3 --fast --seed 18446744073709551615",
            Success,
        ),
        case(
            "demo --budget 1 --seeds 18446744073709551615 --out {D}/d",
            Error("at most 1000 seeds"),
        ),
        case(
            "demo --budget 1 --seed 18446744073709551615 --seeds 2 --out {D}/d",
            Error("--seeds 2"),
        ),
        case(
            "demo --budget 0.5 --seed 18446744073709551615 --seeds 0 --out {D}/d",
            Success,
        ),
        case("demo --budget 5e-324 --seeds 0 --out {D}/d", Success),
        case(
            "reproduce pandora --quick --rounds 5 --out {D}/r --jobs 1",
            Error("--rounds applies only to `reproduce causal`"),
        ),
        case(
            "reproduce variants --quick --out {D}/r --jobs 1",
            Error("--quick does not apply to `reproduce variants`"),
        ),
        case(
            "reproduce causal --quick --lengthscale 0.5 --out {D}/r --jobs 1",
            Error("--lengthscale applies only"),
        ),
        case(
            "reproduce causal --quick --rounds 100000 --out {D}/r --jobs 1",
            Error("100000"),
        ),
        case(
            "reproduce ucb-cvs --seeds 18446744073709551615 --out {D}/r --jobs 1",
            Error("--seeds 18446744073709551615"),
        ),
        case(
            "reproduce pandora --quick --objectives nosuch --out {D}/r --jobs 1",
            Error("known: fig2"),
        ),
        case(
            "reproduce ucb-cvs --quick --no-run --out {D}/empty --jobs 1",
            Success,
        ),
        case(
            "run --config {REPO}/std-adapter/configs/quick.toml --out {D}/r --shard 5/4",
            Error("shard 5/4"),
        ),
        // What would fail late or never.
        case(
            "device --config {REPO}/firmware/experiment.toml --serial /dev/null --timeout 5",
            Error("cannot open it as a serial port"),
        ),
        case(
            "device --config {REPO}/firmware/experiment.toml --tcp nonsense --timeout 1",
            Error("tcp nonsense"),
        ),
        Case {
            listener: Some(false),
            ..case(
                "device --config {REPO}/firmware/experiment.toml --tcp 127.0.0.1:{PORT} \
                 --timeout 2 --quiet",
                Error("the device said nothing"),
            )
        },
        Case {
            listener: Some(true),
            ..case(
                "device --config {REPO}/firmware/experiment.toml --tcp 127.0.0.1:{PORT} \
                 --timeout 2 --quiet",
                Error("damaged frames were dropped"),
            )
        },
        case(
            "causal pomps --graph {F}/dense.toml",
            Error("at most 128 are supported"),
        ),
        case(
            "causal arms --graph {F}/wide.toml",
            Error("too many mixed policy scopes"),
        ),
        case(
            "causal pomps --graph {REPO}/data/causal/a3.toml --max-scopes 0",
            Error("and 23 more"),
        ),
        case(
            "causal arms --table {F}/many_arms.toml",
            Error("the same actions and contexts as arm 0"),
        ),
        case("causal pomps --graph {F}/cycle.toml", Error("cycle")),
        case(
            "causal arms --graph {F}/inverted_bounds.toml",
            Error("need finite lo < hi"),
        ),
        // Text that does not help, or would garble the terminal.
        case("gp fit --train {F}/train_bom.csv --kernel se", Success),
        case("gp fit --train {F}/train_crlf.csv --kernel se", Success),
        case(
            "gp fit --train {F}/train_semicolon.csv --kernel se",
            Error("line 2: `0.1;0.2;1` is not a finite number"),
        ),
        case(
            "acq pbgi --input {F}/long_cell.csv",
            Error("(5000000 bytes in all)"),
        ),
        case(
            "causal pomps --graph {F}/control.toml",
            Error("A\\u{1b}[31m"),
        ),
        case(
            "causal pomps --graph {REPO}/data/causal/fig1.toml --intervenable X1\x1b[2J",
            Error("X1\\u{1b}[2J"),
        ),
        case(
            "pandora --objective ha\x1b[31mrt --rule log-ei --budget 3",
            Error("unknown objective `ha\\u{1b}[31mrt` (known: gp-sample"),
        ),
        case(
            "pandora --objective hartmann3 --rule log-ei --budget 1\x1b[31m",
            Error("--budget"),
        ),
        case("frobnicate", Error("unrecognized subcommand")),
        case(
            "pandora --objective \u{7f}\u{9b}31m --rule log-ei --budget 3",
            Error("\\u{7f}\\u{9b}31m"),
        ),
    ]);
    all
}

/// The fixtures: data files, graphs and the external programs (Python, as a user's would be).
fn fixtures(dir: &Path) {
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    write(
        "train.csv",
        "x1,x2,y\n0.1,0.2,1.0\n0.5,0.5,2.0\n0.9,0.1,0.5\n",
    );
    write("test.csv", "x1,x2\n0.3,0.3\n0.7,0.2\n");
    write(
        "train_extreme.csv",
        "x1,x2,y\n0.1,0.2,1e308\n0.5,0.5,-1e308\n0.9,0.9,1e308\n",
    );
    write(
        "train_subnormal.csv",
        "x1,x2,y\n0.1,0.2,1e-320\n0.5,0.5,-1e-320\n",
    );
    write("test_extreme.csv", "x1,x2\n1e308,-1e308\n");
    write(
        "train_bom.csv",
        "\u{feff}x1,x2,y\n0.1,0.2,1.0\n0.5,0.5,2.0\n",
    );
    write(
        "train_crlf.csv",
        "x1,x2,y\r\n0.1,0.2,1.0\r\n0.5,0.5,2.0\r\n",
    );
    write("train_semicolon.csv", "x1;x2;y\n0.1;0.2;1\n");
    std::fs::write(dir.join("binary.csv"), b"x1,x2,y\n\xff\xfe,0.2,1\n").unwrap();
    write("pbgi.csv", &{
        let mut t = String::from("mean,std,lambda_cost\n");
        for i in 0..20_000 {
            t.push_str(&format!("{},{},{}\n", i % 7, 0.5 + (i % 3) as f64, 0.01));
        }
        t
    });
    write("log_ei.csv", "mean,std,best\n0,1,0\n1,2,0.5\n");
    write(
        "log_ei_far.csv",
        "mean,std,best\n1e308,1,-1e308\n0,1e-308,0\n2,0,0\n",
    );
    write("log_ei_none.csv", "mean,std,best\n1,1,0\n0,0,0\n");
    write("log_ei_beyond.csv", "mean,std,best\n-1e308,1,1e308\n");
    write(
        "pbgi_beyond.csv",
        "mean,std,lambda_cost\n1e308,1e308,1e-300\n",
    );
    write(
        "pbgi_edges.csv",
        "mean,std,lambda_cost\n0,1e-320,1\n0,1,1e-300\n0,0,1\n",
    );
    write("mes.csv", "mean,std\n0,1\n1.5,0.3\n");
    write("max_values.csv", "max_value\n1\n2\n");
    write("max_values_extreme.csv", "max_value\n1e300\n-1e300\n");
    write(
        "long_cell.csv",
        &format!("mean,std,lambda_cost\n{},1,1\n", "1".repeat(5_000_000)),
    );
    write("points3.csv", "a,b,c\n0.5,0.5,0.5\n");
    write("points3_outside.csv", "a,b,c\n1.5,0.5,0.5\n");
    write("points3_edges.csv", "a,b,c\n-0,1,0\n1,1,1\n");
    let graph = |nodes: &[String], edges: &[(String, String)], intervenable: &[String]| {
        let list = |v: &[String]| {
            v.iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let edges = edges
            .iter()
            .map(|(a, b)| format!("[{a:?}, {b:?}]"))
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "nodes = [{}, \"Y\"]\ntarget = \"Y\"\nintervenable = [{}]\nedges = [{edges}]\n\
             latent_confounders = []\n",
            list(nodes),
            list(intervenable)
        )
    };
    let names = |n: usize| (0..n).map(|i| format!("V{i}")).collect::<Vec<_>>();
    let dense = names(128);
    let mut edges = Vec::new();
    for i in 0..128 {
        for j in i + 1..128 {
            edges.push((dense[i].clone(), dense[j].clone()));
        }
        edges.push((dense[i].clone(), "Y".to_string()));
    }
    write("dense.toml", &graph(&dense, &edges, &dense));
    let wide = names(24);
    let to_y: Vec<_> = wide.iter().map(|v| (v.clone(), "Y".to_string())).collect();
    write("wide.toml", &graph(&wide, &to_y, &wide));
    let pair = vec!["A".to_string(), "B".to_string()];
    write(
        "cycle.toml",
        &graph(
            &pair,
            &[
                ("A".into(), "B".into()),
                ("B".into(), "A".into()),
                ("B".into(), "Y".into()),
            ],
            &pair,
        ),
    );
    write(
        "inverted_bounds.toml",
        "nodes = [\"A\", \"Y\"]\ntarget = \"Y\"\nintervenable = [\"A\"]\nedges = [[\"A\", \"Y\"]]\n\
         latent_confounders = []\n[bounds]\nA = [1.0, -1.0]\n",
    );
    write(
        "control.toml",
        "nodes = [\"A\\u001b[31m\", \"Y\"]\ntarget = \"Y\"\nintervenable = [\"A\\u001b[31m\"]\n\
         edges = [[\"A\\u001b[31m\", \"Y\"]]\nlatent_confounders = []\n",
    );
    write(
        "many_arms.toml",
        &"[[arm]]\nactions = [\"A\"]\ncontexts = []\n".repeat(100_000),
    );
    // The external programs: each reads `{"x": [...], "id": n}` lines.
    let program = |name: &str, body: &str| {
        write(
            name,
            &format!("import json, os, random, signal, sys, time\n{body}\n"),
        )
    };
    program(
        "ok.py",
        "for line in sys.stdin:\n    m = json.loads(line); x = m['x']\n    \
         print(json.dumps({'y': -sum((v - 0.3) ** 2 for v in x), 'cost': 1.0 + x[0], \
         'id': m['id']}), flush=True)",
    );
    program(
        "endless.py",
        "sys.stdin.readline()\ntry:\n    while True: sys.stdout.write('1' * 65536)\n\
         except BrokenPipeError:\n    os._exit(0)",
    );
    program("silent.py", "sys.stdin.readline(); time.sleep(60)");
    program(
        "partial.py",
        "sys.stdin.readline(); sys.stdout.write('{\"y\": 1'); sys.stdout.flush(); time.sleep(60)",
    );
    program(
        "closes_output.py",
        "os.close(1); sys.stdin.readline(); time.sleep(60)",
    );
    program(
        "twice.py",
        // Both answers in one write, so that they are in the pipe together before the next
        // point could be asked (two writes raced with it on a loaded machine).
        "for line in sys.stdin:\n    m = json.loads(line)\n    \
         a = json.dumps({'y': 1.0, 'cost': 1, 'id': m['id']})\n    \
         b = json.dumps({'y': 2.0, 'cost': 1, 'id': m['id']})\n    \
         print(a + '\\n' + b, flush=True)",
    );
    program(
        "wrong_id.py",
        "for line in sys.stdin:\n    m = json.loads(line)\n    \
         print(json.dumps({'y': 1, 'cost': 1, 'id': m['id'] + 7}), flush=True)",
    );
    program(
        "crashes.py",
        "for n, line in enumerate(sys.stdin):\n    if n == 3: sys.exit(3)\n    \
         print(json.dumps({'y': float(n), 'cost': 1.0}), flush=True)",
    );
    program(
        "nan.py",
        "for line in sys.stdin: print('{\"y\": NaN, \"cost\": 1}', flush=True)",
    );
    program(
        "overflow.py",
        "for line in sys.stdin: print('{\"y\": 1e309, \"cost\": 1}', flush=True)",
    );
    program(
        "extreme.py",
        "for n, line in enumerate(sys.stdin):\n    \
         print(json.dumps({'y': [1e308, -1e308, 1e-308][n % 3], 'cost': 1}), flush=True)",
    );
    program(
        "negative_cost.py",
        "for line in sys.stdin: print('{\"y\": 1, \"cost\": -2}', flush=True)",
    );
    program(
        "tiny_cost.py",
        "for n, line in enumerate(sys.stdin):\n    if n == 12: sys.exit(0)\n    \
         print('{\"y\": %d, \"cost\": 5e-324}' % n, flush=True)",
    );
    program(
        "garbage.py",
        "sys.stdin.readline(); sys.stdout.buffer.write(b'\\xff\\xfe\\x00\\x1b[31mred\\n'); \
         sys.stdout.flush(); time.sleep(5)",
    );
    program(
        "array.py",
        "for line in sys.stdin: print('[1, 2]', flush=True)",
    );
    program(
        "y_text.py",
        "for line in sys.stdin: print('{\"y\": \"1.0\", \"cost\": 1}', flush=True)",
    );
    program(
        "empty_line.py",
        "for line in sys.stdin: print('', flush=True)",
    );
    program("exits.py", "pass");
    program(
        "stubborn.py",
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\nfor line in sys.stdin: \
         print('{\"y\": 1, \"cost\": 1}', flush=True)\ntime.sleep(60)",
    );
}

/// Splits `args` on spaces, `'...'` grouping, after substituting the placeholders.
fn arguments(args: &str, subst: &[(&str, String)]) -> Vec<OsString> {
    let mut text = args.to_string();
    for (key, value) in subst {
        text = text.replace(key, value);
    }
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut started = false;
    for c in text.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                started = true;
            }
            ' ' if !quoted => {
                if started {
                    out.push(OsString::from(std::mem::take(&mut word)));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(OsString::from(word));
    }
    out
}

/// A TCP server that accepts one connection and, if `noisy`, sends random bytes; it lives
/// for the test's remaining time.
fn listener(noisy: bool) -> u16 {
    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = server.local_addr().unwrap().port();
    std::thread::spawn(move || {
        if let Ok((mut link, _)) = server.accept() {
            let mut state = 0x9e37_79b9_7f4a_7c15_u64;
            let mut bytes = [0u8; 4096];
            let end = Instant::now() + DEADLINE;
            while Instant::now() < end {
                if noisy {
                    for b in bytes.iter_mut() {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        *b = state as u8;
                    }
                    if std::io::Write::write_all(&mut link, &bytes).is_err() {
                        return;
                    }
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    });
    port
}

/// What a case ended in.
struct Ending {
    status: Option<i32>,
    signal: Option<i32>,
    stdout: String,
    stderr: Vec<u8>,
    seconds: f64,
}

fn run(case: &Case, fixtures: &Path, scratch: &Path, python: &str) -> Ending {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let port = case.listener.map(listener).unwrap_or(0);
    let args = arguments(
        case.args,
        &[
            ("{F}", fixtures.display().to_string()),
            ("{D}", scratch.display().to_string()),
            ("{PY}", python.to_string()),
            ("{REPO}", repo.display().to_string()),
            ("{PORT}", port.to_string()),
        ],
    );
    let mut command = Command::new(env!("CARGO_BIN_EXE_costbo"));
    command
        .args(&args)
        .current_dir(scratch)
        .stdin(Stdio::null())
        .stderr(Stdio::piped());
    let mut reader = None;
    match case.stdout {
        Stdout::Captured => {
            command.stdout(Stdio::piped());
        }
        Stdout::Full => {
            let full = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap();
            command.stdout(Stdio::from(full));
        }
        Stdout::Closed => {
            let (read, write) = std::io::pipe().unwrap();
            drop(read);
            command.stdout(Stdio::from(write));
        }
    }
    let start = Instant::now();
    let mut child = command.spawn().unwrap();
    if case.stdout == Stdout::Captured {
        let mut out = child.stdout.take().unwrap();
        reader = Some(std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = out.read_to_end(&mut text);
            text
        }));
    }
    let mut err = child.stderr.take().unwrap();
    let err_reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = err.read_to_end(&mut text);
        text
    });
    let status = crate::common::wait_within(&mut child, DEADLINE, case.args);
    use std::os::unix::process::ExitStatusExt;
    Ending {
        status: status.code(),
        signal: status.signal(),
        stdout: reader
            .map(|r| String::from_utf8_lossy(&r.join().unwrap()).into_owned())
            .unwrap_or_default(),
        stderr: err_reader.join().unwrap(),
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// What is wrong with how `case` ended, if anything.
fn fault(case: &Case, e: &Ending) -> Option<String> {
    let stderr = String::from_utf8_lossy(&e.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    if let Some(signal) = e.signal {
        return Some(format!("ended by signal {signal}"));
    }
    if matches!(e.status, Some(101) | Some(134)) || stderr.contains("panicked") {
        return Some(format!("crashed: {stderr}"));
    }
    if e.stderr.contains(&0x1b) || e.stdout.contains('\x1b') {
        return Some("an escape character reached the terminal".into());
    }
    if let Some(long) = lines
        .iter()
        .find(|l| l.chars().count() > LONGEST_ERROR_LINE)
    {
        return Some(format!("a line of {} characters", long.chars().count()));
    }
    let finite_output = || {
        let bad = e
            .stdout
            .split([',', '\n', ' ', '\t', '"', '[', ']', ':'])
            .find(|w| {
                let w = w.trim().to_ascii_lowercase();
                matches!(
                    w.as_str(),
                    "nan" | "inf" | "-inf" | "+inf" | "infinity" | "-infinity"
                )
            });
        match bad {
            Some(w) => Some(format!("`{w}` in the output of a success")),
            None if e.stdout.trim().is_empty() => Some("a success printed nothing".into()),
            None => None,
        }
    };
    match case.expect {
        Expect::Error(words) => {
            if e.status == Some(0) {
                return Some(format!("succeeded: {}", e.stdout));
            }
            // Diagnostics may come first (`costbo device: dropped a damaged frame`); the
            // error is the last line, and the only one of its kind.
            let errors = lines
                .iter()
                .filter(|l| l.starts_with("costbo: ") && !l.starts_with("costbo: warning:"))
                .count();
            let Some(last) = lines.last().filter(|l| l.starts_with("costbo: ")) else {
                return Some(format!("no error line last on stderr: {stderr}"));
            };
            if errors != 1 {
                return Some(format!("{errors} error lines: {stderr}"));
            }
            if !words.split('|').any(|w| last.contains(w)) {
                return Some(format!("the error does not say `{words}`: {last}"));
            }
            None
        }
        Expect::Success => {
            if e.status != Some(0) {
                return Some(format!("status {:?}: {stderr}", e.status));
            }
            finite_output()
        }
        Expect::Warning(words) => {
            if !stderr.contains(words) {
                return Some(format!("no warning saying `{words}`: {stderr}"));
            }
            None
        }
        Expect::Quiet => {
            if e.status != Some(141) || !lines.is_empty() {
                return Some(format!("status {:?}, stderr: {stderr}", e.status));
            }
            None
        }
    }
}

#[test]
fn every_hostile_input_ends_promptly_in_a_clear_error_or_a_correct_result() {
    let root = std::env::temp_dir().join(format!("costbo-hostile-{}", std::process::id()));
    let fixtures_dir = root.join("fixtures");
    std::fs::create_dir_all(&fixtures_dir).unwrap();
    fixtures(&fixtures_dir);
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let cases = cases();
    let next = AtomicUsize::new(0);
    let faults = Mutex::new(Vec::new());
    let slowest = Mutex::new((0.0f64, ""));
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                let scratch: PathBuf = root.join(format!("case-{i}"));
                std::fs::create_dir_all(&scratch).unwrap();
                let ending = run(case, &fixtures_dir, &scratch, &python);
                if let Some(f) = fault(case, &ending) {
                    faults
                        .lock()
                        .unwrap()
                        .push(format!("`costbo {}`: {f}", case.args));
                }
                let mut s = slowest.lock().unwrap();
                if ending.seconds > s.0 {
                    *s = (ending.seconds, case.args);
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&root);
    let faults = faults.into_inner().unwrap();
    let (seconds, args) = slowest.into_inner().unwrap();
    eprintln!(
        "{} hostile inputs, {} faults; slowest {seconds:.1} s: costbo {args}",
        cases.len(),
        faults.len()
    );
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn arguments_are_split_on_spaces_and_grouped_by_quotes() {
    let v = arguments(
        "pandora --command '{PY} {F}/ok.py' --rule ''",
        &[("{PY}", "python3".into()), ("{F}", "/f".into())],
    );
    let v: Vec<String> = v.into_iter().map(|s| s.into_string().unwrap()).collect();
    assert_eq!(
        v,
        ["pandora", "--command", "python3 /f/ok.py", "--rule", ""]
    );
}
