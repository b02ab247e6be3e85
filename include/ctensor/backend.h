/* ctensor: the backend plugin interface.
 *
 * A backend provides memory and data movement for one device type. cpu (host memory through
 * the allocator of alloc.h) and meta (no memory at all) are built in and always registered.
 * A program adds others with ct_backend_register: a real accelerator under its own type
 * (cuda, xpu, ...) or its own device under PrivateUse1, named as it likes (PyTorch's
 * torch.utils.rename_privateuse1_backend): "npu:0" then parses, prints and allocates like
 * a built-in device. Everything above the device layer reaches backends only through the
 * device functions of device.h, which check devices and indices before calling a slot.
 *
 * Slot conventions: `ctx` is the backend's `context`; `index` is the concrete device index
 * (always 0..device_count-1; -1 for backends flagged CT_BACKEND_INDEXLESS). A slot that
 * fails returns a status other than CT_OK after setting a message with ct_set_error. Device
 * pointers must support byte offsets (dst + n addresses n bytes further, as in CUDA), since
 * the layers above copy parts of allocations.
 *
 * Threads: slots may be called from any thread, concurrently. Registration is thread-safe;
 * ct_backend_unregister must not race with use of that backend (it is for tests and
 * shutdown).
 */
#ifndef CTENSOR_BACKEND_H
#define CTENSOR_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctensor/device.h"
#include "ctensor/dtype.h"
#include "ctensor/export.h"
#include "ctensor/status.h"

CT_EXTERN_C_BEGIN

/** The version of struct ct_backend this header describes; set `api_version` to it. Slots
 *  are only ever appended, and a later ctensor accepts every earlier version, except that a
 *  version-2 backend may not set `launch`: version 3 widened ct_kernel_launch (four operands,
 *  more kinds), so a launch slot compiled against version 2 would misread it. */
#define CT_BACKEND_API_VERSION 3

/** Backend flags. */
enum {
    /** Devices of this type carry no index (like cpu and meta): any index given is dropped
     *  when memory is allocated, and slots receive index -1. */
    CT_BACKEND_INDEXLESS = 1u << 0,
    /** Device pointers are host memory: ctensor may run its host kernels (element-wise
     *  arithmetic) on them directly. Without it, such operations on this device type fail
     *  with CT_ERR_NOT_IMPLEMENTED. */
    CT_BACKEND_HOST_ACCESSIBLE = 1u << 1
};

/* ---- kernels on a backend's own memory (API version 2; four operands and more kinds in 3)  */

/** The most operands and dims of one launch (the iterator's limits). Four operands since API
 *  version 3: an output and three inputs (where, clamp with tensor bounds, lerp, ...). */
#define CT_LAUNCH_MAX_OPERANDS 4
#define CT_LAUNCH_MAX_DIMS 64

/** What a launch computes. */
typedef enum ct_launch_kind {
    /** out = in, converting dtype[1] to dtype[0] element by element as the cpu copy does
     *  (copy_, to, type conversion on the device). Two operands. */
    CT_LAUNCH_COPY = 0,
    /** out = a <binop> b through the math dtype (three operands), as the cpu kernels do. */
    CT_LAUNCH_BINARY = 1,
    /* API version 3. A backend answers a kind it has no kernel for with
     * CT_ERR_NOT_IMPLEMENTED, as for a missing op or dtype of the kinds above. */
    /** out = f(in) for a unary.def op (two operands). */
    CT_LAUNCH_UNARY = 2,
    /** an op of ternary.def (up to four operands). */
    CT_LAUNCH_TERNARY = 3,
    /** a reduction over the dims where the output's stride is 0. */
    CT_LAUNCH_REDUCE = 4,
    /** cumsum / cumprod: an in-place scan of a dense buffer (fields `scan_*` below). */
    CT_LAUNCH_SCAN = 5
} ct_launch_kind;

/** Launch flags. */
enum {
    /** BINARY: b is one element broadcast over everything; float16 / bfloat16 mul and div
     *  then read it in float32 from its own dtype instead of rounding it first. */
    CT_LAUNCH_B_IS_SCALAR = 1u << 0,
    /** UNARY ROUND: round(decimals=) with `decimals` (API version 3, appended). */
    CT_LAUNCH_ROUND_DECIMALS = 1u << 1
};

