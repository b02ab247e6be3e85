/* Random numbers: the Philox4x32-10 generator (random.h), rand and randn.
 *
 * Note [Generator state]
 * A generator is (seed, offset): Philox maps the 128-bit counter (offset, 0) under the
 * 64-bit key `seed` to four 32-bit words, and every call reserves the blocks it needs with
 * one atomic add on `offset`, so concurrent calls never share numbers and a saved
 * (seed, offset) pair replays exactly. Each call starts on a fresh block. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "tensor/random_impl.h"
#include "tensor/tensor_impl.h"

#include "ctensor/random.h"

#define TWO_PI 6.283185307179586476925286766559

struct ct_generator {
    _Atomic uint64_t seed;
    _Atomic uint64_t offset; /* blocks of four 32-bit words consumed */
};

static struct ct_generator default_gen = {CT_DEFAULT_SEED, 0};

/* ---- Philox4x32-10 ------------------------------------------------------------------------ */

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

void ct_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]) {
    uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)PHILOX_M0 * c0, p1 = (uint64_t)PHILOX_M1 * c2;
        uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
        uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

void ct_random_reserve(ct_generator *g, uint64_t words, ct_random_stream *s) {
    if (g == NULL)
        g = &default_gen;
    uint64_t blocks = words / 4 + 1;
    uint64_t seed = atomic_load_explicit(&g->seed, memory_order_relaxed);
    s->block = atomic_fetch_add_explicit(&g->offset, blocks, memory_order_relaxed);
    s->first = s->block;
    s->retry = 0;
    s->key[0] = (uint32_t)seed;
    s->key[1] = (uint32_t)(seed >> 32);
    s->used = 4;
    s->rused = 4;
}

uint32_t ct_random_next_word(ct_random_stream *s) {
    if (s->used == 4) {
        uint32_t ctr[4] = {(uint32_t)s->block, (uint32_t)(s->block >> 32), 0, 0};
        ct_philox4x32_10(ctr, s->key, s->buf);
        s->block++;
        s->used = 0;
    }
    return s->buf[s->used++];
}

/* The side stream lives where the main one never goes: counter words 2 and 3 hold
 * 2**32 + the retry block index (never 0), words 0 and 1 the call's first block, which
 * no other call shares. */
uint32_t ct_random_next_retry(ct_random_stream *s) {
    if (s->rused == 4) {
        uint64_t hi = s->retry + (UINT64_C(1) << 32);
        uint32_t ctr[4] = {(uint32_t)s->first, (uint32_t)(s->first >> 32), (uint32_t)hi,
                           (uint32_t)(hi >> 32)};
        ct_philox4x32_10(ctr, s->key, s->rbuf);
        s->retry++;
        s->rused = 0;
    }
    return s->rbuf[s->rused++];
}

/* ---- generators ------------------------------------------------------------------------- */

ct_status ct_generator_new(uint64_t seed, ct_generator **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_generator_new: out is NULL");
    *out = ct_alloc(sizeof **out, _Alignof(ct_generator));
    if (*out == NULL)
        return CT_ERR_NOMEM;
    atomic_init(&(*out)->seed, seed);
    atomic_init(&(*out)->offset, 0);
    return CT_OK;
}

ct_status ct_generator_device(const ct_device *device, ct_device *out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_generator_device: out is NULL");
    /* Values are drawn on the host and copied to the tensor's device afterwards, so a
     * generator belongs to no other device; the index of cpu carries no meaning. */
    if (device != NULL && !ct_device_is_valid(*device))
        return ct_set_error(CT_ERR_MISUSE, "ct_generator_device: invalid device");
    if (device != NULL && device->type != CT_DEVICE_CPU)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Device type %s is not supported for ctensor.Generator() api.",
                            ct_device_type_upper_name(device->type));
    *out = (ct_device){CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    return CT_OK;
}

void ct_generator_free(ct_generator *g) {
    if (g != NULL && g != &default_gen)
        ct_free(g, sizeof *g, _Alignof(ct_generator));
}

ct_generator *ct_default_generator(void) { return &default_gen; }

void ct_generator_manual_seed(ct_generator *g, uint64_t seed) {
    ct_generator_set_state(g, seed, 0);
}

