/* ctensor: the safetensors file format (https://github.com/huggingface/safetensors).
 *
 * A file is an 8-byte little-endian header length N, N bytes of a JSON object, then the data:
 *   {"__metadata__": {"key": "value", ...},
 *    "name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...}
 * with offsets relative to the data's start. The header must describe the data exactly:
 * sorted by begin, the tensors follow one another without gaps or overlaps, start at 0 and
 * end at the file's end, and each covers exactly shape x dtype bytes. Dtype strings and
 * ctensor dtypes:
 *   BOOL U8 I8 U16 I16 U32 I32 U64 I64 F16 BF16 F32 F64 C64: bool uint8 int8 uint16 int16
 *   uint32 int32 uint64 int64 float16 bfloat16 float32 float64 complex64;
 *   F8_E4M3 F8_E5M2 F8_E4M3FNUZ F8_E5M2FNUZ F8_E8M0: the float8 dtypes of the same names
 *   (F8_E4M3 is float8_e4m3fn, F8_E8M0 float8_e8m0fnu);
 *   F4: float4_e2m1fn_x2 with the last dimension halved (the file counts 4-bit values, two
 *   to a byte; ctensor and PyTorch count bytes);
 *   F6_E2M3, F6_E3M2: valid in a file, but no ctensor dtype (ct_safetensors_tensor refuses).
 * complex32 and complex128 have no safetensors dtype (ct_safetensors_save refuses them).
 *
 * Errors: a malformed file is CT_ERR_VALUE with a message that starts as the safetensors
 * package's ("Error while deserializing header: ...") and says what is wrong and where (a
 * byte position in the header, or the tensor's name): a file shorter than 8 bytes, a header
 * longer than 100,000,000 bytes or than the file, invalid UTF-8 or JSON, anything but an
 * object at the top, a tensor without dtype/shape/data_offsets, an unknown dtype string,
 * negative or fractional numbers, a shape whose byte count overflows, offsets that overlap,
 * leave a gap, or do not end at the end of the file, a duplicate name, a metadata value that
 * is not a string, more than 64 dimensions, NUL characters in names. Nesting deeper than 64
 * levels in ignored values is refused. Files are read with the host's byte order, which
 * must be little-endian, as the format's.
 */
#ifndef CTENSOR_SAFETENSORS_H
#define CTENSOR_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "ctensor/dtype.h"
#include "ctensor/export.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

/** A parsed safetensors file: its header, and (when opened from a path) the mapped data. */
typedef struct ct_safetensors ct_safetensors;

/** One tensor of the header, in file order. Pointers are borrowed from the handle. */
typedef struct ct_safetensors_info {
    const char *name;       /* NUL-terminated UTF-8 */
    const char *format;     /* the file's dtype string, "F32" */
    ct_dtype dtype;         /* CT_DTYPE_UNDEFINED for F6_E2M3 and F6_E3M2 */
    int64_t ndim;           /* the file's shape (for F4: 4-bit values in the last dim) */
    const int64_t *shape;
    uint64_t begin, end;    /* byte offsets into the data */
} ct_safetensors_info;

/** Parse and check a whole file image (`size` bytes at `bytes`: length, header, data).
 *  The handle has no data: ct_safetensors_tensor refuses it. For checking headers (the
 *  fuzz target drives this). New handle in *out, freed by ct_safetensors_close.
 *  Errors: CT_ERR_VALUE for a malformed file (above); CT_ERR_NOMEM; CT_ERR_MISUSE for
 *  NULL arguments. */
CT_API ct_status ct_safetensors_parse(const void *bytes, size_t size, ct_safetensors **out);

/** Open a file: map it (read-only file, copy-on-write pages: writing a loaded tensor never
 *  changes the file) and parse it. Nothing of the data is read or copied: tensors made by
 *  ct_safetensors_tensor are views of the mapping, which stays mapped while the handle or
 *  any of those tensors lives. New handle in *out.
 *  Errors: CT_ERR_RUNTIME "No such file or directory (os error 2)"-style messages with the
 *  path for open/stat/mmap failures; those of ct_safetensors_parse. */
CT_API ct_status ct_safetensors_open(const char *path, ct_safetensors **out);

/** Free the handle (tensors already made keep the mapping). NULL is fine. */
CT_API void ct_safetensors_close(ct_safetensors *file);

/** The number of tensors (0 for NULL). */
CT_API size_t ct_safetensors_count(const ct_safetensors *file);

/** The i-th tensor's header entry, in file order. Errors: CT_ERR_INDEX for i >= count;
 *  CT_ERR_MISUSE for NULL arguments. */
CT_API ct_status ct_safetensors_info_at(const ct_safetensors *file, size_t i,
                                        ct_safetensors_info *out);

/** The i-th tensor: a contiguous cpu tensor viewing the mapped bytes (no copy); it keeps
 *  the mapping alive. New reference in *out.
 *  Errors: CT_ERR_INDEX for i >= count; CT_ERR_MISUSE for a handle from
 *  ct_safetensors_parse; CT_ERR_NOT_IMPLEMENTED "safetensors: dtype F6_E2M3 of 'w' has no
 *  ctensor dtype"; CT_ERR_VALUE "safetensors: F4 tensor 'w' of shape [3] has an odd last
 *  dimension; float4_e2m1fn_x2 holds pairs"; CT_ERR_NOMEM. */
CT_API ct_status ct_safetensors_tensor(const ct_safetensors *file, size_t i, ct_tensor **out);

/** The number of __metadata__ entries (0 for NULL or none). */
CT_API size_t ct_safetensors_metadata_count(const ct_safetensors *file);

/** The i-th metadata entry (header order; borrowed strings). Errors: CT_ERR_INDEX,
 *  CT_ERR_MISUSE. */
CT_API ct_status ct_safetensors_metadata_at(const ct_safetensors *file, size_t i,
                                            const char **key, const char **value);

/** Write `n` named tensors and `nmeta` metadata pairs (may be 0, with NULL arrays) to
 *  `path` (created or truncated). Tensors of any strides and device are written contiguous
 *  (a copy only where they are not contiguous cpu tensors); they are stored by descending
 *  itemsize, then name, and the header is padded with spaces to a multiple of 8 bytes, as
 *  the safetensors package writes. Names and metadata are UTF-8 and must not repeat.
 *  Errors: CT_ERR_TYPE "safetensors: dtype complex128 of 'w' has no safetensors dtype";
 *  CT_ERR_VALUE for a sparse tensor ("You are trying to save a sparse tensor: 'w' which
 *  this library does not support. You can make it a dense tensor before saving with
 *  `.to_dense()` but be aware this might make a much larger file than needed."), a
 *  float4_e2m1fn_x2 0-dim tensor, a repeated name or the name "__metadata__";
 *  CT_ERR_NOT_IMPLEMENTED "Cannot copy out of meta tensor; no data!"; CT_ERR_RUNTIME for
 *  file errors, with the path and the system's reason; CT_ERR_NOMEM; CT_ERR_MISUSE. */
CT_API ct_status ct_safetensors_save(const char *path, size_t n, const char *const *names,
                                     const ct_tensor *const *tensors, size_t nmeta,
                                     const char *const *keys, const char *const *values);

CT_EXTERN_C_END

#endif /* CTENSOR_SAFETENSORS_H */
