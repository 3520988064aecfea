//! Shared helpers of the integration tests.
