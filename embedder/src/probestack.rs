//! `__rust_probestack`, which wasmer-vm 4.4 links against on x86 and which
//! Rust 1.95's compiler-builtins no longer exports.
//!
//! LLVM-compiled guest code calls it before allocating a frame larger than a
//! page, with the frame size in `rax`. It must touch every 4 KiB page of the
//! new frame, top to bottom, so that a frame larger than the guard page still
//! hits the guard page (stack clash) instead of jumping over it into other
//! memory. It must preserve every register except r11 and leave rsp as it was.
//! Other architectures get inline probes from LLVM; wasmer-vm does not
//! reference this symbol there.

#[cfg(target_arch = "x86_64")]
std::arch::global_asm!(
    ".globl __rust_probestack",
    ".type __rust_probestack, @function",
    ".p2align 4",
    "__rust_probestack:",
    ".cfi_startproc",
    "push rbp",
    ".cfi_adjust_cfa_offset 8",
    ".cfi_offset rbp, -16",
    "mov rbp, rsp",
    ".cfi_def_cfa_register rbp",
    // r11 = bytes still to probe
    "mov r11, rax",
    "cmp r11, 0x1000",
    "jna 3f",
    "2:",
    "sub rsp, 0x1000",
    "test qword ptr [rsp + 8], rsp",
    "sub r11, 0x1000",
    "cmp r11, 0x1000",
    "ja 2b",
    "3:",
    // the last partial page
    "sub rsp, r11",
    "test qword ptr [rsp + 8], rsp",
    "add rsp, rax",
    "leave",
    ".cfi_def_cfa_register rsp",
    ".cfi_adjust_cfa_offset -8",
    "ret",
    ".cfi_endproc",
    ".size __rust_probestack, . - __rust_probestack",
);

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    extern "C" {
        fn __rust_probestack();
    }

    /// Calls the probe for `size` bytes and returns rsp before and after.
    fn probe(size: u64) -> (u64, u64) {
        let (before, after): (u64, u64);
        unsafe {
            std::arch::asm!(
                "mov r12, rsp",
                "call {f}",
                "mov r13, rsp",
                f = sym __rust_probestack,
                out("r12") before,
                out("r13") after,
                in("rax") size,
                out("r11") _,
                clobber_abi("C"),
            );
        }
        (before, after)
    }

    #[test]
    fn probes_large_frames_and_restores_the_stack_pointer() {
        // A thread with a known stack: probing 1 MiB of an 8 MiB stack works
        // and leaves rsp where it was.
        std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(|| {
                for size in [0u64, 8, 4096, 4097, 64 << 10, 1 << 20] {
                    let (before, after) = probe(size);
                    assert_eq!(before, after, "rsp moved after probing {size} bytes");
                }
            })
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn probing_past_the_guard_page_faults() {
        // The probe must really touch the pages: asking for more than the
        // thread's stack must hit the guard page and kill the child (Rust's
        // overflow handler turns the SIGSEGV into an abort), never return.
        let exe = std::env::current_exe().unwrap();
        if std::env::var_os("PROBESTACK_CHILD").is_some() {
            std::thread::Builder::new()
                .stack_size(256 << 10)
                .spawn(|| {
                    probe(64 << 20);
                })
                .unwrap()
                .join()
                .ok();
            std::process::exit(0);
        }
        let status = std::process::Command::new(exe)
            .args(["--exact", "probestack::tests::probing_past_the_guard_page_faults", "--nocapture"])
            .env("PROBESTACK_CHILD", "1")
            .status()
            .unwrap();
        use std::os::unix::process::ExitStatusExt;
        let sig = status.signal();
        assert!(matches!(sig, Some(libc::SIGSEGV | libc::SIGABRT | libc::SIGBUS)), "child status {status:?}");
    }
}
