/* ctensor: CPU instruction-set levels and run-time dispatch.
 *
 * Hot loops are compiled several times (baseline x86-64, AVX2 + F16C + FMA, AVX-512) and
 * one copy is chosen at run time from what the CPU supports. The environment variable
 * CT_CPU_ISA=baseline|avx2|avx512, read once at first use, or ct_cpu_set_isa(), forces a
 * lower level, so every level can be tested on one machine. Non-x86 builds have only the
 * baseline level.
 */
#ifndef CTENSOR_CPU_H
#define CTENSOR_CPU_H

#include "ctensor/export.h"
#include "ctensor/status.h"

CT_EXTERN_C_BEGIN

typedef enum ct_cpu_isa {
    CT_ISA_BASELINE = 0, /**< portable C, whatever the compiler's default target allows */
    CT_ISA_AVX2 = 1,     /**< x86-64-v3: AVX2, FMA, F16C */
    CT_ISA_AVX512 = 2,   /**< x86-64-v4: AVX-512 F/BW/DQ/VL */
} ct_cpu_isa;

#define CT_NUM_ISAS 3

/** The best level this CPU (and this build) supports. */
CT_API ct_cpu_isa ct_cpu_isa_detected(void);

/** The level in use: the detected one, lowered by CT_CPU_ISA or ct_cpu_set_isa(). */
CT_API ct_cpu_isa ct_cpu_isa_active(void);

/** Use `isa` from now on (process-wide; call it before starting threads).
 *  Errors: CT_ERR_VALUE "CPU instruction set 'avx512' is not supported by this CPU" when
 *  `isa` is above the detected level; CT_ERR_MISUSE for an invalid value. */
CT_API ct_status ct_cpu_set_isa(ct_cpu_isa isa);

/** "baseline", "avx2", "avx512"; NULL for an invalid value. */
CT_API const char *ct_cpu_isa_name(ct_cpu_isa isa);

CT_EXTERN_C_END

#endif /* CTENSOR_CPU_H */
