/* DLPack export and import (include/ctensor/dlpack.h).
 *
 * Imports use a fake producer whose deleter only counts, so every test can say exactly how
 * often the deleter ran: never while a ctensor tensor still refers to the data, exactly once
 * afterwards, and exactly once on every failure (the import functions own what they are
 * given). An allocator that fails the Nth allocation drives export and import through
 * every allocation failure; it also counts live blocks, so leaks fail the test (and the
 * sanitizer build checks the rest). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>

#include "tensor_test_util.h"

#include "ctensor/dlpack.h"
#include "tensor/tensor_impl.h"

static const ct_device NPU = {CT_DEVICE_PRIVATEUSEONE, 0};

#include "fault_alloc.h"

static ct_tensor *anchor; /* keeps the emulated backend's bookkeeping allocated */

static int setup(void **state) {
    (void)state;
    ct_allocator a = {NULL, fa_alloc, fa_free};
    if (ct_set_allocator(&a) != CT_OK ||
        ct_backend_register_host_emulated(CT_DEVICE_PRIVATEUSEONE, 1) != CT_OK)
        return -1;
    return ct_tensor_zeros(SHAPE(1), CT_FLOAT32, &NPU, CT_LAYOUT_STRIDED, &anchor) == CT_OK ? 0
                                                                                            : -1;
}

static int teardown(void **state) {
    (void)state;
    ct_tensor_release(anchor);
    ct_status st = ct_backend_unregister(CT_DEVICE_PRIVATEUSEONE);
    bool clean = live_allocs == 0;
    if (!clean)
        fprintf(stderr, "%ld allocations leaked\n", live_allocs);
    ct_set_allocator(NULL);
    return st == CT_OK && clean ? 0 : -1;
}

/* ---- a fake producer ---- */

typedef struct producer {
    ct_dl_managed_tensor plain;
    ct_dl_managed_tensor_versioned versioned;
    int64_t shape[CT_MAX_DIMS + 2], strides[CT_MAX_DIMS + 2];
    int deletes;        /* deleter calls */
    void *deleted_with; /* the `self` the deleter saw last */
} producer;

static _Alignas(64) unsigned char pool[4096];

static void producer_delete(ct_dl_managed_tensor *self) {
    producer *p = self->manager_ctx;
    p->deletes++;
    p->deleted_with = self;
}

static void producer_delete_versioned(ct_dl_managed_tensor_versioned *self) {
    producer *p = self->manager_ctx;
    p->deletes++;
    p->deleted_with = self;
}

/* A float32 cpu tensor 2 x 3 (contiguous) over `pool`, in both managed forms. */
static void producer_init(producer *p) {
    memset(p, 0, sizeof *p);
    for (int i = 0; i < 6; i++)
        ((float *)(void *)pool)[i] = (float)i;
    p->shape[0] = 2;
    p->shape[1] = 3;
    p->strides[0] = 3;
    p->strides[1] = 1;
    ct_dl_tensor dl = {0};
    dl.data = pool;
    dl.device.device_type = CT_DL_CPU;
    dl.device.device_id = 0;
    dl.ndim = 2;
    dl.dtype.code = CT_DL_FLOAT;
    dl.dtype.bits = 32;
    dl.dtype.lanes = 1;
    dl.shape = p->shape;
    dl.strides = p->strides;
    dl.byte_offset = 0;
    p->plain.dl_tensor = dl;
    p->plain.manager_ctx = p;
    p->plain.deleter = producer_delete;
    p->versioned.version.major = 1;
    p->versioned.version.minor = 1;
    p->versioned.manager_ctx = p;
    p->versioned.deleter = producer_delete_versioned;
    p->versioned.flags = 0;
    p->versioned.dl_tensor = dl;
}

/* ---- dtypes ---- */

static void test_dtype_codes(void **state) {
    (void)state;
    static const struct {
        ct_dtype dt;
        int code, bits, lanes;
    } want[] = {
        {CT_BOOL, CT_DL_BOOL, 8, 1},
        {CT_UINT8, CT_DL_UINT, 8, 1},
        {CT_INT8, CT_DL_INT, 8, 1},
        {CT_UINT16, CT_DL_UINT, 16, 1},
        {CT_INT16, CT_DL_INT, 16, 1},
        {CT_UINT32, CT_DL_UINT, 32, 1},
        {CT_INT32, CT_DL_INT, 32, 1},
        {CT_UINT64, CT_DL_UINT, 64, 1},
        {CT_INT64, CT_DL_INT, 64, 1},
        {CT_FLOAT16, CT_DL_FLOAT, 16, 1},
        {CT_BFLOAT16, CT_DL_BFLOAT, 16, 1},
        {CT_FLOAT32, CT_DL_FLOAT, 32, 1},
        {CT_FLOAT64, CT_DL_FLOAT, 64, 1},
        {CT_COMPLEX32, CT_DL_COMPLEX, 32, 1},
        {CT_COMPLEX64, CT_DL_COMPLEX, 64, 1},
        {CT_COMPLEX128, CT_DL_COMPLEX, 128, 1},
        {CT_FLOAT8_E4M3FN, CT_DL_FLOAT8_E4M3FN, 8, 1},
        {CT_FLOAT8_E5M2, CT_DL_FLOAT8_E5M2, 8, 1},
        {CT_FLOAT8_E4M3FNUZ, CT_DL_FLOAT8_E4M3FNUZ, 8, 1},
        {CT_FLOAT8_E5M2FNUZ, CT_DL_FLOAT8_E5M2FNUZ, 8, 1},
        {CT_FLOAT8_E8M0FNU, CT_DL_FLOAT8_E8M0FNU, 8, 1},
        {CT_FLOAT4_E2M1FN_X2, CT_DL_FLOAT4_E2M1FN, 4, 2},
    };
    assert_int_equal(sizeof want / sizeof want[0], CT_NUM_DTYPES);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ct_dl_data_type t;
        OK(ct_dtype_to_dlpack(want[i].dt, &t));
        assert_int_equal(t.code, want[i].code);
        assert_int_equal(t.bits, want[i].bits);
        assert_int_equal(t.lanes, want[i].lanes);
        ct_dtype back;
        OK(ct_dtype_from_dlpack(t, &back));
        assert_int_equal(back, want[i].dt);
    }
    ct_dl_data_type t;
    assert_int_equal(ct_dtype_to_dlpack(CT_DTYPE_UNDEFINED, &t), CT_ERR_MISUSE);
    assert_int_equal(ct_dtype_to_dlpack(CT_FLOAT32, NULL), CT_ERR_MISUSE);
}

