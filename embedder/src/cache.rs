//! The on-disk cache of compiled modules.
//!
//! - Key: BLAKE3 over the module bytes and everything that changes the
//!   machine code (see `engine::cache_key`).
//! - Entries are written to a temporary file and renamed into place, so a
//!   reader never sees a partial entry.
//! - Each entry carries a BLAKE3 checksum of its payload, verified before the
//!   payload reaches Wasmer's (unsafe) deserializer; a truncated or corrupted
//!   entry is discarded and rebuilt.
//! - When many ranks of a node start on a cold cache, one takes the entry's
//!   file lock and compiles; the others wait on the lock and then load.
use std::{
    fs::{self, File, OpenOptions},
    io::Write,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result};

const MAGIC: &[u8; 8] = b"EMBWASMC";
const FORMAT: u32 = 1;
const HEADER: usize = 8 + 4 + 8 + 32;

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
    /// Another process compiled it while this one waited on the lock.
    Waited,
    /// Compiled by this process and stored.
    Compiled,
}

impl Outcome {
    pub fn describe(self) -> &'static str {
        match self {
            Outcome::Hit => "cache hit",
            Outcome::Waited => "cache filled by another process",
            Outcome::Compiled => "compiled and cached",
        }
    }
}

pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    pub fn open(dir: &Path) -> Result<Self> {
        fs::create_dir_all(dir).with_context(|| format!("cannot create cache directory {}", dir.display()))?;
        Ok(Self { dir: dir.to_path_buf() })
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
            None => std::env::temp_dir().join(format!("mpi-wasm-embedder-{}", unsafe { libc::getuid() })),
        }
    }

    pub fn entry_path(&self, key: &Key) -> PathBuf {
        self.dir.join(format!("{}.bin", key.hex()))
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
        if let Some(v) = self.try_load(key, &load) {
            return Ok((v, Outcome::Hit));
        }
        on_miss()?;
        let _lock = self.lock(key)?;
        if let Some(v) = self.try_load(key, &load) {
            return Ok((v, Outcome::Waited));
        }
        let (value, bytes) = compile()?;
        if let Err(e) = self.store(key, &bytes) {
            // A read-only or full cache must not stop the job.
            tracing::warn!("cannot store compiled module in {}: {e:#}", self.dir.display());
        }
        Ok((value, Outcome::Compiled))
    }

    fn try_load<T>(&self, key: &Key, load: &impl Fn(Vec<u8>) -> Result<T>) -> Option<T> {
        let path = self.entry_path(key);
        let payload = match read_entry(&path) {
            Ok(Some(p)) => p,
            Ok(None) => return None,
            Err(reason) => {
                tracing::warn!("discarding cache entry {}: {reason}", path.display());
                let _ = fs::remove_file(&path);
                return None;
            }
        };
        match load(payload) {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::warn!("discarding cache entry {}: {e:#}", path.display());
                let _ = fs::remove_file(&path);
                None
            }
        }
    }

    /// Exclusive lock on the entry, held until the guard drops.
    fn lock(&self, key: &Key) -> Result<File> {
        let path = self.dir.join(format!("{}.lock", key.hex()));
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("cannot open lock file {}", path.display()))?;
        file.lock().with_context(|| format!("cannot lock {}", path.display()))?;
        Ok(file)
    }

    fn store(&self, key: &Key, payload: &[u8]) -> Result<()> {
        let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(&self.dir)?;
        tmp.write_all(MAGIC)?;
        tmp.write_all(&FORMAT.to_le_bytes())?;
        tmp.write_all(&(payload.len() as u64).to_le_bytes())?;
        tmp.write_all(blake3::hash(payload).as_bytes())?;
        tmp.write_all(payload)?;
        tmp.as_file().sync_all()?;
        tmp.persist(self.entry_path(key))?;
        Ok(())
    }
}

/// The verified payload of an entry, `None` if there is none, or why the
/// entry is unusable.
fn read_entry(path: &Path) -> Result<Option<Vec<u8>>, String> {
    let mut data = match fs::read(path) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if data.len() < HEADER || &data[..8] != MAGIC {
        return Err("not a cache entry (bad header)".into());
    }
    let format = u32::from_le_bytes(data[8..12].try_into().unwrap());
    if format != FORMAT {
        return Err(format!("entry format {format}, expected {FORMAT}"));
    }
    let len = u64::from_le_bytes(data[12..20].try_into().unwrap());
    if data.len() as u64 - HEADER as u64 != len {
        return Err(format!("truncated: {} payload bytes, header says {len}", data.len() - HEADER));
    }
    let payload = data.split_off(HEADER);
    if blake3::hash(&payload).as_bytes() != &data[20..52] {
        return Err("checksum mismatch".into());
    }
    Ok(Some(payload))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Barrier,
    };

    const KEY: Key = Key([7; 32]);

    fn ok_load(b: Vec<u8>) -> Result<Vec<u8>> {
        Ok(b)
    }

    #[test]
    fn miss_compiles_then_hits() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let (v, o) = cache.get_or_compile(&KEY, ok_load, || Ok(()), || Ok((b"code".to_vec(), b"code".to_vec()))).unwrap();
        assert_eq!((v.as_slice(), o), (&b"code"[..], Outcome::Compiled));
        let (v, o) = cache.get_or_compile(&KEY, ok_load, || Ok(()), || panic!("must not compile on a hit")).unwrap();
        assert_eq!((v.as_slice(), o), (&b"code"[..], Outcome::Hit));
    }

    #[test]
    fn corrupted_or_truncated_entries_are_detected_and_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let payload = vec![0xabu8; 4096];
        cache.store(&KEY, &payload).unwrap();
        let path = cache.entry_path(&KEY);
        let good = fs::read(&path).unwrap();

        let mut flipped = good.clone();
        flipped[HEADER + 100] ^= 1;
        let truncated = good[..good.len() - 10].to_vec();
        let bad_magic = [b"XXXXXXXX".as_slice(), &good[8..]].concat();
        for (what, bytes) in [("flipped", flipped), ("truncated", truncated), ("magic", bad_magic), ("empty", vec![])] {
            fs::write(&path, &bytes).unwrap();
            assert!(read_entry(&path).is_err(), "{what} entry accepted");
            let compiled = AtomicUsize::new(0);
            let (v, o) = cache
                .get_or_compile(&KEY, ok_load, || Ok(()), || {
                    compiled.fetch_add(1, Ordering::SeqCst);
                    Ok((payload.clone(), payload.clone()))
                })
                .unwrap();
            assert_eq!((o, compiled.load(Ordering::SeqCst)), (Outcome::Compiled, 1), "{what}");
            assert_eq!(v, payload);
            assert_eq!(fs::read(&path).unwrap(), good, "{what}: entry rewritten");
        }
    }

    #[test]
    fn an_entry_the_loader_rejects_is_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        cache.store(&KEY, b"stale").unwrap();
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
                    let cache = Cache::open(&dir).unwrap();
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
        let cache = Cache::open(dir.path()).unwrap();
        // a directory where the entry file should go makes the rename fail
        fs::create_dir(cache.entry_path(&KEY)).unwrap();
        let (v, o) = cache.get_or_compile(&KEY, ok_load, || Ok(()), || Ok((b"x".to_vec(), b"x".to_vec()))).unwrap();
        assert_eq!((v.as_slice(), o), (&b"x"[..], Outcome::Compiled));
    }
}
