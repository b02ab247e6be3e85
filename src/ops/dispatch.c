/* The per-op, per-layout slots (dispatch.h). */
#include <stdatomic.h>

#include "ops/dispatch.h"

#define NUM_FORMS 3

static _Atomic(ct_op_layout_fn) sparse_slots[CT_NUM_OPS][NUM_FORMS];

static bool slot_valid(ct_op op, ct_op_form form) {
    return (unsigned)op < (unsigned)CT_NUM_OPS && (unsigned)form < NUM_FORMS;
}

void ct_op_impl_register_sparse(ct_op op, ct_op_form form, ct_op_layout_fn fn) {
    if (slot_valid(op, form))
        atomic_store_explicit(&sparse_slots[op][form], fn, memory_order_release);
}

ct_op_layout_fn ct_op_impl_sparse(ct_op op, ct_op_form form) {
    if (!slot_valid(op, form))
        return NULL;
    return atomic_load_explicit(&sparse_slots[op][form], memory_order_acquire);
}

static _Atomic(ct_unop_layout_fn) unop_sparse_slot;

void ct_unop_impl_register_sparse(ct_unop_layout_fn fn) {
    atomic_store_explicit(&unop_sparse_slot, fn, memory_order_release);
}

ct_unop_layout_fn ct_unop_impl_sparse(void) {
    return atomic_load_explicit(&unop_sparse_slot, memory_order_acquire);
}

static _Atomic(ct_classify_layout_fn) classify_sparse_slot;

void ct_classify_impl_register_sparse(ct_classify_layout_fn fn) {
    atomic_store_explicit(&classify_sparse_slot, fn, memory_order_release);
}

ct_classify_layout_fn ct_classify_impl_sparse(void) {
    return atomic_load_explicit(&classify_sparse_slot, memory_order_acquire);
}