uint64_t ct_generator_initial_seed(const ct_generator *g) {
    return g != NULL ? atomic_load_explicit(&((ct_generator *)g)->seed, memory_order_relaxed) : 0;
}

void ct_generator_get_state(const ct_generator *g, uint64_t *seed, uint64_t *offset) {
    ct_generator *m = (ct_generator *)g;
    if (seed != NULL)
        *seed = g != NULL ? atomic_load_explicit(&m->seed, memory_order_relaxed) : 0;
    if (offset != NULL)
        *offset = g != NULL ? atomic_load_explicit(&m->offset, memory_order_relaxed) : 0;
}

void ct_generator_set_state(ct_generator *g, uint64_t seed, uint64_t offset) {
    if (g == NULL)
        return;
    atomic_store_explicit(&g->seed, seed, memory_order_relaxed);
    atomic_store_explicit(&g->offset, offset, memory_order_relaxed);
}

void ct_manual_seed(uint64_t seed) { ct_generator_manual_seed(&default_gen, seed); }
uint64_t ct_initial_seed(void) { return ct_generator_initial_seed(&default_gen); }

/* ---- values -------------------------------------------------------------------------------- */

/* Uniform [0, 1) with exactly `bits` significant bits, so it is representable. */
static double uniform_bits(ct_random_stream *s, int bits) {
    if (bits <= 32)
        return (double)(ct_random_next_word(s) >> (32 - bits)) * ldexp(1.0, -bits);
    uint64_t hi = ct_random_next_word(s), lo = ct_random_next_word(s);
    return (double)(((hi << 32) | lo) >> 11) * 0x1p-53;
}

/* Mantissa bits of each real component type (what rand() keeps). */
static int real_bits(ct_dtype real) {
    switch (real) {
    case CT_FLOAT16:
        return 11;
    case CT_BFLOAT16:
        return 8;
    case CT_FLOAT32:
        return 24;
    default:
        return 53;
    }
}

/* Fill `n` real values of the real type of `dt` into a double buffer: uniform or normal
 * (Box-Muller in double, pairs; an odd count drops the last sine). */
static void draw(ct_random_stream *s, bool normal, int bits, double scale, double *v, size_t n) {
    if (!normal) {
        for (size_t i = 0; i < n; i++)
            v[i] = uniform_bits(s, bits);
        return;
    }
    for (size_t i = 0; i < n; i += 2) {
        double u1 = 1.0 - uniform_bits(s, 53); /* (0, 1]: log is finite */
        double u2 = uniform_bits(s, 53);
        double r = sqrt(-2.0 * log(u1)) * scale;
        v[i] = r * cos(TWO_PI * u2);
        if (i + 1 < n)
            v[i + 1] = r * sin(TWO_PI * u2);
    }
}

/* Words one value needs (for reserving). */
static uint64_t words_per_value(bool normal, int bits) {
    return normal ? 2 : bits <= 32 ? 1 : 2; /* normal: 4 words per pair */
}

ct_status ct_random_fill_host(ct_tensor *t, ct_dtype dtype, size_t count, ct_dtype from,
                              ct_random_chunk_fn gen, void *ctx) {
    size_t isz = ct_dtype_table[dtype].itemsize, nbytes = count * isz;
    char *host = ct_alloc(nbytes, 64);
    if (host == NULL)
        return CT_ERR_NOMEM;
    enum { CHUNK = 1024 };
    union {
        int64_t i[CHUNK];
        double f[CHUNK];
    } v;
    void *values = from == CT_INT64 ? (void *)v.i : (void *)v.f;
    for (size_t done = 0; done < count; done += CHUNK) {
        size_t m = count - done < CHUNK ? count - done : CHUNK;
        gen(ctx, values, m);
        (void)ct_convert(dtype, host + done * isz, from, values, m);
    }
    /* the tensor is fresh and dense: its block takes the values in memory order */
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    ct_status st = ct_device_copy(t->device, ct_tensor_data_ptr(t), cpu, host, nbytes);
    ct_free(host, nbytes, 64);
    return st;
}

typedef struct real_draw {
    ct_random_stream s;
    bool normal;
    int bits;
    double scale;
} real_draw;

