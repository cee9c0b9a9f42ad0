//! The import module `karmem`: node-shared regions in linear memory, the
//! host side of `mpi-header/karmem.h` (where the guest API, the region
//! layout and the policies are described).
//!
//! A region is a node segment (`node_segment.rs`) laid out as a header page
//! the host alone writes (through a host-only mapping: the guest sees it
//! read-only) and the data. Policies are page protections on each rank's
//! own mapping, changed only inside the collective calls (publish, acquire,
//! pass), which are also the ranks' synchronisation points: a barrier on a
//! duplicate of the region's communicator, with a full fence on each side.
//! A store a policy forbids faults; `shared_memory::watch` names the region
//! on stderr and the engine turns the fault into a trap that ends the job.
use std::sync::atomic::{fence, AtomicU64, Ordering};

use wasmer::{Function, FunctionEnv, FunctionEnvMut, Imports, Store};

use super::{
    call::{call, Ctx},
    errors::{Fatal, MpiError, MpiResult},
    node_segment::GuestSegment,
    MpiEnv,
};
use crate::{
    abi, host_mpi::{self, ffi},
    shared_memory::{self, round_up, HostView, PAGE},
};

pub const MODULE: &str = "karmem";
/// The functions, for `embedder inspect`.
pub const FUNCTIONS: [&str; 8] = ["open", "data", "slice", "header", "publish", "acquire", "pass", "close"];

/// karmem.h's values.
const READ_ONLY: i32 = 1;
const OWNED: i32 = 2;
const PARTITIONED: i32 = 3;
const MAX_NAME: usize = 63;
const MAGIC: u64 = 0x4e47_524d_454d_524b;
const VERSION: u32 = 1;
/// Field offsets in `struct karmem_region_header`.
const EPOCH_AT: usize = 16;
const OWNER_AT: usize = 40;

pub struct Region {
    name: String,
    policy: i32,
    /// A duplicate of the guest's communicator: the region outlives the
    /// guest's handle, and its barriers never mix with the guest's traffic.
    comm: host_mpi::Comm,
    rank: i32,
    ranks: i32,
    /// The writer (READ_ONLY: rank 0; OWNED: the current owner).
    owner: i32,
    /// READ_ONLY: the writer may write (between acquire and publish).
    writing: bool,
    /// Data bytes (per slice when partitioned) and the slice stride.
    size: u64,
    stride: u64,
    segment: GuestSegment,
    view: HostView,
    watch: Option<usize>,
}

impl Region {
    fn data_at(&self) -> u32 {
        self.segment.at + PAGE as u32
    }

    fn data_len(&self) -> u64 {
        if self.policy == PARTITIONED { self.stride * self.ranks as u64 } else { round_up(self.size, PAGE) }
    }

    /// The data bytes this rank may write now: (offset from the data, length).
    fn writable(&self) -> Option<(u64, u64)> {
        match self.policy {
            PARTITIONED => Some((self.stride * self.rank as u64, self.stride)),
            READ_ONLY if self.writing && self.rank == self.owner => Some((0, self.data_len())),
            OWNED if self.rank == self.owner => Some((0, self.data_len())),
            _ => None,
        }
    }

    fn policy_name(&self) -> &'static str {
        match self.policy {
            READ_ONLY => "read-only after publish",
            OWNED => "owned",
            _ => "partitioned",
        }
    }

    fn check_rank(&self, rank: i32) -> MpiResult {
        if rank < 0 || rank >= self.ranks {
            return Err(MpiError::new(abi::c::MPI_ERR_RANK, format!("rank {rank} is not one of region '{}''s {} ranks", self.name, self.ranks)));
        }
        Ok(())
    }

    fn header_u64(&self, at: usize) -> &AtomicU64 {
        // Safety: the header page is mapped (host view) and 8-byte aligned fields.
        unsafe { &*(self.view.at.add(at) as *const AtomicU64) }
    }
}

