//! Finding and loading the host MPI library at run time, so one embedder
//! binary serves whichever MPI the job's launcher belongs to.
//!
//! Order: `--mpi-lib PATH` / `EMBEDDER_MPI_LIB`; else the family the
//! launcher's environment names (Open MPI's and PMIx's `OMPI_*`/`PMIX_*`,
//! MPICH Hydra's and PMI's `HYDRA_*`/`PMI_*`, Cray PALS's `PALS_RANKID`) and that family's library on the
//! loader path; else `libmpi.so` on the loader path. Under Slurm's `srun` the
//! PMIx/PMI variables are a first guess, not a requirement. The library is loaded
//! `RTLD_GLOBAL` (Open MPI's plugins need its symbols) and functions are
//! looked up in the global scope, so a profiler preloaded with `LD_PRELOAD`
//! (mpiP, Score-P, Darshan) still intercepts every call.
use std::{
    ffi::{c_char, c_int, c_void, CStr},
    fmt,
    path::{Path, PathBuf},
    sync::OnceLock,
};

use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};

use super::functions::Functions;

/// The ABI families the embedder speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Open MPI 4.x and 5.x: handles are addresses of `ompi_mpi_*` objects.
    OpenMpi,
    /// MPICH 3.x/4.x/5.x and the MPICH-ABI derivatives (Intel MPI, MVAPICH,
    /// Cray MPICH): integer handles with fixed values.
    Mpich,
    /// The MPI-5.0 standard ABI (`libmpi_abi.so`): the guest's own values.
    StandardAbi,
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Family::OpenMpi => "Open MPI",
            Family::Mpich => "MPICH",
            Family::StandardAbi => "MPI-5 standard ABI",
        })
    }
}

/// The loaded library and how it was chosen.
pub struct Loaded {
    pub path: String,
    pub family: Family,
    /// `MPI_Get_library_version`.
    pub version: String,
    /// MPICH underneath (`is_mpich`), read off `version` once: some
    /// per-call paths ask.
    pub mpich: bool,
    /// Why this library (for `embedder inspect --mpi`).
    pub reason: String,
    pub functions: Functions,
    /// MPI_Pcontrol, variadic and so not in the function table.
    pub pcontrol: Option<unsafe extern "C" fn(c_int, ...) -> c_int>,
    lib: Library,
}

static LOADED: OnceLock<Loaded> = OnceLock::new();
static REQUESTED: OnceLock<Option<PathBuf>> = OnceLock::new();

/// Records `--mpi-lib` (call before any host call; later calls are ignored).
pub fn request(path: Option<PathBuf>) {
    let _ = REQUESTED.set(path);
}

/// `EMBEDDER_MPI_LIB` when no command line was parsed (unit tests).
fn from_env() -> Option<PathBuf> {
    std::env::var_os("EMBEDDER_MPI_LIB").filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// The library, loaded on first use; a library that cannot serve ends the
/// process with one clear message (every rank prints it).
pub fn loaded() -> &'static Loaded {
    LOADED.get_or_init(|| {
        let requested = REQUESTED.get_or_init(from_env).clone();
        load(requested.as_deref()).unwrap_or_else(|e| {
            crate::say!("embedder: error: {e}");
            // every rank fails alike; a launcher that tears the job down at
            // the first exit (Open MPI 5's) would cut the others' message
            std::thread::sleep(std::time::Duration::from_millis(200));
            std::process::exit(1)
        })
    })
}

/// Loads without exiting, for `embedder inspect --mpi`.
pub fn try_loaded() -> Result<&'static Loaded, String> {
    if let Some(l) = LOADED.get() {
        return Ok(l);
    }
    let requested = REQUESTED.get_or_init(from_env).clone();
    let l = load(requested.as_deref())?;
    Ok(LOADED.get_or_init(|| l))
}

#[inline(always)]
pub fn functions() -> &'static Functions {
    &loaded().functions
}

pub fn handle_width() -> usize {
    if loaded().family == Family::Mpich { 4 } else { 8 }
}

/// A function the library does not provide was called.
#[cold]
pub fn missing(name: &CStr) -> c_int {
    crate::say!("embedder: error: the host MPI library {} does not provide {}", loaded().path, name.to_string_lossy());
    super::constants().int("MPI_ERR_UNSUPPORTED_OPERATION")
}

