#!/usr/bin/env python3
"""Generate the guest header mpi-header/mpi.h and mpi-header/mpi-functions.txt.

Inputs
  * mpi-header/abi-constants.tsv  -- every MPI-5.0 standard-ABI constant
    (columns: name kind c_type value note; kinds int/handle/sentinel/callback).
  * pympistandard (PyPI, 0.2.0)    -- the machine-readable MPI API: procedures,
    their parameters and C renderings, the callback typedefs.

Outputs
  * mpi.h               -- the C/C++ header wasm32-wasi MPI programs compile
                           against (standard ABI: handles are pointers to
                           incomplete structs, predefined handles are integer
                           constants, MPI_Status is 8 ints).
  * mpi-functions.txt   -- one MPI_ function name per line (no PMPI_), sorted
  * mpi-imports.syms    -- MPI_ and PMPI_ names: the symbols wasm-mpicc lets
                           stay undefined (--allow-undefined-file)
                           in byte order: every function mpi.h declares.

Usage
  python3 mpi-header/gen/gen_mpi_h.py [--out-dir DIR]

The output is deterministic (no dates); the test suite regenerates it into a
temporary directory and compares it byte for byte with the committed files.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import importlib.metadata
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pympistandard

HERE = Path(__file__).resolve().parent
HEADER_DIR = HERE.parent
TSV_PATH = HEADER_DIR / "abi-constants.tsv"

# The API level the header advertises.  We use the MPI-5.0 *ABI* (handle
# encoding, MPI_Status layout, constant values) but the embedder forwards
# calls to host MPI libraries of the MPI-3.1/4.x generation (Debian: Open MPI
# 4.1, MPICH 4.0), so MPI_VERSION/MPI_SUBVERSION promise only MPI-3.1.
API_VERSION = 3
API_SUBVERSION = 1

# Handle types: typedef name -> struct tag suffix (struct MPI_ABI_<suffix>).
HANDLE_TYPES = [
    ("MPI_Comm", "Comm"),
    ("MPI_Datatype", "Datatype"),
    ("MPI_Errhandler", "Errhandler"),
    ("MPI_File", "File"),
    ("MPI_Group", "Group"),
    ("MPI_Info", "Info"),
    ("MPI_Message", "Message"),
    ("MPI_Op", "Op"),
    ("MPI_Request", "Request"),
    ("MPI_Session", "Session"),
    ("MPI_Win", "Win"),
]
TOOL_HANDLE_TYPES = [
    ("MPI_T_enum", "T_enum"),
    ("MPI_T_cvar_handle", "T_cvar_handle"),
    ("MPI_T_pvar_handle", "T_pvar_handle"),
    ("MPI_T_pvar_session", "T_pvar_session"),
    ("MPI_T_event_registration", "T_event_registration"),
    ("MPI_T_event_instance", "T_event_instance"),
]
# C enum typedefs of the tool interface (their enumerators are TSV int rows
# whose c_type names the enum).
TOOL_ENUM_TYPES = ["MPI_T_cb_safety", "MPI_T_source_order"]

# Section titles for the integer constants, keyed by the first clause of the
# TSV note (compared case-insensitively).
INT_SECTION_TITLES = {
    "maximum string length": "Maximum sizes for strings",
    "buffered-send per-message overhead bound in bytes": "Assorted constants",
    "index/size for fortran status array": "Fortran status array size and indices (C side, 0-based)",
    "error class": "Error classes",
    "last predefined error code": "Last predefined error code",
    "file open mode": "File open modes (powers of two, OR-able)",
    "rma window assertion": "RMA window assertions (powers of two, OR-able)",
    "wildcard": "Wildcards",
    "rank sentinel": "Rank sentinels",
    "multi-purpose sentinel": "MPI_UNDEFINED",
    "thread support level": "Thread support levels",
    "array datatype order": "Array datatype order",
    "array datatype distribution": "Array datatype distribution",
    "datatype decoding combiners": "Datatype decoding combiners",
    "fortran datatype matching": "Fortran datatype matching (type classes)",
    "communicator and group comparisons": "Communicator and group comparisons",
    "communicator virtual topology types": "Virtual topology types",
    "communicator split types": "Communicator split types",
    "window lock types": "Window lock types",
    "window create flavors": "Window create flavors",
    "window memory models": "Window memory models",
    "file positioning": "File positioning",
    "invalid attribute key": "Attribute keys",
    "predefined communicator attribute key": "Predefined communicator attribute keys",
    "predefined window attribute key": "Predefined window attribute keys",
    "mpi_t verbosity level": "MPI_T verbosity levels",
    "mpi_t object binding": "MPI_T object binding",
    "mpi_t control variable scope": "MPI_T control variable scope",
    "mpi_t performance variable class": "MPI_T performance variable classes",
    "file view displacement sentinel": "File view displacement sentinel",
}
VERSION_NAMES = ("MPI_VERSION", "MPI_SUBVERSION", "MPI_ABI_VERSION", "MPI_ABI_SUBVERSION")

# Deprecated (but not removed) API still declared by the standard ABI header.
# pympistandard 0.2.0 carries no deprecation data, so the list is kept here
# (MPI-5.0 "Deprecated and removed constructs").
DEPRECATED_FUNCTIONS = {
    "MPI_Attr_delete": "deprecated since MPI-2.0; use MPI_Comm_delete_attr",
    "MPI_Attr_get": "deprecated since MPI-2.0; use MPI_Comm_get_attr",
    "MPI_Attr_put": "deprecated since MPI-2.0; use MPI_Comm_set_attr",
    "MPI_Keyval_create": "deprecated since MPI-2.0; use MPI_Comm_create_keyval",
    "MPI_Keyval_free": "deprecated since MPI-2.0; use MPI_Comm_free_keyval",
    "MPI_Info_get": "deprecated since MPI-4.0; use MPI_Info_get_string",
    "MPI_Info_get_valuelen": "deprecated since MPI-4.0; use MPI_Info_get_string",
    "MPI_Get_elements_x": "deprecated since MPI-4.1; use MPI_Get_elements_c",
    "MPI_Status_set_elements_x": "deprecated since MPI-4.1; use MPI_Status_set_elements_c",
    "MPI_Type_get_extent_x": "deprecated since MPI-4.1; use MPI_Type_get_extent_c",
    "MPI_Type_get_true_extent_x": "deprecated since MPI-4.1; use MPI_Type_get_true_extent_c",
    "MPI_Type_size_x": "deprecated since MPI-4.1; use MPI_Type_size_c",
}
DEPRECATED_CALLBACK_TYPES = {
    "MPI_Copy_function": "deprecated since MPI-2.0; use MPI_Comm_copy_attr_function",
    "MPI_Delete_function": "deprecated since MPI-2.0; use MPI_Comm_delete_attr_function",
}
# Alias typedefs of the errhandler callback types (the *_fn spellings were
# deprecated in MPI-2.2 but are still in the reference ABI header).
ERRHANDLER_FN_ALIASES = [
    ("MPI_Comm_errhandler_fn", "MPI_Comm_errhandler_function"),
    ("MPI_File_errhandler_fn", "MPI_File_errhandler_function"),
    ("MPI_Win_errhandler_fn", "MPI_Win_errhandler_function"),
    ("MPI_Session_errhandler_fn", "MPI_Session_errhandler_function"),
]

# Handle and status transfer, defined inline in mpi.h (no import, no host
# call).  A guest handle is a 32-bit integer on wasm32 (a predefined constant,
# or an index the embedder hands out at 0x10000 and above, stable while the
# object lives), so the ABI's serialization (MPI_<T>_toint/_fromint) and the
# Fortran conversions (MPI_<T>_c2f/_f2c, with MPI_Fint an int) are casts, and
# the status conversions copy MPI_F_STATUS_SIZE ints.  MPI-5.0's Fortran ABI
# section leaves MPI_Fint, MPI_F08_status and the c2f/f2c functions out of the
# ABI header; C codes call them, so the guest header has them as well.
TRANSFER_KINDS = [
    ("Comm", "MPI_Comm"), ("Errhandler", "MPI_Errhandler"), ("File", "MPI_File"),
    ("Group", "MPI_Group"), ("Info", "MPI_Info"), ("Message", "MPI_Message"), ("Op", "MPI_Op"),
    ("Request", "MPI_Request"), ("Session", "MPI_Session"), ("Type", "MPI_Datatype"), ("Win", "MPI_Win"),
]
STATUS_CONVERSIONS = [  # (name, source, destination)
    ("MPI_Status_c2f", "const MPI_Status *", "MPI_Fint *"),
    ("MPI_Status_f2c", "const MPI_Fint *", "MPI_Status *"),
    ("MPI_Status_c2f08", "const MPI_Status *", "MPI_F08_status *"),
    ("MPI_Status_f082c", "const MPI_F08_status *", "MPI_Status *"),
    ("MPI_Status_f082f", "const MPI_F08_status *", "MPI_Fint *"),
    ("MPI_Status_f2f08", "const MPI_Fint *", "MPI_F08_status *"),
]


# MPI-4.1's accessors of the status fields, which the guest's MPI_Status has
# in the open: (field, the C name of its member).
STATUS_FIELDS = [("source", "MPI_SOURCE"), ("tag", "MPI_TAG"), ("error", "MPI_ERROR")]


def transfer_names() -> list[str]:
    handles = [f"MPI_{k}_{op}" for k, _ in TRANSFER_KINDS for op in ("toint", "fromint", "c2f", "f2c")]
    fields = [f"MPI_Status_{op}_{f}" for f, _ in STATUS_FIELDS for op in ("get", "set")]
    return handles + [name for name, _, _ in STATUS_CONVERSIONS] + fields


def is_transfer(name: str) -> bool:
    return name in TRANSFER_NAMES


TRANSFER_NAMES = frozenset(transfer_names())


# Corrections of pympistandard 0.2.0 renderings, keyed by (function, parameter
# name).  Each entry gives the data value that is wrong and the standard's C
# binding for that parameter.
PARAMETER_FIXUPS = {
    # MPI-4.0 binding: int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
    ("MPI_Info_create_env", "argv"): ("char argv[]", "char* argv[]"),
}

# MPI-1 names removed in MPI-3.0 that old codes still use.  The renamed ones
# have identical signatures and become macros; MPI_Type_extent/lb/ub have no
# same-signature replacement and are declared as functions.
REMOVED_RENAMES = [
    ("MPI_Address", "MPI_Get_address"),
    ("MPI_Type_hindexed", "MPI_Type_create_hindexed"),
    ("MPI_Type_hvector", "MPI_Type_create_hvector"),
    ("MPI_Type_struct", "MPI_Type_create_struct"),
    ("MPI_Errhandler_create", "MPI_Comm_create_errhandler"),
    ("MPI_Errhandler_get", "MPI_Comm_get_errhandler"),
    ("MPI_Errhandler_set", "MPI_Comm_set_errhandler"),
]
REMOVED_FUNCTIONS = [
    ("int", "MPI_Type_extent", ["MPI_Datatype datatype", "MPI_Aint* extent"]),
    ("int", "MPI_Type_lb", ["MPI_Datatype datatype", "MPI_Aint* displacement"]),
    ("int", "MPI_Type_ub", ["MPI_Datatype datatype", "MPI_Aint* displacement"]),
]

# Identifiers that cannot be parameter names in C or C++.
C_CXX_KEYWORDS = set(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char
    char8_t char16_t char32_t class compl concept const consteval constexpr
    constinit const_cast continue co_await co_return co_yield decltype default
    delete do double dynamic_cast else enum explicit export extern false float
    for friend goto if inline int long mutable namespace new noexcept not not_eq
    nullptr operator or or_eq private protected public register
    reinterpret_cast requires restrict return short signed sizeof static
    static_assert static_cast struct switch template this thread_local throw
    true try typedef typeid typename union unsigned using virtual void volatile
    wchar_t while xor xor_eq _Alignas _Alignof _Atomic _Bool _Complex _Generic
    _Imaginary _Noreturn _Static_assert _Thread_local""".split()
)