/** One element-wise operation on memory of one device, laid out by ctensor's iterator:
 *  dtypes and shapes are settled, the output exists, overlap was checked. The kernel's job
 *  is NumPy's inner-loop contract over `ndim` dims. */
typedef struct ct_kernel_launch {
    ct_launch_kind kind;
    /** BINARY: the CT_OP_KERNEL row of ctensor/ops.def, counted from 0 in file order
     *  (ADD 0, MUL 1, DIV 2, DIV_TRUNC 3, DIV_FLOOR 4, then any added later). */
    int32_t binop;
    const char *name;  /**< the op's name, for messages ("add", "copy_") */
    uint32_t flags;    /**< CT_LAUNCH_* flags */
    int32_t noperands; /**< 2 (COPY) or 3 (BINARY); operand 0 is the output */
    ct_dtype dtype[CT_LAUNCH_MAX_OPERANDS]; /**< each operand's dtype in memory */
    /** BINARY: the computation dtype (inputs are rounded to it before the math; the result
     *  is rounded to it before the cast to dtype[0]). COPY: dtype[0]. */
    ct_dtype compute;
    /** BINARY: the dtype the arithmetic runs in: float32 for float16 and bfloat16,
     *  complex64 for complex32, otherwise `compute`. COPY: dtype[0]. */
    ct_dtype math;
    /** BINARY ADD: whether alpha is used, and its value in the math dtype's own bytes (bool
     *  as one byte, integers, float32, float64, complex as two floats or doubles).
     *  Subtraction arrives as ADD with a negated alpha. */
    bool has_alpha;
    unsigned char alpha[16];
    char *data[CT_LAUNCH_MAX_OPERANDS]; /**< address of element 0 of each operand */
    /** The loop: `ndim` dims, innermost (fastest) first, size-1 dims dropped and adjacent
     *  dims coalesced; ndim 0 with numel 1 is a single element. Strides are in BYTES, 0 for
     *  broadcast dims, never negative. */
    int32_t ndim;
    int64_t numel;
    int64_t shape[CT_LAUNCH_MAX_DIMS];
    int64_t strides[CT_LAUNCH_MAX_OPERANDS][CT_LAUNCH_MAX_DIMS];
    /* ---- UNARY ---- */
    /** UNARY: the ct_unop value, the row of ctensor/unary.def counted from 0 in file order
     *  (NEG 0, POSITIVE 1, ABS 2, ...). dtype[0] is the output's, dtype[1] the input's;
     *  `compute` is the computation dtype (the iterator's common dtype: the result rounds to
     *  it, or to bool for logical_not and to the real dtype for abs of complex) and `math`
     *  the dtype the element function runs in (float32 for float16 and bfloat16, complex64
     *  for complex32, otherwise `compute`). */
    int32_t unop;

    /* ---- REDUCE: two operands, 0 the output (byte stride 0 along the reduced dims, which
     * is how a dim is known to be reduced), 1 the input; shape and numel are the input's
     * (numel > 0: the core fills the identity for an empty input itself). Each output
     * element is the reduction of its input elements, converted from the accumulation
     * dtype to dtype[0] as the cpu's copy converts. */
    /** CT_LAUNCH_RED_* below. */
    int32_t reduce_op;
    /** The accumulators' dtype: CT_INT64 (bool and integer sums and products, wrapping;
     *  max / min of integers; all / any / count_nonzero), CT_FLOAT64 (float sums, float64
     *  products, max / min of floats), CT_FLOAT32 (float32, float16 and bfloat16 products,
     *  each step rounded to float32 as on the cpu). */
    ct_dtype acc;
    /** MEAN (a SUM): the count the sum is divided by after its rounding to dtype[0]: in
     *  float32 for float32, float16 and bfloat16 outputs, in double for float64 (as the
     *  cpu's sum(...).div_(count)); 0: no division. */
    int64_t divisor;
    /* ---- TERNARY (API version 3): the element is computed as src/kernels/ternary_plan.h
     * does. noperands is 4, or 3 for the two-input rows (clamp_min, clamp_max: no third
     * input). compute: the iterator's common dtype; math: float32 for float16 and bfloat16
     * arithmetic, otherwise compute (where and masked_fill select bits in compute). An input
     * tensor reaches math through compute when its dtype is neither (an int64 tensor of a
     * float16 clamp rounds to float16 first); a Python number (ter_number) goes straight to
     * math; where's condition and masked_fill's mask are read in their own dtype as != 0.
     * The result rounds to compute, then converts to dtype[0]. ---- */
    /** TERNARY: the CT_TERNARY row of ctensor/ternary.def, counted from 0 in file order
     *  (WHERE 0, CLAMP 1, CLAMP_MIN 2, CLAMP_MAX 3, LERP 4, ADDCMUL 5, ADDCDIV 6,
     *  MASKED_FILL 7, then any added later). */
    int32_t terop;
    /** TERNARY: bit k set: input k (operand k + 1) is given by value in ter_scalar[k] (a
     *  0-dim cpu tensor or Python number joining a device op); its data pointer is NULL and
     *  its strides are 0. */
    uint32_t ter_by_value;
    /** TERNARY: bit k set: input k is a Python number (wrapped number). */
    uint32_t ter_number;
    /** TERNARY: the by-value inputs, already converted to the dtype the element reads them
     *  in (math; the condition / mask as its own dtype), in that dtype's own bytes. */
    unsigned char ter_scalar[3][16];
    /** TERNARY addcmul / addcdiv: `value` in the math dtype's own bytes (as alpha). */
    unsigned char ter_value[16];
    /* ---- REDUCE with more than one number per accumulator (API version 3, appended):
     * reduce_op CT_LAUNCH_RED_ARGMAX .. CT_LAUNCH_RED_LOGSUMEXP below, computed as
     * src/kernels/reduce2_elem.h does; acc and divisor are unused. noperands is 2, or 3 for
     * a second output: operand 2 has operand 0's shape and zero strides (its own byte
     * strides). ARGMAX / ARGMIN: operand 0 the int64 indices, operand 2 the values in the
     * input's dtype; the reduced dims come in their logical order, innermost first, so
     * that an element's position among them (counted innermost fastest) is its index (the
     * core never merges or reorders them otherwise). VAR: operand 0 the variance (or its
     * square root), operand 2 the mean, both converted from double. NANMEAN, LOGSUMEXP:
     * operand 0 only. ---- */
    /** VAR: the correction subtracted from the count (unbiased=True is 1). */
    double red_correction;
    /** VAR: CT_LAUNCH_RED_SQRT for std. */
    uint32_t red_flags;
    /* ---- BINARY classifications and isclose, UNARY round(decimals=) (API version 3,
     * appended). A BINARY launch of the EQ row with `cmpop` != 0 is one of these instead of
     * eq: the classifications (isnan .. isreal) read operand 1 only (operand 2 is the same
     * tensor); isclose compares operands 1 and 2 with cmp_rtol, cmp_atol, cmp_equal_nan as
     * the cpu does (each step rounded to float16 / bfloat16 where that is `compute`). The
     * result is 0/1 converted to dtype[0]. ---- */
    /** BINARY: 0 (the binop itself) or CT_LAUNCH_CMP_*. */
    int32_t cmpop;
    double cmp_rtol, cmp_atol; /**< isclose's tolerances (>= 0) */
    bool cmp_equal_nan;        /**< isclose: NaN equals NaN */
    /** UNARY ROUND with CT_LAUNCH_ROUND_DECIMALS: the decimals (not 0; float computation
     *  dtypes only). */
    int64_t decimals;
    /* ---- SCAN (API version 3, appended): cumsum / cumprod. One operand (noperands 1): a
     * dense, C-contiguous buffer of dtype[0] (the accumulation dtype: CT_INT64, wrapping;
     * CT_FLOAT64; CT_COMPLEX128 sums) seen as scan_outer x scan_len x scan_inner elements,
     * scanned in place along the middle dim: x[o, 0, i] = identity (+ or *) x[o, 0, i] (a
     * sum's +0.0 turns -0.0 into +0.0, as PyTorch), then x[o, r, i] = x[o, r - 1, i] (+ or *)
     * x[o, r, i] for r = 1 .. scan_len - 1, in that order (the cpu's order: the same bits).
     * ndim is 1, shape[0] = numel = the product, strides[0][0] the itemsize (ndim 0 for
     * one element). The core
     * converts the input into the buffer and the buffer into the output with COPY launches,
     * as the cpu does with its own buffer; scan_len >= 1 (a 0-dim input is a copy). ---- */
    int32_t scan_op; /**< CT_LAUNCH_SCAN_SUM or CT_LAUNCH_SCAN_PROD */
    int64_t scan_outer, scan_len, scan_inner;
} ct_kernel_launch;

