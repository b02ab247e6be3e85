/* Internals of tensor printing shared by print.c and print_format.c, and usable by the
 * layers above that print tensors made of dense parts (sparse COO prints its indices and
 * values with ct_print_impl_body and closes with ct_print_impl_add_suffixes, as PyTorch's
 * _str_intern does). */
#ifndef CT_TENSOR_PRINT_IMPL_H
#define CT_TENSOR_PRINT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "ctensor/print.h"

/* PyTorch's _tensor_str(t, indent): the bracketed values of a strided cpu or accelerator
 * tensor ("[]" when it has no element). `indent` is the column the opening bracket
 * follows (7 after "tensor("). */
ct_status ct_print_impl_body(ct_sb *b, const ct_tensor *t, int64_t indent,
                             const ct_print_options *opts);

/* PyTorch's _add_suffixes: append each suffix after ", " or, when the line would pass
 * the line width (or for the first one when force_newline), after ",\n" and `indent`
 * spaces; then ")". b holds everything printed so far. */
void ct_print_impl_add_suffixes(ct_sb *b, const char *const *suffixes, size_t n, int64_t indent,
                                bool force_newline, const ct_print_options *opts);

/* Whether a non-empty tensor of this dtype prints without a dtype= suffix. */
bool ct_print_impl_has_default_dtype(ct_dtype dtype);

/* "(2, 3)", "(3,)", "()": Python's str(tuple(shape)). */
void ct_print_impl_shape(ct_sb *b, const int64_t *sizes, int64_t ndim);

#endif /* CT_TENSOR_PRINT_IMPL_H */
