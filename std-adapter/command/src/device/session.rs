//! The link side of a `costbo device` session, which every experiment shares: the byte stream
//! (TCP or a serial port) and its framing, the pings until the device greets the host, the
//! link reopened after a reboot (`reconnect`), the checks of the device's `Hello`, the host's
//! round, and the timeout on progress with its diagnosis. The sessions (the plain one in
//! [`super`], the causal one in [`super::causal`]) keep only what each message means for
//! their experiment.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use costbo_core::link::{
    encode, DeviceMessage, FrameDecoder, HostMessage, DECODER_CAPACITY, MAX_FRAME, VERSION,
};

use super::{DeviceOptions, DeviceReport, Endpoint};

/// A byte stream to the device with a read timeout.
trait Link: Read + Write + Send {}
impl<T: Read + Write + Send> Link for T {}

/// Opens the link, trying again until `deadline` while the endpoint is not there yet.
fn open(endpoint: &Endpoint, deadline: Instant) -> Result<Box<dyn Link>, String> {
    loop {
        let r: std::io::Result<Box<dyn Link>> = match endpoint {
            Endpoint::Tcp(addr) => TcpStream::connect(addr).and_then(|s| {
                s.set_read_timeout(Some(Duration::from_millis(200)))?;
                // A device that stops reading must not block a send for ever (the link is
                // then reported closed): frames are small, so a second is ample.
                s.set_write_timeout(Some(Duration::from_secs(1)))?;
                s.set_nodelay(true)?;
                Ok(Box::new(s) as Box<dyn Link>)
            }),
            Endpoint::Serial(path, baud) => serialport::new(path.to_string_lossy(), *baud)
                .timeout(Duration::from_millis(200))
                .open()
                .map(|p| Box::new(p) as Box<dyn Link>)
                .map_err(std::io::Error::from),
        };
        match r {
            Ok(l) => return Ok(l),
            Err(e) if Instant::now() >= deadline => return Err(format!("{endpoint}: {e}")),
            // A serial device that is there but cannot be opened as a port (not a terminal,
            // no permission) will not become one by waiting; one that is not there yet (a
            // board that is still enumerating on USB) may.
            Err(e) if matches!(endpoint, Endpoint::Serial(path, _) if path.exists()) => {
                return Err(format!("{endpoint}: cannot open it as a serial port: {e}"))
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// The link with framing.
struct Wire {
    link: Box<dyn Link>,
    decoder: FrameDecoder<DECODER_CAPACITY>,
    pending: std::collections::VecDeque<u8>,
    // A write failed: the link is gone (reported as `Closed` by the next receive).
    broken: bool,
    // Frames dropped as damaged.
    damaged: usize,
}

/// What a receive found.
enum Received {
    /// A whole, undamaged message.
    Message(DeviceMessage),
    /// Nothing came within the read timeout, or the deadline has passed.
    Idle,
    /// The link is gone: end of stream, reset, or a failed write.
    Closed,
}

impl Wire {
    /// Frames over `link`.
    fn new(link: Box<dyn Link>) -> Self {
        Wire {
            link,
            decoder: FrameDecoder::new(),
            pending: Default::default(),
            broken: false,
            damaged: 0,
        }
    }

    /// Sends `m`. A write that fails is no error here: the link is gone, and the next
    /// receive says `Closed`.
    fn send(&mut self, m: &HostMessage) -> Result<(), String> {
        let mut buf = [0u8; MAX_FRAME + 1];
        // A leading delimiter flushes whatever partial frame the device holds.
        let n = encode(m, &mut buf[1..]).map_err(|e| format!("encode {m:?}: {e}"))?;
        if self
            .link
            .write_all(&buf[..n + 1])
            .and_then(|_| self.link.flush())
            .is_err()
        {
            self.broken = true;
        }
        Ok(())
    }

    /// The next message, `Idle` after a read timeout or once `deadline` has passed (so that a
    /// link that never stops sending, garbage or not, cannot keep the caller here), `Closed`
    /// at end of stream.
    fn receive(&mut self, deadline: Instant) -> Result<Received, String> {
        loop {
            if self.broken {
                return Ok(Received::Closed);
            }
            while let Some(b) = self.pending.pop_front() {
                match self.decoder.push::<DeviceMessage>(b) {
                    Some(Ok(m)) => return Ok(Received::Message(m)),
                    Some(Err(e)) => {
                        self.damaged += 1;
                        // A wrong baud rate damages every frame: say so a few times, not
                        // thousands.
                        if self.damaged <= 3 {
                            errln!("costbo device: dropped a damaged frame ({e})");
                        }
                    }
                    None => {}
                }
            }
            if Instant::now() >= deadline {
                return Ok(Received::Idle);
            }
            let mut chunk = [0u8; 512];
            match self.link.read(&mut chunk) {
                Ok(0) => return Ok(Received::Closed),
                Ok(n) => self.pending.extend(&chunk[..n]),
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    return Ok(Received::Idle)
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::ConnectionReset
                            | ErrorKind::ConnectionAborted
                            | ErrorKind::BrokenPipe
                    ) =>
                {
                    return Ok(Received::Closed)
                }
                Err(e) => return Err(format!("receive: {e}")),
            }
        }
    }
}

/// A session's link and its bookkeeping: the wire, the host's round, whether the device has
/// greeted the host on this link, and the time since the last progress.
pub(super) struct Session<'a> {
    options: &'a DeviceOptions,
    /// The experiment file's `config_id`, which a mirrored device's `Hello` must carry.
    config_id: u32,
    wire: Wire,
    /// Rounds observed by the host's controller (absolute round numbers).
    host_round: u32,
    /// The timeout bounds the time without progress (a round observed, or the end), whatever
    /// arrives meanwhile: garbage, damaged frames, repeated hellos or decisions, reconnects.
    last_progress: Instant,
    /// When the device last sent a message (or the link was reopened): whether it fell silent
    /// is part of the timeout's diagnosis.
    last_heard: Instant,
    /// When the last `Ping` was sent.
    last_ping: Instant,
    /// The device has said `Hello` on this link: the host pings no more.
    greeted: bool,
    /// Frames dropped as damaged on the links closed before this one.
    damaged: usize,
}

impl<'a> Session<'a> {
    /// Opens the link (trying until `options.timeout` has passed) and pings the device, which
    /// answers with its `Hello`.
    pub(super) fn open(options: &'a DeviceOptions, config_id: u32) -> Result<Self, String> {
        let wire = Wire::new(open(&options.endpoint, Instant::now() + options.timeout)?);
        let now = Instant::now();
        let mut session = Session {
            options,
            config_id,
            wire,
            host_round: 0,
            last_progress: now,
            last_heard: now,
            last_ping: now,
            greeted: false,
            damaged: 0,
        };
        session.send(&HostMessage::Ping)?;
        Ok(session)
    }

    /// The host's round: the device's at its first `Hello`, plus the rounds observed since.
    pub(super) fn round(&self) -> u32 {
        self.host_round
    }

    /// Sends `m` to the device.
    pub(super) fn send(&mut self, m: &HostMessage) -> Result<(), String> {
        self.wire.send(m)
    }

    /// The device's next message. Meanwhile the device is pinged every 2 s until it greets the
    /// host, and a closed link is reopened with `reconnect` (counted in `report`). Fails when
    /// no round completes within the timeout, or when the link closes without `reconnect`.
    pub(super) fn next(&mut self, report: &mut DeviceReport) -> Result<DeviceMessage, String> {
        loop {
            let deadline = self.last_progress + self.options.timeout;
            if Instant::now() >= deadline {
                return Err(self.timed_out());
            }
            match self.wire.receive(deadline)? {
                Received::Message(m) => {
                    self.last_heard = Instant::now();
                    return Ok(m);
                }
                Received::Idle => {
                    if self.last_ping.elapsed() > Duration::from_secs(2) && !self.greeted {
                        self.send(&HostMessage::Ping)?;
                        self.last_ping = Instant::now();
                    }
                }
                Received::Closed => self.reopen(deadline, report)?,
            }
        }
    }

    /// Why no round completed in time: what the link carried meanwhile says whether to suspect
    /// the link (damaged frames), the device (silence), or the session (messages that did not
    /// advance it).
    fn timed_out(&self) -> String {
        let damaged = self.damaged + self.wire.damaged;
        format!(
            "no round completed for {:?} (host at round {}; in this time {}; --timeout sets the \
             wait)",
            self.options.timeout,
            self.host_round,
            if damaged > 0 {
                format!("{damaged} damaged frames were dropped: a wrong baud rate or link?")
            } else if self.last_heard.elapsed() >= self.options.timeout {
                "the device said nothing".to_string()
            } else {
                "only messages that did not advance the session".to_string()
            }
        )
    }

    /// The device closed the link (a reboot): reopens it within the progress `deadline` with
    /// `reconnect`, and pings the device again; fails without.
    fn reopen(&mut self, deadline: Instant, report: &mut DeviceReport) -> Result<(), String> {
        let host_round = self.host_round;
        if !self.options.reconnect {
            return Err(format!("the device closed the link at round {host_round}"));
        }
        if self.options.verbose {
            outln!("link closed at round {host_round}; waiting for the device");
        }
        std::thread::sleep(Duration::from_millis(100));
        self.damaged += self.wire.damaged;
        self.wire = Wire::new(open(&self.options.endpoint, deadline).map_err(|e| {
            format!(
                "reconnecting within --timeout {:?}: {e}",
                self.options.timeout
            )
        })?);
        report.reconnects += 1;
        self.last_heard = Instant::now();
        self.greeted = false;
        self.send(&HostMessage::Ping)?;
        self.last_ping = Instant::now();
        Ok(())
    }

    /// The checks every session makes of a device's `Hello`: the protocol version, the
    /// experiment it was built from (when mirroring), and on the first one where the device
    /// resumes (a mirror can only follow an experiment from its start), which becomes the
    /// host's round. Counts it in `report`.
    pub(super) fn accept_hello(
        &mut self,
        version: u16,
        config: u32,
        round: u32,
        report: &mut DeviceReport,
    ) -> Result<(), String> {
        let (options, config_id) = (self.options, self.config_id);
        if version != VERSION {
            return Err(format!(
                "the device speaks protocol version {version}, the host {VERSION}"
            ));
        }
        if config != config_id && options.mirror {
            return Err(format!(
                "the device was built from another experiment (config {config:#010x}, {} is \
                 {config_id:#010x})",
                options.config.display()
            ));
        }
        report.hellos += 1;
        if report.hellos > 1 {
            return Ok(());
        }
        report.config_id = config;
        report.first_round = round;
        if options.mirror && round != 0 {
            return Err(format!(
                "the device resumes at round {round}: the host can only mirror an experiment \
                 from its start (run without the mirror, or reformat the device's journal)"
            ));
        }
        self.host_round = round;
        Ok(())
    }

    /// Answers a `Hello` once the caller has settled the round in flight (observed, or to be
    /// decided again): the device must be at the host's round. Shows `hello` (every time when
    /// verbose, else once per link) and starts the device.
    pub(super) fn greet(
        &mut self,
        round: u32,
        hello: std::fmt::Arguments<'_>,
    ) -> Result<(), String> {
        if round != self.host_round {
            return Err(format!(
                "the device is at round {round}, the host at {}",
                self.host_round
            ));
        }
        if self.options.verbose || !self.greeted {
            outln!("{hello}");
        }
        self.greeted = true;
        // (Once greeted, the host pings no more: any later Hello is the device's own, after a
        // reboot, and may be answered with Start; a Decision asked twice comes twice and the
        // second is ignored.)
        self.send(&HostMessage::Start)
    }

    /// The host observed its round (acknowledged, or journaled before a power cut): on to the
    /// next, and the timeout starts again.
    pub(super) fn round_observed(&mut self) {
        self.host_round += 1;
        self.last_progress = Instant::now();
    }
}