/** SCAN ops (ct_kernel_launch.scan_op). */
enum { CT_LAUNCH_SCAN_SUM = 0, CT_LAUNCH_SCAN_PROD = 1 };

/** BINARY classifications and isclose (ct_kernel_launch.cmpop). isposinf / isneginf are
 *  never launched for complex inputs (the core refuses them first). */
enum {
    CT_LAUNCH_CMP_ISNAN = 1,
    CT_LAUNCH_CMP_ISINF = 2,
    CT_LAUNCH_CMP_ISFINITE = 3,
    CT_LAUNCH_CMP_ISPOSINF = 4,
    CT_LAUNCH_CMP_ISNEGINF = 5,
    CT_LAUNCH_CMP_ISREAL = 6,
    CT_LAUNCH_CMP_ISCLOSE = 7
};

/** REDUCE ops (ct_kernel_launch.reduce_op). Floats: NaN propagates through MAX and MIN;
 *  NANSUM skips NaN; ALL, ANY and COUNT_NONZERO test x != 0 (NaN is nonzero). */
enum {
    CT_LAUNCH_RED_SUM = 0,
    CT_LAUNCH_RED_PROD = 1,
    CT_LAUNCH_RED_MAX = 2,
    CT_LAUNCH_RED_MIN = 3,
    CT_LAUNCH_RED_ALL = 4,
    CT_LAUNCH_RED_ANY = 5,
    CT_LAUNCH_RED_NANSUM = 6,
    CT_LAUNCH_RED_COUNT_NONZERO = 7,
    CT_LAUNCH_RED_NUM_OPS /* the ops of one-number accumulators (src/kernels/reduce_elem.h) */
};