WRAP = 100


@dataclass
class Row:
    name: str
    kind: str
    c_type: str
    value: str
    note: str


@dataclass
class Function:
    ret: str
    name: str
    params: list[str]
    deprecated: str | None = None


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------


def read_tsv(path: Path) -> list[Row]:
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        expected = ["name", "kind", "c_type", "value", "note"]
        if reader.fieldnames != expected:
            sys.exit(f"{path}: header is {reader.fieldnames}, expected {expected}")
        rows = []
        for rec in reader:
            row = Row(**{k: (rec[k] or "").strip() for k in expected})
            if row.value == "n/a":
                continue  # not in the ABI C header (Fortran status sentinels)
            if row.kind not in ("int", "handle", "sentinel", "callback"):
                sys.exit(f"{path}: {row.name}: unknown kind {row.kind!r}")
            rows.append(row)
    names = [r.name for r in rows]
    dups = {n for n in names if names.count(n) > 1}
    if dups:
        sys.exit(f"{path}: duplicate names {sorted(dups)}")
    return rows


def clean_c(text: str) -> str:
    """Undo the LaTeX-isms of the pympistandard renderings."""
    return text.replace("\\ldots", "...")


def render_params(name: str, sym) -> list[str]:
    params = []
    for p in sym.parameters:
        text = clean_c(str(p))
        pname = p._parseset["name"]
        if pname in C_CXX_KEYWORDS:
            sys.exit(f"{name}: parameter name {pname!r} is a C/C++ keyword")
        fix = PARAMETER_FIXUPS.get((name, pname))
        if fix is not None:
            wrong, right = fix
            if text not in (wrong, right):
                sys.exit(f"{name}({pname}): unexpected rendering {text!r}; review PARAMETER_FIXUPS")
            text = right
        params.append(text)
    return params


