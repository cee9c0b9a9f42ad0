#!/usr/bin/env bash
# Builds the container images with podman: docker/build.sh [runtime|toolchain|all]
#
#   runtime    localhost/embedder:runtime    embedder + Open MPI + MPICH runtimes
#   toolchain  localhost/embedder:toolchain  wasm-mpicc, wasm-mpicxx, CMake toolchain file
#   all        both (default)
#
# The base image (localhost/embedder-base:bookworm) is made first with
# docker/make-base-image.sh when podman does not have it.
#
# Environment:
#   EMBEDDER_FROM       prebuilt: copy target/release/embedder (`make build` first);
#                       build: build it in the image from scripts/setup.sh and
#                       `make build` with the Rust toolchain below.
#                       Default: prebuilt when target/release/embedder exists.
#   RUST_TOOLCHAIN_DIR  rustup toolchain directory for EMBEDDER_FROM=build
#                       (default: `rustc --print sysroot`); Rust >= 1.89
#   EMBEDDER_CA_DIR     extra CA certificates (*.crt) for EMBEDDER_FROM=build's
#                       downloads (default /usr/local/share/ca-certificates)
#   EMBEDDER_BASE_IMAGE base image (default localhost/embedder-base:bookworm)
#   EMBEDDER_IMAGE      image name without tag (default localhost/embedder)
#   BUILDAH_ISOLATION   podman's own variable; when unset, chroot isolation is
#                       used (see below)
#   PODMAN              podman command (default podman; e.g. "podman --storage-driver vfs")
#   EMBEDDER_BUILD_FLAGS  extra `podman build` flags, e.g. "--network host"
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
what=${1:-all}
case "$what" in
runtime|toolchain) targets=("$what") ;;
all) targets=(toolchain runtime) ;;
*) echo "usage: docker/build.sh [runtime|toolchain|all]" >&2; exit 2 ;;
esac

read -r -a podman <<<"${PODMAN:-podman}"
base=${EMBEDDER_BASE_IMAGE:-localhost/embedder-base:bookworm}
image=${EMBEDDER_IMAGE:-localhost/embedder}
read -r -a extra <<<"${EMBEDDER_BUILD_FLAGS:-}"

if ! "${podman[@]}" image exists "$base"; then
    if [[ "$base" == localhost/embedder-base:* ]]; then
        EMBEDDER_BASE_IMAGE=$base PODMAN="${PODMAN:-podman}" "$repo/docker/make-base-image.sh"
    else
        echo "build: base image $base not found; pull or import it first" >&2
        exit 1
    fi
fi

# Chroot isolation runs the RUN steps without an OCI runtime or cgroups, so
# the build works where containers cannot be created (nested in another
# container, cgroup v1 hosts that crun refuses); the images are the same.
flags=(--build-arg "BASE=$base")
[[ -n "${BUILDAH_ISOLATION:-}" ]] || flags+=(--isolation chroot)

from=${EMBEDDER_FROM:-}
if [[ -z "$from" ]]; then
    if [[ -x "$repo/target/release/embedder" ]]; then from=prebuilt; else from=build; fi
fi
case "$from" in
prebuilt)
    [[ -x "$repo/target/release/embedder" ]] ||
        { echo "build: target/release/embedder missing; run make build, or EMBEDDER_FROM=build" >&2; exit 1; }
    ;;
build)
    rust=${RUST_TOOLCHAIN_DIR:-$(rustc --print sysroot 2>/dev/null || true)}
    [[ -n "$rust" && -x "$rust/bin/rustc" && -x "$rust/bin/cargo" ]] ||
        { echo "build: no Rust toolchain directory; set RUST_TOOLCHAIN_DIR (a rustup toolchain, >= 1.89)" >&2; exit 1; }
    ver=$("$rust/bin/rustc" --version | awk '{print $2}')
    if [[ "$(printf '%s\n1.89.0\n' "${ver%%-*}" | sort -V | head -n 1)" != 1.89.0 ]]; then
        echo "build: $rust has rustc $ver; the embedder needs >= 1.89" >&2; exit 1
    fi
    flags+=(--build-context "rust=$rust")
    # the host's local CAs (Debian's place for them), so that cargo and pip
    # in the build stage trust what the host trusts; an empty one otherwise
    ca=${EMBEDDER_CA_DIR:-/usr/local/share/ca-certificates}
    if [[ ! -d "$ca" ]]; then
        ca=$(mktemp -d); trap 'rmdir "$ca"' EXIT
    fi
    flags+=(--build-context "site-ca=$ca")
    ;;
*) echo "build: EMBEDDER_FROM must be build or prebuilt" >&2; exit 2 ;;
esac
flags+=(--build-arg "EMBEDDER_FROM=$from")

for t in "${targets[@]}"; do
    echo "build: $image:$t (embedder: $from)"
    "${podman[@]}" build "${flags[@]}" "${extra[@]}" -f "$repo/docker/Dockerfile" \
        --target "$t" -t "$image:$t" "$repo"
done
