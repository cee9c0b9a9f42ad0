//! Compiling modules: backend selection, the cache key, and loading a module
//! through the cache.
use std::{io::IsTerminal, path::Path, time::Instant};

use anyhow::{bail, Context, Result};
use wasmer::{
    sys::{BaseTunables, EngineBuilder, NativeEngineExt},
    CpuFeature, Engine, Module, Target, Triple,
};

use crate::{
    cache::{self, Cache, Key, Outcome},
    cli::{Backend, Common, CompileArgs},
    rank,
    reservation::{self, SandboxTunables},
};

/// What decides the machine code besides the module: the backend and its
/// options. All of it goes into the cache key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Codegen {
    pub backend: Backend,
    /// LLVM only: every guest memory access volatile (none deleted).
    pub strict_traps: bool,
    /// LLVM only: addresses in 32-bit arithmetic as wasm specifies them;
    /// without it a constant added to an address is folded into the access,
    /// and an address that wraps past 4 GiB traps (patches/README.md, 8).
    pub wrapping_addresses: bool,
}

impl Codegen {
    pub fn new(backend: Backend) -> Self {
        Codegen { backend, strict_traps: false, wrapping_addresses: false }
    }

    pub fn of(common: &Common) -> Self {
        let llvm = common.backend == Backend::Llvm;
        Codegen {
            backend: common.backend,
            strict_traps: common.strict_traps && llvm,
            // strict is exact: its traps are the specification's
            wrapping_addresses: (common.wrapping_addresses || common.strict_traps) && llvm,
        }
    }

    /// Options that change the generated code, as the cache key spells them.
    fn describe(self) -> String {
        match self.backend {
            Backend::Llvm => {
                let (cpu, features) = wasmer_compiler_llvm::host_cpu();
                let accesses = if self.strict_traps { "volatile" } else { "plain" };
                let addresses = if self.wrapping_addresses { "wrapping" } else { "folded" };
                format!("llvm opt=aggressive memory-accesses={accesses} addresses={addresses} cpu={cpu} features={features}")
            }
            Backend::Cranelift => "cranelift opt=speed".into(),
            Backend::Singlepass => "singlepass".into(),
        }
    }
}

pub fn target() -> Target {
    Target::new(Triple::host(), CpuFeature::for_host())
}

/// Wasm code runs on a stack of its own, and Wasmer switches back to the
/// host stack for every host function (every MPI call): two switches that
/// cost more than an `MPI_Comm_rank`. With this much of the Wasm stack left
/// a host function runs where it is (patches/README.md, wasmer-vm): as much
/// as the main thread's usual 8 MiB stack gives it. The Wasm stack is that
/// plus Wasmer's 1 MiB for the guest; a guest that goes deeper gets the
/// switch back, and its overflow traps as before.
pub const HOST_CALL_HEADROOM: usize = 8 << 20;
const GUEST_STACK: usize = 1 << 20;

fn configure_stacks() {
    wasmer_vm::set_stack_size(GUEST_STACK + HOST_CALL_HEADROOM);
    wasmer_vm::set_host_call_headroom(HOST_CALL_HEADROOM);
}

pub fn make_engine(codegen: Codegen) -> Engine {
    configure_stacks();
    let target = target();
    let builder = match codegen.backend {
        Backend::Llvm => {
            let mut c = wasmer::LLVM::new();
            c.opt_level(wasmer::LLVMOptLevel::Aggressive);
            c.volatile_memory_accesses(codegen.strict_traps);
            c.fold_address_offsets(!codegen.wrapping_addresses);
            c.host_cpu(true);
            c.callbacks(crate::llvm_dump::from_env());
            EngineBuilder::new(c)
        }
        Backend::Cranelift => {
            let mut c = wasmer::Cranelift::new();
            c.opt_level(wasmer::CraneliftOptLevel::Speed);
            EngineBuilder::new(c)
        }
        Backend::Singlepass => EngineBuilder::new(wasmer::Singlepass::new()),
    };
    let mut engine: Engine = builder.set_target(Some(target.clone())).engine().into();
    // Static memories (linear memory never moves: outstanding MPI requests
    // hold host pointers into it) whose reservation covers every address a
    // wasm32 access can form.
    engine.set_tunables(SandboxTunables::new(BaseTunables::for_target(&target)));
    engine
}