def load_api() -> tuple[list[Function], list[Function], list[str]]:
    """Return (procedures, callback typedefs, transfer procedure names)."""
    pympistandard.use_api_version(1)
    procs: list[Function] = []
    skipped: list[str] = []
    for key in sorted(pympistandard.PROCEDURES):
        proc = pympistandard.PROCEDURES[key]
        variants = [proc.express.iso_c]
        if variants[0] is None:
            continue  # not C-expressible (MPI_F_sync_reg, MPI_Sizeof)
        if proc.has_embiggenment():
            variants.append(proc.express.embiggen.iso_c)
        for sym in variants:
            name = sym.name
            if is_transfer(name):
                skipped.append(name)
                continue
            procs.append(
                Function(
                    ret=clean_c(sym.return_type),
                    name=name,
                    params=render_params(name, sym),
                    deprecated=DEPRECATED_FUNCTIONS.get(name),
                )
            )
    callbacks: list[Function] = []
    for key in sorted(pympistandard.CALLBACKS):
        cb = pympistandard.CALLBACKS[key]
        variants = [cb.express.iso_c]
        if cb.has_embiggenment():
            variants.append(cb.express.embiggen.iso_c)
        for sym in variants:
            name = sym.name
            callbacks.append(
                Function(
                    ret=clean_c(sym.return_type),
                    name=name,
                    params=render_params(name, sym),
                    deprecated=DEPRECATED_CALLBACK_TYPES.get(name),
                )
            )
    names = [f.name for f in procs]
    missing = sorted(set(DEPRECATED_FUNCTIONS) - set(names))
    if missing:
        sys.exit(f"deprecated functions not found in pympistandard: {missing}")
    return procs, callbacks, skipped


