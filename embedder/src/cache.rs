//! The on-disk cache of compiled modules.
//!
//! An entry is native code that is loaded with Wasmer's unchecked
//! deserializer, so whoever can write an entry can run code as the user.
//! Threat model and defences (docs/security.md):
//! - Only the user (and root) may write the cache: a cache directory, an
//!   ancestor of it (unless sticky), an entry or the secret that someone else
//!   could write is refused with a notice, and the job compiles in memory.
//! - Key: BLAKE3 over the module bytes and everything that changes the
//!   machine code (see `engine::cache_key`). The entry stores the key and a
//!   checksum over key and payload, so an entry copied over another key, or
//!   truncated or corrupted, is discarded and rebuilt.
//! - A per-cache secret (`secret`, readable by the owner only) keys a BLAKE3
//!   MAC over key and payload: an entry this user's embedder did not write
//!   (edited code with a recomputed checksum, an entry from another cache) is
//!   refused by whoever cannot read the secret.
//! - A site cache the user names with `--trusted-cache` is read, never
//!   written; it must be owned by root and writable by no one else; its
//!   entries are checked for key and checksum (the trust is in root).
//! - Guests never reach the cache: `wasi` refuses a preopen that contains it.
//! - Entries are written to a temporary file and renamed into place, so a
//!   reader never sees a partial entry.
//! - When many ranks of a node start on a cold cache, one takes the entry's
//!   file lock and compiles; the others wait on the lock and then load.
use std::{
    fs::{self, File, OpenOptions},
    io::{Read, Write},
    os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt},
    path::{Path, PathBuf},
};

use anyhow::{Context, Result};

use crate::cli::Common;

const MAGIC: &[u8; 8] = b"EMBWASMC";
const FORMAT: u32 = 2;
/// magic, format, key, payload length, checksum, MAC
const HEADER: usize = 8 + 4 + 32 + 8 + 32 + 32;
const SECRET: &str = "secret";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Key(pub [u8; 32]);

impl Key {
    pub fn hex(&self) -> String {
        blake3::Hash::from(self.0).to_hex().to_string()
    }
}

/// How an entry was obtained.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    /// Found in the cache.
    Hit,
    /// Found in the read-only trusted cache.
    TrustedHit,
    /// Another process compiled it while this one waited on the lock.
    Waited,
    /// Compiled by this process and stored.
    Compiled,
    /// Compiled by this process; no usable cache to store it in.
    Uncached,
    /// Compiled by this process; storing it failed (a full or read-only cache).
    Unstored,
}

impl Outcome {
    pub fn describe(self) -> &'static str {
        match self {
            Outcome::Hit => "cache hit",
            Outcome::TrustedHit => "cache hit (trusted cache)",
            Outcome::Waited => "cache filled by another process",
            Outcome::Compiled => "compiled and cached",
            Outcome::Uncached => "compiled, cache not used",
            Outcome::Unstored => "compiled, not stored in the cache",
        }
    }

    /// Whether a later run finds the module compiled (what `embedder compile` is for).
    pub fn stored(self) -> bool {
        !matches!(self, Outcome::Uncached | Outcome::Unstored)
    }
}

/// The user's cache: read and written.
struct Writable {
    dir: PathBuf,
    secret: [u8; 32],
}

pub struct Cache {
    writable: Option<Writable>,
    trusted: Option<PathBuf>,
}

/// The user's cache directory: `--cache-dir`, else the default.
pub fn user_dir(common: &Common) -> PathBuf {
    common.cache_dir.clone().unwrap_or_else(Cache::default_dir)
}

/// Directories a guest must not reach: the caches this user's runs load code
/// from (also under `--no-cache`, which a later run may not use).
pub fn out_of_guest_reach(common: &Common) -> Vec<PathBuf> {
    std::iter::once(user_dir(common)).chain(common.trusted_cache.clone()).collect()
}

fn euid() -> u32 {
    unsafe { libc::geteuid() }
}

