/*
 * HPCG-style benchmark: process grid, matrix generation, halo plan and the
 * multigrid hierarchy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcg.h"

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "hpcg: out of memory (%lu bytes)\n", (unsigned long)bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

double *vec_alloc(int n)
{
    double *v = (double *)xmalloc(sizeof(double) * (size_t)n);
    memset(v, 0, sizeof(double) * (size_t)n);
    return v;
}

/* size = npx*npy*npz with npx <= npy <= npz, as close to a cube as possible:
 * the smallest npx+npy+npz (for a fixed product the sum is smallest for a
 * cube), ties broken towards the smallest npz.  For 2 ranks this is 1x1x2,
 * i.e. the split is along z. */
void procgrid_factor(int size, int *npx, int *npy, int *npz)
{
    int a, b, best_sum = -1;
    *npx = 1; *npy = 1; *npz = size;
    for (a = 1; a * a * a <= size; a++) {
        if (size % a) continue;
        for (b = a; a * b * b <= size; b++) {
            int c, s;
            if ((size / a) % b) continue;
            c = size / a / b;
            s = a + b + c;
            if (best_sum < 0 || s < best_sum || (s == best_sum && c < *npz)) {
                best_sum = s;
                *npx = a; *npy = b; *npz = c;
            }
        }
    }
}

void procgrid_init(ProcGrid *pg, int rank, int size)
{
    pg->rank = rank;
    pg->size = size;
    procgrid_factor(size, &pg->npx, &pg->npy, &pg->npz);
    pg->ipx = rank % pg->npx;
    pg->ipy = (rank / pg->npx) % pg->npy;
    pg->ipz = rank / (pg->npx * pg->npy);
}

/* Direction (dx,dy,dz) in {-1,0,1}^3 <-> index 0..26; 13 is (0,0,0). */
static int dir_index(int dx, int dy, int dz) { return (dx + 1) + 3 * (dy + 1) + 9 * (dz + 1); }

/* Number of grid points in the face/edge/corner block of direction d. */
static int block_size(const Level *L, int dx, int dy, int dz)
{
    return (dx ? 1 : L->nx) * (dy ? 1 : L->ny) * (dz ? 1 : L->nz);
}

long long level_global_row(const ProcGrid *pg, const Level *L, int i)
{
    int ix = i % L->nx, iy = (i / L->nx) % L->ny, iz = i / (L->nx * L->ny);
    long long gx = (long long)pg->ipx * L->nx + ix;
    long long gy = (long long)pg->ipy * L->ny + iy;
    long long gz = (long long)pg->ipz * L->nz + iz;
    return gx + L->gnx * (gy + L->gny * gz);
}

/* Build the halo plan.  For each existing neighbour in direction d the halo
 * holds the neighbour's points adjacent to this block, in lexicographic
 * order (z slowest, x fastest) of the block of direction d.  The neighbour
 * sends exactly its points adjacent to us in the same order, so a message
 * lands in one contiguous piece of the halo. */
static void build_halo(const ProcGrid *pg, Level *L, int halo_base[27])
{
    int dx, dy, dz, k, total = 0, nsend = 0;
    L->nnbr = 0;
    for (k = 0; k < 27; k++) halo_base[k] = -1;
    for (dz = -1; dz <= 1; dz++)
        for (dy = -1; dy <= 1; dy++)
            for (dx = -1; dx <= 1; dx++) {
                int qx = pg->ipx + dx, qy = pg->ipy + dy, qz = pg->ipz + dz;
                int d = dir_index(dx, dy, dz), cnt;
                if (d == 13) continue;
                if (qx < 0 || qx >= pg->npx || qy < 0 || qy >= pg->npy ||
                    qz < 0 || qz >= pg->npz)
                    continue;
                cnt = block_size(L, dx, dy, dz);
                k = L->nnbr++;
                L->nbr_rank[k] = qx + pg->npx * (qy + pg->npy * qz);
                L->nbr_dir[k] = d;
                L->recv_off[k] = total;
                L->recv_cnt[k] = cnt;
                L->send_off[k] = nsend;
                L->send_cnt[k] = cnt;
                halo_base[d] = total;
                total += cnt;
                nsend += cnt;
            }
    L->ncol = L->n + total;
    L->nsend = nsend;
    L->send_idx = (int *)xmalloc(sizeof(int) * (size_t)nsend);
    L->send_buf = vec_alloc(nsend);
    L->reqs = (MPI_Request *)xmalloc(sizeof(MPI_Request) * (size_t)(2 * L->nnbr + 1));

    /* Send lists: our points adjacent to the neighbour in direction d. */
    for (k = 0; k < L->nnbr; k++) {
        int d = L->nbr_dir[k], m = L->send_off[k];
        int ddx = d % 3 - 1, ddy = (d / 3) % 3 - 1, ddz = d / 9 - 1;
        int x0 = ddx < 0 ? 0 : ddx > 0 ? L->nx - 1 : 0, x1 = ddx < 0 ? 0 : L->nx - 1;
        int y0 = ddy < 0 ? 0 : ddy > 0 ? L->ny - 1 : 0, y1 = ddy < 0 ? 0 : L->ny - 1;
        int z0 = ddz < 0 ? 0 : ddz > 0 ? L->nz - 1 : 0, z1 = ddz < 0 ? 0 : L->nz - 1;
        int ix, iy, iz;
        for (iz = z0; iz <= z1; iz++)
            for (iy = y0; iy <= y1; iy++)
                for (ix = x0; ix <= x1; ix++)
                    L->send_idx[m++] = ix + L->nx * (iy + L->ny * iz);
    }
}