impl Ctx<'_> {
    fn region(&self, handle: i32) -> MpiResult<&Region> {
        self.bridge.regions.get(handle).ok_or_else(|| MpiError::new(abi::c::MPI_ERR_ARG, format!("invalid Karmem region {handle:#x}")))
    }

    /// Applies the region's policy to this rank's mapping: the header and
    /// every byte this rank may not write now read-only, the rest writable.
    fn protect(&self, r: &Region) -> MpiResult {
        let base = self.guest_base();
        let data = r.data_at() as u64;
        let fail = |e: std::io::Error| MpiError::new(abi::c::MPI_ERR_OTHER, format!("Karmem region '{}': mprotect: {e}", r.name));
        unsafe {
            shared_memory::protect(base, r.segment.at as u64, PAGE, false).map_err(fail)?;
            shared_memory::protect(base, data, r.data_len(), false).map_err(fail)?;
            if let Some((off, len)) = r.writable() {
                shared_memory::protect(base, data + off, len, true).map_err(fail)?;
            }
        }
        Ok(())
    }

    fn barrier(&self, comm: host_mpi::Comm) -> MpiResult {
        fence(Ordering::SeqCst);
        self.host(unsafe { ffi::MPI_Barrier(comm.0) })?;
        fence(Ordering::SeqCst);
        Ok(())
    }
}

fn open_region(cx: &mut Ctx, comm: i32, name: u32, size: u32, policy: i32, region: u32) -> MpiResult {
    let comm_ = cx.comm(comm)?;
    let local = (|| {
        cx.mem.range(region, 4)?;
        let name = cx.cstr(name, MAX_NAME)?.to_string_lossy().into_owned();
        if !matches!(policy, READ_ONLY | OWNED | PARTITIONED) {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("Karmem region '{name}': unknown policy {policy}")));
        }
        Ok(name)
    })();
    let name = cx.agree(comm_.host, local)?;
    cx.check_one_node(&comm_, &format!("Karmem region '{name}'"))?;
    same_everywhere(cx, comm_.host, &name, [size as i64, policy as i64, name_hash(&name)])?;
    let ranks = comm_.local as i32;
    let stride = round_up(size as u64, PAGE);
    let data = if policy == PARTITIONED { stride * ranks as u64 } else { stride };
    let segment = cx.map_node_segment(&comm_, &name, PAGE + data)?;
    let view = match segment.segment.map_host() {
        Ok(v) => v,
        Err(e) => {
            cx.unmap_node_segment(segment);
            return Err(MpiError::shared(abi::c::MPI_ERR_NO_MEM, format!("Karmem region '{name}': host mapping: {e}")));
        }
    };
    let mut dup = host_mpi::null_communicator();
    cx.host(unsafe { ffi::MPI_Comm_dup(comm_.host.0, &mut dup.0) })?;
    let r = Region {
        name,
        policy,
        comm: dup,
        rank: comm_.rank,
        ranks,
        owner: 0,
        writing: true,
        size: size as u64,
        stride: if policy == PARTITIONED { stride } else { 0 },
        segment,
        view,
        watch: None,
    };
    if r.rank == 0 {
        write_header(&r);
    }
    cx.protect(&r)?;
    let base = cx.guest_base();
    let start = unsafe { base.add(r.segment.at as usize) };
    let end = unsafe { start.add((PAGE + r.data_len()) as usize) };
    let who = crate::rank::launcher_rank().map_or(String::new(), |n| format!("rank {n}: "));
    let message = format!(
        "embedder: {who}a store to Karmem region '{}' (policy {}) that this rank may not write now, at guest address ",
        r.name,
        r.policy_name()
    );
    let watch = shared_memory::watch(base, start, end, message);
    cx.barrier(r.comm)?;
    let handle = cx.bridge.regions.insert(Region { watch, ..r });
    Ok(cx.mem.write_i32(region, handle)?)
}