impl Cache {
    /// Opens the user's cache at `dir` (created owner-only if missing) and
    /// the trusted cache. A cache that fails the ownership checks is left
    /// out with a notice; the job then compiles in memory.
    pub fn open(dir: &Path, trusted: Option<&Path>) -> Self {
        let writable = match Writable::open(dir) {
            Ok(w) => Some(w),
            Err(e) => {
                tracing::warn!("not using the compile cache {}: {e:#}; compiling in memory", dir.display());
                None
            }
        };
        let trusted = trusted.and_then(|t| match others_could_write(t, 0) {
            None => Some(t.to_path_buf()),
            Some(reason) => {
                tracing::warn!("not using the trusted cache {}: {reason}", t.display());
                None
            }
        });
        Self { writable, trusted }
    }

    /// `$XDG_CACHE_HOME/mpi-wasm-embedder`, else `~/.cache/...`, else a
    /// per-user directory under /tmp.
    pub fn default_dir() -> PathBuf {
        let base = std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".cache")));
        match base {
            Some(b) => b.join("mpi-wasm-embedder"),
            None => std::env::temp_dir().join(format!("mpi-wasm-embedder-{}", euid())),
        }
    }

    /// Where the entry for `key` is (or would be), for messages.
    pub fn location(&self, key: &Key) -> String {
        match &self.writable {
            Some(w) => entry_path(&w.dir, key).display().to_string(),
            None => "no cache".into(),
        }
    }

    /// Loads the entry for `key`, or runs `compile` (under the entry's lock)
    /// and stores what it returns. `load` turns verified bytes into the value;
    /// if it fails, the entry is treated as corrupted and rebuilt.
    /// `on_miss` runs once when the entry is not there yet, whether this
    /// process then compiles or waits for another one (a progress notice).
    pub fn get_or_compile<T>(
        &self,
        key: &Key,
        load: impl Fn(Vec<u8>) -> Result<T>,
        on_miss: impl FnOnce() -> Result<()>,
        compile: impl FnOnce() -> Result<(T, Vec<u8>)>,
    ) -> Result<(T, Outcome)> {
        if let Some(dir) = &self.trusted {
            if let Some(v) = try_load(&entry_path(dir, key), key, 0, None, &load, false) {
                return Ok((v, Outcome::TrustedHit));
            }
        }
        let Some(w) = &self.writable else {
            on_miss()?;
            return Ok((compile()?.0, Outcome::Uncached));
        };
        if let Some(v) = w.try_load(key, &load) {
            return Ok((v, Outcome::Hit));
        }
        on_miss()?;
        let _lock = w.lock(key)?;
        if let Some(v) = w.try_load(key, &load) {
            return Ok((v, Outcome::Waited));
        }
        let (value, bytes) = compile()?;
        if let Err(e) = w.store(key, &bytes) {
            // A read-only or full cache must not stop the job.
            tracing::warn!("cannot store compiled module in {}: {e:#}", w.dir.display());
            return Ok((value, Outcome::Unstored));
        }
        Ok((value, Outcome::Compiled))
    }
}

impl Writable {
    fn open(dir: &Path) -> Result<Self> {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .with_context(|| format!("cannot create cache directory {}", dir.display()))?;
        if let Some(reason) = others_could_write(dir, euid()) {
            anyhow::bail!(reason);
        }
        let secret = read_or_create_secret(dir)?;
        Ok(Self { dir: dir.to_path_buf(), secret })
    }

    fn try_load<T>(&self, key: &Key, load: &impl Fn(Vec<u8>) -> Result<T>) -> Option<T> {
        try_load(&entry_path(&self.dir, key), key, euid(), Some(&self.secret), load, true)
    }

    /// Exclusive lock on the entry, held until the guard drops.
    fn lock(&self, key: &Key) -> Result<File> {
        let path = self.dir.join(format!("{}.lock", key.hex()));
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW)
            .mode(0o600)
            .open(&path)
            .with_context(|| format!("cannot open lock file {}", path.display()))?;
        file.lock().with_context(|| format!("cannot lock {}", path.display()))?;
        Ok(file)
    }

    fn store(&self, key: &Key, payload: &[u8]) -> Result<()> {
        let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(&self.dir)?;
        tmp.write_all(&encode(key, &self.secret, payload))?;
        tmp.as_file().sync_all()?;
        tmp.persist(entry_path(&self.dir, key))?;
        Ok(())
    }
}

