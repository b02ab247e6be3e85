/* CPU feature detection and the process-wide instruction-set level (include/ctensor/cpu.h).
 *
 * Detection runs once (call_once semantics through an atomic flag, cheap on the hot path).
 * The active level is read by every dispatching function, so it is a relaxed atomic. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ctensor/cpu.h"

static const char *const isa_names[CT_NUM_ISAS] = {"baseline", "avx2", "avx512"};

static atomic_int detected_isa = -1;
static atomic_int active_isa = -1;

#if (defined(__x86_64__) || defined(__i386__)) && defined(__clang__) && __clang_major__ < 16
#include <cpuid.h>
/* clang before 16 does not accept "f16c" in __builtin_cpu_supports: ask CPUID (leaf 1,
 * ECX bit 29) instead. */
static int has_f16c(void) {
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
}
#else
#define has_f16c() __builtin_cpu_supports("f16c")
#endif

static ct_cpu_isa detect(void) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        has_f16c())
        return CT_ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        has_f16c() && __builtin_cpu_supports("bmi2"))
        return CT_ISA_AVX2;
#endif
    return CT_ISA_BASELINE;
}

/* The CPU's level, capped at the highest level this build compiled (CMake's CT_ISA_MAX):
 * the dispatch tables have nothing above it. */
static ct_cpu_isa detect_built(void) {
    ct_cpu_isa d = detect();
#if !defined(CT_HAVE_ISA_AVX512)
    if (d == CT_ISA_AVX512)
        d = CT_ISA_AVX2;
#endif
#if !defined(CT_HAVE_ISA_AVX2)
    if (d == CT_ISA_AVX2)
        d = CT_ISA_BASELINE;
#endif
    return d;
}

ct_cpu_isa ct_cpu_isa_detected(void) {
    int d = atomic_load_explicit(&detected_isa, memory_order_acquire);
    if (d < 0) {
        d = (int)detect_built();
        atomic_store_explicit(&detected_isa, d, memory_order_release);
    }
    return (ct_cpu_isa)d;
}

static int level_from_env(int detected) {
    const char *env = getenv("CT_CPU_ISA");
    if (env == NULL || env[0] == '\0')
        return detected;
    for (int i = 0; i < CT_NUM_ISAS; i++) {
        if (strcmp(env, isa_names[i]) == 0)
            return i < detected ? i : detected; /* never above what the CPU can do */
    }
    return detected; /* an unknown value is ignored rather than guessed at */
}

ct_cpu_isa ct_cpu_isa_active(void) {
    int a = atomic_load_explicit(&active_isa, memory_order_relaxed);
    if (a < 0) {
        int want = level_from_env((int)ct_cpu_isa_detected());
        int expected = -1;
        /* another thread may have set it meanwhile; keep whichever came first */
        if (!atomic_compare_exchange_strong(&active_isa, &expected, want))
            want = expected;
        a = want;
    }
    return (ct_cpu_isa)a;
}

ct_status ct_cpu_set_isa(ct_cpu_isa isa) {
    if ((int)isa < 0 || (int)isa >= CT_NUM_ISAS)
        return ct_set_error(CT_ERR_MISUSE, "ct_cpu_set_isa: %d is not a ct_cpu_isa value", (int)isa);
    if ((int)isa > (int)ct_cpu_isa_detected())
        return ct_set_error(CT_ERR_VALUE, "CPU instruction set '%s' is not supported by this CPU",
                            isa_names[isa]);
    atomic_store_explicit(&active_isa, (int)isa, memory_order_relaxed);
    return CT_OK;
}

const char *ct_cpu_isa_name(ct_cpu_isa isa) {
    if ((int)isa < 0 || (int)isa >= CT_NUM_ISAS)
        return NULL;
    return isa_names[isa];
}
