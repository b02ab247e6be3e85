/* Internal: a stream of 32-bit words from a generator, shared by the random factories
 * (random.c: rand, randn; randint.c: randint). */
#ifndef CT_TENSOR_RANDOM_IMPL_H
#define CT_TENSOR_RANDOM_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "ctensor/random.h"
#include "ctensor/tensor.h"

/* Words from the Philox blocks [block, ...) under `key`; `retry` counts the blocks of the
 * side stream that rejection sampling draws from (ct_random_next_retry). */
typedef struct ct_random_stream {
    uint32_t key[2];
    uint64_t block;
    uint64_t first; /* the call's first block: names its side stream */
    uint64_t retry;
    uint32_t buf[4], rbuf[4];
    int used, rused;
} ct_random_stream;

/* Reserve `words` words of `generator` (NULL: the default one) for one call. */
void ct_random_reserve(ct_generator *generator, uint64_t words, ct_random_stream *s);
/* The next word of the reserved range; a call never reads more than it reserved. */
uint32_t ct_random_next_word(ct_random_stream *s);
/* The next word of the call's side stream, for draws whose count is not known in advance
 * (rejections): it never overlaps any call's reserved range nor another call's side stream. */
uint32_t ct_random_next_retry(ct_random_stream *s);

/* Writes m values (int64_t or double, as the fill asked) into `values`. */
typedef void (*ct_random_chunk_fn)(void *ctx, void *values, size_t m);
/* Fill the fresh dense tensor t with `count` values of `dtype` (t's dtype, or the real
 * dtype of a complex t, whose parts are then interleaved): `gen` makes them a chunk at a time
 * on the host as `from` values (CT_INT64 or CT_FLOAT64), they are converted there, and the
 * whole block is copied to t's device once. Errors: CT_ERR_NOMEM; ct_device_copy's. */
ct_status ct_random_fill_host(ct_tensor *t, ct_dtype dtype, size_t count, ct_dtype from,
                              ct_random_chunk_fn gen, void *ctx);

#endif /* CT_TENSOR_RANDOM_IMPL_H */
