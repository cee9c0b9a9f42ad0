//! The guest's file system: a virtual root that holds only the preopened
//! directories, each reached through a directory handle opened once at
//! start-up. Every host access resolves beneath that handle with cap-std
//! (openat2 `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS` on Linux, a checked
//! walk elsewhere), so `..`, absolute symlinks, links that climb out and
//! `/proc` magic links fail instead of reaching the host, and no host path is
//! ever opened by name.
//!
//! WASIX 0.28 keeps its own inode tree and hands its backing file system
//! paths built from each preopen's registered path. Preopens are registered
//! here under synthetic paths (`/preopen-N`), so any path that is not below
//! one (e.g. a file created at the guest's root, which WASIX passes as a bare
//! name) has no host meaning and is refused.
//!
//! Symlinks found on the host are followed here, beneath the preopen, and
//! reported as what they point to: WASIX's own handling of host symlinks
//! deadlocks on a relative link directly inside a preopen (it locks the
//! preopen's inode again while holding it) and resolves targets without
//! confinement. A link whose target is outside the preopen or missing looks
//! like a missing file.
use std::{
    ffi::OsString,
    io,
    path::{Component, Path, PathBuf},
    pin::Pin,
    sync::Arc,
};

use cap_std::fs::{Dir, FileTypeExt, OpenOptions as HostOpenOptions};

use crate::confined_file::ConfinedFile;
use wasmer_wasix::virtual_fs::{
    self, DirEntry, FileOpener, FileType, FsError, Metadata, OpenOptions, OpenOptionsConfig, ReadDir,
    VirtualFile,
};

type FsResult<T> = Result<T, FsError>;

/// The preopens; cheap to clone (files hold a reference for `unlink`, the
/// MPI bridge one for MPI-IO's paths).
#[derive(Debug, Clone, Default)]
pub struct ConfinedFs {
    mounts: Arc<Vec<Mount>>,
}

#[derive(Debug)]
struct Mount {
    dir: Dir,
    /// Where the guest sees it, and the canonical host directory.
    guest: PathBuf,
    host: PathBuf,
    read_only: bool,
}

/// Why a guest path has no host path for MPI-IO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Below no preopen, or missing.
    NoSuchFile,
    /// It would lead out of its preopen (`..`, a symlink).
    Escapes,
    /// Writing, creating or deleting in a read-only preopen.
    ReadOnly,
    /// A directory where a file is needed.
    NotAFile,
}

impl ConfinedFs {
    /// Opens `host` (a canonical directory) as the next preopen, seen by the
    /// guest at `guest`, and returns the path WASIX must register it under.
    pub fn add(&mut self, guest: &str, host: &Path, read_only: bool) -> io::Result<PathBuf> {
        let dir = Dir::open_ambient_dir(host, cap_std::ambient_authority())?;
        let mounts = Arc::get_mut(&mut self.mounts).expect("preopens are added before the file system is shared");
        mounts.push(Mount { dir, guest: PathBuf::from(guest), host: host.to_path_buf(), read_only });
        Ok(PathBuf::from(format!("/preopen-{}", mounts.len() - 1)))
    }

    pub fn has_read_only(&self) -> bool {
        self.mounts.iter().any(|m| m.read_only)
    }

    /// The canonical host path of the guest's `path` (relative paths start
    /// at the guest's root), for a host library that opens files by name
    /// (MPI-IO). Resolved beneath its preopen like every WASI access: `..`
    /// and symlinks may not lead out. A file to be created must not exist
    /// as a symlink (the host's open would follow it); `write` covers
    /// writing, creating and deleting.
    pub fn host_path(&self, path: &Path, create: bool, write: bool) -> Result<PathBuf, Refused> {
        let path = Path::new("/").join(path);
        let (mount, rel) = self
            .mounts
            .iter()
            .filter_map(|m| Some((m, path.strip_prefix(&m.guest).ok()?)))
            .max_by_key(|(m, _)| m.guest.components().count())
            .ok_or(Refused::NoSuchFile)?;
        if write && mount.read_only {
            return Err(Refused::ReadOnly);
        }
        let refused = |e: io::Error| match e.kind() {
            io::ErrorKind::NotFound => Refused::NoSuchFile,
            _ if e.raw_os_error() == Some(libc::ENOTDIR) => Refused::NoSuchFile,
            _ => Refused::Escapes,
        };
        let host = |rel: PathBuf| if rel.as_os_str().is_empty() || rel == Path::new(".") { mount.host.clone() } else { mount.host.join(rel) };
        let rel = if rel.as_os_str().is_empty() { Path::new(".") } else { rel };
        match mount.dir.canonicalize(rel) {
            Ok(found) => match mount.dir.metadata(&found) {
                Ok(m) if m.is_dir() => Err(Refused::NotAFile),
                Ok(_) => Ok(host(found)),
                Err(e) => Err(refused(e)),
            },
            Err(e) if e.kind() == io::ErrorKind::NotFound && create => {
                let Some(Component::Normal(name)) = rel.components().next_back() else { return Err(Refused::Escapes) };
                let parent = rel.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
                let parent = mount.dir.canonicalize(parent).map_err(refused)?;
                let entry = if parent.as_os_str().is_empty() { PathBuf::from(name) } else { parent.join(name) };
                match mount.dir.symlink_metadata(&entry) {
                    // a dangling link: the host would create its target
                    Ok(_) => Err(Refused::Escapes),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(host(entry)),
                    Err(e) => Err(refused(e)),
                }
            }
            Err(e) => Err(refused(e)),
        }
    }

