"""Tests for toolchain/bin/karmem-gen, the KarmemIDL-subset schema compiler
(toolchain/README.md, "Karmem schemas: karmem-gen").  Run with:
    python3 -m pytest -q tests/toolchain/test_karmem_gen.py

Generated headers are compiled natively (gcc, mpicc) and for wasm32
(wasm-mpicc); the programs run natively and under the embedder, and their
outputs must agree byte for byte.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
KARMEM_GEN = REPO / "toolchain" / "bin" / "karmem-gen"
MPICC = REPO / "toolchain" / "bin" / "wasm-mpicc"
EMBEDDER = Path(os.environ.get("EMBEDDER_BIN") or REPO / "target" / "release" / "embedder")
PROGRAMS = Path(__file__).resolve().parent / "programs"
SCHEMA = PROGRAMS / "particles.km"
LAYOUT_C = PROGRAMS / "karmem_layout.c"

STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
TIMEOUT = 120

# error codes of the generated headers (documented in toolchain/README.md)
EARG, EALIGN, ESIZE, EMAGIC, EVERSION, ESCHEMA, ECOLUMN, ERANGE = -1, -2, -3, -4, -5, -6, -7, -8


def run(cmd, check=True, **kw):
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=TIMEOUT, **kw)
    if check and proc.returncode != 0:
        raise AssertionError(
            f"command failed ({proc.returncode}): {' '.join(map(str, cmd))}\n"
            f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
        )
    return proc


def fnv1a32(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def gen(schema: Path, out: Path) -> Path:
    run([KARMEM_GEN, schema, "-o", out])
    return out


def native_cc(src, out, incdir, *extra):
    run(["gcc", *STRICT, "-O2", "-I", incdir, src, "-o", out, *extra])
    return out


def wasm_cc(src, out, incdir, *extra):
    proc = run([MPICC, *STRICT, "-I", incdir, src, "-o", out, *extra])
    assert "warning" not in proc.stderr, proc.stderr
    return out


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("embedder-cache")


def run_wasm(module, cache, *args):
    if not EMBEDDER.exists():
        pytest.fail(f"{EMBEDDER} is missing: run `make build` first")
    return run([EMBEDDER, "--cache-dir", cache, module, *args])


@pytest.fixture(scope="module")
def particles_h(tmp_path_factory):
    d = tmp_path_factory.mktemp("gen")
    gen(SCHEMA, d / "particles.h")
    return d


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# ---------------------------------------------------------------------------
# Layout: identical on x86-64 and wasm32, and as documented
# ---------------------------------------------------------------------------


def parse_layout(out: str, what: str):
    cols = []
    for m in re.finditer(rf"^{what} column (\d+) name_hash 0x(\w+) type 0x(\w+) elem_size (\d+) offset (\d+) "
                         r"byte_offset (\d+) length (\d+) capacity (\d+)$", out, re.M):
        i, nh, ty, es, off, boff, ln, cap = m.groups()
        cols.append(dict(index=int(i), name_hash=int(nh, 16), type=int(ty, 16), elem_size=int(es),
                         offset=int(off), byte_offset=int(boff), length=int(ln), capacity=int(cap)))
    raw = bytes.fromhex(re.search(rf"^{what} header_raw (\w+)$", out, re.M).group(1))
    return raw, cols


# What the README says of particles.km: column names, element types and sizes.
EXPECTED_COLUMNS = [
    ("Sim", 13, 56),  # the root record: size word + step, time, label, origin
    ("Sim.params", 13, 40),
    ("Sim.particles.pos", 12, 16),  # Vec3: 12 bytes padded to 8
    ("Sim.particles.vel", 12, 16),
    ("Sim.particles.mass", 10, 8),
    ("Sim.particles.id", 3, 4),
    ("Sim.particles.flags", 0x101, 4),  # [4]u8
    ("Sim.probes", 12, 48),  # AoS: one column of Probe structs
    ("Sim.histogram", 3, 4),
]


def test_layout_identical_native_and_wasm(particles_h, tmp_path, cache):
    native = native_cc(LAYOUT_C, tmp_path / "layout.native", particles_h)
    wasm = wasm_cc(LAYOUT_C, tmp_path / "layout.wasm", particles_h)
    out_native = run([native]).stdout
    out_wasm = run_wasm(wasm, cache).stdout
    assert "FAILED" not in out_native and out_native.rstrip().endswith("done"), out_native
    assert out_wasm == out_native  # same layout, same bytes (the checksum covers the whole block)

    out = out_native
    assert "sizes Vec3 16 Particle 48 Probe 48 Params 40 Sim 56 header 32 column 20" in out
    assert "check 0 success" in out
    assert "label 16 'a-label-16-bytes'" in out  # a full string has no terminator
    assert "params bytes 36 dt 0.001 steps 250 gravity.y -9.75" in out

    # the header, decoded from its raw little-endian bytes as the README lays it out
    raw, cols = parse_layout(out, "default")
    magic, version, ncol, schema_hash, epoch, total, reserved = struct.unpack("<IHHQQII", raw)
    assert raw[:4] == b"KRMM" and magic == 0x4D4D524B
    assert version == 1 and ncol == len(EXPECTED_COLUMNS) and epoch == 7 and reserved == 0
    hash_cli = run([KARMEM_GEN, "--hash", SCHEMA]).stdout.strip()
    assert schema_hash == int(hash_cli, 16)
    assert f"bytes {total} BYTES {total}" in out

    # the columns: name hashes, types, sizes; 64-byte aligned offsets in 64-byte units
    header_bytes = (32 + 20 * ncol + 63) // 64 * 64
    end = header_bytes
    for c, (name, ty, es) in zip(cols, EXPECTED_COLUMNS):
        assert c["name_hash"] == fnv1a32(name.encode()), name
        assert (c["type"], c["elem_size"]) == (ty, es), name
        assert c["byte_offset"] == 64 * c["offset"] and c["byte_offset"] % 64 == 0, name
        assert c["byte_offset"] == end, name  # packed one after another, each rounded up to 64
        end = (c["byte_offset"] + c["capacity"] * c["elem_size"] + 63) // 64 * 64
    assert end == total
    lengths = {name: c["length"] for c, (name, _, _) in zip(cols, EXPECTED_COLUMNS)}
    assert lengths["Sim.particles.mass"] == 700 and lengths["Sim.probes"] == 5 and lengths["Sim"] == 1

    # run-time capacities move the columns, still aligned and in bounds
    _, small = parse_layout(out, "small")
    assert [c["capacity"] for c in small[2:]] == [5, 5, 5, 5, 5, 0, 100]
    assert all(c["byte_offset"] % 64 == 0 for c in small)

    # karmem-gen --layout (Python) agrees with the C layout
    text = run([KARMEM_GEN, "--layout", SCHEMA]).stdout
    for c in cols:
        assert re.search(rf"^column {c['index']} \S+ hash=0x{c['name_hash']:08x} type=0x{c['type']:x} "
                         rf"elem={c['elem_size']} offset={c['offset']} capacity={c['capacity']}$", text, re.M), text
    assert f"bytes {total}\n" in text


def test_header_compiles_cleanly_everywhere(particles_h, tmp_path):
    """C99 warning-free natively (gcc, clang through wasm-mpicc), with and
    without mpi.h (the MPI helper), and as C++."""
    src = write(tmp_path / "use.c", '#include <mpi.h>\n#include "particles.h"\n#include "particles.h"\n'
                "int use(void *b);\nint use(void *b) { MPI_Datatype t; uint32_t c = particles_COL_Sim;\n"
                "  return particles_columns_type(b, &c, 1, &t) + particles_check(b, particles_BYTES); }\n")
    plain = write(tmp_path / "plain.c", '#include "particles.h"\nint use(void *b);\n'
                  "int use(void *b) { return particles_init(b, particles_bytes()); }\n")
    mpicc = shutil.which("mpicc.openmpi") or shutil.which("mpicc")
    assert mpicc, "mpicc is missing: run scripts/setup.sh"
    run([mpicc, *STRICT, "-I", particles_h, "-c", src, "-o", tmp_path / "use.o"])
    run(["gcc", *STRICT, "-I", particles_h, "-c", plain, "-o", tmp_path / "plain.o"])
    proc = run([MPICC, *STRICT, "-I", particles_h, "-c", src, "-o", tmp_path / "use-wasm.o"])
    assert "warning" not in proc.stderr
    assert "particles_columns_type" not in run(["gcc", "-E", "-I", particles_h, plain]).stdout
    cxx = write(tmp_path / "use.cpp", '#include "particles.h"\nint use(void *b);\n'
                "int use(void *b) { return particles_init(b, particles_bytes()) + (int)particles_particles_length(b); }\n")
    run(["g++", "-std=c++11", "-Wall", "-Wextra", "-Werror", "-I", particles_h, "-c", cxx, "-o", tmp_path / "use-cxx.o"])


# ---------------------------------------------------------------------------
# Readers validate: schema mismatch, truncation, corruption
# ---------------------------------------------------------------------------

ERRORS_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "particles.h"
#include "other.h"

static unsigned char *good, *b;
static size_t bytes;

static struct karmem_gen_column *col(int i) { return karmem_gen_columns_mut(b) + i; }
static void fresh(void) { memcpy(b, good, bytes); }
static void report(const char *what, int rc) { printf("%s %d %s\n", what, rc, particles_strerror(rc)); }

int main(void)
{
    unsigned char *raw = malloc(2 * particles_BYTES + 128), *raw2 = malloc(particles_BYTES + 64);
    uint32_t saved;
    bytes = particles_bytes();
    b = raw + (64 - (uintptr_t)raw % 64) % 64;
    good = raw2 + (64 - (uintptr_t)raw2 % 64) % 64;
    if (particles_init(good, bytes) != 0 || particles_particles_set_length(good, 10) != 0)
        return 1;
    fresh();
    report("valid", particles_check(b, bytes));
    report("other-schema", other_check(b, bytes));
    report("other-hash-differs", other_SCHEMA_HASH != particles_SCHEMA_HASH ? 0 : 1);
    report("truncated", particles_check(b, bytes - 64));
    report("tiny", particles_check(b, 16));
    report("null", particles_check(NULL, bytes));
    report("misaligned", particles_check(b + 4, bytes));
    fresh(); ((struct karmem_gen_header *)b)->magic ^= 1u; report("magic", particles_check(b, bytes));
    fresh(); ((struct karmem_gen_header *)b)->version = 2; report("version", particles_check(b, bytes));
    fresh(); ((struct karmem_gen_header *)b)->columns = 8; report("column-count", particles_check(b, bytes));
    fresh(); ((struct karmem_gen_header *)b)->bytes += 64; report("bytes-beyond", particles_check(b, bytes));
    fresh(); ((struct karmem_gen_header *)b)->bytes -= 32; report("bytes-unaligned", particles_check(b, bytes));
    fresh(); col(3)->offset -= 1; report("offset-overlap", particles_check(b, bytes));
    fresh(); col(0)->offset = 0; report("offset-in-header", particles_check(b, bytes));
    fresh(); col(8)->offset = 0x7fffffffu; report("offset-outside", particles_check(b, bytes));
    fresh(); col(7)->capacity += 1000; report("capacity-outside", particles_check(b, bytes));
    fresh(); col(4)->length = col(4)->capacity + 1; report("length-over-capacity", particles_check(b, bytes));
    fresh(); col(5)->length = 11; report("soa-lengths-differ", particles_check(b, bytes));
    fresh(); col(6)->type = KARMEM_GEN_T_U32; report("type", particles_check(b, bytes));
    fresh(); col(6)->elem_size = 8; report("elem-size", particles_check(b, bytes));
    fresh(); col(2)->name_hash ^= 1u; report("name-hash", particles_check(b, bytes));
    fresh(); saved = *(uint32_t *)karmem_gen_data(b, 1); *(uint32_t *)karmem_gen_data(b, 1) = karmem_gen_size_word(48);
    report("record-too-big", particles_check(b, bytes));
    *(uint32_t *)karmem_gen_data(b, 1) = saved; report("record-restored", particles_check(b, bytes));
    fresh(); report("larger-buffer", particles_check(b, bytes + 64));
    report("init-too-small", particles_init(b, bytes - 1));
    report("set-length-over", particles_particles_set_length(b, particles_CAPACITY_particles + 1));
    report("string-too-long", particles_set_label(b, "01234567890123456"));
    free(raw);
    free(raw2);
    return 0;
}
"""

