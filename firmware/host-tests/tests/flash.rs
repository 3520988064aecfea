//! The file-backed NOR flash of the QEMU board: NOR semantics, persistence across a
//! "reboot", and the firmware's journal on it.

use costbo_core::journal::{JournalError, Record};
use costbo_firmware::journal::{open, Opened};
use costbo_firmware::sim::{FileFlash, FileFlashError};
use costbo_firmware_host_tests::RamFile;
use embedded_storage::nor_flash::{NorFlash, ReadNorFlash};

type Flash = FileFlash<RamFile, 16384, 4096>;

#[test]
fn nor_semantics_erase_to_ones_and_writes_only_clear_bits() {
    let file = RamFile::default();
    let mut f = Flash::new(file.clone());
    let mut b = [0u8; 8];
    f.read(0, &mut b).unwrap();
    assert_eq!(b, [0xFF; 8], "a blank file reads erased");
    f.write(0, &[0xF0, 0x0F, 0xAA, 0x55]).unwrap();
    f.write(0, &[0x3C, 0xFF, 0xFF, 0x00]).unwrap();
    f.read(0, &mut b[..4]).unwrap();
    assert_eq!(&b[..4], &[0x30, 0x0F, 0xAA, 0x00]);
    f.erase(0, 4096).unwrap();
    f.read(0, &mut b[..4]).unwrap();
    assert_eq!(&b[..4], &[0xFF; 4]);
    assert_eq!(f.write(2, &[0; 4]), Err(FileFlashError::Alignment));
    assert_eq!(f.write(0, &[0; 3]), Err(FileFlashError::Alignment));
    assert_eq!(f.erase(0, 100), Err(FileFlashError::Alignment));
    assert_eq!(f.write(16384, &[0; 4]), Err(FileFlashError::Range));
    assert_eq!(f.read(16380, &mut [0; 8]), Err(FileFlashError::Range));
    assert_eq!(f.capacity(), 16384);
}

#[test]
fn what_was_written_survives_a_reboot() {
    let file = RamFile::default();
    let mut f = Flash::new(file.clone());
    f.write(4096, &[1, 2, 3, 4]).unwrap();
    drop(f);
    let mut g = Flash::new(file);
    let mut b = [0u8; 4];
    g.read(4096, &mut b).unwrap();
    assert_eq!(b, [1, 2, 3, 4]);
}

#[test]
fn the_journal_is_formatted_once_and_keeps_its_records() {
    let file = RamFile::default();
    let (mut j, how) = open(Flash::new(file.clone()), 0, 16384, false).unwrap();
    assert_eq!(how, Opened::Formatted);
    let r = Record::new(2, &[1.0, 2.0, 3.0, 4.0, 5.0], 0.5, 0.1, &[]).unwrap();
    j.append(&r).unwrap();
    j.append(&r).unwrap();
    drop(j);
    let (mut j, how) = open(Flash::new(file.clone()), 0, 16384, false).unwrap();
    assert_eq!(how, Opened::Existing);
    assert_eq!(j.len(), 2);
    let back: Vec<Record> = j.records().map(Result::unwrap).collect();
    assert_eq!(back[1].x(), &[1.0, 2.0, 3.0, 4.0, 5.0]);
    assert_eq!(back[1].seq, 1);
}

#[test]
fn another_configurations_journal_is_refused_unless_reformatting() {
    let file = RamFile::default();
    {
        let mut f = Flash::new(file.clone());
        costbo_core::journal::Journal::format(&mut f, 0, 16384, 5, 0, 0xDEAD_BEEF).unwrap();
    }
    match open(Flash::new(file.clone()), 0, 16384, false) {
        Err((_, e)) => assert_eq!(e, JournalError::Foreign),
        Ok(_) => panic!("opened another configuration's journal"),
    }
    let (j, how) = open(Flash::new(file), 0, 16384, true).unwrap();
    assert_eq!((how, j.len()), (Opened::Reformatted, 0));
}