/// FNV-1a of a region name, to compare names across ranks.
fn name_hash(name: &str) -> i64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3)) as i64
}

/// Every rank of `comm` passed the same size, policy and name: one
/// MPI_MAX over each value and its negation gives the largest and the
/// smallest.
fn same_everywhere(cx: &Ctx, comm: host_mpi::Comm, name: &str, values: [i64; 3]) -> MpiResult {
    let c = host_mpi::constants();
    let mine: Vec<i64> = values.iter().flat_map(|&v| [v, v.wrapping_neg()]).collect();
    let mut all = vec![0i64; mine.len()];
    cx.host(unsafe {
        ffi::MPI_Allreduce(mine.as_ptr() as _, all.as_mut_ptr() as _, mine.len() as i32, c.datatypes["MPI_INT64_T"].0, c.ops["MPI_MAX"].0, comm.0)
    })?;
    let differ = all.chunks(2).zip(["size", "policy", "name"]).find(|(mm, _)| mm[0] != mm[1].wrapping_neg());
    match differ {
        Some((_, what)) => Err(MpiError::shared(abi::c::MPI_ERR_ARG, format!("Karmem region '{name}': the ranks passed different {what}s"))),
        None => Ok(()),
    }
}

fn write_header(r: &Region) {
    let h = r.view.at;
    let mut name = [0u8; MAX_NAME + 1];
    let n = r.name.len().min(MAX_NAME);
    name[..n].copy_from_slice(&r.name.as_bytes()[..n]);
    // Safety: the header page is mapped read-write in the host view.
    unsafe {
        (h as *mut u64).write(MAGIC);
        (h.add(8) as *mut u32).write(VERSION);
        (h.add(12) as *mut u32).write(r.policy as u32);
        (h.add(EPOCH_AT) as *mut u64).write(0);
        (h.add(24) as *mut u32).write(PAGE as u32);
        (h.add(28) as *mut u32).write(r.size as u32);
        (h.add(32) as *mut u32).write(r.stride as u32);
        (h.add(36) as *mut u32).write(r.ranks as u32);
        (h.add(OWNER_AT) as *mut i32).write(r.owner);
        std::ptr::copy_nonoverlapping(name.as_ptr(), h.add(48), name.len());
    }
}

pub fn open(mut env: FunctionEnvMut<MpiEnv>, comm: i32, name: u32, size: u32, policy: i32, region: u32) -> Result<i32, Fatal> {
    call(&mut env, "karmem_open", comm, |cx| open_region(cx, comm, name, size, policy, region))
}

pub fn data(mut env: FunctionEnvMut<MpiEnv>, region: i32, base: u32, size: u32) -> Result<i32, Fatal> {
    call(&mut env, "karmem_data", abi::c::MPI_COMM_WORLD, |cx| {
        let r = cx.region(region)?;
        let (at, len) = (r.data_at(), if r.policy == PARTITIONED { r.data_len() } else { r.size });
        cx.mem.range(base, 4)?;
        cx.mem.range(size, 4)?;
        cx.mem.write_i32(base, at as i32)?;
        Ok(cx.mem.write_i32(size, len as i32)?)
    })
}

pub fn slice(mut env: FunctionEnvMut<MpiEnv>, region: i32, rank: i32, base: u32, size: u32) -> Result<i32, Fatal> {
    call(&mut env, "karmem_slice", abi::c::MPI_COMM_WORLD, |cx| {
        let r = cx.region(region)?;
        if r.policy != PARTITIONED {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("Karmem region '{}' is not partitioned", r.name)));
        }
        r.check_rank(rank)?;
        let (at, len) = (r.data_at() as u64 + r.stride * rank as u64, r.size);
        cx.mem.range(base, 4)?;
        cx.mem.range(size, 4)?;
        cx.mem.write_i32(base, at as i32)?;
        Ok(cx.mem.write_i32(size, len as i32)?)
    })
}