static void real_chunk(void *ctx, void *values, size_t m) {
    real_draw *d = ctx;
    draw(&d->s, d->normal, d->bits, d->scale, values, m);
}

static ct_status random_fill(ct_tensor *t, ct_generator *g, bool normal) {
    if (t->numel == 0 || t->device.type == CT_DEVICE_META)
        return CT_OK;
    ct_dtype real = ct_dtype_to_real(t->dtype);
    size_t reals = (size_t)t->numel * (ct_dtype_is_complex(t->dtype) ? 2 : 1);
    /* complex normals: each part has variance 1/2 */
    real_draw d = {.normal = normal,
                   .bits = real_bits(real),
                   .scale = ct_dtype_is_complex(t->dtype) ? sqrt(0.5) : 1.0};
    ct_random_reserve(g, (uint64_t)reals * words_per_value(normal, d.bits) + 2, &d.s);
    return ct_random_fill_host(t, real, reals, CT_FLOAT64, real_chunk, &d);
}

static bool random_dtype_ok(ct_dtype dt) {
    ct_dtype real = ct_dtype_to_real(dt);
    return real == CT_FLOAT16 || real == CT_BFLOAT16 || real == CT_FLOAT32 || real == CT_FLOAT64;
}

/* Allocate (through `make`) then fill; refuses other dtypes with PyTorch's kernel names. */
static ct_status random_tensor(ct_tensor *t, ct_generator *g, bool normal, ct_tensor **out) {
    ct_status st = CT_OK;
    if (!random_dtype_ok(t->dtype) && (normal || t->numel > 0))
        st = ct_set_error(CT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                          normal ? "normal_kernel_cpu" : "check_uniform_bounds",
                          ct_dtype_impl_msg_name(ct_dtype_to_real(t->dtype)));
    if (st == CT_OK && random_dtype_ok(t->dtype))
        st = random_fill(t, g != NULL ? g : &default_gen, normal);
    if (st != CT_OK) {
        ct_tensor_release(t);
        return st;
    }
    *out = t;
    return CT_OK;
}

static ct_status random_new(const int64_t *sizes, int64_t ndim, ct_generator *g, ct_dtype dtype,
                            const ct_device *device, ct_layout layout, bool normal,
                            ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: out is NULL",
                            normal ? "ct_tensor_randn" : "ct_tensor_rand");
    *out = NULL;
    ct_tensor *t;
    CT_TRY(ct_tensor_empty(sizes, ndim, dtype, device, layout, CT_MEMFMT_CONTIGUOUS, &t));
    return random_tensor(t, g, normal, out);
}

ct_status ct_tensor_rand(const int64_t *sizes, int64_t ndim, ct_generator *g, ct_dtype dtype,
                         const ct_device *device, ct_layout layout, ct_tensor **out) {
    return random_new(sizes, ndim, g, dtype, device, layout, false, out);
}

ct_status ct_tensor_randn(const int64_t *sizes, int64_t ndim, ct_generator *g, ct_dtype dtype,
                          const ct_device *device, ct_layout layout, ct_tensor **out) {
    return random_new(sizes, ndim, g, dtype, device, layout, true, out);
}

static ct_status random_like(const ct_tensor *t, ct_generator *g, ct_dtype dtype,
                             const ct_device *device, ct_memory_format format, bool normal,
                             ct_tensor **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "random_like: out is NULL");
    *out = NULL;
    ct_tensor *r;
    /* empty_like's strides are always dense: values are drawn in memory order */
    CT_TRY(ct_tensor_empty_like(t, dtype, device, format, &r));
    return random_tensor(r, g, normal, out);
}

ct_status ct_tensor_rand_like(const ct_tensor *t, ct_generator *g, ct_dtype dtype,
                              const ct_device *device, ct_memory_format format, ct_tensor **out) {
    return random_like(t, g, dtype, device, format, false, out);
}

ct_status ct_tensor_randn_like(const ct_tensor *t, ct_generator *g, ct_dtype dtype,
                               const ct_device *device, ct_memory_format format, ct_tensor **out) {
    return random_like(t, g, dtype, device, format, true, out);
}