fn entry_path(dir: &Path, key: &Key) -> PathBuf {
    dir.join(format!("{}.bin", key.hex()))
}

/// Why someone other than `owner` (and root) could change what is at
/// `path`, if they could: the file itself is not theirs or is group- or
/// world-writable, or a directory above it is, without the sticky bit that
/// stops others from renaming what they do not own. ACLs are not consulted.
fn others_could_write(path: &Path, owner: u32) -> Option<String> {
    let canonical = match path.canonicalize() {
        Ok(c) => c,
        Err(e) => return Some(format!("cannot resolve it: {e}")),
    };
    let meta = match fs::metadata(&canonical) {
        Ok(m) => m,
        Err(e) => return Some(format!("cannot stat it: {e}")),
    };
    if let Some(reason) = not_owners_only(&meta, owner) {
        return Some(reason);
    }
    for ancestor in canonical.ancestors().skip(1) {
        let Ok(m) = fs::metadata(ancestor) else { return Some(format!("cannot stat {}", ancestor.display())) };
        if m.uid() != 0 && m.uid() != owner {
            return Some(format!("{} is owned by uid {}", ancestor.display(), m.uid()));
        }
        if m.mode() & 0o022 != 0 && m.mode() & 0o1000 == 0 {
            return Some(format!("{} is writable by others (mode {:o})", ancestor.display(), m.mode() & 0o7777));
        }
    }
    None
}

/// Why a file or directory is not under `owner`'s sole control, if it is not.
fn not_owners_only(meta: &fs::Metadata, owner: u32) -> Option<String> {
    if meta.uid() != owner {
        return Some(format!("owned by uid {}, not uid {owner}", meta.uid()));
    }
    if meta.mode() & 0o022 != 0 {
        return Some(format!("writable by group or others (mode {:o})", meta.mode() & 0o7777));
    }
    None
}

/// The cache's MAC key: created once, readable by the owner only.
fn read_or_create_secret(dir: &Path) -> Result<[u8; 32]> {
    let path = dir.join(SECRET);
    for _ in 0..2 {
        match read_owned(&path, euid()) {
            Ok(Some(bytes)) => {
                let secret: [u8; 32] =
                    bytes.try_into().map_err(|_| anyhow::anyhow!("{} is not a cache secret", path.display()))?;
                let meta = fs::symlink_metadata(&path)?;
                if meta.mode() & 0o077 != 0 {
                    anyhow::bail!("{} is readable by others (mode {:o})", path.display(), meta.mode() & 0o777);
                }
                return Ok(secret);
            }
            Ok(None) => {}
            Err(reason) => anyhow::bail!("{}: {reason}", path.display()),
        }
        let mut secret = [0u8; 32];
        File::open("/dev/urandom")?.read_exact(&mut secret)?;
        // tempfile creates the file owner-only; another rank may win the race
        let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
        tmp.write_all(&secret)?;
        tmp.as_file().sync_all()?;
        let _ = tmp.persist_noclobber(&path);
    }
    anyhow::bail!("cannot create {}", path.display())
}

/// The contents of a regular file that only `owner` can write, `None` if
/// there is none, or why it is unusable. Never follows a symlink.
fn read_owned(path: &Path, owner: u32) -> Result<Option<Vec<u8>>, String> {
    let mut file = match OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if let Some(reason) = not_owners_only(&meta, owner) {
        return Err(reason);
    }
    let mut data = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut data).map_err(|e| e.to_string())?;
    Ok(Some(data))
}

