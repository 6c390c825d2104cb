//! Shared helpers for the end-to-end tests (filled in with the services).