# --------------------------------------------------------------------------
# Rendering helpers
# --------------------------------------------------------------------------


def wrap_decl(head: str, params: list[str], tail: str = ";") -> list[str]:
    """Render `head(p1, p2, ...)tail`, wrapping parameters past WRAP columns."""
    one = f"{head}({', '.join(params) if params else 'void'}){tail}"
    if len(one) <= WRAP:
        return [one]
    lines = []
    cur = f"{head}("
    for i, p in enumerate(params):
        piece = p + (", " if i + 1 < len(params) else f"){tail}")
        if len(cur) + len(piece.rstrip()) > WRAP and not cur.endswith("("):
            lines.append(cur.rstrip())
            cur = " " * 4
        cur += piece
    lines.append(cur.rstrip())
    return lines


def deprecated_line(reason: str | None) -> list[str]:
    return [f'MPIWASM_DEPRECATED("{reason}")'] if reason else []


def c_int_literal(value: str) -> str:
    v = value.strip()
    if not re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|\d+)", v):
        sys.exit(f"bad integer value {value!r}")
    return f"({v})" if v.startswith("-") else v


def handle_literal(value: str) -> str:
    v = value.strip()
    if re.fullmatch(r"0[xX][0-9a-fA-F]+", v):
        return "0x%08x" % int(v, 16)
    if re.fullmatch(r"\d+", v):
        return str(int(v))
    sys.exit(f"bad handle value {value!r}")


def note_tags(note: str) -> str:
    tags = []
    m = re.search(r"deprecated:? (MPI-\d\.\d)", note)
    if m:
        tags.append(f"deprecated: {m.group(1)}")
    m = re.search(r"added: (MPI-\d\.\d)", note)
    if m:
        tags.append(f"added: {m.group(1)}")
    if "MPIX extension" in note:
        tags.append("MPIX extension, not in the MPI-5.0 annex")
    return f" /* {'; '.join(tags)} */" if tags else ""


def first_clause(note: str) -> str:
    depth = 0
    out = []
    for ch in note:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == ";" and depth == 0:
            break
        out.append(ch)
    return re.sub(r"\s*\([^)]*\)", "", "".join(out)).strip().lower()


def define(name: str, value: str, comment: str = "") -> str:
    return f"#define {name:<34} {value}{comment}"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------
# Header sections
# --------------------------------------------------------------------------


