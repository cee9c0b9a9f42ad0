/* hostile_strings.c: string outputs, string inputs and out-handles at the
 * last bytes of memory (see hostile.h). Any number of ranks. */
#include "hostile.h"

#include <limits.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    hostile_setup();
    int rc, len = -7;
    char *t;
    char name[MPI_MAX_OBJECT_NAME];

    /* strings out: one byte of room where at least two are needed */
    t = tail(1);
    rc = MPI_Get_processor_name(t, &len);
    expect("get_processor_name at the last byte", rc, MPI_ERR_BUFFER, untouched(t, 1) && len == -7);
    t = tail(2);
    rc = MPI_Get_processor_name(name, (int *)t);
    expect("get_processor_name resultlen past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    t = tail(MPI_MAX_PROCESSOR_NAME);
    rc = MPI_Get_processor_name(t, &len);
    expect("get_processor_name in the last MPI_MAX_PROCESSOR_NAME bytes", rc, MPI_SUCCESS,
           len > 0 && len < MPI_MAX_PROCESSOR_NAME && (int)strlen(t) == len && untouched(t + len + 1, MPI_MAX_PROCESSOR_NAME - len - 1));
    t = tail(1);
    rc = MPI_Comm_get_name(MPI_COMM_WORLD, t, &len);
    expect("comm_get_name at the last byte", rc, MPI_ERR_BUFFER, untouched(t, 1));
    t = tail(1);
    rc = MPI_Type_get_name(MPI_INT, t, &len);
    expect("type_get_name at the last byte", rc, MPI_ERR_BUFFER, untouched(t, 1));
    t = tail(1);
    rc = MPI_Error_string(MPI_ERR_BUFFER, t, &len);
    expect("error_string at the last byte", rc, MPI_ERR_BUFFER, untouched(t, 1));
    t = tail(MPI_MAX_ERROR_STRING);
    rc = MPI_Error_string(MPI_ERR_BUFFER, t, &len);
    expect("error_string in the last MPI_MAX_ERROR_STRING bytes", rc, MPI_SUCCESS, len > 0 && (int)strlen(t) == len);
    /* an unknown code: refused, or described within the limit */
    static char text[MPI_MAX_ERROR_STRING];
    memset(text, PATTERN, sizeof text);
    len = -7;
    rc = MPI_Error_string(INT_MAX, text, &len);
    expect("error_string of an invalid code", rc, rc == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_ARG,
           rc != MPI_SUCCESS || (len >= 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(text) == len));
    t = tail(1);
    rc = MPI_Get_library_version(t, &len);
    expect("get_library_version at the last byte", rc, MPI_ERR_BUFFER, untouched(t, 1));

    /* strings in: no terminator before the end of memory */
    t = tail(8);
    memcpy(t, "unending", 8);
    rc = MPI_Comm_set_name(MPI_COMM_WORLD, t);
    expect("comm_set_name unterminated at the end", rc, MPI_ERR_BUFFER, 1);

    /* Info */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "key", "a value of some length");
    int flag = -1;
    t = tail(4);
    rc = MPI_Info_get(info, "key", 10, t, &flag);
    expect("info_get value past the end", rc, MPI_ERR_BUFFER, untouched(t, 4));
    t = tail(2);
    rc = MPI_Info_get(info, "key", 10, name, (int *)t);
    expect("info_get flag past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    t = tail(11);
    rc = MPI_Info_get(info, "key", 10, t, &flag);
    expect("info_get value in the last valuelen+1 bytes", rc, MPI_SUCCESS, flag == 1 && !memcmp(t, "a value of", 10) && t[10] == 0);
    memset(name, PATTERN, sizeof name);
    rc = MPI_Info_get(info, "key", INT_MAX, name, &flag);
    expect("info_get valuelen INT_MAX", rc, MPI_SUCCESS, flag == 1 && !strcmp(name, "a value of some length") && untouched(name + 23, 8));
    rc = MPI_Info_get(info, "key", -1, name, &flag);
    expect("info_get negative valuelen", rc, MPI_ERR_ARG, 1);
    t = tail(1);
    rc = MPI_Info_get_nthkey(info, 0, t);
    expect("info_get_nthkey key at the last byte", rc, MPI_ERR_BUFFER, untouched(t, 1));
    rc = MPI_Info_get_nthkey(info, 5, name);
    expect_error("info_get_nthkey n out of range", rc, 1); /* ERR_ARG or ERR_INFO_KEY */
    t = tail(3);
    memcpy(t, "key", 3);
    rc = MPI_Info_set(info, t, "v");
    expect("info_set key unterminated at the end", rc, MPI_ERR_INFO_KEY, 1);
    t = tail(2);
    rc = MPI_Info_get_valuelen(info, "key", (int *)t, &flag);
    expect("info_get_valuelen result past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    t = tail(2);
    rc = MPI_Info_get_nkeys(info, (int *)t);
    expect("info_get_nkeys result past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    MPI_Info_free(&info);

    /* out-handles in the last bytes of memory */
    t = tail(2);
    rc = MPI_Info_create((MPI_Info *)t);
    expect("info_create handle past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    t = tail(2);
    rc = MPI_Comm_group(MPI_COMM_WORLD, (MPI_Group *)t);
    expect("comm_group handle past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    t = tail(3);
    rc = MPI_Comm_dup(MPI_COMM_WORLD, (MPI_Comm *)t);
    expect("comm_dup handle past the end", rc, MPI_ERR_BUFFER, untouched(t, 3));
    t = tail(3);
    rc = MPI_Comm_split(MPI_COMM_WORLD, 0, 0, (MPI_Comm *)t);
    expect("comm_split handle past the end", rc, MPI_ERR_BUFFER, untouched(t, 3));
    t = tail(2);
    rc = MPI_Comm_get_errhandler(MPI_COMM_WORLD, (MPI_Errhandler *)t);
    expect("comm_get_errhandler handle past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    t = tail(2);
    rc = MPI_Comm_rank(MPI_COMM_WORLD, (int *)t);
    expect("comm_rank result past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    t = tail(2);
    rc = MPI_Comm_size(MPI_COMM_WORLD, (int *)t);
    expect("comm_size result past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    t = tail(2);
    rc = MPI_Get_address(name, (MPI_Aint *)t);
    expect("get_address result past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    t = tail(2);
    rc = MPI_Type_size(MPI_INT, (int *)t);
    expect("type_size result past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    t = tail(6);
    rc = MPI_Type_size_x(MPI_INT, (MPI_Count *)t);
    expect("type_size_x result past the end", rc, MPI_ERR_BUFFER, untouched(t, 6));
    t = tail(2);
    rc = MPI_Initialized((int *)t);
    expect("initialized flag past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    t = tail(2);
    rc = MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, (int *)t);
    expect("comm_compare result past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ranks[2] = {0, 0};
    t = tail(4);
    rc = MPI_Group_translate_ranks(world, 2, ranks, world, (int *)t);
    expect("group_translate_ranks output past the end", rc, MPI_ERR_BUFFER, untouched(t, 4));
    int *in = tail(4); /* a valid rank, then the end of memory */
    *in = 0;
    rc = MPI_Group_translate_ranks(world, 2, in, world, ranks);
    expect("group_translate_ranks input past the end", rc, MPI_ERR_BUFFER, 1);
    int *rk = tail(4); /* rank 0, then the end of memory */
    *rk = 0;
    MPI_Group g2 = MPI_GROUP_NULL;
    rc = MPI_Group_incl(world, 2, rk, &g2);
    expect("group_incl ranks past the end", rc, MPI_ERR_BUFFER, g2 == MPI_GROUP_NULL);
    int range[3] = {0, 0, 1};
    t = tail(2);
    rc = MPI_Group_range_incl(world, 1, (int (*)[3])range, (MPI_Group *)t);
    expect("group_range_incl handle past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    t = tail(2);
    rc = MPI_Group_size(world, (int *)t);
    expect("group_size result past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    int *dims = tail(4), periods[2] = {0, 0};
    *dims = 1;
    MPI_Comm cart = MPI_COMM_NULL;
    rc = MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    expect("cart_create dims past the end", rc, MPI_ERR_BUFFER, cart == MPI_COMM_NULL);
    t = tail(2);
    rc = MPI_Group_free((MPI_Group *)t);
    expect("group_free handle past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    MPI_Group_free(&world);
    return hostile_finish();
}