static void test_dtype_from_dlpack_errors(void **state) {
    (void)state;
    ct_dtype d;
    assert_status_msg(ct_dtype_from_dlpack((ct_dl_data_type){CT_DL_OPAQUE_HANDLE, 64, 1}, &d),
                      CT_ERR_TYPE, "Unsupported DLPack dtype code 3 (opaque_handle) with 64 bits");
    assert_int_equal(d, CT_DTYPE_UNDEFINED);
    assert_status_msg(ct_dtype_from_dlpack((ct_dl_data_type){CT_DL_FLOAT8_E3M4, 8, 1}, &d),
                      CT_ERR_TYPE, "Unsupported DLPack dtype code 7 (float8_e3m4) with 8 bits");
    assert_status_msg(ct_dtype_from_dlpack((ct_dl_data_type){200, 8, 1}, &d), CT_ERR_TYPE,
                      "Unsupported DLPack dtype code 200 (unknown) with 8 bits");
    assert_status_msg(ct_dtype_from_dlpack((ct_dl_data_type){CT_DL_FLOAT, 8, 1}, &d), CT_ERR_TYPE,
                      "Unsupported DLPack dtype: code 2 (float) with 8 bits");
    assert_status_msg(ct_dtype_from_dlpack((ct_dl_data_type){CT_DL_BOOL, 1, 1}, &d), CT_ERR_TYPE,
                      "Unsupported DLPack dtype: code 6 (bool) with 1 bits");
    assert_status_msg(ct_dtype_from_dlpack((ct_dl_data_type){CT_DL_FLOAT, 32, 4}, &d), CT_ERR_TYPE,
                      "Unsupported DLPack dtype: float32 with lanes 4 (only lanes 1 is supported)");
    assert_status_msg(ct_dtype_from_dlpack((ct_dl_data_type){CT_DL_FLOAT, 32, 0}, &d), CT_ERR_TYPE,
                      "Unsupported DLPack dtype: float32 with lanes 0 (only lanes 1 is supported)");
    assert_status_msg(
        ct_dtype_from_dlpack((ct_dl_data_type){CT_DL_FLOAT4_E2M1FN, 4, 1}, &d), CT_ERR_TYPE,
        "Unsupported DLPack dtype: float4_e2m1fn with lanes 1; ctensor imports float4 only as "
        "PyTorch's float4_e2m1fn_x2 (bits 4, lanes 2: one byte, two values)");
    assert_int_equal(ct_dtype_from_dlpack((ct_dl_data_type){CT_DL_FLOAT, 32, 1}, NULL),
                     CT_ERR_MISUSE);
}

/* ---- export ---- */

/* A cpu tensor of `dt` with distinct bytes: byte i is i * 7 + 1. */
static ct_tensor *patterned(ct_dtype dt, const int64_t *sizes, int64_t ndim) {
    ct_tensor *t = NULL;
    OK(ct_tensor_empty(sizes, ndim, dt, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t));
    unsigned char *p = ct_tensor_data_ptr(t);
    for (int64_t i = 0; i < ct_tensor_nbytes(t); i++)
        p[i] = (unsigned char)(i * 7 + 1);
    return t;
}

static void check_exported(const ct_dl_tensor *dl, const ct_tensor *t) {
    assert_ptr_equal(dl->data, ct_tensor_data_ptr(t));
    assert_int_equal(dl->byte_offset, 0);
    assert_int_equal(dl->device.device_type, CT_DL_CPU);
    assert_int_equal(dl->device.device_id, 0);
    assert_int_equal(dl->ndim, ct_tensor_dim(t));
    ct_dl_data_type want;
    OK(ct_dtype_to_dlpack(ct_tensor_dtype(t), &want));
    assert_memory_equal(&dl->dtype, &want, sizeof want);
    assert_non_null(dl->shape);
    assert_non_null(dl->strides);
    assert_i64s(dl->shape, dl->ndim, ct_tensor_sizes(t), ct_tensor_dim(t));
    assert_i64s(dl->strides, dl->ndim, ct_tensor_strides(t), ct_tensor_dim(t));
}

/* Export every dtype in both forms, import it back, compare. */
static void test_round_trip_every_dtype(void **state) {
    (void)state;
    long before = live_allocs;
    for (int d = 0; d < CT_NUM_DTYPES; d++) {
        for (int versioned = 0; versioned < 2; versioned++) {
            ct_tensor *t = patterned((ct_dtype)d, SHAPE(2, 3));
            ct_tensor *back = NULL;
            if (versioned) {
                ct_dl_managed_tensor_versioned *m = NULL;
                OK(ct_tensor_to_dlpack_versioned(t, 0, &m));
                assert_int_equal(m->version.major, 1);
                assert_int_equal(m->version.minor, 1);
                assert_int_equal(m->flags, 0);
                check_exported(&m->dl_tensor, t);
                /* the export holds an alias: t's storage, not t itself */
                assert_int_equal(ct_tensor_refcount(t), 1);
                assert_int_equal(ct_storage_refcount(ct_tensor_storage(t)), 2);
                uint64_t flags = 99;
                OK(ct_tensor_from_dlpack_versioned(m, 0, &flags, &back));
                assert_int_equal(flags, 0);
            } else {
                ct_dl_managed_tensor *m = NULL;
                OK(ct_tensor_to_dlpack(t, &m));
                check_exported(&m->dl_tensor, t);
                /* the export holds an alias: t's storage, not t itself */
                assert_int_equal(ct_tensor_refcount(t), 1);
                assert_int_equal(ct_storage_refcount(ct_tensor_storage(t)), 2);
                OK(ct_tensor_from_dlpack(m, &back));
            }
            assert_int_equal(ct_tensor_dtype(back), d);
            assert_ptr_equal(ct_tensor_data_ptr(back), ct_tensor_data_ptr(t));
            assert_sizes(back, 2, 3);
            assert_strides(back, 3, 1);
            assert_true(ct_storage_is_external(ct_tensor_storage(back)));
            assert_int_equal(ct_storage_nbytes(ct_tensor_storage(back)), ct_tensor_nbytes(t));
            /* the import holds the export, which holds t's memory */
            ct_tensor_release(t);
            assert_int_equal(((unsigned char *)ct_tensor_data_ptr(back))[5], 5 * 7 + 1);
            ct_tensor_release(back);
        }
    }
    assert_int_equal(live_allocs, before);
}

