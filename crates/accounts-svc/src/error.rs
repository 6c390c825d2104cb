//! Accounts' errors: the workspace's one error type (`svc-kit::failure`).

pub use hanniball_svc_kit::{ServiceError, ServiceResult};
