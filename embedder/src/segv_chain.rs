//! Fault handlers of the embedder's (SIGSEGV, SIGFPE, SIGILL) that run
//! before the engine's: each is installed on top of the handler in place,
//! and hands the faults it does not end itself on to that one (`forward`).
use std::sync::atomic::{AtomicPtr, Ordering};

pub type Handler = extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void);

/// Installs `handler` for `signal` and keeps the action it replaces in
/// `previous` (a leaked box), for `forward`.
pub fn install(signal: libc::c_int, handler: Handler, previous: &AtomicPtr<libc::sigaction>) {
    // Safety: sigaction with a zeroed action filled in; the old action
    // goes to a box that lives for the process.
    unsafe {
        let mut ours: libc::sigaction = std::mem::zeroed();
        ours.sa_sigaction = handler as *const () as usize;
        ours.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_NODEFER;
        libc::sigemptyset(&mut ours.sa_mask);
        let old: *mut libc::sigaction = Box::into_raw(Box::new(std::mem::zeroed()));
        if libc::sigaction(signal, &ours, old) == 0 {
            previous.store(old, Ordering::Release);
        }
    }
}

/// Hands a fault to the action `install` replaced; where that was the
/// default (or nothing was kept), puts the default back, so that the
/// faulting instruction faults again and ends the process.
///
/// Safety: the arguments of the signal handler calling it.
pub unsafe fn forward(previous: &AtomicPtr<libc::sigaction>, sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    let p = previous.load(Ordering::Acquire);
    if p.is_null() {
        libc::signal(sig, libc::SIG_DFL);
        return;
    }
    let p = &*p;
    if p.sa_flags & libc::SA_SIGINFO != 0 && p.sa_sigaction > 1 {
        let f: Handler = std::mem::transmute(p.sa_sigaction);
        f(sig, info, context);
    } else if p.sa_sigaction > 1 {
        let f: extern "C" fn(libc::c_int) = std::mem::transmute(p.sa_sigaction);
        f(sig);
    } else {
        libc::signal(sig, libc::SIG_DFL);
    }
}
