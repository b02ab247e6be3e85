/* The bfloat16 matrix product on AVX512-BF16 (gemm_bf16.c, Note [bf16 gemm]). */
#ifndef CT_KERNELS_GEMM_BF16_H
#define CT_KERNELS_GEMM_BF16_H

#include <stdbool.h>

#include "kernels/gemm.h"

/* Whether ct_gemm_bf16_run may be called: the build has the kernel, the CPU has AVX-512
 * F/BW/VL and AVX512-BF16, and the active ISA level (CT_CPU_ISA, ct_cpu_set_isa) is
 * avx512. Lowering the level forces the float32 (sgemm) path. */
bool ct_gemm_bf16_usable(void);

/* ct_gemm_run for g->dtype == CT_BFLOAT16 with batch, m, n > 0; only when
 * ct_gemm_bf16_usable(). CT_ERR_NOMEM when a packing buffer cannot be had. */
ct_status ct_gemm_bf16_run(const ct_gemm_args *g);

#endif /* CT_KERNELS_GEMM_BF16_H */
