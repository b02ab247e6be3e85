/* ctensor: dtypes, type promotion, result types, casting rules, default dtype, finfo/iinfo.
 *
 * The dtype set is the one of PyTorch's newest "Tensor Attributes" page; every constant
 * fact comes from one table, ctensor/dtypes.def. Functions that take a ct_dtype treat a
 * value outside [0, CT_NUM_DTYPES) as a misuse (CT_ERR_MISUSE) where they return a status,
 * and as "not a dtype" (false, 0, NULL) where they do not.
 *
 * Error messages follow PyTorch's wording; dtype names inside them are PyTorch's C++ names
 * (ct_dtype_cpp_name: "Float", "Long", "Float8_e4m3fn", ...), as PyTorch prints them.
 */
#ifndef CTENSOR_DTYPE_H
#define CTENSOR_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/status.h"

CT_EXTERN_C_BEGIN

/** Broad category of a dtype; PyTorch's promotion "categories" are bool < integral
 *  (uint, int) < floating < complex. */
typedef enum ct_dtype_kind {
    CT_KIND_BOOL = 0,
    CT_KIND_UINT = 1,
    CT_KIND_INT = 2,
    CT_KIND_FLOAT = 3,
    CT_KIND_COMPLEX = 4,
} ct_dtype_kind;

typedef enum ct_dtype {
    CT_DTYPE_UNDEFINED = -1, /**< "no dtype": an empty slot, never a tensor's dtype */
#define CT_DTYPE(E, ...) CT_##E,
#include "ctensor/dtypes.def"
#undef CT_DTYPE
    CT_NUM_DTYPES
} ct_dtype;

/* ---- traits (all total: an invalid dtype gives false / 0 / NULL) ------------------- */

/** true for 0 <= dtype < CT_NUM_DTYPES. */
CT_API bool ct_dtype_is_valid(ct_dtype dtype);
/** Primary Python name ("float32"); static string, NULL if invalid. */
CT_API const char *ct_dtype_name(ct_dtype dtype);
/** PyTorch's C++ ScalarType name ("Float"), used in error messages; NULL if invalid. */
CT_API const char *ct_dtype_cpp_name(ct_dtype dtype);
/** PyTorch's short name ("f32"); NULL if invalid. */
CT_API const char *ct_dtype_abbr(ct_dtype dtype);
/** The Python alias ("float" for float32), NULL if the dtype has none or is invalid. */
CT_API const char *ct_dtype_alias(ct_dtype dtype);
/** Bytes per element (float4_e2m1fn_x2: per packed pair); 0 if invalid. */
CT_API size_t ct_dtype_itemsize(ct_dtype dtype);
CT_API ct_dtype_kind ct_dtype_kind_of(ct_dtype dtype);
/** PyTorch's dtype.is_floating_point: half, bfloat16, float, double, every float8, float4. */
CT_API bool ct_dtype_is_floating_point(ct_dtype dtype);
/** complex32, complex64, complex128. */
CT_API bool ct_dtype_is_complex(ct_dtype dtype);
/** PyTorch's dtype.is_signed (float8_e8m0fnu and the unsigned ints are unsigned). */
CT_API bool ct_dtype_is_signed(ct_dtype dtype);
/** PyTorch's isIntegralType: uint8..int64 and uint16/32/64, plus bool if include_bool. */
CT_API bool ct_dtype_is_integral(ct_dtype dtype, bool include_bool);
/** The five float8 formats (e4m3fn, e5m2, e4m3fnuz, e5m2fnuz, e8m0fnu). */
CT_API bool ct_dtype_is_float8(ct_dtype dtype);
/** half, bfloat16, float8 and float4: floating types narrower than float32. */
CT_API bool ct_dtype_is_reduced_floating(ct_dtype dtype);
/** uint16, uint32, uint64: the unsigned types PyTorch calls "barebones" (not uint8). */
CT_API bool ct_dtype_is_barebones_unsigned(ct_dtype dtype);
/** A shell dtype of the PyTorch page: creation and data-agnostic ops only, no promotion. */
CT_API bool ct_dtype_is_shell(ct_dtype dtype);
/** DLPack type code and bits per lane. */
CT_API int ct_dtype_dlpack_code(ct_dtype dtype);
CT_API int ct_dtype_dlpack_bits(ct_dtype dtype);

