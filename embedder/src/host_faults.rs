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
//!
//! SIGFPE and SIGILL carry no data address: there the instruction tells.
//! Guest code lies in the engine's anonymous code memory, host code in the
//! embedder's binary or a shared library (`dladdr` finds it): a division by
//! zero in the host MPI library (MPICH's `MPI_Dims_create` divided by a
//! product that overflowed to 0) or an instruction the CPU lacks (a library
//! built for another CPU) is reported as a host crash. Cranelift's guest
//! divisions by zero (the hardware's SIGFPE) and the engines' trap
//! instructions (SIGILL) stay traps.
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use crate::{segv_chain, shared_memory::format_hex};

/// The guest memory's reservation, `[START, END)` (0, 0: none yet).
static START: AtomicUsize = AtomicUsize::new(0);
static END: AtomicUsize = AtomicUsize::new(0);
/// The message's first part ("embedder: rank N: host code faulted ("),
/// leaked once.
static PREFIX: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static PREFIX_LEN: AtomicUsize = AtomicUsize::new(0);
/// The handlers that were in place before ours (Wasmer's), leaked once.
static PREVIOUS_SEGV: AtomicPtr<libc::sigaction> = AtomicPtr::new(std::ptr::null_mut());
static PREVIOUS_FPE: AtomicPtr<libc::sigaction> = AtomicPtr::new(std::ptr::null_mut());
static PREVIOUS_ILL: AtomicPtr<libc::sigaction> = AtomicPtr::new(std::ptr::null_mut());

/// Faults closer to the stack pointer than this are the stack's (an
/// overflow into the guard below it, which the engine reports).
const NEAR_STACK: usize = 1 << 20;

/// Installs the handlers for the guest memory reserved at `[start, start +
/// len)`, after the engine's (so that they run first); `who` begins the
/// message ("rank 3: " or nothing).
pub fn guard(start: *const u8, len: usize, who: &str) {
    START.store(start as usize, Ordering::Release);
    END.store(start as usize + len, Ordering::Release);
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let text: &'static mut [u8] = Box::leak(format!("embedder: {who}host code faulted (").into_bytes().into_boxed_slice());
        PREFIX_LEN.store(text.len(), Ordering::Release);
        PREFIX.store(text.as_mut_ptr(), Ordering::Release);
        segv_chain::install(libc::SIGSEGV, on_fault, &PREVIOUS_SEGV);
        segv_chain::install(libc::SIGFPE, on_instruction_fault, &PREVIOUS_FPE);
        segv_chain::install(libc::SIGILL, on_instruction_fault, &PREVIOUS_ILL);
    });
}

/// Whether a fault at `addr`, with the stack pointer at `sp` (None where
/// this target's context is not read), is host code's.
fn host_fault(addr: usize, sp: Option<usize>, (start, end): (usize, usize)) -> bool {
    let in_guest = start <= addr && addr < end;
    let at_stack = sp.map_or(true, |sp| addr.abs_diff(sp) < NEAR_STACK);
    start != 0 && !in_guest && !at_stack
}

/// Whether the instruction at `pc` is host code: in the embedder or a
/// shared library it loaded, not in the engine's code memory. `dladdr` is
/// not on POSIX's async-signal-safe list; glibc's takes the loader's lock,
/// which a fault inside the loader itself would hold.
fn host_instruction(pc: usize) -> bool {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // Safety: dladdr reads the loader's tables and fills `info`.
    pc != 0 && START.load(Ordering::Acquire) != 0 && unsafe { libc::dladdr(pc as *const libc::c_void, &mut info) } != 0 && !info.dli_fname.is_null()
}

extern "C" fn on_fault(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    // Safety: the kernel passes a valid siginfo and context; only atomics
    // and write(2) below (async-signal-safe).
    let addr = unsafe { (*info).si_addr() } as usize;
    let reserved = (START.load(Ordering::Acquire), END.load(Ordering::Acquire));
    if host_fault(addr, stack_pointer(context), reserved) {
        report(sig, b"SIGSEGV) at address ", addr, b", outside the guest's memory: a crash of the host MPI library or of the embedder, not of the guest\n");
        return;
    }
    // Safety: this handler's own arguments.
    unsafe { segv_chain::forward(&PREVIOUS_SEGV, sig, info, context) }
}

extern "C" fn on_instruction_fault(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    // Safety: the kernel's siginfo: for these signals, the faulting instruction.
    let pc = unsafe { (*info).si_addr() } as usize;
    let previous = if sig == libc::SIGFPE { &PREVIOUS_FPE } else { &PREVIOUS_ILL };
    if host_instruction(pc) {
        let what: &[u8] = if sig == libc::SIGFPE { b"SIGFPE: an arithmetic error) at instruction " } else { b"SIGILL: an instruction this CPU does not run) at instruction " };
        report(sig, what, pc, b", outside the guest's code: a crash of the host MPI library or of the embedder, not of the guest\n");
        return;
    }
    // Safety: this handler's own arguments.
    unsafe { segv_chain::forward(previous, sig, info, context) }
}

/// Writes the message and restores the default action: the instruction
/// faults again and ends the process, as natively.
fn report(sig: libc::c_int, what: &[u8], at: usize, rest: &[u8]) {
    let mut hex = [0u8; 32];
    let n = format_hex(at as u64, &mut hex);
    // one write, so that the ranks' lines do not interleave
    let mut line = [0u8; 512];
    let mut len = 0;
    let prefix = PREFIX.load(Ordering::Acquire);
    // Safety: the leaked prefix, PREFIX_LEN bytes long.
    let prefix = if prefix.is_null() { &[][..] } else { unsafe { std::slice::from_raw_parts(prefix, PREFIX_LEN.load(Ordering::Acquire)) } };
    for part in [prefix, what, &hex[..n], rest] {
        let take = part.len().min(line.len() - len);
        line[len..len + take].copy_from_slice(&part[..take]);
        len += take;
    }
    unsafe {
        libc::write(2, line.as_ptr() as *const libc::c_void, len);
        libc::signal(sig, libc::SIG_DFL);
    }
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

    #[test]
    fn instructions_of_the_embedder_and_its_libraries_are_the_hosts() {
        START.store(0x10_0000_0000, Ordering::Release);
        assert!(host_instruction(instructions_of_the_embedder_and_its_libraries_are_the_hosts as *const () as usize), "the embedder's");
        assert!(host_instruction(libc::write as *const () as usize), "libc's");
        // code the engine would compile lies in anonymous memory
        let anonymous = unsafe { libc::mmap(std::ptr::null_mut(), 4096, libc::PROT_READ | libc::PROT_EXEC, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
        assert!(!host_instruction(anonymous as usize + 16), "anonymous code memory");
        unsafe { libc::munmap(anonymous, 4096) };
        assert!(!host_instruction(0), "no instruction");
    }
}
