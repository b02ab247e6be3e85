/* The element-wise iterator on its own (no kernels): broadcasting, the output strides
 * (every row of the table), overlap checks, the output's shape rules, out= resizing with
 * its warning, dtype and output-cast rules, devices (host-emulated cuda, meta), the OneFlow
 * mode, dimension coalescing, the run (rows, tiles, threads, early stop) and allocation
 * failures. Expected strides and messages were checked against torch 1.13. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "ctensor/compat.h"
#include "ctensor/warning.h"
#include "iter/iter.h"
#include "tensor/tensor_impl.h"
#include "tensor_test_util.h"

#include "fault_loop.h"
#include "emulated_cuda.h"
#include "warning_capture.h"

static const ct_device CUDA1 = {CT_DEVICE_CUDA, 1};

static const ct_iter_config ADD = {.name = "add",
                                   .promote_inputs = true,
                                   .check_out_cast = true,
                                   .allow_cpu_scalars = true,
                                   .check_overlap = true};
static const ct_iter_config DIV = {.name = "div",
                                   .promote_inputs = true,
                                   .int_to_float = true,
                                   .check_out_cast = true,
                                   .allow_cpu_scalars = true,
                                   .check_overlap = true};

/* ---- helpers ---- */

static ct_tensor *empty_on(ct_dtype dt, const int64_t *sizes, int64_t n, ct_device dev) {
    ct_tensor *t = NULL;
    OK(ct_tensor_empty(sizes, n, dt, &dev, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    return t;
}
static ct_tensor *empty(ct_dtype dt, const int64_t *sizes, int64_t n) {
    return empty_on(dt, sizes, n, CPU);
}
static ct_tensor *empty_cl(const int64_t *sizes, int64_t n, ct_memory_format f) {
    ct_tensor *t = NULL;
    OK(ct_tensor_empty(sizes, n, CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, f, &t));
    return t;
}
static ct_tensor *wrapped(ct_scalar v) {
    ct_tensor *t = NULL;
    OK(ct_tensor_wrapped_number(v, &t));
    return t;
}
static ct_tensor *zdim(ct_dtype dt) { return empty(dt, NULL, 0); }

static ct_status build(ct_iter *it, const ct_iter_config *cfg, ct_tensor *out, bool inplace,
                       const ct_tensor *a, const ct_tensor *b) {
    return ct_iter_build_binary(it, cfg, out, inplace, a, b, NULL, NULL);
}

/* Build a new-output add and check the output's shape and strides. */
static void check_out_strides(const ct_tensor *a, const ct_tensor *b, const int64_t *sizes,
                              int64_t n, const int64_t *strides) {
    ct_iter it;
    OK(build(&it, &ADD, NULL, false, a, b));
    assert_true(it.out_allocated);
    assert_i64s(ct_tensor_sizes(it.out), ct_tensor_dim(it.out), sizes, n);
    assert_i64s(ct_tensor_strides(it.out), ct_tensor_dim(it.out), strides, n);
    ct_iter_release(&it);
}
#define CHECK_STRIDES(a, b, sizes, strides)                                                        \
    check_out_strides(a, b, sizes, (int64_t)(sizeof sizes / sizeof sizes[0]), strides)

/* ---- broadcasting ---- */

static void test_broadcast_shapes(void **state) {
    (void)state;
    ct_iter it;
    ct_tensor *a = empty(CT_FLOAT32, SHAPE(2, 3)), *b = empty(CT_FLOAT32, SHAPE(2, 4));
    assert_status_msg(build(&it, &ADD, NULL, false, a, b), CT_ERR_RUNTIME,
                      "The size of tensor a (3) must match the size of tensor b (4) at "
                      "non-singleton dimension 1");
    assert_null(it.out);
    ct_tensor_release(a);
    ct_tensor_release(b);
    a = empty(CT_FLOAT32, SHAPE(5, 2, 3));
    b = empty(CT_FLOAT32, SHAPE(4, 1, 3));
    assert_status_msg(build(&it, &ADD, NULL, false, a, b), CT_ERR_RUNTIME,
                      "The size of tensor a (5) must match the size of tensor b (4) at "
                      "non-singleton dimension 0");
    ct_tensor_release(a);
    ct_tensor_release(b);
    a = empty(CT_FLOAT32, SHAPE(3));
    b = empty(CT_FLOAT32, SHAPE(4, 2));
    assert_status_msg(build(&it, &ADD, NULL, false, a, b), CT_ERR_RUNTIME,
                      "The size of tensor a (3) must match the size of tensor b (2) at "
                      "non-singleton dimension 1");
    ct_tensor_release(a);
    ct_tensor_release(b);
    /* zero sizes broadcast against 1 and 0 only */
    a = empty(CT_FLOAT32, SHAPE(0, 3));
    b = empty(CT_FLOAT32, SHAPE(1, 3));
    OK(build(&it, &ADD, NULL, false, a, b));
    assert_sizes(it.out, 0, 3);
    assert_int_equal(it.numel, 0);
    assert_int_equal(ct_iter_run(&it, NULL, NULL, 1), 0); /* runs nothing */
    ct_iter_release(&it);
    ct_tensor_release(b);
    b = empty(CT_FLOAT32, SHAPE(2, 1));
    assert_status_msg(build(&it, &ADD, NULL, false, a, b), CT_ERR_RUNTIME,
                      "The size of tensor a (0) must match the size of tensor b (2) at "
                      "non-singleton dimension 0");
    ct_tensor_release(b);
    /* 0-dim broadcasts to anything; two 0-dim give 0-dim */
    b = zdim(CT_FLOAT32);
    OK(build(&it, &ADD, NULL, false, b, a));
    assert_sizes(it.out, 0, 3);
    ct_iter_release(&it);
    OK(build(&it, &ADD, NULL, false, b, b));
    assert_int_equal(ct_tensor_dim(it.out), 0);
    assert_int_equal(it.numel, 1);
    assert_int_equal(it.ndim, 0);
    ct_iter_release(&it);
    ct_tensor_release(a);
    ct_tensor_release(b);
    /* (2, 1, 4) + (3, 1) -> (2, 3, 4) */
    a = empty(CT_FLOAT32, SHAPE(2, 1, 4));
    b = empty(CT_FLOAT32, SHAPE(3, 1));
    OK(build(&it, &ADD, NULL, false, a, b));
    assert_sizes(it.out, 2, 3, 4);
    assert_strides(it.out, 12, 4, 1);
    ct_iter_release(&it);
    ct_tensor_release(a);
    ct_tensor_release(b);
}

/* ---- output strides ---- */

static void test_strides_table(void **state) {
    (void)state;
    static const int64_t s2345[] = {2, 3, 4, 5}, cl[] = {60, 1, 15, 3}, c[] = {60, 20, 5, 1};
    ct_tensor *tcl = empty_cl(SHAPE(2, 3, 4, 5), CT_MEMFMT_CHANNELS_LAST);
    ct_tensor *tc = empty(CT_FLOAT32, SHAPE(2, 3, 4, 5));
    ct_tensor *one = wrapped(ct_scalar_int(1));
    ct_tensor *c311 = empty(CT_FLOAT32, SHAPE(3, 1, 1));
    ct_tensor *c1345 = empty(CT_FLOAT32, SHAPE(1, 3, 4, 5));
    CHECK_STRIDES(tcl, tc, s2345, cl); /* first input wins */
    CHECK_STRIDES(tc, tcl, s2345, c);
    CHECK_STRIDES(tcl, one, s2345, cl); /* the non-broadcast operand decides */
    CHECK_STRIDES(tcl, c311, s2345, cl);
    CHECK_STRIDES(c311, tcl, s2345, cl);
    CHECK_STRIDES(c1345, tcl, s2345, c); /* the first operand's non-broadcast dims decide */
    CHECK_STRIDES(tcl, tcl, s2345, cl);  /* fast setup: channels_last */
    ct_tensor_release(tc);
    ct_tensor_release(c311);
    ct_tensor_release(c1345);

    /* t = empty(3, 4).t(): (4, 3)@(1, 4) */
    static const int64_t s43[] = {4, 3}, t14[] = {1, 4}, t31[] = {3, 1};
    ct_tensor *base = empty(CT_FLOAT32, SHAPE(3, 4)), *t = NULL;
    OK(ct_tensor_t(base, &t));
    ct_tensor *c43 = empty(CT_FLOAT32, SHAPE(4, 3)), *c3 = empty(CT_FLOAT32, SHAPE(3));
    ct_tensor *c41 = empty(CT_FLOAT32, SHAPE(4, 1));
    CHECK_STRIDES(t, t, s43, t14); /* fast setup: dense with identical strides */
    CHECK_STRIDES(t, c43, s43, t14);
    CHECK_STRIDES(c43, t, s43, t31);
    CHECK_STRIDES(t, c3, s43, t14);
    CHECK_STRIDES(t, c41, s43, t14);
    ct_tensor_release(c43);
    ct_tensor_release(c3);
    ct_tensor_release(c41);
    ct_tensor_release(t);
    ct_tensor_release(base);

    /* (2, 1, 4, 1)@(4, 1, 1, 1) + 1 and (2, 3)@(1, 2) + 1 */
    static const int64_t s2141[] = {2, 1, 4, 1}, st2141[] = {4, 1, 1, 1};
    ct_tensor *x = strided(CT_FLOAT32, SHAPE(2, 1, 4, 1), ARR(4, 1, 1, 1));
    CHECK_STRIDES(x, one, s2141, st2141);
    ct_tensor_release(x);
    static const int64_t s23[] = {2, 3}, st12[] = {1, 2}, st31[] = {3, 1}, s34[] = {3, 4},
                         st41[] = {4, 1};
    x = strided(CT_FLOAT32, SHAPE(2, 3), ARR(1, 2));
    CHECK_STRIDES(x, one, s23, st12);
    ct_tensor_release(x);
    /* expanded inputs give dense outputs: expand(1,3 -> 2,3), expand(3,1 -> 3,4) */
    base = empty(CT_FLOAT32, SHAPE(1, 3));
    OK(ct_tensor_expand(base, SHAPE(2, 3), &x));
    CHECK_STRIDES(x, one, s23, st31);
    ct_tensor_release(x);
    ct_tensor_release(base);
    base = empty(CT_FLOAT32, SHAPE(3, 1));
    OK(ct_tensor_expand(base, SHAPE(3, 4), &x));
    CHECK_STRIDES(x, one, s34, st41);
    ct_tensor_release(x);
    ct_tensor_release(base);

    /* channels_last_3d: + 1, + itself, + a contiguous one */
    static const int64_t s23456[] = {2, 3, 4, 5, 6}, cl3[] = {360, 1, 90, 18, 3};
    x = empty_cl(SHAPE(2, 3, 4, 5, 6), CT_MEMFMT_CHANNELS_LAST_3D);
    ct_tensor *c5 = empty(CT_FLOAT32, SHAPE(2, 3, 4, 5, 6));
    CHECK_STRIDES(x, one, s23456, cl3);
    CHECK_STRIDES(x, x, s23456, cl3);
    CHECK_STRIDES(x, c5, s23456, cl3);
    ct_tensor_release(x);
    ct_tensor_release(c5);

    /* ambiguous NC11: contiguous is tested first */
    static const int64_t s2311[] = {2, 3, 1, 1}, st3111[] = {3, 1, 1, 1};
    x = empty_cl(SHAPE(2, 3, 1, 1), CT_MEMFMT_CHANNELS_LAST);
    ct_tensor *y = empty(CT_FLOAT32, SHAPE(2, 3, 1, 1));
    CHECK_STRIDES(x, y, s2311, st3111);
    ct_tensor_release(x);
    ct_tensor_release(y);
    ct_tensor_release(tcl);
    ct_tensor_release(one);
}

static void test_strides_zero_sizes(void **state) {
    (void)state;
    /* non-inverted permutations multiply by zero sizes (no clamping), as PyTorch */
    static const int64_t s04[] = {0, 4}, st10[] = {1, 0};
    ct_tensor *base = empty(CT_FLOAT32, SHAPE(4, 0)), *t = NULL, *b = empty(CT_FLOAT32, SHAPE(4));
    OK(ct_tensor_t(base, &t));
    CHECK_STRIDES(t, b, s04, st10);
    ct_tensor_release(t);
    ct_tensor_release(base);
    ct_tensor_release(b);
    static const int64_t s402[] = {4, 0, 2}, st140[] = {1, 4, 0};
    base = empty(CT_FLOAT32, SHAPE(2, 0, 4));
    OK(ct_tensor_permute(base, SHAPE(2, 1, 0), &t));
    b = empty(CT_FLOAT32, SHAPE(2));
    CHECK_STRIDES(t, b, s402, st140);
    ct_tensor_release(t);
    ct_tensor_release(base);
    ct_tensor_release(b);
    /* empty tensors are contiguous: fast setup, contiguous strides with clamping */
    static const int64_t s203[] = {2, 0, 3}, st331[] = {3, 3, 1};
    b = empty(CT_FLOAT32, SHAPE(2, 0, 3));
    CHECK_STRIDES(b, b, s203, st331);
    ct_tensor_release(b);
    /* (3, 0, 5)@(1, 15, 3) + (5): (1, 15, 3) */
    static const int64_t s305[] = {3, 0, 5}, st1153[] = {1, 15, 3};
    t = strided(CT_FLOAT32, SHAPE(3, 0, 5), ARR(1, 15, 3));
    b = empty(CT_FLOAT32, SHAPE(5));
    CHECK_STRIDES(t, b, s305, st1153);
    ct_tensor_release(t);
    ct_tensor_release(b);
}


/* Note [Converted inputs] (strides.c): on the cpu, an input of another dtype is decided on
 * as its converted copy would be laid out (dense, in its own dim order); on meta as it is.
 * Each expectation is torch 1.13's (cpu and meta). */
static ct_tensor *expanded(ct_dtype dt, ct_device dev, const int64_t *from, int64_t nfrom,
                           const int64_t *to, int64_t nto) {
    ct_tensor *t = empty_on(dt, from, nfrom, dev), *e = NULL;
    OK(ct_tensor_expand(t, to, nto, &e));
    ct_tensor_release(t);
    return e;
}
static ct_tensor *permuted(ct_dtype dt, ct_device dev, const int64_t *sizes, int64_t n,
                           const int64_t *dims) {
    ct_tensor *t = empty_on(dt, sizes, n, dev), *p = NULL;
    OK(ct_tensor_permute(t, dims, n, &p));
    ct_tensor_release(t);
    return p;
}
static void check_strides_on(const ct_tensor *a, const ct_tensor *b, const int64_t *strides,
                             int64_t n) {
    ct_iter it;
    OK(build(&it, &ADD, NULL, false, a, b));
    assert_i64s(ct_tensor_strides(it.out), ct_tensor_dim(it.out), strides, n);
    ct_iter_release(&it);
}

static void test_strides_converted_inputs(void **state) {
    (void)state;
    static const int64_t p021[] = {0, 2, 1}, p10[] = {1, 0};
    static const int64_t dense[] = {4, 2, 1}, perm[] = {4, 1, 2}, row[] = {4, 1}, col[] = {1, 3};
    const ct_device devs[] = {CPU, META};
    for (int d = 0; d < 2; d++) {
        bool cpu = d == 0;
        /* tensor(1.).expand(2,2,2) + complex64 ones(2,2,2).permute(0,2,1): the float32
         * input's copy is contiguous and decides first; the same dtypes leave it to b */
        ct_tensor *e = expanded(CT_FLOAT32, devs[d], NULL, 0, SHAPE(2, 2, 2));
        ct_tensor *pc = permuted(CT_COMPLEX64, devs[d], SHAPE(2, 2, 2), p021);
        ct_tensor *pf = permuted(CT_FLOAT32, devs[d], SHAPE(2, 2, 2), p021);
        check_strides_on(e, pc, cpu ? dense : perm, 3);
        check_strides_on(e, pf, perm, 3);
        /* int32 ones(3,1).expand(3,4) * float64 ones(4,3).t() */
        ct_tensor *ei = expanded(CT_INT32, devs[d], SHAPE(3, 1), SHAPE(3, 4));
        ct_tensor *t64 = permuted(CT_FLOAT64, devs[d], SHAPE(4, 3), p10);
        check_strides_on(ei, t64, cpu ? row : col, 2);
        ct_tensor *all[] = {e, pc, pf, ei, t64};
        for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
            ct_tensor_release(all[k]);
    }
    /* a non-dense input's dense copy counts in the sort too: ones(3,6,4, bool)[0:2:2,
     * 0:6:2, 1:3:2].permute(1,2,0) (sizes (3,1,1), strides (8,2,48)) + a zero-size
     * channels_last int64 (0,3,1,0) (strides (0,1,0,3)): torch gives (0,1,3,3) */
    ct_tensor *base = empty(CT_BOOL, SHAPE(3, 6, 4)), *s0 = NULL, *s1 = NULL, *s2 = NULL;
    ct_tensor *v = NULL, *cl = NULL;
    OK(ct_tensor_slice(base, 0, 0, 2, 2, &s0));
    OK(ct_tensor_slice(s0, 1, 0, 6, 2, &s1));
    OK(ct_tensor_slice(s1, 2, 1, 3, 2, &s2));
    static const int64_t p120[] = {1, 2, 0}, vst[] = {8, 2, 48};
    OK(ct_tensor_permute(s2, p120, 3, &v));
    assert_i64s(ct_tensor_strides(v), 3, vst, 3);
    OK(ct_tensor_empty(SHAPE(0, 3, 1, 0), CT_INT64, &CPU, CT_LAYOUT_STRIDED,
                       CT_MEMFMT_CHANNELS_LAST, &cl));
    static const int64_t want[] = {0, 1, 3, 3};
    check_strides_on(v, cl, want, 4);
    /* the decision may take the fast setup on the copy's strides, but the loop reads the
     * input in place: float32 (4,) + int32 (1,) expanded to (4,) walks b with stride 0 */
    ct_tensor *f4 = empty(CT_FLOAT32, SHAPE(4)), *i4 = expanded(CT_INT32, CPU, SHAPE(1), SHAPE(4));
    ct_iter it;
    OK(build(&it, &ADD, NULL, false, f4, i4));
    static const int64_t one[] = {1};
    assert_i64s(ct_tensor_strides(it.out), 1, one, 1);
    assert_int_equal(it.ndim, 1);
    assert_int_equal(it.strides[0][0], 4);
    assert_int_equal(it.strides[1][0], 4);
    assert_int_equal(it.strides[2][0], 0);
    ct_iter_release(&it);
    ct_tensor_release(f4);
    ct_tensor_release(i4);
    ct_tensor *rest[] = {base, s0, s1, s2, v, cl};
    for (size_t k = 0; k < sizeof rest / sizeof rest[0]; k++)
        ct_tensor_release(rest[k]);
}

/* Size-1 dims keep their own strides in the general path's sort (only broadcast dims count
 * as 0), so t = ones(3,5,3)[1:2,1:4:3,0:3].permute(1,2,0) (sizes (1,3,1), strides (9,1,15))
 * with a 0-dim operand sorts dim 2 (stride 15) after dim 0 (stride 9): (3,1,3), as torch's
 * t + 1 and div(1, t). With an operand of t's shape the fast setup sees two contiguous
 * tensors and gives plain contiguous strides (3,1,1), as torch's t + ones(1,3,1) and its
 * unary ops (the Python binding lays `s / t` out as reciprocal's, see tensor_arith.c). */
static void test_strides_size1_dims(void **state) {
    (void)state;
    ct_tensor *x = iota(SHAPE(3, 5, 3)), *s0 = NULL, *s1 = NULL, *s2 = NULL, *t = NULL;
    OK(ct_tensor_slice(x, 0, 1, 2, 1, &s0));
    OK(ct_tensor_slice(s0, 1, 1, 4, 3, &s1));
    OK(ct_tensor_slice(s1, 2, 0, 3, 1, &s2));
    static const int64_t p120[] = {1, 2, 0}, want_t[] = {9, 1, 15};
    OK(ct_tensor_permute(s2, p120, 3, &t));
    assert_i64s(ct_tensor_strides(t), 3, want_t, 3);
    static const int64_t sz[] = {1, 3, 1}, general[] = {3, 1, 3}, fast[] = {3, 1, 1};
    ct_tensor *one = wrapped(ct_scalar_int(1)), *z = zdim(CT_FLOAT32);
    ct_tensor *o = empty(CT_FLOAT32, SHAPE(1, 3, 1));
    CHECK_STRIDES(t, one, sz, general);
    CHECK_STRIDES(one, t, sz, general);
    CHECK_STRIDES(z, t, sz, general);
    CHECK_STRIDES(t, o, sz, fast);
    CHECK_STRIDES(t, t, sz, fast);
    ct_tensor *all[] = {x, s0, s1, s2, t, one, z, o};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        ct_tensor_release(all[k]);
}

/* ---- overlap ---- */

static void test_overlap(void **state) {
    (void)state;
    ct_iter it;
    ct_tensor *one = wrapped(ct_scalar_int(1));
    ct_tensor *base = iota(SHAPE(4)), *ex = NULL;
    OK(ct_tensor_expand(base, SHAPE(2, 4), &ex));
    const char *internal = "unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the tensor "
                           "before performing the operation.";
    const char *partial = "unsupported operation: some elements of the input tensor and the "
                          "written-to tensor refer to a single memory location. Please clone() "
                          "the tensor before performing the operation.";
    assert_status_msg(build(&it, &ADD, ex, true, ex, one), CT_ERR_RUNTIME, internal);
    ct_tensor *ones = iota(SHAPE(2, 4));
    assert_status_msg(build(&it, &ADD, ex, false, ones, one), CT_ERR_RUNTIME, internal);
    ct_tensor_release(ex);
    ct_tensor_release(ones);
    /* torch.add(y[:3], 1, out=y[1:]) */
    ct_tensor *y = iota(SHAPE(4)), *head = NULL, *tail = NULL;
    OK(ct_tensor_slice(y, 0, 0, 3, 1, &head));
    OK(ct_tensor_slice(y, 0, 1, CT_SLICE_END, 1, &tail));
    assert_status_msg(build(&it, &ADD, tail, false, head, one), CT_ERR_RUNTIME, partial);
    /* z[1:].mul_(z[:-1]) */
    assert_status_msg(build(&it, &ADD, tail, true, tail, head), CT_ERR_RUNTIME, partial);
    /* torch.add(y, 1, out=y): the same tensor is fine; so is another view of the same
     * elements with the same strides */
    OK(build(&it, &ADD, y, false, y, one));
    ct_iter_release(&it);
    ct_tensor *alias = NULL;
    OK(ct_tensor_alias(y, &alias));
    OK(build(&it, &ADD, alias, false, y, one));
    ct_iter_release(&it);
    ct_tensor_release(alias);
    /* disjoint parts of one storage are fine */
    ct_tensor *first = NULL, *last = NULL;
    OK(ct_tensor_slice(y, 0, 0, 2, 1, &first));
    OK(ct_tensor_slice(y, 0, 2, 4, 1, &last));
    OK(build(&it, &ADD, first, false, last, one));
    ct_iter_release(&it);
    ct_tensor_release(first);
    ct_tensor_release(last);
    /* the same bytes walked differently: a square and its transpose */
    ct_tensor *sq = iota(SHAPE(3, 3)), *sqt = NULL;
    OK(ct_tensor_t(sq, &sqt));
    assert_status_msg(build(&it, &ADD, sq, false, sqt, one), CT_ERR_RUNTIME, partial);
    /* "too hard" (strided, not dense) is allowed */
    ct_tensor *every2 = NULL, *odd = NULL;
    ct_tensor *z = iota(SHAPE(8));
    OK(ct_tensor_slice(z, 0, 0, 8, 2, &every2));
    OK(ct_tensor_slice(z, 0, 1, 8, 2, &odd));
    OK(build(&it, &ADD, every2, false, odd, one));
    ct_iter_release(&it);
    ct_tensor_release(every2);
    ct_tensor_release(odd);
    ct_tensor_release(z);
    ct_tensor_release(sq);
    ct_tensor_release(sqt);
    ct_tensor_release(head);
    ct_tensor_release(tail);
    ct_tensor_release(y);
    ct_tensor_release(base);
    ct_tensor_release(one);
}

/* ---- output shapes: in-place cannot grow, out= is resized ---- */


static void test_inplace_shape(void **state) {
    (void)state;
    ct_iter it;
    ct_tensor *a = empty(CT_FLOAT32, SHAPE(1)), *b = empty(CT_FLOAT32, SHAPE(3));
    assert_status_msg(build(&it, &ADD, a, true, a, b), CT_ERR_RUNTIME,
                      "output with shape [1] doesn't match the broadcast shape [3]");
    /* out= that is also an input: the same error, no resize */
    assert_status_msg(build(&it, &ADD, a, false, b, a), CT_ERR_RUNTIME,
                      "output with shape [1] doesn't match the broadcast shape [3]");
    ct_tensor_release(a);
    ct_tensor_release(b);
    a = empty(CT_FLOAT32, SHAPE(2, 1));
    b = empty(CT_FLOAT32, SHAPE(2, 3));
    assert_status_msg(build(&it, &ADD, a, true, a, b), CT_ERR_RUNTIME,
                      "output with shape [2, 1] doesn't match the broadcast shape [2, 3]");
    ct_tensor_release(a);
    a = zdim(CT_FLOAT32);
    assert_status_msg(build(&it, &ADD, a, true, a, b), CT_ERR_RUNTIME,
                      "output with shape [] doesn't match the broadcast shape [2, 3]");
    ct_tensor_release(a);
    /* broadcasting the other operand into self is fine */
    a = empty(CT_FLOAT32, SHAPE(2, 3));
    ct_tensor *row = empty(CT_FLOAT32, SHAPE(3));
    OK(build(&it, &ADD, a, true, a, row));
    assert_ptr_equal(it.out, a);
    assert_false(it.out_allocated);
    assert_int_equal(ct_tensor_refcount(a), 2);
    ct_iter_release(&it);
    assert_int_equal(ct_tensor_refcount(a), 1);
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_tensor_release(row);
}

static void test_out_resize(void **state) {
    (void)state;
    ct_set_warning_handler(on_warning, NULL);
    ct_iter it;
    ct_tensor *a = empty(CT_FLOAT32, SHAPE(3)), *out = empty(CT_FLOAT32, SHAPE(1));
    nwarnings = 0;
    OK(build(&it, &ADD, out, false, a, a));
    assert_true(it.out_resized);
    assert_int_equal(nwarnings, 1);
    assert_string_equal(last_warning,
                        "An output with one or more elements was resized since it had shape [1], "
                        "which does not match the required output shape [3]. This behavior is "
                        "deprecated, and in a future PyTorch release outputs will not be resized "
                        "unless they have zero elements. You can explicitly reuse an out tensor t "
                        "by resizing it, inplace, to zero elements with t.resize_(0).");
    assert_sizes(out, 3);
    assert_strides(out, 1);
    assert_int_equal(ct_tensor_numel(out), 3);
    assert_true(ct_storage_nbytes(ct_tensor_storage(out)) >= 12);
    ct_iter_release(&it);
    ct_tensor_release(out);
    /* zero elements: silent; the resized output takes the inputs' layout */
    ct_tensor *cl = empty_cl(SHAPE(2, 3, 4, 5), CT_MEMFMT_CHANNELS_LAST);
    out = empty(CT_FLOAT32, SHAPE(0));
    nwarnings = 0;
    OK(build(&it, &ADD, out, false, cl, cl));
    assert_int_equal(nwarnings, 0);
    assert_sizes(out, 2, 3, 4, 5);
    assert_strides(out, 60, 1, 15, 3);
    ct_iter_release(&it);
    /* 0-dim shape printed as [] */
    ct_tensor *one = wrapped(ct_scalar_int(1));
    ct_tensor *z = zdim(CT_FLOAT32);
    OK(build(&it, &ADD, out, false, z, one));
    assert_int_equal(nwarnings, 1);
    assert_non_null(strstr(last_warning, "had shape [2, 3, 4, 5], which does not match the "
                                         "required output shape []."));
    assert_int_equal(ct_tensor_dim(out), 0);
    ct_iter_release(&it);
    /* an output of the right shape keeps its own strides (and takes part in the order) */
    ct_tensor *c = empty(CT_FLOAT32, SHAPE(2, 3, 4, 5));
    ct_tensor *t = strided(CT_FLOAT32, SHAPE(2, 3, 4, 5), ARR(1, 2, 6, 24));
    nwarnings = 0;
    OK(build(&it, &ADD, t, false, c, cl));
    assert_int_equal(nwarnings, 0);
    assert_false(it.out_resized);
    assert_strides(t, 1, 2, 6, 24);
    ct_iter_release(&it);
    ct_tensor_release(t);
    ct_tensor_release(c);
    ct_tensor_release(z);
    ct_tensor_release(one);
    ct_tensor_release(out);
    ct_tensor_release(cl);
    ct_tensor_release(a);
    ct_set_warning_handler(NULL, NULL);
}

static void test_resize_impl(void **state) {
    (void)state;
    /* growing keeps the old bytes and the offset; a view of the old storage keeps it */
    ct_tensor *t = iota(SHAPE(2, 2)), *view = NULL;
    OK(ct_tensor_alias(t, &view));
    ct_storage *old = ct_tensor_storage(t);
    OK(ct_tensor_impl_resize(t, SHAPE(2, 3, 4, 5, 6, 7, 8), NULL));
    assert_int_equal(ct_tensor_numel(t), 2 * 3 * 4 * 5 * 6 * 7 * 8);
    assert_ptr_not_equal(ct_tensor_storage(t), old);
    assert_ptr_equal(ct_tensor_storage(view), old);
    const float *p = ct_tensor_data_ptr(t);
    assert_true(p[0] == 0.0f && p[3] == 3.0f);
    assert_true(ct_tensor_is_contiguous(t, CT_MEMFMT_CONTIGUOUS));
    /* 7 dims live on the heap; back to 7 other dims reuses it, then inline */
    OK(ct_tensor_impl_resize(t, SHAPE(1, 1, 1, 1, 1, 1, 4), ARR(9, 9, 9, 9, 9, 9, 1)));
    assert_strides(t, 9, 9, 9, 9, 9, 9, 1);
    OK(ct_tensor_impl_resize(t, ct_tensor_sizes(t), ct_tensor_dim(t), NULL));
    assert_strides(t, 4, 4, 4, 4, 4, 4, 1);
    OK(ct_tensor_impl_resize(t, SHAPE(3), NULL));
    assert_sizes(t, 3);
    /* errors leave the tensor alone */
    assert_status_msg(ct_tensor_impl_resize(t, SHAPE(-1), NULL), CT_ERR_RUNTIME,
                      "Trying to create tensor with negative dimension -1: [-1]");
    assert_sizes(t, 3);
    ct_tensor_release(view);
    ct_tensor_release(t);
    /* wrapped (external) memory cannot grow */
    float buf[2] = {1, 2};
    ct_storage *s = NULL;
    OK(ct_storage_wrap(CPU, buf, sizeof buf, NULL, NULL, &s));
    OK(ct_tensor_from_storage(s, ARR(2), NULL, 1, 0, CT_FLOAT32, &t));
    ct_storage_release(s);
    assert_status_msg(ct_tensor_impl_resize(t, SHAPE(3), NULL), CT_ERR_RUNTIME,
                      "Trying to resize storage that is not resizable");
    OK(ct_tensor_impl_resize(t, SHAPE(1), NULL)); /* shrinking needs no memory */
    assert_sizes(t, 1);
    ct_tensor_release(t);
}

/* ---- dtypes and output casting ---- */

static ct_dtype common_of(const ct_iter_config *cfg, const ct_tensor *a, const ct_tensor *b) {
    ct_iter it;
    OK(build(&it, cfg, NULL, false, a, b));
    ct_dtype d = it.common_dtype;
    assert_int_equal(ct_tensor_dtype(it.out), d);
    ct_iter_release(&it);
    return d;
}

static void test_common_dtype(void **state) {
    (void)state;
    ct_tensor *i32 = empty(CT_INT32, SHAPE(2)), *f16 = empty(CT_FLOAT16, SHAPE(2));
    ct_tensor *b = empty(CT_BOOL, SHAPE(2)), *u8 = empty(CT_UINT8, SHAPE(2));
    ct_tensor *zi64 = zdim(CT_INT64), *zf64 = zdim(CT_FLOAT64), *zc128 = zdim(CT_COMPLEX128);
    ct_tensor *w5 = wrapped(ct_scalar_int(5)), *w25 = wrapped(ct_scalar_float(2.5));
    ct_tensor *wt = wrapped(ct_scalar_bool(true)), *wj = wrapped(ct_scalar_complex(0, 1));
    assert_int_equal(common_of(&ADD, w5, w5), CT_INT64);
    assert_int_equal(common_of(&ADD, w5, w25), CT_FLOAT32);
    assert_int_equal(common_of(&ADD, w25, w25), CT_FLOAT64); /* the same-dtype shortcut */
    assert_int_equal(common_of(&ADD, wj, wj), CT_COMPLEX128);
    assert_int_equal(common_of(&ADD, wt, w5), CT_INT64);
    assert_int_equal(common_of(&ADD, i32, w5), CT_INT32);
    assert_int_equal(common_of(&ADD, i32, w25), CT_FLOAT32);
    assert_int_equal(common_of(&ADD, i32, wj), CT_COMPLEX64);
    assert_int_equal(common_of(&ADD, b, w5), CT_INT64);
    assert_int_equal(common_of(&ADD, b, wt), CT_BOOL);
    assert_int_equal(common_of(&ADD, u8, zi64), CT_UINT8);
    assert_int_equal(common_of(&ADD, i32, zi64), CT_INT32);
    assert_int_equal(common_of(&ADD, i32, zf64), CT_FLOAT64);
    assert_int_equal(common_of(&ADD, i32, zc128), CT_COMPLEX128);
    assert_int_equal(common_of(&ADD, f16, zf64), CT_FLOAT16);
    assert_int_equal(common_of(&ADD, f16, wj), CT_COMPLEX32);
    assert_int_equal(common_of(&ADD, zf64, w25), CT_FLOAT64);
    /* true division: ints and bool become the default dtype */
    assert_int_equal(common_of(&DIV, i32, i32), CT_FLOAT32);
    assert_int_equal(common_of(&DIV, b, b), CT_FLOAT32);
    assert_int_equal(common_of(&DIV, i32, w5), CT_FLOAT32);
    assert_int_equal(common_of(&DIV, f16, i32), CT_FLOAT16);
    OK(ct_set_default_dtype(CT_FLOAT64));
    assert_int_equal(common_of(&DIV, i32, i32), CT_FLOAT64);
    assert_int_equal(common_of(&ADD, i32, w25), CT_FLOAT64);
    OK(ct_set_default_dtype(CT_FLOAT32));
    /* promotion errors surface from the build */
    ct_tensor *u16 = empty(CT_UINT16, SHAPE(2));
    ct_iter it;
    assert_status_msg(build(&it, &ADD, NULL, false, u16, i32), CT_ERR_RUNTIME,
                      "Promotion for uint16, uint32, uint64 types is not supported, attempted to "
                      "promote UInt16 and Int");
    ct_tensor *all[] = {i32, f16, b, u8, zi64, zf64, zc128, w5, w25, wt, wj, u16};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}

/* build an in-place (self op= other) or out= iterator and return its status */
static ct_status try_inplace(const ct_iter_config *cfg, ct_tensor *self, const ct_tensor *other) {
    ct_iter it;
    ct_status st = build(&it, cfg, self, true, self, other);
    ct_iter_release(&it);
    return st;
}
static ct_status try_out(const ct_iter_config *cfg, const ct_tensor *a, const ct_tensor *b,
                         ct_tensor *out) {
    ct_iter it;
    ct_status st = build(&it, cfg, out, false, a, b);
    ct_iter_release(&it);
    return st;
}

static void test_output_cast(void **state) {
    (void)state;
    ct_tensor *i32 = empty(CT_INT32, SHAPE(2)), *i64 = empty(CT_INT64, SHAPE(2));
    ct_tensor *f32 = empty(CT_FLOAT32, SHAPE(2)), *f64 = empty(CT_FLOAT64, SHAPE(2));
    ct_tensor *f16 = empty(CT_FLOAT16, SHAPE(2)), *b = empty(CT_BOOL, SHAPE(2));
    ct_tensor *c64 = empty(CT_COMPLEX64, SHAPE(2)), *u8 = empty(CT_UINT8, SHAPE(2));
    ct_tensor *zf64 = zdim(CT_FLOAT64);
    ct_tensor *w25 = wrapped(ct_scalar_float(2.5)), *w2 = wrapped(ct_scalar_int(2));
    ct_tensor *wt = wrapped(ct_scalar_bool(true)), *wj = wrapped(ct_scalar_complex(0, 1));
    ct_tensor *wm1 = wrapped(ct_scalar_int(-1));
    assert_status_msg(try_inplace(&ADD, i32, w25), CT_ERR_RUNTIME,
                      "result type Float can't be cast to the desired output type Int");
    OK(try_inplace(&ADD, i32, w2));
    OK(try_inplace(&ADD, i32, wt));
    OK(try_inplace(&ADD, i32, i64));
    assert_status_msg(try_inplace(&ADD, i32, zf64), CT_ERR_RUNTIME,
                      "result type Double can't be cast to the desired output type Int");
    assert_status_msg(try_inplace(&ADD, i32, f32), CT_ERR_RUNTIME,
                      "result type Float can't be cast to the desired output type Int");
    assert_status_msg(try_inplace(&DIV, i32, w2), CT_ERR_RUNTIME,
                      "result type Float can't be cast to the desired output type Int");
    OK(try_inplace(&ADD, u8, wm1));
    assert_status_msg(try_inplace(&ADD, b, w2), CT_ERR_RUNTIME,
                      "result type Long can't be cast to the desired output type Bool");
    OK(try_inplace(&ADD, b, wt));
    assert_status_msg(try_inplace(&ADD, f32, wj), CT_ERR_RUNTIME,
                      "result type ComplexFloat can't be cast to the desired output type Float");
    assert_status_msg(try_inplace(&ADD, f32, c64), CT_ERR_RUNTIME,
                      "result type ComplexFloat can't be cast to the desired output type Float");
    OK(try_inplace(&ADD, f32, f64));
    OK(try_inplace(&ADD, f16, f64));
    assert_status_msg(try_out(&ADD, f32, f32, i64), CT_ERR_RUNTIME,
                      "result type Float can't be cast to the desired output type Long");
    OK(try_out(&ADD, i64, i64, f32));
    assert_status_msg(try_out(&ADD, i64, i64, b), CT_ERR_RUNTIME,
                      "result type Long can't be cast to the desired output type Bool");
    assert_status_msg(try_out(&DIV, i32, i32, i32), CT_ERR_RUNTIME,
                      "result type Float can't be cast to the desired output type Int");
    OK(try_out(&ADD, f64, w2, f16));
    /* an out= dtype never takes part in the common dtype */
    ct_iter it;
    OK(build(&it, &ADD, f64, false, i32, i32));
    assert_int_equal(it.common_dtype, CT_INT32);
    assert_int_equal(it.dtype[0], CT_FLOAT64);
    ct_iter_release(&it);
    ct_tensor *all[] = {i32, i64, f32, f64, f16, b, c64, u8, zf64, w25, w2, wt, wj, wm1};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}

static void test_oneflow_mode(void **state) {
    (void)state;
    ct_tensor *i32 = empty(CT_INT32, SHAPE(2)), *i64 = empty(CT_INT64, SHAPE(2));
    ct_tensor *f32 = empty(CT_FLOAT32, SHAPE(2)), *f64 = empty(CT_FLOAT64, SHAPE(2));
    ct_tensor *u8 = empty(CT_UINT8, SHAPE(2)), *b = empty(CT_BOOL, SHAPE(2));
    ct_tensor *zi64 = zdim(CT_INT64), *w5 = wrapped(ct_scalar_int(5));
    OK(ct_set_compat_mode(CT_COMPAT_ONEFLOW));
    assert_int_equal(common_of(&ADD, i32, zi64), CT_INT64); /* PyTorch: int32 */
    assert_int_equal(common_of(&ADD, i32, w5), CT_INT32);   /* scalars stay lower */
    assert_int_equal(common_of(&ADD, i64, i32), CT_INT64);
    assert_int_equal(common_of(&ADD, b, u8), CT_UINT8);
    /* the page's in-place casting examples */
    OK(try_inplace(&ADD, f32, f32));
    OK(try_inplace(&ADD, f32, i32));
    OK(try_inplace(&ADD, f32, u8));
    OK(try_inplace(&ADD, f32, b));
    OK(try_inplace(&ADD, i32, u8));
    assert_status_msg(try_inplace(&ADD, f32, f64), CT_ERR_RUNTIME,
                      "result type oneflow.float64 can't be cast to the desired output type "
                      "oneflow.float32");
    assert_status_msg(try_inplace(&ADD, i32, f32), CT_ERR_RUNTIME,
                      "result type oneflow.float32 can't be cast to the desired output type "
                      "oneflow.int32");
    assert_status_msg(try_inplace(&ADD, i32, i64), CT_ERR_RUNTIME,
                      "result type oneflow.int64 can't be cast to the desired output type "
                      "oneflow.int32");
    assert_status_msg(try_inplace(&ADD, u8, i32), CT_ERR_RUNTIME,
                      "result type oneflow.int32 can't be cast to the desired output type "
                      "oneflow.uint8");
    assert_status_msg(try_inplace(&ADD, b, i32), CT_ERR_RUNTIME,
                      "result type oneflow.int32 can't be cast to the desired output type "
                      "oneflow.bool");
    assert_status_msg(try_inplace(&ADD, b, u8), CT_ERR_RUNTIME,
                      "result type oneflow.uint8 can't be cast to the desired output type "
                      "oneflow.bool");
    /* out= keeps PyTorch's can_cast rule */
    OK(try_out(&ADD, f64, f64, f32));
    OK(ct_set_compat_mode(CT_COMPAT_PYTORCH));
    OK(try_inplace(&ADD, f32, f64));
    OK(try_inplace(&ADD, i32, i64));
    ct_tensor *all[] = {i32, i64, f32, f64, u8, b, zi64, w5};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}

/* ---- devices ---- */

static void test_devices(void **state) {
    (void)state;
    ct_iter it;
    ct_tensor *g0 = empty_on(CT_FLOAT32, SHAPE(3), CUDA0), *g1 = empty_on(CT_FLOAT32, SHAPE(3), CUDA1);
    ct_tensor *c = empty(CT_FLOAT32, SHAPE(3)), *cz = zdim(CT_FLOAT32), *cz2 = zdim(CT_FLOAT64);
    ct_tensor *g0z = empty_on(CT_FLOAT32, NULL, 0, CUDA0);
    ct_tensor *one = wrapped(ct_scalar_int(1));
    /* a 0-dim cpu input joins a cuda tensor, on either side */
    OK(build(&it, &ADD, NULL, false, cz, g0));
    assert_true(ct_device_equal(ct_tensor_device(it.out), CUDA0));
    assert_true(ct_device_equal(it.device, CUDA0));
    ct_iter_release(&it);
    OK(build(&it, &ADD, NULL, false, g1, one));
    assert_true(ct_device_equal(ct_tensor_device(it.out), CUDA1));
    ct_iter_release(&it);
    /* two of them with a cuda output */
    assert_status_msg(build(&it, &ADD, g0, false, cz, cz2), CT_ERR_RUNTIME,
                      "Trying to pass too many CPU scalars to non-CPU kernel!");
    assert_status_msg(build(&it, &ADD, NULL, false, g0, g1), CT_ERR_RUNTIME,
                      "Expected all tensors to be on the same device, but found at least two "
                      "devices, cuda:0 and cuda:1!");
    assert_status_msg(build(&it, &ADD, NULL, false, c, g0), CT_ERR_RUNTIME,
                      "Expected all tensors to be on the same device, but found at least two "
                      "devices, cuda:0 and cpu!");
    /* a 0-dim cuda tensor never moves to the cpu */
    assert_status_msg(build(&it, &ADD, NULL, false, c, g0z), CT_ERR_RUNTIME,
                      "Expected all tensors to be on the same device, but found at least two "
                      "devices, cuda:0 and cpu!");
    /* the output's device counts, and is checked first */
    assert_status_msg(build(&it, &ADD, g0, false, c, c), CT_ERR_RUNTIME,
                      "Expected all tensors to be on the same device, but found at least two "
                      "devices, cuda:0 and cpu!");
    /* a cpu self cannot take a cuda operand */
    assert_status_msg(build(&it, &ADD, c, true, c, g0), CT_ERR_RUNTIME,
                      "Expected all tensors to be on the same device, but found at least two "
                      "devices, cuda:0 and cpu!");
    /* cuda in-place with a cpu scalar */
    OK(build(&it, &ADD, g0, true, g0, cz));
    ct_iter_release(&it);

    /* meta */
    ct_tensor *m = empty_on(CT_FLOAT32, SHAPE(2, 3), META), *mz = empty_on(CT_FLOAT32, NULL, 0, META);
    ct_tensor *c23 = empty(CT_FLOAT32, SHAPE(2, 3));
    assert_status_msg(build(&it, &ADD, NULL, false, m, c23), CT_ERR_RUNTIME,
                      "Expected all tensors to be on the same device, but found at least two "
                      "devices, meta and cpu!");
    assert_status_msg(build(&it, &ADD, NULL, false, c23, mz), CT_ERR_RUNTIME,
                      "Expected all tensors to be on the same device, but found at least two "
                      "devices, meta and cpu!");
    assert_status_msg(build(&it, &ADD, m, false, c23, c23), CT_ERR_RUNTIME,
                      "Expected all tensors to be on the same device, but found at least two "
                      "devices, meta and cpu!");
    OK(build(&it, &ADD, NULL, false, m, cz));
    assert_true(it.is_meta);
    assert_true(ct_tensor_is_meta(it.out));
    assert_sizes(it.out, 2, 3);
    assert_int_equal(ct_iter_run(&it, NULL, NULL, 1), 0);
    ct_iter_release(&it);
    ct_tensor *mcl = NULL;
    OK(ct_tensor_empty(SHAPE(2, 3, 4, 5), CT_FLOAT32, &META, CT_LAYOUT_STRIDED,
                       CT_MEMFMT_CHANNELS_LAST, &mcl));
    OK(build(&it, &ADD, NULL, false, mcl, one));
    assert_strides(it.out, 60, 1, 15, 3);
    ct_iter_release(&it);
    ct_tensor *all[] = {g0, g1, c, cz, cz2, g0z, one, m, mz, c23, mcl};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}

static void test_device_without_kernels(void **state) {
    (void)state;
    /* a backend whose memory host code may not touch */
    ct_backend be;
    OK(ct_backend_host_emulated(CT_DEVICE_XPU, 1, &be));
    be.flags = 0;
    OK(ct_backend_register(&be));
    ct_device x0 = {CT_DEVICE_XPU, 0};
    ct_tensor *x = empty_on(CT_FLOAT32, SHAPE(2), x0);
    ct_iter it;
    assert_status_msg(build(&it, &ADD, NULL, false, x, x), CT_ERR_NOT_IMPLEMENTED,
                      "add: no kernels for device type xpu");
    ct_tensor_release(x);
    OK(ct_backend_unregister(CT_DEVICE_XPU));
}

/* ---- geometry ---- */

static void test_coalescing(void **state) {
    (void)state;
    ct_iter it;
    ct_tensor *a = empty(CT_FLOAT32, SHAPE(2, 3, 4));
    OK(build(&it, &ADD, NULL, false, a, a));
    assert_int_equal(it.ndim, 1);
    assert_int_equal(it.shape[0], 24);
    assert_int_equal(it.strides[0][0], 4);
    assert_int_equal(it.strides[2][0], 4);
    ct_iter_release(&it);
    /* broadcast row: (2, 3, 4) + (4) -> [4, 6] with stride 0 for the row's outer dim */
    ct_tensor *row = empty(CT_FLOAT64, SHAPE(4));
    OK(build(&it, &ADD, NULL, false, a, row));
    assert_int_equal(it.ndim, 2);
    assert_int_equal(it.shape[0], 4);
    assert_int_equal(it.shape[1], 6);
    assert_int_equal(it.strides[0][0], 8); /* float64 output */
    assert_int_equal(it.strides[1][1], 16);
    assert_int_equal(it.strides[2][0], 8);
    assert_int_equal(it.strides[2][1], 0);
    ct_iter_release(&it);
    /* size-1 dims are dropped; a transposed operand gives two dims in the output's order */
    ct_tensor *t = NULL, *u = empty(CT_FLOAT32, SHAPE(4, 1, 3));
    OK(ct_tensor_permute(u, SHAPE(2, 1, 0), &t)); /* (3, 1, 4)@(1, 3, 3) */
    ct_tensor *c = empty(CT_FLOAT32, SHAPE(3, 1, 4));
    OK(build(&it, &ADD, NULL, false, c, t));
    assert_int_equal(it.ndim, 2);
    assert_int_equal(it.shape[0], 4);
    assert_int_equal(it.shape[1], 3);
    assert_int_equal(it.strides[2][0], 12);
    assert_int_equal(it.strides[2][1], 4);
    ct_iter_release(&it);
    ct_tensor *all[] = {a, row, t, u, c};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}

/* ---- running ---- */

static int addf(void *ctx, char *const *data, const int64_t *s, int64_t n) {
    int64_t *count = ctx;
    if (count != NULL)
        __atomic_fetch_add(count, n, __ATOMIC_RELAXED);
    for (int64_t i = 0; i < n; i++)
        *(float *)(data[0] + i * s[0]) =
            *(const float *)(data[1] + i * s[1]) + *(const float *)(data[2] + i * s[2]);
    return 0;
}

/* Element [i...] of a float32 tensor by a flat C-order index of its shape. */
static float elem(const ct_tensor *t, int64_t flat) {
    int64_t off = 0;
    for (int64_t d = ct_tensor_dim(t) - 1; d >= 0; d--) {
        int64_t size = ct_tensor_sizes(t)[d];
        off += (flat % size) * ct_tensor_strides(t)[d];
        flat /= size;
    }
    return ((const float *)ct_tensor_data_ptr(t))[off];
}

/* Run a + b (a and b of the result's shape, e.g. views) and compare every element. */
static void check_run(const ct_tensor *a, const ct_tensor *b, int64_t grain) {
    ct_iter it;
    OK(build(&it, &ADD, NULL, false, a, b));
    int64_t count = 0;
    assert_int_equal(ct_iter_run(&it, addf, &count, grain), 0);
    assert_int_equal(count, it.numel);
    ct_tensor *ea = NULL, *eb = NULL;
    OK(ct_tensor_expand(a, ct_tensor_sizes(it.out), ct_tensor_dim(it.out), &ea));
    OK(ct_tensor_expand(b, ct_tensor_sizes(it.out), ct_tensor_dim(it.out), &eb));
    for (int64_t i = 0; i < it.numel; i++)
        if (elem(it.out, i) != elem(ea, i) + elem(eb, i))
            fail_msg("element %lld: %g != %g + %g", (long long)i, (double)elem(it.out, i),
                     (double)elem(ea, i), (double)elem(eb, i));
    ct_tensor_release(ea);
    ct_tensor_release(eb);
    ct_iter_release(&it);
}

static void test_run_values(void **state) {
    (void)state;
    ct_tensor *a = iota(SHAPE(3, 20, 9, 10)), *cl = NULL, *t = NULL, *row = iota(SHAPE(10));
    OK(ct_tensor_contiguous(a, CT_MEMFMT_CHANNELS_LAST, &cl));
    OK(ct_tensor_transpose(a, 1, 3, &t));
    ct_tensor *tc = NULL;
    OK(ct_tensor_contiguous(t, CT_MEMFMT_CONTIGUOUS, &tc));
    ct_tensor *z = iota(NULL, 0), *sl = NULL;
    OK(ct_tensor_slice(a, 2, 1, 9, 3, &sl));
    ct_tensor *slc = NULL;
    OK(ct_tensor_contiguous(sl, CT_MEMFMT_CONTIGUOUS, &slc));
    for (int threads = 1; threads <= 2; threads++) {
        OK(ct_set_num_threads(threads));
        int64_t grains[] = {1, 7, 32768};
        for (int g = 0; g < 3; g++) {
            check_run(a, a, grains[g]);
            check_run(a, cl, grains[g]);  /* rows of a, tiles of cl */
            check_run(cl, a, grains[g]);
            check_run(t, tc, grains[g]);  /* a transposed pair */
            check_run(tc, t, grains[g]);
            check_run(a, row, grains[g]); /* broadcast */
            check_run(row, z, grains[g]);
            check_run(z, z, grains[g]);
            check_run(sl, slc, grains[g]); /* gaps */
        }
    }
    ct_tensor *all[] = {a, cl, t, tc, row, z, sl, slc};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}

/* out = b, element by element, for any element size (ctx: the size). */
static int copy_b(void *ctx, char *const *data, const int64_t *s, int64_t n) {
    size_t isz = *(const size_t *)ctx;
    for (int64_t i = 0; i < n; i++)
        memcpy(data[0] + i * s[0], data[2] + i * s[2], isz);
    return 0;
}

/* Byte offset of flat C-order element i of t. */
static int64_t byte_off(const ct_tensor *t, int64_t flat) {
    int64_t off = 0;
    for (int64_t d = ct_tensor_dim(t) - 1; d >= 0; d--) {
        int64_t size = ct_tensor_sizes(t)[d];
        off += (flat % size) * ct_tensor_strides(t)[d];
        flat /= size;
    }
    return off * (int64_t)ct_tensor_element_size(t);
}

/* The tiled path gathers permuted inputs of every element size. */
static void test_run_gather(void **state) {
    (void)state;
    static const ct_dtype dts[] = {CT_UINT8, CT_INT16, CT_FLOAT32, CT_FLOAT64, CT_COMPLEX128};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        ct_dtype dt = dts[i];
        ct_tensor *x = iota(SHAPE(2, 70, 9, 31)), *a = NULL, *b = NULL, *bt = NULL;
        OK(ct_tensor_to_dtype(x, dt, &a));
        OK(ct_tensor_to(a, CT_DTYPE_UNDEFINED, NULL, true, CT_MEMFMT_CHANNELS_LAST, &b));
        OK(ct_tensor_transpose(a, 1, 3, &bt)); /* a plain permutation too */
        ct_tensor *bts = NULL;
        OK(ct_tensor_contiguous(bt, CT_MEMFMT_CONTIGUOUS, &bts));
        size_t isz = ct_dtype_itemsize(dt);
        for (int threads = 1; threads <= 2; threads++) {
            OK(ct_set_num_threads(threads));
            const ct_tensor *pairs[2][2] = {{a, b}, {bts, bt}};
            for (int p = 0; p < 2; p++) {
                ct_iter it;
                OK(build(&it, &ADD, NULL, false, pairs[p][0], pairs[p][1]));
                assert_int_equal(ct_iter_run(&it, copy_b, &isz, 100), 0);
                const char *po = ct_tensor_data_ptr(it.out), *pb = ct_tensor_data_ptr(pairs[p][1]);
                for (int64_t e = 0; e < it.numel; e++)
                    if (memcmp(po + byte_off(it.out, e), pb + byte_off(pairs[p][1], e), isz) != 0)
                        fail_msg("%s: element %lld differs", ct_dtype_name(dt), (long long)e);
                ct_iter_release(&it);
            }
        }
        OK(ct_set_num_threads(1));
        ct_tensor *all[] = {x, a, b, bt, bts};
        for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
            ct_tensor_release(all[k]);
    }
}

static int fail_at_big(void *ctx, char *const *data, const int64_t *s, int64_t n) {
    (void)data;
    (void)s;
    int64_t *count = ctx;
    int64_t before = __atomic_fetch_add(count, n, __ATOMIC_RELAXED);
    return before + n > 1000 ? 7 : 0;
}

static void test_run_stops(void **state) {
    (void)state;
    ct_tensor *a = iota(SHAPE(64, 64)), *cl = NULL, *b = iota(SHAPE(1, 64, 8, 8));
    OK(ct_tensor_contiguous(b, CT_MEMFMT_CHANNELS_LAST, &cl));
    ct_tensor *t = NULL;
    OK(ct_tensor_t(a, &t));
    for (int threads = 1; threads <= 2; threads++) {
        OK(ct_set_num_threads(threads));
        ct_iter it;
        OK(build(&it, &ADD, NULL, false, a, t));
        int64_t count = 0;
        assert_int_equal(ct_iter_run(&it, fail_at_big, &count, 16), 7);
        assert_true(count < it.numel);
        ct_iter_release(&it);
        OK(build(&it, &ADD, NULL, false, b, cl));
        count = 0;
        assert_int_equal(ct_iter_run(&it, fail_at_big, &count, 16), 7);
        ct_iter_release(&it);
    }
    OK(ct_set_num_threads(1));
    ct_tensor_release(a);
    ct_tensor_release(t);
    ct_tensor_release(b);
    ct_tensor_release(cl);
}

/* ---- allocation failures ---- */

static ct_tensor *fa, *fb, *fout;

static ct_status build_new(ct_tensor **out) {
    ct_iter it;
    ct_status st = build(&it, &ADD, NULL, false, fa, fb);
    if (st == CT_OK)
        *out = ct_iter_take_output(&it);
    return st;
}

static ct_status build_resize(ct_tensor **out) {
    ct_iter it;
    ct_tensor *o = NULL;
    ct_status st = ct_tensor_empty(SHAPE(1), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED,
                                   CT_MEMFMT_CONTIGUOUS, &o);
    if (st != CT_OK)
        return st;
    st = build(&it, &ADD, o, false, fa, fb);
    if (st != CT_OK) {
        /* untouched on failure */
        assert_int_equal(ct_tensor_dim(o), 1);
        assert_int_equal(ct_tensor_numel(o), 1);
        ct_tensor_release(o);
        return st;
    }
    ct_iter_release(&it);
    *out = o;
    return CT_OK;
}

static void test_fault_injection(void **state) {
    (void)state;
    fa = iota(SHAPE(3, 1, 5));
    fb = iota(SHAPE(4, 1));
    fout = NULL;
    ct_allocator prev = ct_get_allocator();
    ct_allocator fail = {NULL, fa_alloc, fa_free};
    OK(ct_set_allocator(&fail));
    assert_true(fault_loop("build new", build_new) > 0);
    assert_true(fault_loop("build resize", build_resize) > 0);
    OK(ct_set_allocator(&prev));
    ct_tensor_release(fa);
    ct_tensor_release(fb);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broadcast_shapes),
        cmocka_unit_test(test_strides_table),
        cmocka_unit_test(test_strides_zero_sizes),
        cmocka_unit_test(test_strides_converted_inputs),
        cmocka_unit_test(test_strides_size1_dims),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_inplace_shape),
        cmocka_unit_test(test_out_resize),
        cmocka_unit_test(test_resize_impl),
        cmocka_unit_test(test_common_dtype),
        cmocka_unit_test(test_output_cast),
        cmocka_unit_test(test_oneflow_mode),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_device_without_kernels),
        cmocka_unit_test(test_coalescing),
        cmocka_unit_test(test_run_values),
        cmocka_unit_test(test_run_gather),
        cmocka_unit_test(test_run_stops),
        cmocka_unit_test(test_fault_injection),
    };
    return cmocka_run_group_tests(tests, emulated_cuda_setup, emulated_cuda_teardown);
}
