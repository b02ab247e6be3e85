/* ctensor: printing tensors as PyTorch prints them (repr/str of torch.Tensor).
 *
 *   tensor([1, 2, 3], dtype=torch.int32)
 *   tensor([[0.1000, 2.5000],
 *           [   nan,   -inf]])
 *   tensor(..., device='meta', size=(2, 3))
 *
 * The output is character for character what newest PyTorch's torch/_tensor_str.py prints
 * for a plain dense tensor: fixed / integer-valued / scientific notation chosen from the
 * printed values, columns aligned, lines wrapped at `linewidth`, tensors with more than
 * `threshold` elements summarized to `edgeitems` items at each end of every dim, and the
 * suffixes device=, size= and dtype= under PyTorch's rules. Numbers are formatted as
 * Python's float formatting does ("{:.4f}", "{:.4e}", "{:.0f}"): digits correctly rounded
 * from the exact binary value, NaN always "nan" (no sign). float16, bfloat16 and the float8
 * formats print their exact values; float4_e2m1fn_x2 prints each packed byte as an unsigned
 * number, as newest PyTorch does. The dtype names in suffixes carry a configurable module
 * prefix ("torch." by default; the Python module uses "ctensor.").
 *
 * Differences from PyTorch 1.13 (newest PyTorch's behaviour is kept):
 *  - sci_mode forced on or off: the column width follows the forced notation; 1.13 measured
 *    the width in the notation it would have chosen itself (so 1.13 prints
 *    `tensor([        1., 1000000000.])` with sci_mode=False, newest one space more).
 *  - edgeitems 0: a summarized tensor prints as `tensor([...], size=(2000,))` and every
 *    non-empty tensor gets a size= suffix; 1.13 printed the whole last dim after " ..." or
 *    failed ("stack expects a non-empty TensorList").
 *  - dtypes 1.13 lacks (uint16/32/64, float8, float4_e2m1fn_x2) print as newest PyTorch.
 * Differences from newest PyTorch: a 0-dim float4_e2m1fn_x2 tensor prints its byte (PyTorch
 * raises because item() is not implemented for it); the device= suffix appears for every
 * tensor not on the cpu (ctensor has no default tensor type on another device).
 */
#ifndef CTENSOR_PRINT_H
#define CTENSOR_PRINT_H

#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/** sci_mode of torch.set_printoptions: None, False, True. */
typedef enum ct_print_sci_mode {
    CT_PRINT_SCI_AUTO = -1, /**< chosen from the values (PyTorch's None) */
    CT_PRINT_SCI_OFF = 0,   /**< never scientific notation */
    CT_PRINT_SCI_ON = 1,    /**< always scientific notation (for values that are printed
                                 as numbers: a tensor with no nonzero finite value stays
                                 fixed, as in PyTorch) */
} ct_print_sci_mode;

/** Room for the module prefix, its NUL included. */
#define CT_PRINT_PREFIX_MAX 32
/** The largest precision accepted (Python would take more; 500 digits is already more
 *  than any double has). */
#define CT_PRINT_MAX_PRECISION 500

/** The options of torch.set_printoptions, plus the module prefix of dtype names. */
typedef struct ct_print_options {
    int32_t precision;                /**< digits after the point (4); 0..CT_PRINT_MAX_PRECISION */
    double threshold;                 /**< summarize when numel() > threshold (1000; INFINITY
                                           never summarizes, NaN neither) */
    int64_t edgeitems;                /**< items kept at each end of a summarized dim (3); >= 0 */
    int64_t linewidth;                /**< characters per line for wrapping (80); any value */
    ct_print_sci_mode sci_mode;       /**< CT_PRINT_SCI_AUTO */
    char prefix[CT_PRINT_PREFIX_MAX]; /**< module prefix of dtype names ("torch."),
                                           NUL-terminated */
} ct_print_options;

/** PyTorch's defaults: precision 4, threshold 1000, edgeitems 3, linewidth 80, sci_mode
 *  auto, prefix "torch.". */
CT_API ct_print_options ct_print_options_default(void);

/** Apply a profile of torch.set_printoptions to `opts`, changing precision, threshold,
 *  edgeitems and linewidth only: "default" (4, 1000, 3, 80), "short" (2, 1000, 2, 80),
 *  "full" (4, inf, 3, 80). Errors: CT_ERR_VALUE "unknown print profile 'x' (expected
 *  'default', 'short' or 'full')" (PyTorch silently ignores unknown names; the Python
 *  module does too); CT_ERR_MISUSE for NULL arguments. `opts` is unchanged on error. */
CT_API ct_status ct_print_options_apply_profile(ct_print_options *opts, const char *profile);

/** Check the options: CT_ERR_VALUE "precision must be between 0 and 500, got -1",
 *  "edgeitems must be non-negative, got -1", "invalid sci_mode value 7", "the module prefix
 *  must be a NUL-terminated string of at most 31 bytes"; CT_ERR_MISUSE for NULL. */
CT_API ct_status ct_print_options_check(const ct_print_options *opts);

/** torch.set_printoptions: the process-wide options ct_tensor_repr uses when given NULL.
 *  Safe to call from any thread (readers see the old or the new options whole).
 *  Errors: those of ct_print_options_check; nothing changes then. */
CT_API ct_status ct_set_printoptions(const ct_print_options *opts);

/** The process-wide options (a copy); ct_print_options_default() until changed. */
CT_API ct_print_options ct_get_printoptions(void);

/** repr(tensor) / str(tensor): a NUL-terminated string in *out, to be freed with
 *  ct_string_free. `opts` NULL means the process-wide options. Strided tensors on any
 *  device: accelerator tensors are copied to the cpu first, meta tensors print without
 *  reading data. The default dtype (ct_get_default_dtype) decides the dtype= suffix as in
 *  PyTorch: non-empty tensors show it unless the dtype is the default dtype, int64, bool or
 *  the default complex dtype of printing (complex128 when the default dtype is float64,
 *  else complex64, also for a float16 default); empty and meta tensors show it unless the
 *  dtype is the default dtype.
 *  Errors: CT_ERR_MISUSE for NULL tensor or out; those of ct_print_options_check;
 *  CT_ERR_NOT_IMPLEMENTED "printing tensors of layout torch.sparse_coo is not implemented
 *  by the tensor core" for other layouts; CT_ERR_NOMEM; device errors of the copy to cpu.
 *  *out is NULL on error. */
CT_API ct_status ct_tensor_repr(const ct_tensor *tensor, const ct_print_options *opts, char **out);

/** ct_tensor_repr under another name: `name(` instead of `tensor(` (PyTorch prints an
 *  instance of a Tensor subclass under its class name, indenting by that name's length).
 *  `name` NULL means "tensor". Errors: those of ct_tensor_repr. */
CT_API ct_status ct_tensor_repr_named(const ct_tensor *tensor, const ct_print_options *opts,
                                      const char *name, char **out);

/** Free a string ctensor returned (ct_tensor_repr). NULL is fine. */
CT_API void ct_string_free(char *s);

CT_EXTERN_C_END

#endif /* CTENSOR_PRINT_H */