EXPECTED_ERRORS = {
    "valid": 0, "other-schema": ESCHEMA, "other-hash-differs": 0, "truncated": ESIZE, "tiny": ESIZE,
    "null": EARG, "misaligned": EALIGN, "magic": EMAGIC, "version": EVERSION, "column-count": ECOLUMN,
    "bytes-beyond": ESIZE, "bytes-unaligned": ECOLUMN, "offset-overlap": ECOLUMN, "offset-in-header": ECOLUMN,
    "offset-outside": ECOLUMN, "capacity-outside": ECOLUMN, "length-over-capacity": ECOLUMN,
    "soa-lengths-differ": ECOLUMN, "type": ECOLUMN, "elem-size": ECOLUMN, "name-hash": ECOLUMN,
    "record-too-big": ECOLUMN, "record-restored": 0, "larger-buffer": 0, "init-too-small": ESIZE,
    "set-length-over": ERANGE, "string-too-long": ERANGE,
}


def test_check_rejects_other_schema_truncation_and_corruption(particles_h, tmp_path, cache):
    # schema B: particles.km with one element field's type changed
    other = SCHEMA.read_text().replace("karmem particles", "karmem other").replace("mass f64;", "mass f32;")
    gen(write(tmp_path / "other.km", other), particles_h / "other.h")
    src = write(tmp_path / "errors.c", ERRORS_C)
    out = run([native_cc(src, tmp_path / "errors", particles_h)]).stdout
    got = {}
    for line in out.splitlines():
        what, code, message = line.split(" ", 2)
        got[what] = int(code)
        if what == "other-schema":
            assert message == "schema mismatch: the block was written with another schema"
    assert got == EXPECTED_ERRORS
    # the same checks hold on wasm32
    assert run_wasm(wasm_cc(src, tmp_path / "errors.wasm", particles_h), cache).stdout == out


