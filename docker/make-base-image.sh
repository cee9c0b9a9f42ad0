#!/usr/bin/env bash
# Makes the Debian base image the Dockerfile builds on (ARG BASE), with
# debootstrap, from the Debian archive this machine's apt is configured with,
# and imports it into podman. No image registry is needed: sites whose build
# hosts reach only their own package mirror can still build the images.
#
#   docker/make-base-image.sh [MIRROR]
#
# MIRROR (or EMBEDDER_BASE_MIRROR): an archive URL, or a local directory
# holding one (dists/, pool/), used instead of the configured sources.
# Other settings, from the environment:
#   EMBEDDER_BASE_IMAGE   image name (default localhost/embedder-base:bookworm)
#   EMBEDDER_BASE_SUITE   Debian suite (default bookworm)
#   EMBEDDER_APT_DIR      apt configuration to read (default /etc/apt)
#   EMBEDDER_BASE_KEEP_ROOT=1  keep the unpacked root (for debugging)
#   PODMAN                the podman command (default podman; e.g. "podman --storage-driver vfs")
# Needs root, as debootstrap does (it creates device nodes and chroots).
set -euo pipefail

# Prints the fields of the deb822 stanzas in FILE as "stanza<TAB>key<TAB>value"
# lines (continuation lines folded, comments dropped), so the callers can
# select stanzas as apt does without a deb822 library.
_deb822_fields() {
    awk -v OFS='\t' '
        BEGIN { n = 0 }
        /^[ \t]*#/ { next }
        /^[ \t]*$/ { if (seen) { n++; seen = 0 } key = ""; next }
        /^[ \t]/  { if (key != "") { sub(/^[ \t]+/, ""); val[n, key] = val[n, key] " " $0 } next }
        {
            key = $0; sub(/:.*/, "", key); key = tolower(key)
            v = $0; sub(/^[^:]*:[ \t]*/, "", v)
            val[n, key] = v; keys[n] = keys[n] SUBSEP key; seen = 1
        }
        END {
            for (s = 0; s <= n; s++) {
                m = split(keys[s], ks, SUBSEP)
                for (i = 2; i <= m; i++) {
                    v = val[s, ks[i]]; gsub(/^[ \t]+|[ \t]+$/, "", v)
                    print s, ks[i], v
                }
            }
        }' "$1"
}

# The source files apt reads from APT_DIR, in apt's order: sources.list, then
# sources.list.d/*.list and *.sources (other names, such as *.disabled, are
# ignored by apt and so here).
apt_source_files() {
    local dir=${1:-/etc/apt} f
    [[ -f "$dir/sources.list" ]] && printf '%s\n' "$dir/sources.list"
    for f in "$dir"/sources.list.d/*; do
        [[ -f "$f" ]] || continue
        case "$f" in *.list|*.sources) printf '%s\n' "$f" ;; esac
    done | LC_ALL=C sort
}

# Prints "URI<TAB>COMPONENTS<TAB>SIGNED-BY" of the first enabled "deb" source
# for SUITE in the given files (deb822 *.sources or one-line *.list), or
# nothing. Options in one-line entries ([signed-by=... arch=...]) are honoured
# for signed-by and otherwise skipped.
apt_source_for_suite() {
    local suite=$1 f; shift
    for f in "$@"; do
        case "$f" in
        *.sources)
            local line
            line=$(_deb822_fields "$f" | awk -F'\t' -v suite="$suite" '
                { v[$1, $2] = $3; if (!($1 in s)) { s[$1] = 1; order[++n] = $1 } }
                END {
                    for (i = 1; i <= n; i++) {
                        k = order[i]
                        if (tolower(v[k, "enabled"]) == "no") continue
                        nt = split(v[k, "types"], t, /[ \t]+/); deb = 0
                        for (j = 1; j <= nt; j++) if (t[j] == "deb") deb = 1
                        if (!deb) continue
                        ns = split(v[k, "suites"], su, /[ \t]+/); hit = 0
                        for (j = 1; j <= ns; j++) if (su[j] == suite) hit = 1
                        if (!hit) continue
                        split(v[k, "uris"], u, /[ \t]+/)
                        printf "%s\t%s\t%s\n", u[1], v[k, "components"], v[k, "signed-by"]
                        exit
                    }
                }')
            [[ -n "$line" ]] && { printf '%s\n' "$line"; return 0; }
            ;;
        *)
            local -a w
            local opts signed uri
            while read -r -a w; do
                ((${#w[@]} >= 3)) || continue
                [[ "${w[0]}" == deb ]] || continue
                w=("${w[@]:1}"); opts=""
                if [[ "${w[0]}" == \[* ]]; then
                    # options run to the first word that ends with "]"
                    while ((${#w[@]})); do
                        opts+=" ${w[0]}"
                        [[ "${w[0]}" == *\] ]] && { w=("${w[@]:1}"); break; }
                        w=("${w[@]:1}")
                    done
                fi
                ((${#w[@]} >= 2)) || continue
                uri=${w[0]}
                [[ "${w[1]}" == "$suite" ]] || continue
                signed=$(sed -n 's/.*signed-by=\([^] ]*\).*/\1/p' <<<"$opts")
                printf '%s\t%s\t%s\n' "$uri" "${w[*]:2}" "$signed"
                return 0
            done < <(sed -e 's/#.*//' "$f")
            ;;
        esac
    done
    return 1
}