def prologue(apis_json: Path, n_funcs: int, skipped: list[str]) -> list[str]:
    version = importlib.metadata.version("pympistandard")
    skipped_text = wrap_words(", ".join(skipped), " *   ")
    return [
        "/*",
        " * mpi.h -- MPI C header for wasm32-wasi guest programs (MPI-5.0 standard ABI).",
        " *",
        " * GENERATED FILE -- DO NOT EDIT.",
        " *   generator:  mpi-header/gen/gen_mpi_h.py",
        f" *   constants:  mpi-header/abi-constants.tsv (sha256 {sha256(TSV_PATH)[:16]})",
        f" *   prototypes: pympistandard {version}, data/apis.json (sha256 {sha256(apis_json)[:16]})",
        " *   regenerate: python3 mpi-header/gen/gen_mpi_h.py",
        " *",
        " * Layout follows the MPI-5.0 standard ABI on wasm32 (ILP32):",
        " *   - every handle type is a pointer to an incomplete struct MPI_ABI_<Name> (4 bytes);",
        " *   - predefined handles are integer constants cast to the handle type, never",
        " *     addresses of globals (the embedder translates them to host handles);",
        " *   - MPI_Status is exactly 8 ints (32 bytes);",
        " *   - MPI_Aint is intptr_t (4 bytes), MPI_Offset and MPI_Count are int64_t.",
        " * MPI calls are not implemented in the guest: each MPI_/PMPI_ function becomes a",
        " * wasm import (module \"env\") that the embedder forwards to the host MPI library.",
        " *",
        f" * {n_funcs} MPI_ functions are imported, each with a PMPI_ twin; their names are",
        " * listed in mpi-header/mpi-functions.txt.  Defined inline instead (casts and",
        " * copies on wasm32; see \"Handle and status transfer\"), with MPI_Fint and",
        " * MPI_F08_status, which the standard ABI header leaves out:",
        skipped_text,
        " *",
        " * Deprecated-but-present API is marked MPIWASM_DEPRECATED; define",
        " * MPIWASM_WARN_DEPRECATED before including this header to get compiler warnings.",
        " * MPI-1 names removed in MPI-3.0 are provided at the end unless",
        " * MPI_NO_REMOVED_NAMES is defined.",
        " */",
        "",
        "#ifndef MPIWASM_MPI_H_INCLUDED",
        "#define MPIWASM_MPI_H_INCLUDED",
        "",
        "#include <stdint.h>",
        "",
        "#if defined(__cplusplus)",
        'extern "C" {',
        "#endif",
        "",
        "#if defined(MPIWASM_WARN_DEPRECATED) && (defined(__GNUC__) || defined(__clang__))",
        "#define MPIWASM_DEPRECATED(msg) __attribute__((__deprecated__(msg)))",
        "#else",
        "#define MPIWASM_DEPRECATED(msg)",
        "#endif",
        "",
    ]


def wrap_words(text: str, prefix: str, width: int = 88) -> str:
    lines = []
    cur = prefix
    for word in text.split(" "):
        if len(cur) + len(word) + 1 > width and cur != prefix:
            lines.append(cur.rstrip())
            cur = prefix
        cur += word + " "
    lines.append(cur.rstrip())
    return "\n".join(lines)


def version_section(by_name: dict[str, Row]) -> list[str]:
    for n in VERSION_NAMES:
        if n not in by_name:
            sys.exit(f"abi-constants.tsv lacks {n}")
    return [
        "/* ---- Versions ------------------------------------------------------------ */",
        "",
        "/* API level: MPI-3.1.  The ABI (handle encoding, constants, MPI_Status) is the",
        f" * MPI-{by_name['MPI_VERSION'].value}.{by_name['MPI_SUBVERSION'].value} standard ABI, "
        "but calls are forwarded to host MPI libraries of the",
        " * MPI-3.1/4.x generation, so the header only promises the MPI-3.1 API.  Newer",
        " * functions are declared; whether they work depends on the host MPI. */",
        define("MPI_VERSION", str(API_VERSION)),
        define("MPI_SUBVERSION", str(API_SUBVERSION)),
        "",
        "/* Version of the standard ABI this header implements (MPI_Abi_get_version). */",
        define("MPI_ABI_VERSION", c_int_literal(by_name["MPI_ABI_VERSION"].value)),
        define("MPI_ABI_SUBVERSION", c_int_literal(by_name["MPI_ABI_SUBVERSION"].value)),
        "",
    ]


def types_section() -> list[str]:
    out = [
        "/* ---- Integer types ------------------------------------------------------- */",
        "",
        "typedef intptr_t MPI_Aint;",
        "typedef int64_t  MPI_Offset;",
        "typedef int64_t  MPI_Count;",
        "",
        "/* ---- Status: exactly 8 C ints --------------------------------------------- */",
        "",
        "typedef struct MPI_Status {",
        "    int MPI_SOURCE;",
        "    int MPI_TAG;",
        "    int MPI_ERROR;",
        "    int MPI_internal[5]; /* reserved for the implementation */",
        "} MPI_Status;",
        "",
        "/* ---- Handle types: pointers to incomplete structs ------------------------ */",
        "",
    ]
    for tname, tag in HANDLE_TYPES + TOOL_HANDLE_TYPES:
        out.append(f"typedef struct MPI_ABI_{tag}* {tname};")
    out.append("")
    return out


