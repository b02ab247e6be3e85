/* ctensor: SBP signatures (oneflow.sbp), part of libctensor_dist.
 *
 * An sbp says how one hierarchy axis of a placement holds a global tensor: split along a
 * tensor dim (each rank of the axis holds a balanced slice, lower ranks getting the extra
 * element: sizes of 10 over 4 are 3, 3, 2, 2), broadcast (every rank holds all of it), or
 * partial sum (the tensor is the element-wise sum of what the ranks hold). A global tensor
 * has an nd-sbp: one sbp per hierarchy axis. ct_sbp is a plain value.
 */
#ifndef CTENSOR_SBP_H
#define CTENSOR_SBP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/status.h"

CT_EXTERN_C_BEGIN

typedef enum ct_sbp_kind {
    CT_SBP_SPLIT = 0,
    CT_SBP_BROADCAST = 1,
    CT_SBP_PARTIAL_SUM = 2,
} ct_sbp_kind;

typedef struct ct_sbp {
    ct_sbp_kind kind;
    int32_t dim; /**< the split dim for CT_SBP_SPLIT; -1 otherwise */
} ct_sbp;

/** oneflow.sbp.max_split_axis: split dims are 0..CT_SBP_MAX_SPLIT_AXIS-1. */
#define CT_SBP_MAX_SPLIT_AXIS 6

/** sbp.split(dim). Errors (CT_ERR_RUNTIME, OneFlow's wording): "Split axis must not be
 *  negative, but got -1!"; "Expected split axis to be less than the supported maximum axis
 *  (6), but got 7!". */
CT_API ct_status ct_sbp_split(int64_t dim, ct_sbp *out);
/** sbp.broadcast. */
CT_API ct_sbp ct_sbp_broadcast(void);
/** sbp.partial_sum. */
CT_API ct_sbp ct_sbp_partial_sum(void);

/** Same kind and, for splits, same dim. */
CT_API bool ct_sbp_equal(ct_sbp a, ct_sbp b);
/** Element-wise equality of two nd-sbp of `n` entries. */
CT_API bool ct_nd_sbp_equal(const ct_sbp *a, const ct_sbp *b, int64_t n);

/** OneFlow's repr, "<module>.sbp.split(dim=0)", "<module>.sbp.broadcast",
 *  "<module>.sbp.partial_sum"; snprintf-style (returns the length needed). `module` NULL
 *  means "ctensor". */
CT_API size_t ct_sbp_format(ct_sbp sbp, const char *module, char *buf, size_t size);
/** The short form OneFlow's messages use: "S(0)", "B", "P". snprintf-style. */
CT_API size_t ct_sbp_format_short(ct_sbp sbp, char *buf, size_t size);
/** An nd-sbp as a Python tuple of reprs: "(oneflow.sbp.split(dim=0),)",
 *  "(oneflow.sbp.broadcast, oneflow.sbp.split(dim=0))". snprintf-style. */
CT_API size_t ct_nd_sbp_format(const ct_sbp *sbp, int64_t n, const char *module, char *buf,
                               size_t size);
/** An nd-sbp in short form, "(S(0), B)". snprintf-style. */
CT_API size_t ct_nd_sbp_format_short(const ct_sbp *sbp, int64_t n, char *buf, size_t size);

/** Parse a short form: "S(<digits>)", "B" or "P". CT_ERR_VALUE "invalid sbp string: ..."
 *  otherwise; split dims checked as ct_sbp_split. */
CT_API ct_status ct_sbp_parse(const char *text, ct_sbp *out);

CT_EXTERN_C_END

#endif /* CTENSOR_SBP_H */
