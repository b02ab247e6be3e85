/* What the matrix-product files of src/ops share (linalg.c, linalg_add.c); defined in
 * linalg_add.c, the staging helpers in linalg_stage.c. Layering: ops. */
#ifndef CT_OPS_LINALG_IMPL_H
#define CT_OPS_LINALG_IMPL_H

#include <stdbool.h>

#include "ctensor/scalar.h"
#include "ctensor/tensor.h"

/* Whether a beta (or alpha) scalar is zero of its kind: with beta == 0 the input's values
 * are ignored, NaN and inf included, as in PyTorch. */
bool ct_linalg_impl_scalar_is_zero(ct_scalar s);

/* An out= tensor must be on r's device: CT_ERR_RUNTIME "Expected out tensor to have device
 * cpu, but got meta instead" otherwise. */
ct_status ct_linalg_impl_check_out_device(const ct_tensor *out, const ct_tensor *r);

/* PyTorch's resize_output then copy_: out resized to r's shape when it differs (with the
 * deprecation warning when out had elements), then r copied in (not on meta). On error out
 * may be resized: callers that promise otherwise save and restore its geometry. */
ct_status ct_linalg_impl_resize_copy(ct_tensor *out, const ct_tensor *r);

/* ---- accelerators: through host memory (Note [Staging through host memory]) ------------- */

/* The public signatures the products have. */
typedef ct_status (*ct_linalg_impl_ab_fn)(const ct_tensor *, const ct_tensor *, ct_tensor **);
typedef ct_status (*ct_linalg_impl_ab_out_fn)(const ct_tensor *, const ct_tensor *, ct_tensor *);
typedef ct_status (*ct_linalg_impl_add_fn)(const ct_tensor *, const ct_tensor *, const ct_tensor *,
                                           ct_scalar, ct_scalar, ct_tensor **);
typedef ct_status (*ct_linalg_impl_add_out_fn)(const ct_tensor *, const ct_tensor *,
                                               const ct_tensor *, ct_scalar, ct_scalar,
                                               ct_tensor *);
typedef ct_status (*ct_linalg_impl_add_self_fn)(ct_tensor *, const ct_tensor *, const ct_tensor *,
                                                ct_scalar, ct_scalar);

/* True when the non-NULL tensors among a..d (at least one) are all strided and on one device
 * that ct_stage_wanted stages. Mixed devices are left to the cpu path, whose own checks give
 * PyTorch's "Expected all tensors to be on the same device" (or out= device) message. */
bool ct_linalg_impl_stage_wanted(const ct_tensor *a, const ct_tensor *b, const ct_tensor *c,
                                 const ct_tensor *d);

/* f run on host mirrors of the arguments, its result (or the written out / self) moved back
 * to the device. `fn` is a string literal naming the op. */
ct_status ct_linalg_impl_stage_ab(const char *fn, ct_linalg_impl_ab_fn f, const ct_tensor *a,
                                  const ct_tensor *b, ct_tensor **out);
ct_status ct_linalg_impl_stage_ab_out(const char *fn, ct_linalg_impl_ab_out_fn f,
                                      const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
ct_status ct_linalg_impl_stage_add(const char *fn, ct_linalg_impl_add_fn f, const ct_tensor *input,
                                   const ct_tensor *a, const ct_tensor *b, ct_scalar beta,
                                   ct_scalar alpha, ct_tensor **out);
ct_status ct_linalg_impl_stage_add_out(const char *fn, ct_linalg_impl_add_out_fn f,
                                       const ct_tensor *input, const ct_tensor *a,
                                       const ct_tensor *b, ct_scalar beta, ct_scalar alpha,
                                       ct_tensor *out);
ct_status ct_linalg_impl_stage_add_self(const char *fn, ct_linalg_impl_add_self_fn f,
                                        ct_tensor *self, const ct_tensor *a, const ct_tensor *b,
                                        ct_scalar beta, ct_scalar alpha);

/* The first statement of each public product (after its NULL-out check): the whole op staged
 * when its tensors are on an accelerator. */
#define CT_LINALG_STAGE_AB(f, a, b, out)                                                           \
    do {                                                                                           \
        if (ct_linalg_impl_stage_wanted(a, b, NULL, NULL))                                         \
            return ct_linalg_impl_stage_ab(#f, f, a, b, out);                                      \
    } while (0)
#define CT_LINALG_STAGE_AB_OUT(f, a, b, out)                                                       \
    do {                                                                                           \
        if (ct_linalg_impl_stage_wanted(a, b, out, NULL))                                          \
            return ct_linalg_impl_stage_ab_out(#f, f, a, b, out);                                  \
    } while (0)
#define CT_LINALG_STAGE_ADD(f, input, a, b, beta, alpha, out)                                      \
    do {                                                                                           \
        if (ct_linalg_impl_stage_wanted(input, a, b, NULL))                                        \
            return ct_linalg_impl_stage_add(#f, f, input, a, b, beta, alpha, out);                 \
    } while (0)
#define CT_LINALG_STAGE_ADD_OUT(f, input, a, b, beta, alpha, out)                                  \
    do {                                                                                           \
        if (ct_linalg_impl_stage_wanted(input, a, b, out))                                         \
            return ct_linalg_impl_stage_add_out(#f, f, input, a, b, beta, alpha, out);             \
    } while (0)
#define CT_LINALG_STAGE_ADD_SELF(f, self, a, b, beta, alpha)                                       \
    do {                                                                                           \
        if (ct_linalg_impl_stage_wanted(self, a, b, NULL))                                         \
            return ct_linalg_impl_stage_add_self(#f, f, self, a, b, beta, alpha);                  \
    } while (0)

#endif /* CT_OPS_LINALG_IMPL_H */