impl Loaded {
    /// The first line of the library's version string.
    pub fn version_line(&self) -> &str {
        self.version.lines().next().unwrap_or("").trim()
    }

    /// The address of a data symbol of the library (Open MPI's predefined
    /// objects, MPICH's weight sentinels).
    pub fn symbol(&self, name: &str) -> Option<usize> {
        unsafe { self.lib.get::<*mut c_void>(name.as_bytes()) }.ok().map(|s| *s as usize)
    }
}

/// What the launcher's environment says about the job's MPI.
pub struct Launcher {
    pub family: Family,
    /// The variable that says it.
    pub var: String,
    /// Only a library of this family can join the job. Slurm's `srun
    /// --mpi=pmix` / `--mpi=pmi2` speaks PMIx or PMI-2 to whichever MPI was
    /// built for it (Open MPI or MPICH, either way), so under `srun` the
    /// family is only the first guess.
    pub binding: bool,
}

pub fn launcher() -> Option<Launcher> {
    let vars: Vec<String> = std::env::vars_os().filter_map(|(k, _)| k.into_string().ok()).collect();
    let find = |prefixes: &[&str]| vars.iter().find(|k| prefixes.iter().any(|p| k.starts_with(p))).cloned();
    let under_srun = vars.iter().any(|k| k == "SLURM_STEP_ID");
    // a launcher's own variables first, then the process-management interface's
    for (family, prefixes, own) in [
        (Family::OpenMpi, &["OMPI_COMM_WORLD_", "OMPI_MCA_ess"][..], true),
        (Family::Mpich, &["HYDRA_"][..], true),
        (Family::OpenMpi, &["PMIX_RANK"][..], false),
        (Family::Mpich, &["PMI_RANK", "PMI_FD", "PMI_PORT"][..], false),
        // HPE's PALS (Cray EX's launcher, and srun --mpi=cray_shasta) serves Cray MPICH
        (Family::Mpich, &["PALS_RANKID"][..], false),
    ] {
        if let Some(var) = find(prefixes) {
            return Some(Launcher { family, var, binding: own || !under_srun });
        }
    }
    None
}

/// Libraries to try, by family, in order (sonames the loader finds through
/// LD_LIBRARY_PATH, the site's module system, and its cache).
fn candidates(family: Option<Family>) -> &'static [&'static str] {
    match family {
        Some(Family::OpenMpi) => &["libmpi.so.40", "libmpi.so"],
        Some(Family::Mpich) => &["libmpi.so.12", "libmpich.so.12", "libmpi.so"],
        Some(Family::StandardAbi) => &["libmpi_abi.so.1", "libmpi_abi.so"],
        None => &["libmpi.so", "libmpi.so.40", "libmpi.so.12", "libmpich.so.12", "libmpi_abi.so.1"],
    }
}