def static_asserts() -> list[str]:
    checks = [
        ("sizeof(MPI_Status) == 8 * sizeof(int)", "MPI_Status must be exactly 8 ints", None),
        ("sizeof(MPI_Comm) == sizeof(void*)", "handles are pointers", None),
        ("sizeof(MPI_Status) == 32", "MPI_Status is 32 bytes on wasm32", "wasm32"),
        ("sizeof(MPI_Aint) == 4", "MPI_Aint is 4 bytes on wasm32", "wasm32"),
        ("sizeof(MPI_Comm) == 4", "handles are 4 bytes on wasm32", "wasm32"),
        ("sizeof(MPI_Offset) == 8", "MPI_Offset is 8 bytes", None),
        ("sizeof(MPI_Count) == 8", "MPI_Count is 8 bytes", None),
    ]
    out = [
        "/* ---- Layout checks ------------------------------------------------------- */",
        "",
        "#if defined(__cplusplus) && __cplusplus >= 201103L",
        "#define MPIWASM_STATIC_ASSERT(cond, msg, id) static_assert(cond, msg)",
        "#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L",
        "#define MPIWASM_STATIC_ASSERT(cond, msg, id) _Static_assert(cond, msg)",
        "#else /* C99, C++98: a negative array size fails the compilation */",
        "#define MPIWASM_STATIC_ASSERT(cond, msg, id) typedef char mpiwasm_static_assert_##id[(cond) ? 1 : -1]",
        "#endif",
        "",
    ]
    for i, wasm_only in enumerate((None, "wasm32")):
        group = [c for c in checks if c[2] == wasm_only]
        if wasm_only:
            out.append("#if defined(__wasm32__)")
        for j, (cond, msg, _) in enumerate(group):
            out.append(f'MPIWASM_STATIC_ASSERT({cond}, "{msg}", c{i}{j});')
        if wasm_only:
            out.append("#endif")
    out += ["#undef MPIWASM_STATIC_ASSERT", ""]
    return out


def handle_constants(rows: list[Row]) -> list[str]:
    out = [
        "/* ---- Predefined handles (integer constants, MPI-5.0 ABI encoding) -------- */",
    ]
    by_type: dict[str, list[Row]] = {}
    for r in rows:
        by_type.setdefault(r.c_type, []).append(r)
    known = [t for t, _ in HANDLE_TYPES + TOOL_HANDLE_TYPES]
    unknown = sorted(set(by_type) - set(known))
    if unknown:
        sys.exit(f"handle constants of unknown types {unknown}")
    for tname in known:
        if tname not in by_type:
            continue
        out += ["", f"/* {tname} */"]
        for r in by_type[tname]:
            m = re.search(r"macro alias of (MPI_\w+)", r.note)
            if m:
                value = m.group(1)
            else:
                value = f"(({tname}){handle_literal(r.value)})"
            out.append(define(r.name, value, note_tags(r.note)))
    out.append("")
    return out


def int_constants(rows: list[Row]) -> list[str]:
    out = ["/* ---- Integer constants ---------------------------------------------------- */"]
    enum_rows: dict[str, list[Row]] = {t: [] for t in TOOL_ENUM_TYPES}
    title = None
    for r in rows:
        if r.name in VERSION_NAMES:
            continue
        if r.c_type in enum_rows:
            enum_rows[r.c_type].append(r)
            continue
        clause = first_clause(r.note)
        new_title = INT_SECTION_TITLES.get(clause)
        if new_title is None:
            sys.exit(f"{r.name}: no section title for note clause {clause!r}")
        if new_title != title:
            out += ["", f"/* {new_title} */"]
            title = new_title
        if r.c_type == "int":
            value = c_int_literal(r.value)
        elif r.c_type == "MPI_Offset":
            value = f"((MPI_Offset){c_int_literal(r.value)})"
        else:
            sys.exit(f"{r.name}: unexpected c_type {r.c_type!r} for an int constant")
        out.append(define(r.name, value, note_tags(r.note)))
    out.append("")
    for tname, members in enum_rows.items():
        if not members:
            sys.exit(f"no enumerators for {tname}")
        out.append(f"typedef enum {tname} {{")
        for i, r in enumerate(members):
            sep = "," if i + 1 < len(members) else ""
            out.append(f"    {r.name} = {c_int_literal(r.value)}{sep}")
        out += [f"}} {tname};", ""]
    return out


def sentinel_constants(rows: list[Row]) -> list[str]:
    out = [
        "/* ---- Buffer address, empty and ignore constants -------------------------- */",
        "",
    ]
    for r in rows:
        if not re.fullmatch(r"[A-Za-z_][\w ]*\**", r.c_type) or "*" not in r.c_type:
            sys.exit(f"{r.name}: sentinel type {r.c_type!r} is not a pointer type")
        out.append(define(r.name, f"(({r.c_type}){c_int_literal(r.value)})"))
    out.append("")
    return out


