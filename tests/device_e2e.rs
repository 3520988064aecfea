//! End to end: the firmware's controller in QEMU (mps2-an386, Cortex-M4F) against
//! `costbo device` over the serial link (QEMU's UART0 on a local TCP port), playing the plant
//! simulator. Every device decision must equal the host's own f32 controller bit for bit; the
//! power-cut test kills QEMU mid-experiment, boots it again on the same journal file, and the
//! session must go on with every acknowledged round present and nothing more.
//!
//! The same two tests run the costly-measurement experiment
//! (`firmware/experiments/costly-measurement.toml`, built into a second controller ELF with
//! `COSTBO_EXPERIMENT`, kept as `controller-costly-measurement`): every decision *and* every pay/skip answer
//! must equal the host's f32 controller bit for bit, across power cuts too.
//!
//! And two run the contextual causal experiment (`firmware/experiments/causal-contexts.toml`):
//! every arm, every context request and every decision must equal the host's f32 causal
//! controller bit for bit, across power cuts too.
//!
//! Needs `qemu-system-arm` (scripts/test-all installs it) and builds the firmware's
//! `controller` binary with cargo (profile `firmware`). `COSTBO_SKIP_QEMU=1` skips these tests
//! (they then pass without running: say so where you report).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use costbo::device::{run, DeviceOptions, DeviceReport, Endpoint};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn skip() -> bool {
    if std::env::var("COSTBO_SKIP_QEMU").is_ok_and(|v| v == "1") {
        eprintln!("COSTBO_SKIP_QEMU=1: not running the QEMU end-to-end test");
        return true;
    }
    false
}

/// Builds the controller ELF once (cargo's own locking serialises it with other builds).
fn controller_elf() -> PathBuf {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| build_controller(None, &[], "firmware"))
        .clone()
}

/// The costly-measurement experiment file.
fn costly_config() -> PathBuf {
    root().join("firmware/experiments/costly-measurement.toml")
}

/// Builds the controller ELF of the costly-measurement experiment once.
fn costly_controller_elf() -> PathBuf {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| build_controller(Some(&costly_config()), &[], "firmware"))
        .clone()
}

/// The contextual causal experiment file (contexts measured before dosing).
fn causal_config() -> PathBuf {
    root().join("firmware/experiments/causal-contexts.toml")
}

/// Builds the controller ELF of the contextual causal experiment once.
fn causal_controller_elf() -> PathBuf {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| build_controller(Some(&causal_config()), &[], "firmware"))
        .clone()
}

/// The contextual causal experiment with each arm's model fitted (every 4th play of the arm).
fn causal_fitted_config() -> PathBuf {
    root().join("firmware/experiments/causal-contexts-fitted.toml")
}

/// Builds the controller ELF of the fitted contextual causal experiment once (feature
/// `fitted-model`).
fn causal_fitted_controller_elf() -> PathBuf {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    // Built for size: the profile that holds the fitted controller within 128 KB of flash.
    ELF.get_or_init(|| {
        build_controller(
            Some(&causal_fitted_config()),
            &["fitted-model"],
            "firmware-small",
        )
    })
    .clone()
}

/// The plant-dosing experiment on a fitted model (refitted every 5 rounds).
fn fitted_config() -> PathBuf {
    root().join("firmware/experiments/fitted-model.toml")
}

/// Builds the controller ELF of the fitted-model experiment once (feature `fitted-model`).
fn fitted_controller_elf() -> PathBuf {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| build_controller(Some(&fitted_config()), &["fitted-model"], "firmware"))
        .clone()
}