static void test_export_strided_views(void **state) {
    (void)state;
    ct_tensor *base = iota(SHAPE(4, 6)), *v = NULL, *tt = NULL, *w = NULL;
    OK(ct_tensor_slice(base, 1, 1, CT_SLICE_END, 2, &v)); /* [4, 3] strides [6, 2] offset 1 */
    OK(ct_tensor_t(v, &tt));                              /* [3, 4] strides [2, 6] */
    ct_dl_managed_tensor *m = NULL;
    OK(ct_tensor_to_dlpack(tt, &m));
    check_exported(&m->dl_tensor, tt);
    assert_ptr_equal(m->dl_tensor.data, (float *)ct_tensor_data_ptr(base) + 1);
    assert_int_equal(m->dl_tensor.strides[0], 2);
    assert_int_equal(m->dl_tensor.strides[1], 6);
    OK(ct_tensor_from_dlpack(m, &w));
    assert_strides(w, 2, 6);
    assert_sizes(w, 3, 4);
    assert_float_equal(at_f32(w, ARR(2, 3)), 3 * 6 + 1 + 2 * 2, 0);
    /* writes through the import are visible in the original and the reverse */
    ((float *)ct_tensor_data_ptr(w))[0] = -1.0f;
    assert_float_equal(at_f32(base, ARR(0, 1)), -1.0f, 0);
    ((float *)ct_tensor_data_ptr(base))[3] = -7.0f;
    assert_float_equal(at_f32(w, ARR(1, 0)), -7.0f, 0);
    ct_tensor_release(base);
    ct_tensor_release(v);
    ct_tensor_release(tt);
    assert_float_equal(at_f32(w, ARR(1, 0)), -7.0f, 0);
    ct_tensor_release(w);
}

static void test_export_zero_size_and_zero_dim(void **state) {
    (void)state;
    ct_tensor *e = NULL, *s = NULL, *back = NULL;
    OK(ct_tensor_empty(SHAPE(3, 0, 2), CT_INT16, &CPU, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &e));
    ct_dl_managed_tensor_versioned *m = NULL;
    OK(ct_tensor_to_dlpack_versioned(e, 0, &m));
    assert_int_equal(m->dl_tensor.ndim, 3);
    assert_int_equal(m->dl_tensor.shape[1], 0);
    OK(ct_tensor_from_dlpack_versioned(m, 0, NULL, &back));
    assert_sizes(back, 3, 0, 2);
    assert_int_equal(ct_tensor_numel(back), 0);
    ct_tensor_release(back);
    ct_tensor_release(e);

    OK(ct_tensor_scalar_tensor(ct_scalar_float(2.5), CT_FLOAT64, &CPU, &s));
    ct_dl_managed_tensor *p = NULL;
    OK(ct_tensor_to_dlpack(s, &p));
    assert_int_equal(p->dl_tensor.ndim, 0);
    assert_non_null(p->dl_tensor.shape);
    assert_non_null(p->dl_tensor.strides);
    assert_ptr_equal(p->dl_tensor.data, ct_tensor_data_ptr(s));
    OK(ct_tensor_from_dlpack(p, &back));
    assert_int_equal(ct_tensor_dim(back), 0);
    assert_float_equal(item_f64(back), 2.5, 0);
    ct_tensor_release(s);
    ct_tensor_release(back);
}

static void test_export_versioned_flags(void **state) {
    (void)state;
    ct_tensor *t = iota(SHAPE(2)), *back = NULL;
    ct_dl_managed_tensor_versioned *m = NULL;
    OK(ct_tensor_to_dlpack_versioned(t, CT_DLPACK_FLAG_READ_ONLY | CT_DLPACK_FLAG_IS_COPIED, &m));
    assert_int_equal(m->flags, CT_DLPACK_FLAG_READ_ONLY | CT_DLPACK_FLAG_IS_COPIED);
    uint64_t flags = 0;
    OK(ct_tensor_from_dlpack_versioned(m, 0, &flags, &back));
    assert_int_equal(flags, CT_DLPACK_FLAG_READ_ONLY | CT_DLPACK_FLAG_IS_COPIED);
    ct_tensor_release(back);

    assert_status_msg(ct_tensor_to_dlpack_versioned(t, CT_DLPACK_FLAG_IS_SUBBYTE_TYPE_PADDED, &m),
                      CT_ERR_VALUE,
                      "ct_tensor_to_dlpack_versioned: unsupported flags 0x4 (only READ_ONLY and "
                      "IS_COPIED may be set)");
    assert_null(m);
    assert_int_equal(ct_tensor_refcount(t), 1);
    ct_tensor_release(t);
}

