//! Compiles `proto/**/*.proto` with protox (pure Rust: nobody needs `protoc`), generates tonic
//! clients and servers, and keeps the encoded descriptor set for gRPC server reflection.

use std::path::PathBuf;

use prost::Message;

const PROTOS: &[&str] = &[
    "hanniball/accounts/v1/accounts.proto",
    "hanniball/arbiter/v1/arbiter.proto",
    "hanniball/rating/v1/rating.proto",
    "hanniball/scheduler/v1/scheduler.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?).join("../../proto");
    for proto in PROTOS {
        println!("cargo:rerun-if-changed={}", root.join(proto).display());
    }
    let descriptors = protox::compile(PROTOS, [&root])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("descriptor.bin"), descriptors.encode_to_vec())?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(descriptors)?;
    Ok(())
}
