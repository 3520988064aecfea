//! Reading structured choices from fuzz bytes: once the bytes run out every read answers
//! zero, so any input is a complete (if short) scenario.

/// A cursor over the fuzz input.
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    /// A cursor at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data }
    }

    /// True when every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Number of bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.data.len()
    }

    /// The next byte (0 past the end).
    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }

    /// The next little-endian `u16`.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    /// The next little-endian `u32`.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// The next `f32` by its bits (NaN, infinities and subnormals included).
    pub fn f32(&mut self) -> f32 {
        f32::from_bits(self.u32())
    }

    /// Up to `n` of the next bytes (fewer at the end).
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let (head, rest) = self.data.split_at(n.min(self.data.len()));
        self.data = rest;
        head
    }

    /// Everything not yet read.
    pub fn rest(&mut self) -> &'a [u8] {
        self.take(self.data.len())
    }
}

/// Bit-for-bit equality of `f32` slices (NaN equals itself).
pub fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}
