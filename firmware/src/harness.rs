//! A tiny on-target test harness.
//!
//! A test is a plain `fn() -> TestResult` listed with [`tests!`](crate::tests). Tests use
//! [`check!`](crate::check), [`check_eq!`](crate::check_eq), [`check_close!`](crate::check_close)
//! and [`fail!`](crate::fail), which *return* a [`TestFailure`] (file, line, values) instead of
//! panicking, so that every test runs. [`run`] prints one line per test,
//!
//! ```text
//! test basic::cholesky_16x16_f32 ... ok
//! test basic::something ... FAILED (firmware/src/suite/basic.rs:42: check_close!(x, 1.0, 1e-6) failed: ...)
//! ```
//!
//! then a built-in `harness::stack_headroom` test (the stack high-water mark must stay below
//! 90% of the stack; this matters on the 16 KiB microbit), and finally the plain line
//! `N passed, N failed`. QEMU then exits with status 0 if everything passed and 1 otherwise.
//!
//! A test that panics anyway (`panic!`, an out-of-bounds index, an `unwrap` in library code)
//! is reported as `FAILED (panicked at FILE:LINE:COL: MESSAGE)`; the harness then resets the stack
//! pointer and carries on with the next test (there is no unwinding: destructors do not run,
//! which is harmless for plain-data tests). A HardFault (or any unexpected exception) stops the
//! run: the remaining tests are reported as skipped and QEMU exits with status 1.

use core::fmt::{self, Write};

use crate::semihosting::{exit, Global};

/// What a test returns.
pub type TestResult = Result<(), TestFailure>;

/// One test: its name (as printed) and its function.
#[derive(Clone, Copy)]
pub struct Test {
    /// Printed name, `stringify!` of the path given to [`tests!`](crate::tests).
    pub name: &'static str,
    /// The test itself.
    pub run: fn() -> TestResult,
}

/// Builds a `&'static [Test]` from test function paths; the name of each test is its path as
/// written. Adding a test is one line:
///
/// ```ignore
/// static TESTS: &[Test] = costbo_firmware::tests![
///     suite::basic::cholesky_16x16_f32,
///     suite::gp::posterior_matches_reference,   // <- new test
/// ];
/// ```
#[macro_export]
macro_rules! tests {
    ($($(#[$attr:meta])* $test:path),* $(,)?) => {
        &[$($(#[$attr])* $crate::harness::Test { name: stringify!($test), run: $test }),*]
    };
}

const MSG_CAP: usize = 224;

/// The text of the most recent failure. A failing test returns at once, so one buffer is
/// enough, and it keeps [`TestFailure`] (and every `TestResult`) a few words small.
struct MsgBuf {
    text: heapless::String<MSG_CAP>,
    truncated: bool,
    seq: u32,
}

struct MsgCell(core::cell::UnsafeCell<MsgBuf>);
// SAFETY: single core, thread mode only; no reference into the buffer outlives a call below
// except the `&str` handed out by `TestFailure::message`, which is documented.
unsafe impl Sync for MsgCell {}

static MSG: MsgCell = MsgCell(core::cell::UnsafeCell::new(MsgBuf {
    text: heapless::String::new(),
    truncated: false,
    seq: 0,
}));

impl Write for MsgBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            if self.text.push(c).is_err() {
                self.truncated = true;
                return Ok(());
            }
        }
        Ok(())
    }
}

/// Why a test failed: where (file and line of the failing check) and a message with the values.
///
/// Small and `Copy`: the message text lives in one static buffer (no allocation), which holds the
/// most recent failure only; an older `TestFailure` reports `<message overwritten>`. An
/// over-long message is truncated and ends with `...`.
#[derive(Clone, Copy)]
pub struct TestFailure {
    file: &'static str,
    line: u32,
    seq: u32,
}

impl TestFailure {
    /// Creates a failure at `file:line` with a formatted message. Normally called by the macros.
    #[cold]
    #[inline(never)]
    pub fn new(file: &'static str, line: u32, args: fmt::Arguments) -> Self {
        // Format on the stack first: `args` may borrow the message of an earlier failure,
        // which lives in the static buffer.
        let mut local = MsgBuf {
            text: heapless::String::new(),
            truncated: false,
            seq: 0,
        };
        let _ = local.write_fmt(args);
        // SAFETY: see `MsgCell`; `args` is no longer used.
        let msg = unsafe { &mut *MSG.0.get() };
        let seq = msg.seq.wrapping_add(1);
        local.seq = seq;
        *msg = local;
        TestFailure { file, line, seq }
    }

    /// Source file of the failing check.
    pub fn file(&self) -> &'static str {
        self.file
    }

    /// Source line of the failing check.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The (possibly truncated) message. It is only valid until the next failure is created.
    pub fn message(&self) -> &str {
        // SAFETY: see `MsgCell`.
        let msg = unsafe { &*MSG.0.get() };
        if msg.seq != self.seq {
            return "<message overwritten>";
        }
        &msg.text
    }

    fn truncated(&self) -> bool {
        // SAFETY: see `MsgCell`.
        let msg = unsafe { &*MSG.0.get() };
        msg.seq == self.seq && msg.truncated
    }
}

impl fmt::Display for TestFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message())?;
        if self.truncated() {
            f.write_str("...")?;
        }
        Ok(())
    }
}

