/* torch.result_type: PyTorch's ResultTypeState over three priority groups. */
#include "base/error_impl.h"
#include "dtype/table_impl.h"

/* promoteTypes that treats an empty slot as the identity. */
static ct_status promote_skip_undefined(ct_dtype a, ct_dtype b, ct_dtype *out) {
    if (a == CT_DTYPE_UNDEFINED) {
        *out = b;
        return CT_OK;
    }
    if (b == CT_DTYPE_UNDEFINED) {
        *out = a;
        return CT_OK;
    }
    return ct_promote_types(a, b, out);
}

ct_status ct_result_type_update(ct_result_type_state *state, ct_dtype dtype,
                                ct_operand_category category) {
    if (state == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_result_type_update: state must not be NULL");
    if (!ct_dtype_impl_valid(dtype))
        return ct_set_error(CT_ERR_MISUSE, "ct_result_type_update: invalid dtype value %d", (int)dtype);
    ct_dtype *slot;
    switch (category) {
    case CT_OPERAND_DIMENSIONED: slot = &state->dimensioned; break;
    case CT_OPERAND_ZERO_DIM: slot = &state->zero_dim; break;
    case CT_OPERAND_SCALAR:
        slot = &state->scalar;
        /* A wrapped number's own float/complex dtype never counts, only the defaults. */
        if (ct_dtype_is_complex(dtype))
            dtype = ct_get_default_complex_dtype();
        else if (ct_dtype_is_floating_point(dtype))
            dtype = ct_get_default_dtype();
        break;
    default:
        return ct_set_error(CT_ERR_MISUSE, "ct_result_type_update: invalid operand category %d",
                            (int)category);
    }
    ct_dtype merged;
    CT_TRY(promote_skip_undefined(*slot, dtype, &merged));
    *slot = merged;
    return CT_OK;
}

/* A lower-priority group only counts when it is of a higher category; then the result
 * takes that category at the higher group's size where possible. */
static ct_status combine(ct_dtype higher, ct_dtype lower, ct_dtype *out) {
    if (ct_dtype_is_complex(higher)) {
        *out = higher;
        return CT_OK;
    }
    if (ct_dtype_is_complex(lower)) {
        if (ct_dtype_is_floating_point(higher))
            return ct_dtype_to_complex(higher, out);
        *out = lower;
        return CT_OK;
    }
    if (ct_dtype_is_floating_point(higher)) {
        *out = higher;
        return CT_OK;
    }
    if (higher == CT_BOOL || ct_dtype_is_floating_point(lower))
        return promote_skip_undefined(higher, lower, out);
    *out = higher != CT_DTYPE_UNDEFINED ? higher : lower;
    return CT_OK;
}

ct_status ct_result_type_finish(const ct_result_type_state *state, ct_dtype *out) {
    if (out != NULL)
        *out = CT_DTYPE_UNDEFINED;
    if (state == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_result_type_finish: state and out must not be NULL");
    ct_dtype lower, result;
    CT_TRY(combine(state->zero_dim, state->scalar, &lower));
    CT_TRY(combine(state->dimensioned, lower, &result));
    if (result == CT_DTYPE_UNDEFINED)
        return ct_set_error(CT_ERR_VALUE, "result_type: no operands");
    *out = result;
    return CT_OK;
}

ct_status ct_result_type(const ct_operand *operands, size_t n, ct_dtype *out) {
    if (out != NULL)
        *out = CT_DTYPE_UNDEFINED;
    if (out == NULL || (operands == NULL && n > 0))
        return ct_set_error(CT_ERR_MISUSE, "ct_result_type: operands and out must not be NULL");
    ct_result_type_state state = CT_RESULT_TYPE_STATE_INIT;
    for (size_t i = 0; i < n; i++)
        CT_TRY(ct_result_type_update(&state, operands[i].dtype, operands[i].category));
    return ct_result_type_finish(&state, out);
}