/** REDUCE ops whose accumulator carries more than one number (src/kernels/reduce2_elem.h;
 *  the operands and fields at the end of ct_kernel_launch). ARGMAX / ARGMIN: the index of
 *  the first NaN, else of the first largest (smallest) element, and that element; VAR:
 *  sum((x - mean)^2) / max(0, N - red_correction) and the mean; NANMEAN: the mean of the
 *  non-NaN elements (nan when there are none); LOGSUMEXP: log(sum(exp(x)))
 *  computed stably (an infinite or NaN max is the result). */
enum {
    CT_LAUNCH_RED_ARGMAX = 8,
    CT_LAUNCH_RED_ARGMIN = 9,
    CT_LAUNCH_RED_VAR = 10,
    CT_LAUNCH_RED_LOGSUMEXP = 11,
    CT_LAUNCH_RED_NANMEAN = 12, /**< the mean of the non-NaN elements (VAR's accumulator) */
    CT_LAUNCH_RED2_END
};

/** ct_kernel_launch.red_flags: VAR writes the square root (std). */
#define CT_LAUNCH_RED_SQRT 1u

/** The longest PrivateUse1 name ctensor accepts, in bytes. */
#define CT_BACKEND_MAX_NAME 63

typedef struct ct_backend {
    int32_t api_version;        /**< CT_BACKEND_API_VERSION */
    ct_device_type device_type; /**< the type this backend serves (not cpu or meta) */
    /** PrivateUse1: the device name to register (lower-case ASCII letters and '_', at most
     *  CT_BACKEND_MAX_NAME bytes; see ct_privateuse1_set_name). Other types: NULL or the
     *  type's own name. Copied at registration. */
    const char *name;
    uint32_t flags; /**< CT_BACKEND_* flags */
    void *context;  /**< passed as `ctx` to every slot */

    /** (optional) Number of devices; NULL means 1. Values above 128 count as 128. */
    int32_t (*device_count)(void *ctx);
    /** (optional, with set_device) The calling thread's current device index. When both are
     *  NULL ctensor keeps a current index per thread itself (0 at start). */
    int32_t (*get_device)(void *ctx);
    /** (optional, with get_device) Make `index` the calling thread's current device. */
    ct_status (*set_device)(void *ctx, int32_t index);

    /** (required) Allocate `size` bytes (maybe 0) aligned to `align` (power of two <= 4096)
     *  on device `index`; store the pointer in *out. */
    ct_status (*allocate)(void *ctx, int32_t index, size_t size, size_t align, void **out);
    /** (required) Free a pointer from allocate with its size and alignment. */
    void (*free)(void *ctx, int32_t index, void *ptr, size_t size, size_t align);
    /** (required) Copy n > 0 bytes from host memory `src` to `dst` on device `index`. */
    ct_status (*copy_h2d)(void *ctx, int32_t index, void *dst, const void *src, size_t n);
    /** (required) Copy n > 0 bytes from `src` on device `index` to host memory `dst`. */
    ct_status (*copy_d2h)(void *ctx, int32_t index, void *dst, const void *src, size_t n);
    /** (optional) Copy n > 0 bytes between two devices of this type (maybe the same one;
     *  the ranges may overlap then). NULL: ctensor stages through host memory in chunks. */
    ct_status (*copy_d2d)(void *ctx, int32_t dst_index, void *dst, int32_t src_index,
                          const void *src, size_t n);
    /** (optional) Fill n > 0 bytes with the pattern (1..64 bytes; n is a multiple of it).
     *  NULL: ctensor fills a host buffer and copies it with copy_h2d. */
    ct_status (*fill)(void *ctx, int32_t index, void *dst, size_t n, const void *pattern,
                      size_t pattern_size);
    /** (optional) Wait for pending work on device `index`. NULL: nothing to wait for. */
    ct_status (*synchronize)(void *ctx, int32_t index);

    /* ---- API version 2 (a version-1 backend has none of these: ctensor treats them as
     * NULL) ---- */

    /** (optional) Run one element-wise operation on device `index`. With it, ctensor's
     *  element-wise ops and dtype-converting copies run on this device's memory even when it
     *  is not CT_BACKEND_HOST_ACCESSIBLE (without either, they fail with
     *  CT_ERR_NOT_IMPLEMENTED). The slot may run asynchronously (in stream order) as long as
     *  later slots of this backend (copies, launches, synchronize) see its results. It fails
     *  with ct_set_error, e.g. CT_ERR_RUNTIME "ZeroDivisionError" for an integer division by
     *  zero, CT_ERR_NOT_IMPLEMENTED for a kernel it lacks. */
    ct_status (*launch)(void *ctx, int32_t index, const ct_kernel_launch *launch);
    /** (optional) The message of the CT_ERR_RUNTIME error when a device of this type is
     *  needed but device_count is 0: a string that stays valid while the backend is
     *  registered (cuda: PyTorch's "Found no NVIDIA driver on your system. ..."). NULL, or a
     *  NULL result: "No <type> devices are available". */
    const char *(*no_devices_message)(void *ctx);
} ct_backend;