# ---------------------------------------------------------------------------
# Dynamic (table) structs: schema evolution
# ---------------------------------------------------------------------------

V1 = """karmem simv1;
struct Conf table { dt f64; }
struct State table @root {
    step u32;
    conf Conf;
    xs []f64 @capacity(8);
}
"""

# v2 appends a field to both tables (the root's `energy` is declared after the
# array, but record fields are laid out in order after step)
V2 = """karmem simv2;
struct Conf table { dt f64; damping f32; }
struct State table @root {
    step u32;
    conf Conf;
    xs []f64 @capacity(8);
    energy f64;
    tag [8]u8 @string;
}
"""

EVOLVE_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include "simv1.h"
#include "simv2.h"

#define EXPECT(c) do { if (!(c)) { printf("FAILED line %d: %s\n", __LINE__, #c); return 1; } } while (0)

int main(void)
{
    static uint64_t mem[2][1024]; /* 8-byte aligned */
    void *b1 = mem[0], *b2 = mem[1];
    char tag[16];
    EXPECT(simv1_SCHEMA_HASH == simv2_SCHEMA_HASH);
    EXPECT(simv1_bytes() <= sizeof mem[0] && simv2_bytes() <= sizeof mem[1]);

    /* v1 writes, v2 reads: the new fields read as zero */
    EXPECT(simv1_init(b1, sizeof mem[0]) == 0);
    EXPECT(simv1_set_step(b1, 41) == 0);
    EXPECT(simv1_Conf_set_dt(simv1_conf(b1), 0.5) == 0);
    EXPECT(simv1_xs_set_length(b1, 3) == 0);
    simv1_xs(b1)[2] = 2.75;
    EXPECT(simv2_check(b1, sizeof mem[0]) == 0);
    printf("v2-reads-v1 step %u energy %g dt %g damping %g xs %u %g tag-len %u root-bytes %u\n",
           (unsigned)simv2_get_step(b1), simv2_get_energy(b1),
           simv2_Conf_get_dt(simv2_conf_const(b1)), simv2_Conf_get_damping(simv2_conf_const(b1)),
           (unsigned)simv2_xs_length(b1), simv2_xs_const(b1)[2],
           (unsigned)simv2_get_tag(b1, tag, sizeof tag), (unsigned)simv2_State_record_bytes(simv2_root_const(b1)));
    EXPECT(simv2_tag_const(b1) == NULL);
    /* the older record has no room for the new fields */
    EXPECT(simv2_set_energy(b1, 1.0) == KARMEM_GEN_ERANGE);
    EXPECT(simv2_Conf_set_damping(simv2_conf(b1), 1.0f) == KARMEM_GEN_ERANGE);
    EXPECT(simv2_set_step(b1, 42) == 0 && simv1_get_step(b1) == 42);

    /* v2 writes, v1 reads: the new fields are ignored */
    EXPECT(simv2_init(b2, sizeof mem[1]) == 0);
    EXPECT(simv2_set_step(b2, 7) == 0);
    EXPECT(simv2_set_energy(b2, -3.5) == 0);
    EXPECT(simv2_set_tag(b2, "v2") == 0);
    EXPECT(simv2_Conf_set_dt(simv2_conf(b2), 0.25) == 0);
    EXPECT(simv2_Conf_set_damping(simv2_conf(b2), 0.75f) == 0);
    EXPECT(simv2_xs_set_length(b2, 8) == 0);
    simv2_xs(b2)[7] = 9.5;
    EXPECT(simv1_check(b2, sizeof mem[1]) == 0);
    printf("v1-reads-v2 step %u dt %g xs %u %g root-bytes %u conf-bytes %u\n",
           (unsigned)simv1_get_step(b2), simv1_Conf_get_dt(simv1_conf_const(b2)),
           (unsigned)simv1_xs_length(b2), simv1_xs_const(b2)[7],
           (unsigned)simv1_State_record_bytes(simv1_root_const(b2)), (unsigned)simv1_Conf_record_bytes(simv1_conf_const(b2)));
    printf("v2-reads-v2 energy %g damping %g tag %u %s\n", simv2_get_energy(b2),
           simv2_Conf_get_damping(simv2_conf_const(b2)), (unsigned)simv2_get_tag(b2, tag, sizeof tag), tag);
    return 0;
}
"""


def test_table_evolution_both_ways(tmp_path, cache):
    d = tmp_path / "inc"
    d.mkdir()
    gen(write(tmp_path / "v1.km", V1), d / "simv1.h")
    gen(write(tmp_path / "v2.km", V2), d / "simv2.h")
    h1 = run([KARMEM_GEN, "--hash", tmp_path / "v1.km"]).stdout
    assert h1 == run([KARMEM_GEN, "--hash", tmp_path / "v2.km"]).stdout  # appended record fields keep the hash
    src = write(tmp_path / "evolve.c", EVOLVE_C)
    out = run([native_cc(src, tmp_path / "evolve", d)]).stdout
    assert "FAILED" not in out, out
    # State v1: size word, step (4..8) = 8 bytes; v2 adds energy (8..16), tag (16..24)
    assert "v2-reads-v1 step 41 energy 0 dt 0.5 damping 0 xs 3 2.75 tag-len 0 root-bytes 8\n" in out
    assert "v1-reads-v2 step 7 dt 0.25 xs 8 9.5 root-bytes 24 conf-bytes 20\n" in out
    assert "v2-reads-v2 energy -3.5 damping 0.75 tag 2 v2\n" in out
    assert run_wasm(wasm_cc(src, tmp_path / "evolve.wasm", d), cache).stdout == out


# ---------------------------------------------------------------------------
# MPI: a datatype of chosen columns moves them between ranks
# ---------------------------------------------------------------------------

COLUMNS_C = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "particles.h"

int main(int argc, char **argv)
{
    int rank, size, i, bad = 0;
    size_t bytes = particles_bytes();
    unsigned char *raw = malloc(bytes + 64), *b;
    uint32_t cols[3] = {particles_COL_particles_mass, particles_COL_histogram, particles_COL_Sim};
    uint32_t badcol = particles_COLUMNS;
    MPI_Datatype t;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    b = raw + (64 - (uintptr_t)raw % 64) % 64;
    if (size != 2 || particles_init(b, bytes) != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    particles_particles_set_length(b, 100);
    particles_histogram_set_length(b, 10);
    if (rank == 0) {
        for (i = 0; i < 100; i++) {
            particles_particles_mass(b)[i] = i + 0.5;
            particles_particles_id(b)[i] = 1000u + (uint32_t)i;
        }
        for (i = 0; i < 10; i++)
            particles_histogram(b)[i] = 7u * (uint32_t)i;
        particles_set_step(b, 99);
    }
    if (particles_columns_type(b, &badcol, 1, &t) != KARMEM_GEN_EARG ||
        particles_columns_type(b, cols, particles_COLUMNS + 1, &t) != KARMEM_GEN_EARG)
        MPI_Abort(MPI_COMM_WORLD, 3);
    if (particles_columns_type(b, cols, 3, &t) != 0)
        MPI_Abort(MPI_COMM_WORLD, 4);
    if (rank == 0) {
        MPI_Send(b, 1, t, 1, 5, MPI_COMM_WORLD);
    } else {
        double mass = 0;
        unsigned long ids = 0, hist = 0;
        MPI_Recv(b, 1, t, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (i = 0; i < 100; i++) {
            mass += particles_particles_mass(b)[i];
            ids += particles_particles_id(b)[i];
        }
        for (i = 0; i < 10; i++)
            hist += particles_histogram(b)[i];
        bad = particles_check(b, bytes);
        printf("rank 1 check %d mass %g ids %lu hist %lu step %lu\n", bad, mass, ids, hist,
               (unsigned long)particles_get_step(b));
    }
    MPI_Type_free(&t);
    MPI_Finalize();
    free(raw);
    return 0;
}
"""