/// Builds the controller for `experiment` (the default `firmware/experiment.toml` if `None`)
/// with the firmware's `extra` features in cargo profile `profile` (`firmware`, or
/// `firmware-small` for size), and returns a copy of its ELF named after the file
/// (`controller-<stem>`). Every file builds in the one target directory, so that the
/// firmware's dependencies are compiled once per profile (a directory per file compiled them
/// three times in each CI run); the builds take turns, and each ELF is copied out before the
/// next build replaces it.
fn build_controller(experiment: Option<&Path>, extra: &[&str], profile: &str) -> PathBuf {
    static BUILDING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        // The device must compute as this host does: with `fast-math` here, there too.
        let mut features: Vec<&str> = extra.to_vec();
        if cfg!(feature = "fast-math") {
            features.push("fast-math");
        }
        let features = if features.is_empty() {
            Vec::new()
        } else {
            vec!["--features".to_string(), features.join(",")]
        };
        let target = std::env::var("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|_| root().join("target"));
        let target = if target.is_absolute() {
            target
        } else {
            root().join(target)
        };
        let mut command = Command::new(cargo);
        command.env("CARGO_TARGET_DIR", &target);
        match experiment {
            Some(file) => command.env("COSTBO_EXPERIMENT", file),
            // The default file, whatever the caller's environment says.
            None => command.env_remove("COSTBO_EXPERIMENT"),
        };
        let status = command
            .current_dir(root())
            .args([
                "build",
                "--profile",
                profile,
                "-p",
                "costbo-firmware",
                "--target",
                "thumbv7em-none-eabihf",
                "--bin",
                "controller",
            ])
            .args(&features)
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the firmware controller failed");
        let built = target.join(format!("thumbv7em-none-eabihf/{profile}/controller"));
        assert!(built.exists(), "{} missing", built.display());
        let stem = experiment
            .and_then(|f| f.file_stem())
            .map_or_else(|| "default".into(), |s| s.to_string_lossy());
        let elf = built.with_file_name(format!("controller-{stem}"));
        std::fs::copy(&built, &elf).expect("the controller's ELF is copied");
        elf
    }
}

fn free_port() -> u16 {
    // The tests of this file run in parallel: a port one test was given and released before
    // its QEMU bound it can be handed to another test by the OS, and two QEMUs on one port
    // leave one host talking to the other's device. Never hand out a port twice.
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
}

/// One boot of the firmware; killed (power cut) on drop.
struct Qemu {
    child: Child,
    log: PathBuf,
}

impl Qemu {
    fn boot(elf: &Path, port: u16, journal: &Path, log: PathBuf) -> Qemu {
        let out = fs::File::create(&log).unwrap();
        let child = Command::new("qemu-system-arm")
            .args([
                "-machine",
                "mps2-an386",
                "-cpu",
                "cortex-m4",
                "-nographic",
                "-monitor",
                "none",
                "-serial",
                &format!("tcp:127.0.0.1:{port},server=on,wait=on"),
                "-semihosting-config",
                &format!(
                    "enable=on,target=native,arg=controller,arg=journal={}",
                    journal.display()
                ),
                "-kernel",
            ])
            .arg(elf)
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .expect("qemu-system-arm runs (install it: apt-get install qemu-system-arm)");
        Qemu { child, log }
    }

    fn log(&self) -> String {
        let mut s = String::new();
        if let Ok(mut f) = fs::File::open(&self.log) {
            let _ = f.read_to_string(&mut s);
        }
        s
    }

