//! Text files read with a size bound, so that a path to an endless or enormous stream
//! (`/dev/zero`, `/dev/urandom`, a multi-gigabyte file given by mistake) ends in a one-line
//! error instead of the process growing until the system kills it.

use std::io::{self, Read};
use std::path::Path;

/// The largest CSV file read (256 MiB: about five million rows of three numbers).
pub const CSV_LIMIT: u64 = 256 << 20;

/// The largest settings file (TOML: grids, graphs, arm tables) read, 16 MiB.
pub const SETTINGS_LIMIT: u64 = 16 << 20;

/// The text of the file at `path`, if it is UTF-8 and at most `limit` bytes long. At most
/// `limit + 1` bytes are read whatever the file is; the errors are [`io::ErrorKind::InvalidData`]
/// with a message saying which bound was passed.
pub fn read(path: &Path, limit: u64) -> io::Result<String> {
    let file = std::fs::File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is a directory",
        ));
    }
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("longer than {} MiB, the most read", limit >> 20),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not UTF-8 text (byte {at} is not part of a UTF-8 character)"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_stream_ends_at_the_bound() {
        let e = read(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(e.to_string(), "longer than 1 MiB, the most read");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_located() {
        let path = std::env::temp_dir().join(format!("costbo-text-file-{}", std::process::id()));
        std::fs::write(&path, b"ab\xffcd").unwrap();
        let e = read(&path, 100).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert!(e.to_string().contains("byte 2"), "{e}");
        assert!(read(Path::new("/"), 100)
            .unwrap_err()
            .to_string()
            .contains("directory"));
    }
}
