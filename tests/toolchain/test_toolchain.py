"""Tests for the guest header (mpi-header/) and the wasm MPI compiler wrappers
(toolchain/).  Run with:  python3 -m pytest tests/toolchain -q

The wasm modules are only built and inspected here, never run (running them
is the embedder's job).
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEADER_DIR = REPO / "mpi-header"
MPICC = REPO / "toolchain" / "bin" / "wasm-mpicc"
MPICXX = REPO / "toolchain" / "bin" / "wasm-mpicxx"
GENERATOR = HEADER_DIR / "gen" / "gen_mpi_h.py"
CMAKE_TOOLCHAIN = REPO / "toolchain" / "cmake" / "wasm32-wasi-mpi.cmake"
CMAKE_EXAMPLE = REPO / "toolchain" / "cmake" / "example"

STRICT = ["-Wall", "-Wextra", "-Werror", "-pedantic"]


def run(cmd, cwd=None, check=True, **kw):
    proc = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, **kw
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"command failed ({proc.returncode}): {' '.join(map(str, cmd))}\n"
            f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
        )
    return proc


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# ---------------------------------------------------------------------------
# A minimal WebAssembly binary reader: imports, exports, globals.
# ---------------------------------------------------------------------------


class WasmModule:
    def __init__(self, data: bytes):
        assert data[:4] == b"\0asm", "not a wasm module"
        assert data[4:8] == b"\x01\0\0\0", "unexpected wasm version"
        self.data = data
        self.imports: list[tuple[str, str, int]] = []  # (module, name, kind)
        self.exports: dict[str, int] = {}  # name -> kind
        self.globals: list[tuple[int, int | None]] = []  # (mutable, i32.const init)
        pos = 8
        while pos < len(data):
            sec_id = data[pos]
            size, pos = self._uleb(pos + 1)
            end = pos + size
            if sec_id == 2:
                self._read_imports(pos)
            elif sec_id == 6:
                self._read_globals(pos)
            elif sec_id == 7:
                self._read_exports(pos)
            pos = end

    def _leb(self, pos, signed):
        """LEB128 at pos: (value, position after it)."""
        result = shift = 0
        while True:
            b = self.data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                if signed and b & 0x40:
                    result -= 1 << shift
                return result, pos

    def _uleb(self, pos):
        return self._leb(pos, signed=False)

    def _sleb(self, pos):
        return self._leb(pos, signed=True)

    def _name(self, pos):
        n, pos = self._uleb(pos)
        return self.data[pos : pos + n].decode(), pos + n

    def _limits(self, pos):
        flags = self.data[pos]
        _, pos = self._uleb(pos + 1)
        if flags & 1:
            _, pos = self._uleb(pos)
        return pos

    def _read_imports(self, pos):
        count, pos = self._uleb(pos)
        for _ in range(count):
            module, pos = self._name(pos)
            name, pos = self._name(pos)
            kind = self.data[pos]
            pos += 1
            if kind == 0:  # function: type index
                _, pos = self._uleb(pos)
            elif kind == 1:  # table: reftype + limits
                pos = self._limits(pos + 1)
            elif kind == 2:  # memory
                pos = self._limits(pos)
            elif kind == 3:  # global: valtype + mutability
                pos += 2
            elif kind == 4:  # tag: attribute + type index
                _, pos = self._uleb(pos + 1)
            else:
                raise AssertionError(f"unknown import kind {kind}")
            self.imports.append((module, name, kind))

    def _read_exports(self, pos):
        count, pos = self._uleb(pos)
        for _ in range(count):
            name, pos = self._name(pos)
            kind = self.data[pos]
            _, pos = self._uleb(pos + 1)
            self.exports[name] = kind

    def _read_globals(self, pos):
        count, pos = self._uleb(pos)
        for _ in range(count):
            mutable = self.data[pos + 1]
            pos += 2
            init = None
            if self.data[pos] == 0x41:  # i32.const
                init, pos = self._sleb(pos + 1)
            else:  # skip other constant expressions up to `end`
                while self.data[pos] != 0x0B:
                    pos += 1
            assert self.data[pos] == 0x0B
            pos += 1
            self.globals.append((mutable, init))

    def func_imports(self, module="env"):
        return {name for (mod, name, kind) in self.imports if mod == module and kind == 0}


def load_wasm(path: Path) -> WasmModule:
    return WasmModule(path.read_bytes())


# ---------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------

SEND_RECV_C = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, value = 0;
    MPI_Status status;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        value = 42;
        MPI_Send(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &status);
        printf("rank 1 got %d from %d\n", value, status.MPI_SOURCE);
    }
    MPI_Finalize();
    return 0;
}
"""