def mpirun_cmd():
    mpirun = shutil.which("mpirun.openmpi") or shutil.which("mpirun")
    assert mpirun, "mpirun is missing: run scripts/setup.sh"
    flags = []
    version = run([mpirun, "--version"])
    if re.search(r"Open MPI|OpenRTE", version.stdout + version.stderr):
        flags = ["--allow-run-as-root", "--oversubscribe"]
    return [mpirun, *flags, "-np", "2"]


def test_columns_type_sends_chosen_columns(particles_h, tmp_path, cache):
    src = write(tmp_path / "columns.c", COLUMNS_C)
    mpicc = shutil.which("mpicc.openmpi") or shutil.which("mpicc")
    native = tmp_path / "columns"
    run([mpicc, *STRICT, "-I", particles_h, src, "-o", native])
    wasm = wasm_cc(src, tmp_path / "columns.wasm", particles_h)
    expected = "rank 1 check 0 mass 5000 ids 0 hist 315 step 99\n"  # id was not sent
    assert run([*mpirun_cmd(), native]).stdout == expected
    if not EMBEDDER.exists():
        pytest.fail(f"{EMBEDDER} is missing: run `make build` first")
    assert run([*mpirun_cmd(), EMBEDDER, "--cache-dir", cache, wasm]).stdout == expected


