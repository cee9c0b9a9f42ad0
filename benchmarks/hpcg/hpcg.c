/*
 * HPCG-style benchmark: driver, validation and reporting.
 *
 *   hpcg [--nx N] [--ny N] [--nz N] [--rt SECONDS | --iters SETS]
 *
 * Local grid nx*ny*nz per rank (default 32^3, each divisible by 8 for the
 * four multigrid levels), ranks in a near-cubic 3-D process grid.  Phases:
 *   1. problem setup: A (27-point stencil), b = A*1, exact solution 1
 *   2. validation: symmetry of SpMV and of the MG preconditioner, and a
 *      50-iteration CG convergence comparison with/without preconditioning
 *   3. benchmark: sets of 50 preconditioned CG iterations from x = 0 (as
 *      many as fit in --rt seconds, or exactly --iters sets); the scaled
 *      residual of every set must be the same (mean/variance reported)
 *   4. GFLOP/s and GB/s of phase 3 from the operation counts of kernels.c
 * Every check prints PASSED or FAILED; the exit status is 1 if any failed.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcg.h"

#define CG_SET_ITERS 50
#define SYMMETRY_TOL 1e-10       /* relative departure from symmetry */
#define REPORT_TOL 1e-6          /* residual reduction for "iterations to" */
#define RESIDUAL_MEAN_TOL 1e-4   /* scaled residual after a set of 50 */
#define RESIDUAL_SPREAD_TOL 1e-6 /* std deviation / mean of the set residuals */

static int g_rank;
static int g_failed;

static void say(const char *line)
{
    if (g_rank == 0) {
        fputs(line, stdout);
        fflush(stdout);
    }
}

static void check(const char *name, int ok, const char *detail)
{
    char line[512];
    if (!ok) g_failed = 1;
    snprintf(line, sizeof line, "CHECK %-24s %s %s\n", name, detail, ok ? "PASSED" : "FAILED");
    say(line);
}

/* Deterministic pseudo-random value in [0,1) from a global row id, so the
 * random vectors do not depend on the decomposition. */
