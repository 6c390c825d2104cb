//! Server streams that notice a client who takes nothing.
//!
//! A stream's task puts messages in an [`Outbox`]; the response is the [`Delivery`] the server
//! takes them from. A message the server has not taken after the connection's
//! [`ConnInfo::stalled`] means the client is not reading (or never opened its flow-control
//! window): the connection is closed ([`crate::conn`]), since HTTP/2 has no way to end that
//! stream alone. Streams that may stay quiet for long send a heartbeat now and then, so that a
//! client who cannot take data is found even when nothing happens.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::CancellationToken;
use tonic::{Request, Status};

use crate::conn::ConnInfo;
use crate::limits;

/// The most messages a stream holds for its client.
const CAPACITY: usize = 64;

/// Where a stream's task puts its messages.
#[derive(Debug)]
pub struct Outbox<T> {
    tx: mpsc::Sender<Result<T, Status>>,
    /// When each message not yet taken was put in, oldest first.
    waiting: Arc<Mutex<VecDeque<Instant>>>,
    /// The connection's switch (none for a request that did not come over one).
    cut: Option<CancellationToken>,
    stalled: Duration,
}

/// The response side of an [`Outbox`].
#[derive(Debug)]
pub struct Delivery<T> {
    rx: ReceiverStream<Result<T, Status>>,
    waiting: Arc<Mutex<VecDeque<Instant>>>,
}

/// The client took nothing for the connection's stall bound; its connection is being closed.
#[derive(Debug)]
pub struct Stalled;

/// An outbox for a stream answering `request`, and the response stream.
#[must_use]
pub fn outbox<T, B>(request: &Request<B>) -> (Outbox<T>, Delivery<T>) {
    let info = request.extensions().get::<ConnInfo>();
    let (tx, rx) = mpsc::channel(CAPACITY);
    let waiting = Arc::new(Mutex::new(VecDeque::new()));
    (
        Outbox {
            tx,
            waiting: Arc::clone(&waiting),
            cut: info.map(|i| i.cut.clone()),
            stalled: info.map_or(limits::STALLED, |i| i.stalled),
        },
        Delivery {
            rx: ReceiverStream::new(rx),
            waiting,
        },
    )
}

impl<T> Outbox<T> {
    /// How often a quiet stream sends a heartbeat: a third of the stall bound, so that a client
    /// who cannot take data is found within about 1⅓ times the bound.
    #[must_use]
    pub fn heartbeat_every(&self) -> Duration {
        self.stalled / 3
    }

    /// Puts `message` in; [`Stalled`] (and the connection closed) when the client has left
    /// earlier ones untaken for the stall bound, or the client has gone.
    pub async fn send(&self, message: Result<T, Status>) -> Result<(), Stalled> {
        self.waiting().push_back(Instant::now());
        match self.tx.send_timeout(message, self.stalled).await {
            Ok(()) => Ok(()),
            Err(mpsc::error::SendTimeoutError::Timeout(_)) => {
                self.cut();
                Err(Stalled)
            }
            Err(mpsc::error::SendTimeoutError::Closed(_)) => Err(Stalled),
        }
    }

    /// Resolves when the oldest message not yet taken has waited the stall bound; the caller
    /// then ends the stream with [`Outbox::cut`]. Never resolves while the client keeps up.
    pub async fn stalled(&self) {
        loop {
            let oldest = self.waiting().front().copied();
            match oldest {
                Some(at) if at.elapsed() >= self.stalled => return,
                Some(at) => tokio::time::sleep_until(at + self.stalled).await,
                None => tokio::time::sleep(self.stalled).await,
            }
        }
    }

    /// Resolves when the client has gone (the response was dropped).
    pub async fn closed(&self) {
        self.tx.closed().await;
    }

    /// Closes the connection the stream runs on: its client takes nothing.
    pub fn cut(&self) {
        tracing::info!(
            stalled_s = self.stalled.as_secs_f64(),
            "a stream's client took nothing for the stall bound: its connection is closed"
        );
        if let Some(cut) = &self.cut {
            cut.cancel();
        }
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, VecDeque<Instant>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T> Stream for Delivery<T> {
    type Item = Result<T, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let next = Pin::new(&mut self.rx).poll_next(cx);
        if let Poll::Ready(Some(_)) = &next {
            self.waiting
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop_front();
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_stream::StreamExt;

    fn request(stalled: Duration) -> (Request<()>, CancellationToken) {
        let cut = CancellationToken::new();
        let mut request = Request::new(());
        request.extensions_mut().insert(ConnInfo {
            tcp: tonic::transport::server::TcpConnectInfo {
                local_addr: None,
                remote_addr: None,
            },
            cut: cut.clone(),
            stalled,
        });
        (request, cut)
    }

    #[tokio::test]
    async fn a_message_left_untaken_for_the_bound_cuts_the_connection() {
        let bound = Duration::from_millis(300);
        let (request, cut) = request(bound);
        let (outbox, mut delivery) = outbox::<u32, _>(&request);
        assert_eq!(outbox.heartbeat_every(), Duration::from_millis(100));
        outbox.send(Ok(1)).await.expect("room");
        // Taken at once: nothing waits, so nothing is stalled however long it stays quiet.
        assert_eq!(delivery.next().await.map(Result::ok), Some(Some(1)));
        let quiet = tokio::time::timeout(bound * 3, outbox.stalled()).await;
        assert!(quiet.is_err(), "a client that keeps up is never stalled");
        outbox.send(Ok(2)).await.expect("room");
        let before = Instant::now();
        outbox.stalled().await;
        assert!(before.elapsed() >= bound);
        assert!(!cut.is_cancelled());
        outbox.cut();
        assert!(cut.is_cancelled());
    }

    #[tokio::test]
    async fn a_full_outbox_waits_the_bound_then_cuts() {
        let (request, cut) = request(Duration::from_millis(200));
        let (outbox, _delivery) = outbox::<usize, _>(&request);
        for i in 0..CAPACITY {
            outbox.send(Ok(i)).await.expect("room");
        }
        assert!(outbox.send(Ok(CAPACITY)).await.is_err());
        assert!(cut.is_cancelled(), "the connection is closed");
    }

    #[tokio::test]
    async fn a_gone_client_is_not_a_cut() {
        let (request, cut) = request(Duration::from_secs(5));
        let (outbox, delivery) = outbox::<u32, _>(&request);
        drop(delivery);
        outbox.closed().await;
        assert!(outbox.send(Ok(1)).await.is_err());
        assert!(!cut.is_cancelled());
    }
}
