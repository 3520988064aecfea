//! The controller's journal: the core's append-only record log
//! ([`costbo_core::journal`]) in a region of NOR flash, shaped for this experiment.

use costbo_core::journal::{Journal, JournalError};
use embedded_storage::nor_flash::NorFlash;

use crate::experiment::{CONFIG_ID, D};

/// Memo scalars per record: 0, since every rule a configuration file can choose (ETC-Ada,
/// ETC-N) rebuilds its state from the observations alone.
pub const MEMO_LEN: usize = 0;

/// What [`open`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opened {
    /// An existing journal of this experiment was opened.
    Existing,
    /// The region held no journal (blank or torn format) and was formatted.
    Formatted,
    /// The region held another experiment's journal and `reformat` asked to erase it.
    Reformatted,
}

/// Opens the journal of this experiment (shape `D` variables, [`MEMO_LEN`], tagged with
/// [`CONFIG_ID`]) in `[start, end)` of `flash`. A blank region is formatted. A journal of
/// another configuration is refused with [`JournalError::Foreign`] unless `reformat` is set,
/// in which case it is erased. On error the flash is handed back.
pub fn open<F: NorFlash>(
    mut flash: F,
    start: u32,
    end: u32,
    reformat: bool,
) -> Result<(Journal<F>, Opened), (F, JournalError)> {
    let how = match Journal::open(flash, start, end, D, MEMO_LEN, CONFIG_ID) {
        Ok(j) => return Ok((j, Opened::Existing)),
        Err((f, JournalError::NotFormatted)) => {
            flash = f;
            Opened::Formatted
        }
        Err((f, JournalError::Foreign)) if reformat => {
            flash = f;
            Opened::Reformatted
        }
        Err(e) => return Err(e),
    };
    if let Err(e) = Journal::format(&mut flash, start, end, D, MEMO_LEN, CONFIG_ID) {
        return Err((flash, e));
    }
    Journal::open(flash, start, end, D, MEMO_LEN, CONFIG_ID).map(|j| (j, how))
}
