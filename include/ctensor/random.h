/* ctensor: random numbers: generators, manual_seed, rand, randn and randint.
 *
 * Generator: Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
 * SC'11), the counter-based generator PyTorch's CUDA backend and Random123 use. State is a
 * 64-bit seed (the key) and a 64-bit offset (how many 128-bit blocks were consumed), so a
 * state can be saved and restored exactly and calls from several threads each reserve
 * their own block range atomically. The values differ from torch's (which uses MT19937 on
 * the cpu); determinism per seed is what ctensor promises.
 *
 * Mapping to values: float32 takes the top 24 bits of a 32-bit word (k * 2^-24), float64
 * 53 bits of two words, float16 11 bits and bfloat16 8 bits, so every value is exactly
 * representable and rand() is always in [0, 1). randn uses Box-Muller in double precision
 * (two doubles per pair of normals) and rounds to the dtype once, so randn with a given
 * seed gives the same numbers, rounded, in every floating dtype. Complex dtypes draw real
 * and imaginary parts independently (randn: each with variance 1/2, as PyTorch). randint
 * maps 32-bit words onto the span with Lemire's multiply-and-reject (one word per value up to
 * a span of 2**32, two above), never through a double.
 */
#ifndef CTENSOR_RANDOM_H
#define CTENSOR_RANDOM_H

#include <stdint.h>

#include "ctensor/device.h"
#include "ctensor/dtype.h"
#include "ctensor/export.h"
#include "ctensor/layout.h"
#include "ctensor/status.h"
#include "ctensor/tensor.h"

CT_EXTERN_C_BEGIN

typedef struct ct_generator ct_generator;

/** The seed the default generator starts with (PyTorch's default cpu seed). */
#define CT_DEFAULT_SEED UINT64_C(67280421310721)

/** A new generator seeded with `seed` (offset 0). Free it with ct_generator_free.
 *  Errors: CT_ERR_NOMEM; CT_ERR_MISUSE for NULL out. */
CT_API ct_status ct_generator_new(uint64_t seed, ct_generator **out);
/** The device a generator made for `device` (torch.Generator(device=)) reports: generators
 *  draw on the host, so only cpu is accepted and its index is dropped (cpu:1 gives cpu, as
 *  PyTorch); NULL means cpu. Errors: CT_ERR_RUNTIME "Device type META is not supported for
 *  ctensor.Generator() api." (the type's upper-case name) for every other device type;
 *  CT_ERR_MISUSE for NULL out. */
CT_API ct_status ct_generator_device(const ct_device *device, ct_device *out);
/** Free a generator made by ct_generator_new; NULL and the default generator are ignored. */
CT_API void ct_generator_free(ct_generator *generator);
/** The process-wide default generator (borrowed; lives as long as the process). */
CT_API ct_generator *ct_default_generator(void);

/** Reseed: seed := `seed`, offset := 0 (torch.Generator.manual_seed). */
CT_API void ct_generator_manual_seed(ct_generator *generator, uint64_t seed);
/** The seed given last (torch.Generator.initial_seed). */
CT_API uint64_t ct_generator_initial_seed(const ct_generator *generator);
/** The full state, for saving and restoring (get_state / set_state). */
CT_API void ct_generator_get_state(const ct_generator *generator, uint64_t *seed, uint64_t *offset);
CT_API void ct_generator_set_state(ct_generator *generator, uint64_t seed, uint64_t offset);

/** torch.manual_seed: reseed the default generator. */
CT_API void ct_manual_seed(uint64_t seed);
/** torch.initial_seed: the default generator's seed. */
CT_API uint64_t ct_initial_seed(void);

/** Philox4x32-10 itself: the block for `counter` under `key` (exposed for tests against
 *  the published known-answer vectors). */
CT_API void ct_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);

/** torch.rand: uniform in [0, 1). `generator` NULL means the default one. dtype UNDEFINED
 *  is the default dtype; float16, bfloat16, float32, float64 and the complex dtypes are
 *  supported. Values are generated on the host and copied to the device; meta tensors
 *  consume no random numbers. Errors: CT_ERR_NOT_IMPLEMENTED "\"check_uniform_bounds\" not
 *  implemented for 'Int'" for other dtypes (empty tensors excepted, as PyTorch); those of
 *  ct_tensor_empty. New reference in *out. */
CT_API ct_status ct_tensor_rand(const int64_t *sizes, int64_t ndim, ct_generator *generator,
                                ct_dtype dtype, const ct_device *device, ct_layout layout,
                                ct_tensor **out);

/** torch.randn: standard normal. Errors as ct_tensor_rand, with "\"normal_kernel_cpu\" not
 *  implemented for 'Int'" (empty tensors too, as PyTorch). New reference in *out. */
CT_API ct_status ct_tensor_randn(const int64_t *sizes, int64_t ndim, ct_generator *generator,
                                 ct_dtype dtype, const ct_device *device, ct_layout layout,
                                 ct_tensor **out);

/** torch.randint: integers uniform in [low, high), every value equally likely (no modulo
 *  bias), over any span up to the whole int64 range. `generator` NULL means the default one;
 *  dtype UNDEFINED is int64; device NULL the default device. Every integral dtype, bool and
 *  float16, bfloat16, float32, float64 are supported; floating dtypes get the integers the
 *  dtype holds (bounds first moved inward to representable values, as PyTorch). Values are
 *  generated on the host and copied to the device; meta tensors consume no random numbers
 *  but are checked as any other. Errors, after those of ct_tensor_empty and in PyTorch's
 *  order and wording: CT_ERR_RUNTIME "random_ expects 'from' to be less than 'to', but got
 *  from=5 >= to=5"; for floating dtypes CT_ERR_RUNTIME "random_ expects 'from' casted to
 *  dtype to be less than 'to' casted to dtype, ..." when no representable value lies in the
 *  range; CT_ERR_RUNTIME "from is out of bounds for unsigned char" / "to - 1 is out of bounds
 *  for c10::Half" when low or high - 1 is outside the dtype (uint64: outside [0, 2**63));
 *  CT_ERR_RUNTIME "check_random_bounds handles only integral, floating-point and boolean
 *  types" for complex dtypes; CT_ERR_NOT_IMPLEMENTED "\"random_update_from_to\" not
 *  implemented for 'Float8_e4m3fn'" for the float8 and float4 dtypes. Empty tensors are
 *  checked too. A bound beyond the integers a floating dtype holds exactly (2**11 for
 *  float16, 2**8 bfloat16, 2**24 float32, 2**53 float64) raises PyTorch's warning through
 *  ct_warn. New reference in *out. */
CT_API ct_status ct_tensor_randint(int64_t low, int64_t high, const int64_t *sizes, int64_t ndim,
                                   ct_generator *generator, ct_dtype dtype,
                                   const ct_device *device, ct_layout layout, ct_tensor **out);

/** torch.rand_like: the input's shape, and its dtype and device unless given; strides as
 *  empty_like's for `format` (values are drawn in memory order). New reference in *out. */
CT_API ct_status ct_tensor_rand_like(const ct_tensor *tensor, ct_generator *generator,
                                     ct_dtype dtype, const ct_device *device,
                                     ct_memory_format format, ct_tensor **out);
/** torch.randn_like, as ct_tensor_rand_like. New reference in *out. */
CT_API ct_status ct_tensor_randn_like(const ct_tensor *tensor, ct_generator *generator,
                                      ct_dtype dtype, const ct_device *device,
                                      ct_memory_format format, ct_tensor **out);

CT_EXTERN_C_END

#endif /* CTENSOR_RANDOM_H */
