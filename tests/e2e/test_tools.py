"""The MPI tool information interface (programs/tools.c): the guest sees
the host MPI's control and performance variables, categories and
enumerations as a native program does, and bad handles, indices and
pointers give MPI_T error classes, never a crash."""
import re

import pytest

from conftest import PROGRAMS

SRC = PROGRAMS / "tools.c"


# The shared-memory BTL's copy-protocol sizes (host_mpi::COPY_PROTOCOL)
COPY_PROTOCOL = {"eager_limit": 32768, "max_send_size": 131072}


def embedder_own(name):
    """Variables the embedder sets for its own safety (host_mpi's
    containment of truncated receives: Open MPI's btl self without get/put
    has no get/put variables, and its flags, vader's single-copy mechanism
    and the bandwidth vader derives from it hold the embedder's values),
    and the copy-protocol sizes it sets with it."""
    # (Open MPI 5: no single copy, so its cma component is not opened)
    return ("btl_self" in name or "smsc_cma" in name
            or name.startswith(("btl_vader_single_copy", "btl_sm_single_copy", "btl_vader_bandwidth", "btl_sm_bandwidth"))
            or name in {f"btl_{btl}_{size}" for btl in ("vader", "sm") for size in COPY_PROTOCOL})


def copy_protocol(text):
    """{name: value} of the shared-memory BTL's copy-protocol sizes in a listing."""
    sizes = "|".join(COPY_PROTOCOL)
    return {m[0]: int(m[1]) for m in re.findall(rf"^cvar \d+ (btl_(?:vader|sm|self)_(?:{sizes})) .* value (\d+) free=", text, re.M)}


def as_wasm32(desc):
    """An `unsigned long` value as the guest reads it: wasm32's is 32 bits,
    so a larger host value saturates at ULONG_MAX."""
    if "type=MPI_UNSIGNED_LONG " not in desc:
        return desc
    return re.sub(r"(?<= value )(\d+)", lambda m: str(min(int(m.group(1)), 2**32 - 1)), desc)


def listing(text):
    """{(kind, name): description} of every variable and category, without
    indices (Open MPI's differ where the embedder's settings add or remove
    variables), and the other lines in order."""
    items, rest = {}, []
    for line in text.splitlines():
        m = re.match(r"(cvar|pvar|category) \d+ (\S+) (.*)", line)
        if m:
            kind, name, desc = m.groups()
            if not embedder_own(name):
                # member lists are indices: compared through the counts
                items[(kind, name)] = as_wasm32(re.sub(r" \[\w+ [^\]]*\]", "", desc))
            continue
        m = re.match(r"(cvar|pvar|category) \d+: (.*)", line)
        if m:  # of components closed at MPI_Init (their number follows the
            # embedder's settings too: Open MPI 5's unused cma component)
            assert m.group(2) in ("MPI_T_ERR_INVALID_INDEX", "MPI_T_ERR_INVALID"), line
            continue
        if line.startswith(("cvar_get_num", "after MPI_Finalize: cvar_get_num")):
            continue  # counts: compared through the items
        if line.startswith(("finalize", "after finalize")):
            continue  # natively skipped on Open MPI (it faults); checked in wasm
        # an index past the last: Open MPI 4.1 says MPI_T_ERR_INVALID, the
        # embedder (checking the index first) MPI_T_ERR_INVALID_INDEX
        rest.append(re.sub(r"(_get_info\((num|-1)\)) MPI_T_ERR_INVALID$", r"\1 MPI_T_ERR_INVALID_INDEX", line))
    return items, rest


@pytest.mark.parametrize("np", [1, 2])
def test_the_guest_sees_the_hosts_tool_interface(build, run_wasm, run_native, np):
    wasm, native = build.wasm(SRC), build.native(SRC)
    n = run_native(native, np=np)
    w = run_wasm(wasm, np=np)
    assert n.returncode == 0, n.stderr[-3000:]
    assert w.returncode == 0, w.stderr[-3000:]
    (n_items, n_rest), (w_items, w_rest) = listing(n.stdout), listing(w.stdout)
    assert len(n_items) > 50, n.stdout[:2000]
    missing = sorted(set(n_items) - set(w_items))[:10]
    extra = sorted(set(w_items) - set(n_items))[:10]
    assert not missing and not extra, (missing, extra)
    differ = [(k, n_items[k], w_items[k]) for k in n_items if n_items[k] != w_items[k]]
    assert not differ, differ[:10]
    assert n_rest == w_rest, "\n".join(f"{a!r} | {b!r}" for a, b in zip(n_rest, w_rest) if a != b)
    # what the program's logic expects, whatever the host
    out = w.stdout
    assert "before init: cvar_get_num MPI_T_ERR_NOT_INITIALIZED" in out
    assert "init_thread MPI_SUCCESS provided_single=1" in out
    # (Open MPI 4.1 says MPI_T_ERR_INVALID for cvars and pvars, natively too)
    for call in ("cvar_get_info(num)", "cvar_get_info(-1)", "category_get_info(num)"):
        assert re.search(rf"^{re.escape(call)} MPI_T_ERR_INVALID(_INDEX)?$", out, re.M), call
    assert "after finalize: cvar_get_num MPI_T_ERR_NOT_INITIALIZED" in out
    assert re.search(r"alloc=MPI_SUCCESS read=MPI_SUCCESS count=1 value -?\d+ free=MPI_SUCCESS null=1", out), out[:3000]
    assert "pvar_session_free MPI_SUCCESS null=1" in out
    assert out.endswith("done\n")


