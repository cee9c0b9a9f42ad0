//! Calling guest functions from the host.
//!
//! A guest callback (reduction function, error handler, attribute copy or
//! delete function) is an index into the module's exported function table.
//! Error handlers and attribute callbacks are called by the bridge between
//! host calls, with nothing borrowed. User reduction functions are called by
//! the host MPI in the middle of a collective: the host call is made inside
//! `call::call`, which publishes its store here (`Active`) so that the
//! trampolines in `op.rs` can reach the guest; such a function may not call
//! MPI again (only MPI_Abort), which `reentry_forbidden` enforces.
use std::cell::Cell;

use wasmer::{AsStoreMut, Function, Memory, StoreMut, Table, Type, Value};
use wasmer_vm::VMExtern;

use super::errors::{Fatal, FatalKind, MpiError};
use crate::{abi, guest_memory::GuestMemory};

/// The guest exports callbacks need; shared read-only with the trampolines
/// (which must not touch `MpiEnv` while the bridge holds it).
pub struct GuestFns {
    pub table: Option<Table>,
    pub malloc: Option<Function>,
    pub free: Option<Function>,
    pub memory: Memory,
    pub base: *mut u8,
    /// The memory's current size in bytes, where the engine keeps it (its
    /// VMMemoryDefinition, fixed for the memory's life; `memory.grow`
    /// updates it): each call's `GuestMemory` reads it from here.
    length: *const usize,
    /// A guest buffer kept for user reductions (address, capacity).
    scratch: Cell<(u32, u32)>,
}

/// Why a guest callback could not run or did not finish.
#[derive(Debug)]
pub enum CallbackError {
    Invalid(String),
    Trap(wasmer::RuntimeError),
}

impl std::fmt::Display for CallbackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallbackError::Invalid(d) => f.write_str(d),
            CallbackError::Trap(e) => write!(f, "trapped: {}", e.message()),
        }
    }
}

impl CallbackError {
    /// As an MPI error (an invalid callback) or the end of the job (a trap).
    /// The end of the job a nested MPI call already decided (a fatal error
    /// inside a guest error handler) passes through unchanged.
    pub fn into_fatal(self, function: &'static str) -> Fatal {
        match self {
            CallbackError::Invalid(detail) => FatalKind::Mpi { function, class: abi::c::MPI_ERR_ARG, detail }.into(),
            CallbackError::Trap(e) => match Fatal::from_trap(e) {
                Ok(fatal) => fatal,
                Err(e) => match e.downcast::<TooDeep>() {
                    Ok(TooDeep) => FatalKind::Mpi {
                        function,
                        class: abi::c::MPI_ERR_OTHER,
                        detail: format!("guest callbacks nested {MAX_NESTING} deep (an error handler or attribute callback that keeps raising errors or calling MPI)"),
                    }
                    .into(),
                    Err(e) => FatalKind::Callback { function, detail: e.message() }.into(),
                },
            },
        }
    }
}

/// How deep guest callbacks (error handlers, attribute callbacks) may nest:
/// each level is an MPI call on the host stack, so a handler that raises an
/// error on its own communicator would otherwise overflow it.
pub const MAX_NESTING: u32 = 16;

/// A guest callback was called `MAX_NESTING` levels deep.
#[derive(Debug)]
struct TooDeep;

impl std::fmt::Display for TooDeep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "guest callbacks nested {MAX_NESTING} deep")
    }
}

impl std::error::Error for TooDeep {}

/// One level of guest callback nesting (left when dropped).
struct Nesting;

impl Nesting {
    fn enter() -> Result<Self, CallbackError> {
        let depth = NESTING.with(|d| d.get());
        if depth >= MAX_NESTING {
            return Err(CallbackError::Trap(wasmer::RuntimeError::user(Box::new(TooDeep))));
        }
        NESTING.with(|d| d.set(depth + 1));
        Ok(Nesting)
    }
}

impl Drop for Nesting {
    fn drop(&mut self) {
        NESTING.with(|d| d.set(d.get() - 1));
    }
}

