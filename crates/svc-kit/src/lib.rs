//! What every HanniBall gRPC service shares: bearer-token authentication against Accounts (the
//! [`Directory`] of players and tokens), the server scaffold (one port for any set of services, with gRPC health,
//! reflection and a request id on every log line), and the bearer interceptor for clients (the
//! services call each other over gRPC, as any bot does).
//!
//! What this crate does NOT do: no service logic, no SQL (tokens and players are Accounts'),
//! no process set-up.

pub mod auth;
pub mod clock;
pub mod conn;
pub mod directory;
pub mod edge;
pub mod failure;
pub mod limits;
pub mod metrics;
pub mod results;
pub mod server;
pub mod stream;
pub mod tls;

pub use auth::{AdminToken, Auth, AuthError, Caller, Grant, Scope, Scopes};
pub use clock::{Clock, ManualClock};
pub use directory::{Directory, Lookup, Player, Token, TokenEvent};
pub use edge::{EdgeLayer, EdgeLimits};
pub use failure::{ServiceError, ServiceResult, internal_status, store_status};
/// The client half lives in its own crate (clients link no server); re-exported for the services.
pub use hanniball_client::{
    self as client, Bearer, ClientTls, ConnectError, connect, connect_with, endpoint, pause,
};
pub use metrics::MetricsLayer;
pub use results::{ArbiterAsAdmin, Results, follow_results};
pub use server::{Listeners, MAX_REQUEST_BYTES, Served, serve, serve_alone, serve_on, serve_with};
pub use tls::{ServerTls, TlsError, TlsFiles};
