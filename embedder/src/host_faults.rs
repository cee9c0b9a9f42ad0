//! Faults in host code while the guest runs: reported as host crashes, not
//! as guest traps.
//!
//! Wasmer's signal handler takes any SIGSEGV on a thread whose stack
//! pointer lies in the Wasm stack for a trap of the Wasm code. Host
//! functions run on the Wasm stack (patches/README.md, wasmer-vm), so a
//! fault inside the host MPI library during a bridge call (Open MPI 5
//! dereferenced a peer at index MPI_PROC_NULL in `MPI_Win_flush_local`)
//! ended the job as "guest trapped: out of bounds memory access": the job
//! ended, but as if the guest had erred, and the MPI-call fuzzer counted it
//! as a guest ending. What tells the two apart is the address: every access
//! of the guest's code lands in its memory's reservation
//! (`reservation.rs`), and a host function that stores into a protected
//! page of it (a receive into a read-only Karmem region, the engine's
//! `memory.fill`) faults there too, which stays a trap. A fault elsewhere,
//! and not at the stack (a stack overflow of Wasm code, which stays a
//! trap), is host code's: the handler says so and the process dies of the
//! signal, as the native program would.
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use crate::{segv_chain, shared_memory::format_hex};

/// The guest memory's reservation, `[START, END)` (0, 0: none yet).
static START: AtomicUsize = AtomicUsize::new(0);
static END: AtomicUsize = AtomicUsize::new(0);
/// The message's first part ("embedder: rank N: "...), leaked once.
static PREFIX: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static PREFIX_LEN: AtomicUsize = AtomicUsize::new(0);
/// The handler that was in place before ours (Wasmer's), leaked once.
static PREVIOUS: AtomicPtr<libc::sigaction> = AtomicPtr::new(std::ptr::null_mut());

/// Faults closer to the stack pointer than this are the stack's (an
/// overflow into the guard below it, which the engine reports).
const NEAR_STACK: usize = 1 << 20;

/// Installs the handler for the guest memory reserved at `[start, start +
/// len)`, after the engine's (so that it runs first); `who` begins the
/// message ("rank 3: " or nothing).
pub fn guard(start: *const u8, len: usize, who: &str) {
    START.store(start as usize, Ordering::Release);
    END.store(start as usize + len, Ordering::Release);
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let text: &'static mut [u8] = Box::leak(format!("embedder: {who}host code faulted (SIGSEGV) at address ").into_bytes().into_boxed_slice());
        PREFIX_LEN.store(text.len(), Ordering::Release);
        PREFIX.store(text.as_mut_ptr(), Ordering::Release);
        segv_chain::install(on_fault, &PREVIOUS);
    });
}

/// Whether a fault at `addr`, with the stack pointer at `sp` (None where
/// this target's context is not read), is host code's.
fn host_fault(addr: usize, sp: Option<usize>, (start, end): (usize, usize)) -> bool {
    let in_guest = start <= addr && addr < end;
    let at_stack = sp.map_or(true, |sp| addr.abs_diff(sp) < NEAR_STACK);
    start != 0 && !in_guest && !at_stack
}

extern "C" fn on_fault(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    // Safety: the kernel passes a valid siginfo and context; only atomics
    // and write(2) below (async-signal-safe).
    let addr = unsafe { (*info).si_addr() } as usize;
    let reserved = (START.load(Ordering::Acquire), END.load(Ordering::Acquire));
    if host_fault(addr, stack_pointer(context), reserved) {
        const REST: &[u8] = b", outside the guest's memory: a crash of the host MPI library or of the embedder, not of the guest\n";
        let mut hex = [0u8; 32];
        let n = format_hex(addr as u64, &mut hex);
        // one write, so that the ranks' lines do not interleave
        let mut line = [0u8; 512];
        let mut len = 0;
        let prefix = PREFIX.load(Ordering::Acquire);
        // Safety: the leaked prefix, PREFIX_LEN bytes long.
        let prefix = if prefix.is_null() { &[][..] } else { unsafe { std::slice::from_raw_parts(prefix, PREFIX_LEN.load(Ordering::Acquire)) } };
        for part in [prefix, &hex[..n], REST] {
            let take = part.len().min(line.len() - len);
            line[len..len + take].copy_from_slice(&part[..take]);
            len += take;
        }
        unsafe {
            libc::write(2, line.as_ptr() as *const libc::c_void, len);
            // the default action: the store faults again and ends the process
            libc::signal(sig, libc::SIG_DFL);
        }
        return;
    }
    // Safety: this handler's own arguments.
    unsafe { segv_chain::forward(&PREVIOUS, sig, info, context) }
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn stack_pointer(context: *mut libc::c_void) -> Option<usize> {
    // Safety: the kernel's ucontext for this signal.
    Some(unsafe { (*(context as *const libc::ucontext_t)).uc_mcontext.gregs[libc::REG_RSP as usize] } as usize)
}

#[cfg(all(target_os = "linux", target_arch = "aarch64"))]
fn stack_pointer(context: *mut libc::c_void) -> Option<usize> {
    // Safety: the kernel's ucontext for this signal.
    Some(unsafe { (*(context as *const libc::ucontext_t)).uc_mcontext.sp } as usize)
}

#[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"))))]
fn stack_pointer(_context: *mut libc::c_void) -> Option<usize> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_faults_outside_the_memory_and_away_from_the_stack_are_the_hosts() {
        let reserved = (0x10_0000_0000, 0x12_0000_0000);
        let sp = Some(0x7fff_0000_0000);
        assert!(host_fault(0x10, sp, reserved), "a null pointer's field");
        assert!(!host_fault(0x10_0000_1000, sp, reserved), "the guest's memory, a protected page of it");
        assert!(!host_fault(0x11_ffff_fff0, sp, reserved), "the guard at the reservation's end");
        assert!(host_fault(0x12_0000_0000, sp, reserved), "one past the reservation");
        assert!(!host_fault(0x7fff_0000_0000 - 4096, sp, reserved), "the stack's guard: an overflow");
        assert!(!host_fault(0x10, None, reserved), "no stack pointer: left to the engine");
        assert!(!host_fault(0x10, sp, (0, 0)), "no memory yet");
    }
}