# ---------------------------------------------------------------------------
# The schema hash
# ---------------------------------------------------------------------------

REFORMATTED = """/* the same schema, written differently */ karmem particles
@packed(false) ;
struct Vec3 inline{x float32;y float32;z f32;}
struct Particle inline { pos Vec3; vel Vec3; // comment
  mass float64; id uint32; flags [4]byte; }
struct Probe inline { name [12]char; at [3]f64; hits u32; on bool; }
struct Params table { dt f64; steps u32; gravity Vec3; }
struct Sim table @root { step u64; time f64; label [16]u8 @string; origin [3]f32; params Params;
  particles []Particle @capacity(64); probes [<2]Probe @aos; histogram []u32 @capacity(1); }
"""


def hash_of(path):
    out = run([KARMEM_GEN, "--hash", path]).stdout.strip()
    assert re.fullmatch(r"0x[0-9a-f]{16}", out), out
    return out


def test_hash_is_stable_and_covers_the_structure(particles_h, tmp_path):
    base = hash_of(SCHEMA)
    # the documented rule: FNV-1a 64 over the canonical text, which the header embeds
    canon = run([KARMEM_GEN, "--canonical", SCHEMA]).stdout.rstrip("\n")
    assert int(base, 16) == fnv1a64(canon.encode())
    assert canon.splitlines()[0] == "karmem-gen/1;packed=0;root=Sim"
    assert f"#define particles_SCHEMA_HASH UINT64_C({base})" in (particles_h / "particles.h").read_text()
    # whitespace, comments, v1 type spellings, capacities (run-time values), declaration order
    assert hash_of(write(tmp_path / "same.km", REFORMATTED)) == base
    text = SCHEMA.read_text()
    vec3 = "struct Vec3 inline {\n    x f32;\n    y f32;\n    z f32;\n}\n"
    assert vec3 in text
    assert hash_of(write(tmp_path / "moved.km", text.replace(vec3, "") + vec3)) == base
    # a root record field appended (table evolution) keeps it
    assert hash_of(write(tmp_path / "grown.km", text.replace("origin [3]f32;", "origin [3]f32;\n    extra u16;"))) == base
    # what changes the layout changes it
    changes = {
        "type": text.replace("    x f32;", "    x f64;"),
        "array-length": text.replace("flags [4]u8;", "flags [5]u8;"),
        "field-name": text.replace("hits u32;", "count u32;"),
        "string-tag": text.replace("name [12]u8 @string;", "name [12]u8;"),
        "soa-to-aos": text.replace("@soa @capacity(1000)", "@aos @capacity(1000)"),
        "new-array": text.replace("histogram [<33]u32;", "histogram [<33]u32;\n    more []u8 @capacity(4);"),
        "packed": text.replace("@packed(false)", "@packed(true)"),
        "field-order": text.replace("    mass f64;\n    id u32;", "    id u32;\n    mass f64;"),
    }
    seen = {base}
    for what, changed in changes.items():
        assert changed != text, what
        h = hash_of(write(tmp_path / f"{what}.km", changed))
        assert h not in seen, what
        seen.add(h)


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------

