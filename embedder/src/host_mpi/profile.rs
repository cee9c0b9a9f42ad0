//! The host library's constants, by standard name, for the loaded family:
//! Open MPI's and MPICH's from the tables read out of their headers
//! (`embedder/host-abi/*.tsv`, see `gen/gen_host_abi.py`), the standard
//! ABI's from the guest's own table. Symbols are resolved in the loaded
//! library (`&sym`: its address, `*sym`: the pointer stored there, `?sym`:
//! its address if the library has it, else no such constant).
use std::collections::HashMap;

use super::{
    library::{Family, Loaded},
    types::{Handle, MAX_STATUS},
    StatusLayout,
};

const OPENMPI: &str = include_str!("../../host-abi/openmpi.tsv");
const MPICH: &str = include_str!("../../host-abi/mpich.tsv");

/// (kind, name) -> value, every value resolved to an integer.
pub struct Profile {
    pub values: HashMap<(&'static str, &'static str), i64>,
    pub status: StatusLayout,
}

pub fn read(lib: &Loaded) -> Result<Profile, String> {
    let mut values = HashMap::new();
    match lib.family {
        Family::OpenMpi | Family::Mpich => {
            let table = if lib.family == Family::OpenMpi { OPENMPI } else { MPICH };
            let narrow = lib.family == Family::Mpich;
            for line in table.lines().filter(|l| !l.starts_with('#')).skip(1) {
                let mut cols = line.split('\t');
                let (kind, name, value) = (cols.next().unwrap(), cols.next().unwrap(), cols.next().unwrap());
                let v = if let Some(sym) = value.strip_prefix('?') {
                    // a symbol the family's older releases lack (Open MPI
                    // 4's null session): the constant is then absent
                    match lib.symbol(sym) {
                        Some(at) => at as i64,
                        None => continue,
                    }
                } else if let Some(sym) = value.strip_prefix('&') {
                    lib.symbol(sym).ok_or_else(|| missing_symbol(lib, sym))? as i64
                } else if let Some(sym) = value.strip_prefix('*') {
                    let at = lib.symbol(sym).ok_or_else(|| missing_symbol(lib, sym))?;
                    unsafe { *(at as *const usize) as i64 }
                } else {
                    let v: i64 = value.parse().map_err(|_| format!("bad host-abi value {value} for {name}"))?;
                    // MPICH's int handles are held zero-extended
                    if narrow && matches!(kind, "datatype" | "op" | "handle") { v as u32 as i64 } else { v }
                };
                values.insert((kind, name), v);
            }
        }
        Family::StandardAbi => {
            for &(name, kind, v) in crate::abi::c::ALL {
                let kind = match kind {
                    "sentinel" => "ptr",
                    "handle" if name.starts_with("MPI_OP_") || is_op(name) => "op",
                    "handle" if is_datatype(name) => "datatype",
                    k => k,
                };
                values.insert((kind, name), v as i64);
            }
            values.insert(("status", "size"), 32);
            values.insert(("status", "MPI_SOURCE"), 0);
            values.insert(("status", "MPI_TAG"), 4);
            values.insert(("status", "MPI_ERROR"), 8);
        }
    }
    let get = |k: &'static str| values.get(&("status", k)).copied().unwrap_or(-1) as usize;
    let status = StatusLayout { size: get("size"), source: get("MPI_SOURCE"), tag: get("MPI_TAG"), error: get("MPI_ERROR") };
    if status.size > MAX_STATUS {
        return Err(format!("{}: MPI_Status of {} bytes is larger than the embedder supports", lib.path, status.size));
    }
    Ok(Profile { values, status })
}

fn missing_symbol(lib: &Loaded, sym: &str) -> String {
    format!("{} ({}) lacks the symbol {sym} of its family's ABI", lib.path, lib.version_line())
}

fn is_op(name: &str) -> bool {
    matches!(
        name,
        "MPI_SUM" | "MPI_MIN" | "MPI_MAX" | "MPI_PROD" | "MPI_BAND" | "MPI_BOR" | "MPI_BXOR" | "MPI_LAND" | "MPI_LOR"
            | "MPI_LXOR" | "MPI_MINLOC" | "MPI_MAXLOC" | "MPI_REPLACE" | "MPI_NO_OP"
    )
}

fn is_datatype(name: &str) -> bool {
    // the standard ABI's datatype handles are 0x200..0x2ff
    crate::abi::c::ALL.iter().any(|&(n, k, v)| n == name && k == "handle" && (0x200..0x300).contains(&v))
}

impl Profile {
    pub fn get(&self, kind: &str, name: &str) -> Option<i64> {
        self.values.iter().find(|((k, n), _)| *k == kind && *n == name).map(|(_, v)| *v)
    }

    /// Every (name, value) of one kind.
    pub fn of_kind(&self, kind: &str) -> impl Iterator<Item = (&'static str, i64)> + '_ {
        let kind = kind.to_string();
        self.values.iter().filter(move |((k, _), _)| *k == kind).map(|((_, n), v)| (*n, *v))
    }

    pub fn handle(&self, name: &str) -> Result<Handle, String> {
        self.get("handle", name).map(|v| v as Handle).ok_or_else(|| format!("host handle {name} missing from the profile"))
    }
}