/// Loads a verified entry; an unusable one is reported and, if `discard`,
/// removed so that it is rebuilt.
fn try_load<T>(
    path: &Path,
    key: &Key,
    owner: u32,
    secret: Option<&[u8; 32]>,
    load: &impl Fn(Vec<u8>) -> Result<T>,
    discard: bool,
) -> Option<T> {
    let verdict = match read_owned(path, owner) {
        Ok(None) => return None,
        Ok(Some(data)) => decode(data, key, secret).map_err(anyhow::Error::msg).and_then(load),
        Err(reason) => Err(anyhow::Error::msg(reason)),
    };
    match verdict {
        Ok(v) => Some(v),
        Err(e) => {
            let action = if discard { "discarding" } else { "ignoring" };
            tracing::warn!("{action} cache entry {}: {e:#}", path.display());
            if discard {
                let _ = fs::remove_file(path);
            }
            None
        }
    }
}

fn checksum(key: &Key, payload: &[u8]) -> blake3::Hash {
    blake3::Hasher::new().update(&key.0).update(payload).finalize()
}

fn mac(secret: &[u8; 32], key: &Key, payload: &[u8]) -> blake3::Hash {
    blake3::Hasher::new_keyed(secret).update(&key.0).update(payload).finalize()
}

fn encode(key: &Key, secret: &[u8; 32], payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&key.0);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(checksum(key, payload).as_bytes());
    out.extend_from_slice(mac(secret, key, payload).as_bytes());
    out.extend_from_slice(payload);
    out
}