BAD_SCHEMAS = [
    # (name, schema, line, col, message)
    ("syntax", "karmem s;\nstruct A table {\n    x u32\n}\n", 4, 1, "expected ';', found '}'"),
    ("unknown-type", "karmem s;\nstruct A table {\n    x u32;\n    y Vec4;\n}\n", 4, 7, "unknown type 'Vec4'"),
    ("duplicate-field", "karmem s;\nstruct A table {\n  x u32;\n  x f32;\n}\n", 4, 3,
     "duplicate field 'x' in struct 'A' (first at line 3)"),
    ("no-header", "struct A table { x u32; }\n", 1, 1, "expected the header 'karmem <name>;', found 'struct'"),
    ("bad-char", "karmem s;\nstruct A table { x u32; $ }\n", 2, 25, "unexpected character '$'"),
    ("no-capacity", "karmem s;\nstruct E inline { a u8; }\nstruct A table { xs []E; }\n", 3, 21,
     "a capacity array needs a capacity"),
    ("table-element", "karmem s;\nstruct T table { a u8; }\nstruct A table { xs []T @capacity(2); }\n", 3, 23,
     "element must be an inline struct"),
    ("string-tag", "karmem s;\nstruct A table { x u32 @string; }\n", 2, 24, "@string applies to '[N]u8' fields"),
    ("recursive", "karmem s;\nstruct A inline { b B; }\nstruct B inline { a A; }\nstruct R table { a A; }\n", 2, 8,
     "contains itself"),
    ("keyword", "karmem s;\nstruct A table { int u32; }\n", 2, 18, "is a C keyword"),
    ("no-table", "karmem s;\nstruct A inline { x u8; }\n", 1, 8, "no table struct"),
    ("clash", "karmem s;\nstruct A table { bytes [2]u8; }\n", 2, 18, "generated name 's_bytes'"),
]


