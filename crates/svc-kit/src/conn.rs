//! The connections a server accepts, each with a switch that closes it.
//!
//! HTTP/2 cannot end one stream whose client never takes its data: the server holds the
//! message until the client opens its flow-control window, and polls nothing else of that
//! stream meanwhile. So a server stream that finds its client stalled ([`crate::stream`]) closes
//! the whole connection: [`ConnInfo::cut`] makes its next read and write fail, and the
//! connection, with every stream on it, ends.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};
use tonic::transport::server::{Connected, TcpConnectInfo};

/// What a request knows of its connection (in its extensions): the peer's address, the switch
/// that closes the connection, and how long a stream may leave a message untaken.
#[derive(Clone, Debug)]
pub struct ConnInfo {
    /// The TCP peer and local addresses.
    pub tcp: TcpConnectInfo,
    /// Closes the connection (every stream on it) when cancelled.
    pub cut: CancellationToken,
    /// How long a stream's message may wait for its client before the connection is closed.
    pub stalled: Duration,
}

/// A connection the server accepted.
pub struct Conn {
    io: Io,
    info: ConnInfo,
    /// Resolves when `info.cut` is cancelled; polled by every read, so a cut wakes the
    /// connection's task even while it waits for the peer.
    cut: Pin<Box<WaitForCancellationFutureOwned>>,
}

enum Io {
    /// Plain HTTP/2: the plain-text port, or the loopback listener of services in one process.
    Plain(TcpStream),
    /// HTTP/2 over TLS.
    Tls(Box<tokio_rustls::server::TlsStream<TcpStream>>),
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn")
            .field("tls", &matches!(self.io, Io::Tls(_)))
            .field("peer", &self.info.tcp.remote_addr())
            .finish_non_exhaustive()
    }
}

impl Conn {
    /// A plain connection whose streams may leave a message untaken for `stalled`.
    pub(crate) fn plain(stream: TcpStream, stalled: Duration) -> Conn {
        let tcp = stream.connect_info();
        Conn::new(Io::Plain(stream), tcp, stalled)
    }

    /// A TLS connection, as [`Conn::plain`].
    pub(crate) fn tls(
        stream: tokio_rustls::server::TlsStream<TcpStream>,
        stalled: Duration,
    ) -> Conn {
        let tcp = stream.get_ref().0.connect_info();
        Conn::new(Io::Tls(Box::new(stream)), tcp, stalled)
    }

    fn new(io: Io, tcp: TcpConnectInfo, stalled: Duration) -> Conn {
        let cut = CancellationToken::new();
        Conn {
            io,
            cut: Box::pin(cut.clone().cancelled_owned()),
            info: ConnInfo { tcp, cut, stalled },
        }
    }

    fn cut_error() -> std::io::Error {
        std::io::Error::new(
            std::io::ErrorKind::ConnectionAborted,
            "closed by the server: a stream's client took nothing for too long",
        )
    }

    fn is_cut(&self) -> bool {
        self.info.cut.is_cancelled()
    }
}

impl Connected for Conn {
    type ConnectInfo = ConnInfo;

    fn connect_info(&self) -> ConnInfo {
        self.info.clone()
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        if this.cut.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(Conn::cut_error()));
        }
        match &mut this.io {
            Io::Plain(stream) => Pin::new(stream).poll_read(cx, buf),
            Io::Tls(stream) => Pin::new(stream.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        if this.is_cut() {
            return Poll::Ready(Err(Conn::cut_error()));
        }
        match &mut this.io {
            Io::Plain(stream) => Pin::new(stream).poll_write(cx, buf),
            Io::Tls(stream) => Pin::new(stream.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        if this.is_cut() {
            return Poll::Ready(Err(Conn::cut_error()));
        }
        match &mut this.io {
            Io::Plain(stream) => Pin::new(stream).poll_write_vectored(cx, bufs),
            Io::Tls(stream) => Pin::new(stream.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match &self.io {
            Io::Plain(stream) => stream.is_write_vectored(),
            Io::Tls(stream) => stream.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Plain(stream) => Pin::new(stream).poll_flush(cx),
            Io::Tls(stream) => Pin::new(stream.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Plain(stream) => Pin::new(stream).poll_shutdown(cx),
            Io::Tls(stream) => Pin::new(stream.as_mut()).poll_shutdown(cx),
        }
    }
}
