//! The client side: a bearer-token interceptor and a lazily connecting channel.

use tonic::metadata::MetadataValue;
use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Status};

/// Adds `authorization: Bearer <token>` to every call (nothing when there is no token).
#[derive(Clone, Debug, Default)]
pub struct Bearer(Option<String>);

impl Bearer {
    /// An interceptor sending `token`.
    #[must_use]
    pub fn new(token: &str) -> Bearer {
        Bearer(Some(token.to_owned()))
    }

    /// An interceptor sending no token.
    #[must_use]
    pub fn none() -> Bearer {
        Bearer(None)
    }
}

impl tonic::service::Interceptor for Bearer {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        if let Some(token) = &self.0 {
            let value: MetadataValue<_> = format!("Bearer {token}")
                .parse()
                .map_err(|_| Status::invalid_argument("the token is not ASCII"))?;
            request.metadata_mut().insert("authorization", value);
        }
        Ok(request)
    }
}

/// A channel to `url` that connects on first use and reconnects after a failure, so a service
/// can start before the one it calls.
pub fn connect(url: &str) -> Result<Channel, tonic::transport::Error> {
    Ok(Endpoint::from_shared(url.to_owned())?
        .connect_timeout(std::time::Duration::from_secs(5))
        .tcp_nodelay(true)
        .connect_lazy())
}