INCLUDE_TWICE = """
#include <mpi.h>
#include <mpi.h>
int use_header(void);
int use_header(void)
{
    MPI_Status st;
    MPI_Comm c = MPI_COMM_WORLD;
    st.MPI_SOURCE = MPI_ANY_SOURCE;
    (void)c;
    return st.MPI_SOURCE + MPI_SUCCESS;
}
"""


# ---------------------------------------------------------------------------
# Header
# ---------------------------------------------------------------------------


def test_generated_header_is_up_to_date(tmp_path):
    run([sys.executable, GENERATOR, "--out-dir", tmp_path])
    for name in ("mpi.h", "mpi-functions.txt"):
        fresh = (tmp_path / name).read_bytes()
        committed = (HEADER_DIR / name).read_bytes()
        assert fresh == committed, f"mpi-header/{name} is stale: run python3 {GENERATOR.relative_to(REPO)}"


@pytest.mark.parametrize("std", ["c99", "c11", "c17", "gnu17"])
def test_header_compiles_cleanly_as_c(tmp_path, std):
    src = write(tmp_path / "inc.c", INCLUDE_TWICE)
    run([MPICC, f"-std={std}", *STRICT, "-c", src, "-o", tmp_path / "inc.o"])
    # with the opt-in deprecation attributes enabled the header itself stays clean
    run([MPICC, f"-std={std}", *STRICT, "-DMPIWASM_WARN_DEPRECATED", "-fsyntax-only", src])


@pytest.mark.parametrize("std", ["c++98", "c++11", "c++17", "c++20"])
def test_header_compiles_cleanly_as_cxx(tmp_path, std):
    src = write(tmp_path / "inc.cpp", INCLUDE_TWICE)
    run([MPICXX, f"-std={std}", *STRICT, "-c", src, "-o", tmp_path / "inc.o"])


def test_deprecation_marks_are_opt_in(tmp_path):
    src = write(
        tmp_path / "dep.c",
        "#include <mpi.h>\nint f(void) { int k = 0; return MPI_Keyval_free(&k); }\n",
    )
    run([MPICC, *STRICT, "-fsyntax-only", src])
    proc = run([MPICC, "-DMPIWASM_WARN_DEPRECATED", "-fsyntax-only", src])
    assert "MPI_Keyval_free' is deprecated" in proc.stderr


def test_type_sizes_on_wasm32(tmp_path):
    src = write(
        tmp_path / "sizes.c",
        """
#include <mpi.h>
#include <stddef.h>
_Static_assert(sizeof(MPI_Comm) == 4, "MPI_Comm");
_Static_assert(sizeof(MPI_Datatype) == 4, "MPI_Datatype");
_Static_assert(sizeof(MPI_Request) == 4, "MPI_Request");
_Static_assert(sizeof(MPI_T_enum) == 4, "MPI_T_enum");
_Static_assert(sizeof(MPI_Status) == 32, "MPI_Status");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == 0, "MPI_SOURCE");
_Static_assert(offsetof(MPI_Status, MPI_TAG) == 4, "MPI_TAG");
_Static_assert(offsetof(MPI_Status, MPI_ERROR) == 8, "MPI_ERROR");
_Static_assert(sizeof(MPI_Aint) == 4, "MPI_Aint");
_Static_assert(sizeof(MPI_Offset) == 8, "MPI_Offset");
_Static_assert(sizeof(MPI_Count) == 8, "MPI_Count");
_Static_assert(sizeof(long) == 4, "long");
_Static_assert(sizeof(void *) == 4, "pointer");
_Static_assert(sizeof(MPI_T_cb_safety) == 4, "enum");
_Static_assert(MPI_VERSION == 3 && MPI_SUBVERSION == 1, "API level");
_Static_assert(MPI_ABI_VERSION == 1 && MPI_ABI_SUBVERSION == 0, "ABI version");
_Static_assert(MPI_ERR_ABI == 62 && MPI_ANY_SOURCE == -1 && MPI_UNDEFINED == -32766, "ints");
#ifndef __wasm32__
#error not wasm32
#endif
""",
    )
    run([MPICC, "-std=c11", *STRICT, "-c", src, "-o", tmp_path / "sizes.o"])


