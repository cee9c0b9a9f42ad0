//! The guest's WASI view of the world: arguments, environment, directories.
use std::{
    collections::HashSet,
    path::{Path, PathBuf},
};

use anyhow::{bail, Context, Result};
use wasmer_wasix::{WasiEnv, WasiEnvBuilder};

use crate::{cli::RunArgs, confined_fs::ConfinedFs};

/// The guest's WASI environment. `out_of_reach` are host directories no
/// preopen may contain (the compile caches: a guest that could write there
/// could plant code for a later run).
/// Also returns the preopens, which MPI-IO resolves its paths through.
pub fn builder(module: &Path, args: &RunArgs, out_of_reach: &[PathBuf]) -> Result<(WasiEnvBuilder, ConfinedFs)> {
    let program = module.file_name().map_or("main.wasm".into(), |n| n.to_string_lossy().into_owned());
    let mut b = WasiEnv::builder(program).args(args.args().iter().map(|a| a.as_encoded_bytes().to_vec()));

    for (key, value) in inherited_env(&args.env_inherit)? {
        b.add_env(key, value);
    }
    for (key, value) in &args.envs {
        b.add_env(key, value);
    }

    // Host files are reachable only through the preopens below; the guest's
    // root is a virtual directory that holds just those (see confined_fs).
    let mut fs = ConfinedFs::default();
    let mut guest_paths = HashSet::new();
    let mut preopen = |b: &mut WasiEnvBuilder, guest: String, host: &Path, read_only: bool| -> Result<()> {
        let meta = std::fs::metadata(host).with_context(|| format!("cannot preopen {}", host.display()))?;
        if !meta.is_dir() {
            bail!("cannot preopen {}: not a directory", host.display());
        }
        if let Some(inside) = out_of_reach.iter().find(|p| resolved(p).starts_with(host)) {
            bail!(
                "cannot preopen {}: it contains the compile cache {}, where the guest could plant code for later runs; \
                 preopen a subdirectory, or move the cache with --cache-dir",
                host.display(),
                inside.display()
            );
        }
        if !guest_paths.insert(guest.clone()) {
            bail!("two directories would be visible at {guest} in the guest");
        }
        let registered = fs.add(&guest, host, read_only).with_context(|| format!("cannot preopen {}", host.display()))?;
        b.add_map_dir(&guest, registered).with_context(|| format!("cannot preopen {}", host.display()))
    };
    let dirs = args.dirs.iter().map(|d| (d, false)).chain(args.dirs_ro.iter().map(|d| (d, true)));
    for (dir, read_only) in dirs {
        let canonical = dir.canonicalize().with_context(|| format!("cannot preopen {}", dir.display()))?;
        let name = canonical.file_name().map_or("root".into(), |n| n.to_string_lossy().into_owned());
        preopen(&mut b, format!("/{name}"), &canonical, read_only)?;
    }
    let mapdirs = args.mapdirs.iter().map(|m| (m, false)).chain(args.mapdirs_ro.iter().map(|m| (m, true)));
    for ((guest, host), read_only) in mapdirs {
        let guest = if guest.starts_with('/') { guest.clone() } else { format!("/{guest}") };
        let canonical = host.canonicalize().with_context(|| format!("cannot preopen {}", host.display()))?;
        preopen(&mut b, guest, &canonical, read_only)?;
    }
    Ok((b.fs(Box::new(fs.clone())), fs))
}

/// `path` with symlinks resolved as far as it exists (a cache directory may
/// not have been created yet).
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut missing = Vec::new();
    let mut existing = absolute.as_path();
    loop {
        if let Ok(canonical) = existing.canonicalize() {
            return missing.iter().rev().fold(canonical, |p, name| p.join(name));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name.to_os_string());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// Host variables whose names match any of the glob patterns.
fn inherited_env(patterns: &[String]) -> Result<Vec<(String, String)>> {
    let patterns = patterns
        .iter()
        .map(|p| glob::Pattern::new(p).with_context(|| format!("bad --env-inherit pattern {p:?}")))
        .collect::<Result<Vec<_>>>()?;
    Ok(std::env::vars().filter(|(k, _)| patterns.iter().any(|p| p.matches(k))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_inherit_matches_globs() {
        std::env::set_var("EMBEDDER_TEST_INHERIT_A", "1");
        std::env::set_var("OTHER_TEST_VAR_B", "2");
        let got = inherited_env(&["EMBEDDER_TEST_INHERIT_*".into()]).unwrap();
        assert_eq!(got, vec![("EMBEDDER_TEST_INHERIT_A".to_string(), "1".to_string())]);
        assert!(inherited_env(&["[".into()]).is_err());
    }
}