static double hash_uniform(unsigned long long id, unsigned long long seed)
{
    unsigned long long z = id * 0x9E3779B97F4A7C15ULL + seed * 0xD1B54A32D192ED2DULL + 0x632BE59BD9B4E019ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static void fill_random(const ProcGrid *pg, const Level *L, double *v, unsigned long long seed)
{
    int i;
    for (i = 0; i < L->n; i++) v[i] = hash_uniform((unsigned long long)level_global_row(pg, L, i), seed);
}

static double allreduce_max(double v)
{
    double g;
    MPI_Allreduce(&v, &g, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return g;
}

static void usage(void)
{
    say("usage: hpcg [--nx N] [--ny N] [--nz N] [--rt SECONDS | --iters SETS]\n"
        "  --nx/--ny/--nz  local grid per rank (default 32; multiples of 8)\n"
        "  --rt SECONDS    target time of the benchmark phase (default 10)\n"
        "  --iters SETS    run exactly SETS sets of 50 CG iterations instead\n");
}

/* Parses "--name value" and "--name=value"; returns 0 on error. */
static int parse_args(int argc, char **argv, int *nx, int *ny, int *nz, double *rt, int *sets)
{
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL, *eq;
        char name[32];
        char *end;
        size_t len;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return 0;
        if (strncmp(a, "--", 2)) return 0;
        eq = strchr(a, '=');
        len = eq ? (size_t)(eq - a) : strlen(a);
        if (len >= sizeof name) return 0;
        memcpy(name, a, len);
        name[len] = 0;
        if (eq) v = eq + 1;
        else if (i + 1 < argc) v = argv[++i];
        else return 0;
        if (!strcmp(name, "--rt")) {
            *rt = strtod(v, &end);
            if (*end || !(*rt >= 0.0)) return 0;
        } else {
            long x = strtol(v, &end, 10);
            if (*end || x <= 0 || x > 100000) return 0;
            if (!strcmp(name, "--nx")) *nx = (int)x;
            else if (!strcmp(name, "--ny")) *ny = (int)x;
            else if (!strcmp(name, "--nz")) *nz = (int)x;
            else if (!strcmp(name, "--iters")) *sets = (int)x;
            else return 0;
        }
    }
    return 1;
}

/* Symmetry of an operator given as op(L, in, out): |x'Ay - y'Ax| relative
 * to ||x|| ||Ay|| + ||y|| ||Ax|| (which bounds both products). */
static double symmetry_departure(Level *L, const ProcGrid *pg, int use_mg)
{
    double *x = vec_alloc(L->ncol), *y = vec_alloc(L->ncol);
    double *Ax = vec_alloc(L->ncol), *Ay = vec_alloc(L->ncol);
    double xAy, yAx, scale, dep;
    fill_random(pg, L, x, 1);
    fill_random(pg, L, y, 2);
    if (use_mg) {
        mg(L, x, Ax);
        mg(L, y, Ay);
    } else {
        spmv(L, x, Ax);
        spmv(L, y, Ay);
    }
    xAy = ddot(L, x, Ay);
    yAx = ddot(L, y, Ax);
    scale = sqrt(ddot(L, x, x)) * sqrt(ddot(L, Ay, Ay)) +
            sqrt(ddot(L, y, y)) * sqrt(ddot(L, Ax, Ax));
    dep = fabs(xAy - yAx) / scale;
    free(x); free(y); free(Ax); free(Ay);
    return dep;
}

int main(int argc, char **argv)
{
    int rank, size, nx = 32, ny = 32, nz = 32, sets = 0, s, lev;
    double rt = 10.0;
    ProcGrid pg;
    Level *A, *L;
    CgData cgd;
    double *b, *x, *ones;
    char line[1024];
    const int mult = 1 << (HPCG_LEVELS - 1);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    g_rank = rank;

    if (!parse_args(argc, argv, &nx, &ny, &nz, &rt, &sets)) {
        usage();
        MPI_Finalize();
        return 1;
    }
    if (nx % mult || ny % mult || nz % mult) {
        snprintf(line, sizeof line, "hpcg: nx, ny, nz must be multiples of %d for %d multigrid levels\n",
                 mult, HPCG_LEVELS);
        say(line);
        MPI_Finalize();
        return 1;
    }

    if ((long long)nx * ny * nz * HPCG_STENCIL > 2147483647LL) {
        say("hpcg: local grid too large (nx*ny*nz*27 must fit in an int)\n");
        MPI_Finalize();
        return 1;
    }

    /* ---- 1. setup ---- */
    {
        double t0 = MPI_Wtime(), tsetup;
        procgrid_init(&pg, rank, size);
        A = levels_create(&pg, nx, ny, nz, HPCG_LEVELS);
        tsetup = allreduce_max(MPI_Wtime() - t0);
        snprintf(line, sizeof line,
                 "HPCG-style benchmark: ranks=%d procgrid=%dx%dx%d local=%dx%dx%d global=%lldx%lldx%lld\n",
                 size, pg.npx, pg.npy, pg.npz, nx, ny, nz, A->gnx, A->gny, A->gnz);
        say(line);
        for (L = A, lev = 0; L; L = L->coarse, lev++) {
            snprintf(line, sizeof line, "  level %d: global %lldx%lldx%lld rows=%lld nnz=%lld\n",
                     lev, L->gnx, L->gny, L->gnz, L->grows, L->gnnz);
            say(line);
        }
        snprintf(line, sizeof line, "  setup time %.3f s\n", tsetup);
        say(line);
    }
    b = vec_alloc(A->ncol);
    x = vec_alloc(A->ncol);
    ones = vec_alloc(A->ncol);
    for (s = 0; s < A->n; s++) ones[s] = 1.0;
    spmv(A, ones, b);                         /* b = A*1: exact solution is 1 */
    cg_data_init(&cgd, A);

    /* ---- 2. validation ---- */
    {
        double dep;
        dep = symmetry_departure(A, &pg, 0);
        snprintf(line, sizeof line, "departure=%.3e (%.1f eps, tol %.0e)", dep, dep / DBL_EPSILON, SYMMETRY_TOL);
        check("spmv_symmetry", dep <= SYMMETRY_TOL, line);
        dep = symmetry_departure(A, &pg, 1);
        snprintf(line, sizeof line, "departure=%.3e (%.1f eps, tol %.0e)", dep, dep / DBL_EPSILON, SYMMETRY_TOL);
        check("mg_symmetry", dep <= SYMMETRY_TOL, line);
    }
    {
        CgResult un, pc;
        double red_un, red_pc;
        char it_un[16], it_pc[16];
        vec_zero(A->ncol, x);
        un = cg(A, &cgd, b, x, CG_SET_ITERS, 0.0, 0, REPORT_TOL);
        vec_zero(A->ncol, x);
        pc = cg(A, &cgd, b, x, CG_SET_ITERS, 0.0, 1, REPORT_TOL);
        red_un = un.normr / un.normr0;
        red_pc = pc.normr / pc.normr0;
        if (un.iters_to_tol > CG_SET_ITERS) snprintf(it_un, sizeof it_un, ">%d", CG_SET_ITERS);
        else snprintf(it_un, sizeof it_un, "%d", un.iters_to_tol);
        if (pc.iters_to_tol > CG_SET_ITERS) snprintf(it_pc, sizeof it_pc, ">%d", CG_SET_ITERS);
        else snprintf(it_pc, sizeof it_pc, "%d", pc.iters_to_tol);
        snprintf(line, sizeof line, "CG unpreconditioned: iters=%d reduction=%.12e iters_to_1e-6=%s\n",
                 un.iters, red_un, it_un);
        say(line);
        snprintf(line, sizeof line, "CG preconditioned:   iters=%d reduction=%.12e iters_to_1e-6=%s\n",
                 pc.iters, red_pc, it_pc);
        say(line);
        snprintf(line, sizeof line, "iters_to_1e-6 %s vs %s, reduction %.3e vs %.3e (prec vs unprec)",
                 it_pc, it_un, red_pc, red_un);
        /* Preconditioning must converge in no more iterations and reduce
         * the residual further (unless both are at round-off level). */
        check("cg_convergence",
              pc.iters_to_tol <= un.iters_to_tol && (red_pc < red_un || red_pc < 1e-12), line);
    }

    /* ---- 3. benchmark ---- */
    {
        double t0, tbench, mean = 0.0, var = 0.0, err = 0.0, gflops, gbs;
        double fl[K_COUNT], by[K_COUNT], tot_fl = 0.0, tot_by = 0.0, thalo, tred;
        double *scaled;
        int k;
        if (sets <= 0) {
            /* calibrate: one set, then as many as fit in rt seconds */
            double tset;
            vec_zero(A->ncol, x);
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            cg(A, &cgd, b, x, CG_SET_ITERS, 0.0, 1, 0.0);
            tset = allreduce_max(MPI_Wtime() - t0);
            sets = tset > 0.0 ? (int)ceil(rt / tset) : 1;
            if (sets < 1) sets = 1;
            MPI_Bcast(&sets, 1, MPI_INT, 0, MPI_COMM_WORLD);
            snprintf(line, sizeof line, "calibration: %.4f s per set of %d iterations -> %d sets for %.1f s\n",
                     tset, CG_SET_ITERS, sets, rt);
            say(line);
        }
        scaled = (double *)malloc(sizeof(double) * (size_t)sets);
        if (!scaled) MPI_Abort(MPI_COMM_WORLD, 2);
        counters_reset();
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (s = 0; s < sets; s++) {
            CgResult res;
            vec_zero(A->ncol, x);
            res = cg(A, &cgd, b, x, CG_SET_ITERS, 0.0, 1, 0.0);
            scaled[s] = res.normr / res.normr0;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        tbench = allreduce_max(MPI_Wtime() - t0);
        thalo = allreduce_max(g_cnt.t_halo);
        tred = allreduce_max(g_cnt.t_allreduce);
        MPI_Allreduce(g_cnt.flops, fl, K_COUNT, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(g_cnt.bytes, by, K_COUNT, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

        for (s = 0; s < sets; s++) mean += scaled[s];
        mean /= sets;
        for (s = 0; s < sets; s++) var += (scaled[s] - mean) * (scaled[s] - mean);
        var /= sets;
        for (s = 0; s < A->n; s++) {
            double e = fabs(x[s] - 1.0);
            if (e > err) err = e;
        }
        err = allreduce_max(err);

        snprintf(line, sizeof line, "benchmark: %d sets x %d iterations in %.3f s (halo %.3f s, allreduce %.3f s, max over ranks)\n",
                 sets, CG_SET_ITERS, tbench, thalo, tred);
        say(line);
        for (k = 0; k < K_COUNT; k++) {
            tot_fl += fl[k];
            tot_by += by[k];
            snprintf(line, sizeof line, "  %-12s GFLOP=%12.4f GB=%12.4f\n", kernel_names[k], fl[k] * 1e-9, by[k] * 1e-9);
            say(line);
        }
        snprintf(line, sizeof line, "  %-12s GFLOP=%12.4f GB=%12.4f (%.3f bytes/flop)\n", "total",
                 tot_fl * 1e-9, tot_by * 1e-9, tot_fl > 0 ? tot_by / tot_fl : 0.0);
        say(line);
        snprintf(line, sizeof line, "solution error after the last set: max|x-1|=%.3e\n", err);
        say(line);
        snprintf(line, sizeof line, "scaled residual mean=%.6e variance=%.3e (%d sets; tol mean %.0e, std/mean %.0e)",
                 mean, var, sets, RESIDUAL_MEAN_TOL, RESIDUAL_SPREAD_TOL);
        check("residual_reproducibility",
              mean <= RESIDUAL_MEAN_TOL && sqrt(var) <= RESIDUAL_SPREAD_TOL * mean + 1e-300, line);

        gflops = tbench > 0.0 ? tot_fl / tbench * 1e-9 : 0.0;
        gbs = tbench > 0.0 ? tot_by / tbench * 1e-9 : 0.0;
        snprintf(line, sizeof line,
                 "HPCG-style result: GFLOP/s=%.3f GB/s=%.3f ranks=%d local=%dx%dx%d time=%.3f sets=%d validation=%s procgrid=%dx%dx%d global=%lldx%lldx%lld\n",
                 gflops, gbs, size, nx, ny, nz, tbench, sets, g_failed ? "FAILED" : "PASSED",
                 pg.npx, pg.npy, pg.npz, A->gnx, A->gny, A->gnz);
        say(line);
        if (kernel_times()) {
            snprintf(line, sizeof line, "kernel seconds in the timed sets (rank 0): SpMV %.4f SymGS %.4f\n", g_cnt.t_spmv,
                     g_cnt.t_symgs);
            say(line);
        }
        free(scaled);
    }

    cg_data_free(&cgd);
    free(b); free(x); free(ones);
    levels_free(A);
    MPI_Finalize();
    return g_failed ? 1 : 0;
}
