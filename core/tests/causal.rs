//! Paper 004 tests.
