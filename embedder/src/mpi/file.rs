//! MPI-IO. The host MPI opens files by name, so the guest's file names go
//! through its preopens first (`ConfinedFs::host_path`): the host library
//! gets the canonical host path of a file WASI would give the guest, or the
//! call fails (MPI_ERR_NO_SUCH_FILE, MPI_ERR_ACCESS, MPI_ERR_READ_ONLY).
//! The data calls are generated (generated/file.rs, errors to the file's
//! handler through `call_file`); here are open, close, delete, views, type
//! extents and data representations. File error handlers are in errhandler.rs.
use std::{
    ffi::OsStr,
    os::unix::ffi::{OsStrExt, OsStringExt},
    path::Path,
    rc::Rc,
};

use wasmer::FunctionEnvMut;

use super::{
    call::{call_file, Ctx},
    datatype::{Contents, DatatypeEntry, TypeRef},
    errors::{Fatal, MpiError, MpiResult},
    MpiEnv,
};
use crate::{abi, confined_fs::Refused, host_mpi::{self, ffi}};

const FILE_NULL: i32 = abi::c::MPI_FILE_NULL;
/// Longest guest file name accepted (Linux's PATH_MAX, NUL excluded).
const MAX_PATH: usize = 4095;

pub struct FileEntry {
    pub host: host_mpi::File,
    /// The guest error handler (a handle in `Bridge::errhandlers`).
    pub errhandler: i32,
    /// How many processes opened it together.
    processes: i64,
    /// The view's etype and filetype as the guest gave them, for
    /// MPI_File_get_view (the guest may have freed its handles since).
    view: [TypeRef; 2],
    /// The size in bytes of the view's etype (file_nonblocking.rs).
    pub etype_size: i64,
    /// The split collective in progress: the buffer its `_begin` checked,
    /// and the status of the whole operation, which ran in the `_begin`.
    split: Option<(u32, host_mpi::Status)>,
}

/// What `Ctx::large_file_count` gives the host call; a type made for it is
/// freed after the call (a nonblocking call still pending keeps it, as
/// MPI_Type_free allows).
pub struct LargeCount {
    pub count: i64,
    pub host: host_mpi::Datatype,
    made: bool,
}

impl Drop for LargeCount {
    fn drop(&mut self) {
        if self.made {
            unsafe { ffi::MPI_Type_free(&mut self.host.0) };
        }
    }
}

/// Whether other processes wait for this one in `function` on file `fh`:
/// a collective on a file opened by several.
pub(super) fn others_wait(bridge: &super::Bridge, fh: i32, function: &str) -> bool {
    let f = function.strip_suffix("_c").unwrap_or(function);
    let collective = f.contains("_all") || f.contains("_ordered") || matches!(
        f,
        "MPI_File_open" | "MPI_File_close" | "MPI_File_set_view" | "MPI_File_set_size" | "MPI_File_preallocate"
            | "MPI_File_set_info" | "MPI_File_set_atomicity" | "MPI_File_sync" | "MPI_File_seek_shared"
    );
    collective && bridge.files.get(fh).is_some_and(|f| f.processes > 1)
}