/// The header's guest address; 0 (NULL) for an invalid region.
pub fn header(env: FunctionEnvMut<MpiEnv>, region: i32) -> u32 {
    env.data().bridge.regions.get(region).map_or(0, |r| r.segment.at)
}

pub fn publish(mut env: FunctionEnvMut<MpiEnv>, region: i32) -> Result<i32, Fatal> {
    call(&mut env, "karmem_publish", abi::c::MPI_COMM_WORLD, |cx| {
        let r = cx.region(region)?;
        let comm = r.comm;
        // every rank's stores of this epoch are done once all are here
        cx.barrier(comm)?;
        if let Some(w) = cx.bridge.regions.get_mut(region) {
            if w.policy == READ_ONLY {
                w.writing = false;
            }
        }
        let r = cx.region(region)?;
        cx.protect(r)?;
        if r.rank == 0 {
            r.header_u64(EPOCH_AT).fetch_add(1, Ordering::SeqCst);
        }
        cx.barrier(comm)
    })
}

pub fn acquire(mut env: FunctionEnvMut<MpiEnv>, region: i32) -> Result<i32, Fatal> {
    call(&mut env, "karmem_acquire", abi::c::MPI_COMM_WORLD, |cx| {
        let comm = cx.region(region)?.comm;
        // every rank is done reading the published epoch
        cx.barrier(comm)?;
        if let Some(w) = cx.bridge.regions.get_mut(region) {
            w.writing = true;
        }
        let r = cx.region(region)?;
        cx.protect(r)
    })
}

pub fn pass(mut env: FunctionEnvMut<MpiEnv>, region: i32, new_owner: i32) -> Result<i32, Fatal> {
    call(&mut env, "karmem_pass", abi::c::MPI_COMM_WORLD, |cx| {
        let r = cx.region(region)?;
        if r.policy != OWNED {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("Karmem region '{}' is not owned", r.name)));
        }
        r.check_rank(new_owner)?;
        let comm = r.comm;
        cx.barrier(comm)?;
        if let Some(w) = cx.bridge.regions.get_mut(region) {
            w.owner = new_owner;
        }
        let r = cx.region(region)?;
        cx.protect(r)?;
        if r.rank == 0 {
            // Safety: the owner field is an aligned i32 of the mapped header.
            unsafe { (r.view.at.add(OWNER_AT) as *mut i32).write_volatile(new_owner) };
        }
        cx.barrier(comm)
    })
}

pub fn close(mut env: FunctionEnvMut<MpiEnv>, region: u32) -> Result<i32, Fatal> {
    call(&mut env, "karmem_close", abi::c::MPI_COMM_WORLD, |cx| {
        let handle = cx.mem.read_i32(region)?;
        let comm = cx.region(handle)?.comm;
        cx.barrier(comm)?;
        let mut r = cx.bridge.regions.remove(handle).expect("checked above");
        if let Some(w) = r.watch {
            shared_memory::unwatch(w);
        }
        unsafe { ffi::MPI_Comm_free(&mut r.comm.0) };
        drop(r.view);
        cx.unmap_node_segment(r.segment);
        Ok(cx.mem.write_i32(region, 0)?)
    })
}

pub fn register(store: &mut Store, env: &FunctionEnv<MpiEnv>, imports: &mut Imports) {
    imports.define(MODULE, "open", Function::new_typed_with_env(store, env, open));
    imports.define(MODULE, "data", Function::new_typed_with_env(store, env, data));
    imports.define(MODULE, "slice", Function::new_typed_with_env(store, env, slice));
    imports.define(MODULE, "header", Function::new_typed_with_env(store, env, header));
    imports.define(MODULE, "publish", Function::new_typed_with_env(store, env, publish));
    imports.define(MODULE, "acquire", Function::new_typed_with_env(store, env, acquire));
    imports.define(MODULE, "pass", Function::new_typed_with_env(store, env, pass));
    imports.define(MODULE, "close", Function::new_typed_with_env(store, env, close));
}
