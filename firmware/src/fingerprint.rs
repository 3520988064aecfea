//! FNV-1a over 32-bit words: the hash the decision fingerprints of the paper scenarios
//! (`pandora`, `feedback`, `causal`) fold every decision's bits into, on the device and on the
//! desktop alike.

/// FNV-1a's offset basis, the hash of no decision.
pub const FNV_START: u32 = 0x811c_9dc5;

/// Folds `bits` (little-endian bytes) into an FNV-1a hash.
pub fn fnv(mut hash: u32, bits: u32) -> u32 {
    for byte in bits.to_le_bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}