/* Generate one level: local block of the global 27-point matrix
 * (26 on the diagonal, -1 for every neighbour inside the global grid). */
static Level *level_create(const ProcGrid *pg, int nx, int ny, int nz)
{
    Level *L = (Level *)xmalloc(sizeof(Level));
    int halo_base[27];
    int ix, iy, iz, i;
    long long k = 0;
    long long gx0, gy0, gz0;
    long long loc[2];
    long long glob[2];

    memset(L, 0, sizeof(*L));
    L->nx = nx; L->ny = ny; L->nz = nz;
    L->gnx = (long long)pg->npx * nx;
    L->gny = (long long)pg->npy * ny;
    L->gnz = (long long)pg->npz * nz;
    L->n = nx * ny * nz;
    build_halo(pg, L, halo_base);

    L->rowptr = (int *)xmalloc(sizeof(int) * (size_t)(L->n + 1));
    L->col = (int *)xmalloc(sizeof(int) * (size_t)L->n * HPCG_STENCIL);
    L->val = (double *)xmalloc(sizeof(double) * (size_t)L->n * HPCG_STENCIL);
    L->diag = vec_alloc(L->n);
    L->invdiag = vec_alloc(L->n);

    gx0 = (long long)pg->ipx * nx;
    gy0 = (long long)pg->ipy * ny;
    gz0 = (long long)pg->ipz * nz;
    for (iz = 0; iz < nz; iz++)
        for (iy = 0; iy < ny; iy++)
            for (ix = 0; ix < nx; ix++) {
                int sx, sy, sz;
                i = ix + nx * (iy + ny * iz);
                L->rowptr[i] = (int)k;
                for (sz = -1; sz <= 1; sz++)
                    for (sy = -1; sy <= 1; sy++)
                        for (sx = -1; sx <= 1; sx++) {
                            int jx = ix + sx, jy = iy + sy, jz = iz + sz, c;
                            long long gx = gx0 + jx, gy = gy0 + jy, gz = gz0 + jz;
                            if (gx < 0 || gx >= L->gnx || gy < 0 || gy >= L->gny ||
                                gz < 0 || gz >= L->gnz)
                                continue;
                            if (jx >= 0 && jx < nx && jy >= 0 && jy < ny &&
                                jz >= 0 && jz < nz) {
                                c = jx + nx * (jy + ny * jz);
                            } else {
                                int dx = jx < 0 ? -1 : jx >= nx ? 1 : 0;
                                int dy = jy < 0 ? -1 : jy >= ny ? 1 : 0;
                                int dz = jz < 0 ? -1 : jz >= nz ? 1 : 0;
                                int d = dir_index(dx, dy, dz);
                                int bx = dx ? 1 : nx, by = dy ? 1 : ny;
                                int rx = dx ? 0 : jx, ry = dy ? 0 : jy, rz = dz ? 0 : jz;
                                if (halo_base[d] < 0) {
                                    fprintf(stderr, "hpcg: internal error: no neighbour in direction %d\n", d);
                                    MPI_Abort(MPI_COMM_WORLD, 3);
                                }
                                c = L->n + halo_base[d] + rx + bx * (ry + by * rz);
                            }
                            L->col[k] = c;
                            if (sx == 0 && sy == 0 && sz == 0) {
                                L->val[k] = 26.0;
                                L->diag[i] = 26.0;
                                L->invdiag[i] = 1.0 / 26.0;
                            } else {
                                L->val[k] = -1.0;
                            }
                            k++;
                        }
            }
    L->rowptr[L->n] = (int)k;
    L->nnz = k;
    loc[0] = k;
    loc[1] = L->n;
    MPI_Allreduce(loc, glob, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    L->gnnz = glob[0];
    L->grows = glob[1];
    return L;
}

Level *levels_create(const ProcGrid *pg, int nx, int ny, int nz, int nlevels)
{
    Level *fine = level_create(pg, nx, ny, nz), *L = fine;
    int lev;
    for (lev = 1; lev < nlevels; lev++) {
        Level *C = level_create(pg, L->nx / 2, L->ny / 2, L->nz / 2);
        int ix, iy, iz;
        L->coarse = C;
        L->f2c = (int *)xmalloc(sizeof(int) * (size_t)C->n);
        /* Injection: coarse point (x,y,z) is fine point (2x,2y,2z). */
        for (iz = 0; iz < C->nz; iz++)
            for (iy = 0; iy < C->ny; iy++)
                for (ix = 0; ix < C->nx; ix++)
                    L->f2c[ix + C->nx * (iy + C->ny * iz)] =
                        2 * ix + L->nx * (2 * iy + L->ny * 2 * iz);
        L->Axf = vec_alloc(L->ncol);
        L->rc = vec_alloc(C->n);
        L->xc = vec_alloc(C->ncol);
        L = C;
    }
    return fine;
}

void levels_free(Level *L)
{
    while (L) {
        Level *next = L->coarse;
        free(L->rowptr); free(L->col); free(L->val);
        free(L->diag); free(L->invdiag);
        free(L->send_idx); free(L->send_buf); free(L->reqs);
        free(L->f2c); free(L->Axf); free(L->rc); free(L->xc);
        free(L);
        L = next;
    }
}
