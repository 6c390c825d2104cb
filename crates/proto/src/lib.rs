//! The wire: tonic/prost code generated from `proto/`, and the encoded descriptor set that gRPC
//! server reflection serves.
//!
//! What this crate does NOT do: no service logic, no database, no rules. Conversions between these
//! messages and domain types live in the service crates' `convert` modules, one file each.

#![allow(clippy::all, clippy::pedantic, missing_docs, unreachable_pub)]

/// `hanniball.accounts.v1`: players and tokens.
pub mod accounts {
    pub mod v1 {
        tonic::include_proto!("hanniball.accounts.v1");
    }
}

/// `hanniball.arbiter.v1`: games, turns, clocks, streams.
pub mod arbiter {
    pub mod v1 {
        tonic::include_proto!("hanniball.arbiter.v1");
    }
}

/// `hanniball.rating.v1`: ratings, leaderboards, history.
pub mod rating {
    pub mod v1 {
        tonic::include_proto!("hanniball.rating.v1");
    }
}

/// `hanniball.scheduler.v1`: tournaments and the matchmaking queue.
pub mod scheduler {
    pub mod v1 {
        tonic::include_proto!("hanniball.scheduler.v1");
    }
}

/// The encoded `FileDescriptorSet` of every service, for gRPC server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/descriptor.bin"));
