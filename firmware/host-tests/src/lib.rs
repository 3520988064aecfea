//! Test doubles for the firmware's host tests: a RAM file behind the simulated NOR flash and
//! a scripted host on the other end of the link.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::rc::Rc;

use costbo_core::link::{encode, DeviceMessage, FrameDecoder, HostMessage, MAX_FRAME};
use costbo_firmware::sim::FileIo;

/// A file in RAM, shared between clones (so a "rebooted" flash sees what the old one wrote).
#[derive(Debug, Clone, Default)]
pub struct RamFile(pub Rc<RefCell<Vec<u8>>>);

impl FileIo for RamFile {
    type Error = Infallible;

    fn read_at(&mut self, offset: u32, buf: &mut [u8]) -> Result<(), Infallible> {
        let f = self.0.borrow();
        for (i, b) in buf.iter_mut().enumerate() {
            *b = f.get(offset as usize + i).copied().unwrap_or(0xFF);
        }
        Ok(())
    }

    fn write_at(&mut self, offset: u32, data: &[u8]) -> Result<(), Infallible> {
        let mut f = self.0.borrow_mut();
        let end = offset as usize + data.len();
        if f.len() < end {
            f.resize(end, 0xFF);
        }
        f[offset as usize..end].copy_from_slice(data);
        Ok(())
    }
}

/// What the scripted host answers to one device message.
pub type Responder = Box<dyn FnMut(&DeviceMessage) -> Vec<HostMessage>>;

/// The device's end of a link to a scripted host: every frame the device writes is decoded,
/// recorded and given to the responder, whose answers become the device's input. Reading
/// with nothing left returns 0 bytes (end of stream), which ends the application's loop.
pub struct ScriptedLink {
    input: VecDeque<u8>,
    decoder: FrameDecoder<{ costbo_core::link::DECODER_CAPACITY }>,
    responder: Responder,
    /// Every message the device sent, in order.
    pub sent: Vec<DeviceMessage>,
}

impl ScriptedLink {
    /// A link whose host answers with `responder`, starting with `first` in the input.
    pub fn new(first: &[HostMessage], responder: Responder) -> Self {
        let mut link = ScriptedLink {
            input: VecDeque::new(),
            decoder: FrameDecoder::new(),
            responder,
            sent: Vec::new(),
        };
        for m in first {
            link.push(m);
        }
        link
    }

    /// Queues a host message.
    pub fn push(&mut self, m: &HostMessage) {
        let mut buf = [0u8; MAX_FRAME];
        let n = encode(m, &mut buf).expect("host message fits a frame");
        self.input.extend(&buf[..n]);
    }

    /// Queues raw bytes (damaged frames).
    pub fn push_raw(&mut self, bytes: &[u8]) {
        self.input.extend(bytes);
    }
}

impl embedded_io::ErrorType for ScriptedLink {
    type Error = Infallible;
}

impl embedded_io::Read for ScriptedLink {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        let mut n = 0;
        while n < buf.len() {
            match self.input.pop_front() {
                Some(b) => {
                    buf[n] = b;
                    n += 1;
                }
                None => break,
            }
        }
        Ok(n)
    }
}

impl embedded_io::Write for ScriptedLink {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        for &b in buf {
            if let Some(r) = self.decoder.push::<DeviceMessage>(b) {
                let msg = r.expect("the device sends valid frames");
                for answer in (self.responder)(&msg) {
                    self.push(&answer);
                }
                self.sent.push(msg);
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> Result<(), Infallible> {
        Ok(())
    }
}