impl Ctx<'_> {
    /// Records a nonblocking operation's request on guest file `fh`, so
    /// that the calls after which its requests may not be pending complete
    /// them first (`finish_file_requests`).
    pub fn out_file_request(&mut self, ptr: u32, host: host_mpi::Request, fh: i32) -> MpiResult {
        self.out_request_marked(ptr, host, |x| x.file = Some(fh))
    }

    /// Completes on the host the nonblocking operations on guest file `fh`
    /// the guest has not completed (`request::complete_on_host`) before a
    /// call that MPI-4.1 14 makes erroneous with them pending: closing the
    /// file, setting its view, syncing it. MPICH's ROMIO frees or rebuilds
    /// what its pending collective reads and writes use there, and their
    /// next test read freed memory (SIGSEGV in `MPI_Test`, MPI-call fuzzer,
    /// seeds 80026 and 80030). Every process of the file has started those
    /// collectives before this collective call, so completing them here
    /// waits for no one who is not coming.
    pub fn finish_file_requests(&mut self, fh: i32) -> MpiResult {
        super::request::complete_on_host(self, |e| e.extra.as_ref().is_some_and(|x| x.file == Some(fh)))
    }

    /// The host path of a guest file name, resolved through the preopens.
    fn host_path(&self, name: &std::ffi::CStr, create: bool, write: bool) -> MpiResult<std::ffi::CString> {
        let shown = name.to_string_lossy();
        let path = self.bridge.preopens.host_path(Path::new(OsStr::from_bytes(name.to_bytes())), create, write).map_err(|why| match why {
            Refused::NoSuchFile => MpiError::new(abi::c::MPI_ERR_NO_SUCH_FILE, format!("{shown}: no such file in the preopened directories")),
            Refused::Escapes => MpiError::new(abi::c::MPI_ERR_ACCESS, format!("{shown}: leads outside its preopened directory")),
            Refused::ReadOnly => MpiError::new(abi::c::MPI_ERR_READ_ONLY, format!("{shown}: the directory is preopened read-only")),
            Refused::NotAFile => MpiError::new(abi::c::MPI_ERR_BAD_FILE, format!("{shown}: is a directory")),
        })?;
        Ok(std::ffi::CString::new(path.into_os_string().into_vec()).expect("paths hold no NUL"))
    }

    /// The offset of an explicit-offset data call (`_at`): not negative,
    /// and the access ends at a file offset.
    pub fn explicit_offset(&self, fh: i32, offset: i64, count: i64, datatype: &DatatypeEntry) -> MpiResult {
        if offset < 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("negative offset {offset}")));
        }
        // Nor may the access end past the largest file offset: ROMIO
        // locks the range it writes (or reads, for data sieving), the lock
        // fails with EOVERFLOW, and ROMIO aborts the job (MPICH, natively
        // too; the fuzzer's INT64_MAX offsets). Measured in the view's
        // etypes from its start: holes in a filetype only move the end
        // further.
        let etype = i128::from(self.bridge.files.get(fh).map_or(1, |f| f.etype_size).max(1));
        let size = self.bridge.host_type_size(datatype.host.0)?;
        let end = i128::from(offset) * etype + i128::from(count.max(0)) * i128::from(size.max(0));
        if end > i128::from(i64::MAX) {
            return Err(MpiError::new(abi::c::MPI_ERR_ARG, format!("offset {offset} (etypes of {etype} bytes): the access would end past the largest file offset")));
        }
        Ok(())
    }

    /// The elements of an MPI-IO data call: more than one of a type of
    /// extent 0 that holds data is refused. They all lie on the same bytes,
    /// so the buffer's hull does not bound their count, and Open MPI's OMPIO
    /// lists every element's block before it moves a byte: natively, 10
    /// million of them took 5.6 s and 400 MB for an 11-byte file, and 157
    /// million did not end in a minute (time and memory grow faster than
    /// the count). Reading into them is erroneous anyway (entries that
    /// overlap in a receive buffer, MPI-4.1 5.1); writing them is legal but
    /// writes one element's bytes over and over. Refused on every host, so
    /// a module does the same on each.
    #[inline]
    pub fn io_elements(&self, count: i64, datatype: &DatatypeEntry) -> MpiResult {
        if count > 1 && datatype.extent() == 0 && datatype.true_extent() > 0 {
            return Err(MpiError::new(abi::c::MPI_ERR_TYPE, format!("{count} elements of a datatype of extent 0 that holds data: all on the same bytes")));
        }
        Ok(())
    }

    /// The count and host datatype a large-count data call (`MPI_File_*_c`)
    /// hands the host: the guest's, up to INT_MAX elements. Past that,
    /// MPICH's ROMIO assert()s `count <= INT_MAX` in every one of them and
    /// the process dies of SIGABRT (natively too), so the elements go as one
    /// element of a type made for the call: `count / 2^30` blocks of 2^30
    /// elements, then the rest, each at its place in the guest's typemap.
    #[inline]
    pub fn large_file_count(&self, count: i64, datatype: &DatatypeEntry) -> MpiResult<LargeCount> {
        if count <= i32::MAX as i64 {
            return Ok(LargeCount { count, host: datatype.host, made: false });
        }
        self.large_count_type(count, datatype)
    }

    #[inline(never)]
    fn large_count_type(&self, count: i64, datatype: &DatatypeEntry) -> MpiResult<LargeCount> {
        const BLOCK: i64 = 1 << 30;
        let (blocks, rest) = (count / BLOCK, count % BLOCK);
        // a wasm32 buffer holds under 2^32 bytes, so `blocks` is small
        let blocks = i32::try_from(blocks).map_err(|_| MpiError::new(abi::c::MPI_ERR_COUNT, format!("count {count} is too large")))?;
        let mut block = host_mpi::null_datatype();
        self.host(unsafe { ffi::MPI_Type_contiguous(BLOCK as i32, datatype.host.0, &mut block.0) })?;
        let lengths = [blocks, rest as i32];
        let displacements: [i64; 2] = [0, blocks as i64 * BLOCK * datatype.extent()];
        let types = host_mpi::HandleVec::from_iter([block.0, datatype.host.0]);
        let mut made = host_mpi::null_datatype();
        let rc = unsafe { ffi::MPI_Type_create_struct(2, lengths.as_ptr(), displacements.as_ptr() as _, types.as_ptr(), &mut made.0) };
        unsafe { ffi::MPI_Type_free(&mut block.0) };
        self.host(rc)?;
        let rc = unsafe { ffi::MPI_Type_commit(&mut made.0) };
        let large = LargeCount { count: 1, host: made, made: true };
        self.host(rc)?;
        Ok(large)
    }

    /// Before a split collective's `_begin`: one at a time on a file.
    pub fn split_free(&self, fh: i32) -> MpiResult {
        match self.bridge.files.get(fh) {
            Some(FileEntry { split: Some(_), .. }) => {
                Err(MpiError::new(abi::c::MPI_ERR_OTHER, "a split collective is already in progress on this file (one at a time)"))
            }
            _ => Ok(()),
        }
    }

    pub fn split_begin(&mut self, fh: i32, buf: u32, status: host_mpi::Status) -> MpiResult {
        if let Some(f) = self.bridge.files.get_mut(fh) {
            f.split = Some((buf, status));
        }
        Ok(())
    }

    /// At a split collective's `_end`: the status its `_begin` left, if
    /// `buf` is the buffer that `_begin` was given.
    pub fn split_end(&mut self, fh: i32, buf: u32) -> MpiResult<host_mpi::Status> {
        let f = self.bridge.files.get_mut(fh).ok_or_else(|| MpiError::new(abi::c::MPI_ERR_FILE, format!("invalid file handle {fh:#x}")))?;
        match f.split {
            Some((b, status)) if b == buf => {
                f.split = None;
                Ok(status)
            }
            Some((b, _)) => Err(MpiError::new(abi::c::MPI_ERR_BUFFER, format!("buffer {buf:#x} is not {b:#x}, the one the split collective began with"))),
            None => Err(MpiError::new(abi::c::MPI_ERR_OTHER, "no split collective is in progress on this file")),
        }
    }
}