    /// Waits until the firmware's log contains `needle`.
    fn wait_for(&self, needle: &str, timeout: Duration) {
        let t = Instant::now();
        while !self.log().contains(needle) {
            assert!(
                t.elapsed() < timeout,
                "QEMU never logged {needle:?}; log:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn cut_power(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.log()
    }

    /// Waits for QEMU to exit by itself; its status.
    fn wait_exit(mut self, timeout: Duration) -> (Option<i32>, String) {
        let t = Instant::now();
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return (s.code(), self.log());
            }
            if t.elapsed() > timeout {
                let _ = self.child.kill();
                return (None, self.log());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Qemu {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn options(port: u16, reconnect: bool) -> DeviceOptions {
    DeviceOptions {
        config: root().join("firmware/experiment.toml"),
        ..costly_options(port, reconnect)
    }
}

fn fitted_options(port: u16, reconnect: bool) -> DeviceOptions {
    DeviceOptions {
        config: fitted_config(),
        ..costly_options(port, reconnect)
    }
}

fn costly_options(port: u16, reconnect: bool) -> DeviceOptions {
    DeviceOptions {
        config: costly_config(),
        endpoint: Endpoint::Tcp(format!("127.0.0.1:{port}")),
        seed: 7,
        noise: 0.01,
        timeout: Duration::from_secs(120),
        reconnect,
        mirror: true,
        verbose: true,
        stop_after: None,
    }
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// The three boots of a run with two power cuts: the host's report and each boot's log.
struct CutRun {
    report: DeviceReport,
    logs: [String; 3],
}

/// Boots `elf` against a host session (`options(port, true)`), cuts the power when the first
/// boot logs `cut1` and when the second logs the line `cut2(boot 1's log)` returns, boots a
/// third time and lets the experiment finish. Panics with every boot's log if the host fails,
/// checks that the host reconnected twice and that the third boot exits cleanly.
fn run_with_two_power_cuts(
    elf: &Path,
    name: &str,
    options: fn(u16, bool) -> DeviceOptions,
    cut1: &str,
    cut2: impl FnOnce(&str) -> String,
) -> CutRun {
    let dir = scratch(name);
    let port = free_port();
    let journal = dir.join("journal.bin");
    let first = Qemu::boot(elf, port, &journal, dir.join("qemu-1.log"));
    let host = std::thread::spawn(move || run(&options(port, true)));
    first.wait_for(cut1, Duration::from_secs(120));
    let log1 = first.cut_power();
    let second = Qemu::boot(elf, port, &journal, dir.join("qemu-2.log"));
    second.wait_for("journal: replayed", Duration::from_secs(60));
    second.wait_for(&cut2(&log1), Duration::from_secs(120));
    let log2 = second.cut_power();
    let third = Qemu::boot(elf, port, &journal, dir.join("qemu-3.log"));
    let report = host.join().unwrap().unwrap_or_else(|e| {
        panic!(
            "{e}\n--- boot 1\n{log1}\n--- boot 2\n{log2}\n--- boot 3\n{}",
            third.log()
        )
    });
    assert_eq!(report.reconnects, 2);
    let (code, log3) = third.wait_exit(Duration::from_secs(30));
    assert_eq!(code, Some(0), "{log3}");
    CutRun {
        report,
        logs: [log1, log2, log3],
    }
}

/// How many journal records a boot replayed (its "journal: replayed N" line).
fn replayed(log: &str) -> u32 {
    let at = log.find("journal: replayed ").expect("replay line");
    log[at + 18..].split(' ').next().unwrap().parse().unwrap()
}

/// Checks a finished session: contiguous rounds from 0, every decision compared, the final
/// recommendation received.
fn check_complete(report: &DeviceReport) {
    assert_eq!(report.first_round, 0);
    assert!(report.rounds.len() >= 30, "{} rounds", report.rounds.len());
    for (i, r) in report.rounds.iter().enumerate() {
        assert_eq!(
            r.round as usize, i,
            "rounds in order, none twice, none missing"
        );
    }
    // Every decision compared (a round lost in a power cut is decided, and compared, twice).
    assert!(report.decisions_checked >= report.rounds.len());
    assert!(report.recommendation.is_some());
    // Budget 3 at 0.1 per cheapest round: ETC-Ada plays 30 rounds of the cheapest group.
    let spent = report.rounds.last().unwrap().spent;
    assert!((spent - 3.0).abs() < 1e-4, "spent {spent}");
}

#[test]
fn thirty_rounds_of_etc_ada_in_qemu_decide_as_the_host_does() {
    if skip() {
        return;
    }
    let elf = controller_elf();
    let dir = scratch("device-e2e");
    let port = free_port();
    let qemu = Qemu::boot(&elf, port, &dir.join("journal.bin"), dir.join("qemu.log"));
    let report = run(&options(port, false)).unwrap_or_else(|e| panic!("{e}\n{}", qemu.log()));
    check_complete(&report);
    // The simple regret falls (it never rises by construction; it must strictly fall).
    let (first, last) = (&report.rounds[0], report.rounds.last().unwrap());
    assert!(
        last.simple_regret < first.simple_regret,
        "simple regret {} -> {}",
        first.simple_regret,
        last.simple_regret
    );
    assert_eq!(report.reconnects, 0);
    assert_eq!(report.decisions_checked, report.rounds.len());
    let (code, log) = qemu.wait_exit(Duration::from_secs(30));
    assert_eq!(code, Some(0), "firmware exit status; log:\n{log}");
    assert!(log.contains("journal: replayed 0 records"), "{log}");
}

#[test]
fn power_cuts_mid_experiment_lose_no_acknowledged_round() {
    if skip() {
        return;
    }
    // Cut 1: while round 9 is being dosed (its Measurement and Outcome not yet handled).
    // Cut 2: as soon as round 20's outcome is observed (before or after its record is
    // durable and acknowledged: either must work).
    let CutRun { report, logs } = run_with_two_power_cuts(
        &controller_elf(),
        "device-power-cut",
        options,
        "round 9: dose",
        |_| "round 20: outcome".into(),
    );
    check_complete(&report);
    // What each boot replayed: everything the earlier boots had acknowledged (the host
    // checked the device's round against its acknowledged rounds at each Hello), so at least
    // the rounds before the cut.
    let (r2, r3) = (replayed(&logs[1]), replayed(&logs[2]));
    assert!(r2 >= 9, "boot 2 replayed {r2} records");
    assert!(r3 >= 20 && r3 > r2, "boot 3 replayed {r3} records");
    assert!(report.recovered_unacked <= 2);
    // Decisions compared: one per round, plus one per round lost in flight and decided again.
    assert!(report.decisions_checked <= report.rounds.len() + 2);
    println!(
        "boot 2 replayed {r2}, boot 3 replayed {r3}; {} rounds, {} decisions identical",
        report.rounds.len(),
        report.decisions_checked
    );
}

#[test]
fn a_fitted_model_in_qemu_refits_and_replays_as_the_host_does_through_power_cuts() {
    if skip() {
        return;
    }
    // The device refits before rounds 0, 5, 10, ...; a reboot replays its journal, refitting
    // at the same rounds from the same data, and the host's f32 mirror (the desktop
    // Optimizer opened from the same file) checks every decision after each cut. Cut 1 falls
    // between refits (round 7), cut 2 on a refit's round (15).
    let CutRun { report, logs } = run_with_two_power_cuts(
        &fitted_controller_elf(),
        "device-fitted",
        fitted_options,
        "round 7: dose",
        |_| "round 15: outcome".into(),
    );
    check_complete(&report);
    let (r2, r3) = (replayed(&logs[1]), replayed(&logs[2]));
    assert!(r2 >= 7, "boot 2 replayed {r2} records");
    assert!(r3 >= 15 && r3 > r2, "boot 3 replayed {r3} records");
    assert!(report.decisions_checked >= report.rounds.len());
    println!(
        "fitted model: boot 2 replayed {r2}, boot 3 replayed {r3}; {} rounds, {} decisions \
         identical",
        report.rounds.len(),
        report.decisions_checked
    );
}

/// Checks a finished costly-measurement session: contiguous rounds from 0, every decision and
/// every answer compared, both answers given, the recommendation received, the budget spent
/// as the host's ledger says (doses plus 0.2 per measured round).
fn check_costly(report: &DeviceReport) {
    assert_eq!(report.first_round, 0);
    for (i, r) in report.rounds.iter().enumerate() {
        assert_eq!(
            r.round as usize, i,
            "rounds in order, none twice, none missing"
        );
    }
    let measured = report.rounds.iter().filter(|r| r.measured).count();
    let skipped = report.rounds.len() - measured;
    assert!(
        measured >= 3 && skipped >= 3,
        "{measured} measured, {skipped} skipped"
    );
    assert!(report.decisions_checked >= report.rounds.len());
    assert!(report.queries_checked >= report.rounds.len());
    assert!(report.recommendation.is_some());
    // Budget 4: every round costs at least its dose of 0.1, measured ones 0.2 more.
    let spent = report.rounds.last().unwrap().spent;
    let floor = 0.1 * report.rounds.len() as f64 + 0.2 * measured as f64;
    assert!(
        spent >= floor - 1e-4 && spent <= 4.0 + 1e-4,
        "spent {spent}, floor {floor}"
    );
    println!(
        "{} rounds, {measured} measured, {skipped} skipped; {} decisions and {} answers identical",
        report.rounds.len(),
        report.decisions_checked,
        report.queries_checked
    );
}

#[test]
fn a_costly_measurement_in_qemu_pays_and_skips_as_the_host_does() {
    if skip() {
        return;
    }
    let elf = costly_controller_elf();
    let dir = scratch("device-e2e-costly");
    let port = free_port();
    let qemu = Qemu::boot(&elf, port, &dir.join("journal.bin"), dir.join("qemu.log"));
    let report =
        run(&costly_options(port, false)).unwrap_or_else(|e| panic!("{e}\n{}", qemu.log()));
    check_costly(&report);
    assert_eq!(report.reconnects, 0);
    assert_eq!(report.decisions_checked, report.rounds.len());
    assert_eq!(report.queries_checked, report.rounds.len());
    let (code, log) = qemu.wait_exit(Duration::from_secs(30));
    assert_eq!(code, Some(0), "firmware exit status; log:\n{log}");
    assert!(log.contains("growth measurement skipped"), "{log}");
    assert!(log.contains("growth measurement paid"), "{log}");
}

#[test]
fn power_cuts_in_a_costly_measurement_experiment_keep_the_answers() {
    if skip() {
        return;
    }
    // Cut 1: as soon as the device has told the host to skip a round (the Skipped may or may
    // not have been journaled and acknowledged before the cut: either must work). Cut 2: while
    // a later round is being dosed.
    let CutRun { report, logs } = run_with_two_power_cuts(
        &costly_controller_elf(),
        "device-power-cut-costly",
        costly_options,
        "growth measurement skipped",
        |log1| {
            let r = log1
                .lines()
                .filter_map(|l| l.strip_prefix("round "))
                .filter_map(|l| l.split(':').next()?.parse::<u32>().ok())
                .max()
                .unwrap_or(0);
            format!("round {}: dose", r + 2)
        },
    );
    check_costly(&report);
    let [_, log2, log3] = &logs;
    // Boot 2 replayed the skipped rounds too: a skipped record replays.
    assert!(log2.contains("journal: replayed"), "{log2}");
    assert!(!log2.contains("cannot be replayed") && !log3.contains("cannot be replayed"));
    // Answers compared: one per round, plus one per round lost in flight and asked again.
    assert!(report.queries_checked <= report.rounds.len() + 2);
}

fn causal_options(port: u16, reconnect: bool) -> DeviceOptions {
    DeviceOptions {
        config: causal_config(),
        ..costly_options(port, reconnect)
    }
}

/// Checks a finished causal session: 20 rounds in order (budget 2, every arm's set costs
/// 0.1), every arm choice and context request and every decision compared, every arm played.
fn check_causal(report: &DeviceReport) {
    assert_eq!(report.first_round, 0);
    assert_eq!(report.rounds.len(), 20);
    for (i, r) in report.rounds.iter().enumerate() {
        assert_eq!(
            r.round as usize, i,
            "rounds in order, none twice, none missing"
        );
    }
    assert!(report.contexts_checked >= 20);
    assert!(report.decisions_checked >= 20);
    assert!(report.recommendation.is_some());
    // The three arms' control sets (0, 1, 2), each played.
    for set in 0..3 {
        assert!(
            report.rounds.iter().any(|r| r.set == set),
            "set {set} never played"
        );
    }
    let spent = report.rounds.last().unwrap().spent;
    assert!((spent - 2.0).abs() < 1e-5, "spent {spent}");
}

#[test]
fn twenty_causal_rounds_in_qemu_measure_contexts_and_decide_as_the_host_does() {
    if skip() {
        return;
    }
    let elf = causal_controller_elf();
    let dir = scratch("device-e2e-causal");
    let port = free_port();
    let qemu = Qemu::boot(&elf, port, &dir.join("journal.bin"), dir.join("qemu.log"));
    let report =
        run(&causal_options(port, false)).unwrap_or_else(|e| panic!("{e}\n{}", qemu.log()));
    check_causal(&report);
    assert_eq!(report.reconnects, 0);
    assert_eq!(report.decisions_checked, 20);
    assert_eq!(report.contexts_checked, 20);
    let (code, log) = qemu.wait_exit(Duration::from_secs(30));
    assert_eq!(code, Some(0), "firmware exit status; log:\n{log}");
    // The device read the contexts its arms need, and only those.
    assert!(log.contains("round 0: context NO3 = "), "{log}");
    assert!(log.contains("round 1: context T = "), "{log}");
    assert!(
        !log.contains("round 0: context T") && !log.contains("round 2: context"),
        "{log}"
    );
    println!(
        "{} rounds; {} arm choices and {} decisions identical",
        report.rounds.len(),
        report.contexts_checked,
        report.decisions_checked
    );
}

fn causal_fitted_options(port: u16, reconnect: bool) -> DeviceOptions {
    DeviceOptions {
        config: causal_fitted_config(),
        ..costly_options(port, reconnect)
    }
}

#[test]
fn fitted_arms_in_qemu_decide_as_the_host_does_through_power_cuts() {
    if skip() {
        return;
    }
    // Every arm is fitted after its 4th and 8th plays: both cuts fall after some fits, so
    // each boot refits while it replays its journal.
    let CutRun { report, logs } = run_with_two_power_cuts(
        &causal_fitted_controller_elf(),
        "device-power-cut-causal-fitted",
        causal_fitted_options,
        "round 13: dose",
        |_| "round 17: outcome".into(),
    );
    check_causal(&report);
    let [_, log2, log3] = &logs;
    let (r2, r3) = (replayed(log2), replayed(log3));
    assert!(r2 >= 13, "boot 2 replayed {r2} records");
    assert!(r3 >= 17 && r3 > r2, "boot 3 replayed {r3} records");
    assert!(!log2.contains("cannot be replayed") && !log3.contains("cannot be replayed"));
    println!(
        "fitted arms: boot 2 replayed {r2}, boot 3 replayed {r3}; {} rounds, {} arm choices and \
         {} decisions identical",
        report.rounds.len(),
        report.contexts_checked,
        report.decisions_checked
    );
}

#[test]
fn power_cuts_in_a_causal_experiment_replay_the_rounds_bit_for_bit() {
    if skip() {
        return;
    }
    // Cut 1: while round 6 is being dosed (its contexts read, its outcome not yet told).
    // Cut 2: as soon as round 14's outcome is logged (journaled and acknowledged or not).
    let CutRun { report, logs } = run_with_two_power_cuts(
        &causal_controller_elf(),
        "device-power-cut-causal",
        causal_options,
        "round 6: dose",
        |_| "round 14: outcome".into(),
    );
    check_causal(&report);
    let [_, log2, log3] = &logs;
    // Each boot decided every journaled round again, bit for bit (or it would have halted).
    let (r2, r3) = (replayed(log2), replayed(log3));
    assert!(r2 >= 6, "boot 2 replayed {r2} records");
    assert!(r3 >= 14 && r3 > r2, "boot 3 replayed {r3} records");
    assert!(!log2.contains("cannot be replayed") && !log3.contains("cannot be replayed"));
    assert!(report.recovered_unacked <= 2);
    // Compared: one per round, plus one per round lost in flight and decided again.
    assert!(report.decisions_checked <= report.rounds.len() + 2);
    println!(
        "boot 2 replayed {r2}, boot 3 replayed {r3}; {} rounds, {} decisions identical",
        report.rounds.len(),
        report.decisions_checked
    );
}