static void test_export_refusals(void **state) {
    (void)state;
    ct_tensor *meta = NULL;
    OK(ct_tensor_empty(SHAPE(2), CT_FLOAT32, &META, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS,
                       &meta));
    ct_dl_managed_tensor *m = (ct_dl_managed_tensor *)&m;
    assert_status_msg(ct_tensor_to_dlpack(meta, &m), CT_ERR_RUNTIME, "Cannot pack tensors on meta");
    assert_null(m);
    ct_dl_managed_tensor_versioned *v = NULL;
    assert_status_msg(ct_tensor_to_dlpack_versioned(meta, 0, &v), CT_ERR_RUNTIME,
                      "Cannot pack tensors on meta");
    ct_dl_device dev;
    assert_status_msg(ct_tensor_dlpack_device(meta, &dev), CT_ERR_RUNTIME,
                      "Cannot pack tensors on meta");
    assert_int_equal(ct_tensor_refcount(meta), 1);
    ct_tensor_release(meta);

    ct_tensor *sparse = NULL;
    OK(ct_tensor_impl_new_nonstrided(CT_LAYOUT_SPARSE_COO, CT_FLOAT32, CPU, SHAPE(2, 2), NULL, NULL,
                                     &sparse));
    assert_status_msg(ct_tensor_to_dlpack(sparse, &m), CT_ERR_RUNTIME,
                      "Can't export tensors with layout other than torch.strided");
    assert_int_equal(ct_tensor_refcount(sparse), 1);
    ct_tensor_release(sparse);

    assert_int_equal(ct_tensor_to_dlpack(NULL, &m), CT_ERR_MISUSE);
    ct_tensor *t = iota(SHAPE(1));
    assert_int_equal(ct_tensor_to_dlpack(t, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_tensor_to_dlpack_versioned(t, 0, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_tensor_dlpack_device(t, NULL), CT_ERR_MISUSE);
    assert_int_equal(ct_tensor_dlpack_device(NULL, &dev), CT_ERR_MISUSE);
    OK(ct_tensor_dlpack_device(t, &dev));
    assert_int_equal(dev.device_type, CT_DL_CPU);
    assert_int_equal(dev.device_id, 0);
    ct_tensor_release(t);
}

/* An accelerator (the emulated privateuseone backend) travels as kDLExtDev. */
static void test_accelerator_round_trip(void **state) {
    (void)state;
    ct_tensor *t = NULL, *back = NULL;
    OK(ct_tensor_ones(SHAPE(1), CT_FLOAT32, &NPU, CT_LAYOUT_STRIDED, &t));
    ct_dl_device dev;
    OK(ct_tensor_dlpack_device(t, &dev));
    assert_int_equal(dev.device_type, CT_DL_EXT_DEV);
    assert_int_equal(dev.device_id, 0);
    ct_dl_managed_tensor *m = NULL;
    OK(ct_tensor_to_dlpack(t, &m));
    assert_int_equal(m->dl_tensor.device.device_type, CT_DL_EXT_DEV);
    OK(ct_tensor_from_dlpack(m, &back));
    assert_true(ct_device_equal(ct_tensor_device(back), NPU));
    assert_ptr_equal(ct_tensor_data_ptr(back), ct_tensor_data_ptr(t));
    assert_float_equal(item_f64(back), 1.0, 0);
    ct_tensor_release(t);
    ct_tensor_release(back);
}

/* Every accelerator with a DLPack type travels both ways (emulated backends). */
static void test_every_accelerator_mapping(void **state) {
    (void)state;
    static const struct {
        ct_device_type ct;
        int32_t dl;
    } map[] = {
        {CT_DEVICE_CUDA, CT_DL_CUDA},     {CT_DEVICE_HIP, CT_DL_ROCM},
        {CT_DEVICE_OPENCL, CT_DL_OPENCL}, {CT_DEVICE_VULKAN, CT_DL_VULKAN},
        {CT_DEVICE_MPS, CT_DL_METAL},     {CT_DEVICE_XPU, CT_DL_ONEAPI},
        {CT_DEVICE_MAIA, CT_DL_MAIA},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        OK(ct_backend_register_host_emulated(map[i].ct, 2));
        ct_device dev = {map[i].ct, 1};
        ct_tensor *t = NULL, *back = NULL;
        OK(ct_tensor_zeros(SHAPE(2), CT_INT32, &dev, CT_LAYOUT_STRIDED, &t));
        ct_dl_managed_tensor_versioned *m = NULL;
        OK(ct_tensor_to_dlpack_versioned(t, 0, &m));
        assert_int_equal(m->dl_tensor.device.device_type, map[i].dl);
        assert_int_equal(m->dl_tensor.device.device_id, 1);
        OK(ct_tensor_from_dlpack_versioned(m, 0, NULL, &back));
        assert_true(ct_device_equal(ct_tensor_device(back), dev));
        ct_tensor_release(t);
        ct_tensor_release(back);
        OK(ct_backend_unregister(map[i].ct));
    }
    /* a device type DLPack has no number for */
    OK(ct_backend_register_host_emulated(CT_DEVICE_VE, 1));
    ct_device ve = {CT_DEVICE_VE, 0};
    ct_tensor *t = NULL;
    OK(ct_tensor_zeros(SHAPE(2), CT_INT32, &ve, CT_LAYOUT_STRIDED, &t));
    ct_dl_managed_tensor *m = NULL;
    assert_status_msg(ct_tensor_to_dlpack(t, &m), CT_ERR_RUNTIME, "Cannot pack tensors on ve:0");
    assert_null(m);
    ct_tensor_release(t);
    OK(ct_backend_unregister(CT_DEVICE_VE));
}

/* DLPack device types without a ctensor device are refused by name. */
static void test_import_unsupported_device_types(void **state) {
    (void)state;
    static const struct {
        int32_t type;
        const char *name;
    } bad[] = {{CT_DL_VPI, "kDLVPI"},
               {CT_DL_WEBGPU, "kDLWebGPU"},
               {CT_DL_HEXAGON, "kDLHexagon"},
               {CT_DL_TRN, "kDLTrn"},
               {5, "unknown"},
               {0, "unknown"},
               {INT32_MAX, "unknown"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        producer p;
        producer_init(&p);
        p.plain.dl_tensor.device.device_type = bad[i].type;
        ct_tensor *t = NULL;
        char msg[128];
        snprintf(msg, sizeof msg, "Unsupported DLPack device_type %" PRId32 " (%s)", bad[i].type,
                 bad[i].name);
        assert_status_msg(ct_tensor_from_dlpack(&p.plain, &t), CT_ERR_VALUE, msg);
        assert_int_equal(p.deletes, 1);
    }
    /* accelerators without a backend name their device */
    static const struct {
        int32_t type;
        const char *name;
    } absent[] = {{CT_DL_CUDA, "cuda"},     {CT_DL_ROCM, "hip"},  {CT_DL_OPENCL, "opencl"},
                  {CT_DL_VULKAN, "vulkan"}, {CT_DL_METAL, "mps"}, {CT_DL_ONEAPI, "xpu"},
                  {CT_DL_MAIA, "maia"}};
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        producer p;
        producer_init(&p);
        p.plain.dl_tensor.device.device_type = absent[i].type;
        p.plain.dl_tensor.device.device_id = 3;
        ct_tensor *t = NULL;
        char msg[160];
        snprintf(msg, sizeof msg,
                 "Cannot import a DLPack tensor on %s:3: ctensor has 0 %s device(s) (register "
                 "a backend)",
                 absent[i].name, absent[i].name);
        assert_status_msg(ct_tensor_from_dlpack(&p.plain, &t), CT_ERR_VALUE, msg);
        assert_int_equal(p.deletes, 1);
    }
}

/* ---- import ---- */

static void test_import_keeps_producer_alive(void **state) {
    (void)state;
    producer p;
    producer_init(&p);
    ct_tensor *t = NULL, *v = NULL;
    OK(ct_tensor_from_dlpack(&p.plain, &t));
    assert_int_equal(p.deletes, 0);
    assert_ptr_equal(ct_tensor_data_ptr(t), pool);
    assert_sizes(t, 2, 3);
    assert_strides(t, 3, 1);
    assert_float_equal(at_f32(t, ARR(1, 2)), 5.0f, 0);
    OK(ct_tensor_select(t, 0, 1, &v)); /* a view shares the wrapped storage */
    ct_tensor_release(t);
    assert_int_equal(p.deletes, 0);
    assert_float_equal(at_f32(v, ARR(0)), 3.0f, 0);
    ct_tensor_release(v);
    assert_int_equal(p.deletes, 1);
    assert_ptr_equal(p.deleted_with, &p.plain);

    producer_init(&p);
    uint64_t flags = 0;
    p.versioned.flags = CT_DLPACK_FLAG_IS_COPIED;
    p.versioned.version.minor = 7; /* a later minor version is fine */
    OK(ct_tensor_from_dlpack_versioned(&p.versioned, 0, &flags, &t));
    assert_int_equal(flags, CT_DLPACK_FLAG_IS_COPIED);
    assert_int_equal(p.deletes, 0);
    ct_tensor_release(t);
    assert_int_equal(p.deletes, 1);
    assert_ptr_equal(p.deleted_with, &p.versioned);
}

static void test_import_geometry(void **state) {
    (void)state;
    producer p;
    ct_tensor *t = NULL;

    /* NULL strides: compact row-major */
    producer_init(&p);
    p.plain.dl_tensor.strides = NULL;
    OK(ct_tensor_from_dlpack(&p.plain, &t));
    assert_strides(t, 3, 1);
    assert_true(ct_tensor_is_contiguous(t, CT_MEMFMT_CONTIGUOUS));
    ct_tensor_release(t);
    assert_int_equal(p.deletes, 1);

    /* column-major strides */
    producer_init(&p);
    p.strides[0] = 1;
    p.strides[1] = 2;
    OK(ct_tensor_from_dlpack(&p.plain, &t));
    assert_strides(t, 1, 2);
    assert_float_equal(at_f32(t, ARR(1, 2)), 5.0f, 0);
    assert_int_equal(ct_storage_nbytes(ct_tensor_storage(t)), 24);
    ct_tensor_release(t);

    /* byte_offset: element [0, 0] is data + byte_offset */
    producer_init(&p);
    p.plain.dl_tensor.byte_offset = 8;
    p.shape[0] = 1;
    OK(ct_tensor_from_dlpack(&p.plain, &t));
    assert_ptr_equal(ct_tensor_data_ptr(t), pool + 8);
    assert_float_equal(at_f32(t, ARR(0, 0)), 2.0f, 0);
    ct_tensor_release(t);

    /* broadcast (stride 0) */
    producer_init(&p);
    p.strides[0] = 0;
    OK(ct_tensor_from_dlpack(&p.plain, &t));
    assert_strides(t, 0, 1);
    assert_float_equal(at_f32(t, ARR(1, 1)), 1.0f, 0);
    ct_tensor_release(t);

    /* negative strides in size-1 dims and in empty tensors are harmless: replaced */
    producer_init(&p);
    p.shape[0] = 1;
    p.strides[0] = -5;
    OK(ct_tensor_from_dlpack(&p.plain, &t));
    assert_strides(t, 3, 1);
    ct_tensor_release(t);
    producer_init(&p);
    p.shape[1] = 0;
    p.strides[0] = -1;
    p.strides[1] = -1;
    OK(ct_tensor_from_dlpack(&p.plain, &t));
    assert_sizes(t, 2, 0);
    assert_int_equal(ct_tensor_numel(t), 0);
    ct_tensor_release(t);

    /* empty with a NULL data pointer (DLPack's recommendation for size 0) */
    producer_init(&p);
    p.shape[0] = 0;
    p.plain.dl_tensor.data = NULL;
    OK(ct_tensor_from_dlpack(&p.plain, &t));
    assert_null(ct_tensor_data_ptr(t));
    ct_tensor_release(t);

    /* 0-dim with NULL shape and strides */
    producer_init(&p);
    p.plain.dl_tensor.ndim = 0;
    p.plain.dl_tensor.shape = NULL;
    p.plain.dl_tensor.strides = NULL;
    OK(ct_tensor_from_dlpack(&p.plain, &t));
    assert_int_equal(ct_tensor_dim(t), 0);
    assert_float_equal(item_f64(t), 0.0, 0);
    ct_tensor_release(t);

    /* 64 dims, the most ctensor has */
    producer_init(&p);
    p.plain.dl_tensor.ndim = CT_MAX_DIMS;
    for (int i = 0; i < CT_MAX_DIMS; i++) {
        p.shape[i] = i < 2 ? 2 : 1;
        p.strides[i] = i == 0 ? 2 : 1;
    }
    OK(ct_tensor_from_dlpack(&p.plain, &t));
    assert_int_equal(ct_tensor_dim(t), CT_MAX_DIMS);
    assert_int_equal(ct_tensor_numel(t), 4);
    ct_tensor_release(t);

    /* host-accessible device types become cpu */
    const int32_t host_types[] = {CT_DL_CUDA_HOST, CT_DL_ROCM_HOST, CT_DL_CUDA_MANAGED};
    for (size_t i = 0; i < 3; i++) {
        producer_init(&p);
        p.plain.dl_tensor.device.device_type = host_types[i];
        OK(ct_tensor_from_dlpack(&p.plain, &t));
        assert_true(ct_device_equal(ct_tensor_device(t), CPU));
        ct_tensor_release(t);
    }

    /* unaligned element types are fine at byte granularity */
    producer_init(&p);
    p.plain.dl_tensor.dtype = (ct_dl_data_type){CT_DL_UINT, 8, 1};
    p.plain.dl_tensor.byte_offset = 3;
    OK(ct_tensor_from_dlpack(&p.plain, &t));
    assert_ptr_equal(ct_tensor_data_ptr(t), pool + 3);
    ct_tensor_release(t);
    assert_int_equal(p.deletes, 1);
}

/* A malformed or unsupported producer tensor: error, NULL out, deleter exactly once. */
typedef void (*spoil_fn)(producer *p);

static void expect_import_error(spoil_fn spoil, bool versioned, ct_status want, const char *msg) {
    producer p;
    producer_init(&p);
    spoil(&p);
    ct_tensor *t = (ct_tensor *)&p; /* must be overwritten with NULL */
    ct_status st;
    uint64_t flags = 77;
    if (versioned) {
        p.versioned.dl_tensor = p.plain.dl_tensor;
        st = ct_tensor_from_dlpack_versioned(&p.versioned, 0, &flags, &t);
        assert_int_equal(flags, 0);
    } else {
        st = ct_tensor_from_dlpack(&p.plain, &t);
    }
    if (st != want)
        fail_msg("got %s (%s), want %s", ct_status_name(st), ct_last_error(), ct_status_name(want));
    assert_int_equal(ct_last_error_kind(), want);
    assert_string_equal(ct_last_error(), msg);
    assert_null(t);
    assert_int_equal(p.deletes, 1);
    assert_ptr_equal(p.deleted_with, versioned ? (void *)&p.versioned : (void *)&p.plain);
}

static void sp_ndim_negative(producer *p) { p->plain.dl_tensor.ndim = -1; }
static void sp_ndim_large(producer *p) { p->plain.dl_tensor.ndim = CT_MAX_DIMS + 1; }
static void sp_ndim_huge(producer *p) { p->plain.dl_tensor.ndim = INT32_MAX; }
static void sp_shape_null(producer *p) { p->plain.dl_tensor.shape = NULL; }
static void sp_size_negative(producer *p) { p->shape[1] = -3; }
static void sp_dtype(producer *p) { p->plain.dl_tensor.dtype = (ct_dl_data_type){3, 64, 1}; }
static void sp_lanes(producer *p) { p->plain.dl_tensor.dtype.lanes = 2; }
static void sp_device_vpi(producer *p) { p->plain.dl_tensor.device.device_type = CT_DL_VPI; }
static void sp_device_unknown(producer *p) { p->plain.dl_tensor.device.device_type = -4; }
static void sp_device_cuda(producer *p) { p->plain.dl_tensor.device.device_type = CT_DL_CUDA; }
static void sp_device_ext_id(producer *p) {
    p->plain.dl_tensor.device.device_type = CT_DL_EXT_DEV;
    p->plain.dl_tensor.device.device_id = 1;
}
static void sp_device_ext_id_bad(producer *p) {
    p->plain.dl_tensor.device.device_type = CT_DL_EXT_DEV;
    p->plain.dl_tensor.device.device_id = 128;
}
static void sp_data_null(producer *p) { p->plain.dl_tensor.data = NULL; }
static void sp_unaligned(producer *p) { p->plain.dl_tensor.byte_offset = 2; }
static void sp_unaligned_complex(producer *p) {
    p->plain.dl_tensor.dtype = (ct_dl_data_type){CT_DL_COMPLEX, 128, 1};
    p->plain.dl_tensor.byte_offset = 4;
}
static void sp_offset_overflow(producer *p) { p->plain.dl_tensor.byte_offset = UINT64_MAX - 2; }
static void sp_extent_overflow(producer *p) {
    p->shape[0] = INT64_C(1) << 40;
    p->strides[0] = INT64_C(1) << 40;
}
static void sp_extent_address(producer *p) {
    p->shape[0] = INT64_C(1) << 40;
    p->strides[0] = INT64_C(1) << 20;
    p->plain.dl_tensor.byte_offset = UINT64_MAX - ((uint64_t)(uintptr_t)pool) - 100;
    p->plain.dl_tensor.byte_offset &= ~(uint64_t)3;
}
static void sp_numel_overflow(producer *p) {
    p->shape[0] = INT64_C(1) << 40;
    p->shape[1] = INT64_C(1) << 40;
}
static void sp_negative_stride(producer *p) { p->strides[1] = -1; }

static void test_import_malformed(void **state) {
    (void)state;
    for (int v = 0; v < 2; v++) {
        expect_import_error(sp_ndim_negative, v, CT_ERR_VALUE,
                            "DLPack tensor has ndim -1; ctensor supports 0 to 64 dims");
        expect_import_error(sp_ndim_large, v, CT_ERR_VALUE,
                            "DLPack tensor has ndim 65; ctensor supports 0 to 64 dims");
        expect_import_error(sp_ndim_huge, v, CT_ERR_VALUE,
                            "DLPack tensor has ndim 2147483647; ctensor supports 0 to 64 dims");
        expect_import_error(sp_shape_null, v, CT_ERR_VALUE,
                            "DLPack tensor has no shape (shape is NULL with ndim 2)");
        expect_import_error(sp_size_negative, v, CT_ERR_VALUE,
                            "DLPack tensor has a negative size: shape [2, -3]");
        expect_import_error(sp_dtype, v, CT_ERR_TYPE,
                            "Unsupported DLPack dtype code 3 (opaque_handle) with 64 bits");
        expect_import_error(sp_lanes, v, CT_ERR_TYPE,
                            "Unsupported DLPack dtype: float32 with lanes 2 (only lanes 1 is "
                            "supported)");
        expect_import_error(sp_device_vpi, v, CT_ERR_VALUE,
                            "Unsupported DLPack device_type 9 (kDLVPI)");
        expect_import_error(sp_device_unknown, v, CT_ERR_VALUE,
                            "Unsupported DLPack device_type -4 (unknown)");
        expect_import_error(sp_device_cuda, v, CT_ERR_VALUE,
                            "Cannot import a DLPack tensor on cuda:0: ctensor has 0 cuda "
                            "device(s) (register a backend)");
        expect_import_error(sp_device_ext_id, v, CT_ERR_VALUE,
                            "Cannot import a DLPack tensor on privateuseone:1: ctensor has 1 "
                            "privateuseone device(s) (register a backend)");
        expect_import_error(sp_device_ext_id_bad, v, CT_ERR_VALUE,
                            "Unsupported DLPack device: kDLExtDev with device_id 128 (ctensor "
                            "device indices are 0 to 127)");
        expect_import_error(sp_data_null, v, CT_ERR_VALUE,
                            "DLPack tensor has a NULL data pointer but 6 elements");
        char msg[256];
        snprintf(msg, sizeof msg,
                 "DLPack tensor's data (0x%" PRIxPTR
                 " + byte_offset 2) is not aligned to 4 bytes, as float32 elements need",
                 (uintptr_t)pool);
        expect_import_error(sp_unaligned, v, CT_ERR_VALUE, msg);
        snprintf(msg, sizeof msg,
                 "DLPack tensor's data (0x%" PRIxPTR
                 " + byte_offset 4) is not aligned to 8 bytes, as complex128 elements need",
                 (uintptr_t)pool);
        expect_import_error(sp_unaligned_complex, v, CT_ERR_VALUE, msg);
        snprintf(msg, sizeof msg,
                 "DLPack tensor's data pointer 0x%" PRIxPTR " plus byte_offset %" PRIu64
                 " overflows the address space",
                 (uintptr_t)pool, UINT64_MAX - 2);
        expect_import_error(sp_offset_overflow, v, CT_ERR_OVERFLOW, msg);
        expect_import_error(sp_extent_overflow, v, CT_ERR_OVERFLOW,
                            "Storage size calculation overflowed with sizes=[1099511627776, 3] "
                            "and strides=[1099511627776, 1]");
        expect_import_error(sp_numel_overflow, v, CT_ERR_OVERFLOW,
                            "numel: integer multiplication overflow");
        expect_import_error(sp_negative_stride, v, CT_ERR_VALUE,
                            "DLPack tensor has negative strides [3, -1] (shape [2, 3]); ctensor "
                            "tensors cannot have negative strides: make a copy before exporting");
        /* the address-space check, whose message holds computed numbers */
        producer p;
        producer_init(&p);
        sp_extent_address(&p);
        ct_tensor *t = NULL;
        if (v) {
            p.versioned.dl_tensor = p.plain.dl_tensor;
            assert_int_equal(ct_tensor_from_dlpack_versioned(&p.versioned, 0, NULL, &t),
                             CT_ERR_OVERFLOW);
        } else {
            assert_int_equal(ct_tensor_from_dlpack(&p.plain, &t), CT_ERR_OVERFLOW);
        }
        assert_non_null(strstr(ct_last_error(), "overflows the address space"));
        assert_null(t);
        assert_int_equal(p.deletes, 1);
    }
}

static void test_import_versioned_rules(void **state) {
    (void)state;
    producer p;
    ct_tensor *t = NULL;

    /* another major version: only the deleter is touched (garbage elsewhere is not read) */
    for (uint32_t major = 0; major < 4; major += 2) {
        producer_init(&p);
        p.versioned.version.major = major;
        p.versioned.dl_tensor.ndim = -77;
        p.versioned.dl_tensor.shape = (int64_t *)(uintptr_t)0x10;
        char msg[128];
        snprintf(msg, sizeof msg, "Unsupported DLPack major version %u (ctensor supports 1)",
                 major);
        assert_status_msg(ct_tensor_from_dlpack_versioned(&p.versioned, 0, NULL, &t), CT_ERR_VALUE,
                          msg);
        assert_null(t);
        assert_int_equal(p.deletes, 1);
    }

    /* read-only: shared by default, refused on request */
    producer_init(&p);
    p.versioned.flags = CT_DLPACK_FLAG_READ_ONLY;
    uint64_t flags = 0;
    OK(ct_tensor_from_dlpack_versioned(&p.versioned, CT_DLPACK_IMPORT_DEFAULT, &flags, &t));
    assert_int_equal(flags, CT_DLPACK_FLAG_READ_ONLY);
    ct_tensor_release(t);
    assert_int_equal(p.deletes, 1);
    producer_init(&p);
    p.versioned.flags = CT_DLPACK_FLAG_READ_ONLY;
    assert_status_msg(
        ct_tensor_from_dlpack_versioned(&p.versioned, CT_DLPACK_IMPORT_REFUSE_READ_ONLY, NULL, &t),
        CT_ERR_VALUE, "DLPack tensor is read-only, and read-only tensors were refused");
    assert_int_equal(p.deletes, 1);
    producer_init(&p); /* a writable one passes the option */
    OK(ct_tensor_from_dlpack_versioned(&p.versioned, CT_DLPACK_IMPORT_REFUSE_READ_ONLY, NULL, &t));
    ct_tensor_release(t);
    assert_int_equal(p.deletes, 1);
    producer_init(&p);
    assert_status_msg(ct_tensor_from_dlpack_versioned(&p.versioned, 8, NULL, &t), CT_ERR_MISUSE,
                      "ct_tensor_from_dlpack_versioned: unknown options 0x8");
    assert_int_equal(p.deletes, 1);

    /* float4 pairs: fine packed, refused padded */
    producer_init(&p);
    p.versioned.dl_tensor.dtype = (ct_dl_data_type){CT_DL_FLOAT4_E2M1FN, 4, 2};
    OK(ct_tensor_from_dlpack_versioned(&p.versioned, 0, NULL, &t));
    assert_int_equal(ct_tensor_dtype(t), CT_FLOAT4_E2M1FN_X2);
    assert_sizes(t, 2, 3);
    ct_tensor_release(t);
    producer_init(&p);
    p.versioned.dl_tensor.dtype = (ct_dl_data_type){CT_DL_FLOAT4_E2M1FN, 4, 2};
    p.versioned.flags = CT_DLPACK_FLAG_IS_SUBBYTE_TYPE_PADDED;
    assert_status_msg(ct_tensor_from_dlpack_versioned(&p.versioned, 0, NULL, &t), CT_ERR_TYPE,
                      "Unsupported DLPack dtype: padded float4_e2m1fn (flag "
                      "IS_SUBBYTE_TYPE_PADDED); ctensor needs two values per byte");
    assert_int_equal(p.deletes, 1);
    /* the padded flag means nothing for whole-byte types */
    producer_init(&p);
    p.versioned.flags = CT_DLPACK_FLAG_IS_SUBBYTE_TYPE_PADDED | ((uint64_t)1 << 40);
    OK(ct_tensor_from_dlpack_versioned(&p.versioned, 0, NULL, &t));
    ct_tensor_release(t);
    assert_int_equal(p.deletes, 1);
}

static void test_import_misuse(void **state) {
    (void)state;
    ct_tensor *t = (ct_tensor *)&t;
    assert_status_msg(ct_tensor_from_dlpack(NULL, &t), CT_ERR_MISUSE,
                      "ct_tensor_from_dlpack: managed tensor is NULL");
    assert_null(t);
    assert_status_msg(ct_tensor_from_dlpack_versioned(NULL, 0, NULL, &t), CT_ERR_MISUSE,
                      "ct_tensor_from_dlpack_versioned: managed tensor is NULL");
    /* a NULL out still consumes the managed tensor */
    producer p;
    producer_init(&p);
    assert_status_msg(ct_tensor_from_dlpack(&p.plain, NULL), CT_ERR_MISUSE,
                      "ct_tensor_from_dlpack: out is NULL");
    assert_int_equal(p.deletes, 1);
    producer_init(&p);
    assert_status_msg(ct_tensor_from_dlpack_versioned(&p.versioned, 0, NULL, NULL), CT_ERR_MISUSE,
                      "ct_tensor_from_dlpack_versioned: out is NULL");
    assert_int_equal(p.deletes, 1);
    /* a NULL deleter is allowed ("no way to provide a reasonable destructor") */
    producer_init(&p);
    p.plain.deleter = NULL;
    OK(ct_tensor_from_dlpack(&p.plain, &t));
    ct_tensor_release(t);
    producer_init(&p);
    p.plain.deleter = NULL;
    p.plain.dl_tensor.ndim = -1;
    assert_int_equal(ct_tensor_from_dlpack(&p.plain, &t), CT_ERR_VALUE);
    assert_int_equal(p.deletes, 0);
}

/* ctensor consuming its own export, exported again: every layer lets go exactly once. */
static void test_nested_ownership(void **state) {
    (void)state;
    long before = live_allocs;
    ct_tensor *t = iota(SHAPE(5)), *a = NULL, *b = NULL;
    ct_dl_managed_tensor *m1 = NULL;
    ct_dl_managed_tensor_versioned *m2 = NULL;
    OK(ct_tensor_to_dlpack(t, &m1));
    OK(ct_tensor_from_dlpack(m1, &a));
    OK(ct_tensor_to_dlpack_versioned(a, 0, &m2));
    ct_tensor_release(a);
    ct_tensor_release(t);
    OK(ct_tensor_from_dlpack_versioned(m2, 0, NULL, &b));
    assert_float_equal(at_f32(b, ARR(4)), 4.0f, 0);
    ct_tensor_release(b);
    assert_int_equal(live_allocs, before);
}

/* ---- allocation failures ---- */

static void test_export_alloc_failures(void **state) {
    (void)state;
    ct_tensor *t = iota(SHAPE(2, 3, 4, 5, 6, 7, 8)); /* 7 dims */
    for (int versioned = 0; versioned < 2; versioned++) {
        for (long n = 1;; n++) {
            long before = live_allocs;
            calls = 0;
            fail_at = n;
            void *m = NULL;
            ct_status st =
                versioned
                    ? ct_tensor_to_dlpack_versioned(t, 0, (ct_dl_managed_tensor_versioned **)&m)
                    : ct_tensor_to_dlpack(t, (ct_dl_managed_tensor **)&m);
            fail_at = 0;
            if (calls < n) {
                OK(st);
                if (versioned)
                    ((ct_dl_managed_tensor_versioned *)m)
                        ->deleter((ct_dl_managed_tensor_versioned *)m);
                else
                    ((ct_dl_managed_tensor *)m)->deleter((ct_dl_managed_tensor *)m);
                assert_int_equal(live_allocs, before);
                break;
            }
            assert_int_equal(st, CT_ERR_NOMEM);
            assert_null(m);
            assert_int_equal(live_allocs, before);
            assert_int_equal(ct_tensor_refcount(t), 1);
        }
    }
    ct_tensor_release(t);
}

static void test_import_alloc_failures(void **state) {
    (void)state;
    for (int versioned = 0; versioned < 2; versioned++) {
        for (int ndim7 = 0; ndim7 < 2; ndim7++) {
            int failures = 0;
            for (long n = 1;; n++) {
                producer p;
                producer_init(&p);
                if (ndim7) { /* more dims than the tensor keeps inline */
                    p.plain.dl_tensor.ndim = 7;
                    p.versioned.dl_tensor.ndim = 7;
                    for (int i = 2; i < 7; i++) {
                        p.shape[i] = 1;
                        p.strides[i] = 1;
                    }
                }
                long before = live_allocs;
                calls = 0;
                fail_at = n;
                ct_tensor *t = NULL;
                ct_status st = versioned
                                   ? ct_tensor_from_dlpack_versioned(&p.versioned, 0, NULL, &t)
                                   : ct_tensor_from_dlpack(&p.plain, &t);
                fail_at = 0;
                if (calls < n) {
                    OK(st);
                    assert_int_equal(p.deletes, 0);
                    ct_tensor_release(t);
                    assert_int_equal(p.deletes, 1);
                    assert_int_equal(live_allocs, before);
                    break;
                }
                failures++;
                assert_int_equal(st, CT_ERR_NOMEM);
                assert_null(t);
                assert_int_equal(p.deletes, 1);
                assert_int_equal(live_allocs, before);
            }
            assert_int_equal(failures, ndim7 ? 3 : 2); /* storage, tensor (, its dims) */
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtype_codes),
        cmocka_unit_test(test_dtype_from_dlpack_errors),
        cmocka_unit_test(test_round_trip_every_dtype),
        cmocka_unit_test(test_export_strided_views),
        cmocka_unit_test(test_export_zero_size_and_zero_dim),
        cmocka_unit_test(test_export_versioned_flags),
        cmocka_unit_test(test_export_refusals),
        cmocka_unit_test(test_accelerator_round_trip),
        cmocka_unit_test(test_every_accelerator_mapping),
        cmocka_unit_test(test_import_unsupported_device_types),
        cmocka_unit_test(test_import_keeps_producer_alive),
        cmocka_unit_test(test_import_geometry),
        cmocka_unit_test(test_import_malformed),
        cmocka_unit_test(test_import_versioned_rules),
        cmocka_unit_test(test_import_misuse),
        cmocka_unit_test(test_nested_ownership),
        cmocka_unit_test(test_export_alloc_failures),
        cmocka_unit_test(test_import_alloc_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