def callback_typedefs(callbacks: list[Function]) -> list[str]:
    out = [
        "/* ---- Callback function types ---------------------------------------------- */",
        "",
    ]
    for cb in callbacks:
        out += deprecated_line(cb.deprecated)
        out += wrap_decl(f"typedef {cb.ret} {cb.name}", cb.params)
    out += ["", "/* Alias typedefs (the *_fn spellings are deprecated since MPI-2.2). */"]
    names = {cb.name for cb in callbacks}
    for alias, target in ERRHANDLER_FN_ALIASES:
        if target not in names:
            sys.exit(f"callback type {target} missing from pympistandard")
        out += deprecated_line(f"deprecated since MPI-2.2; use {target}")
        out.append(f"typedef {target} {alias};")
    out.append("")
    return out


# On wasm32 a function pointer is an index into the function table, and
# wasm-ld gives the first address-taken function index 1: the ABI's value 1
# for the MPI_*_DUP_FN callbacks would alias a real guest function.  They get
# 0xFFFFFFFF, which no table index can be (0 stays: wasm-ld never uses it).
WASM32_DUP_FN = 0xFFFFFFFF


def callback_value(r: Row) -> str:
    value = int(r.value, 0)
    return hex(WASM32_DUP_FN).upper().replace("0X", "0x") if value == 1 else c_int_literal(r.value)


def callback_constants(rows: list[Row], callbacks: list[Function]) -> list[str]:
    names = {cb.name for cb in callbacks}
    out = [
        "/* ---- Predefined callbacks: integer constants (0 = null/no-op; dup = ---- */",
        "/* 0xFFFFFFFF, not the ABI's 1, which is a valid function index on wasm32) */",
        "",
    ]
    for r in rows:
        base = r.c_type.rstrip("*").strip()
        if base not in names or not r.c_type.endswith("*"):
            sys.exit(f"{r.name}: callback type {r.c_type!r} unknown")
        tag = ""
        if base in DEPRECATED_CALLBACK_TYPES:
            tag = " /* deprecated since MPI-2.0 */"
        out.append(define(r.name, f"(({r.c_type}){callback_value(r)})", tag))
    out.append("")
    return out


def prototypes(funcs: list[Function], prefix: str) -> list[str]:
    out = []
    for f in funcs:
        name = prefix + f.name[len("MPI_"):] if prefix != "MPI_" else f.name
        out += deprecated_line(f.deprecated)
        out += wrap_decl(f"{f.ret} {name}", f.params)
    return out


def transfer_section(from_standard: list[str]) -> list[str]:
    if sorted(from_standard) != sorted(TRANSFER_NAMES):
        sys.exit(f"transfer functions differ from pympistandard's: {sorted(set(from_standard) ^ TRANSFER_NAMES)}")
    out = [
        "/* ---- Handle and status transfer -------------------------------------------- */",
        "/* Defined here, not imported: a guest handle is a 32-bit integer (a predefined",
        " * constant, or an index the embedder hands out, stable while the object lives),",
        " * so serialization and the Fortran conversions are casts; round trips give",
        " * the same handle, and Fortran-side values equal the standard ABI's.  The",
        " * status conversions copy MPI_F_STATUS_SIZE ints (MPI_ERR_ARG for a null or",
        " * ignore pointer); MPI-4.1's MPI_Status_get/set_source/tag/error read and write",
        " * the status's public fields. */",
        "typedef int MPI_Fint;",
        "typedef struct MPI_F08_status {",
        "    MPI_Fint MPI_SOURCE;",
        "    MPI_Fint MPI_TAG;",
        "    MPI_Fint MPI_ERROR;",
        "    MPI_Fint MPI_internal[5];",
        "} MPI_F08_status;",
        define("MPI_F_STATUS_IGNORE", "((MPI_Fint *)0)"),
        define("MPI_F_STATUSES_IGNORE", "((MPI_Fint *)0)"),
        define("MPI_F08_STATUS_IGNORE", "((MPI_F08_status *)0)"),
        define("MPI_F08_STATUSES_IGNORE", "((MPI_F08_status *)0)"),
        "",
    ]
    for prefix in ("MPI_", "PMPI_"):
        for kind, ctype in TRANSFER_KINDS:
            arg = kind.lower()
            out += [
                f"static inline int {prefix}{kind}_toint({ctype} {arg}) {{ return (int)(intptr_t){arg}; }}",
                f"static inline {ctype} {prefix}{kind}_fromint(int {arg}) {{ return ({ctype})(intptr_t){arg}; }}",
                f"static inline MPI_Fint {prefix}{kind}_c2f({ctype} {arg}) {{ return (MPI_Fint)(intptr_t){arg}; }}",
                f"static inline {ctype} {prefix}{kind}_f2c(MPI_Fint {arg}) {{ return ({ctype})(intptr_t){arg}; }}",
            ]
        for name, src, dst in STATUS_CONVERSIONS:
            out += [
                f"static inline int {prefix}{name[len('MPI_'):]}({src}in, {dst}out) {{",
                "    if (!in || !out) return MPI_ERR_ARG;",
                "    __builtin_memcpy(out, in, MPI_F_STATUS_SIZE * sizeof(MPI_Fint));",
                "    return MPI_SUCCESS;",
                "}",
            ]
        for field, member in STATUS_FIELDS:
            out += [
                f"static inline int {prefix}Status_get_{field}(const MPI_Status *status, int *{field}) {{",
                f"    if (!status || !{field}) return MPI_ERR_ARG;",
                f"    *{field} = status->{member};",
                "    return MPI_SUCCESS;",
                "}",
                f"static inline int {prefix}Status_set_{field}(MPI_Status *status, int {field}) {{",
                "    if (!status) return MPI_ERR_ARG;",
                f"    status->{member} = {field};",
                "    return MPI_SUCCESS;",
                "}",
            ]
    out.append("")
    return out