/// What MPI_File_open checks at this rank before the ranks agree.
fn open_arguments(cx: &Ctx, filename: u32, amode: i32, info: i32, fh: u32) -> MpiResult<(std::ffi::CString, i32, host_mpi::Info)> {
    let name = cx.cstr(filename, MAX_PATH)?;
    let host_amode = cx.amode(amode)?;
    let info_ = cx.info(info)?;
    cx.mem.range(fh, 4)?;
    let create = amode & abi::c::MPI_MODE_CREATE != 0;
    let changes = abi::c::MPI_MODE_WRONLY | abi::c::MPI_MODE_RDWR | abi::c::MPI_MODE_CREATE | abi::c::MPI_MODE_APPEND | abi::c::MPI_MODE_DELETE_ON_CLOSE;
    let path = cx.host_path(&name, create, amode & changes != 0)?;
    Ok((path, host_amode, info_))
}

#[inline]
pub fn open(mut env: FunctionEnvMut<MpiEnv>, comm: i32, filename: u32, amode: i32, info: i32, fh: u32) -> Result<i32, Fatal> {
    call_file(&mut env, "MPI_File_open", FILE_NULL, |cx| {
        let comm_ = cx.comm(comm)?;
        if comm_.inter {
            return Err(MpiError::shared(abi::c::MPI_ERR_COMM, "MPI_File_open needs an intracommunicator"));
        }
        let local = open_arguments(cx, filename, amode, info, fh);
        let (path, host_amode, info_) = cx.agree(comm_.host, local)?;
        let mut new = host_mpi::null_file();
        cx.host(unsafe { ffi::MPI_File_open(comm_.host.0, path.as_ptr(), host_amode, info_.0, &mut new.0) })?;
        let errhandler = cx.bridge.file_null_errhandler;
        cx.bridge.retain_errhandler(errhandler);
        let byte = TypeRef::Named(abi::c::MPI_BYTE);
        let handle = cx.bridge.files.insert(FileEntry { host: new, errhandler, processes: comm_.local, view: [byte.clone(), byte], etype_size: 1, split: None });
        Ok(cx.mem.write_i32(fh, handle)?)
    })
}

