/* Fuzz target: the element-wise iterator through add/sub/mul/div in every form (functional,
 * out=, in-place, scalar) on random geometries over one shared real storage, so that
 * operands broadcast (zero strides), overlap each other and overlap the output.
 * Checks: the call succeeds or fails cleanly (no new tensor on failure); a result lies
 * inside its storage and is read in full; for float64 functional add/sub/mul/div with alpha 1
 * the first element equals the scalar computation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctensor/ctensor.h"
#include "fuzz_common.h"
#include "fuzz_tensor.h"

#define POOL_BYTES 4096

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    ct_host_cache_set_limit(0);
    ct_set_num_threads(1); /* deterministic and cheap: one thread per input */
    return 0;
}

static ct_dtype small_dtype(fz_reader *r) {
    /* Mostly the common dtypes, so that most inputs reach a kernel. */
    static const ct_dtype common[] = {CT_FLOAT64, CT_FLOAT32, CT_INT64, CT_INT32, CT_BOOL,
                                      CT_UINT8, CT_INT8, CT_FLOAT16, CT_BFLOAT16, CT_COMPLEX64};
    uint8_t b = fz_u8(r);
    if (b < 200)
        return common[b % (sizeof common / sizeof common[0])];
    return (ct_dtype)(b % CT_NUM_DTYPES);
}

static ct_scalar decode_scalar(fz_reader *r) {
    uint8_t k = fz_u8(r);
    switch (k % 6) {
    case 0: return ct_scalar_bool(k & 0x10);
    case 1: return ct_scalar_int(fz_small(r));
    case 2: return ct_scalar_int(fz_i64_mixed(r));
    case 3: return ct_scalar_uint(fz_u64(r));
    case 4: return ct_scalar_float((double)fz_small(r) / 2);
    default: return ct_scalar_complex((double)fz_small(r), (double)fz_small(r));
    }
}

/* An operand: a view of `st` (the shared pool) or, sometimes, a fresh contiguous tensor. */
static ct_tensor *decode_operand(fz_reader *r, ct_storage *st) {
    uint8_t ctl = fz_u8(r);
    ct_dtype dt = small_dtype(r);
    int64_t nd = ctl % 5, sz[4], str[4];
    for (int64_t i = 0; i < nd; i++) {
        uint8_t b = fz_u8(r);
        sz[i] = b & 3 ? (b & 7) % 5 : 1;
        str[i] = (b >> 3) % 9; /* 0 broadcasts, >= 1 strides, overlapping ones included */
    }
    int64_t off = fz_u8(r) % 64;
    ct_tensor *t = NULL;
    if (ctl & 0x80) {
        if (ct_tensor_zeros(sz, nd, dt, NULL, CT_LAYOUT_STRIDED, &t) != CT_OK)
            return NULL;
        return t;
    }
    if (ctl & 0x40)
        off = -off; /* must be refused */
    if (ct_tensor_from_storage(st, sz, (ctl & 0x20) ? NULL : str, nd, off, dt, &t) != CT_OK)
        return NULL;
    if ((ctl & 0x10) && nd > 0) {
        ct_tensor *v = NULL; /* wrapped number or transposed view, now and then */
        if (nd >= 2 && ct_tensor_transpose(t, 0, 1, &v) == CT_OK) {
            ct_tensor_release(t);
            t = v;
        }
    } else if ((ctl & 0x08) && nd == 0) {
        (void)ct_tensor_set_wrapped_number(t, true);
    }
    return t;
}

static double f64_at0(const ct_tensor *t) { return *(const double *)ct_tensor_data_ptr(t); }

static bool same_f64(double x, double y) {
    return (isnan(x) && isnan(y)) || x == y;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader r = {data, size};
    unsigned char *pool = malloc(POOL_BYTES);
    ct_storage *st = NULL;
    if (!pool || ct_storage_wrap((ct_device){CT_DEVICE_CPU, -1}, pool, POOL_BYTES, NULL, NULL, &st) != CT_OK) {
        free(pool);
        return 0;
    }
    /* Pool contents: the input bytes, repeated (values of every kind, NaNs included). */
    for (size_t i = 0; i < POOL_BYTES; i++)
        pool[i] = size ? data[(i * 7) % size] : 0;

    uint8_t op = fz_u8(&r), form = fz_u8(&r);
    ct_tensor *a = decode_operand(&r, st), *b = decode_operand(&r, st), *o = decode_operand(&r, st);
    ct_scalar alpha = (form & 0x10) ? decode_scalar(&r) : ct_scalar_int(1);
    ct_scalar sb = decode_scalar(&r);
    ct_rounding_mode mode = (ct_rounding_mode)(fz_u8(&r) % 4); /* 3 is invalid */
    ct_tensor *res = NULL, *written = NULL;
    ct_status s = CT_ERR_MISUSE;
    double a0 = 0, b0 = 0;
    bool check = a && b && ct_tensor_dtype(a) == CT_FLOAT64 && ct_tensor_dtype(b) == CT_FLOAT64 &&
                 ct_tensor_numel(a) > 0 && ct_tensor_numel(b) > 0 && alpha.kind == CT_SCALAR_INT &&
                 alpha.v.i == 1;
    if (check) {
        a0 = f64_at0(a);
        b0 = f64_at0(b);
    }

    if (a && (b || (form & 3) == 3) && (o || (form & 3) != 1)) {
        switch ((form & 3) * 4 + op % 4) {
        /* functional */
        case 0: s = ct_add(a, b, alpha, &res); break;
        case 1: s = ct_sub(a, b, alpha, &res); break;
        case 2: s = ct_mul(a, b, &res); break;
        case 3: s = ct_div(a, b, mode, &res); break;
        /* out= */
        case 4: s = ct_add_out(a, b, alpha, o); written = o; break;
        case 5: s = ct_sub_out(a, b, alpha, o); written = o; break;
        case 6: s = ct_mul_out(a, b, o); written = o; break;
        case 7: s = ct_div_out(a, b, mode, o); written = o; break;
        /* in-place */
        case 8: s = ct_add_(a, b, alpha); written = a; break;
        case 9: s = ct_sub_(a, b, alpha); written = a; break;
        case 10: s = ct_mul_(a, b); written = a; break;
        case 11: s = ct_div_(a, b, mode); written = a; break;
        /* tensor-scalar */
        case 12: s = ct_add_scalar(a, sb, alpha, &res); break;
        case 13: s = ct_sub_scalar(a, sb, alpha, &res); break;
        case 14: s = ct_mul_scalar(a, sb, &res); break;
        default: s = ct_div_scalar(a, sb, mode, &res); break;
        }
    }
    if (s != CT_OK) {
        if (res)
            abort(); /* documented: no new tensor on error */
    } else if (res) {
        fz_check_tensor(res);
        if (check && (form & 3) == 0 && ct_tensor_dtype(res) == CT_FLOAT64 &&
            ct_tensor_numel(res) > 0 && (op % 4 != 3 || mode == CT_ROUNDING_NONE)) {
            double want = op % 4 == 0 ? a0 + b0 : op % 4 == 1 ? a0 - b0 : op % 4 == 2 ? a0 * b0 : a0 / b0;
            if (!same_f64(f64_at0(res), want))
                fz_fail("element [0] differs from the scalar computation", res);
        }
    } else if (written) {
        fz_check_tensor(written);
    } else {
        abort();
    }
    ct_tensor_release(res);
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_tensor_release(o);
    ct_storage_release(st);
    free(pool);
    return 0;
}
