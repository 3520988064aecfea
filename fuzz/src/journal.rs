//! Journal images: a journal written through the real code, then damaged.

use costbo_core::journal::{Journal, JournalError, Record, MAX_MEMO, MAX_VARS};
use embedded_storage::nor_flash::{
    ErrorType, NorFlash, NorFlashError, NorFlashErrorKind, ReadNorFlash,
};

use crate::bytes::{same_bits, Bytes};

const SIZE: usize = 2048;
const SECTOR: usize = 256;
const TAG: u32 = 0x5EED_F00D;

/// NOR flash in memory: 4-byte writes onto erased words only, byte reads, 256-byte sectors.
#[derive(Clone)]
struct MemFlash(Vec<u8>);

#[derive(Debug, Clone, Copy)]
struct FlashError(NorFlashErrorKind);

impl NorFlashError for FlashError {
    fn kind(&self) -> NorFlashErrorKind {
        self.0
    }
}

impl ErrorType for MemFlash {
    type Error = FlashError;
}

impl ReadNorFlash for MemFlash {
    const READ_SIZE: usize = 1;

    fn read(&mut self, offset: u32, bytes: &mut [u8]) -> Result<(), FlashError> {
        let o = offset as usize;
        let src = self
            .0
            .get(o..o + bytes.len())
            .ok_or(FlashError(NorFlashErrorKind::OutOfBounds))?;
        bytes.copy_from_slice(src);
        Ok(())
    }

    fn capacity(&self) -> usize {
        self.0.len()
    }
}

impl NorFlash for MemFlash {
    const WRITE_SIZE: usize = 4;
    const ERASE_SIZE: usize = SECTOR;

    fn erase(&mut self, from: u32, to: u32) -> Result<(), FlashError> {
        let (f, t) = (from as usize, to as usize);
        if !f.is_multiple_of(SECTOR) || !t.is_multiple_of(SECTOR) || f > t {
            return Err(FlashError(NorFlashErrorKind::NotAligned));
        }
        self.0
            .get_mut(f..t)
            .ok_or(FlashError(NorFlashErrorKind::OutOfBounds))?
            .fill(0xFF);
        Ok(())
    }

    fn write(&mut self, offset: u32, bytes: &[u8]) -> Result<(), FlashError> {
        let o = offset as usize;
        if !o.is_multiple_of(4) || !bytes.len().is_multiple_of(4) {
            return Err(FlashError(NorFlashErrorKind::NotAligned));
        }
        let cells = self
            .0
            .get_mut(o..o + bytes.len())
            .ok_or(FlashError(NorFlashErrorKind::OutOfBounds))?;
        // The journal promises to write only erased cells.
        assert!(
            cells.iter().all(|c| *c == 0xFF),
            "write onto programmed cells at {o}"
        );
        cells.copy_from_slice(bytes);
        Ok(())
    }
}

fn same(a: &Record, b: &Record) -> bool {
    a.set == b.set
        && a.y.to_bits() == b.y.to_bits()
        && a.cost.to_bits() == b.cost.to_bits()
        && same_bits(a.x(), b.x())
        && same_bits(a.memo(), b.memo())
}

/// Reads every record; `Err` when the iterator reports one.
fn read_all(j: &mut Journal<MemFlash>) -> Result<Vec<Record>, JournalError> {
    j.records().collect()
}

/// Writes a journal (shape and records from the bytes), damages the image (cleared bits as a
/// half-programmed cell leaves, flipped bytes, a torn tail erased back to `0xFF`), and opens
/// it again. Open and read must end in a typed error or give a prefix of the records written
/// (in order, bit for bit, with their sequence numbers); an append after recovery must keep
/// that prefix and add itself, also across another reopen.
pub fn journal_image(data: &[u8]) {
    let mut bytes = Bytes::new(data);
    let dims = 1 + usize::from(bytes.u8()) % MAX_VARS;
    let memo_len = usize::from(bytes.u8()) % (MAX_MEMO + 1);
    let appends = usize::from(bytes.u8() % 24);
    let mut flash = MemFlash(vec![0xFF; SIZE]);
    Journal::format(&mut flash, 0, SIZE as u32, dims, memo_len, TAG)
        .expect("a blank aligned region formats");
    let mut j = match Journal::open(flash, 0, SIZE as u32, dims, memo_len, TAG) {
        Ok(j) => j,
        Err((_, e)) => panic!("a fresh journal does not open: {e:?}"),
    };
    let mut written = Vec::new();
    for _ in 0..appends {
        let record = next_record(&mut bytes, dims, memo_len);
        match j.append(&record) {
            Ok(seq) => {
                assert_eq!(seq as usize, written.len());
                written.push(record);
            }
            Err(JournalError::Full) => break,
            Err(e) => panic!("append on a healthy flash failed: {e:?}"),
        }
    }
    let mut image = j.release();
    // Damage: up to 8 operations from the bytes.
    for _ in 0..bytes.u8() % 9 {
        let kind = bytes.u8() % 3;
        let at = usize::from(bytes.u16()) % SIZE;
        let v = bytes.u8();
        match kind {
            0 => image.0[at] &= v,
            1 => image.0[at] ^= v | 1,
            _ => image.0[at..].fill(0xFF),
        }
    }
    let mut j = match Journal::open(image, 0, SIZE as u32, dims, memo_len, TAG) {
        Ok(j) => j,
        Err(_) => return, // a typed refusal (header gone, foreign, corrupt sequence)
    };
    let Ok(kept) = read_all(&mut j) else {
        return;
    };
    check_prefix(&kept, &written);
    let extra = next_record(&mut bytes, dims, memo_len);
    match j.append(&extra) {
        Ok(_) => {}
        Err(JournalError::Full) | Err(JournalError::Flash(_)) => return,
        Err(e) => panic!("append after recovery failed: {e:?}"),
    }
    let image = j.release();
    let mut j = match Journal::open(image, 0, SIZE as u32, dims, memo_len, TAG) {
        Ok(j) => j,
        Err((_, e)) => panic!("a recovered journal does not reopen after an append: {e:?}"),
    };
    let again = read_all(&mut j).expect("a reopened journal reads");
    assert_eq!(again.len(), kept.len() + 1, "the append is not read back");
    check_prefix(&again[..kept.len()], &written);
    assert!(same(&again[kept.len()], &extra));
}

fn check_prefix(kept: &[Record], written: &[Record]) {
    assert!(
        kept.len() <= written.len(),
        "{} records read, {} written",
        kept.len(),
        written.len()
    );
    for (i, (k, w)) in kept.iter().zip(written).enumerate() {
        assert_eq!(k.seq as usize, i);
        assert!(same(k, w), "record {i} differs from the one written");
    }
}

fn next_record(bytes: &mut Bytes, dims: usize, memo_len: usize) -> Record {
    let set = bytes.u8();
    let x: Vec<f32> = (0..dims).map(|_| bytes.f32()).collect();
    let memo: Vec<f32> = (0..memo_len).map(|_| bytes.f32()).collect();
    let (y, cost) = (bytes.f32(), bytes.f32());
    Record::new(set, &x, y, cost, &memo).expect("the shape fits a record")
}
