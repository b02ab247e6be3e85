/* Copies and casts: copy_ between every pair of dtypes over contiguous, permuted, sliced,
 * expanded, broadcast, gapped, empty and 0-dim geometries, checked element by element
 * against ct_convert on the gathered source element; copies between cpu, meta and an
 * accelerator (host-emulated "npu", two devices); overlap rules; clone/to/contiguous;
 * large copies (the threaded and tiled paths). */
#include <math.h>

#include "tensor_test_util.h"

static const ct_device NPU0 = {CT_DEVICE_PRIVATEUSEONE, 0};
static const ct_device NPU1 = {CT_DEVICE_PRIVATEUSEONE, 1};

static int setup(void **state) {
    (void)state;
    if (ct_privateuse1_set_name("npu") != CT_OK)
        return -1;
    return ct_backend_register_host_emulated(CT_DEVICE_PRIVATEUSEONE, 2) == CT_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    if (ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE) != CT_OK) {
        fprintf(stderr, "%s\n", ct_last_error()); /* npu memory still live: a leak */
        return -1;
    }
    return 0;
}

/* ---- sources with interesting values ---- */

static const double values[] = {0.0,   1.0,  -1.0,  2.5,  -3.75,     100.0,    -128.0,    255.0,
                                65504, 1e10, -1e-3, 0.1,  NAN,       INFINITY, -INFINITY, -0.0,
                                3e38,  7.0,  1.5,   -6.0, 12345.678, 0.75,     300.0,     -300.0,
                                2e-8,  4.0,  -2.0,  1e5,  0.5,       3.0,      6.0,       70000.0};
#define NVALUES (sizeof values / sizeof values[0])
#define BASE 48

