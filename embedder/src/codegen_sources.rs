//! The digest of the code generator's sources that the compile cache key
//! carries (`engine::cache_key`); computed by `build.rs` from this file.
use std::{
    fs,
    path::{Path, PathBuf},
};

/// BLAKE3 over the sources that decide the machine code the compile cache
/// keeps: the patched Wasmer crates, the lock file (every compiler crate's
/// version) and the embedder's engine settings and memory reservation. Code
/// compiled by a build from other sources is then never loaded, whether or
/// not anyone remembered to change a version.
pub fn digest(root: &Path, mut watch: impl FnMut(&Path)) -> String {
    let mut files = Vec::new();
    for dir in ["patches/wasmer-compiler-llvm/src", "patches/wasmer-vm/src"] {
        // a directory: Cargo reruns on any change beneath it
        watch(&root.join(dir));
        collect_files(&root.join(dir), &mut files);
    }
    for file in ["Cargo.lock", "embedder/src/engine.rs", "embedder/src/reservation.rs"] {
        watch(&root.join(file));
        files.push(root.join(file));
    }
    files.sort();
    let mut h = blake3::Hasher::new();
    for file in &files {
        // outside the workspace (a packaged crate) the patches are absent
        let Ok(bytes) = fs::read(file) else { continue };
        let name = file.strip_prefix(root).unwrap_or(file).to_string_lossy().into_owned();
        for part in [name.as_bytes(), &bytes] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part);
        }
    }
    h.finalize().to_hex().to_string()
}

fn collect_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(&path, files);
        } else {
            files.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_build_carries_the_digest_of_its_sources() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        assert_eq!(digest(&root, |_| {}), env!("EMBEDDER_CODEGEN_SOURCES"));
        assert!(root.join("patches/wasmer-compiler-llvm/src/translator/code.rs").is_file(), "the patched backend is part of it");
    }

    #[test]
    fn any_change_to_a_patched_crate_changes_the_digest() {
        let root = tempfile::tempdir().unwrap();
        let file = |p: &str, text: &str| {
            let path = root.path().join(p);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        };
        file("patches/wasmer-compiler-llvm/src/translator/code.rs", "fold");
        file("Cargo.lock", "lock");
        let first = digest(root.path(), |_| {});
        assert_eq!(first, digest(root.path(), |_| {}), "deterministic");
        file("patches/wasmer-compiler-llvm/src/translator/code.rs", "fold more");
        let edited = digest(root.path(), |_| {});
        assert_ne!(first, edited, "an edited file");
        file("patches/wasmer-vm/src/new.rs", "");
        let added = digest(root.path(), |_| {});
        assert_ne!(edited, added, "a new file, even an empty one");
        fs::rename(root.path().join("patches/wasmer-vm/src/new.rs"), root.path().join("patches/wasmer-vm/src/renamed.rs")).unwrap();
        assert_ne!(added, digest(root.path(), |_| {}), "a renamed file");
        let mut watched = Vec::new();
        digest(root.path(), |p| watched.push(p.to_path_buf()));
        assert!(watched.contains(&root.path().join("patches/wasmer-vm/src")), "Cargo reruns on a new file there");
    }
}