def test_constants_match_the_abi_table():
    text = (HEADER_DIR / "mpi.h").read_text()
    assert "#define MPI_COMM_WORLD                     ((MPI_Comm)0x00000101)" in text
    defines = dict(re.findall(r"^#define (MPI\w+)\s+(.*?)\s*(?:/\*.*)?$", text, re.M))
    defines.update(re.findall(r"^    (MPI_T_\w+) = (\w+),?$", text, re.M))  # enumerators
    with (HEADER_DIR / "abi-constants.tsv").open() as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    checked = 0
    # what the standard ABI header leaves out is defined only in the guest's
    # transfer section (MPI_Fint and MPI_F08_status come with it)
    abi, transfer = text.split("/* ---- Handle and status transfer", 1)
    for r in rows:
        name, value = r["name"], r["value"]
        if value == "n/a":
            assert not re.search(rf"\b{name}\b", abi), f"{name} must not be defined outside the transfer section"
            assert re.search(rf"^#define {name}\s+\(\(MPI_F\w+ \*\)0\)$", transfer, re.M), name
            continue
        assert name in defines, f"{name} not defined"
        expr = defines[name]
        while re.fullmatch(r"MPI_\w+", expr):  # alias of another constant
            expr = defines[expr]
        assert "&" not in expr, f"{name} must not be an address"
        if r["kind"] in ("handle", "sentinel", "callback") or r["c_type"] == "MPI_Offset":
            # an integer constant cast to the C type
            assert expr.startswith(f"(({r['c_type']})"), f"{name}: {expr}"
        if name in ("MPI_VERSION", "MPI_SUBVERSION"):
            continue  # the header declares the MPI-3.1 API level
        literal = re.findall(r"-?(?:0[xX][0-9a-fA-F]+|\d+)", expr)[-1]
        if r["kind"] == "callback" and int(value, 0) == 1:
            value = "0xFFFFFFFF"  # MPI_*_DUP_FN: 1 is a valid function index on wasm32
        assert int(literal, 0) == int(value, 0), f"{name}: {expr} != {value}"
        checked += 1
    assert checked == len([r for r in rows if r["value"] != "n/a"]) - 2
    assert defines["MPI_VERSION"] == "3" and defines["MPI_SUBVERSION"] == "1"


def test_function_inventory():
    names = (HEADER_DIR / "mpi-functions.txt").read_text().splitlines()
    assert names == sorted(set(names)), "mpi-functions.txt must be sorted and unique"
    assert all(n.startswith("MPI_") for n in names)
    for required in [
        "MPI_Send", "MPI_Recv", "MPI_Send_c", "MPI_T_init_thread", "MPI_T_event_read",
        "MPI_Abi_get_version", "MPI_Session_init",
        "MPI_Attr_get", "MPI_Keyval_create", "MPI_Pcontrol", "MPI_Wtime",
        "MPI_Type_extent", "MPI_Type_lb", "MPI_Type_ub", "MPI_Isendrecv_replace_c",
    ]:
        assert required in names, required
    # handle and status transfer are defined inline, not imported
    for excluded in ["MPI_Comm_c2f", "MPI_Status_f2c", "MPI_Comm_toint", "MPI_Address", "MPI_Type_struct"]:
        assert excluded not in names, excluded
    text = (HEADER_DIR / "mpi.h").read_text()
    inline = set(re.findall(r"^static inline \w+ (P?MPI_\w+)\(", text, re.M))
    for kind in ("Comm", "Errhandler", "File", "Group", "Info", "Message", "Op", "Request", "Session", "Type", "Win"):
        for op in ("toint", "fromint", "c2f", "f2c"):
            assert {f"MPI_{kind}_{op}", f"PMPI_{kind}_{op}"} <= inline, (kind, op)
    for status in ("c2f", "f2c", "c2f08", "f082c", "f082f", "f2f08", *(f"{op}_{field}" for op in ("get", "set") for field in ("source", "tag", "error"))):
        assert {f"MPI_Status_{status}", f"PMPI_Status_{status}"} <= inline, status
    declared = set(re.findall(r"^(?:int|double|MPI_\w+) (MPI_\w+)\(", text, re.M))
    pdeclared = set(re.findall(r"^(?:int|double|MPI_\w+) P(MPI_\w+)\(", text, re.M))
    assert declared == set(names)
    assert pdeclared == set(names)
    assert "int MPI_Pcontrol(const int level, ...);" in text


