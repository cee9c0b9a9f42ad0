//! Running a module: instantiate with WASI and the MPI bridge, call
//! `_start`, and turn how the guest ended into the process's exit code.
//! A trap or a fatal MPI error on any rank aborts the whole job.
use std::{io::Write, time::Instant};

use anyhow::{bail, Context, Result};
use wasmer::{sys::NativeEngineExt, ExternType, FunctionEnv, Imports, RuntimeError, Store};
use wasmer_wasix::{wasmer_wasix_types::wasi::ExitCode, WasiError};

use crate::{
    cli::{Common, RunArgs},
    engine, host_facts, host_mpi,
    mpi::{self, Fatal, MpiEnv, TRAP_EXIT},
    rank, reservation, wasi,
};


pub fn run(common: &Common, args: RunArgs) -> Result<u8> {
    // Load the MPI library before the engine exists: libraries that install
    // signal handlers when loaded (MPICH's UCX) must do so before Wasmer's,
    // whose handler turns a guest's fault into a trap and passes the rest on
    // (as when the library was linked). A library that cannot serve ends
    // every rank here, before any compile.
    crate::host_mpi::library::loaded();
    let path = args.module();
    let loaded = engine::load(common, &path)?;

    let t_inst = Instant::now();
    // WASIX schedules its I/O on a tokio runtime; one worker is plenty.
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build()?;
    let _enter = runtime.enter();
    let mut store = Store::new(loaded.engine.clone());

    // the guest's argv as WASI gives it: the module's file name, then its arguments
    let program = path.file_name().map_or(b"main.wasm".to_vec(), |n| n.as_encoded_bytes().to_vec());
    let guest_args = std::iter::once(program).chain(args.args().iter().map(|a| a.as_encoded_bytes().to_vec())).collect();
    let mpi_env = FunctionEnv::new(&mut store, MpiEnv::with_args(guest_args));
    let mut imports = Imports::new();
    mpi::register(&mut store, &mpi_env, &mut imports);
    host_facts::register(&mut store, &mpi_env, &mut imports);
    mpi::karmem::register(&mut store, &mpi_env, &mut imports);
    let mut missing = Vec::new();
    for import in loaded.module.imports() {
        let (ns, name) = (import.module(), import.name());
        if imports.exists(ns, name) || ns.starts_with("wasi") {
            continue;
        }
        match import.ty() {
            ExternType::Function(ty) if mpi::is_mpi_import(ns, name) => {
                imports.define(ns, name, mpi::unsupported_stub(&mut store, name, ty));
            }
            _ => missing.push(format!("{ns}.{name}")),
        }
    }
    if !missing.is_empty() {
        bail!(
            "{} imports {} that the embedder does not provide: {}",
            path.display(),
            if missing.len() == 1 { "a symbol" } else { "symbols" },
            missing.join(", ")
        );
    }

    let (builder, preopens) = wasi::builder(&path, &args, &crate::cache::out_of_guest_reach(common))?;
    mpi_env.as_mut(&mut store).set_preopens(preopens);
    let builder = builder.imports(&imports);
    let (instance, wasi_env) =
        builder.instantiate(loaded.module.clone(), &mut store).with_context(|| format!("cannot instantiate {}", path.display()))?;
    let memory = instance.exports.get_memory("memory").context("the module exports no memory")?.clone();
    // Every memory was created through the engine's SandboxTunables, which
    // refuse a reservation that falls short; say so once more here, where
    // the bridge starts to rely on it.
    if let Some(why) = reservation::shortfall(&loaded.engine.tunables().memory_style(&memory.ty(&store))) {
        bail!("refusing to run: the guest memory would be {why}");
    }
    let exports = &instance.exports;
    let (malloc, free) = (exports.get_function("malloc").ok().cloned(), exports.get_function("free").ok().cloned());
    let table = exports.get_table("__indirect_function_table").ok().cloned();
    let base = memory.view(&store).data_ptr();
    if args.huge_pages {
        if let Err(e) = reservation::advise_huge_pages(base) {
            crate::say!("embedder: warning: --huge-pages: the kernel refused huge pages for the guest memory ({e}); running on base pages");
        }
    }
    // after the engine's handler, so that ours sees a fault first
    crate::host_faults::guard(base, reservation::RESERVED_BYTES as usize, &rank::launcher_rank().map_or(String::new(), |r| format!("rank {r}: ")));
    let fns = mpi::GuestFns::new(table, malloc, free, memory, &mut store);
    mpi_env.as_mut(&mut store).attach(fns);
    let start = instance.exports.get_function("_start").context("the module has no _start (is it a WASI command?)")?;
    let inst_seconds = t_inst.elapsed().as_secs_f64();

    let t_run = Instant::now();
    let installed = mpi::install(&mpi_env, &mut store);
    let result = start.call(&mut store, &[]);
    drop(installed);
    let run_seconds = t_run.elapsed().as_secs_f64();
    let code = exit_code(result);
    let _ = std::io::stdout().flush();
    wasi_env.on_exit(&mut store, Some(ExitCode::Other(code)));

    if common.timings {
        let how = loaded.outcome.map_or("compiled, not cached", |o| o.describe());
        crate::say!(
            "embedder: timings{}: load {:.3} s ({how}, {} backend), instantiate {:.3} s, run {:.3} s",
            rank::launcher_rank().map_or(String::new(), |r| format!(" rank {r}")),
            loaded.seconds,
            common.backend.name(),
            inst_seconds,
            run_seconds
        );
    }
    Ok(code.clamp(0, 255) as u8)
}

/// The guest's exit code; a trap or fatal error is reported and, if MPI is
/// running, ends the whole job through MPI_Abort.
fn exit_code(result: Result<Box<[wasmer::Value]>, RuntimeError>) -> i32 {
    let err = match result {
        Ok(_) => return 0,
        Err(e) => e,
    };
    if let Some(WasiError::Exit(code)) = err.downcast_ref::<WasiError>() {
        return code.raw();
    }
    let who = rank::launcher_rank().map_or(String::new(), |r| format!("rank {r}: "));
    let code = match Fatal::from_trap(err) {
        Ok(fatal) => {
            crate::say!("embedder: {who}{fatal}");
            fatal.exit_code()
        }
        Err(err) => {
            crate::say!("embedder: {who}guest trapped: {}", err.message());
            for frame in err.trace() {
                let func = frame.function_name().map_or_else(|| format!("func[{}]", frame.func_index()), str::to_string);
                crate::say!("    at {func} ({}[{}]:{:#x})", frame.module_name(), frame.func_index(), frame.module_offset());
            }
            TRAP_EXIT
        }
    };
    let _ = std::io::stdout().flush();
    if host_mpi::active() {
        host_mpi::abort(host_mpi::constants().comm_world, code);
    }
    code
}