/** Register a backend for `backend->device_type`. The struct is copied (it need not stay
 *  alive); `context` must stay valid until the backend is unregistered. For PrivateUse1 the
 *  name is registered first, with ct_privateuse1_set_name's rules and errors.
 *  Errors: CT_ERR_MISUSE for NULL, an api_version this library does not know ("Backend
 *  'npu' has API version 9, but this ctensor supports versions 1 to 2"), cpu or meta, an
 *  invalid type, a missing required slot ("Backend 'npu' lacks the required slot
 *  'allocate'"), get_device without set_device or the reverse, or a name that is not the
 *  type's own; CT_ERR_RUNTIME "A backend is already registered for device type <name>". */
CT_API ct_status ct_backend_register(const ct_backend *backend);

/** Remove the backend of a type, for tests and shutdown: it must not be used concurrently,
 *  and every allocation made through it must have been freed. Unregistering PrivateUse1
 *  also forgets its name (even when only a name was set), so a test may register another.
 *  Errors: CT_ERR_MISUSE for cpu, meta or an invalid type; CT_ERR_RUNTIME "No backend is
 *  registered for device type <name>" (nothing to remove) and "Cannot unregister the
 *  backend of device type <name>: <n> allocations are still live" (nothing changes). */
CT_API ct_status ct_backend_unregister(ct_device_type type);