# ---------------------------------------------------------------------------
# Compiler wrappers
# ---------------------------------------------------------------------------


def test_send_recv_links_to_wasm_with_mpi_imports(tmp_path):
    src = write(tmp_path / "sendrecv.c", SEND_RECV_C)
    out = tmp_path / "sendrecv.wasm"
    run([MPICC, *STRICT, src, "-o", out])
    mod = load_wasm(out)
    env = mod.func_imports("env")
    assert {"MPI_Init", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Send", "MPI_Recv", "MPI_Finalize"} <= env
    assert all(name.startswith(("MPI_", "PMPI_")) for name in env), env
    assert any(m == "wasi_snapshot_preview1" for (m, _, _) in mod.imports)
    for name in ("_start", "malloc", "free", "memory"):
        assert name in mod.exports, f"{name} not exported"
    # 8 MiB stack: __stack_pointer (the first, mutable global) starts above it.
    mutable_inits = [init for (mut, init) in mod.globals if mut]
    assert mutable_inits and mutable_inits[0] >= 8 * 1024 * 1024


def test_undefined_data_symbol_fails_to_link(tmp_path):
    src = write(
        tmp_path / "undef.c",
        "extern int some_undefined_global;\nint main(void) { return some_undefined_global; }\n",
    )
    proc = run([MPICC, src, "-o", tmp_path / "undef.wasm"], check=False)
    assert proc.returncode != 0
    assert "undefined symbol: some_undefined_global" in proc.stderr
    assert not (tmp_path / "undef.wasm").exists()


def test_undefined_non_mpi_function_fails_to_link(tmp_path):
    # so configure/CMake function checks are truthful: fork is in no library
    src = write(tmp_path / "fk.c", "int fork(void);\nint main(void) { return fork(); }\n")
    proc = run([MPICC, src, "-o", tmp_path / "fk.wasm"], check=False)
    assert proc.returncode != 0
    assert "undefined symbol: fork" in proc.stderr
    # gethostname comes from the porting layer; without it, it is missing too
    gh = write(tmp_path / "gh.c", "#include <unistd.h>\nint main(void) { char b[8]; return gethostname(b, 8); }\n")
    run([MPICC, gh, "-o", tmp_path / "gh.wasm"])
    assert load_wasm(tmp_path / "gh.wasm").func_imports("wasm_mpi_host") == {"host_name"}
    proc = run([MPICC, "-wasm-strict", gh, "-o", tmp_path / "gh-strict.wasm"], check=False)
    assert proc.returncode != 0 and "undefined symbol: gethostname" in proc.stderr


def test_pmpi_names_are_importable(tmp_path):
    src = write(tmp_path / "p.c", "#include <mpi.h>\nint main(int c, char **v) { PMPI_Init(&c, &v); return PMPI_Finalize(); }\n")
    run([MPICC, src, "-o", tmp_path / "p.wasm"])
    assert {"PMPI_Init", "PMPI_Finalize"} <= load_wasm(tmp_path / "p.wasm").func_imports("env")


def test_show_prints_command_without_running(tmp_path):
    src = write(tmp_path / "sendrecv.c", SEND_RECV_C)
    out = tmp_path / "never.wasm"
    proc = run([MPICC, "-show", src, "-o", out])
    line = proc.stdout.strip()
    assert "\n" not in line
    words = line.split()
    assert re.search(r"clang", words[0])
    assert f"-Wl,--allow-undefined-file={HEADER_DIR}/mpi-imports.syms" in words
    assert "-Wl,--allow-undefined" not in words and "-Wl,--import-undefined" not in words
    assert "-Wl,--export=malloc" in words and "-Wl,--export=free" in words
    assert "-Wl,-z,stack-size=8388608" in words
    assert f"-I{HEADER_DIR}" in words
    assert "--target=wasm32-wasi" in words
    assert words.index("-O3") < words.index(str(src)), "defaults must precede user arguments"
    assert not out.exists()


def test_showme_compile_and_link():
    compile_flags = run([MPICC, "-showme:compile"]).stdout.split()
    link_flags = run([MPICC, "-showme:link"]).stdout.split()
    assert f"-I{HEADER_DIR}" in compile_flags
    assert not any("undefined" in f for f in compile_flags)
    assert f"-Wl,--allow-undefined-file={HEADER_DIR}/mpi-imports.syms" in link_flags
    assert f"-I{HEADER_DIR}" not in link_flags
    cxx_compile = run([MPICXX, "-showme:compile"]).stdout.split()
    assert "-fno-exceptions" in cxx_compile


def test_compile_only_adds_no_link_flags():
    words = run([MPICC, "-show", "-c", "x.c"]).stdout.split()
    assert "-c" in words
    assert not any(w.startswith("-Wl,") for w in words)


def test_user_optimization_flag_replaces_default():
    words = run([MPICC, "-show", "-O1", "x.c"]).stdout.split()
    assert "-O3" not in words and "-O1" in words and "-msimd128" in words
    words = run([MPICC, "-show", "x.c"]).stdout.split()
    assert "-O3" in words and "-msimd128" in words


def test_compile_then_link_in_two_steps(tmp_path):
    src = write(tmp_path / "sendrecv.c", SEND_RECV_C)
    obj = tmp_path / "sendrecv.o"
    out = tmp_path / "app.wasm"
    run([MPICC, "-c", src, "-o", obj], cwd=tmp_path)
    assert obj.exists() and obj.read_bytes()[:4] == b"\0asm"
    proc = run([MPICC, *STRICT, obj, "-o", out, "-lm"], cwd=tmp_path)
    assert "warning" not in proc.stderr
    mod = load_wasm(out)
    assert "MPI_Send" in mod.func_imports("env")
    assert {"_start", "malloc", "free"} <= set(mod.exports)


def slp_thresholds(*args, cwd):
    """The -slp-threshold options clang's compiler job gets (clang -###)."""
    proc = run([MPICC, "-###", *args], cwd=cwd)
    return re.findall(r'"-slp-threshold=(-?\d+)"', proc.stderr)


def test_vectorizer_threshold_default_yields_to_the_users(tmp_path):
    """wasm-mpicc lowers the SLP threshold when compiling (toolchain/README.md);
    a user's own threshold replaces it; a link alone gets none (clang would
    call it unused, an error under -Werror)."""
    src = write(tmp_path / "k.c", "double f(double *a) { return a[0] * a[1]; }\n")
    assert slp_thresholds("-c", src, "-o", tmp_path / "k.o", cwd=tmp_path) == ["-4"]
    assert slp_thresholds("-mllvm", "-slp-threshold=2", "-c", src, "-o", tmp_path / "k.o", cwd=tmp_path) == ["2"]
    run([MPICC, "-c", src, "-o", tmp_path / "k.o"], cwd=tmp_path)
    assert slp_thresholds(tmp_path / "k.o", "-o", tmp_path / "k.wasm", cwd=tmp_path) == []


def test_preprocess_and_defines(tmp_path):
    src = write(tmp_path / "pp.c", "#include <mpi.h>\nint x = FOO;\nvoid *w = MPI_COMM_WORLD;\n")
    proc = run([MPICC, "-E", "-DFOO=17", src])
    assert "int x = 17;" in proc.stdout
    assert "((MPI_Comm)0x00000101)" in proc.stdout


def test_wasi_headers_never_host_glibc(tmp_path):
    src = write(
        tmp_path / "wasi.c",
        """
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <mpi.h>
#ifndef __wasi__
#error "stdio.h is not wasi-libc's"
#endif
#ifdef __GLIBC__
#error "host glibc headers were used"
#endif
int main(void) { printf("%f\\n", sqrt(2.0)); return 0; }
""",
    )
    run([MPICC, "-std=c11", *STRICT, src, "-o", tmp_path / "wasi.wasm", "-lm"])
    # the include search path holds no host directory
    proc = run([MPICC, "-E", "-v", "-x", "c", "/dev/null", "-o", tmp_path / "null.i"])
    search = proc.stderr.split("#include <...> search starts here:")[1].split("End of search list.")[0]
    dirs = [os.path.normpath(d.strip()) for d in search.strip().splitlines()]
    assert str(HEADER_DIR) in dirs
    assert not {"/usr/include", "/usr/local/include"} & set(dirs), dirs
    assert not any("x86_64" in d or "linux-gnu" in d for d in dirs), dirs
    glibc_only = write(tmp_path / "glibc.c", "#include <execinfo.h>\nint main(void) { return 0; }\n")
    proc = run([MPICC, glibc_only, "-o", tmp_path / "glibc.wasm"], check=False)
    assert proc.returncode != 0 and "execinfo.h" in proc.stderr


def test_emulated_libraries_link(tmp_path):
    src = write(
        tmp_path / "sig.c",
        "#include <signal.h>\nint main(void) { signal(SIGINT, SIG_IGN); return 0; }\n",
    )
    run([MPICC, *STRICT, src, "-o", tmp_path / "sig.wasm"])
    assert "signal" not in load_wasm(tmp_path / "sig.wasm").func_imports("env")
    proc = run([MPICC, "-wasm-strict", src, "-o", tmp_path / "nosig.wasm"], check=False)
    assert proc.returncode != 0 and "_WASI_EMULATED_SIGNAL" in proc.stderr
    # by hand, as before the layer, still works in strict mode
    run([MPICC, "-wasm-strict", "-D_WASI_EMULATED_SIGNAL", src, "-o", tmp_path / "sig2.wasm", "-lwasi-emulated-signal"])


def test_porting_layer_flags(tmp_path):
    words = run([MPICC, "-show", "x.c", "-o", "x.wasm", "-lm"]).stdout.split()
    for e in ("SIGNAL", "PROCESS_CLOCKS", "GETPID", "MMAN"):
        assert f"-D_WASI_EMULATED_{e}" in words
    for f in ("sysconf", "uname", "malloc", "calloc"):
        assert f"-Wl,--wrap={f}" in words
    compat = [w for w in words if w.endswith("libwasm-mpi-compat.a")]
    assert len(compat) == 1 and Path(compat[0]).is_file()
    # the layer's libraries come after the user's, so they resolve what those leave
    assert words.index("-lm") < words.index(compat[0]) < words.index("-lwasi-emulated-signal")
    assert f"{REPO}/toolchain/include" in words
    strict = run([MPICC, "-show", "-wasm-strict", "x.c"]).stdout.split()
    assert "-wasm-strict" not in strict
    assert not any("EMULATED" in w or "--wrap" in w or "compat" in w or "toolchain/include" in w for w in strict)
    assert "-D_WASI_EMULATED_MMAN" in run([MPICC, "-showme:compile"]).stdout.split()
    assert any(w.endswith("libwasm-mpi-compat.a") for w in run([MPICC, "-showme:link"]).stdout.split())


def test_compat_imports_only_what_is_called(tmp_path):
    """A module that calls none of gethostname, uname, sysconf and
    sched_getaffinity imports nothing from the embedder's wasm_mpi_host
    module, so it runs on any WASI runtime."""
    plain = write(tmp_path / "plain.c", "#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n"
                  "int main(void) { char *p = malloc(1 << 20); printf(\"%ld\\n\", (long)clock()); "
                  "free(p); return 0; }\n")
    run([MPICC, *STRICT, plain, "-o", tmp_path / "plain.wasm"])
    mod = load_wasm(tmp_path / "plain.wasm")
    assert all(m == "wasi_snapshot_preview1" for (m, _, _) in mod.imports), mod.imports
    assert "malloc" in mod.exports and "__wrap_malloc" not in mod.exports
    cpus = write(tmp_path / "cpus.c", "#include <unistd.h>\nint main(void) { return sysconf(_SC_NPROCESSORS_ONLN) < 1; }\n")
    run([MPICC, cpus, "-o", tmp_path / "cpus.wasm"])
    assert load_wasm(tmp_path / "cpus.wasm").func_imports("wasm_mpi_host") == {"cpu_count"}


def test_cxx_exceptions_fail_clearly(tmp_path):
    src = write(tmp_path / "throw.cpp", "#include <stdexcept>\n"
                "int f(int x) { if (x < 0) throw std::runtime_error(\"negative\"); return x; }\n"
                "int main() { try { return f(1); } catch (const std::exception &) { return 1; } }\n")
    proc = run([MPICXX, "-c", src, "-o", tmp_path / "throw.o"], check=False)
    assert proc.returncode != 0
    assert "exceptions disabled" in proc.stderr
    assert "C++ exceptions are not available" in proc.stderr and "Wasmer 4.4" in proc.stderr
    proc = run([MPICXX, "-fexceptions", "-c", src, "-o", tmp_path / "throw.o"], check=False)
    assert proc.returncode != 0 and "-fexceptions: C++ exceptions are not available" in proc.stderr
    assert not (tmp_path / "throw.o").exists()


def test_clang_errors_keep_exit_code(tmp_path):
    bad = write(tmp_path / "bad.c", "int main(void) { return undeclared_identifier; }\n")
    proc = run([MPICC, "-c", bad, "-o", tmp_path / "bad.o"], check=False)
    clang = run([MPICC, "-showme:command"]).stdout.strip()
    direct = run([clang, "--target=wasm32-wasi", "-c", bad, "-o", tmp_path / "bad2.o"], check=False)
    assert proc.returncode == direct.returncode != 0
    assert "undeclared_identifier" in proc.stderr


def test_version_and_v_do_not_link(tmp_path):
    proc = run([MPICC, "--version"], cwd=tmp_path)
    assert "clang" in proc.stdout.lower() and "wasm32" in proc.stdout
    run([MPICC, "-v"], cwd=tmp_path)
    assert not (tmp_path / "a.out").exists()


def test_removed_mpi1_names(tmp_path):
    src = write(
        tmp_path / "old.c",
        """
#include <mpi.h>
int main(int argc, char **argv)
{
    MPI_Aint addr, extent, lb, ub;
    int x = 0, len = 1;
    MPI_Datatype t, types[1] = {MPI_INT};
    MPI_Errhandler eh;
    MPI_Init(&argc, &argv);
    MPI_Address(&x, &addr);
    MPI_Type_struct(1, &len, &addr, types, &t);
    MPI_Type_extent(t, &extent);
    MPI_Type_lb(t, &lb);
    MPI_Type_ub(t, &ub);
    MPI_Errhandler_get(MPI_COMM_WORLD, &eh);
    MPI_Errhandler_set(MPI_COMM_WORLD, eh);
    return MPI_Finalize();
}
""",
    )
    out = tmp_path / "old.wasm"
    run([MPICC, *STRICT, src, "-o", out])
    env = load_wasm(out).func_imports("env")
    assert {"MPI_Get_address", "MPI_Type_create_struct", "MPI_Type_extent", "MPI_Type_lb",
            "MPI_Type_ub", "MPI_Comm_get_errhandler", "MPI_Comm_set_errhandler"} <= env
    assert "MPI_Address" not in env
    proc = run([MPICC, "-DMPI_NO_REMOVED_NAMES", "-c", src, "-o", tmp_path / "old.o"], check=False)
    assert proc.returncode != 0 and "MPI_Address" in proc.stderr


def test_cxx_program_builds(tmp_path):
    src = write(
        tmp_path / "app.cpp",
        """
#include <mpi.h>
#include <vector>
#include <algorithm>
#include <numeric>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::vector<double> v(16);
    std::iota(v.begin(), v.end(), static_cast<double>(rank));
    std::sort(v.begin(), v.end(), [](double a, double b) { return a > b; });
    double local = std::accumulate(v.begin(), v.end(), 0.0), total = 0.0;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return total > 0.0 ? 0 : 1;
}
""",
    )
    out = tmp_path / "app.wasm"
    run([MPICXX, "-std=c++17", *STRICT, src, "-o", out])
    mod = load_wasm(out)
    assert {"MPI_Comm_rank", "MPI_Allreduce"} <= mod.func_imports("env")
    assert {"_start", "malloc", "free"} <= set(mod.exports)


def test_cmake_example_configures_and_builds(tmp_path):
    build = tmp_path / "build"
    proc = run(["cmake", "-S", CMAKE_EXAMPLE, "-B", build, f"-DCMAKE_TOOLCHAIN_FILE={CMAKE_TOOLCHAIN}"])
    assert "Found MPI_C" in proc.stdout
    run(["cmake", "--build", build])
    out = build / "hello_mpi.wasm"
    assert out.exists()
    mod = load_wasm(out)
    assert {"MPI_Init", "MPI_Sendrecv", "MPI_Finalize"} <= mod.func_imports("env")
    assert {"_start", "malloc", "free"} <= set(mod.exports)


def test_autoconf_configure_with_host(tmp_path):
    write(
        tmp_path / "configure.ac",
        "AC_INIT([t], [1.0])\nAC_PROG_CC\nAC_CHECK_HEADERS([mpi.h], [], [AC_MSG_ERROR([no mpi.h])])\n"
        "AC_CHECK_FUNC([MPI_Init], [], [AC_MSG_ERROR([no MPI_Init])])\nAC_OUTPUT\n",
    )
    run(["autoconf"], cwd=tmp_path)
    proc = run(["./configure", "--host=wasm32-wasi", f"CC={MPICC}"], cwd=tmp_path)
    assert "checking whether the C compiler works... yes" in proc.stdout
    assert "checking whether we are cross compiling... yes" in proc.stdout


def test_wrapper_works_through_symlink(tmp_path):
    link = tmp_path / "mpicc-link"
    os.symlink(MPICC, link)
    words = run([link, "-showme:compile"]).stdout.split()
    assert f"-I{HEADER_DIR}" in words


def test_wasi_sdk_path_is_honoured(tmp_path):
    """A WASI SDK layout (bin/clang, share/wasi-sysroot) assembled from the
    Debian packages stands in for a downloaded wasi-sdk."""
    clang = run([MPICC, "-showme:command"], env={**os.environ, "WASI_SDK_PATH": ""}).stdout.strip()
    clang_path = Path(shutil.which(clang)).resolve()
    clangxx_path = Path(shutil.which(clang.replace("clang", "clang++", 1))).resolve()
    sdk = tmp_path / "wasi-sdk"
    sysroot = sdk / "share" / "wasi-sysroot"
    (sdk / "bin").mkdir(parents=True)
    (sysroot / "include").mkdir(parents=True)
    (sysroot / "lib").mkdir(parents=True)
    os.symlink(clang_path, sdk / "bin" / "clang")
    os.symlink(clangxx_path, sdk / "bin" / "clang++")
    os.symlink("/usr/include/wasm32-wasi", sysroot / "include" / "wasm32-wasi")
    os.symlink("/usr/include/wasm32-wasi/c++", sysroot / "include" / "c++")
    os.symlink("/usr/lib/wasm32-wasi", sysroot / "lib" / "wasm32-wasi")
    env = {**os.environ, "WASI_SDK_PATH": str(sdk)}

    words = run([MPICC, "-show", "x.c"], env=env).stdout.split()
    assert words[0] == f"{sdk}/bin/clang"
    assert f"--sysroot={sysroot}" in words
    assert any(w.startswith("-Wl,--allow-undefined-file=") for w in words)
    assert run([MPICXX, "-showme:command"], env=env).stdout.strip() == f"{sdk}/bin/clang++"

    src = write(tmp_path / "sendrecv.c", SEND_RECV_C)
    run([MPICC, *STRICT, src, "-o", tmp_path / "sdk.wasm"], env=env)
    assert "MPI_Send" in load_wasm(tmp_path / "sdk.wasm").func_imports("env")
    cxx = write(tmp_path / "v.cpp", "#include <mpi.h>\n#include <vector>\n"
                "int main() { std::vector<int> v(3, 1); return v[0] - 1 + MPI_SUCCESS; }\n")
    run([MPICXX, *STRICT, cxx, "-o", tmp_path / "sdkxx.wasm"], env=env)


def test_wasm_cc_override():
    env = {**os.environ, "WASM_CC": "clang-16"}
    env.pop("WASI_SDK_PATH", None)
    assert shutil.which("clang-16"), "clang-16 is missing: run scripts/setup.sh"
    assert run([MPICC, "-showme:command"], env=env).stdout.strip() == "clang-16"
    assert run([MPICXX, "-showme:command"], env=env).stdout.strip() == "clang++-16"
    env["WASM_CC"] = "no-such-compiler-xyz"
    proc = run([MPICC, "-c", "x.c"], env=env, check=False)
    assert proc.returncode != 0 and "no-such-compiler-xyz" in proc.stderr