/** Look a dtype up by primary name or alias ("float32", "float", "cdouble", ...).
 *  Errors: CT_ERR_VALUE for an unknown name; CT_ERR_MISUSE for NULL. */
CT_API ct_status ct_dtype_from_name(const char *name, ct_dtype *out);

/** complex -> its component type; every other dtype -> itself (PyTorch's to_real()). */
CT_API ct_dtype ct_dtype_to_real(ct_dtype dtype);

/** PyTorch's toComplexType: bfloat16 and float32 -> complex64, float16 -> complex32,
 *  float64 -> complex128, complex -> itself.
 *  Errors: CT_ERR_RUNTIME "Unknown Complex ScalarType for <Name>" for any other dtype. */
CT_API ct_status ct_dtype_to_complex(ct_dtype dtype, ct_dtype *out);

/* ---- promotion ---------------------------------------------------------------------- */

/** torch.promote_types(a, b), PyTorch's newest algorithm (equal types first, then the
 *  float8 and barebones-unsigned rules, then the 13x13 table).
 *  Errors (CT_ERR_RUNTIME), with PyTorch's messages:
 *   "Promotion for Float8 Types is not supported, attempted to promote <A> and <B>"
 *   "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote <A> and <B>"
 *  and, where PyTorch fails an internal assert (float4_e2m1fn_x2 with any type other than
 *  itself or a barebones unsigned one):
 *   "Promotion for Float4_e2m1fn_x2 is not supported, attempted to promote <A> and <B>".
 *  CT_ERR_MISUSE for an invalid dtype. `*out` is CT_DTYPE_UNDEFINED on failure. */
CT_API ct_status ct_promote_types(ct_dtype a, ct_dtype b, ct_dtype *out);

/** torch.can_cast(from, to): false exactly when complex -> non-complex, floating ->
 *  integral (bool excluded), or non-bool -> bool. Invalid dtypes give false. */
CT_API bool ct_can_cast(ct_dtype from, ct_dtype to);

/** The check PyTorch makes before writing a result of dtype `result` into an output (an
 *  `out=` tensor or the `self` of an in-place op) of dtype `out`.
 *  Errors: CT_ERR_RUNTIME "result type <Result> can't be cast to the desired output type
 *  <Out>" when !ct_can_cast(result, out); CT_ERR_MISUSE for an invalid dtype. */
CT_API ct_status ct_check_output_cast(ct_dtype result, ct_dtype out);

/* ---- result type (PyTorch's ResultTypeState) --------------------------------------- */

/** How an operand takes part in result-type computation. */
typedef enum ct_operand_category {
    CT_OPERAND_DIMENSIONED = 0, /**< a tensor with dim() > 0 */
    CT_OPERAND_ZERO_DIM = 1,    /**< a 0-dim tensor that is not a wrapped number */
    CT_OPERAND_SCALAR = 2,      /**< a Python-style scalar ("wrapped number") */
} ct_operand_category;

/** Accumulator for result_type: the promoted dtype of each priority group. Initialise with
 *  CT_RESULT_TYPE_STATE_INIT. */
typedef struct ct_result_type_state {
    ct_dtype dimensioned;
    ct_dtype zero_dim;
    ct_dtype scalar;
} ct_result_type_state;

#define CT_RESULT_TYPE_STATE_INIT {CT_DTYPE_UNDEFINED, CT_DTYPE_UNDEFINED, CT_DTYPE_UNDEFINED}

