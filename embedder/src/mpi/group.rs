//! Groups (the rest is generated).
use wasmer::FunctionEnvMut;

use super::{call::call, errors::{Fatal, MpiError}, MpiEnv};
use crate::{abi, host_mpi};

#[inline]
pub fn free(mut env: FunctionEnvMut<MpiEnv>, group: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Group_free", abi::c::MPI_COMM_WORLD, |cx| {
        let h = cx.mem.read_i32(group)?;
        let mut g = cx.group(h)?;
        // The empty group is a static object in the host MPI: a guest may
        // free MPI_GROUP_EMPTY as often as it likes, so the host never sees
        // it (Open MPI would release its static object: free() aborts).
        if h != abi::c::MPI_GROUP_EMPTY {
            cx.host(unsafe { host_mpi::ffi::MPI_Group_free(&mut g.0) })?;
            cx.bridge.groups.remove(h);
        }
        Ok(cx.mem.write_i32(group, abi::c::MPI_GROUP_NULL)?)
    })
}

/// Rank lists may hold MPI_PROC_NULL both ways, whose value differs
/// between the guest and the host, so they are translated, not shared.
#[inline]
pub fn translate_ranks(mut env: FunctionEnvMut<MpiEnv>, group1: i32, n: i32, ranks1: u32, group2: i32, ranks2: u32) -> Result<i32, Fatal> {
    call(&mut env, "MPI_Group_translate_ranks", abi::c::MPI_COMM_WORLD, |cx| {
        let (g1, g2) = (cx.group(group1)?, cx.group(group2)?);
        if n < 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("negative count {n}")));
        }
        cx.mem.range(ranks2, n as u64 * 4)?;
        // Open MPI reads its process array at each rank unchecked: a rank
        // outside group1 read host memory (and crashed)
        let mut size1 = 0;
        cx.host(unsafe { host_mpi::ffi::MPI_Group_size(g1.0, &mut size1) })?;
        let input = (0..n as u32)
            .map(|i| {
                let r = cx.mem.read_i32(ranks1.wrapping_add(4 * i))?;
                match r {
                    abi::c::MPI_PROC_NULL => cx.rank(r, false),
                    r if (0..size1).contains(&r) => Ok(r),
                    r => Err(MpiError::new(abi::c::MPI_ERR_RANK, format!("rank {r} is not in a group of {size1}"))),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut out = vec![0; n as usize];
        cx.host(unsafe { host_mpi::ffi::MPI_Group_translate_ranks(g1.0, n, input.as_ptr() as _, g2.0, out.as_mut_ptr()) })?;
        for (i, r) in out.into_iter().enumerate() {
            cx.write_rank(ranks2 + 4 * i as u32, r)?;
        }
        Ok(())
    })
}

impl super::call::Ctx<'_> {
    /// MPI_Comm_create(_group): `group` must be a subgroup of the
    /// communicator's (local) group. Open MPI does not check it and crashes
    /// (natively too) on a group with a process outside the communicator.
    pub fn check_subgroup(&self, c: &super::state::CommEntry, group: host_mpi::Group) -> super::errors::MpiResult {
        let mut local = host_mpi::null_group();
        self.host(unsafe { host_mpi::ffi::MPI_Comm_group(c.host.0, &mut local.0) })?;
        self.within(group, local, "communicator")
    }

    /// MPI_Win_post, MPI_Win_start: a group of the window's processes
    /// (Open MPI 5 indexes its peer arrays by the others: SIGSEGV, fuzz
    /// seeds 78103, 78107 on 2 ranks).
    pub fn check_win_subgroup(&self, w: &super::rma::WinEntry, group: host_mpi::Group) -> super::errors::MpiResult {
        let mut of_win = host_mpi::null_group();
        self.host(unsafe { host_mpi::ffi::MPI_Win_get_group(w.host.0, &mut of_win.0) })?;
        self.within(group, of_win, "window")
    }

    /// Every process of `group` is in `container` (freed here).
    fn within(&self, group: host_mpi::Group, mut container: host_mpi::Group, whose: &str) -> super::errors::MpiResult {
        let mut size = 0;
        let mut rc = unsafe { host_mpi::ffi::MPI_Group_size(group.0, &mut size) };
        let ranks: Vec<i32> = (0..size.max(0)).collect();
        let mut translated = vec![0; ranks.len()];
        if rc == 0 {
            rc = unsafe { host_mpi::ffi::MPI_Group_translate_ranks(group.0, size, ranks.as_ptr() as _, container.0, translated.as_mut_ptr()) };
        }
        unsafe { host_mpi::ffi::MPI_Group_free(&mut container.0) };
        self.host(rc)?;
        match translated.iter().position(|&r| r == self.undefined()) {
            Some(i) => Err(MpiError::new(abi::c::MPI_ERR_GROUP, format!("rank {i} of the group is not in the {whose}'s group"))),
            None => Ok(()),
        }
    }
}
