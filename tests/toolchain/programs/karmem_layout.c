/* karmem_layout.c: builds a block of the particles.km schema (header made by
 * karmem-gen), fills it, validates it and prints its layout and a checksum of
 * its bytes. Built natively and for wasm32 by tests/toolchain/test_karmem_gen.py,
 * which expects identical output from both. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "particles.h"

static uint64_t fnv1a64(const void *data, size_t n)
{
    const unsigned char *p = (const unsigned char *)data;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

/* a block on a 64-byte boundary, with `extra` poisoned bytes after it */
static void *aligned_block(size_t bytes, void **raw)
{
    unsigned char *p = (unsigned char *)malloc(bytes + 64);
    if (p == NULL)
        exit(2);
    memset(p, 0xA5, bytes + 64);
    *raw = p;
    return p + (64 - (uintptr_t)p % 64) % 64;
}

static void print_layout(const char *what, const void *block)
{
    const struct karmem_gen_header *h = (const struct karmem_gen_header *)block;
    const unsigned char *raw = (const unsigned char *)block;
    unsigned i;
    printf("%s header_raw ", what);
    for (i = 0; i < 32; i++)
        printf("%02x", raw[i]);
    printf("\n");
    printf("%s magic 0x%08lx version %u columns %u schema_hash 0x%016llx epoch %llu bytes %lu\n", what,
           (unsigned long)h->magic, (unsigned)h->version, (unsigned)h->columns,
           (unsigned long long)h->schema_hash, (unsigned long long)h->epoch, (unsigned long)h->bytes);
    for (i = 0; i < h->columns; i++) {
        const struct karmem_gen_column *c = particles_column(block, i);
        printf("%s column %u name_hash 0x%08lx type 0x%x elem_size %u offset %lu byte_offset %lu length %lu capacity %lu\n",
               what, i, (unsigned long)c->name_hash, (unsigned)c->type, (unsigned)c->elem_size,
               (unsigned long)c->offset,
               (unsigned long)((const char *)karmem_gen_data_const(block, i) - (const char *)block),
               (unsigned long)c->length, (unsigned long)c->capacity);
    }
}

