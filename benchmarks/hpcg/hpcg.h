/*
 * HPCG-style benchmark: shared declarations.
 *
 * Written from the method published in the HPCG Technical Specification
 * (Heroux, Dongarra, Luszczek, SAND2013-8752): a 27-point stencil on a 3-D
 * grid distributed over a 3-D process grid, preconditioned CG with a
 * symmetric Gauss-Seidel multigrid V-cycle.  No code from the reference
 * implementation was used.
 *
 * Only a small MPI subset is used (see README.md) so that the wasm32-wasi
 * build runs on the project's embedder.
 */
#ifndef HPCG_H
#define HPCG_H

#include <mpi.h>

#define HPCG_LEVELS 4          /* multigrid levels: fine + 3 coarser */
#define HPCG_MAX_NBRS 26       /* neighbours in a 3-D process grid */
#define HPCG_STENCIL 27

/* The process grid: size = npx*npy*npz, rank = ipx + npx*(ipy + npy*ipz). */
typedef struct {
    int rank, size;
    int npx, npy, npz;
    int ipx, ipy, ipz;
} ProcGrid;

/* One multigrid level: the local block of the distributed matrix, its halo
 * exchange plan, and the work vectors the V-cycle needs on that level. */
typedef struct Level {
    int nx, ny, nz;            /* local grid */
    long long gnx, gny, gnz;   /* global grid */
    int n;                     /* local rows = nx*ny*nz */
    int ncol;                  /* n + halo entries: length of input vectors */
    long long nnz;             /* local nonzeros */
    long long gnnz, grows;     /* global nonzeros and rows */

    /* CSR: columns < n are local, n..ncol-1 are halo entries. */
    int *rowptr;               /* n+1 */
    int *col;                  /* nnz */
    double *val;               /* nnz */
    double *diag;              /* n: a_ii */
    double *invdiag;           /* n: 1/a_ii */

    /* Halo exchange plan (one message each way per neighbour). */
    int nnbr;
    int nbr_rank[HPCG_MAX_NBRS];
    int nbr_dir[HPCG_MAX_NBRS];     /* direction index 0..26 (13 = self) */
    int recv_off[HPCG_MAX_NBRS];    /* offset into the halo part (from n) */
    int recv_cnt[HPCG_MAX_NBRS];
    int send_off[HPCG_MAX_NBRS];    /* offset into send_idx / send_buf */
    int send_cnt[HPCG_MAX_NBRS];
    int nsend;
    int *send_idx;             /* local rows to send, packed per neighbour */
    double *send_buf;
    MPI_Request *reqs;         /* 2*nnbr */

    /* Multigrid: injection map to the next coarser level and work vectors. */
    struct Level *coarse;      /* NULL on the coarsest level */
    int *f2c;                  /* coarse n: fine local row of each coarse row */
    double *Axf;               /* ncol: A*x on this level */
    double *rc;                /* coarse n: restricted residual */
    double *xc;                /* coarse ncol: coarse correction */
} Level;

/* Operation counters (per rank), filled in by the kernels. */
enum {
    K_DDOT, K_WAXPBY, K_SPMV, K_MG_SYMGS, K_MG_SPMV, K_MG_TRANSFER, K_HALO,
    K_COUNT
};
typedef struct {
    double flops[K_COUNT];
    double bytes[K_COUNT];
    double t_allreduce;        /* time spent in MPI_Allreduce of DDOT */
    double t_halo;             /* time spent in halo exchanges */
    /* with HPCG_KERNEL_TIMES set: time in the local SpMV and SymGS loops;
     * unset, no timer runs, so the MPI calls per iteration stay those
     * benchmarks/model counts */
    double t_spmv, t_symgs;
} Counters;

/* Whether HPCG_KERNEL_TIMES is set (read once). */
int kernel_times(void);

extern Counters g_cnt;
extern const char *const kernel_names[K_COUNT];
void counters_reset(void);

/* geometry.c */
void procgrid_init(ProcGrid *pg, int rank, int size);
void procgrid_factor(int size, int *npx, int *npy, int *npz);
Level *levels_create(const ProcGrid *pg, int nx, int ny, int nz, int nlevels);
void levels_free(Level *fine);
long long level_global_row(const ProcGrid *pg, const Level *L, int i);
double *vec_alloc(int n);

/* kernels.c */
void halo_exchange(Level *L, double *x);
double ddot(const Level *L, const double *x, const double *y);
void waxpby(int n, double alpha, const double *x, double beta,
            const double *y, double *w);
void spmv(Level *L, double *x, double *y);
void symgs(Level *L, const double *r, double *x);
void mg(Level *L, const double *r, double *x);
void vec_zero(int n, double *x);
void vec_copy(int n, const double *x, double *y);

/* cg.c */
typedef struct {
    int iters;                 /* iterations done */
    int iters_to_tol;          /* first iteration with ||r||/||r0|| <= report_tol, or iters+1 */
    double normr0, normr;      /* initial and final residual 2-norm */
} CgResult;
typedef struct {
    double *r, *z, *p, *Ap;
} CgData;
void cg_data_init(CgData *d, const Level *L);
void cg_data_free(CgData *d);
CgResult cg(Level *A, CgData *d, const double *b, double *x, int max_iter,
            double tol, int precond, double report_tol);

#endif