    /// The preopen a path is under and the path relative to it ("." for the
    /// preopen itself). Only plain names are accepted below the preopen:
    /// WASIX resolves `..` in its own tree, so one here is refused.
    fn locate(&self, path: &Path) -> FsResult<(usize, PathBuf)> {
        let mut parts = path.components();
        if parts.next() != Some(Component::RootDir) {
            return Err(FsError::PermissionDenied);
        }
        let index = match parts.next() {
            Some(Component::Normal(name)) => name
                .to_str()
                .and_then(|n| n.strip_prefix("preopen-"))
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|i| *i < self.mounts.len())
                .ok_or(FsError::PermissionDenied)?,
            _ => return Err(FsError::PermissionDenied),
        };
        let mut rel = PathBuf::new();
        for part in parts {
            match part {
                Component::Normal(name) => rel.push(name),
                Component::CurDir => {}
                _ => return Err(FsError::PermissionDenied),
            }
        }
        if rel.as_os_str().is_empty() {
            rel.push(".");
        }
        Ok((index, rel))
    }

    fn dir(&self, index: usize) -> &Dir {
        &self.mounts[index].dir
    }

    /// Changes to `path` (an open file's guest path) are refused in a
    /// read-only preopen.
    pub fn check_writable(&self, path: &Path) -> FsResult<()> {
        let (index, _) = self.locate(path)?;
        self.writable(index)
    }

    /// Changes are refused in a read-only preopen.
    fn writable(&self, index: usize) -> FsResult<()> {
        if self.mounts[index].read_only {
            return Err(FsError::PermissionDenied);
        }
        Ok(())
    }

    /// A path below a preopen, never the preopen itself (for operations that
    /// remove, create or rename the entry).
    fn locate_entry(&self, path: &Path) -> FsResult<(usize, PathBuf)> {
        let (index, rel) = self.locate(path)?;
        if rel == Path::new(".") {
            return Err(FsError::PermissionDenied);
        }
        self.writable(index)?;
        Ok((index, rel))
    }
}

fn is_root(path: &Path) -> bool {
    path.components().eq([Component::RootDir])
}

/// io errors as WASI error codes; an escape attempt is a permission error.
fn fs_error(e: io::Error) -> FsError {
    match e.raw_os_error() {
        Some(libc::EXDEV | libc::ELOOP | libc::EACCES | libc::EPERM) => FsError::PermissionDenied,
        Some(libc::ENOTDIR) => FsError::BaseNotDirectory,
        Some(libc::ENOTEMPTY) => FsError::DirectoryNotEmpty,
        Some(libc::EISDIR) => FsError::NotAFile,
        _ => e.into(),
    }
}

fn nanos(t: io::Result<cap_std::time::SystemTime>) -> u64 {
    t.ok()
        .and_then(|t| t.into_std().duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64)
}

fn metadata(m: cap_std::fs::Metadata) -> Metadata {
    let ft = m.file_type();
    Metadata {
        ft: FileType {
            dir: ft.is_dir(),
            file: ft.is_file(),
            symlink: ft.is_symlink(),
            char_device: ft.is_char_device(),
            block_device: ft.is_block_device(),
            socket: ft.is_socket(),
            fifo: ft.is_fifo(),
        },
        accessed: nanos(m.accessed()),
        created: nanos(m.created()),
        modified: nanos(m.modified()),
        len: m.len(),
    }
}

impl virtual_fs::FileSystem for ConfinedFs {
    fn readlink(&self, _path: &Path) -> FsResult<PathBuf> {
        // Links are followed beneath the preopen and never shown to WASIX.
        Err(FsError::InvalidInput)
    }