/* A 1-D cpu tensor of BASE elements of `dt` holding converted `values`. */
static ct_tensor *source(ct_dtype dt) {
    ct_tensor *t = NULL;
    OK(ct_tensor_empty(SHAPE(BASE), dt, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    unsigned char *p = ct_tensor_data_ptr(t);
    size_t isz = ct_dtype_itemsize(dt);
    for (int i = 0; i < BASE; i++) {
        if (dt == CT_FLOAT4_E2M1FN_X2) {
            p[i] = (unsigned char)(i * 37 + 11);
        } else if (ct_dtype_is_complex(dt)) {
            ct_complex128 c = {values[i % NVALUES], values[(i * 7 + 3) % NVALUES]};
            OK(ct_convert(dt, p + i * isz, CT_COMPLEX128, &c, 1));
        } else {
            OK(ct_convert(dt, p + i * isz, CT_FLOAT64, &values[i % NVALUES], 1));
        }
    }
    return t;
}

typedef struct geometry {
    const char *name;
    int64_t n, sizes[4];
    int64_t sn, ssizes[4], sstrides[4], soffset; /* the source view of the base */
    int64_t dstrides[4];                         /* the destination's strides */
} geometry;

static const geometry geometries[] = {
    {"contiguous", 2, {2, 3}, 2, {2, 3}, {3, 1}, 0, {3, 1}},
    {"permuted", 3, {4, 2, 3}, 3, {4, 2, 3}, {1, 12, 4}, 0, {6, 3, 1}},
    {"sliced into transposed", 2, {3, 4}, 2, {3, 4}, {8, 2}, 1, {1, 3}},
    {"expanded", 2, {4, 3}, 2, {4, 3}, {0, 1}, 5, {3, 1}},
    {"broadcast from 1-D", 2, {2, 3}, 1, {3}, {2}, 3, {3, 1}},
    {"into gaps", 2, {2, 3}, 2, {2, 3}, {3, 1}, 2, {8, 2}},
    {"channels-last", 4, {2, 3, 2, 2}, 4, {2, 3, 2, 2}, {12, 4, 2, 1}, 0, {12, 1, 6, 3}},
    {"empty", 2, {0, 3}, 2, {0, 3}, {3, 1}, 0, {3, 1}},
    {"0-dim", 0, {0}, 0, {0}, {0}, 7, {0}},
    {"0-dim broadcast", 2, {2, 2}, 0, {0}, {0}, 9, {2, 1}},
};

/* Check dst against ct_convert of each gathered source element; gaps stay zero. */
static void verify(const ct_tensor *dst, const ct_tensor *base, const geometry *g, ct_dtype dt,
                   ct_dtype st, const unsigned char *dbytes, size_t dcap) {
    size_t dsz = ct_dtype_itemsize(dt), ssz = ct_dtype_itemsize(st);
    const unsigned char *sp = ct_tensor_data_ptr(base);
    int64_t numel = 1;
    for (int64_t i = 0; i < g->n; i++)
        numel *= g->sizes[i];
    bool covered[1024] = {false};
    int64_t idx[4] = {0, 0, 0, 0};
    for (int64_t e = 0; e < numel; e++) {
        int64_t so = g->soffset, dof = 0;
        for (int64_t i = 0; i < g->n; i++) {
            int64_t si = i - (g->n - g->sn);
            if (si >= 0 && g->ssizes[si] > 1)
                so += idx[i] * g->sstrides[si];
            dof += idx[i] * g->dstrides[i];
        }
        unsigned char want[16];
        OK(ct_convert(dt, want, st, sp + so * (int64_t)ssz, 1));
        if (memcmp(dbytes + dof * (int64_t)dsz, want, dsz) != 0)
            fail_msg("%s: %s -> %s: element %lld differs", g->name, ct_dtype_name(st),
                     ct_dtype_name(dt), (long long)e);
        for (size_t b = 0; b < dsz; b++)
            covered[dof * (int64_t)dsz + (int64_t)b] = true;
        for (int64_t i = g->n - 1; i >= 0; i--) {
            if (++idx[i] < g->sizes[i])
                break;
            idx[i] = 0;
        }
    }
    for (size_t b = 0; b < dcap; b++)
        if (!covered[b] && dbytes[b] != 0)
            fail_msg("%s: %s -> %s: a gap byte was written", g->name, ct_dtype_name(st),
                     ct_dtype_name(dt));
    (void)dst;
}

/* Run one geometry for one pair with the destination on `where` (src on cpu or on npu). */
static void run_pair(ct_dtype dt, ct_dtype st, const geometry *g, const ct_device *dst_dev,
                     bool src_on_npu) {
    ct_tensor *base = source(st), *src = NULL, *dst = NULL, *sbase = NULL;
    if (src_on_npu) {
        OK(ct_tensor_to_device(base, NPU1, &sbase));
        OK(ct_tensor_as_strided(sbase, g->ssizes, g->sstrides, g->sn, &g->soffset, &src));
    } else {
        OK(ct_tensor_as_strided(base, g->ssizes, g->sstrides, g->sn, &g->soffset, &src));
    }
    OK(ct_tensor_empty_strided(g->sizes, g->dstrides, g->n, dt, dst_dev, CT_LAYOUT_STRIDED, &dst));
    /* zero the whole storage, gaps included, so that stray writes show */
    ct_storage *ds = ct_tensor_storage(dst);
    static const unsigned char zero = 0;
    if (ct_storage_nbytes(ds) > 0)
        OK(ct_device_fill(ct_storage_device(ds), ct_storage_data(ds), ct_storage_nbytes(ds), &zero,
                          1));
    ct_status st_ = ct_tensor_copy_(dst, src);
    if ((dt == CT_FLOAT4_E2M1FN_X2) != (st == CT_FLOAT4_E2M1FN_X2)) {
        assert_int_equal(st_, CT_ERR_NOT_IMPLEMENTED);
        assert_string_equal(ct_last_error(), "\"copy_\" not implemented for 'Float4_e2m1fn_x2'");
    } else {
        if (st_ != CT_OK)
            fail_msg("%s: %s -> %s: %s", g->name, ct_dtype_name(st), ct_dtype_name(dt),
                     ct_last_error());
        /* the destination's storage bytes, wherever it lives */
        unsigned char bytes[1024] = {0};
        size_t cap = ct_storage_nbytes(ct_tensor_storage(dst));
        assert_true(cap <= sizeof bytes);
        if (cap > 0)
            OK(ct_device_copy(CPU, bytes, ct_tensor_device(dst),
                              ct_storage_data(ct_tensor_storage(dst)), cap));
        verify(dst, base, g, dt, st, bytes, cap);
    }
    ct_tensor_release(dst);
    ct_tensor_release(src);
    ct_tensor_release(sbase);
    ct_tensor_release(base);
}

static void test_all_pairs_cpu(void **state) {
    (void)state;
    for (size_t k = 0; k < sizeof geometries / sizeof geometries[0]; k++)
        for (int d = 0; d < CT_NUM_DTYPES; d++)
            for (int s = 0; s < CT_NUM_DTYPES; s++)
                run_pair((ct_dtype)d, (ct_dtype)s, &geometries[k], &CPU, false);
}

static void test_all_pairs_devices(void **state) {
    (void)state;
    /* cpu -> npu, npu -> cpu and npu -> npu (another device), each geometry */
    for (size_t k = 0; k < sizeof geometries / sizeof geometries[0]; k++) {
        for (int d = 0; d < CT_NUM_DTYPES; d++) {
            for (int s = 0; s < CT_NUM_DTYPES; s += 3) {
                run_pair((ct_dtype)d, (ct_dtype)s, &geometries[k], &NPU0, false);
                run_pair((ct_dtype)d, (ct_dtype)s, &geometries[k], &CPU, true);
                run_pair((ct_dtype)d, (ct_dtype)s, &geometries[k], &NPU0, true);
            }
            /* same dtype: the one-block path */
            run_pair((ct_dtype)d, (ct_dtype)d, &geometries[k], &NPU0, true);
            run_pair((ct_dtype)d, (ct_dtype)d, &geometries[k], &CPU, true);
            run_pair((ct_dtype)d, (ct_dtype)d, &geometries[k], &NPU1, false);
        }
    }
}

/* ---- meta, broadcasting errors, overlap ---- */

static void test_meta_and_shapes(void **state) {
    (void)state;
    ct_tensor *m = NULL, *c = iota(SHAPE(2, 3)), *r = NULL;
    OK(ct_tensor_empty(SHAPE(2, 3), CT_FLOAT64, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &m));
    OK(ct_tensor_copy_(m, c)); /* into meta: nothing to do */
    assert_status_msg(ct_tensor_copy_(c, m), CT_ERR_NOT_IMPLEMENTED,
                      "Cannot copy out of meta tensor; no data!");
    assert_status_msg(ct_tensor_to_device(m, CPU, &r), CT_ERR_NOT_IMPLEMENTED,
                      "Cannot copy out of meta tensor; no data!");
    assert_null(r);
    OK(ct_tensor_to_device(c, META, &r));
    assert_true(ct_tensor_is_meta(r));
    assert_strides(r, 3, 1);
    ct_tensor_release(r);
    OK(ct_tensor_clone(m, CT_MEMFMT_PRESERVE, &r));
    assert_true(ct_tensor_is_meta(r));
    ct_tensor_release(r);
    ct_tensor *m3 = NULL;
    OK(ct_tensor_empty(SHAPE(3), CT_FLOAT64, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &m3));
    assert_status_msg(ct_tensor_copy_(m3, c), CT_ERR_RUNTIME,
                      "output with shape [3] doesn't match the broadcast shape [2, 3]");
    ct_tensor_release(m3);
    ct_tensor_release(m);

    ct_tensor *a = NULL, *b = NULL;
    OK(ct_tensor_zeros(SHAPE(2), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &a));
    assert_status_msg(ct_tensor_copy_(c, a), CT_ERR_RUNTIME,
                      "The size of tensor a (3) must match the size of tensor b (2) at "
                      "non-singleton dimension 1");
    ct_tensor_release(a);
    OK(ct_tensor_zeros(SHAPE(3), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &a));
    assert_status_msg(ct_tensor_copy_(a, c), CT_ERR_RUNTIME,
                      "output with shape [3] doesn't match the broadcast shape [2, 3]");
    OK(ct_tensor_copy_(c, a)); /* (3,) broadcasts into (2, 3) */
    ct_tensor_release(a);
    OK(ct_tensor_zeros(SHAPE(1), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &a));
    OK(ct_tensor_zeros(SHAPE(0), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, &b));
    assert_status_msg(ct_tensor_copy_(a, b), CT_ERR_RUNTIME,
                      "output with shape [1] doesn't match the broadcast shape [0]");
    ct_tensor_release(a);
    ct_tensor_release(b);
    assert_int_equal(ct_tensor_copy_(NULL, c), CT_ERR_MISUSE);
    assert_int_equal(ct_tensor_copy_(c, NULL), CT_ERR_MISUSE);
    OK(ct_tensor_copy_(c, c));
    ct_tensor_release(c);
}

static void test_overlap(void **state) {
    (void)state;
    ct_tensor *x = iota(SHAPE(10)), *d = NULL, *s = NULL;
    /* internal overlap of the written-to tensor */
    OK(ct_tensor_as_strided(x, ARR(3), ARR(0), 1, NULL, &d));
    OK(ct_tensor_slice(x, 0, 0, 3, 1, &s));
    assert_status_msg(ct_tensor_copy_(d, s), CT_ERR_RUNTIME,
                      "unsupported operation: more than one element of the written-to tensor "
                      "refers to a single memory location. Please clone() the tensor before "
                      "performing the operation.");
    OK(ct_tensor_fill_(d, ct_scalar_int(3))); /* fill is idempotent: allowed */
    ct_tensor_release(d);
    ct_tensor_release(s);
    /* partial overlap of dense tensors */
    OK(ct_tensor_slice(x, 0, 1, CT_SLICE_END, 1, &d));
    OK(ct_tensor_slice(x, 0, 0, 9, 1, &s));
    assert_status_msg(ct_tensor_copy_(d, s), CT_ERR_RUNTIME,
                      "unsupported operation: some elements of the input tensor and the written-to "
                      "tensor refer to a single memory location. Please clone() the tensor before "
                      "performing the operation.");
    ct_tensor_release(d);
    ct_tensor_release(s);
    ct_tensor *m = iota(SHAPE(3, 3)), *mt = NULL, *al = NULL;
    OK(ct_tensor_t(m, &mt));
    assert_int_equal(ct_tensor_copy_(m, mt), CT_ERR_RUNTIME); /* x.copy_(x.t()) */
    OK(ct_tensor_alias(m, &al));
    OK(ct_tensor_copy_(al, m)); /* full overlap: fine */
    assert_true(at_f32(m, ARR(2, 1)) == 7.0f);
    ct_tensor_release(al);
    ct_tensor_release(mt);
    ct_tensor_release(m);
    /* overlaps PyTorch calls "too hard" are allowed; the source is read first */
    ct_tensor_release(x);
    x = iota(SHAPE(10));
    OK(ct_tensor_as_strided(x, ARR(3), ARR(2), 1, ARR(2), &d)); /* elements 2, 4, 6 */
    OK(ct_tensor_as_strided(x, ARR(3), ARR(2), 1, ARR(0), &s)); /* elements 0, 2, 4 */
    OK(ct_tensor_copy_(d, s));
    const float want[10] = {0, 1, 0, 3, 2, 5, 4, 7, 8, 9};
    assert_memory_equal(ct_tensor_data_ptr(x), want, sizeof want);
    ct_tensor_release(d);
    ct_tensor_release(s);
    ct_tensor_release(x);
    /* two storages wrapping the same memory are caught too */
    float mem[4] = {1, 2, 3, 4};
    ct_storage *s1 = NULL, *s2 = NULL;
    ct_tensor *t1 = NULL, *t2 = NULL;
    OK(ct_storage_wrap(CPU, mem, sizeof mem, NULL, NULL, &s1));
    OK(ct_storage_wrap(CPU, mem, sizeof mem, NULL, NULL, &s2));
    OK(ct_tensor_from_storage(s1, ARR(2), ARR(2), 1, 1, CT_FLOAT32, &t1)); /* 1, 3 */
    OK(ct_tensor_from_storage(s2, ARR(2), ARR(2), 1, 0, CT_FLOAT32, &t2)); /* 0, 2 */
    OK(ct_tensor_copy_(t1, t2));
    const float want2[4] = {1, 1, 3, 3};
    assert_memory_equal(mem, want2, sizeof want2);
    ct_tensor_release(t1);
    ct_tensor_release(t2);
    ct_storage_release(s1);
    ct_storage_release(s2);
}

/* ---- devices ---- */

static void test_devices(void **state) {
    (void)state;
    ct_tensor *x = iota(SHAPE(3, 4)), *a = NULL, *b = NULL, *c = NULL, *t = NULL;
    OK(ct_tensor_to_device(x, NPU1, &a));
    assert_int_equal(ct_tensor_get_device(a), 1);
    OK(ct_tensor_to(a, CT_FLOAT64, &NPU0, false, CT_MEMFMT_PRESERVE, &b));
    assert_int_equal(ct_tensor_get_device(b), 0);
    OK(ct_tensor_t(b, &t));
    OK(ct_tensor_to(t, CT_INT16, &CPU, false, CT_MEMFMT_PRESERVE, &c));
    assert_strides(c, 1, 4); /* a transposed dense tensor keeps its strides */
    const int16_t *p = ct_tensor_data_ptr(c);
    for (int i = 0; i < 12; i++)
        assert_int_equal(p[i], i);
    ct_tensor_release(c);
    OK(ct_tensor_contiguous(t, CT_MEMFMT_CONTIGUOUS, &c)); /* stays on npu:0 */
    assert_int_equal(ct_tensor_get_device(c), 0);
    assert_strides(c, 3, 1);
    ct_tensor *h = NULL;
    OK(ct_tensor_to_device(c, CPU, &h));
    assert_true(((double *)ct_tensor_data_ptr(h))[1] == 4.0);
    ct_tensor_release(h);
    ct_tensor_release(c);
    /* item() reads through the device */
    OK(ct_tensor_select(t, 0, 3, &c));
    OK(ct_tensor_select(c, 0, 2, &h));
    assert_true(item_f64(h) == 11.0);
    ct_tensor_release(h);
    ct_tensor_release(c);
    /* into a gapped tensor on the device: the gaps survive */
    OK(ct_tensor_full(SHAPE(3, 8), ct_scalar_float(-1), CT_FLOAT32, &NPU1, CT_LAYOUT_STRIDED, &c));
    OK(ct_tensor_slice(c, 1, 0, CT_SLICE_END, 2, &h)); /* (3, 4) with stride 2 */
    OK(ct_tensor_copy_(h, x));
    ct_tensor_release(h);
    OK(ct_tensor_to_device(c, CPU, &h));
    const float *q = ct_tensor_data_ptr(h);
    for (int i = 0; i < 24; i++)
        assert_true(q[i] == (i % 2 ? -1.0f : (float)(i / 8 * 4 + i % 8 / 2)));
    ct_tensor_release(h);
    ct_tensor_release(c);
    ct_tensor_release(t);
    ct_tensor_release(b);
    ct_tensor_release(a);
    ct_tensor_release(x);
}

/* ---- big copies: threads and tiles ---- */

static void test_large(void **state) {
    (void)state;
    const int64_t n = 1536;
    ct_tensor *x = iota(SHAPE(n, n)), *t = NULL, *c = NULL;
    OK(ct_tensor_t(x, &t));
    OK(ct_tensor_contiguous(t, CT_MEMFMT_CONTIGUOUS, &c)); /* a tiled transpose */
    const float *p = ct_tensor_data_ptr(c);
    for (int64_t i = 0; i < n; i += 7)
        for (int64_t j = 0; j < n; j += 5)
            if (p[i * n + j] != (float)(j * n + i))
                fail_msg("transpose [%lld, %lld]", (long long)i, (long long)j);
    ct_tensor_release(c);
    OK(ct_tensor_to(t, CT_BFLOAT16, NULL, false, CT_MEMFMT_CONTIGUOUS, &c)); /* tiled with a cast */
    const uint16_t *b = ct_tensor_data_ptr(c);
    for (int64_t i = 0; i < n; i += 11)
        for (int64_t j = 0; j < n; j += 13) {
            float v = (float)(j * n + i);
            assert_int_equal(b[i * n + j], ct_float_to_bfloat16(v));
        }
    ct_tensor_release(c);
    OK(ct_tensor_to_dtype(x, CT_INT32, &c)); /* threaded contiguous cast */
    const int32_t *r = ct_tensor_data_ptr(c);
    for (int64_t i = 0; i < n * n; i += 977)
        assert_int_equal(r[i], (int32_t)i);
    ct_tensor *f = NULL;
    OK(ct_tensor_to_dtype(c, CT_FLOAT32, &f));
    assert_memory_equal(ct_tensor_data_ptr(f), ct_tensor_data_ptr(x), 4096);
    assert_true(((float *)ct_tensor_data_ptr(f))[n * n - 1] == (float)(n * n - 1));
    ct_tensor_release(f);
    ct_tensor_release(c);
    /* a 4-D permutation (NCHW -> NHWC data) */
    ct_tensor *y = iota(SHAPE(8, 64, 32, 32)), *cl = NULL;
    OK(ct_tensor_contiguous(y, CT_MEMFMT_CHANNELS_LAST, &cl));
    assert_strides(cl, 65536, 1, 2048, 64);
    const float *z = ct_tensor_data_ptr(cl);
    for (int64_t k = 0; k < 8 * 64 * 32 * 32; k += 4099) {
        int64_t nn = k / 65536, hh = k / 2048 % 32, ww = k / 64 % 32, cc = k % 64;
        assert_true(z[k] == (float)(((nn * 64 + cc) * 32 + hh) * 32 + ww));
    }
    ct_tensor_release(cl);
    ct_tensor_release(y);
    ct_tensor_release(t);
    ct_tensor_release(x);
}

/* A large int32 -> float32 copy_ takes the fused streaming loop (loops_impl.h): every element
 * as the scalar conversion (values that round included), with both pointers off the vector
 * alignment and a ragged end. */
static void test_large_stream_i32(void **state) {
    (void)state;
    const int64_t n = ((int64_t)1 << 21) + 13; /* 8 MB of float32: a streamed row */
    ct_tensor *src = NULL, *dst = NULL, *sv = NULL, *dv = NULL;
    OK(ct_tensor_empty(SHAPE(n + 3), CT_INT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &src));
    OK(ct_tensor_empty(SHAPE(n + 1), CT_FLOAT32, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &dst));
    int32_t *s = ct_tensor_data_ptr(src);
    for (int64_t i = 0; i < n + 3; i++)
        s[i] = (int32_t)((uint32_t)i * 2654435761u);
    OK(ct_tensor_narrow(src, 0, 3, n, &sv));
    OK(ct_tensor_narrow(dst, 0, 1, n, &dv));
    OK(ct_tensor_copy_(dv, sv));
    const float *d = ct_tensor_data_ptr(dst);
    for (int64_t i = 0; i < n; i++)
        if (d[i + 1] != (float)s[i + 3])
            fail_msg("element %lld", (long long)i);
    ct_tensor_release(dv);
    ct_tensor_release(sv);
    ct_tensor_release(dst);
    ct_tensor_release(src);
}

/* Tiled transposes with ragged edges, every element size, with and without a cast. */
static void test_tiles(void **state) {
    (void)state;
    const int64_t shapes[][3] = {{37, 53, 1}, {64, 9, 1}, {9, 64, 1}, {100, 100, 1}, {3, 45, 70}};
    const ct_dtype dts[][2] = {{CT_FLOAT32, CT_FLOAT32}, {CT_INT32, CT_INT32},
                               {CT_FLOAT64, CT_FLOAT64}, {CT_INT16, CT_INT16},
                               {CT_UINT8, CT_UINT8},     {CT_COMPLEX128, CT_COMPLEX128},
                               {CT_FLOAT16, CT_FLOAT32}, {CT_FLOAT64, CT_INT32}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
            const int64_t *sh = shapes[k];
            ct_tensor *x = iota(sh, 3), *src = NULL, *p = NULL, *c = NULL;
            OK(ct_tensor_to_dtype(x, dts[d][1], &src));
            OK(ct_tensor_permute(src, SHAPE(2, 1, 0), &p));
            /* (to(contiguous_format) would return p itself when the dtypes agree: PyTorch's
             * to() only compares with suggest_memory_format()) */
            OK(ct_tensor_empty(ct_tensor_sizes(p), 3, dts[d][0], &CPU, CT_LAYOUT_STRIDED,
                               CT_MEMFMT_CONTIGUOUS, &c));
            OK(ct_tensor_copy_(c, p));
            /* check through float64 */
            ct_tensor *f = NULL;
            OK(ct_tensor_to_dtype(c, CT_FLOAT64, &f));
            const double *v = ct_tensor_data_ptr(f);
            for (int64_t i = 0; i < sh[2]; i++)
                for (int64_t j = 0; j < sh[1]; j++)
                    for (int64_t l = 0; l < sh[0]; l++) {
                        double want = (double)((l * sh[1] + j) * sh[2] + i);
                        unsigned char a[16], b[16];
                        OK(ct_convert(dts[d][1], a, CT_FLOAT64, &want, 1));
                        OK(ct_convert(dts[d][0], b, dts[d][1], a, 1));
                        OK(ct_convert(CT_FLOAT64, &want, dts[d][0], b, 1));
                        if (v[(i * sh[1] + j) * sh[0] + l] != want)
                            fail_msg("%s -> %s %lldx%lldx%lld at [%lld, %lld, %lld]",
                                     ct_dtype_name(dts[d][1]), ct_dtype_name(dts[d][0]),
                                     (long long)sh[0], (long long)sh[1], (long long)sh[2],
                                     (long long)i, (long long)j, (long long)l);
                    }
            ct_tensor_release(f);
            ct_tensor_release(c);
            ct_tensor_release(p);
            ct_tensor_release(src);
            ct_tensor_release(x);
        }
    }
}

/* ---- clone / to edge cases ---- */

static void test_clone_to(void **state) {
    (void)state;
    ct_tensor *x = iota(SHAPE(2, 3)), *e = NULL, *r = NULL;
    OK(ct_tensor_expand(x, SHAPE(4, 2, 3), &e));
    OK(ct_tensor_clone(e, CT_MEMFMT_PRESERVE, &r)); /* expanded: dense, same order */
    assert_strides(r, 6, 3, 1);
    assert_true(at_f32(r, ARR(3, 1, 2)) == 5.0f);
    ct_tensor_release(r);
    OK(ct_tensor_to(e, CT_COMPLEX64, NULL, false, CT_MEMFMT_PRESERVE, &r));
    assert_int_equal(ct_tensor_dtype(r), CT_COMPLEX64);
    ct_tensor_release(r);
    ct_tensor_release(e);
    ct_tensor *s = NULL;
    OK(ct_tensor_scalar_tensor(ct_scalar_complex(2.5, 1), CT_DTYPE_UNDEFINED, &CPU, &s));
    OK(ct_tensor_to_dtype(s, CT_BOOL, &r));
    assert_true(item_f64(r) == 1);
    ct_tensor_release(r);
    OK(ct_tensor_to_dtype(s, CT_INT32, &r)); /* complex -> real: the real part */
    assert_true(item_f64(r) == 2);
    ct_tensor_release(r);
    OK(ct_tensor_copy_(x, s)); /* a 0-dim source broadcasts */
    assert_true(at_f32(x, ARR(1, 2)) == 2.5f);
    ct_tensor_release(s);
    assert_int_equal(ct_tensor_to(x, (ct_dtype)50, NULL, false, CT_MEMFMT_PRESERVE, &r),
                     CT_ERR_MISUSE);
    assert_int_equal(ct_tensor_to(x, CT_DTYPE_UNDEFINED, NULL, false, (ct_memory_format)9, &r),
                     CT_ERR_MISUSE);
    assert_int_equal(ct_tensor_clone(NULL, CT_MEMFMT_PRESERVE, &r), CT_ERR_MISUSE);
    ct_tensor *f4 = NULL;
    OK(ct_tensor_ones(SHAPE(2, 3), CT_FLOAT4_E2M1FN_X2, &CPU, CT_LAYOUT_STRIDED, &f4));
    assert_status_msg(ct_tensor_to_dtype(f4, CT_FLOAT32, &r), CT_ERR_NOT_IMPLEMENTED,
                      "\"copy_\" not implemented for 'Float4_e2m1fn_x2'");
    OK(ct_tensor_to_device(f4, NPU0, &r)); /* bytes move fine */
    ct_tensor_release(r);
    ct_tensor_release(f4);
    ct_tensor_release(x);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_pairs_cpu),   cmocka_unit_test(test_all_pairs_devices),
        cmocka_unit_test(test_meta_and_shapes), cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_devices),         cmocka_unit_test(test_large),
        cmocka_unit_test(test_large_stream_i32),
        cmocka_unit_test(test_tiles),           cmocka_unit_test(test_clone_to),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