#[inline]
pub fn close(mut env: FunctionEnvMut<MpiEnv>, fh: u32) -> Result<i32, Fatal> {
    // the handle picks the error handler
    let mut handle = FILE_NULL;
    let rc = call_file(&mut env, "MPI_File_close", FILE_NULL, |cx| {
        handle = cx.mem.read_i32(fh)?;
        Ok(())
    })?;
    if rc != abi::c::MPI_SUCCESS {
        return Ok(rc);
    }
    call_file(&mut env, "MPI_File_close", handle, |cx| {
        let mut host = cx.file(handle)?;
        cx.finish_file_requests(handle)?;
        cx.host(unsafe { ffi::MPI_File_close(&mut host.0) })?;
        if let Some(f) = cx.bridge.files.remove(handle) {
            cx.bridge.release_errhandler(f.errhandler);
        }
        Ok(cx.mem.write_i32(fh, FILE_NULL)?)
    })
}

#[inline]
pub fn delete(mut env: FunctionEnvMut<MpiEnv>, filename: u32, info: i32) -> Result<i32, Fatal> {
    call_file(&mut env, "MPI_File_delete", FILE_NULL, |cx| {
        let name = cx.cstr(filename, MAX_PATH)?;
        let info_ = cx.info(info)?;
        let path = cx.host_path(&name, false, true)?;
        cx.host(unsafe { ffi::MPI_File_delete(path.as_ptr(), info_.0) })
    })
}

#[inline]
pub fn set_view(mut env: FunctionEnvMut<MpiEnv>, fh: i32, disp: i64, etype: i32, filetype: i32, datarep: u32, info: i32) -> Result<i32, Fatal> {
    call_file(&mut env, "MPI_File_set_view", fh, |cx| {
        let host = cx.file(fh)?;
        let (etype_, filetype_) = (cx.datatype(etype)?, cx.datatype(filetype)?);
        etype_.check_committed()?;
        filetype_.check_committed()?;
        let rep = cx.cstr(datarep, abi::c::MPI_MAX_DATAREP_STRING as usize - 1)?;
        let info_ = cx.info(info)?;
        let disp = cx.displacement(disp)?;
        cx.finish_file_requests(fh)?;
        let rc = unsafe { ffi::MPI_File_set_view(host.0, disp, etype_.host.0, filetype_.host.0, rep.as_ptr(), info_.0) };
        cx.host(rc)?;
        let view = [cx.type_ref(etype, &etype_)?, cx.type_ref(filetype, &filetype_)?];
        let etype_size = cx.bridge.host_type_size(etype_.host.0)?;
        if let Some(f) = cx.bridge.files.get_mut(fh) {
            f.view = view;
            f.etype_size = etype_size;
        }
        Ok(())
    })
}