def removed_section() -> list[str]:
    out = [
        "/* ---- MPI-1 names removed in MPI-3.0 ---------------------------------------- */",
        "/* Old codes still use these.  They are not part of MPI-3.0 or later and not part",
        " * of the standard ABI; define MPI_NO_REMOVED_NAMES to hide them.  The renamed",
        " * functions map to their replacements (identical signatures); MPI_Type_extent,",
        " * MPI_Type_lb and MPI_Type_ub differ from MPI_Type_get_extent and are provided",
        " * by the embedder as host functions.  MPI_LB, MPI_UB and the",
        " * MPI_COMBINER_*_INTEGER constants have no ABI value and are not provided. */",
        "#if !defined(MPI_NO_REMOVED_NAMES)",
    ]
    for old, new in REMOVED_RENAMES:
        out.append(define(old, new))
    for old, new in REMOVED_RENAMES:
        out.append(define("P" + old, "P" + new))
    out.append("typedef MPI_Comm_errhandler_function MPI_Handler_function;")
    for prefix in ("MPI_", "PMPI_"):
        for ret, name, params in REMOVED_FUNCTIONS:
            out += wrap_decl(f"{ret} {prefix}{name[len('MPI_'):]}", params)
    out += ["#endif /* !MPI_NO_REMOVED_NAMES */", ""]
    return out


def epilogue() -> list[str]:
    return [
        "#if defined(__cplusplus)",
        '} /* extern "C" */',
        "#endif",
        "",
        "#endif /* MPIWASM_MPI_H_INCLUDED */",
    ]


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def generate() -> tuple[str, str]:
    rows = read_tsv(TSV_PATH)
    by_name = {r.name: r for r in rows}
    procs, callbacks, skipped = load_api()
    apis_json = Path(pympistandard.__file__).resolve().parent / "data" / "apis.json"

    declared = [f.name for f in procs] + [name for _, name, _ in REMOVED_FUNCTIONS]
    if len(set(declared)) != len(declared):
        sys.exit("duplicate function declarations")
    clash = {old for old, _ in REMOVED_RENAMES} & set(declared)
    if clash:
        sys.exit(f"removed names clash with declared functions: {sorted(clash)}")

    lines: list[str] = []
    lines += prologue(apis_json, len(declared), skipped)
    lines += version_section(by_name)
    lines += types_section()
    lines += handle_constants([r for r in rows if r.kind == "handle"])
    lines += int_constants([r for r in rows if r.kind == "int"])
    lines += sentinel_constants([r for r in rows if r.kind == "sentinel"])
    lines += callback_typedefs(callbacks)
    lines += callback_constants([r for r in rows if r.kind == "callback"], callbacks)
    lines += static_asserts()
    lines += [
        "/* ---- Functions ------------------------------------------------------------ */",
        "",
    ]
    lines += prototypes(procs, "MPI_")
    lines += [
        "",
        "/* ---- Profiling interface ------------------------------------------------- */",
        "",
    ]
    lines += prototypes(procs, "PMPI_")
    lines.append("")
    lines += transfer_section(skipped)
    lines += removed_section()
    lines += epilogue()
    header = "\n".join(lines) + "\n"
    functions = "".join(name + "\n" for name in sorted(declared))
    return header, functions


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--out-dir",
        type=Path,
        default=HEADER_DIR,
        help="directory for mpi.h, mpi-functions.txt and mpi-imports.syms (default: %(default)s)",
    )
    args = ap.parse_args(argv)
    header, functions = generate()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    # The linker's allow-list: only MPI functions may stay undefined (they
    # become env.* imports); any other undefined symbol is a link error.
    names = functions.split()
    syms = "".join(f"{p}{n}\n" for n in names for p in ("", "P"))
    for fname, text in (("mpi.h", header), ("mpi-functions.txt", functions), ("mpi-imports.syms", syms)):
        path = args.out_dir / fname
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8", newline="\n")
        os.replace(tmp, path)
    print(f"wrote {args.out_dir / 'mpi.h'} ({functions.count(chr(10))} functions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