impl fmt::Debug for TestFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Fails the test with a formatted message: `fail!("bad value {}", x)`.
#[macro_export]
macro_rules! fail {
    ($($arg:tt)+) => {
        return ::core::result::Result::Err($crate::harness::TestFailure::new(
            file!(), line!(), format_args!($($arg)+)))
    };
}

/// Fails the test unless `cond` holds: `check!(x > 0.0)` or `check!(x > 0.0, "x = {}", x)`.
#[macro_export]
macro_rules! check {
    ($cond:expr $(,)?) => {{
        let ok: bool = $cond;
        if !ok {
            $crate::fail!("check!({}) failed", stringify!($cond));
        }
    }};
    ($cond:expr, $($arg:tt)+) => {{
        let ok: bool = $cond;
        if !ok {
            $crate::fail!("check!({}) failed: {}", stringify!($cond), format_args!($($arg)+));
        }
    }};
}

/// Fails the test unless `a == b` (both `PartialEq + Debug`); prints both values.
#[macro_export]
macro_rules! check_eq {
    ($a:expr, $b:expr $(,)?) => {
        match (&$a, &$b) {
            (a, b) => {
                let equal = *a == *b;
                if !equal {
                    $crate::fail!(
                        "check_eq!({}, {}) failed: left = {:?}, right = {:?}",
                        stringify!($a),
                        stringify!($b),
                        a,
                        b
                    );
                }
            }
        }
    };
}

/// Fails the test unless `a` and `b` (f32 or f64) are close:
/// `|a - b| <= rel_tol * max(|a|, |b|)`, or `|a - b| <= abs_tol` with the optional 4th argument
/// (needed when the expected value is 0). NaN is never close to anything.
///
/// `check_close!(l[0][0], 4.0, 1e-6)`, `check_close!(sum, 0.0, 1e-6, 1e-12)`.
#[macro_export]
macro_rules! check_close {
    ($a:expr, $b:expr, $rel_tol:expr $(,)?) => {
        $crate::check_close!($a, $b, $rel_tol, 0.0)
    };
    ($a:expr, $b:expr, $rel_tol:expr, $abs_tol:expr $(,)?) => {
        if let ::core::result::Result::Err(c) = $crate::harness::close($a, $b, $rel_tol, $abs_tol) {
            $crate::fail!(
                "check_close!({}, {}) failed: {}",
                stringify!($a),
                stringify!($b),
                c
            );
        }
    };
}

