//! The scheduler's errors: the workspace's one error type (`svc-kit::failure`), so every service
//! answers the same fault with the same code and words.

pub use hanniball_svc_kit::{ServiceError, ServiceResult};
