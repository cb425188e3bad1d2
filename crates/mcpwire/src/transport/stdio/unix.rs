//! stdio on Unix: when stdin and stdout are pipes or sockets (how an MCP client spawns a
//! server), they are read and written through the runtime's event loop on duplicates of
//! fds 0 and 1 set non-blocking: no thread hand-off per message. tokio's own
//! `Stdin`/`Stdout` run every read and write on the blocking thread pool, a thread wake-up
//! or two per request. A terminal or a regular file cannot be watched by epoll, so those
//! (and a stdout that shares its file with stderr, which `O_NONBLOCK` would make
//! non-blocking too) keep tokio's `Stdin`/`Stdout`.
//!
//! `O_NONBLOCK` belongs to the open file, not to the descriptor: once stdio is served
//! this way, anything else in the process that writes to fd 1 (`println!`) or reads
//! fd 0 may see `WouldBlock`. Nothing else may use stdout in a stdio server anyway.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf, Stdin, Stdout};
use tokio::net::unix::pipe;
use tokio::net::UnixStream;

/// This process's stdin: non-blocking on a pipe or a socket, tokio's `Stdin` otherwise.
#[derive(Debug)]
pub(super) enum Input {
    /// A pipe or FIFO, read through the event loop.
    Pipe(pipe::Receiver),
    /// A stream socket (libuv-based clients such as Node spawn servers on socket pairs).
    Socket(UnixStream),
    /// tokio's `Stdin` (terminals, regular files, anything epoll cannot watch).
    Blocking(Stdin),
}

/// This process's stdout: non-blocking on a pipe or a socket, tokio's `Stdout` otherwise.
#[derive(Debug)]
pub(super) enum Output {
    /// A pipe or FIFO, written through the event loop.
    Pipe(pipe::Sender),
    /// A stream socket.
    Socket(UnixStream),
    /// tokio's `Stdout`.
    Blocking(Stdout),
}

/// What kind of file a standard stream is, as far as the event loop is concerned.
enum Kind {
    Pipe,
    Socket,
    Other,
}

/// The kind of `fd`, and its (device, inode) to compare with stderr's.
fn inspect(fd: BorrowedFd<'_>) -> io::Result<(Kind, (u64, u64), OwnedFd)> {
    let owned = fd.try_clone_to_owned()?;
    let file = std::fs::File::from(owned);
    let meta = file.metadata()?;
    let kind = match meta.file_type() {
        t if t.is_fifo() => Kind::Pipe,
        t if t.is_socket() => Kind::Socket,
        _ => Kind::Other,
    };
    Ok((kind, (meta.dev(), meta.ino()), file.into()))
}

/// Whether `id` is the file stderr writes to: making it non-blocking would make stderr
/// non-blocking too (`2>&1`), and a log line could then fail with `WouldBlock`.
fn shared_with_stderr(id: (u64, u64)) -> bool {
    match std::io::stderr().as_fd().try_clone_to_owned().map(std::fs::File::from) {
        Ok(file) => file.metadata().map(|m| (m.dev(), m.ino()) == id).unwrap_or(true),
        Err(_) => false,
    }
}

/// A non-blocking duplicate of a standard stream, when it is a pipe or a socket that
/// stderr does not share; `None` means "use tokio's blocking-pool stream".
fn duplicate(fd: BorrowedFd<'_>) -> Option<(Kind, OwnedFd)> {
    match inspect(fd) {
        Ok((Kind::Other, _, _)) => None,
        Ok((_, id, _)) if shared_with_stderr(id) => None,
        Ok((kind, _, owned)) => Some((kind, owned)),
        Err(e) => {
            tracing::debug!("stdio: cannot inspect a standard stream ({e}); using the blocking pool");
            None
        }
    }
}

/// A tokio `UnixStream` on a duplicated socket fd, set non-blocking.
fn socket(owned: OwnedFd) -> io::Result<UnixStream> {
    let std_stream = std::os::unix::net::UnixStream::from(owned);
    std_stream.set_nonblocking(true)?;
    UnixStream::from_std(std_stream)
}

/// Opens a standard stream the cheapest way its kind allows: `pipe` or `socket` on a
/// non-blocking duplicate, `blocking` (tokio's own stream) otherwise or on any failure.
fn open_stream<T>(
    fd: BorrowedFd<'_>,
    name: &str,
    pipe: impl FnOnce(OwnedFd) -> io::Result<T>,
    socket: impl FnOnce(UnixStream) -> T,
    blocking: impl Fn() -> T,
) -> T {
    let opened = match duplicate(fd) {
        Some((Kind::Pipe, fd)) => pipe(fd),
        Some((_, fd)) => self::socket(fd).map(socket),
        None => return blocking(),
    };
    opened.unwrap_or_else(|e| {
        tracing::debug!("stdio: {name} stays on the blocking pool: {e}");
        blocking()
    })
}

/// Opens this process's stdin the cheapest way its kind allows.
pub(super) fn open_input() -> Input {
    let stdin = std::io::stdin();
    open_stream(
        stdin.as_fd(),
        "stdin",
        |fd| pipe::Receiver::from_owned_fd(fd).map(Input::Pipe),
        Input::Socket,
        || Input::Blocking(tokio::io::stdin()),
    )
}

/// Opens this process's stdout the cheapest way its kind allows.
pub(super) fn open_output() -> Output {
    let stdout = std::io::stdout();
    open_stream(
        stdout.as_fd(),
        "stdout",
        |fd| pipe::Sender::from_owned_fd(fd).map(Output::Pipe),
        Output::Socket,
        || Output::Blocking(tokio::io::stdout()),
    )
}

impl AsyncRead for Input {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Input::Pipe(r) => Pin::new(r).poll_read(cx, buf),
            Input::Socket(s) => Pin::new(s).poll_read(cx, buf),
            Input::Blocking(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Output {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Output::Pipe(w) => Pin::new(w).poll_write(cx, buf),
            Output::Socket(s) => Pin::new(s).poll_write(cx, buf),
            Output::Blocking(s) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Output::Pipe(w) => Pin::new(w).poll_write_vectored(cx, bufs),
            Output::Socket(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Output::Blocking(s) => Pin::new(s).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Output::Pipe(w) => w.is_write_vectored(),
            Output::Socket(s) => s.is_write_vectored(),
            Output::Blocking(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Output::Pipe(w) => Pin::new(w).poll_flush(cx),
            Output::Socket(s) => Pin::new(s).poll_flush(cx),
            Output::Blocking(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            // Shutting a socket's write side down would end the stream for a client
            // that shares it with stdin; the fd closes on drop and fd 1 at exit.
            Output::Pipe(_) | Output::Socket(_) => Poll::Ready(Ok(())),
            Output::Blocking(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_pipe_and_a_socket_and_a_file_are_told_apart() {
        let mut child =
            std::process::Command::new("true").stdout(std::process::Stdio::piped()).spawn().unwrap();
        let out = child.stdout.take().unwrap();
        assert!(matches!(inspect(out.as_fd()).unwrap().0, Kind::Pipe));
        child.wait().unwrap();
        let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
        assert!(matches!(inspect(a.as_fd()).unwrap().0, Kind::Socket));
        let file = std::fs::File::open("/dev/null").unwrap();
        assert!(matches!(inspect(file.as_fd()).unwrap().0, Kind::Other));
    }
}