fn load(requested: Option<&Path>) -> Result<Loaded, String> {
    let launcher = launcher();
    let (lib, path, reason) = match requested {
        Some(p) => {
            let lib = open(&p.to_string_lossy()).map_err(|e| format!("cannot load the MPI library {}: {e}", p.display()))?;
            (lib, p.display().to_string(), "--mpi-lib / EMBEDDER_MPI_LIB".to_string())
        }
        None => {
            let mut errors = Vec::new();
            let mut found = None;
            for name in candidates(launcher.as_ref().map(|l| l.family)) {
                match open(name) {
                    Ok(h) => {
                        found = Some((h, name.to_string()));
                        break;
                    }
                    Err(e) => errors.push(e),
                }
            }
            let (lib, name) = found.ok_or_else(|| {
                format!(
                    "no MPI library found on the loader path ({}); load your MPI's module or pass --mpi-lib PATH",
                    errors.join("; ")
                )
            })?;
            let reason = match &launcher {
                Some(l) if l.binding => format!("the launcher is {}'s ({} is set)", l.family, l.var),
                Some(l) => format!("{} is set under srun: {}'s library first", l.var, l.family),
                None => "no launcher variables; the default library on the loader path".to_string(),
            };
            (lib, name, reason)
        }
    };
    let path = resolved_path(&lib).unwrap_or(path);
    let sym = |n: &CStr| unsafe { lib.get::<*mut c_void>(n.to_bytes_with_nul()) }.map_or(std::ptr::null_mut(), |s| *s);
    if sym(c"MPI_Init").is_null() || sym(c"MPI_Get_library_version").is_null() {
        return Err(format!("{path} is not an MPI library (it has no MPI_Init)"));
    }
    let version = library_version(sym(c"MPI_Get_library_version"));
    let first = version.lines().next().unwrap_or("").trim().to_string();
    let family = if !sym(c"ompi_mpi_comm_world").is_null() {
        Family::OpenMpi
    } else if abi_version(sym(c"MPI_Abi_get_version")) >= 1 {
        Family::StandardAbi
    } else if ["MPICH", "Intel(R) MPI", "MVAPICH", "CRAY MPICH"].iter().any(|m| version.contains(m)) {
        Family::Mpich
    } else {
        return Err(format!("{path} is an MPI library of a family the embedder does not know: \"{first}\""));
    };
    if let Some(Launcher { family: launched, var, binding: true }) = &launcher {
        let compatible = *launched == family || (*launched == Family::Mpich && family == Family::StandardAbi);
        if !compatible {
            return Err(format!(
                "{path} is {family} (\"{first}\") but the job was started by {launched}'s launcher ({var} is set); \
                 use that MPI's mpirun or pass the matching --mpi-lib"
            ));
        }
    }
    // The global scope first (the program's own scope: preloaded libraries,
    // then the RTLD_GLOBAL library): a profiling library wins over the MPI's
    // own symbols, as it would for a native program.
    let global = Library::this();
    let lookup = |name: &CStr| {
        let get = |l: &Library| unsafe { l.get::<*mut c_void>(name.to_bytes_with_nul()) }.map_or(std::ptr::null_mut(), |s| *s);
        let p = get(&global);
        if p.is_null() { get(&lib) } else { p }
    };
    let functions = Functions::resolve(lookup);
    let pcontrol = lookup(c"MPI_Pcontrol");
    // Safety: MPI's `int MPI_Pcontrol(const int level, ...)`.
    let pcontrol = (!pcontrol.is_null()).then(|| unsafe { std::mem::transmute::<*mut c_void, unsafe extern "C" fn(c_int, ...) -> c_int>(pcontrol) });
    // the same pointers whichever thread's Loaded wins the OnceLock
    functions.publish();
    let mpich = version.contains("MPICH");
    Ok(Loaded { path, family, version, mpich, reason, functions, pcontrol, lib })
}

fn open(name: &str) -> Result<Library, String> {
    unsafe { Library::open(Some(name), RTLD_NOW | RTLD_GLOBAL) }.map_err(|e| e.to_string())
}

/// The file the loader picked for a soname (for messages).
fn resolved_path(lib: &Library) -> Option<String> {
    // dlinfo(RTLD_DI_LINKMAP = 2): the library's link_map, whose second
    // field is its path. Borrow the raw handle and give it back.
    let raw = unsafe { std::ptr::read(lib) }.into_raw();
    let mut map: *mut c_void = std::ptr::null_mut();
    let rc = unsafe { libc::dlinfo(raw, 2, &mut map as *mut _ as *mut c_void) };
    if rc != 0 || map.is_null() {
        return None;
    }
    let name = unsafe { *(map as *const *const c_char).add(1) };
    (!name.is_null()).then(|| unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned()).filter(|s| !s.is_empty())
}

/// The standard ABI's major version, which an MPI-5 library built for its
/// own ABI reports as -1 (callable before MPI_Init); -1 without the function.
fn abi_version(f: *mut c_void) -> i32 {
    if f.is_null() {
        return -1;
    }
    let f: unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int = unsafe { std::mem::transmute(f) };
    let (mut major, mut minor) = (-1, -1);
    if unsafe { f(&mut major, &mut minor) } != 0 {
        return -1;
    }
    major
}

/// `MPI_Get_library_version`, callable before MPI_Init.
fn library_version(f: *mut c_void) -> String {
    let f: unsafe extern "C" fn(*mut c_char, *mut c_int) -> c_int = unsafe { std::mem::transmute(f) };
    let mut buf = vec![0u8; 8192];
    let mut len = 0;
    unsafe { f(buf.as_mut_ptr() as *mut c_char, &mut len) };
    buf.truncate(len.clamp(0, 8192) as usize);
    String::from_utf8_lossy(&buf).trim_end_matches('\0').to_string()
}
