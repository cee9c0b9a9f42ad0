/*
 * karmem.h: node-shared regions inside a rank's linear memory (guest API).
 *
 * A region is one node-local shared-memory segment that the embedder maps
 * into every rank's linear memory at a page-aligned guest address, so plain
 * loads and stores (and MPI calls on those addresses) reach memory the
 * node's other ranks see. Regions are opened collectively over a
 * communicator whose ranks share one node (MPI_Comm_split_type with
 * MPI_COMM_TYPE_SHARED); across nodes, move the data with MPI.
 *
 * Layout of a region (guest addresses differ between ranks; offsets do not):
 *   [header page: struct karmem_region_header, written by the host only,
 *    read-only for the guest]
 *   [data: `size` bytes, page-aligned; with KARMEM_PARTITIONED, one slice
 *    of `size` bytes per rank, each page-aligned]
 *
 * Policies, fixed at creation and enforced by page protection (a store that
 * breaks one traps, and the embedder names the region and the policy):
 *   KARMEM_READ_ONLY    rank 0 of the communicator writes until
 *                       karmem_publish; then everyone reads. karmem_acquire
 *                       hands the writer its write access back for the next
 *                       epoch (fan-out: publish, read, acquire, write, ...).
 *   KARMEM_OWNED        one owner (initially rank 0) writes, the others
 *                       read; karmem_pass moves the ownership.
 *   KARMEM_PARTITIONED  each rank writes its own slice and reads them all.
 *
 * Every function except karmem_header is collective over the region's
 * communicator where marked, returns MPI_SUCCESS or an MPI error class
 * (MPI_ERR_ARG for a bad argument or region, MPI_ERR_NO_MEM when the segment
 * cannot be made or mapped), and never moves a region once opened.
 * karmem_publish and karmem_acquire are the memory-ordering points: what a
 * rank stored before it entered one is visible to every rank after it.
 */
#ifndef KARMEM_H
#define KARMEM_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KARMEM_READ_ONLY 1
#define KARMEM_OWNED 2
#define KARMEM_PARTITIONED 3

/* Longest region name, without its terminator. */
#define KARMEM_MAX_NAME 63

typedef int32_t karmem_region;
#define KARMEM_REGION_NULL ((karmem_region)0)

/* The host-written header at the start of every region (its first page). */
#define KARMEM_REGION_MAGIC 0x4e47524d454d524bULL /* "KRMEMRGN", little-endian */
#define KARMEM_REGION_VERSION 1
struct karmem_region_header {
    uint64_t magic;        /* KARMEM_REGION_MAGIC */
    uint32_t version;      /* KARMEM_REGION_VERSION */
    uint32_t policy;       /* KARMEM_READ_ONLY, ... */
    uint64_t epoch;        /* publishes so far; raised by karmem_publish */
    uint32_t data_offset;  /* bytes from the header to the data (a page multiple) */
    uint32_t size;         /* bytes of data (per slice for KARMEM_PARTITIONED) */
    uint32_t slice_stride; /* bytes from one slice to the next (0 unless partitioned) */
    uint32_t ranks;        /* ranks that opened the region */
    int32_t owner;         /* the writing rank (KARMEM_READ_ONLY, KARMEM_OWNED) */
    uint32_t reserved;
    char name[KARMEM_MAX_NAME + 1];
};

#define KARMEM_IMPORT(name) __attribute__((import_module("karmem"), import_name(name)))

/* Collective. Opens (creates at rank 0, maps everywhere) a region of `size`
 * data bytes with `policy`; `name` (at most KARMEM_MAX_NAME bytes) names it
 * in messages. The data is zero-filled. */
KARMEM_IMPORT("open")
int karmem_open(MPI_Comm comm, const char *name, size_t size, int policy, karmem_region *region);

/* Local. The region's data (the whole of it, every slice) and its size. */
KARMEM_IMPORT("data")
int karmem_data(karmem_region region, void **base, size_t *size);

/* Local. KARMEM_PARTITIONED: rank `rank`'s slice (any rank's, to read it). */
KARMEM_IMPORT("slice")
int karmem_slice(karmem_region region, int rank, void **base, size_t *size);

/* Local. The region's header (read-only). */
KARMEM_IMPORT("header")
const struct karmem_region_header *karmem_header(karmem_region region);

/* Collective. Ends a write epoch: the writer's stores become visible to all,
 * the epoch rises by one and (KARMEM_READ_ONLY) the writer loses write access. */
KARMEM_IMPORT("publish")
int karmem_publish(karmem_region region);

/* Collective. Every rank is done reading the published epoch; the writer
 * (KARMEM_READ_ONLY) may write the next one. */
KARMEM_IMPORT("acquire")
int karmem_acquire(karmem_region region);

/* Collective. KARMEM_OWNED: `new_owner` becomes the one writer. */
KARMEM_IMPORT("pass")
int karmem_pass(karmem_region region, int new_owner);

/* Collective. Unmaps the region (its guest pages stay reserved, never reused
 * by the allocator) and sets *region to KARMEM_REGION_NULL. */
KARMEM_IMPORT("close")
int karmem_close(karmem_region *region);

#undef KARMEM_IMPORT

#ifdef __cplusplus
}
#endif
#endif /* KARMEM_H */
