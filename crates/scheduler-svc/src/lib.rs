//! The scheduler service.
