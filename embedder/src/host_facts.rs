//! The import module `wasm_mpi_host`: facts about the host that a POSIX
//! HPC code asks for and WASI does not answer. The toolchain's compat
//! library (toolchain/compat/) calls these to implement `gethostname`,
//! `uname`'s node name, `sysconf(_SC_NPROCESSORS_*)` and
//! `sched_getaffinity`; a module imports one only when it calls the libc
//! function built on it, so modules that do not still run elsewhere.
//! Documented for guest authors in toolchain/README.md.
use wasmer::{Function, FunctionEnv, FunctionEnvMut, Imports, Store};

use crate::mpi::MpiEnv;

pub const MODULE: &str = "wasm_mpi_host";

/// The functions, for `embedder inspect`.
pub const FUNCTIONS: [&str; 2] = ["host_name", "cpu_count"];

pub fn register(store: &mut Store, env: &FunctionEnv<MpiEnv>, imports: &mut Imports) {
    imports.define(MODULE, "host_name", Function::new_typed_with_env(store, env, host_name));
    imports.define(MODULE, "cpu_count", Function::new_typed(store, cpu_count));
}

/// host_name(buf, len) -> i32: copies min(len, n) bytes of the host's name
/// (no NUL) to guest `buf` and returns n, its full length; -1 when the
/// buffer lies outside the guest memory (nothing is written).
fn host_name(env: FunctionEnvMut<MpiEnv>, buf: u32, len: u32) -> i32 {
    let name = this_host();
    let Some(memory) = env.data().memory() else { return -1 };
    let n = name.len().min(len as usize);
    match memory.view(&env).write(u64::from(buf), &name[..n]) {
        Ok(()) => name.len() as i32,
        Err(_) => -1,
    }
}

/// The node name uname(2) gives, which is what gethostname(2) returns.
fn this_host() -> Vec<u8> {
    // Safety: utsname is plain data that uname fills.
    let mut uts: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut uts) } != 0 {
        return b"localhost".to_vec();
    }
    uts.nodename.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect()
}

/// cpu_count(kind) -> i32: what a native process on this host would get
/// for kind 0, `sysconf(_SC_NPROCESSORS_ONLN)`; 1, `sysconf(_SC_NPROCESSORS_CONF)`;
/// 2, the CPUs in its affinity mask (`CPU_COUNT` of `sched_getaffinity`),
/// which a launcher's binding narrows. -1 for another kind or a failure.
fn cpu_count(kind: i32) -> i32 {
    let n = match kind {
        0 => unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) },
        1 => unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) },
        2 => {
            // Safety: cpu_set_t is plain data that sched_getaffinity fills.
            let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
            if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } != 0 {
                return -1;
            }
            // Safety: set was filled above.
            libc::c_long::from(unsafe { libc::CPU_COUNT(&set) })
        }
        _ => return -1,
    };
    if n < 1 { -1 } else { n.min(i32::MAX as libc::c_long) as i32 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_name_is_the_kernels_node_name() {
        let mut buf = [0u8; 256];
        assert_eq!(unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) }, 0);
        let expected: Vec<u8> = buf.iter().take_while(|&&c| c != 0).copied().collect();
        assert_eq!(this_host(), expected);
        for kind in 0..3 {
            assert!(cpu_count(kind) >= 1, "kind {kind}");
        }
        assert!(cpu_count(2) <= cpu_count(1));
        assert_eq!(cpu_count(3), -1);
    }
}