/// BLAKE3 over the module and everything that changes the machine code:
/// besides the options and the host, the sources of the code generator as
/// this binary was built from them (`build.rs`, `codegen_sources`: the
/// patched Wasmer crates of patches/README.md, the lock file, this file), so
/// that code compiled by another build is never loaded.
pub fn cache_key(wasm: &[u8], codegen: Codegen, target: &Target) -> Key {
    key_with_sources(wasm, codegen, target, env!("EMBEDDER_CODEGEN_SOURCES"))
}

fn key_with_sources(wasm: &[u8], codegen: Codegen, target: &Target, codegen_sources: &str) -> Key {
    let mut h = blake3::Hasher::new();
    let mut field = |name: &str, value: &[u8]| {
        h.update(name.as_bytes());
        h.update(&(value.len() as u64).to_le_bytes());
        h.update(value);
    };
    field("embedder", env!("CARGO_PKG_VERSION").as_bytes());
    field("wasmer", wasmer::VERSION.as_bytes());
    field("backend", codegen.describe().as_bytes());
    field("codegen-sources", codegen_sources.as_bytes());
    // Backends elide bounds checks against the guard they were compiled for.
    field("memory", format!("{:?}", reservation::style()).as_bytes());
    field("triple", target.triple().to_string().as_bytes());
    let mut features: Vec<String> = target.cpu_features().iter().map(|f| f.to_string()).collect();
    features.sort();
    field("cpu", features.join(",").as_bytes());
    field("module", wasm);
    Key(*h.finalize().as_bytes())
}

pub struct Loaded {
    pub engine: Engine,
    pub module: Module,
    pub outcome: Option<Outcome>,
    pub seconds: f64,
}

fn read_module(path: &Path) -> Result<Vec<u8>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    if !wasmer::is_wasm(&bytes) {
        bail!("{} is not a WebAssembly module (no \\0asm header)", path.display());
    }
    Ok(bytes)
}

fn display_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// Module::new, with a compiler panic made an error: Wasmer's compilers
/// panic on some valid modules (the module fuzzer found such in LLVM), and
/// that is this module failing to compile, not the job crashing.
fn compile_catching_panics(engine: &Engine, wasm: &[u8]) -> Result<Module> {
    panic_as_error(|| Ok(Module::new(engine, wasm)?))
        .map_err(|e| e.context("the compiler failed on this module; another --backend may compile it"))
}

fn panic_as_error<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {})); // the message goes into the error
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    out.unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("no message");
        bail!("panicked (a bug in Wasmer): {what}")
    })
}

/// Compiles `path`, or loads it from the cache.
pub fn load(common: &Common, path: &Path) -> Result<Loaded> {
    let start = Instant::now();
    let wasm = read_module(path)?;
    let codegen = Codegen::of(common);
    let engine = make_engine(codegen);
    let name = display_name(path);
    // Before any compile: validate (a clear error for a bad module on every
    // rank) and, since LLVM takes seconds on large modules, tell a user at a
    // terminal why the job is quiet (once, on rank 0, even if another rank
    // compiles). Redirected, a successful run prints only what the guest
    // prints: test harnesses and job scripts compare output, so the notice
    // needs -v there.
    let on_miss = || -> Result<()> {
        Module::validate(&engine, &wasm).with_context(|| format!("{} is not a valid module", path.display()))?;
        let wanted = common.verbose > 0 || std::io::stderr().is_terminal();
        if common.backend == Backend::Llvm && rank::is_leader() && wanted {
            let tail = if common.no_cache { "" } else { ", cached for later runs" };
            crate::say!("embedder: compiling {name} with LLVM{tail}");
        }
        Ok(())
    };
    let compile = || {
        compile_catching_panics(&engine, &wasm).with_context(|| {
            let hint = if common.backend == Backend::Singlepass {
                " (Singlepass has no SIMD support: use --backend cranelift or llvm, or build without -msimd128)"
            } else {
                ""
            };
            format!("cannot compile {}{hint}", path.display())
        })
    };
    let (module, outcome) = if common.no_cache {
        on_miss()?;
        (compile()?, None)
    } else {
        let cache = Cache::open(&cache::user_dir(common), common.trusted_cache.as_deref());
        let key = cache_key(&wasm, codegen, engine.target());
        let load = |bytes: Vec<u8>| -> Result<Module> {
            // Safety: the bytes passed the entry's checks: compiled for this
            // key (module, Wasmer, backend, CPU) and written either by this
            // user's embedder (MAC with the cache's secret) or into a
            // root-owned cache the user named as trusted.
            Ok(unsafe { Module::deserialize_unchecked(&engine, bytes) }?)
        };
        let (module, outcome) = cache.get_or_compile(&key, load, on_miss, || {
            let m = compile()?;
            let bytes = m.serialize().context("cannot serialize compiled module")?;
            Ok((m, bytes.to_vec()))
        })?;
        tracing::info!("{name}: {} ({})", outcome.describe(), cache.location(&key));
        (module, Some(outcome))
    };
    Ok(Loaded { engine, module, outcome, seconds: start.elapsed().as_secs_f64() })
}

