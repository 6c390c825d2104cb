//! RPC metrics for every service, recorded through the `metrics` facade (the binary installs the
//! Prometheus recorder and serves `/metrics`; without a recorder every call here is a no-op):
//!
//! - `hanniball_rpc_requests_total{method, code}`: finished calls by method and gRPC code;
//! - `hanniball_rpc_duration_seconds{method}`: from the request to the end of the answer (for a
//!   stream, its whole life);
//! - `hanniball_rpc_in_flight{method}`: calls open now, so the `Watch*` methods count open streams.
//!
//! `method` is the gRPC method name (`SubmitTurn`); a path no service knows is counted once as
//! `unknown`, so hostile clients cannot grow the label set.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use tonic::codegen::http::{HeaderMap, Request, Response};
use tonic::codegen::{Bytes, Service};
use tower_layer::Layer;

/// The tower layer recording the RPC metrics.
#[derive(Clone, Copy, Debug, Default)]
pub struct MetricsLayer;

impl<S> Layer<S> for MetricsLayer {
    type Service = Metered<S>;

    fn layer(&self, inner: S) -> Metered<S> {
        Metered { inner }
    }
}

/// The service [`MetricsLayer`] makes.
#[derive(Clone, Debug)]
pub struct Metered<S> {
    inner: S,
}

/// The method name of a gRPC path (`/pkg.Service/Method` → `Method`), if it looks like one.
fn method_of(path: &str) -> Option<&str> {
    let rest = path.strip_prefix('/')?;
    let (service, method) = rest.split_once('/')?;
    let plausible = |s: &str| {
        !s.is_empty()
            && s.len() <= 64
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_')
    };
    (plausible(service) && plausible(method)).then_some(method)
}

/// The gRPC code in `headers` (trailers, or the headers of a trailers-only answer).
fn code_in(headers: &HeaderMap) -> Option<tonic::Code> {
    let value = headers.get("grpc-status")?.to_str().ok()?;
    Some(tonic::Code::from_i32(value.parse().ok()?))
}

/// Stable lower-case names of gRPC codes, as Prometheus labels.
fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code;
    match code {
        Code::Ok => "ok",
        Code::Cancelled => "cancelled",
        Code::Unknown => "unknown",
        Code::InvalidArgument => "invalid_argument",
        Code::DeadlineExceeded => "deadline_exceeded",
        Code::NotFound => "not_found",
        Code::AlreadyExists => "already_exists",
        Code::PermissionDenied => "permission_denied",
        Code::ResourceExhausted => "resource_exhausted",
        Code::FailedPrecondition => "failed_precondition",
        Code::Aborted => "aborted",
        Code::OutOfRange => "out_of_range",
        Code::Unimplemented => "unimplemented",
        Code::Internal => "internal",
        Code::Unavailable => "unavailable",
        Code::DataLoss => "data_loss",
        Code::Unauthenticated => "unauthenticated",
    }
}

/// One call being measured; records when the answer ends (or is dropped unfinished: the client
/// went away, counted as `cancelled`).
struct Call {
    method: &'static str,
    started: Instant,
    done: bool,
}

/// Method names are few and fixed: intern them so labels are `&'static str` and the hot path
/// allocates nothing after the first call of a method.
fn intern(method: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::{OnceLock, PoisonError, RwLock};
    static NAMES: OnceLock<RwLock<HashSet<&'static str>>> = OnceLock::new();
    let names = NAMES.get_or_init(RwLock::default);
    if let Some(name) = names
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(method)
    {
        return name;
    }
    let mut names = names.write().unwrap_or_else(PoisonError::into_inner);
    if let Some(name) = names.get(method) {
        return name;
    }
    if names.len() >= 256 {
        return "unknown";
    }
    let name: &'static str = Box::leak(method.to_owned().into_boxed_str());
    names.insert(name);
    name
}

impl Call {
    fn start(method: &'static str) -> Call {
        metrics::gauge!("hanniball_rpc_in_flight", "method" => method).increment(1.0);
        Call {
            method,
            started: Instant::now(),
            done: false,
        }
    }

    fn finish(&mut self, code: tonic::Code) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        let method = self.method;
        metrics::gauge!("hanniball_rpc_in_flight", "method" => method).decrement(1.0);
        metrics::counter!("hanniball_rpc_requests_total", "method" => method, "code" => code_name(code))
            .increment(1);
        metrics::histogram!("hanniball_rpc_duration_seconds", "method" => method)
            .record(self.started.elapsed().as_secs_f64());
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        self.finish(tonic::Code::Cancelled);
    }
}

impl<S, B, R> Service<Request<B>> for Metered<S>
where
    S: Service<Request<B>, Response = Response<R>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
    R: http_body::Body<Data = Bytes> + Send + 'static,
    R::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<tonic::body::Body>;
    type Error = S::Error;
    type Future =
        Pin<Box<dyn std::future::Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let path_method = method_of(request.uri().path()).map(str::to_owned);
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move {
            let started = Instant::now();
            let response = inner.call(request).await?;
            let code = code_in(response.headers());
            // A path no service serves is answered UNIMPLEMENTED at once: one label for all.
            let method = match (&path_method, code) {
                (_, Some(tonic::Code::Unimplemented)) | (None, _) => "unknown",
                (Some(method), _) => intern(method),
            };
            let mut call = Call::start(method);
            call.started = started;
            let (parts, body) = response.into_parts();
            if let Some(code) = code {
                // Trailers-only answer (an error before any message): the call is over.
                call.finish(code);
            }
            let body = tonic::body::Body::new(MeteredBody {
                inner: Box::pin(body),
                call,
            });
            Ok(Response::from_parts(parts, body))
        })
    }
}

/// An answer body that records its call when the trailers (with the gRPC code) go out.
struct MeteredBody<B> {
    inner: Pin<Box<B>>,
    call: Call,
}

impl<B: http_body::Body<Data = Bytes>> http_body::Body for MeteredBody<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, B::Error>>> {
        let polled = self.inner.as_mut().poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(code) = frame.trailers_ref().and_then(code_in) {
                    self.call.finish(code);
                }
            }
            Poll::Ready(Some(Err(_))) => self.call.finish(tonic::Code::Internal),
            Poll::Ready(None) => self.call.finish(tonic::Code::Ok),
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_names_come_from_grpc_paths_only() {
        assert_eq!(
            method_of("/hanniball.arbiter.v1.Arbiter/SubmitTurn"),
            Some("SubmitTurn")
        );
        assert_eq!(method_of("/"), None);
        assert_eq!(method_of("/x"), None);
        assert_eq!(method_of("/a/b/c"), None);
        assert_eq!(method_of("/a/b c"), None);
        assert_eq!(method_of(&format!("/a/{}", "m".repeat(65))), None);
    }
}