#define EXPECT(cond)                                                          \
    do {                                                                      \
        if (!(cond)) {                                                        \
            printf("FAILED line %d: %s\n", __LINE__, #cond);                  \
            return 1;                                                         \
        }                                                                     \
    } while (0)

int main(void)
{
    void *raw, *raw2;
    size_t bytes = particles_bytes();
    void *b = aligned_block(bytes, &raw);
    uint32_t i, n = 700, caps[particles_ARRAYS];
    particles_Probe probe;
    particles_Particle part;
    particles_Vec3 g;
    char text[32];
    const particles_Probe *pp;
    float origin[3] = {1.5f, -2.0f, 0.25f}, o2[3];
    int rc;

    printf("sizes Vec3 %u Particle %u Probe %u Params %u Sim %u header %u column %u\n",
           (unsigned)sizeof(particles_Vec3), (unsigned)sizeof(particles_Particle),
           (unsigned)sizeof(particles_Probe), (unsigned)sizeof(particles_Params),
           (unsigned)sizeof(particles_Sim), (unsigned)sizeof(struct karmem_gen_header),
           (unsigned)sizeof(struct karmem_gen_column));
    printf("bytes %lu BYTES %lu\n", (unsigned long)bytes, (unsigned long)particles_BYTES);
    EXPECT(particles_init(b, bytes - 1) == KARMEM_GEN_ESIZE);
    EXPECT(particles_init(b, bytes) == 0);
    EXPECT(particles_check(b, bytes) == 0);

    /* the root record and the nested table */
    EXPECT(particles_set_step(b, UINT64_C(12345678901)) == 0);
    EXPECT(particles_set_time(b, 0.125) == 0);
    EXPECT(particles_set_label(b, "a-label-16-bytes") == 0); /* exactly 16: no terminator */
    EXPECT(particles_set_label(b, "seventeen bytes!!") == KARMEM_GEN_ERANGE);
    EXPECT(particles_set_origin(b, origin) == 0);
    EXPECT(particles_Params_set_dt(particles_params(b), 0.001) == 0);
    EXPECT(particles_Params_set_steps(particles_params(b), 250) == 0);
    g.x = 0.0f; g.y = -9.75f; g.z = 0.0f;
    memset(g.karmem_pad0, 0, sizeof g.karmem_pad0);
    EXPECT(particles_Params_set_gravity(particles_params(b), g) == 0);

    /* SoA particles: column by column, and one element through set */
    EXPECT(particles_particles_set_length(b, particles_particles_capacity(b) + 1) == KARMEM_GEN_ERANGE);
    EXPECT(particles_particles_set_length(b, n) == 0);
    for (i = 0; i < n; i++) {
        particles_particles_pos(b)[i].x = (float)i * 0.5f;
        particles_particles_pos(b)[i].y = (float)i * -0.25f;
        particles_particles_pos(b)[i].z = 1.0f;
        particles_particles_vel(b)[i].x = (float)(i % 7);
        particles_particles_vel(b)[i].y = 0.0f;
        particles_particles_vel(b)[i].z = -(float)(i % 3);
        particles_particles_mass(b)[i] = 1.0 + i * 0.25;
        particles_particles_id(b)[i] = 1000u + i;
        particles_particles_flags(b)[i][0] = (uint8_t)i;
        particles_particles_flags(b)[i][3] = (uint8_t)(i >> 8);
    }
    memset(&part, 0, sizeof part);
    part.pos.x = 7.0f; part.mass = 99.5; part.id = 4242; part.flags[1] = 9;
    EXPECT(particles_particles_set(b, 3, &part) == 0);
    EXPECT(particles_particles_set(b, n, &part) == KARMEM_GEN_ERANGE);
    EXPECT(particles_particles_get(b, 3, &part) == 0);
    EXPECT(part.id == 4242 && part.mass == 99.5 && part.flags[1] == 9 && part.pos.x == 7.0f);

    /* AoS probes */
    EXPECT(particles_probes_set_length(b, 5) == 0);
    EXPECT(particles_probes_at(b, 5) == NULL);
    for (i = 0; i < 5; i++) {
        particles_Probe *p = particles_probes_at(b, i);
        EXPECT(p != NULL);
        sprintf(text, "probe-%u", (unsigned)i);
        EXPECT(particles_Probe_set_name(p, text) == 0);
        p->at[0] = i; p->at[1] = -1.0 * i; p->at[2] = 0.5;
        p->hits = i * i;
        p->on = (uint8_t)(i & 1);
    }
    EXPECT(particles_Probe_set_name(particles_probes_at(b, 0), "thirteen chr") == 0);  /* 12 */
    EXPECT(particles_Probe_set_name(particles_probes_at(b, 1), "thirteen chrs") == KARMEM_GEN_ERANGE);
    EXPECT(particles_probes_get(b, 4, &probe) == 0 && probe.hits == 16);

    /* scalar array */
    EXPECT(particles_histogram_set_length(b, 33) == 0);
    for (i = 0; i < 33; i++)
        particles_histogram(b)[i] = i * 3u;

    particles_stamp(b, 7);
    EXPECT(particles_check(b, bytes) == 0);
    EXPECT(particles_epoch(b) == 7);
    EXPECT(particles_block_bytes(b) == bytes);

    /* read back through the const accessors */
    printf("step %llu time %g\n", (unsigned long long)particles_get_step(b), particles_get_time(b));
    printf("label %lu '%s'\n", (unsigned long)particles_get_label(b, text, sizeof text), text);
    particles_get_label(b, text, 6);
    printf("label-truncated '%s'\n", text);
    particles_get_origin(b, o2);
    printf("origin %g %g %g\n", o2[0], o2[1], o2[2]);
    printf("params bytes %lu dt %g steps %lu gravity.y %g\n",
           (unsigned long)particles_Params_record_bytes(particles_params_const(b)),
           particles_Params_get_dt(particles_params_const(b)),
           (unsigned long)particles_Params_get_steps(particles_params_const(b)),
           particles_Params_get_gravity(particles_params_const(b)).y);
    printf("root bytes %lu\n", (unsigned long)particles_Sim_record_bytes(particles_root_const(b)));
    printf("particle 699 pos %g %g mass %g id %lu flags %u %u\n",
           particles_particles_pos_const(b)[699].x, particles_particles_pos_const(b)[699].y,
           particles_particles_mass_const(b)[699], (unsigned long)particles_particles_id_const(b)[699],
           (unsigned)particles_particles_flags_const(b)[699][0], (unsigned)particles_particles_flags_const(b)[699][3]);
    pp = particles_probes_at_const(b, 0);
    printf("probe 0 name %lu '%s'\n", (unsigned long)particles_Probe_get_name(pp, text, sizeof text), text);
    pp = particles_probes_at_const(b, 3);
    particles_Probe_get_name(pp, text, sizeof text);
    printf("probe 3 name '%s' at %g %g hits %lu on %u\n", text, pp->at[0], pp->at[1], (unsigned long)pp->hits, (unsigned)pp->on);
    print_layout("default", b);
    rc = particles_check(b, bytes);
    printf("check %d %s\n", rc, particles_strerror(rc));
    printf("checksum 0x%016llx\n", (unsigned long long)fnv1a64(b, bytes));

    /* run-time capacities */
    caps[particles_ARRAY_particles] = 5;
    caps[particles_ARRAY_probes] = 0;
    caps[particles_ARRAY_histogram] = 100;
    bytes = particles_bytes_with(caps);
    b = aligned_block(bytes, &raw2);
    EXPECT(particles_init_with(b, bytes, caps) == 0);
    EXPECT(particles_check(b, bytes) == 0);
    EXPECT(particles_probes_set_length(b, 1) == KARMEM_GEN_ERANGE);
    EXPECT(particles_particles_set_length(b, 5) == 0);
    print_layout("small", b);
    printf("small bytes %lu checksum 0x%016llx\n", (unsigned long)bytes, (unsigned long long)fnv1a64(b, bytes));
    free(raw);
    free(raw2);
    printf("done\n");
    return 0;
}