impl GuestFns {
    pub fn new(table: Option<Table>, malloc: Option<Function>, free: Option<Function>, memory: Memory, store: &mut impl AsStoreMut) -> Self {
        let VMExtern::Memory(handle) = wasmer::Extern::Memory(memory.clone()).to_vm_extern() else {
            unreachable!("a memory's extern is a memory")
        };
        let definition = wasmer_vm::LinearMemory::vmmemory(handle.get(store.objects_mut())).as_ptr();
        // Safety: the definition lives as long as the memory, which `memory` keeps.
        let (base, length) = unsafe { ((*definition).base, std::ptr::addr_of!((*definition).current_length)) };
        Self { table, malloc, free, memory, base, length, scratch: Cell::new((0, 0)) }
    }

    /// Where the memory's current size in bytes is (`GuestMemory::new`).
    #[inline]
    pub fn length(&self) -> *const usize {
        self.length
    }

    /// The guest function at table index `index`.
    pub fn function(&self, store: &mut impl AsStoreMut, index: u32) -> Result<Function, CallbackError> {
        let table = self
            .table
            .as_ref()
            .ok_or_else(|| CallbackError::Invalid("the module exports no function table (build it with wasm-mpicc)".into()))?;
        match table.get(store, index) {
            Some(Value::FuncRef(Some(f))) => Ok(f),
            _ => Err(CallbackError::Invalid(format!("{index:#x} is not a guest function"))),
        }
    }

    /// Checks that table index `index` is a function taking `params` i32
    /// arguments (or one fewer: C handlers declared without their `...`)
    /// and returning `results` i32 values.
    pub fn check_signature(&self, store: &mut impl AsStoreMut, index: u32, params: usize, results: usize) -> Result<(), CallbackError> {
        let f = self.function(store, index)?;
        let ty = f.ty(store);
        let ints = |ts: &[Type]| ts.iter().all(|t| *t == Type::I32);
        let n = ty.params().len();
        if ints(ty.params()) && ints(ty.results()) && ty.results().len() == results && (n == params || n + 1 == params) {
            return Ok(());
        }
        Err(CallbackError::Invalid(format!("guest function {index:#x} has type {ty}, not a callback of {params} pointer/int arguments")))
    }

    /// Calls the guest function at `index` with the first arguments it takes.
    pub fn call(&self, store: &mut impl AsStoreMut, index: u32, args: &[i32]) -> Result<Option<i32>, CallbackError> {
        let f = self.function(store, index)?;
        let n = f.ty(store).params().len().min(args.len());
        let args: Vec<Value> = args[..n].iter().map(|&a| Value::I32(a)).collect();
        let _level = Nesting::enter()?;
        let out = f.call(store, &args).map_err(CallbackError::Trap)?;
        Ok(out.first().and_then(Value::i32))
    }

    /// `len` bytes of fresh guest memory (guest malloc); free with `release`.
    /// The guest's malloc is guest code: the host writes into what it
    /// returns only after checking that every byte lies inside the memory.
    pub fn alloc(&self, store: &mut impl AsStoreMut, len: u32) -> Result<u32, CallbackError> {
        let malloc = self.malloc.as_ref().ok_or_else(|| CallbackError::Invalid("the module exports no malloc (build it with wasm-mpicc)".into()))?;
        let len = len.max(1);
        let out = malloc.call(store, &[Value::I32(len as i32)]).map_err(CallbackError::Trap)?;
        match out.first().and_then(Value::i32) {
            Some(addr) if addr != 0 => {
                let addr = addr as u32;
                let inside = self.view(store).range(addr, len as u64);
                inside.map_err(|e| CallbackError::Invalid(format!("guest malloc({len}) returned {addr:#x}: {e}")))?;
                Ok(addr)
            }
            _ => Err(CallbackError::Invalid(format!("guest malloc({len}) failed"))),
        }
    }

