//! A host file through semihosting, as the backing store of a [`crate::sim::FileFlash`].
//!
//! Semihosting operations (ARM "Semihosting for AArch32 and AArch64", version 2):
//! `SYS_OPEN` (0x01), `SYS_CLOSE` (0x02), `SYS_WRITE` (0x05), `SYS_READ` (0x06), `SYS_SEEK`
//! (0x0A), `SYS_FLEN` (0x0C). QEMU performs them with the host's `open`/`lseek`/`read`/`write`
//! right away (no buffering in the guest or in QEMU), so a write that returned is in the host
//! file even if QEMU is killed the next instant: the journal survives a simulated power cut.

use cortex_m_semihosting::{nr, syscall};

use crate::sim::FileIo;

/// `SYS_OPEN` mode "r+b": read and write an existing file.
const MODE_READ_WRITE: usize = 3;
/// `SYS_OPEN` mode "w+b": create (or truncate) and read and write.
const MODE_CREATE: usize = 7;

/// Why a semihosting file operation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SemihostError {
    /// The path is too long (at most 127 bytes) or has a NUL byte.
    Path,
    /// `SYS_OPEN` failed.
    Open,
    /// `SYS_SEEK` failed.
    Seek,
    /// `SYS_READ` failed.
    Read,
    /// `SYS_WRITE` wrote fewer bytes than asked.
    Write,
    /// `SYS_FLEN` failed.
    Length,
}

/// An open host file.
#[derive(Debug)]
pub struct SemihostFile {
    handle: usize,
}

impl SemihostFile {
    /// Opens `path` (relative to QEMU's working directory) for reading and writing, creating
    /// it if it does not exist (an empty file: erased flash).
    pub fn open(path: &str) -> Result<Self, SemihostError> {
        let mut name = [0u8; 128];
        let bytes = path.as_bytes();
        if bytes.len() >= name.len() || bytes.contains(&0) {
            return Err(SemihostError::Path);
        }
        name[..bytes.len()].copy_from_slice(bytes);
        for mode in [MODE_READ_WRITE, MODE_CREATE] {
            let block = [name.as_ptr() as usize, mode, bytes.len()];
            // SAFETY: a valid SYS_OPEN parameter block: a NUL-terminated name that outlives
            // the call, a mode, and the name's length.
            let h = unsafe { syscall(nr::OPEN, &block) };
            if h != usize::MAX {
                return Ok(SemihostFile { handle: h });
            }
        }
        Err(SemihostError::Open)
    }

    /// The file's length in bytes.
    pub fn len(&mut self) -> Result<u32, SemihostError> {
        let block = [self.handle];
        // SAFETY: a valid SYS_FLEN parameter block (an open handle).
        let n = unsafe { syscall(nr::FLEN, &block) };
        if n == usize::MAX {
            return Err(SemihostError::Length);
        }
        Ok(n as u32)
    }

    /// True if the file is empty.
    pub fn is_empty(&mut self) -> Result<bool, SemihostError> {
        self.len().map(|n| n == 0)
    }

    fn seek(&mut self, offset: u32) -> Result<(), SemihostError> {
        let block = [self.handle, offset as usize];
        // SAFETY: a valid SYS_SEEK parameter block (an open handle and an absolute offset).
        let rc = unsafe { syscall(nr::SEEK, &block) };
        if rc == 0 {
            Ok(())
        } else {
            Err(SemihostError::Seek)
        }
    }

    fn write_raw(&mut self, data: &[u8]) -> Result<(), SemihostError> {
        let block = [self.handle, data.as_ptr() as usize, data.len()];
        // SAFETY: a valid SYS_WRITE parameter block; the host only reads `data.len()` bytes of
        // `data`, which outlives the call.
        let not_written = unsafe { syscall(nr::WRITE, &block) };
        if not_written == 0 {
            Ok(())
        } else {
            Err(SemihostError::Write)
        }
    }
}

impl FileIo for SemihostFile {
    type Error = SemihostError;

    fn read_at(&mut self, offset: u32, buf: &mut [u8]) -> Result<(), SemihostError> {
        let len = self.len()?;
        buf.fill(0xFF);
        if offset >= len || buf.is_empty() {
            return Ok(());
        }
        let n = buf.len().min((len - offset) as usize);
        self.seek(offset)?;
        let block = [self.handle, buf.as_mut_ptr() as usize, n];
        // SAFETY: a valid SYS_READ parameter block; the host writes at most `n <= buf.len()`
        // bytes into `buf`, which outlives the call.
        let not_read = unsafe { syscall(nr::READ, &block) };
        if not_read > n {
            return Err(SemihostError::Read);
        }
        // Bytes the host did not deliver stay 0xFF (erased), as past the end of the file.
        Ok(())
    }

    fn write_at(&mut self, offset: u32, data: &[u8]) -> Result<(), SemihostError> {
        // Writing past the end would leave a hole of zeros (programmed flash): fill it with
        // 0xFF first.
        let mut len = self.len()?;
        if offset > len {
            self.seek(len)?;
            let ones = [0xFFu8; 64];
            while len < offset {
                let k = (offset - len).min(ones.len() as u32);
                self.write_raw(&ones[..k as usize])?;
                len += k;
            }
        }
        self.seek(offset)?;
        self.write_raw(data)
    }
}

impl Drop for SemihostFile {
    fn drop(&mut self) {
        let block = [self.handle];
        // SAFETY: a valid SYS_CLOSE parameter block (an open handle, not used afterwards).
        unsafe { syscall(nr::CLOSE, &block) };
    }
}
