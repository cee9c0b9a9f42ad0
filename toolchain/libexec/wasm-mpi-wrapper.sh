# shellcheck shell=bash
#
# Shared implementation of wasm-mpicc and wasm-mpicxx: MPI compiler wrappers
# that build wasm32-wasi modules against the guest mpi.h (mpi-header/).
#
# Sourced by toolchain/bin/wasm-mpicc and toolchain/bin/wasm-mpicxx after they
# set WASM_MPI_LANG to "c" or "c++" and WASM_MPI_SELF to their resolved path;
# the caller's "$@" is handed to wasm_mpi_main.
#
# Environment:
#   WASI_SDK_PATH  use $WASI_SDK_PATH/bin/clang{,++} and its wasi-sysroot
#   WASM_CC        C compiler to use instead of the newest Debian clang-N
#   WASM_CXX       C++ compiler (default: WASM_CC with clang -> clang++)
#   WASM_TARGET    target triple (default wasm32-wasi)
#   WASM_MPI_COMPAT_DIR  where the compat library is built (default
#                  toolchain/lib, else $XDG_CACHE_HOME/wasm-mpi-toolchain)

wasm_mpi_die() {
    printf '%s: %s\n' "${WASM_MPI_NAME}" "$*" >&2
    exit 1
}

# Print words so that the line can be pasted back into a shell.
wasm_mpi_print_words() {
    local out="" w
    for w in "$@"; do
        if [[ -z "$w" || "$w" =~ [^A-Za-z0-9_./=:,+@%^-] ]]; then
            w="'${w//\'/\'\\\'\'}'"
        fi
        out+="${out:+ }$w"
    done
    printf '%s\n' "$out"
}

# Does this clang have the wasm32 compiler-rt builtins (i.e. can it link)?
wasm_mpi_clang_ok() {
    local cc=$1 rt
    command -v "$cc" >/dev/null 2>&1 || return 1
    rt=$("$cc" "--target=${WASM_MPI_TARGET}" --rtlib=compiler-rt -print-libgcc-file-name 2>/dev/null) || return 1
    [[ -f "$rt" ]]
}

