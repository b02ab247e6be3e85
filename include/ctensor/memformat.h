/* ctensor: memory formats (torch.memory_format) and the stride arithmetic behind them.
 *
 * As in PyTorch, a memory format is a request, not a property a tensor stores: a tensor
 * has sizes and strides, and whether it "is" channels-last is read off its strides. The
 * functions below work on plain arrays (sizes and strides in elements) so that every layer
 * (tensors, DLPack import, the Python module) applies the same rules; the tensor accessors
 * in tensor.h give the same answers from cached flags.
 *
 * Rules (PyTorch's c10 Contiguity.h and MemoryFormat.h): contiguous strides clamp zero sizes to one
 * ((2,0,4) -> (4,4,1)); channels-last strides do not ((2,0,4,5) -> (0,1,0,0)); contiguity ignores
 * the strides of size-1 dimensions and is true for every empty tensor; channels-last contiguity
 * exists for 4-D (channels_last) and 5-D (channels_last_3d) only.
 */
#ifndef CTENSOR_MEMFORMAT_H
#define CTENSOR_MEMFORMAT_H

#include <stdbool.h>
#include <stdint.h>

#include "ctensor/export.h"
#include "ctensor/status.h"

CT_EXTERN_C_BEGIN

/** Values are PyTorch's c10::MemoryFormat ordinals. */
typedef enum ct_memory_format {
    CT_MEMFMT_CONTIGUOUS = 0,       /**< torch.contiguous_format (C++ "Contiguous") */
    CT_MEMFMT_PRESERVE = 1,         /**< torch.preserve_format ("Preserve") */
    CT_MEMFMT_CHANNELS_LAST = 2,    /**< torch.channels_last ("ChannelsLast"), 4-D NHWC order */
    CT_MEMFMT_CHANNELS_LAST_3D = 3, /**< torch.channels_last_3d ("ChannelsLast3d"), 5-D */
} ct_memory_format;

/** The number of ct_memory_format values. */
#define CT_NUM_MEMORY_FORMATS 4

/** The most dimensions a tensor may have (NumPy's limit is 64 too). */
#define CT_MAX_DIMS 64

CT_API bool ct_memory_format_is_valid(ct_memory_format format);

/** The Python name without "torch.": "contiguous_format", "preserve_format",
 *  "channels_last", "channels_last_3d"; NULL for an invalid value. */
CT_API const char *ct_memory_format_name(ct_memory_format format);

/** PyTorch's C++ name used in its messages: "Contiguous", "Preserve", "ChannelsLast",
 *  "ChannelsLast3d"; NULL for an invalid value. */
CT_API const char *ct_memory_format_cpp_name(ct_memory_format format);

/** The strides a new tensor of `sizes` gets in `format` (PyTorch's empty_tensor_restride),
 *  written to `strides` (ndim entries).
 *  Errors: CT_ERR_RUNTIME "required rank 4 tensor to use channels_last format",
 *  "required rank 5 tensor to use channels_last_3d format", "unsupported memory format
 *  Preserve"; CT_ERR_OVERFLOW "Stride calculation overflowed"; CT_ERR_VALUE for more than
 *  CT_MAX_DIMS dims or a negative size ("Trying to create tensor with negative dimension
 *  -1: [-1, 3]"); CT_ERR_MISUSE for NULL arrays with ndim > 0 or an invalid format. */
CT_API ct_status ct_memory_format_strides(ct_memory_format format, const int64_t *sizes,
                                          int64_t ndim, int64_t *strides);

/** is_contiguous(memory_format) of sizes/strides: contiguous (and preserve) when the
 *  strides are the contiguous ones over the dims of size > 1, channels_last /
 *  channels_last_3d likewise in NHWC / NDHWC order (false unless 4-D / 5-D). PyTorch caches these
 *  with one twist this function applies too: a 5-D tensor that is channels_last_3d
 *  contiguous is so only when it is not also (2-D) channels-last contiguous, which a 5-D
 *  tensor never is. false for an invalid format or ndim outside 0..CT_MAX_DIMS. */
CT_API bool ct_strides_are_contiguous(const int64_t *sizes, const int64_t *strides, int64_t ndim,
                                      ct_memory_format format);

/** PyTorch's is_non_overlapping_and_dense: contiguous in some dimension order. */
CT_API bool ct_strides_are_non_overlapping_and_dense(const int64_t *sizes, const int64_t *strides,
                                                     int64_t ndim);

/** suggest_memory_format: ChannelsLast when the strides are "like channels last"
 *  (4-D), ChannelsLast3d when "like channels last 3d" (5-D), else Contiguous. With
 *  exact_match the strides must also equal the exact channels-last strides. */
CT_API ct_memory_format ct_strides_suggest_memory_format(const int64_t *sizes,
                                                         const int64_t *strides, int64_t ndim,
                                                         bool exact_match);

/** PyTorch's infer_dense_strides: dense strides that keep the dimension order of
 *  `strides`, written to `out` (ndim entries). Errors: CT_ERR_OVERFLOW "Stride calculation
 *  overflowed"; CT_ERR_MISUSE for NULL arrays with ndim > 0 or ndim outside 0..CT_MAX_DIMS. */
CT_API ct_status ct_infer_dense_strides(const int64_t *sizes, const int64_t *strides, int64_t ndim,
                                        int64_t *out);

CT_EXTERN_C_END

#endif /* CTENSOR_MEMFORMAT_H */
