//! The address-space reservation behind every guest memory: the one thing
//! that keeps a guest's loads and stores inside its sandbox.
//!
//! Wasmer's backends emit no bounds check for a static memory (LLVM none at
//! all, Cranelift and Singlepass none for offsets inside the guard), so the
//! PROT_NONE reservation after the memory is the only protection. A wasm32
//! access touches `zext(address) + offset` (each below 2^32) plus up to 16
//! bytes (`v128`), i.e. bytes up to base + 2^33 + 13. Wasmer 4.4's default
//! tunables reserve 4 GiB + 2 GiB, leaving the top 2 GiB of that reach to
//! whatever the host mapped there; these tunables reserve all of it, and
//! refuse to create a memory whose style (for instance one baked into an
//! artifact compiled with other tunables) reserves less.
use std::ptr::NonNull;

use wasmer::{
    sys::{BaseTunables, Tunables},
    vm::{MemoryStyle, TableStyle, VMMemory, VMMemoryDefinition, VMTable, VMTableDefinition},
    MemoryError, MemoryType, Pages, TableType, WASM_PAGE_SIZE,
};

/// The largest access a wasm32 instruction makes (`v128.load`/`store`).
pub const MAX_ACCESS_BYTES: u64 = 16;

/// One past the last byte a wasm32 access can touch, relative to the base:
/// the largest address plus the largest offset plus the largest access.
pub const REACH: u64 = 2 * (u32::MAX as u64) + MAX_ACCESS_BYTES;

/// Pages a wasm32 memory can ever have (4 GiB): the static bound.
const BOUND_PAGES: u32 = 0x1_0000;

/// The guard after the 4 GiB bound, rounded up to whole wasm pages (64 KiB,
/// a multiple of every host page size).
pub const GUARD_BYTES: u64 = {
    let bound = BOUND_PAGES as u64 * WASM_PAGE_SIZE as u64;
    let page = WASM_PAGE_SIZE as u64;
    (REACH - bound).div_ceil(page) * page
};

/// Bytes reserved from a guest memory's base: the 4 GiB bound and the guard.
pub const RESERVED_BYTES: u64 = BOUND_PAGES as u64 * WASM_PAGE_SIZE as u64 + GUARD_BYTES;

/// The memory style every guest memory gets; part of the cache key, since
/// backends compile against it.
pub fn style() -> MemoryStyle {
    MemoryStyle::Static { bound: Pages(BOUND_PAGES), offset_guard_size: GUARD_BYTES }
}