/** Add one operand. For CT_OPERAND_SCALAR pass the scalar's own dtype: CT_BOOL for bool,
 *  CT_INT64 for an integer, CT_FLOAT64 for a float, CT_COMPLEX128 for a complex; floats and
 *  complexes then count as the default dtype / default complex dtype (read at this call).
 *  Errors: those of ct_promote_types, when two operands of one group do not promote;
 *  CT_ERR_MISUSE for NULL, an invalid dtype or category. The state is unchanged on error. */
CT_API ct_status ct_result_type_update(ct_result_type_state *state, ct_dtype dtype,
                                       ct_operand_category category);

/** Combine the groups: a lower-priority group (zero-dim, then scalars) only counts when it
 *  is of a higher category than the groups above it.
 *  Errors: CT_ERR_RUNTIME "Unknown Complex ScalarType for <Name>" (e.g. float8 tensor with
 *  a complex scalar); CT_ERR_VALUE "result_type: no operands" when nothing was added. */
CT_API ct_status ct_result_type_finish(const ct_result_type_state *state, ct_dtype *out);

/** One operand for ct_result_type. */
typedef struct ct_operand {
    ct_dtype dtype;
    ct_operand_category category;
} ct_operand;

/** torch.result_type over `n` operands: update for each, then finish. Errors: as those. */
CT_API ct_status ct_result_type(const ct_operand *operands, size_t n, ct_dtype *out);

/* ---- default dtype ------------------------------------------------------------------ */

/** The default floating dtype (process-wide; float32 at start). */
CT_API ct_dtype ct_get_default_dtype(void);

/** The default complex dtype, derived from the default dtype: float64 -> complex128,
 *  float16 -> complex32, otherwise complex64. */
CT_API ct_dtype ct_get_default_complex_dtype(void);

/** torch.set_default_dtype. Process-wide; set it before starting threads that read it.
 *  Errors (CT_ERR_TYPE), nothing changed:
 *   "only floating-point types are supported as the default type" for a non-floating dtype;
 *   "couldn't find storage object <Name>Storage" for float8 / float4 (floating, but PyTorch
 *   has no storage class for them); CT_ERR_MISUSE for an invalid dtype. */
CT_API ct_status ct_set_default_dtype(ct_dtype dtype);

/* ---- finfo / iinfo ------------------------------------------------------------------ */

/** Machine limits of a floating dtype, as torch.finfo reports them (complex dtypes report
 *  their component type). `tiny` equals `smallest_normal`; `min` is the lowest finite value
 *  (for float8_e8m0fnu, which has no sign, that is +2^-127); resolution is 10^-digits10. */
typedef struct ct_finfo {
    int bits;
    double eps;
    double max;
    double min;
    double tiny;
    double smallest_normal;
    double resolution;
    ct_dtype dtype;  /**< the real dtype described (float32 for complex64) */
    bool has_values; /**< false for float4_e2m1fn_x2: PyTorch defines only `bits` for it */
} ct_finfo;

/** torch.finfo(dtype). Errors: CT_ERR_TYPE "torch.finfo() requires a floating point input
 *  type. Use torch.iinfo to handle 'torch.finfo'" (PyTorch's wording, verbatim) for a
 *  non-floating, non-complex dtype; CT_ERR_MISUSE for NULL or an invalid dtype. */
CT_API ct_status ct_finfo_of(ct_dtype dtype, ct_finfo *out);

/** Limits of an integer dtype, as torch.iinfo reports them. */
typedef struct ct_iinfo {
    int bits;
    int64_t min;
    uint64_t max;
    ct_dtype dtype;
} ct_iinfo;

/** torch.iinfo(dtype). Errors (CT_ERR_TYPE): "torch.bool is not supported by torch.iinfo";
 *  "torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'"
 *  for a non-integer dtype; CT_ERR_MISUSE for NULL or an invalid dtype. */
CT_API ct_status ct_iinfo_of(ct_dtype dtype, ct_iinfo *out);

CT_EXTERN_C_END

#endif /* CTENSOR_DTYPE_H */