/// Numbers accepted by [`check_close!`](crate::check_close).
pub trait AsF64: Copy {
    /// Converts to `f64` (exactly, for the implemented types).
    fn as_f64(self) -> f64;
}

macro_rules! impl_as_f64 {
    ($($t:ty),*) => { $(impl AsF64 for $t { fn as_f64(self) -> f64 { self.into() } })* };
}
impl_as_f64!(f32, f64, i8, i16, i32, u8, u16, u32);

/// The details of a failed [`close`] comparison (printed by `check_close!`).
#[derive(Clone, Copy, Debug)]
pub struct NotClose {
    /// Left value.
    pub a: f64,
    /// Right value.
    pub b: f64,
    /// `|a - b|`.
    pub diff: f64,
    /// `|a - b| / max(|a|, |b|)`.
    pub rel: f64,
    /// Relative tolerance.
    pub rel_tol: f64,
    /// Absolute tolerance.
    pub abs_tol: f64,
}

impl fmt::Display for NotClose {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "left = {:e}, right = {:e}, |diff| = {:e}, rel = {:e} > rel_tol {:e}",
            self.a, self.b, self.diff, self.rel, self.rel_tol
        )?;
        if self.abs_tol > 0.0 {
            write!(f, " and |diff| > abs_tol {:e}", self.abs_tol)?;
        }
        Ok(())
    }
}