    fn read_dir(&self, path: &Path) -> FsResult<ReadDir> {
        if is_root(path) {
            return Ok(ReadDir::new(Vec::new()));
        }
        let (index, rel) = self.locate(path)?;
        let dir = self.dir(index);
        let mut entries = Vec::new();
        for entry in dir.read_dir(&rel).map_err(fs_error)? {
            let entry = entry.map_err(fs_error)?;
            let name: OsString = entry.file_name();
            // What a link points to, as lookups report it; the link itself if
            // its target is outside or missing.
            let meta = dir.metadata(rel.join(&name)).or_else(|_| entry.metadata()).map(metadata).map_err(fs_error);
            entries.push(DirEntry { path: path.join(&name), metadata: meta });
        }
        entries.sort_by(|a, b| a.path.file_name().cmp(&b.path.file_name()));
        Ok(ReadDir::new(entries))
    }

    fn create_dir(&self, path: &Path) -> FsResult<()> {
        let (index, rel) = self.locate_entry(path)?;
        self.dir(index).create_dir(rel).map_err(fs_error)
    }

    fn remove_dir(&self, path: &Path) -> FsResult<()> {
        let (index, rel) = self.locate_entry(path)?;
        self.dir(index).remove_dir(rel).map_err(fs_error)
    }

    fn rename<'a>(&'a self, from: &'a Path, to: &'a Path) -> Pin<Box<dyn std::future::Future<Output = FsResult<()>> + Send + 'a>> {
        Box::pin(async move {
            let (from_index, from_rel) = self.locate_entry(from)?;
            let (to_index, to_rel) = self.locate_entry(to)?;
            // One preopen at a time, like a rename across file systems.
            if from_index != to_index {
                return Err(FsError::PermissionDenied);
            }
            let dir = self.dir(from_index);
            // Links stay where the host put them: moving one that leads
            // outside onto a path MPI-IO checked (`host_path`) would
            // redirect the host library's open.
            if dir.symlink_metadata(&from_rel).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(FsError::PermissionDenied);
            }
            dir.rename(from_rel, dir, to_rel).map_err(fs_error)
        })
    }

    fn metadata(&self, path: &Path) -> FsResult<Metadata> {
        if is_root(path) {
            // WASIX looks "/" up when a guest passes an absolute path to a
            // path call; it is an empty directory.
            return Ok(Metadata { ft: FileType { dir: true, ..FileType::default() }, ..Metadata::default() });
        }
        let (index, rel) = self.locate(path)?;
        self.dir(index).metadata(rel).map(metadata).map_err(|e| match fs_error(e) {
            // a link leading outside looks like a missing file
            FsError::PermissionDenied => FsError::EntryNotFound,
            other => other,
        })
    }

    fn symlink_metadata(&self, path: &Path) -> FsResult<Metadata> {
        self.metadata(path)
    }

    fn remove_file(&self, path: &Path) -> FsResult<()> {
        let (index, rel) = self.locate_entry(path)?;
        self.dir(index).remove_file(rel).map_err(fs_error)
    }

    fn new_open_options(&self) -> OpenOptions<'_> {
        OpenOptions::new(self)
    }

    fn mount(&self, _name: String, _path: &Path, _fs: Box<dyn virtual_fs::FileSystem + Send + Sync>) -> FsResult<()> {
        Err(FsError::Unsupported)
    }
}