wasm_mpi_select_compiler() {
    WASM_MPI_TARGET=${WASM_TARGET:-wasm32-wasi}
    WASM_MPI_SYSROOT=()
    WASM_MPI_SYSFLAGS=()
    # the same without libc++'s headers: what C code (the compat library) needs
    WASM_MPI_C_SYSFLAGS=()
    if [[ -n "${WASI_SDK_PATH:-}" ]]; then
        local sysroot="${WASI_SDK_PATH}/share/wasi-sysroot"
        if [[ "$WASM_MPI_LANG" == c++ ]]; then
            WASM_MPI_CC="${WASI_SDK_PATH}/bin/clang++"
        else
            WASM_MPI_CC="${WASI_SDK_PATH}/bin/clang"
        fi
        [[ -x "$WASM_MPI_CC" ]] || wasm_mpi_die "WASI_SDK_PATH is set but $WASM_MPI_CC is not executable"
        [[ -d "$sysroot" ]] || wasm_mpi_die "WASI_SDK_PATH is set but $sysroot does not exist"
        WASM_MPI_SYSROOT=("--sysroot=${sysroot}")
        WASM_MPI_SYSFLAGS=("${WASM_MPI_SYSROOT[@]}")
        WASM_MPI_C_SYSFLAGS=("${WASM_MPI_SYSFLAGS[@]}")
        return
    fi

    # Debian/Ubuntu: clang-N with the wasi-libc, libclang-rt-N-dev-wasm32 and
    # libc++-N-dev-wasm32 packages.
    local cc="${WASM_CC:-}"
    if [[ -z "$cc" ]]; then
        local v
        for v in 19 18 17 16 ""; do
            if wasm_mpi_clang_ok "clang${v:+-$v}"; then
                cc="clang${v:+-$v}"
                break
            fi
        done
        [[ -n "$cc" ]] || wasm_mpi_die "no clang with wasm32 support found; install clang-16 lld-16 \
libclang-rt-16-dev-wasm32 wasi-libc (and libc++-16-dev-wasm32 libc++abi-16-dev-wasm32 for C++), \
or set WASI_SDK_PATH or WASM_CC"
    fi
    if [[ "$WASM_MPI_LANG" == c++ ]]; then
        if [[ -n "${WASM_CXX:-}" ]]; then
            cc="$WASM_CXX"
        else
            # clang-16 -> clang++-16, /opt/x/bin/clang -> /opt/x/bin/clang++
            local dir="" base="$cc"
            if [[ "$cc" == */* ]]; then
                dir="${cc%/*}/"
                base="${cc##*/}"
            fi
            [[ "$base" == clang* ]] || wasm_mpi_die "cannot derive a C++ compiler from WASM_CC=$cc; set WASM_CXX"
            cc="${dir}clang++${base#clang}"
        fi
    fi
    command -v "$cc" >/dev/null 2>&1 || wasm_mpi_die "compiler '$cc' not found"
    WASM_MPI_CC="$cc"

    # Debian splits the wasm sysroot: headers in /usr/include/wasm32-wasi,
    # libraries in /usr/lib/wasm32-wasi.  --sysroot=/usr lets the clang driver
    # find crt1-command.o and libc in /usr/lib/wasm32-wasi, but it would also
    # search the host's /usr/include (glibc) after the wasi headers.
    # -nostdlibinc drops every system include directory except clang's own
    # builtin headers; the wasi-libc headers are added back behind them with
    # -idirafter, which reproduces clang's normal order (builtins, then libc)
    # and keeps them system headers (no warnings from them).
    local inc=/usr/include/wasm32-wasi
    [[ -f "$inc/stdio.h" ]] || wasm_mpi_die "wasi-libc headers not found in $inc (apt-get install wasi-libc)"
    WASM_MPI_SYSROOT=(--sysroot=/usr)
    WASM_MPI_SYSFLAGS=("${WASM_MPI_SYSROOT[@]}" -nostdlibinc)
    if [[ "$WASM_MPI_LANG" == c++ ]]; then
        # libc++ must come before the C headers (it wraps them with #include_next).
        [[ -d "$inc/c++/v1" ]] || wasm_mpi_die "libc++ headers not found in $inc/c++/v1 (apt-get install libc++-16-dev-wasm32 libc++abi-16-dev-wasm32)"
        WASM_MPI_SYSFLAGS+=(-isystem "$inc/c++/v1")
    fi
    WASM_MPI_SYSFLAGS+=(-idirafter "$inc")
    WASM_MPI_C_SYSFLAGS=("${WASM_MPI_SYSROOT[@]}" -nostdlibinc -idirafter "$inc")
}

# The porting layer (toolchain/README.md, "The porting layer"): wasi-libc's
# emulations and our compat library, on unless -wasm-strict.
WASM_MPI_EMULATIONS=(signal process-clocks getpid mman)
WASM_MPI_EMULATION_DEFINES=(-D_WASI_EMULATED_SIGNAL -D_WASI_EMULATED_PROCESS_CLOCKS
    -D_WASI_EMULATED_GETPID -D_WASI_EMULATED_MMAN)
WASM_MPI_WRAPPED=(sysconf uname malloc calloc)

# The llvm-ar that goes with the compiler (GNU ar cannot index wasm objects).
wasm_mpi_ar() {
    local cc=$1 dir="" base="$1"
    if [[ "$cc" == */* ]]; then
        dir="${cc%/*}/"
        base="${cc##*/}"
    fi
    base="${base/clang++/clang}"
    local ar
    for ar in "${dir}llvm-ar${base#clang}" "${dir}llvm-ar" llvm-ar llvm-ar-19 llvm-ar-18 llvm-ar-17 llvm-ar-16; do
        if command -v "$ar" >/dev/null 2>&1; then
            printf '%s\n' "$ar"
            return 0
        fi
    done
    return 1
}

# Print the path of libwasm-mpi-compat.a for this compiler, building it
# from toolchain/compat/ first if it is missing or older than its sources.
# Builds are serialized with flock, so parallel makes share one.
wasm_mpi_compat_lib() {
    local here=$1 src="$1/compat" dir="${WASM_MPI_COMPAT_DIR:-$1/lib}"
    if ! { mkdir -p "$dir" && [[ -w "$dir" ]]; } 2>/dev/null; then
        dir="${XDG_CACHE_HOME:-$HOME/.cache}/wasm-mpi-toolchain"
    fi
    local cc_id
    cc_id=$(printf '%s' "${WASM_MPI_CC/clang++/clang} ${WASM_MPI_C_SYSFLAGS[*]}" | cksum | cut -d' ' -f1)
    dir="$dir/compat-$cc_id"
    local lib="$dir/libwasm-mpi-compat.a"
    mkdir -p "$dir" || wasm_mpi_die "cannot create $dir for the compat library"
    if [[ -f "$lib" && -z "$(find "$src" "$here/include" -newer "$lib" -print -quit)" ]]; then
        printf '%s\n' "$lib"
        return
    fi
    (
        flock 9 || exit 1
        [[ -f "$lib" && -z "$(find "$src" "$here/include" -newer "$lib" -print -quit)" ]] && exit 0
        local ar c tmp
        ar=$(wasm_mpi_ar "$WASM_MPI_CC") || { echo "no llvm-ar for $WASM_MPI_CC" >&2; exit 1; }
        tmp=$(mktemp -d "$dir/build.XXXXXX") || exit 1
        for c in "$src"/*.c; do
            # always compiled as C, also when wasm-mpicxx triggers the build
            "${WASM_MPI_CC/clang++/clang}" "--target=${WASM_MPI_TARGET}" "${WASM_MPI_C_SYSFLAGS[@]}" \
                -isystem "$here/include" -O2 "${WASM_MPI_EMULATION_DEFINES[@]}" -c "$c" -o "$tmp/$(basename "${c%.c}").o" || { rm -rf "$tmp"; exit 1; }
        done
        "$ar" rcs "$tmp/lib.a" "$tmp"/*.o && mv -f "$tmp/lib.a" "$lib"
        local rc=$?
        rm -rf "$tmp"
        exit $rc
    ) 9>"$dir/.lock" || wasm_mpi_die "building the compat library from $src failed"
    printf '%s\n' "$lib"
}

wasm_mpi_main() {
    local here
    here=$(cd "${WASM_MPI_SELF%/*}/.." && pwd) || exit 1
    local header_dir
    header_dir=$(cd "$here/../mpi-header" 2>/dev/null && pwd) ||
        wasm_mpi_die "guest header directory $here/../mpi-header not found"
    [[ -f "$header_dir/mpi.h" ]] || wasm_mpi_die "$header_dir/mpi.h missing (python3 mpi-header/gen/gen_mpi_h.py)"

    # ---- classify the arguments ------------------------------------------
    local show="" link=yes have_opt="" have_input="" have_source="" have_slp="" strict=""
    local -a args=()
    local expect_value="" a
    for a in "$@"; do
        if [[ -n "$expect_value" ]]; then
            expect_value=""
            args+=("$a")
            continue
        fi
        case "$a" in
            -show | -showme | --showme | -showme:command | --showme:command | \
            -showme:compile | --showme:compile | -showme:link | --showme:link | \
            -showme:incdirs | --showme:incdirs | -showme:libdirs | --showme:libdirs | \
            -showme:libs | --showme:libs | -showme:version | --showme:version | \
            -compile-info | -compile_info | -link-info | -link_info)
                show="${a#-}"
                show="${show#-}"
                continue
                ;;
            -wasm-strict | --wasm-strict)
                strict=yes
                continue
                ;;
            -fexceptions | -fcxx-exceptions | -fwasm-exceptions)
                wasm_mpi_die "$a: C++ exceptions are not available (the engine, Wasmer 4.4, has no \
WebAssembly exception handling, and the wasm libc++ is built without them); code that throws or \
catches must be built with -fno-exceptions (toolchain/README.md, \"C++\")"
                ;;
            -c | -S | -E | -M | -MM | -fsyntax-only | -emit-ast | --precompile)
                link=""
                ;;
            -O*)
                have_opt=yes
                ;;
            -o | -I | -D | -U | -L | -l | -include | -imacros | -isystem | -idirafter | \
            -iquote | -isysroot | -iprefix | -iwithprefix | -iwithprefixbefore | -MF | -MT | -MQ | \
            -Xlinker | -Xclang | -Xpreprocessor | -Xassembler | -target | -arch | -z | -T | -u | -e | \
            --sysroot | -mllvm | -working-directory | -serialize-diagnostics | -dependency-file | \
            -resource-dir | -B | -F | -A | -ivfsoverlay | -main-file-name)
                expect_value=yes
                ;;
            -)
                have_input=yes
                have_source=yes
                ;;
            -x*)
                # an explicit language: whatever follows is compiled
                have_source=yes
                [[ "$a" != -x ]] || expect_value=yes
                ;;
            -*) ;;
            *)
                have_input=yes
                case "$a" in
                    *.c | *.i | *.cc | *.cp | *.cxx | *.cpp | *.CPP | *.c++ | *.C | *.ii | \
                    *.s | *.S | *.sx | *.h | *.hh | *.hpp | *.hxx | *.H | *.m | *.mm | *.M)
                        have_source=yes
                        ;;
                esac
                ;;
        esac
        args+=("$a")
    done

    wasm_mpi_select_compiler

    local -a compile_flags=("--target=${WASM_MPI_TARGET}" "${WASM_MPI_SYSFLAGS[@]}")
    if [[ "$WASM_MPI_LANG" == c++ ]]; then
        # Debian's and wasi-sdk's wasm libc++ are built without exception support.
        compile_flags+=(-fno-exceptions)
    fi
    compile_flags+=("-I${header_dir}")
    local e
    if [[ -z "$strict" ]]; then
        # ahead of the libc headers: declarations wasi-libc leaves out
        compile_flags+=(-isystem "$here/include" "${WASM_MPI_EMULATION_DEFINES[@]}")
    fi

    # Only the MPI functions may stay undefined: they become imports from
    # "env" that the embedder provides.  Any other undefined symbol (a libc
    # function WASI lacks, undefined data) stays a link error, so configure
    # and CMake feature checks see the truth (never --allow-undefined, which
    # resolves undefined data to address 0).  The embedder needs malloc/free to
    # hand memory to the guest, and MPI codes want a larger stack than the
    # 64 KiB default.  Callbacks the guest hands to MPI (user reduction ops,
    # error handlers, attribute copy/delete functions) are function-table
    # indices, so the embedder needs the table exported.
    local -a link_flags=(
        "-Wl,--allow-undefined-file=${header_dir}/mpi-imports.syms"
        -Wl,--export=malloc
        -Wl,--export=free
        -Wl,--export-table
        -Wl,-z,stack-size=8388608
        -mexec-model=command
    )
    # The porting layer's libraries go after the user's objects and
    # libraries (they resolve what those leave undefined).
    local -a layer_libs=()
    if [[ -z "$strict" ]]; then
        for e in "${WASM_MPI_WRAPPED[@]}"; do
            link_flags+=("-Wl,--wrap=$e")
        done
        if [[ -n "$show" || (-n "$link" && -n "$have_input") ]]; then
            local compat
            compat=$(wasm_mpi_compat_lib "$here") || exit 1
            layer_libs+=("$compat")
        fi
        for e in "${WASM_MPI_EMULATIONS[@]}"; do
            layer_libs+=("-lwasi-emulated-$e")
        done
    fi

    # Defaults go first so that user flags (which come later) win.
    local -a default_flags=()
    [[ -n "$have_opt" ]] || default_flags+=(-O3)
    default_flags+=(-msimd128)
    # clang's WebAssembly cost model prices building and splitting 128-bit
    # vectors too high, so the SLP vectorizer leaves small register-blocked
    # kernels scalar (a 4x4 DGEMM kernel: 3 f64x2.mul, 20 f64.mul), and
    # Wasmer's LLVM cannot recover it (wasm's 32-bit wrapping address
    # arithmetic hides that the loads are adjacent). A lower threshold
    # vectorizes them: DGEMM 0.70 -> 1.1 of native. A user's own
    # -mllvm -slp-threshold=N wins (LLVM takes the option only once).
    local a
    for a in "${args[@]}"; do
        [[ "$a" == -slp-threshold=* ]] && { have_slp=yes; break; }
    done
    # Only when compiling: a link alone would call it unused.
    [[ -n "${have_slp:-}" || -z "$have_source" ]] || default_flags+=(-mllvm -slp-threshold=-4)

    case "$show" in
        showme:command)
            wasm_mpi_print_words "$WASM_MPI_CC"
            exit 0
            ;;
        showme:compile)
            wasm_mpi_print_words "${compile_flags[@]}"
            exit 0
            ;;
        showme:link)
            wasm_mpi_print_words "--target=${WASM_MPI_TARGET}" "${WASM_MPI_SYSFLAGS[@]}" "${link_flags[@]}" "${layer_libs[@]}"
            exit 0
            ;;
        showme:incdirs)
            wasm_mpi_print_words "$header_dir"
            exit 0
            ;;
        showme:libdirs | showme:libs)
            # No MPI library: the MPI functions are imports provided by the embedder.
            printf '\n'
            exit 0
            ;;
        showme:version)
            printf '%s: MPI-5.0 standard ABI guest header, MPI-3.1 API level; compiler %s\n' \
                "$WASM_MPI_NAME" "$WASM_MPI_CC"
            exit 0
            ;;
        compile-info | compile_info)
            wasm_mpi_print_words "$WASM_MPI_CC" "${default_flags[@]}" "${compile_flags[@]}" "${args[@]}"
            exit 0
            ;;
        link-info | link_info)
            wasm_mpi_print_words "$WASM_MPI_CC" "${default_flags[@]}" "${compile_flags[@]}" \
                "${link_flags[@]}" "${args[@]}" "${layer_libs[@]}"
            exit 0
            ;;
    esac

    local -a cmd
    if [[ -z "$have_input" ]]; then
        # No input files (--version, -v, -dumpmachine, -print-*): only the
        # target and sysroot.  Linker flags here would make clang link crt1.o
        # into a.out, and compile flags would draw "unused argument" warnings.
        cmd=("$WASM_MPI_CC" "--target=${WASM_MPI_TARGET}" "${WASM_MPI_SYSROOT[@]}" "${args[@]}")
    elif [[ -n "$link" && -z "$have_source" ]]; then
        # Linking objects and archives only: compile flags would draw
        # "argument unused" warnings (-nostdlibinc).
        cmd=("$WASM_MPI_CC" "${default_flags[@]}" "--target=${WASM_MPI_TARGET}" "${WASM_MPI_SYSROOT[@]}"
            "${link_flags[@]}" "${args[@]}" "${layer_libs[@]}")
    else
        cmd=("$WASM_MPI_CC" "${default_flags[@]}" "${compile_flags[@]}")
        [[ -z "$link" ]] || cmd+=("${link_flags[@]}")
        cmd+=("${args[@]}")
        [[ -z "$link" ]] || cmd+=("${layer_libs[@]}")
    fi

    if [[ -n "$show" ]]; then
        wasm_mpi_print_words "${cmd[@]}"
        exit 0
    fi
    if [[ "$WASM_MPI_LANG" == c++ && -n "$have_source" ]]; then
        # clang's own error for a throw is terse; say why and what to do.
        local errs rc=0
        errs=$(mktemp) || exit 1
        "${cmd[@]}" 2> >(tee "$errs" >&2) || rc=$?
        wait
        if ((rc != 0)) && grep -q "with exceptions disabled" "$errs"; then
            printf '%s: note: C++ exceptions are not available in wasm modules (the engine, Wasmer 4.4, has no WebAssembly exception handling); replace throw/try/catch with error returns or std::abort (toolchain/README.md, "C++")\n' "$WASM_MPI_NAME" >&2
        fi
        rm -f "$errs"
        exit "$rc"
    fi
    exec "${cmd[@]}"
}