/// The view: derived types come back as new guest types (duplicates of
/// what MPI_File_set_view was given, as the host makes them), predefined
/// ones as the guest's own handles.
#[inline]
pub fn get_view(mut env: FunctionEnvMut<MpiEnv>, fh: i32, disp: u32, etype: u32, filetype: u32, datarep: u32) -> Result<i32, Fatal> {
    call_file(&mut env, "MPI_File_get_view", fh, |cx| {
        let host = cx.file(fh)?;
        cx.mem.range(disp, 8)?;
        cx.mem.range(etype, 4)?;
        cx.mem.range(filetype, 4)?;
        cx.mem.range(datarep, abi::c::MPI_MAX_DATAREP_STRING as u64)?;
        let (mut disp_, mut types) = (0i64, [host_mpi::null_datatype(); 2]);
        let mut rep = vec![0u8; abi::c::MPI_MAX_DATAREP_STRING as usize + 1];
        let rc = unsafe { ffi::MPI_File_get_view(host.0, &mut disp_, &mut types[0].0, &mut types[1].0, rep.as_mut_ptr() as _) };
        cx.host(rc)?;
        let view = cx.bridge.files.get(fh).map(|f| f.view.clone()).expect("checked above");
        for ((out, host_type), given) in [etype, filetype].into_iter().zip(types).zip(view) {
            let guest = match given {
                TypeRef::Named(guest) => {
                    guest_named(cx, guest, host_type);
                    guest
                }
                derived @ TypeRef::Derived(_) => {
                    let contents = Contents { combiner: abi::c::MPI_COMBINER_DUP, ints: vec![], aints: vec![], counts: vec![], types: vec![derived] };
                    let handle = cx.new_datatype(host_type, Rc::new(contents))?;
                    cx.commit_datatype(handle)?;
                    handle
                }
            };
            cx.mem.write_i32(out, guest)?;
        }
        let len = rep.iter().position(|&b| b == 0).unwrap_or(rep.len() - 1).min(abi::c::MPI_MAX_DATAREP_STRING as usize - 1);
        cx.mem.write_bytes(datarep, &[&rep[..len], &[0]].concat())?;
        cx.write_int(disp, disp_)
    })
}

/// A predefined view type the host handed back: the host's own handle,
/// unless the host made a new one, which the guest does not see.
fn guest_named(cx: &Ctx, guest: i32, host_type: host_mpi::Datatype) {
    if cx.datatype(guest).is_ok_and(|d| d.host != host_type) {
        let mut h = host_type;
        unsafe { ffi::MPI_Type_free(&mut h.0) };
    }
}

fn type_extent(cx: &Ctx, fh: i32, datatype: i32) -> MpiResult<i64> {
    let host = cx.file(fh)?;
    let dt = cx.datatype(datatype)?;
    let mut extent: ffi::MPI_Aint = 0;
    cx.host(unsafe { ffi::MPI_File_get_type_extent(host.0, dt.host.0, &mut extent) })?;
    Ok(extent as i64)
}

#[inline]
pub fn get_type_extent(mut env: FunctionEnvMut<MpiEnv>, fh: i32, datatype: i32, extent: u32) -> Result<i32, Fatal> {
    call_file(&mut env, "MPI_File_get_type_extent", fh, |cx| {
        cx.mem.range(extent, 4)?;
        let e = type_extent(cx, fh, datatype)?;
        cx.write_aint(extent, e)
    })
}

#[inline]
pub fn get_type_extent_c(mut env: FunctionEnvMut<MpiEnv>, fh: i32, datatype: i32, extent: u32) -> Result<i32, Fatal> {
    call_file(&mut env, "MPI_File_get_type_extent_c", fh, |cx| {
        cx.mem.range(extent, 8)?;
        let e = type_extent(cx, fh, datatype)?;
        cx.write_int(extent, e)
    })
}

/// User data representations would run guest conversion functions inside
/// the host library's I/O path; they are refused.
fn datarep_unsupported(env: &mut FunctionEnvMut<MpiEnv>, function: &'static str) -> Result<i32, Fatal> {
    call_file(env, function, FILE_NULL, |_| {
        Err(MpiError::new(
            abi::c::MPI_ERR_UNSUPPORTED_OPERATION,
            format!("{function}: user data representations are not supported (use \"native\", \"internal\" or \"external32\")"),
        ))
    })
}

#[inline]
pub fn register_datarep(mut env: FunctionEnvMut<MpiEnv>, _datarep: u32, _read: u32, _write: u32, _extent: u32, _state: u32) -> Result<i32, Fatal> {
    datarep_unsupported(&mut env, "MPI_Register_datarep")
}

#[inline]
pub fn register_datarep_c(mut env: FunctionEnvMut<MpiEnv>, _datarep: u32, _read: u32, _write: u32, _extent: u32, _state: u32) -> Result<i32, Fatal> {
    datarep_unsupported(&mut env, "MPI_Register_datarep_c")
}