def test_bad_handles_indices_and_pointers_give_mpi_t_errors(build, run_wasm, mpi):
    r = run_wasm(build.wasm(SRC), "hostile", np=1)
    assert r.returncode == 0, r.stderr[-3000:]
    got = dict(line.rsplit(" ", 1) for line in r.stdout.splitlines() if line and not line.startswith(("cvar ", "before", "init_thread")) and " " in line)
    expected = {
        "cvar_get_num(past)": "MPI_T_ERR_INVALID",
        "cvar_get_info(name past)": "MPI_T_ERR_INVALID",
        "truncated MPI_SUCCESS": "ok",
        "length only MPI_SUCCESS": "ok",
        "cvar_read(bad handle)": "MPI_T_ERR_INVALID_HANDLE",
        "cvar_handle_free(null)": "MPI_T_ERR_INVALID_HANDLE",
        "enum_get_info(bad)": "MPI_T_ERR_INVALID_HANDLE",
        "cvar_read(past)": "MPI_T_ERR_INVALID",
        "cvar_write(past)": "MPI_T_ERR_INVALID",
        "cvar_handle_alloc(handle past)": "MPI_T_ERR_INVALID",
        "cvar_read(after finalize)": "MPI_T_ERR_NOT_INITIALIZED",
        "cvar_read(stale)": "MPI_T_ERR_INVALID_HANDLE",
        "pvar_read(bad session)": "MPI_T_ERR_INVALID_SESSION",
        "pvar_start(null handle)": "MPI_T_ERR_INVALID_HANDLE",
        "pvar_read(all handles)": "MPI_T_ERR_INVALID_HANDLE",
        "pvar_get_index(bad class)": "MPI_T_ERR_INVALID_NAME",
        "pvar_get_info(num)": "MPI_T_ERR_INVALID_INDEX",
        "pvar_get_info(-1)": "MPI_T_ERR_INVALID_INDEX",
        "pvar_handle_alloc(num)": "MPI_T_ERR_INVALID_INDEX",
        "event_read(null)": "MPI_T_ERR_INVALID_HANDLE",
        "event_register_callback(bad)": "MPI_T_ERR_INVALID_HANDLE",
        "event_get_info(0)": "MPI_T_ERR_INVALID_INDEX",
        "source_get_timestamp(0)": "MPI_T_ERR_INVALID_INDEX",
        "category_get_cvars(negative)": "MPI_T_ERR_INVALID",
        "finalize": "MPI_SUCCESS",
        "after finalize: cvar_get_num": "MPI_T_ERR_NOT_INITIALIZED",
    }
    wrong = {k: (v, got.get(k)) for k, v in expected.items() if got.get(k) != v}
    assert not wrong, (wrong, r.stdout[-3000:])
    # where the host has a readable pvar bound to no object
    if "pvar_read(other session)" in got:
        assert got["pvar_read(other session)"] == "MPI_T_ERR_INVALID_HANDLE"
        assert got["pvar_handle_free(other session)"] == "MPI_T_ERR_INVALID_HANDLE"
        assert got["pvar_read(past)"] == "MPI_T_ERR_INVALID"
        assert got["pvar_read(session freed)"] == "MPI_T_ERR_INVALID_SESSION"
    # an enumeration's item past its last (where some cvar has an enumeration)
    assert got["enum_get_item(bad index)"] in ("MPI_T_ERR_INVALID_INDEX", "MPI_T_ERR_INVALID_HANDLE"), got
    # the whole buffer past memory (the first category's cvars, if it has any)
    assert got["category_get_cvars(past)"] in ("MPI_T_ERR_INVALID", "MPI_SUCCESS"), got
    assert r.stdout.endswith("done\n")


def test_the_copy_protocol_is_sized_for_a_node_without_single_copy(build, run_wasm, run_native, mpi):
    """With single copy off (the containment of truncated receives), Open
    MPI's shared-memory BTL gets a 32 KiB eager limit and 128 KiB fragments
    under the embedder, natively its defaults; btl self keeps its own (its
    eager path does not report truncation); a launcher's own value stands.
    MPICH has no such variables, and the embedder sets none."""
    wasm, native = build.wasm(SRC), build.native(SRC)
    n = run_native(native, np=2)
    w = run_wasm(wasm, np=2)
    assert n.returncode == 0 and w.returncode == 0, (n.stderr[-2000:], w.stderr[-2000:])
    n, w = copy_protocol(n.stdout), copy_protocol(w.stdout)
    if mpi.flavor not in ("openmpi", "openmpi5"):
        assert n == w == {}, (n, w)
        return
    btl = "sm" if mpi.flavor == "openmpi5" else "vader"
    names = {size: f"btl_{btl}_{size}" for size in COPY_PROTOCOL}
    assert (n[names["eager_limit"]], n[names["max_send_size"]]) == (4096, 32768), n
    assert {size: w[name] for size, name in names.items()} == COPY_PROTOCOL, w
    assert (n["btl_self_eager_limit"], n["btl_self_max_send_size"]) == (1024, 16384), n
    assert (w["btl_self_eager_limit"], w["btl_self_max_send_size"]) == (1024, 16384), w
    own = run_wasm(wasm, np=2, env={f"OMPI_MCA_{names['eager_limit']}": "16384"})
    assert own.returncode == 0, own.stderr[-2000:]
    own = copy_protocol(own.stdout)
    assert (own[names["eager_limit"]], own[names["max_send_size"]]) == (16384, COPY_PROTOCOL["max_send_size"]), own
