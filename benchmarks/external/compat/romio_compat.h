/* Force-included (-include) into every build of ROMIO's tests by
 * benchmarks/external/romio.py, native and wasm alike. It adds two legacy
 * names some tests use, and only where the mpi.h in use lacks them; the
 * tests' sources are not edited.
 *
 * 1. MPIO_Request / MPIO_Wait / MPIO_Test (async.c, i_noncontig.c): ROMIO's
 *    pre-MPI-2 request names. MPICH's mpio.h and Open MPI's mpi.h define
 *    them as MPI_Request / MPI_Wait / MPI_Test; the guest mpi.h (MPI-5 ABI)
 *    does not. Defined here the way MPICH's mpio.h does, with
 *    MPIO_USES_MPI_REQUEST.
 *
 * 2. MPI_LB / MPI_UB (noncontig*.c, i_noncontig.c): MPI-1's bound markers in
 *    MPI_Type_create_struct, removed in MPI-3.0. MPICH 4's mpi.h still has
 *    them (then nothing is done here); Open MPI 4.1 (built without
 *    --enable-mpi1-compatibility) turns them into a compile error, and the
 *    guest mpi.h does not have them. Here they are
 *    sentinel handles, and MPI_Type_create_struct is wrapped: it builds the
 *    struct of the other entries, then MPI_Type_create_resized to the bounds
 *    MPI-1 gives (lb = the smallest MPI_LB displacement if there is one, ub =
 *    the largest MPI_UB displacement if there is one, else the struct's own
 *    bounds). The sentinels are never passed to MPI.
 */
#ifndef ROMIO_COMPAT_H
#define ROMIO_COMPAT_H
#include <mpi.h>

#ifndef MPIO_Request
#define MPIO_Request MPI_Request
#define MPIO_USES_MPI_REQUEST
#endif
#ifndef MPIO_Wait
#define MPIO_Wait MPI_Wait
#endif
#ifndef MPIO_Test
#define MPIO_Test MPI_Test
#endif

/* Open MPI 4 without MPI-1 compatibility defines MPI_LB/MPI_UB as a static
   assertion ("MPI_LB was removed in MPI-3.0"): treat them as absent. */
#if defined(OPEN_MPI) && defined(OMPI_ENABLE_MPI1_COMPAT) && !OMPI_ENABLE_MPI1_COMPAT
#undef MPI_LB
#undef MPI_UB
#endif

#if !defined(MPI_LB) && !defined(MPI_UB)
static char romio_compat_lb_marker, romio_compat_ub_marker;
#define MPI_LB ((MPI_Datatype)(void *)&romio_compat_lb_marker)
#define MPI_UB ((MPI_Datatype)(void *)&romio_compat_ub_marker)

static __attribute__((unused)) int romio_compat_type_create_struct(int count, const int blocklens[], const MPI_Aint displs[],
                                                                   const MPI_Datatype types[], MPI_Datatype *newtype)
{
    int i, n = 0, has_lb = 0, has_ub = 0, err;
    MPI_Aint lb = 0, ub = 0, tlb, textent;
    int bl[count > 0 ? count : 1];
    MPI_Aint d[count > 0 ? count : 1];
    MPI_Datatype t[count > 0 ? count : 1], tmp;

    for (i = 0; i < count; i++) {
        if (types[i] == MPI_LB) {
            if (!has_lb || displs[i] < lb)
                lb = displs[i];
            has_lb = 1;
        } else if (types[i] == MPI_UB) {
            if (!has_ub || displs[i] > ub)
                ub = displs[i];
            has_ub = 1;
        } else {
            bl[n] = blocklens[i];
            d[n] = displs[i];
            t[n] = types[i];
            n++;
        }
    }
    if (!has_lb && !has_ub)
        return MPI_Type_create_struct(count, blocklens, displs, types, newtype);
    err = n ? MPI_Type_create_struct(n, bl, d, t, &tmp) : MPI_Type_contiguous(0, MPI_BYTE, &tmp);
    if (err != MPI_SUCCESS)
        return err;
    err = MPI_Type_get_extent(tmp, &tlb, &textent);
    if (err == MPI_SUCCESS) {
        if (!has_lb)
            lb = tlb;
        if (!has_ub)
            ub = tlb + textent;
        err = MPI_Type_create_resized(tmp, lb, ub - lb, newtype);
    }
    MPI_Type_free(&tmp);
    return err;
}
#define MPI_Type_create_struct romio_compat_type_create_struct
#endif

#endif