/// `embedder compile`: fill the cache ahead of a job.
pub fn compile_command(common: &Common, args: &CompileArgs) -> Result<u8> {
    if common.no_cache {
        bail!("`embedder compile` fills the cache; it cannot be used with --no-cache");
    }
    let mut unstored = Vec::new();
    for path in &args.modules {
        let loaded = load(common, path)?;
        let what = loaded.outcome.map_or("compiled", |o| o.describe());
        crate::say!("{}: {what} ({} backend, {:.3} s)", path.display(), common.backend.name(), loaded.seconds);
        if !loaded.outcome.is_some_and(|o| o.stored()) {
            unstored.push(path.display().to_string());
        }
    }
    // a warm-up step that stored nothing must not pass: every rank would compile
    if !unstored.is_empty() {
        bail!(
            "nothing stored in the compile cache for {} (see the warning above); the job's ranks would each compile",
            unstored.join(", ")
        );
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_error_and_the_hook_is_restored() {
        let err = panic_as_error::<()>(|| panic!("Found FloatValue but expected the IntValue variant")).unwrap_err();
        assert!(format!("{err:#}").contains("expected the IntValue variant"), "{err:#}");
        assert_eq!(panic_as_error(|| Ok(7)).unwrap(), 7);
        // the default hook is back: a later panic is reported as usual
        assert!(std::panic::catch_unwind(|| panic!("x")).is_err());
    }

    #[test]
    fn cache_key_depends_on_module_backend_and_cpu() {
        let t = target();
        let llvm = Codegen::new(Backend::Llvm);
        let k = cache_key(b"\0asm\x01\0\0\0", llvm, &t);
        assert_eq!(k, cache_key(b"\0asm\x01\0\0\0", llvm, &t), "deterministic");
        assert_ne!(k, cache_key(b"\0asm\x01\0\0\0\0", llvm, &t), "module bytes");
        assert_ne!(k, cache_key(b"\0asm\x01\0\0\0", Codegen::new(Backend::Cranelift), &t), "backend");
        let strict = Codegen { strict_traps: true, ..llvm };
        assert_ne!(k, cache_key(b"\0asm\x01\0\0\0", strict, &t), "volatile accesses");
        let wrapping = Codegen { wrapping_addresses: true, ..llvm };
        assert_ne!(k, cache_key(b"\0asm\x01\0\0\0", wrapping, &t), "address arithmetic");
        let other_build = key_with_sources(b"\0asm\x01\0\0\0", llvm, &t, "another build's sources");
        assert_ne!(k, other_build, "code generator sources");
        let fewer = Target::new(Triple::host(), Default::default());
        if !t.cpu_features().is_empty() {
            assert_ne!(k, cache_key(b"\0asm\x01\0\0\0", llvm, &fewer), "cpu features");
        }
        let other = Target::new("aarch64-unknown-linux-gnu".parse().unwrap(), t.cpu_features().clone());
        assert_ne!(k, cache_key(b"\0asm\x01\0\0\0", llvm, &other), "triple");
    }
}