/// Marks the whole 4 GiB a linear memory at `base` can grow into for
/// transparent huge pages. The flag belongs to the mapping, so the pages the
/// memory grows into later get it too; Karmem regions, mapped over parts of
/// it, are mappings of their own and keep the file's pages.
pub fn advise_huge_pages(base: *mut u8) -> std::io::Result<()> {
    let bound = BOUND_PAGES as usize * WASM_PAGE_SIZE;
    // Safety: the reservation spans bound + guard bytes from base and stays
    // mapped for the memory's life; the advice changes no contents.
    if unsafe { libc::madvise(base.cast(), bound, libc::MADV_HUGEPAGE) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Why a memory style would leave part of a wasm32 access's reach outside
/// the reservation (`None` when it covers all of it).
pub fn shortfall(style: &MemoryStyle) -> Option<String> {
    match *style {
        MemoryStyle::Static { bound, offset_guard_size } => {
            let reserved = bound.bytes().0 as u64 + offset_guard_size;
            (reserved < REACH).then(|| {
                format!(
                    "a static memory reserving {reserved:#x} bytes (bound {:#x} + guard {offset_guard_size:#x}), \
                     but a wasm32 access reaches {REACH:#x}",
                    bound.bytes().0
                )
            })
        }
        // Would move on growth (outstanding MPI operations hold host
        // pointers into the memory) and relies on bounds checks we do not
        // control; never produced by these tunables.
        MemoryStyle::Dynamic { .. } => Some("a dynamic (movable) memory".into()),
    }
}

/// Wasmer's tunables with the reservation above, checked for every memory
/// created in a store: defined by the module, imported, or made by WASI.
pub struct SandboxTunables {
    base: BaseTunables,
}

impl SandboxTunables {
    pub fn new(base: BaseTunables) -> Self {
        Self { base: BaseTunables { static_memory_bound: Pages(BOUND_PAGES), static_memory_offset_guard_size: GUARD_BYTES, ..base } }
    }

    fn check(style: &MemoryStyle) -> Result<(), MemoryError> {
        match shortfall(style) {
            None => Ok(()),
            Some(why) => Err(MemoryError::Generic(format!(
                "refusing to create {why}: the guest could reach host memory (a module compiled by an older embedder? \
                 recompile it)"
            ))),
        }
    }
}

impl Tunables for SandboxTunables {
    fn memory_style(&self, _memory: &MemoryType) -> MemoryStyle {
        // Every wasm32 memory (at most 4 GiB) is static, whatever its maximum.
        style()
    }

    fn table_style(&self, table: &TableType) -> TableStyle {
        self.base.table_style(table)
    }

    fn create_host_memory(&self, ty: &MemoryType, style: &MemoryStyle) -> Result<VMMemory, MemoryError> {
        Self::check(style)?;
        self.base.create_host_memory(ty, style)
    }

    unsafe fn create_vm_memory(
        &self,
        ty: &MemoryType,
        style: &MemoryStyle,
        vm_definition_location: NonNull<VMMemoryDefinition>,
    ) -> Result<VMMemory, MemoryError> {
        Self::check(style)?;
        self.base.create_vm_memory(ty, style, vm_definition_location)
    }

    fn create_host_table(&self, ty: &TableType, style: &TableStyle) -> Result<VMTable, String> {
        self.base.create_host_table(&bounded(ty)?, style)
    }

    unsafe fn create_vm_table(
        &self,
        ty: &TableType,
        style: &TableStyle,
        vm_definition_location: NonNull<VMTableDefinition>,
    ) -> Result<VMTable, String> {
        self.base.create_vm_table(&bounded(ty)?, style, vm_definition_location)
    }
}

/// The most entries a guest table may have (8 bytes each on the host): a
/// `table.grow` past it fails in the guest (returns -1, as wasm allows)
/// instead of Wasmer allocating up to 2^32 entries (32 GiB) and aborting.
pub const MAX_TABLE_ENTRIES: u32 = 1 << 24;

fn bounded(ty: &TableType) -> Result<TableType, String> {
    if ty.minimum > MAX_TABLE_ENTRIES {
        return Err(format!("a table of {} entries is larger than the {MAX_TABLE_ENTRIES} the embedder allows", ty.minimum));
    }
    Ok(TableType { maximum: Some(ty.maximum.map_or(MAX_TABLE_ENTRIES, |m| m.min(MAX_TABLE_ENTRIES))), ..*ty })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reservation_covers_every_address_a_wasm32_access_forms() {
        // last byte: address 2^32-1, offset 2^32-1, 16-byte access
        let last = u32::MAX as u64 + u32::MAX as u64 + MAX_ACCESS_BYTES - 1;
        assert_eq!(REACH, last + 1);
        assert!(shortfall(&style()).is_none());
        assert_eq!(GUARD_BYTES % WASM_PAGE_SIZE as u64, 0);
        assert!(GUARD_BYTES >= REACH - (1 << 32));
        assert!(GUARD_BYTES - (REACH - (1 << 32)) < WASM_PAGE_SIZE as u64, "no more than one page of slack");
    }

    #[test]
    fn wasmers_default_reservation_is_refused() {
        let target = wasmer::Target::default();
        let default = BaseTunables::for_target(&target).memory_style(&MemoryType::new(1, None, false));
        let why = shortfall(&default).expect("Wasmer 4.4's 4 GiB + 2 GiB falls short");
        assert!(why.contains("reaches 0x20000000e"), "{why}");
        assert!(shortfall(&MemoryStyle::Dynamic { offset_guard_size: 1 << 40 }).is_some());
        let one_short = MemoryStyle::Static { bound: Pages(BOUND_PAGES), offset_guard_size: REACH - (1 << 32) - 1 };
        assert!(shortfall(&one_short).is_some());
    }

    #[test]
    fn tables_are_bounded() {
        let t = |min, max| TableType::new(wasmer::Type::FuncRef, min, max);
        assert_eq!(bounded(&t(1, None)).unwrap().maximum, Some(MAX_TABLE_ENTRIES));
        assert_eq!(bounded(&t(1, Some(10))).unwrap().maximum, Some(10));
        assert_eq!(bounded(&t(1, Some(u32::MAX))).unwrap().maximum, Some(MAX_TABLE_ENTRIES));
        assert!(bounded(&t(MAX_TABLE_ENTRIES + 1, None)).is_err());
    }

    #[test]
    fn every_memory_gets_the_full_reservation() {
        let t = SandboxTunables::new(BaseTunables::for_target(&wasmer::Target::default()));
        for ty in [MemoryType::new(1, None, false), MemoryType::new(1, Some(1), false), MemoryType::new(0, Some(0x1_0000), true)] {
            assert!(shortfall(&t.memory_style(&ty)).is_none(), "{ty:?}");
        }
        let short = BaseTunables::for_target(&wasmer::Target::default()).memory_style(&MemoryType::new(1, None, false));
        assert!(t.create_host_memory(&MemoryType::new(1, None, false), &short).is_err());
        assert!(t.create_host_memory(&MemoryType::new(1, None, false), &style()).is_ok());
    }
}