    pub fn release(&self, store: &mut impl AsStoreMut, addr: u32) -> Result<(), CallbackError> {
        if let Some(free) = &self.free {
            free.call(store, &[Value::I32(addr as i32)]).map_err(CallbackError::Trap)?;
        }
        Ok(())
    }

    /// A guest buffer of at least `len` bytes, reused across calls (only
    /// for work that ends before the bridge returns to the guest).
    pub fn scratch(&self, store: &mut impl AsStoreMut, len: u32) -> Result<u32, CallbackError> {
        let (addr, cap) = self.scratch.get();
        if cap >= len && addr != 0 {
            return Ok(addr);
        }
        if addr != 0 {
            self.release(store, addr)?;
            self.scratch.set((0, 0));
        }
        let cap = len.max(256).next_power_of_two();
        let addr = self.alloc(store, cap)?;
        self.scratch.set((addr, cap));
        Ok(addr)
    }

    /// The guest int at `addr`, if it lies inside the memory.
    pub fn read_i32(&self, store: &impl wasmer::AsStoreRef, addr: u32) -> Option<i32> {
        self.view(store).read_i32(addr).ok()
    }

    /// The guest memory at its current size; take a new view after calling
    /// the guest (it may have grown the memory).
    pub fn view(&self, store: &impl wasmer::AsStoreRef) -> GuestMemory<'static> {
        // Safety: `base` is the memory's fixed base (static memory style)
        // and the memory has at least its current size until the store ends.
        unsafe { GuestMemory::from_raw(self.base, self.memory_size(store)) }
    }

    /// The current size of the guest memory in bytes (the engine's record,
    /// as each call's `GuestMemory` reads it); `_store` holds the memory.
    pub fn memory_size(&self, _store: &impl wasmer::AsStoreRef) -> u64 {
        // Safety: the record lives as long as the memory, which the store keeps.
        unsafe { self.length.read() as u64 }
    }
}

thread_local! {
    /// The store and guest exports of the MPI call in progress on this
    /// thread (null outside calls).
    static ACTIVE: Cell<(*mut (), *const GuestFns)> = const { Cell::new((std::ptr::null_mut(), std::ptr::null())) };
    /// How many guest callbacks are running, one inside the other.
    static NESTING: Cell<u32> = const { Cell::new(0) };
    /// Set while a user reduction function runs.
    static IN_USER_FUNCTION: Cell<bool> = const { Cell::new(false) };
}

/// Publishes the store of the MPI call in progress for the trampolines;
/// restores the previous one when dropped.
pub struct Active {
    previous: (*mut (), *const GuestFns),
}

impl Active {
    #[inline]
    pub fn enter(store: *mut StoreMut<'_>, fns: *const GuestFns) -> Self {
        Self { previous: ACTIVE.with(|a| a.replace((store as *mut (), fns))) }
    }
}

impl Drop for Active {
    #[inline]
    fn drop(&mut self) {
        ACTIVE.with(|a| a.set(self.previous));
    }
}