/// The payload of an entry for `key`, or why the entry is unusable. The MAC
/// is checked when the cache's secret is known (the user's own cache).
fn decode(mut data: Vec<u8>, key: &Key, secret: Option<&[u8; 32]>) -> Result<Vec<u8>, String> {
    if data.len() < MAGIC.len() || &data[..MAGIC.len()] != MAGIC {
        return Err("not a cache entry (bad header)".into());
    }
    if data.len() < HEADER {
        return Err(format!("truncated: {} bytes, shorter than the header", data.len()));
    }
    let format = u32::from_le_bytes(data[8..12].try_into().unwrap());
    if format != FORMAT {
        return Err(format!("entry format {format}, expected {FORMAT}"));
    }
    if data[12..44] != key.0 {
        return Err("compiled from another module (key mismatch)".into());
    }
    let len = u64::from_le_bytes(data[44..52].try_into().unwrap());
    if data.len() as u64 - HEADER as u64 != len {
        return Err(format!("truncated: {} payload bytes, header says {len}", data.len() - HEADER));
    }
    let payload = data.split_off(HEADER);
    if checksum(key, &payload).as_bytes() != &data[52..84] {
        return Err("checksum mismatch".into());
    }
    if let Some(secret) = secret {
        // constant-time comparison (blake3::Hash's PartialEq)
        if mac(secret, key, &payload) != blake3::Hash::from(<[u8; 32]>::try_from(&data[84..116]).unwrap()) {
            return Err("not written by this cache's owner (MAC mismatch)".into());
        }
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{
        os::unix::fs::PermissionsExt,
        sync::{
            atomic::{AtomicUsize, Ordering},
            Arc, Barrier,
        },
    };

    const KEY: Key = Key([7; 32]);
    const OTHER: Key = Key([8; 32]);

    fn ok_load(b: Vec<u8>) -> Result<Vec<u8>> {
        Ok(b)
    }

    fn open(dir: &Path) -> Cache {
        let cache = Cache::open(dir, None);
        assert!(cache.writable.is_some(), "{} refused", dir.display());
        cache
    }

    fn store(cache: &Cache, key: &Key, payload: &[u8]) -> PathBuf {
        let w = cache.writable.as_ref().unwrap();
        w.store(key, payload).unwrap();
        entry_path(&w.dir, key)
    }

    /// Runs the cache for KEY with a compile that returns `fresh`; returns the
    /// outcome and how many times it compiled.
    fn fetch(cache: &Cache, fresh: &[u8]) -> (Vec<u8>, Outcome, usize) {
        let compiled = AtomicUsize::new(0);
        let (v, o) = cache
            .get_or_compile(&KEY, ok_load, || Ok(()), || {
                compiled.fetch_add(1, Ordering::SeqCst);
                Ok((fresh.to_vec(), fresh.to_vec()))
            })
            .unwrap();
        (v, o, compiled.load(Ordering::SeqCst))
    }

    #[test]
    fn miss_compiles_then_hits() {
        let dir = tempfile::tempdir().unwrap();
        let cache = open(dir.path());
        let (v, o) = cache.get_or_compile(&KEY, ok_load, || Ok(()), || Ok((b"code".to_vec(), b"code".to_vec()))).unwrap();
        assert_eq!((v.as_slice(), o), (&b"code"[..], Outcome::Compiled));
        let (v, o) = cache.get_or_compile(&KEY, ok_load, || Ok(()), || panic!("must not compile on a hit")).unwrap();
        assert_eq!((v.as_slice(), o), (&b"code"[..], Outcome::Hit));
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir.path().join(SECRET)), 0o600);
    }

    #[test]
    fn corrupted_or_truncated_entries_are_detected_and_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let cache = open(dir.path());
        let payload = vec![0xabu8; 4096];
        let path = store(&cache, &KEY, &payload);
        let good = fs::read(&path).unwrap();

        let mut flipped = good.clone();
        flipped[HEADER + 100] ^= 1;
        let truncated = good[..good.len() - 10].to_vec();
        let bad_magic = [b"XXXXXXXX".as_slice(), &good[8..]].concat();
        for (what, bytes) in [("flipped", flipped), ("truncated", truncated), ("magic", bad_magic), ("empty", vec![])] {
            fs::write(&path, &bytes).unwrap();
            assert!(decode(bytes, &KEY, None).is_err(), "{what} entry accepted");
            let (v, o, compiled) = fetch(&cache, &payload);
            assert_eq!((o, compiled), (Outcome::Compiled, 1), "{what}");
            assert_eq!(v, payload);
            assert_eq!(fs::read(&path).unwrap(), good, "{what}: entry rewritten");
        }
    }

    #[test]
    fn an_entry_copied_over_another_key_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let cache = open(dir.path());
        let victim = store(&cache, &KEY, b"victim code");
        let other = store(&cache, &OTHER, b"other code");
        fs::copy(&other, &victim).unwrap();
        assert!(decode(fs::read(&victim).unwrap(), &KEY, None).unwrap_err().contains("key mismatch"));
        assert_eq!(fetch(&cache, b"victim code"), (b"victim code".to_vec(), Outcome::Compiled, 1));
    }

    #[test]
    fn edited_code_with_a_recomputed_checksum_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let cache = open(dir.path());
        let path = store(&cache, &KEY, b"genuine machine code");
        // What an attacker without the secret can do: edit the payload and
        // recompute every unkeyed field.
        let injected = b"injected instruction";
        let mut forged = fs::read(&path).unwrap()[..HEADER].to_vec();
        forged[52..84].copy_from_slice(checksum(&KEY, injected).as_bytes());
        forged[44..52].copy_from_slice(&(injected.len() as u64).to_le_bytes());
        forged.extend_from_slice(injected);
        fs::write(&path, &forged).unwrap();
        assert!(decode(forged.clone(), &KEY, Some(&cache.writable.as_ref().unwrap().secret)).unwrap_err().contains("MAC"));
        assert_eq!(decode(forged, &KEY, None).unwrap(), injected, "only the MAC catches it");
        assert_eq!(fetch(&cache, b"genuine machine code").1, Outcome::Compiled);
    }

    #[test]
    fn an_entry_from_another_cache_is_refused() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let from_a = store(&open(a.path()), &KEY, b"code written elsewhere");
        let cache_b = open(b.path());
        fs::copy(&from_a, entry_path(b.path(), &KEY)).unwrap();
        assert_eq!(fetch(&cache_b, b"own code"), (b"own code".to_vec(), Outcome::Compiled, 1));
    }

    #[test]
    fn a_cache_others_can_write_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        store(&open(dir.path()), &KEY, b"planted?");
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o777)).unwrap();
        let cache = Cache::open(dir.path(), None);
        assert!(cache.writable.is_none());
        assert_eq!(fetch(&cache, b"fresh"), (b"fresh".to_vec(), Outcome::Uncached, 1));
        // not even under a sticky bit: others could add entries for keys not there yet
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o1777)).unwrap();
        assert!(Cache::open(dir.path(), None).writable.is_none());
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o700)).unwrap();
        assert!(Cache::open(dir.path(), None).writable.is_some());
        // an ancestor others can write without the sticky bit
        let parent = tempfile::tempdir().unwrap();
        let inner = parent.path().join("cache");
        open(&inner);
        fs::set_permissions(parent.path(), fs::Permissions::from_mode(0o777)).unwrap();
        assert!(Cache::open(&inner, None).writable.is_none());
        fs::set_permissions(parent.path(), fs::Permissions::from_mode(0o1777)).unwrap();
        assert!(Cache::open(&inner, None).writable.is_some());
    }

    #[test]
    fn an_entry_or_secret_others_can_write_or_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let cache = open(dir.path());
        let path = store(&cache, &KEY, b"code");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).unwrap();
        assert_eq!(fetch(&cache, b"code").1, Outcome::Compiled);
        let secret = dir.path().join(SECRET);
        fs::set_permissions(&secret, fs::Permissions::from_mode(0o644)).unwrap();
        assert!(Cache::open(dir.path(), None).writable.is_none());
        fs::set_permissions(&secret, fs::Permissions::from_mode(0o600)).unwrap();
        // a symlink in place of the entry is not followed
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(dir.path().join(SECRET), &path).unwrap();
        assert_eq!(fetch(&cache, b"code").1, Outcome::Compiled);
    }

    #[test]
    fn an_entry_the_loader_rejects_is_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let cache = open(dir.path());
        store(&cache, &KEY, b"stale");
        let load = |b: Vec<u8>| if b == b"fresh" { Ok(b) } else { anyhow::bail!("incompatible artifact") };
        let (v, o) = cache.get_or_compile(&KEY, load, || Ok(()), || Ok((b"fresh".to_vec(), b"fresh".to_vec()))).unwrap();
        assert_eq!((v.as_slice(), o), (&b"fresh"[..], Outcome::Compiled));
    }

    #[test]
    fn concurrent_cold_start_compiles_once() {
        let dir = tempfile::tempdir().unwrap();
        let compiles = Arc::new(AtomicUsize::new(0));
        let start = Arc::new(Barrier::new(6));
        let threads: Vec<_> = (0..6)
            .map(|_| {
                let (dir, compiles, start) = (dir.path().to_path_buf(), compiles.clone(), start.clone());
                std::thread::spawn(move || {
                    let cache = open(&dir);
                    start.wait();
                    cache
                        .get_or_compile(&KEY, ok_load, || Ok(()), || {
                            compiles.fetch_add(1, Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_millis(300));
                            Ok((b"artifact".to_vec(), b"artifact".to_vec()))
                        })
                        .unwrap()
                })
            })
            .collect();
        let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(compiles.load(Ordering::SeqCst), 1, "exactly one compile");
        assert!(results.iter().all(|(v, _)| v == b"artifact"));
        assert_eq!(results.iter().filter(|(_, o)| *o == Outcome::Compiled).count(), 1);
    }

    #[test]
    fn unwritable_cache_still_returns_the_compiled_value() {
        let dir = tempfile::tempdir().unwrap();
        let cache = open(dir.path());
        // a directory where the entry file should go makes the rename fail
        fs::create_dir(entry_path(dir.path(), &KEY)).unwrap();
        let (v, o) = cache.get_or_compile(&KEY, ok_load, || Ok(()), || Ok((b"x".to_vec(), b"x".to_vec()))).unwrap();
        assert_eq!((v.as_slice(), o), (&b"x"[..], Outcome::Unstored));
        assert!(!o.stored());
    }
}