/// The comparison behind [`check_close!`](crate::check_close).
pub fn close(
    a: impl AsF64,
    b: impl AsF64,
    rel_tol: impl AsF64,
    abs_tol: impl AsF64,
) -> Result<(), NotClose> {
    let (a, b, rel_tol, abs_tol) = (a.as_f64(), b.as_f64(), rel_tol.as_f64(), abs_tol.as_f64());
    #[allow(clippy::float_cmp)] // exact equality also covers equal infinities
    if a == b {
        return Ok(());
    }
    let diff = libm::fabs(a - b);
    let scale = libm::fmax(libm::fabs(a), libm::fabs(b));
    let rel = diff / scale;
    // Written so that NaN anywhere fails.
    if diff <= rel_tol * scale || diff <= abs_tol {
        Ok(())
    } else {
        Err(NotClose {
            a,
            b,
            diff,
            rel,
            rel_tol,
            abs_tol,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Runner

#[derive(Clone, Copy)]
struct State {
    tests: &'static [Test],
    next: usize,
    passed: u32,
    failed: u32,
    active: bool,
}

static STATE: Global<State> = Global::new(State {
    tests: &[],
    next: 0,
    passed: 0,
    failed: 0,
    active: false,
});
static IN_PANIC: Global<bool> = Global::new(false);

/// What the panic and fault handlers do during a test run. Set by [`run`] only, so a firmware
/// that never runs tests (the controller) does not link the runner's reporting and
/// continuation code (about 2.5 KB of flash).
#[derive(Clone, Copy)]
struct Hooks {
    panic: fn(&core::panic::PanicInfo) -> !,
    fault: fn(fmt::Arguments) -> !,
}

static HOOKS: Global<Option<Hooks>> = Global::new(None);

/// Runs every test in `tests`, prints the results and the final `N passed, N failed` line, and
/// exits QEMU (status 0 if all passed, 1 otherwise). `title` goes into the header line.
pub fn run(title: &str, tests: &'static [Test]) -> ! {
    crate::stack::paint();
    println!(
        "running {} tests: {} on {}",
        tests.len() + 1,
        title,
        crate::MACHINE
    );
    STATE.set(State {
        tests,
        next: 0,
        passed: 0,
        failed: 0,
        active: true,
    });
    HOOKS.set(Some(Hooks {
        panic: test_panicked,
        fault: test_faulted,
    }));
    run_remaining()
}

fn run_remaining() -> ! {
    loop {
        let mut st = STATE.get();
        let Some(test) = st.tests.get(st.next) else {
            break;
        };
        st.next += 1;
        STATE.set(st);
        print!("test {} ... ", test.name);
        let result = (test.run)();
        let mut st = STATE.get();
        match result {
            Ok(()) => {
                st.passed += 1;
                println!("ok");
            }
            Err(e) => {
                st.failed += 1;
                println!("FAILED ({})", e);
            }
        }
        STATE.set(st);
    }
    finish(0)
}

fn finish(not_run: usize) -> ! {
    let mut st = STATE.get();
    st.active = false;
    let usage = crate::stack::usage();
    print!("test harness::stack_headroom ... ");
    if usage.ok() {
        st.passed += 1;
        println!("ok ({})", usage);
    } else {
        st.failed += 1;
        println!("FAILED ({}; limit is 90%)", usage);
    }
    STATE.set(st);
    if not_run > 0 {
        println!(
            "{} passed, {} failed, {} skipped",
            st.passed, st.failed, not_run
        );
    } else {
        println!("{} passed, {} failed", st.passed, st.failed);
    }
    exit(if st.failed == 0 && not_run == 0 { 0 } else { 1 })
}

fn in_thread_mode() -> bool {
    cortex_m::peripheral::SCB::vect_active() == cortex_m::peripheral::scb::VectActive::ThreadMode
}

/// Called by the panic handler.
pub(crate) fn on_panic(info: &core::panic::PanicInfo) -> ! {
    if IN_PANIC.get() {
        // A panic while reporting a panic: give up at once.
        exit(101);
    }
    IN_PANIC.set(true);
    match HOOKS.get() {
        Some(h) if STATE.get().active => (h.panic)(info),
        _ => {
            println!("panicked: {}", info);
            exit(101)
        }
    }
}

/// A panic inside a test: reports it and goes on with the next test.
fn test_panicked(info: &core::panic::PanicInfo) -> ! {
    let mut st = STATE.get();
    match info.location() {
        Some(l) => println!(
            "FAILED (panicked at {}:{}:{}: {})",
            l.file(),
            l.line(),
            l.column(),
            info.message()
        ),
        None => println!("FAILED (panicked: {})", info.message()),
    }
    st.failed += 1;
    STATE.set(st);
    if in_thread_mode() {
        // SAFETY: nothing on the current stack is used again; `resume_after_panic` never returns.
        unsafe { restart_stack(resume_after_panic) }
    }
    // Panicked inside an exception handler: cannot carry on safely.
    finish(st.tests.len() - st.next)
}

/// Called by the HardFault and default exception handlers: reports the running test (if any) as
/// failed, skips the rest and exits.
pub(crate) fn on_fault(what: fmt::Arguments) -> ! {
    match HOOKS.get() {
        Some(h) if STATE.get().active => (h.fault)(what),
        _ => {
            println!("{}", what);
            exit(102)
        }
    }
}

/// A fault inside a test: reports it, skips the rest and exits.
fn test_faulted(what: fmt::Arguments) -> ! {
    let mut st = STATE.get();
    println!("FAILED ({})", what);
    st.failed += 1;
    STATE.set(st);
    println!("(the run stops here: the remaining tests are skipped)");
    finish(st.tests.len() - st.next)
}

extern "C" fn resume_after_panic() -> ! {
    IN_PANIC.set(false);
    // The panic may have happened inside a critical section.
    // SAFETY: single-core test firmware; nothing relies on interrupts staying masked.
    unsafe { cortex_m::interrupt::enable() };
    run_remaining()
}

/// Resets the main stack pointer to the top of the stack and jumps to `f`.
///
/// # Safety
/// Everything on the current stack is abandoned; must be called from thread mode.
unsafe fn restart_stack(f: extern "C" fn() -> !) -> ! {
    extern "C" {
        static _stack_start: u32;
    }
    let top = core::ptr::addr_of!(_stack_start) as usize & !7;
    unsafe {
        core::arch::asm!(
            "msr msp, {top}",
            "bx {f}",
            top = in(reg) top,
            f = in(reg) f as usize,
            options(noreturn)
        )
    }
}
