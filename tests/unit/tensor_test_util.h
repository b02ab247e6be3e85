/* Helpers shared by the tensor tests (header-only, all static). */
#ifndef CT_TEST_TENSOR_TEST_UTIL_H
#define CT_TEST_TENSOR_TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmocka_all.h"
#include "ctensor/ctensor.h"

/* SHAPE(2, 3, 4) expands to two arguments: a pointer to {2, 3, 4} and the count 3. */
#define SHAPE(...)                                                                                 \
    ((const int64_t[]){__VA_ARGS__}),                                                              \
        ((int64_t)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))
#define ARR(...) ((const int64_t[]){__VA_ARGS__})

static const ct_device CPU = {CT_DEVICE_CPU, -1};
static const ct_device META = {CT_DEVICE_META, -1};

/* Assert CT_OK, printing the library's message otherwise. */
#define OK(call)                                                                                   \
    do {                                                                                           \
        ct_status ok_st_ = (call);                                                                 \
        if (ok_st_ != CT_OK)                                                                       \
            fail_msg("%s failed: %s (%s)", #call, ct_last_error(), ct_status_name(ok_st_));        \
    } while (0)

static inline void assert_i64s(const int64_t *got, int64_t n_got, const int64_t *want,
                               int64_t n_want) {
    assert_int_equal(n_got, n_want);
    for (int64_t i = 0; i < n_want; i++)
        if (got[i] != want[i])
            fail_msg("entry %d: got %lld, want %lld", (int)i, (long long)got[i],
                     (long long)want[i]);
}

/* `call` fails with status `kind` and exactly the message `msg`. */
#define EXPECT_ERR(call, kind, msg)                                                                \
    do {                                                                                           \
        ct_status e_st_ = (call);                                                                  \
        if (e_st_ != (kind))                                                                       \
            fail_msg("%s: got %s (%s), want %s", #call, ct_status_name(e_st_), ct_last_error(),    \
                     ct_status_name(kind));                                                        \
        if (strcmp(ct_last_error(), (msg)) != 0)                                                   \
            fail_msg("%s: message\n  got  '%s'\n  want '%s'", #call, ct_last_error(), (msg));      \
    } while (0)

#define assert_sizes(t, ...) assert_i64s(ct_tensor_sizes(t), ct_tensor_dim(t), SHAPE(__VA_ARGS__))
#define assert_strides(t, ...)                                                                     \
    assert_i64s(ct_tensor_strides(t), ct_tensor_dim(t), SHAPE(__VA_ARGS__))

/* A cpu float32 tensor of `sizes` holding 0, 1, 2, ... in C order. */
static inline ct_tensor *iota(const int64_t *sizes, int64_t ndim) {
    ct_tensor *a = NULL, *r = NULL;
    int64_t n = 1;
    for (int64_t i = 0; i < ndim; i++)
        n *= sizes[i];
    OK(ct_tensor_arange(ct_scalar_int(0), ct_scalar_int(n), ct_scalar_int(1), CT_FLOAT32, &CPU,
                        CT_LAYOUT_STRIDED, &a));
    OK(ct_tensor_view(a, sizes, ndim, &r));
    ct_tensor_release(a);
    return r;
}

/* An uninitialised cpu tensor with exactly these sizes and strides. */
static inline ct_tensor *strided(ct_dtype dt, const int64_t *sizes, int64_t ndim,
                                 const int64_t *strides) {
    ct_tensor *t = NULL;
    OK(ct_tensor_empty_strided(sizes, strides, ndim, dt, &CPU, CT_LAYOUT_STRIDED, &t));
    return t;
}

/* Element [idx] of a cpu float32 tensor. */
static inline float at_f32(const ct_tensor *t, const int64_t *idx) {
    const float *p = ct_tensor_data_ptr(t);
    int64_t off = 0;
    for (int64_t i = 0; i < ct_tensor_dim(t); i++)
        off += idx[i] * ct_tensor_strides(t)[i];
    return p[off];
}

/* item() as a double (FLOAT and INT kinds). */
static inline double item_f64(const ct_tensor *t) {
    ct_scalar s;
    OK(ct_tensor_item(t, &s));
    switch (s.kind) {
    case CT_SCALAR_BOOL:
        return s.v.b;
    case CT_SCALAR_INT:
        return (double)s.v.i;
    case CT_SCALAR_UINT:
        return (double)s.v.u;
    case CT_SCALAR_FLOAT:
        return s.v.f;
    default:
        return s.v.c.re;
    }
}

#endif
