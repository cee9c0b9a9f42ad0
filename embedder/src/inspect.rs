//! `embedder inspect`: a module's imports and whether the embedder provides
//! them; `--provided` lists the MPI functions the embedder implements.
use anyhow::{Context, Result};
use wasmer::wasmparser::{Parser, Payload, TypeRef};

use crate::{cli::{Common, InspectArgs}, mpi};

pub fn inspect_command(_common: &Common, args: &InspectArgs) -> Result<u8> {
    if args.mpi {
        match crate::host_mpi::describe() {
            Ok(text) => print!("{text}"),
            Err(e) => anyhow::bail!(e),
        }
        if args.module.is_none() && !args.provided {
            return Ok(0);
        }
    }
    if args.provided {
        // name, family, how it is implemented, and whether the host MPI
        // library that would be loaded here has it
        let host = crate::host_mpi::host_functions();
        let rows = mpi::inventory();
        for (name, family, generated) in rows {
            let how = if *generated { "generated" } else { "hand-written" };
            let on_host = match &host {
                _ if mpi::needs_no_host_function(name) => "host: not needed",
                Ok(h) if h.contains(name) => "host: yes",
                Ok(_) => "host: NO",
                Err(_) => "host: no library",
            };
            println!("{name}\t{family}\t{how}\t{on_host}");
        }
        // the other import modules: made by the embedder, no host function
        for name in mpi::karmem::FUNCTIONS {
            println!("{}.{name}\tkarmem\thand-written\thost: not needed", mpi::karmem::MODULE);
        }
        for name in crate::host_facts::FUNCTIONS {
            println!("{}.{name}\thost facts\thand-written\thost: not needed", crate::host_facts::MODULE);
        }
        crate::say!("{} MPI functions implemented", rows.len());
        if let Ok(h) = &host {
            let absent = rows.iter().filter(|(n, _, _)| !h.contains(n) && !mpi::needs_no_host_function(n)).count();
            crate::say!("{absent} of them not in the host library {}", crate::host_mpi::library::loaded().path);
        }
        if args.module.is_none() {
            return Ok(0);
        }
    }
    let path = args.module.as_ref().expect("clap requires MODULE without --provided");
    let wasm = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let imports = imports(&wasm).with_context(|| format!("{} is not a valid WebAssembly module", path.display()))?;
    let provided = mpi::provided();
    let mut unsupported = 0;
    for (module, name, is_func) in &imports {
        let status = if module.starts_with("wasi") {
            "WASI"
        } else if module == crate::host_facts::MODULE && crate::host_facts::FUNCTIONS.contains(&name.as_str()) {
            "provided (host facts)"
        } else if module == mpi::karmem::MODULE && mpi::karmem::FUNCTIONS.contains(&name.as_str()) {
            "provided (Karmem regions)"
        } else if module == "env" && provided.contains(&name.trim_start_matches('P')) {
            "provided"
        } else if *is_func && mpi::is_mpi_import(module, name) {
            unsupported += 1;
            "NOT SUPPORTED (ends the job if called)"
        } else {
            unsupported += 1;
            "MISSING (the module will not instantiate)"
        };
        println!("{module}.{name}\t{status}");
    }
    crate::say!("{} imports, {} not provided", imports.len(), unsupported);
    Ok(0)
}

/// (module, name, is a function) of every import.
fn imports(wasm: &[u8]) -> Result<Vec<(String, String, bool)>> {
    let mut out = Vec::new();
    for payload in Parser::new(0).parse_all(wasm) {
        if let Payload::ImportSection(reader) = payload? {
            for import in reader {
                let import = import?;
                out.push((import.module.to_string(), import.name.to_string(), matches!(import.ty, TypeRef::Func(_))));
            }
        }
    }
    Ok(out)
}