impl FileOpener for ConfinedFs {
    fn open(&self, path: &Path, conf: &OpenOptionsConfig) -> FsResult<Box<dyn VirtualFile + Send + Sync + 'static>> {
        let (index, rel) = self.locate(path)?;
        if conf.write() || conf.append() || conf.truncate() || conf.create() || conf.create_new() {
            self.writable(index)?;
        }
        // O_APPEND on the host (each write lands at the end as the host sees
        // it, atomically, as for ranks appending to one log). The host's
        // open refuses O_TRUNC with it, so such a file is emptied after.
        let append_truncate = conf.append() && conf.truncate();
        let mut options = HostOpenOptions::new();
        options
            .read(conf.read())
            .write(conf.write())
            .append(conf.append())
            .truncate(conf.truncate() && !append_truncate)
            .create(conf.create())
            .create_new(conf.create_new());
        if (conf.create() || conf.create_new()) && !conf.write() && !conf.append() {
            // O_CREAT with O_RDONLY: the host creates only for writers, so the
            // file is created first, then opened as asked
            let mut create = HostOpenOptions::new();
            create.write(true).create(conf.create()).create_new(conf.create_new());
            self.dir(index).open_with(&rel, &create).map_err(fs_error)?;
            options.create(false).create_new(false);
        }
        let file = self.dir(index).open_with(&rel, &options).map_err(fs_error)?.into_std();
        if append_truncate {
            file.set_len(0).map_err(fs_error)?;
        }
        Ok(Box::new(ConfinedFile::new(file, self.clone(), path.to_path_buf())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use virtual_fs::FileSystem;

    fn setup() -> (tempfile::TempDir, ConfinedFs, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir(root.join("box")).unwrap();
        std::fs::write(root.join("box/in.txt"), "inside").unwrap();
        std::fs::write(root.join("secret.txt"), "outside").unwrap();
        std::os::unix::fs::symlink("in.txt", root.join("box/sibling")).unwrap();
        std::os::unix::fs::symlink("../secret.txt", root.join("box/up")).unwrap();
        std::os::unix::fs::symlink(root.join("secret.txt"), root.join("box/abs")).unwrap();
        std::os::unix::fs::symlink("/proc/self/root", root.join("box/proc")).unwrap();
        let mut fs = ConfinedFs::default();
        let key = fs.add("/box", &root.join("box").canonicalize().unwrap(), false).unwrap();
        (tmp, fs, key)
    }

    #[test]
    fn only_paths_below_a_preopen_resolve() {
        let (_tmp, fs, key) = setup();
        assert!(fs.metadata(&key).unwrap().is_dir());
        assert!(fs.metadata(&key.join("in.txt")).unwrap().is_file());
        for bad in ["x", "/x", "/preopen-1/in.txt", "/preopen-x", "/tmp", "/etc/passwd"] {
            assert!(fs.metadata(Path::new(bad)).is_err(), "{bad}");
            assert!(fs.new_open_options().read(true).open(bad).is_err(), "{bad}");
            assert!(fs.new_open_options().write(true).create(true).open(bad).is_err(), "{bad}");
            assert!(fs.create_dir(Path::new(bad)).is_err(), "{bad}");
        }
        // the virtual root is an empty directory
        assert!(fs.metadata(Path::new("/")).unwrap().is_dir());
        assert!(fs.read_dir(Path::new("/")).unwrap().is_empty());
        assert!(fs.metadata(&key.join("../preopen-0/in.txt")).is_err(), ".. is WASIX's business");
    }

    #[test]
    fn links_inside_are_followed_and_links_outside_refused() {
        let (tmp, fs, key) = setup();
        let sibling = fs.metadata(&key.join("sibling")).unwrap();
        assert!(sibling.is_file() && !sibling.ft.symlink && sibling.len == 6);
        for escaping in ["up", "abs", "proc", "proc/etc/passwd"] {
            assert_eq!(fs.metadata(&key.join(escaping)).unwrap_err(), FsError::EntryNotFound, "{escaping}");
            assert!(fs.new_open_options().read(true).open(key.join(escaping)).is_err(), "{escaping}");
        }
        // creating through a dangling link that points outside
        std::os::unix::fs::symlink("../created.txt", tmp.path().join("box/dangling")).unwrap();
        assert!(fs.new_open_options().write(true).create(true).open(key.join("dangling")).is_err());
        assert!(!tmp.path().join("created.txt").exists());
    }

    #[test]
    fn removing_or_renaming_the_preopen_itself_is_refused() {
        let (_tmp, fs, key) = setup();
        assert!(fs.remove_dir(&key).is_err());
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        assert!(rt.block_on(fs.rename(&key, Path::new("/preopen-0/x"))).is_err());
        assert!(rt.block_on(fs.rename(&key.join("in.txt"), &key.join("moved.txt"))).is_ok());
    }

    #[test]
    fn mpi_io_paths_resolve_to_canonical_host_paths_beneath_the_preopen() {
        let (tmp, fs, _) = setup();
        let boxed = tmp.path().join("box").canonicalize().unwrap();
        let p = |s: &str, create| fs.host_path(Path::new(s), create, create);
        assert_eq!(p("/box/in.txt", false), Ok(boxed.join("in.txt")));
        assert_eq!(p("box/in.txt", false), Ok(boxed.join("in.txt")), "relative to the guest's root");
        assert_eq!(p("/box/sibling", false), Ok(boxed.join("in.txt")), "a link inside is followed");
        assert_eq!(p("/box/new.dat", true), Ok(boxed.join("new.dat")));
        assert_eq!(p("/box/new.dat", false), Err(Refused::NoSuchFile));
        assert_eq!(p("/box", false), Err(Refused::NotAFile));
        for escape in ["/box/up", "/box/abs", "/box/proc", "/box/../secret.txt", "/box/./../box/../secret.txt"] {
            assert_eq!(p(escape, false), Err(Refused::Escapes), "{escape}");
            assert_eq!(p(escape, true), Err(Refused::Escapes), "{escape}");
        }
        for outside in ["/etc/passwd", "../../etc/passwd", "/secret.txt", "/boxx/in.txt"] {
            assert_eq!(p(outside, true), Err(Refused::NoSuchFile), "{outside}");
        }
        std::os::unix::fs::symlink("../created.txt", tmp.path().join("box/dangling")).unwrap();
        assert_eq!(p("/box/dangling", true), Err(Refused::Escapes), "the host would create the link's target");
    }

    #[test]
    fn read_only_preopens_refuse_every_change() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("ro")).unwrap();
        std::fs::write(tmp.path().join("ro/f.txt"), "data").unwrap();
        let mut fs = ConfinedFs::default();
        let key = fs.add("/ro", &tmp.path().join("ro").canonicalize().unwrap(), true).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        assert!(fs.new_open_options().read(true).open(key.join("f.txt")).is_ok());
        assert!(fs.new_open_options().write(true).open(key.join("f.txt")).is_err());
        assert!(fs.new_open_options().append(true).open(key.join("f.txt")).is_err());
        assert!(fs.new_open_options().write(true).create(true).open(key.join("g.txt")).is_err());
        // O_CREAT with O_RDONLY creates too (first for writing, then as asked)
        assert!(fs.new_open_options().read(true).create(true).open(key.join("g.txt")).is_err());
        assert!(fs.new_open_options().read(true).create_new(true).open(key.join("g.txt")).is_err());
        assert!(fs.create_dir(&key.join("d")).is_err());
        assert!(fs.remove_file(&key.join("f.txt")).is_err());
        assert!(rt.block_on(fs.rename(&key.join("f.txt"), &key.join("g.txt"))).is_err());
        assert_eq!(std::fs::read_to_string(tmp.path().join("ro/f.txt")).unwrap(), "data");
        assert!(!tmp.path().join("ro/g.txt").exists());
        assert_eq!(fs.host_path(Path::new("/ro/f.txt"), false, true), Err(Refused::ReadOnly));
        assert!(fs.host_path(Path::new("/ro/f.txt"), false, false).is_ok());
    }