/// Runs `f` with the store and guest exports of the MPI call in progress,
/// marking that a user function runs; `None` outside any MPI call.
pub fn with_active<R>(f: impl FnOnce(&mut StoreMut<'_>, &GuestFns) -> R) -> Option<R> {
    let (store, fns) = ACTIVE.with(Cell::get);
    if store.is_null() || fns.is_null() {
        return None;
    }
    IN_USER_FUNCTION.with(|c| c.set(true));
    // Safety: both were published by the `call` on this thread's stack,
    // which is blocked in the host MPI call that invoked us.
    let r = unsafe { f(&mut *(store as *mut StoreMut<'_>), &*fns) };
    IN_USER_FUNCTION.with(|c| c.set(false));
    Some(r)
}

/// MPI functions may not be called from a user reduction function (the
/// bridge is in the middle of the call that runs it).
#[inline]
pub fn reentry_forbidden(function: &'static str) -> Result<(), Fatal> {
    if IN_USER_FUNCTION.with(Cell::get) {
        return Err(FatalKind::Mpi {
            function,
            class: abi::c::MPI_ERR_OTHER,
            detail: "MPI functions other than MPI_Abort cannot be called from a user reduction function".into(),
        }
        .into());
    }
    Ok(())
}

pub fn in_user_function() -> bool {
    IN_USER_FUNCTION.with(Cell::get)
}

impl From<CallbackError> for MpiError {
    fn from(e: CallbackError) -> Self {
        match e {
            CallbackError::Invalid(d) => MpiError::new(abi::c::MPI_ERR_ARG, d),
            CallbackError::Trap(t) => MpiError::new(abi::c::MPI_ERR_OTHER, Fatal::trap_message(t)),
        }
    }
}

/// Guest functions called from the host, against a real instance.
#[cfg(test)]
mod guest_fn_tests {
    use super::*;
    use wasmer::{imports, Instance, Module, Store};

    /// A guest with a function table: 0 `(i32, i32) -> i32` adds, 1 takes an
    /// f64, 2 traps, 3 is empty; one page of memory.
    fn guest() -> (Store, GuestFns) {
        let mut store = Store::new(wasmer::Singlepass::new());
        let wat = r#"(module
            (memory (export "memory") 1)
            (table (export "table") 4 funcref)
            (func $add (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
            (func $float (param f64) (result i32) (i32.const 0))
            (func $trap (param i32) (result i32) unreachable)
            (elem (i32.const 0) $add $float $trap))"#;
        let module = Module::new(&store, wat).unwrap();
        let instance = Instance::new(&mut store, &module, &imports! {}).unwrap();
        let memory = instance.exports.get_memory("memory").unwrap().clone();
        let table = instance.exports.get_table("table").unwrap().clone();
        let fns = GuestFns::new(Some(table), None, None, memory, &mut store);
        (store, fns)
    }

    fn invalid(r: Result<impl std::fmt::Debug, CallbackError>) -> String {
        match r {
            Err(CallbackError::Invalid(d)) => d,
            other => panic!("expected an invalid callback, got {other:?}"),
        }
    }

    #[test]
    fn callbacks_are_checked_against_the_table_and_their_signature() {
        let (mut store, fns) = guest();
        assert!(fns.check_signature(&mut store, 0, 2, 1).is_ok());
        // one argument more: a C handler declared without its `...`
        assert!(fns.check_signature(&mut store, 0, 3, 1).is_ok());
        assert!(invalid(fns.check_signature(&mut store, 0, 4, 1)).contains("not a callback of 4"));
        assert!(invalid(fns.check_signature(&mut store, 0, 2, 0)).contains("not a callback"));
        assert!(invalid(fns.check_signature(&mut store, 1, 1, 1)).contains("not a callback"));
        // an empty slot, past the table, and no table at all
        for index in [3, 4, u32::MAX] {
            assert!(invalid(fns.function(&mut store, index)).contains("is not a guest function"));
        }
        let no_table = GuestFns::new(None, None, None, fns.memory.clone(), &mut store);
        assert!(invalid(no_table.function(&mut store, 0)).contains("no function table"));
        assert!(invalid(no_table.alloc(&mut store, 8)).contains("no malloc"));
    }

    #[test]
    fn the_length_record_follows_memory_growth() {
        let (mut store, fns) = guest();
        assert_eq!(fns.base, fns.memory.view(&store).data_ptr());
        // Safety: the record lives as long as the memory (in `fns`)
        let length = || unsafe { fns.length().read() } as u64;
        assert_eq!(length(), 65536);
        fns.memory.grow(&mut store, wasmer::Pages(3)).unwrap();
        assert_eq!(length(), 4 * 65536);
        assert_eq!(length(), fns.memory.view(&store).data_size());
    }

    #[test]
    fn a_callback_gets_the_arguments_it_takes_and_a_trap_ends_the_job() {
        let (mut store, fns) = guest();
        assert_eq!(fns.call(&mut store, 0, &[40, 2, 99, 99]).unwrap(), Some(42));
        let trap = fns.call(&mut store, 2, &[1]).unwrap_err();
        assert!(matches!(trap, CallbackError::Trap(_)));
        assert!(matches!(trap.into_fatal("MPI_Comm_dup").kind(), FatalKind::Callback { function: "MPI_Comm_dup", .. }));
        let bad = fns.call(&mut store, 3, &[]).unwrap_err().into_fatal("MPI_Comm_free");
        assert!(matches!(bad.kind(), FatalKind::Mpi { class: abi::c::MPI_ERR_ARG, .. }));
        assert_eq!(NESTING.with(Cell::get), 0, "a trap leaves the nesting level");
    }

    #[test]
    fn callbacks_nest_at_most_max_nesting_deep() {
        let (mut store, fns) = guest();
        NESTING.with(|d| d.set(MAX_NESTING - 1));
        assert_eq!(fns.call(&mut store, 0, &[1, 1]).unwrap(), Some(2));
        NESTING.with(|d| d.set(MAX_NESTING));
        let deep = fns.call(&mut store, 0, &[1, 1]).unwrap_err().into_fatal("MPI_Comm_call_errhandler");
        NESTING.with(|d| d.set(0));
        match deep.kind() {
            FatalKind::Mpi { class, detail, .. } => {
                assert_eq!(*class, abi::c::MPI_ERR_OTHER);
                assert!(detail.contains("nested 16 deep"), "{detail}");
            }
            other => panic!("{other:?}"),
        }
    }

    /// The guest's malloc is guest code: what it returns is checked before
    /// the host writes there.
    #[test]
    fn guest_allocations_must_lie_inside_the_memory() {
        let mut store = Store::new(wasmer::Singlepass::new());
        // malloc(n) returns the address the test stored at 0 (one page)
        let wat = r#"(module
            (memory (export "memory") 1)
            (func (export "malloc") (param i32) (result i32) (i32.load (i32.const 0))))"#;
        let module = Module::new(&store, wat).unwrap();
        let instance = Instance::new(&mut store, &module, &imports! {}).unwrap();
        let memory = instance.exports.get_memory("memory").unwrap().clone();
        let malloc = instance.exports.get_function("malloc").unwrap().clone();
        let fns = GuestFns::new(None, Some(malloc), None, memory, &mut store);
        let returns = |store: &mut Store, addr: u32| {
            fns.view(store).write_i32(0, addr as i32).unwrap();
            fns.alloc(store, 256)
        };
        assert_eq!(returns(&mut store, 1024).unwrap(), 1024);
        assert_eq!(returns(&mut store, 65536 - 256).unwrap(), 65536 - 256, "ends at the end");
        for addr in [65536 - 255, 65536, 0xffff_ff80] {
            // the last one wraps to a small address in 32-bit arithmetic
            assert!(invalid(returns(&mut store, addr)).contains("outside the guest memory"), "{addr:#x}");
        }
        assert!(invalid(returns(&mut store, 0)).contains("failed"));
    }

    #[test]
    fn guest_ints_are_read_only_inside_memory() {
        let (store, fns) = guest();
        unsafe { fns.base.add(65532).cast::<i32>().write_unaligned(7) };
        assert_eq!(fns.read_i32(&store, 65532), Some(7));
        for addr in [65533, 65536, u32::MAX - 3, u32::MAX] {
            assert_eq!(fns.read_i32(&store, addr), None, "{addr:#x}");
        }
    }

    #[test]
    fn no_mpi_call_from_inside_a_user_reduction() {
        assert!(reentry_forbidden("MPI_Send").is_ok());
        IN_USER_FUNCTION.with(|c| c.set(true));
        let r = reentry_forbidden("MPI_Send");
        IN_USER_FUNCTION.with(|c| c.set(false));
        assert!(matches!(r.as_ref().map_err(Fatal::kind), Err(FatalKind::Mpi { function: "MPI_Send", class: abi::c::MPI_ERR_OTHER, .. })));
        // outside any MPI call there is no store to run a user function with
        assert!(with_active(|_, _| ()).is_none());
    }
}