/** true when a backend is registered for the type (always for cpu and meta). */
CT_API bool ct_backend_is_registered(ct_device_type type);

/** torch.utils.rename_privateuse1_backend(name): from now on `name` parses and prints as
 *  PrivateUse1 ("privateuseone" keeps parsing too). Setting the same name again is allowed.
 *  Errors (CT_ERR_RUNTIME): "torch.register_privateuse1_backend() has already been set!
 *  Current backend: <old>" for a different name; "Cannot register privateuse1 backend with
 *  in-tree device name: <name>" for any name the parser already knows (PyTorch checks only
 *  cpu, cuda, hip, mps, xpu, mtia; ctensor refuses all, since they could never parse as
 *  PrivateUse1), except "privateuseone" itself; "Invalid privateuse1 backend name '<name>':
 *  use 1 to 63 lower-case ASCII letters or '_'" (PyTorch would accept names that can never
 *  parse). CT_ERR_MISUSE for NULL. */
CT_API ct_status ct_privateuse1_set_name(const char *name);

/** The registered PrivateUse1 name, or NULL when none is set. Static string. */
CT_API const char *ct_privateuse1_name(void);

/* ---- an accelerator emulated in host memory (for testing and development) -------------- */

/** Fill `*out` with a backend that emulates `device_count` devices of `type` in host memory,
 *  without registering it, so that a program may adjust it first: drop optional slots to
 *  exercise ctensor's own fallbacks, or wrap slots to count or fail calls. The backend keeps
 *  a current device per thread (device 0 until set), allocates through the allocator of
 *  alloc.h, records every allocation with its device index, and refuses copies and fills
 *  whose device pointers are not memory of the device named (CT_ERR_RUNTIME "host-emulated
 *  npu: 8 bytes at 0x... are not memory of device 1"), as a real device would fault. For
 *  PrivateUse1 the name is the registered one (ct_privateuse1_set_name), else
 *  "privateuseone". One emulated state exists per type; making a new backend resets it.
 *  Not for production: it moves no data off the host and is slower than the cpu backend.
 *  Errors: CT_ERR_MISUSE for NULL out, cpu, meta or an invalid type; CT_ERR_VALUE "Cannot
 *  emulate 200 devices: the count must be between 0 and 128"; CT_ERR_RUNTIME "A backend is
 *  already registered for device type <name>". */
CT_API ct_status ct_backend_host_emulated(ct_device_type type, int device_count, ct_backend *out);

/** ct_backend_host_emulated, as a real accelerator looks from the host: not
 *  CT_BACKEND_HOST_ACCESSIBLE, no launch slot, and device addresses that fault if the host
 *  reads or writes them directly (bit 62 set: non-canonical on x86-64 and AArch64), which
 *  the backend's own slots undo. Every op then reaches the memory through the copy slots (ops
 *  without kernels run through host memory), and a host loop that reads device memory
 *  crashes instead of passing by accident. A program may add a launch slot that translates
 *  the addresses with ct_backend_host_emulated_host_address. Errors: those of
 *  ct_backend_host_emulated. */
CT_API ct_status ct_backend_host_emulated_opaque(ct_device_type type, int device_count,
                                                 ct_backend *out);

/** The host address behind a device address of an emulated backend (itself for the plain
 *  one, the address without its tag for the opaque one). Never fails. */
CT_API void *ct_backend_host_emulated_host_address(const void *device_ptr);

/** ct_backend_host_emulated, then ct_backend_register: after
 *  `ct_privateuse1_set_name("npu"); ct_backend_register_host_emulated(CT_DEVICE_PRIVATEUSEONE,
 *  4);` the devices npu:0 .. npu:3 exist. Unregister with ct_backend_unregister. Errors: those
 *  of both functions. */
CT_API ct_status ct_backend_register_host_emulated(ct_device_type type, int device_count);

CT_EXTERN_C_END

#endif /* CTENSOR_BACKEND_H */