# A directory given as the mirror is an archive on disk: debootstrap and apt
# both take it as a file: URI.
mirror_url() {
    local m=$1
    case "$m" in
    *://*|file:*) printf '%s\n' "${m%/}" ;;
    *) [[ -d "$m" ]] || { echo "make-base-image: $m is neither a URL nor a directory" >&2; return 1; }
       printf 'file://%s\n' "$(cd "$m" && pwd)" ;;
    esac
}

# deb822 stanza for the image's own apt configuration.
_sources_stanza() {
    local uri=$1 suites=$2 comps=$3
    printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: %s\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n' \
        "$uri" "$suites" "${comps:-main}"
}

main() {
    local suite=${EMBEDDER_BASE_SUITE:-bookworm}
    local image=${EMBEDDER_BASE_IMAGE:-localhost/embedder-base:$suite}
    local apt_dir=${EMBEDDER_APT_DIR:-/etc/apt}
    local override=${1:-${EMBEDDER_BASE_MIRROR:-}}
    local -a podman
    read -r -a podman <<<"${PODMAN:-podman}"

    command -v debootstrap >/dev/null || { echo "make-base-image: apt-get install debootstrap" >&2; exit 1; }

    local -a files
    local line=""
    mapfile -t files < <(apt_source_files "$apt_dir")
    local mirror comps keyring="" sec="" sec_comps="" updates=""
    if [[ -n "$override" ]]; then
        mirror=$(mirror_url "$override"); comps=main
    else
        line=$(apt_source_for_suite "$suite" "${files[@]}") ||
            { echo "make-base-image: no deb source for $suite in $apt_dir; pass a mirror URL or directory" >&2; exit 1; }
        IFS=$'\t' read -r mirror comps keyring <<<"$line"
        mirror=${mirror%/}
    fi
    # the updates and security suites, where apt has them, so that the images
    # get the fixes the host gets
    if line=$(apt_source_for_suite "$suite-updates" "${files[@]}") && [[ -z "$override" || ${line%%$'\t'*} == "$mirror" ]]; then
        updates=1
    fi
    if line=$(apt_source_for_suite "$suite-security" "${files[@]}"); then
        IFS=$'\t' read -r sec sec_comps _ <<<"$line"
    fi

    local -a opts=(--variant=minbase --components="${comps// /,}")
    [[ -n "$keyring" && -f "$keyring" ]] && opts+=(--keyring="$keyring")
    # apt's proxy, which debootstrap reads only from the environment
    if [[ -z "${http_proxy:-}" ]] && command -v apt-config >/dev/null; then
        local proxy
        proxy=$(apt-config shell p Acquire::http::Proxy | sed -n "s/^p='\(.*\)'$/\1/p")
        [[ -n "$proxy" ]] && export http_proxy=$proxy
    fi

    # global: the EXIT trap runs after main has returned
    root=$(mktemp -d "${TMPDIR:-/var/tmp}/embedder-base.XXXXXX")
    cleanup() {
        # debootstrap leaves /proc, /sys … mounted in the root when it fails
        local m
        for m in $(awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r); do
            umount -l "$m" 2>/dev/null || true
        done
        if [[ "${EMBEDDER_BASE_KEEP_ROOT:-}" == 1 ]]; then
            echo "make-base-image: root kept in $root" >&2
        else
            rm -rf --one-file-system "$root"
        fi
    }
    trap cleanup EXIT

    echo "make-base-image: debootstrap $suite from $mirror into $root"
    debootstrap "${opts[@]}" "$suite" "$root" "$mirror"

    {
        _sources_stanza "$mirror" "$suite${updates:+ $suite-updates}" "$comps"
        [[ -n "$sec" ]] && _sources_stanza "${sec%/}" "$suite-security" "$sec_comps"
    } > "$root/etc/apt/sources.list.d/debian.sources"
    : > "$root/etc/apt/sources.list"
    # A snapshot archive's Release files are past their Valid-Until date; the
    # host's apt is then told to accept them, and so must the image's.
    if command -v apt-config >/dev/null &&
       apt-config dump | grep -qi '^Acquire::Check-Valid-Until "\(false\|no\|0\)"'; then
        echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/99embedder-valid-until"
    fi
    rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb "$root"/var/log/*.log

    echo "make-base-image: importing as $image"
    tar --numeric-owner --xattrs -C "$root" -c . |
        "${podman[@]}" import --change 'CMD ["/bin/bash"]' --change 'ENV LANG=C.UTF-8' - "$image"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    main "$@"
fi
