//! An open host file as the guest's WASI sees it: plain blocking calls on a
//! `std::fs::File`, each finished inside the poll that starts it.
//!
//! WASIX 0.28's own host file goes through `tokio::fs::File`, which sends
//! every read, write and seek to a blocking-pool thread and back (about
//! 35 µs per `write()` of a few bytes here, 30x a native call) and moves at
//! most 2 MiB per call. A WASI call blocks the guest anyway, and a regular
//! file never makes a caller wait for another party, so the calls are made
//! directly. `unlink` goes through the confined file system, never by host
//! path.
use std::{
    fs::{File, FileTimes},
    io::{self, Read, Seek, Write},
    path::PathBuf,
    pin::Pin,
    task::{Context, Poll},
    time::{Duration, SystemTime},
};

use tokio::io::{AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};
use wasmer_wasix::virtual_fs::{FileSystem, FsError, VirtualFile};

use crate::confined_fs::ConfinedFs;

#[derive(Debug)]
pub struct ConfinedFile {
    file: File,
    fs: ConfinedFs,
    /// The guest path (what `unlink` and `set_times` check against the
    /// preopens).
    path: PathBuf,
    /// The result of the last `start_seek`, for `poll_complete`.
    seek: Option<io::Result<u64>>,
}

impl ConfinedFile {
    pub fn new(file: File, fs: ConfinedFs, path: PathBuf) -> Self {
        Self { file, fs, path, seek: None }
    }

    fn nanos(time: io::Result<SystemTime>) -> u64 {
        time.ok().and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos() as u64)
    }
}

impl VirtualFile for ConfinedFile {
    fn last_accessed(&self) -> u64 {
        self.file.metadata().map_or(0, |m| Self::nanos(m.accessed()))
    }
    fn last_modified(&self) -> u64 {
        self.file.metadata().map_or(0, |m| Self::nanos(m.modified()))
    }
    fn created_time(&self) -> u64 {
        self.file.metadata().map_or(0, |m| Self::nanos(m.created()))
    }
    /// Times in nanoseconds since the epoch, as WASI gives them.
    fn set_times(&mut self, atime: Option<u64>, mtime: Option<u64>) -> Result<(), FsError> {
        self.fs.check_writable(&self.path)?;
        let at = |t: u64| SystemTime::UNIX_EPOCH + Duration::from_nanos(t);
        let mut times = FileTimes::new();
        if let Some(t) = atime {
            times = times.set_accessed(at(t));
        }
        if let Some(t) = mtime {
            times = times.set_modified(at(t));
        }
        self.file.set_times(times).map_err(FsError::from)
    }
    fn size(&self) -> u64 {
        self.file.metadata().map_or(0, |m| m.len())
    }
    fn set_len(&mut self, new_size: u64) -> Result<(), FsError> {
        self.file.set_len(new_size).map_err(FsError::from)
    }
    fn unlink(&mut self) -> Result<(), FsError> {
        self.fs.remove_file(&self.path)
    }
    fn is_open(&self) -> bool {
        true
    }
    fn get_special_fd(&self) -> Option<u32> {
        None
    }
    /// Bytes left before the end (what `poll_oneoff` reports for a file).
    fn poll_read_ready(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let at = self.file.stream_position();
        Poll::Ready(at.map(|at| self.size().saturating_sub(at) as usize))
    }
    fn poll_write_ready(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        Poll::Ready(Ok(8192))
    }
}

impl AsyncRead for ConfinedFile {
    fn poll_read(mut self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let n = match self.file.read(buf.initialize_unfilled()) {
            Ok(n) => n,
            Err(e) => return Poll::Ready(Err(e)),
        };
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for ConfinedFile {
    fn poll_write(mut self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Poll::Ready(self.file.write(buf))
    }
    fn poll_write_vectored(mut self: Pin<&mut Self>, _cx: &mut Context<'_>, bufs: &[io::IoSlice<'_>]) -> Poll<io::Result<usize>> {
        Poll::Ready(self.file.write_vectored(bufs))
    }
    fn is_write_vectored(&self) -> bool {
        true
    }
    /// Nothing is buffered here. WASIX calls this for `fd_sync` and for every
    /// open file at exit; as with its own host file, it does not sync to disk
    /// (the data is in the host's page cache, as after a native `write`).
    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl AsyncSeek for ConfinedFile {
    fn start_seek(mut self: Pin<&mut Self>, position: io::SeekFrom) -> io::Result<()> {
        let done = self.file.seek(position);
        self.seek = Some(done);
        Ok(())
    }
    fn poll_complete(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let done = self.seek.take().unwrap_or_else(|| self.file.stream_position());
        Poll::Ready(done)
    }
}
