//! `EMBEDDER_LLVM_DUMP=DIR`: what the LLVM backend made of each function, for
//! reading the generated code (`llvm-objdump -d DIR/local12.o`). Per defined
//! function (index among the module's own functions, imports not counted):
//! the optimized IR (`local<N>.ll`) and the object file (`local<N>.o`).
//! Needs `--no-cache` or a cold cache: a cached module is not compiled.
use std::{fmt, path::PathBuf, sync::Arc};

use wasmer_compiler_llvm::{CompiledKind, InkwellMemoryBuffer, InkwellModule, LLVMCallbacks};

pub struct Dump(PathBuf);

impl fmt::Debug for Dump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Dump({})", self.0.display())
    }
}

/// The callbacks when the variable names a directory (created if missing).
pub fn from_env() -> Option<Arc<dyn LLVMCallbacks>> {
    let dir = PathBuf::from(std::env::var_os("EMBEDDER_LLVM_DUMP")?);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        tracing::warn!("EMBEDDER_LLVM_DUMP: cannot create {}: {e}", dir.display());
        return None;
    }
    Some(Arc::new(Dump(dir)))
}

impl Dump {
    fn path(&self, kind: &CompiledKind, ext: &str) -> Option<PathBuf> {
        match kind {
            CompiledKind::Local(i) => Some(self.0.join(format!("local{}.{ext}", i.as_u32()))),
            _ => None, // trampolines: Wasmer's, not the program's
        }
    }
}

impl LLVMCallbacks for Dump {
    fn preopt_ir(&self, _: &CompiledKind, _: &InkwellModule) {}

    fn postopt_ir(&self, kind: &CompiledKind, module: &InkwellModule) {
        if let Some(p) = self.path(kind, "ll") {
            if let Err(e) = module.print_to_file(&p) {
                tracing::warn!("EMBEDDER_LLVM_DUMP: {}: {e}", p.display());
            }
        }
    }

    fn obj_memory_buffer(&self, kind: &CompiledKind, buffer: &InkwellMemoryBuffer) {
        if let Some(p) = self.path(kind, "o") {
            if let Err(e) = std::fs::write(&p, buffer.as_slice()) {
                tracing::warn!("EMBEDDER_LLVM_DUMP: {}: {e}", p.display());
            }
        }
    }
}
