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

# Prints "URI<TAB>COMPONENTS<TAB>SIGNED-BY" of the first enabled "deb" source
# for SUITE in the apt configuration APT_DIR, or nothing (and fails): read as
# apt reads it, by the one reader the project has (scripts/apt_sources.py).
apt_source_for_suite() {
    python3 "$(dirname "${BASH_SOURCE[0]}")/../scripts/apt_sources.py" --apt-dir "$2" "$1"
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

    local line=""
    local mirror comps keyring="" sec="" sec_comps="" updates=""
    if [[ -n "$override" ]]; then
        mirror=$(mirror_url "$override"); comps=main
    else
        line=$(apt_source_for_suite "$suite" "$apt_dir") ||
            { echo "make-base-image: no deb source for $suite in $apt_dir; pass a mirror URL or directory" >&2; exit 1; }
        IFS=$'\t' read -r mirror comps keyring <<<"$line"
        mirror=${mirror%/}
    fi
    # the updates and security suites, where apt has them, so that the images
    # get the fixes the host gets
    if line=$(apt_source_for_suite "$suite-updates" "$apt_dir") && [[ -z "$override" || ${line%%$'\t'*} == "$mirror" ]]; then
        updates=1
    fi
    if line=$(apt_source_for_suite "$suite-security" "$apt_dir"); then
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