    #[test]
    fn read_only_creates_and_truncating_appends_stay_inside() {
        let (tmp, fs, key) = setup();
        std::os::unix::fs::symlink("../planted.txt", tmp.path().join("box/dangling")).unwrap();
        // O_CREAT|O_RDONLY through a dangling link that leads out: refused,
        // nothing created outside
        assert!(fs.new_open_options().read(true).create(true).open(key.join("dangling")).is_err());
        assert!(!tmp.path().join("planted.txt").exists());
        // inside: created, empty, and readable only
        let mut f = fs.new_open_options().read(true).create(true).open(key.join("fresh.txt")).unwrap();
        assert_eq!(std::fs::read(tmp.path().join("box/fresh.txt")).unwrap(), b"");
        assert!(std::io::Write::write(&mut AsWrite(&mut *f), b"x").is_err());
        // O_CREAT|O_EXCL|O_RDONLY on an existing file: refused, file kept
        assert!(fs.new_open_options().read(true).create_new(true).open(key.join("in.txt")).is_err());
        assert_eq!(std::fs::read_to_string(tmp.path().join("box/in.txt")).unwrap(), "inside");
        // O_APPEND|O_TRUNC: emptied, then appended
        let mut a = fs.new_open_options().write(true).append(true).truncate(true).open(key.join("in.txt")).unwrap();
        assert_eq!(std::fs::read(tmp.path().join("box/in.txt")).unwrap(), b"");
        std::io::Write::write_all(&mut AsWrite(&mut *a), b"ab").unwrap();
        assert_eq!(std::fs::read(tmp.path().join("box/in.txt")).unwrap(), b"ab");
    }

    /// A virtual file's writes, called the way WASIX calls them (each poll
    /// finishes at once).
    struct AsWrite<'a>(&'a mut (dyn VirtualFile + Send + Sync));

    impl std::io::Write for AsWrite<'_> {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            match tokio::io::AsyncWrite::poll_write(Pin::new(&mut *self.0), &mut cx, buf) {
                std::task::Poll::Ready(r) => r,
                std::task::Poll::Pending => Err(std::io::ErrorKind::WouldBlock.into()),
            }
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn links_are_not_moved() {
        let (tmp, fs, key) = setup();
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        assert!(rt.block_on(fs.rename(&key.join("up"), &key.join("moved"))).is_err());
        assert!(tmp.path().join("box/up").symlink_metadata().is_ok());
    }
}
