/* cast.c: a global tensor in another dtype (global.h, ct_global_to_dtype), run by the
 * collective script of oneop.c; and on another placement type (ct_global_to_device_type,
 * a to_global).
 *
 * Signature, per hierarchy axis: split(d) and broadcast pass through (the cast is
 * element-wise); partial_sum stays partial_sum where the cast commutes with the sum of the
 * partial values: between floating (or complex) dtypes, between integer dtypes (wrap-around
 * is modular) and from integers to floating; a cast from floating to integer (it truncates)
 * or to or from bool (a bool partial sum is a logical or) reduces the axis to broadcast
 * first. The same dtype returns the input itself. */
#include <string.h>

#include "dist/dist_impl.h"

typedef struct cast_args {
    ct_dtype dtype;
} cast_args;

static void describe(ct_sb *s, const void *ctx) {
    const cast_args *a = ctx;
    ct_sb_appendf(s, ", dtype=%s", ct_dtype_name(a->dtype));
}

static uint64_t hash(uint64_t h, const void *ctx) {
    const cast_args *a = ctx;
    int64_t v = (int64_t)a->dtype;
    return ct_hash_bytes(h, &v, sizeof v);
}

static ct_status apply(const void *ctx, const ct_tensor *in, const ct_global *x,
                       const ct_sbp *z_sbp, ct_tensor **out) {
    const cast_args *a = ctx;
    (void)x;
    (void)z_sbp; /* element-wise */
    return ct_tensor_to(in, a->dtype, NULL, true, CT_MEMFMT_CONTIGUOUS, out);
}

static bool keeps_partial_sum(ct_dtype from, ct_dtype to) {
    if (from == CT_BOOL || to == CT_BOOL)
        return false;
    const bool from_int = ct_dtype_is_integral(from, false);
    const bool to_int = ct_dtype_is_integral(to, false);
    return !(to_int && !from_int);
}

static void signature(const void *ctx, const ct_global *x, ct_dtype z_dtype, ct_sbp *in_sbp,
                      ct_sbp *z_sbp) {
    (void)ctx;
    const int64_t nh = ct_placement_ndim(ct_global_placement(x));
    const bool partial = keeps_partial_sum(ct_global_dtype(x), z_dtype);
    for (int64_t k = 0; k < nh; k++) {
        in_sbp[k] = ct_global_sbp(x)[k];
        if (in_sbp[k].kind == CT_SBP_PARTIAL_SUM && !partial)
            in_sbp[k] = (ct_sbp){.kind = CT_SBP_BROADCAST, .dim = -1};
        z_sbp[k] = in_sbp[k];
    }
}

ct_status ct_global_to_dtype(const ct_global *x, ct_dtype dtype, ct_global **out) {
    if (!ct_dtype_is_valid(dtype)) {
        if (out)
            *out = NULL;
        return ct_global_fail("to", ct_set_error(CT_ERR_MISUSE,
                                                 "ct_global_to_dtype: invalid dtype %d",
                                                 (int)dtype));
    }
    const cast_args a = {.dtype = dtype};
    const ct_dist_oneop op = {
        .name = "to",
        .fn = "ct_global_to_dtype",
        .ctx = &a,
        .describe = describe,
        .hash = hash,
        .apply = apply,
        .signature = signature,
        .identity = x != NULL && ct_global_dtype(x) == dtype,
    };
    return ct_dist_impl_oneop_run(&op, x, out);
}

ct_status ct_global_to_device_type(const ct_global *x, ct_device_type type, ct_global **out) {
    if (!out)
        return ct_global_fail("to", ct_set_error(CT_ERR_MISUSE,
                                                 "ct_global_to_device_type: out is NULL"));
    *out = NULL;
    if (!x)
        return ct_global_fail("to", ct_set_error(CT_ERR_MISUSE,
                                                 "ct_global_to_device_type: x is NULL"));
    if (type != CT_DEVICE_CPU && type != CT_DEVICE_CUDA) {
        const char *name = ct_device_type_is_valid(type) ? ct_device_type_name(type) : NULL;
        if (name)
            return ct_global_fail("to", ct_set_error(CT_ERR_RUNTIME,
                                                     "Expected one of cpu, cuda device type at "
                                                     "start of device string: %s",
                                                     name));
        return ct_global_fail("to", ct_set_error(CT_ERR_MISUSE,
                                                 "ct_global_to_device_type: invalid device "
                                                 "type %d",
                                                 (int)type));
    }
    /* OneFlow's to("cuda") / cpu(): the same ranks, hierarchy and nd-sbp, another type. */
    ct_placement *p = NULL;
    ct_status st = ct_dist_impl_placement_retype(x->placement, type, &p);
    if (st != CT_OK)
        return ct_global_fail("to", st);
    st = ct_global_to_global(x, p, NULL, 0, 0, out);
    ct_placement_release(p);
    return st;
}