@pytest.mark.parametrize("name,schema,line,col,message", BAD_SCHEMAS, ids=[b[0] for b in BAD_SCHEMAS])
def test_errors_name_file_line_column(tmp_path, name, schema, line, col, message):
    path = write(tmp_path / "bad.km", schema)
    out = tmp_path / "bad.h"
    proc = run([KARMEM_GEN, path, "-o", out], check=False)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    first = proc.stderr.splitlines()[0]
    assert first.startswith(f"karmem-gen: {path}:{line}:{col}: error: "), proc.stderr
    assert message in first, proc.stderr
    assert not out.exists()


def test_cli_basics(tmp_path):
    assert re.fullmatch(r"karmem-gen \d+\.\d+ \(block format 1\)\n", run([KARMEM_GEN, "--version"]).stdout)
    assert "usage: karmem-gen" in run([KARMEM_GEN, "--help"]).stdout
    to_stdout = run([KARMEM_GEN, SCHEMA]).stdout
    assert run([KARMEM_GEN, SCHEMA, "-o", "-"]).stdout == to_stdout
    assert to_stdout.startswith("/* Generated by karmem-gen") and "#endif /* KARMEM_GEN_PARTICLES_H */" in to_stdout
    out = tmp_path / "p.h"
    assert run([KARMEM_GEN, SCHEMA, "-o", out]).stdout == ""
    assert out.read_text() == to_stdout  # deterministic, independent of the output path
    assert run([KARMEM_GEN, "-"], input=SCHEMA.read_text()).stdout.replace("<stdin>", "particles.km") == to_stdout
    proc = run([KARMEM_GEN, tmp_path / "missing.km"], check=False)
    assert proc.returncode == 1 and "karmem-gen: error: cannot read" in proc.stderr and "Traceback" not in proc.stderr
    (tmp_path / "bin.km").write_bytes(b"karmem s;\n\xff")
    proc = run([KARMEM_GEN, tmp_path / "bin.km"], check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and ":2:1: error:" in proc.stderr
