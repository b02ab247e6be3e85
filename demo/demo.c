/* ctensor demo: the dtype table, and the promotion and casting examples of PyTorch's
 * "Tensor Attributes" page run as real tensor arithmetic, next to the results the page
 * prints.
 * Exits non-zero if any result differs from the documentation. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ctensor/ctensor.h"

/* The page's example operands: one-element tensors are "dimensioned", torch.tensor(1) is
 * zero-dim, and a bare Python number is a scalar. */
typedef struct named_operand {
    const char *name;
    ct_operand op;
} named_operand;

static const named_operand operands[] = {
    {"float_tensor", {CT_FLOAT32, CT_OPERAND_DIMENSIONED}},
    {"double_tensor", {CT_FLOAT64, CT_OPERAND_DIMENSIONED}},
    {"complex_float_tensor", {CT_COMPLEX64, CT_OPERAND_DIMENSIONED}},
    {"complex_double_tensor", {CT_COMPLEX128, CT_OPERAND_DIMENSIONED}},
    {"int_tensor", {CT_INT32, CT_OPERAND_DIMENSIONED}},
    {"long_tensor", {CT_INT64, CT_OPERAND_DIMENSIONED}},
    {"uint_tensor", {CT_UINT8, CT_OPERAND_DIMENSIONED}},
    {"bool_tensor", {CT_BOOL, CT_OPERAND_DIMENSIONED}},
    {"long_zerodim", {CT_INT64, CT_OPERAND_ZERO_DIM}},
    {"int_zerodim", {CT_INT32, CT_OPERAND_ZERO_DIM}},
    {"5", {CT_INT64, CT_OPERAND_SCALAR}},
    {"5.0", {CT_FLOAT64, CT_OPERAND_SCALAR}},
    {"1j", {CT_COMPLEX128, CT_OPERAND_SCALAR}},
};

static ct_operand lookup(const char *name) {
    for (size_t i = 0; i < sizeof operands / sizeof operands[0]; i++)
        if (strcmp(operands[i].name, name) == 0)
            return operands[i].op;
    return (ct_operand){CT_DTYPE_UNDEFINED, CT_OPERAND_SCALAR};
}

typedef struct promotion_example {
    const char *expr, *a, *b, *documented;
} promotion_example;

static const promotion_example promotions[] = {
    {"torch.add(5, 5).dtype", "5", "5", "int64"},
    {"(int_tensor + 5).dtype", "int_tensor", "5", "int32"},
    {"(int_tensor + long_zerodim).dtype", "int_tensor", "long_zerodim", "int32"},
    {"(long_tensor + int_tensor).dtype", "long_tensor", "int_tensor", "int64"},
    {"(bool_tensor + long_tensor).dtype", "bool_tensor", "long_tensor", "int64"},
    {"(bool_tensor + uint_tensor).dtype", "bool_tensor", "uint_tensor", "uint8"},
    {"(float_tensor + double_tensor).dtype", "float_tensor", "double_tensor", "float64"},
    {"(complex_float_tensor + complex_double_tensor).dtype", "complex_float_tensor",
     "complex_double_tensor", "complex128"},
    {"(bool_tensor + int_tensor).dtype", "bool_tensor", "int_tensor", "int32"},
    {"torch.add(long_tensor, float_tensor).dtype", "long_tensor", "float_tensor", "float32"},
    /* further examples, each checked against torch 1.13 */
    {"(int_tensor + 5.0).dtype", "int_tensor", "5.0", "float32"},
    {"(int_tensor + 1j).dtype", "int_tensor", "1j", "complex64"},
    {"(bool_tensor + 5).dtype", "bool_tensor", "5", "int64"},
};

typedef struct casting_example {
    const char *self, *other;
    int documented_allowed;
} casting_example;

static const casting_example castings[] = {
    {"float_tensor", "float_tensor", 1},        {"float_tensor", "int_tensor", 1},
    {"float_tensor", "uint_tensor", 1},         {"float_tensor", "bool_tensor", 1},
    {"float_tensor", "double_tensor", 1},       {"int_tensor", "long_tensor", 1},
    {"int_tensor", "uint_tensor", 1},           {"uint_tensor", "int_tensor", 1},
    {"int_tensor", "float_tensor", 0},          {"bool_tensor", "int_tensor", 0},
    {"bool_tensor", "uint_tensor", 0},          {"float_tensor", "complex_float_tensor", 0},
};

static void print_dtype_table(void) {
    printf("ctensor %s — dtypes (CPU level: %s)\n\n", ct_version_string(),
           ct_cpu_isa_name(ct_cpu_isa_active()));
    printf("%-18s %-8s %-17s %-5s %-5s %-5s %-5s %-5s\n", "dtype", "alias", "C++ name", "size",
           "float", "cplx", "sign", "shell");
    for (int i = 0; i < CT_NUM_DTYPES; i++) {
        ct_dtype d = (ct_dtype)i;
        const char *alias = ct_dtype_alias(d);
        printf("%-18s %-8s %-17s %-5zu %-5s %-5s %-5s %-5s\n", ct_dtype_name(d), alias ? alias : "",
               ct_dtype_cpp_name(d), ct_dtype_itemsize(d), ct_dtype_is_floating_point(d) ? "yes" : "",
               ct_dtype_is_complex(d) ? "yes" : "", ct_dtype_is_signed(d) ? "yes" : "",
               ct_dtype_is_shell(d) ? "yes" : "");
    }
}

/* A fresh operand as the page makes it: torch.ones(1, dtype=...) for the tensors,
 * torch.tensor(1, dtype=...) for the zero-dim ones, and a wrapped number for the bare Python
 * numbers. NULL (message in ct_last_error) on failure. */
static ct_tensor *make_operand(const char *name) {
    ct_operand op = lookup(name);
    ct_tensor *t = NULL;
    ct_status st;
    if (op.category == CT_OPERAND_SCALAR) {
        ct_scalar value = op.dtype == CT_INT64     ? ct_scalar_int(5)
                          : op.dtype == CT_FLOAT64 ? ct_scalar_float(5.0)
                                                   : ct_scalar_complex(0.0, 1.0);
        st = ct_tensor_wrapped_number(value, &t);
    } else {
        int64_t one = 1;
        st = ct_tensor_ones(&one, op.category == CT_OPERAND_ZERO_DIM ? 0 : 1, op.dtype, NULL,
                            CT_LAYOUT_STRIDED, &t);
    }
    return st == CT_OK ? t : NULL;
}

static void print_value(const ct_tensor *t) {
    char *repr = NULL;
    if (ct_tensor_repr(t, NULL, &repr) == CT_OK)
        printf("      = %s\n", repr);
    ct_string_free(repr);
}

/* Each example runs the real operation (add, or mul_ for the in-place casting examples) on
 * tensors built like the page's, then compares the result's dtype with the page. */
static int print_promotions(void) {
    int mismatches = 0;
    printf("\nPromotion examples: the operation computed on real tensors\n"
           "(documented dtype, then ctensor's)\n\n");
    for (size_t i = 0; i < sizeof promotions / sizeof promotions[0]; i++) {
        const promotion_example *e = &promotions[i];
        ct_tensor *a = make_operand(e->a), *b = make_operand(e->b), *sum = NULL;
        const char *name = a && b && ct_add(a, b, ct_scalar_int(1), &sum) == CT_OK
                               ? ct_dtype_name(ct_tensor_dtype(sum))
                               : ct_last_error();
        int same = strcmp(name, e->documented) == 0;
        mismatches += !same;
        printf("  >>> %-52s torch.%-10s ctensor.%-10s %s\n", e->expr, e->documented, name,
               same ? "ok" : "MISMATCH");
        if (sum)
            print_value(sum);
        ct_tensor_release(sum);
        ct_tensor_release(b);
        ct_tensor_release(a);
    }
    return mismatches;
}

static int print_castings(void) {
    int mismatches = 0;
    printf("\nCasting examples: in-place mul_ (the result type must be castable to self's dtype)\n\n");
    for (size_t i = 0; i < sizeof castings / sizeof castings[0]; i++) {
        const casting_example *e = &castings[i];
        ct_tensor *self = make_operand(e->self), *other = make_operand(e->other);
        int allowed = self && other && ct_mul_(self, other) == CT_OK;
        char line[96];
        snprintf(line, sizeof line, "%s *= %s", e->self, e->other);
        mismatches += allowed != e->documented_allowed;
        printf("  >>> %-40s %-9s %s%s\n", line, allowed ? "allowed" : "RuntimeError:",
               allowed ? "" : ct_last_error(), allowed == e->documented_allowed ? "" : "  MISMATCH");
        ct_tensor_release(other);
        ct_tensor_release(self);
    }
    return mismatches;
}

/* Division with each rounding mode (true, trunc, floor) on operands of both signs, the defined
 * INT_MIN / -1, and a clean error for integer division by zero. Returns the number of failed calls.
 */
static int print_division(void) {
    static const int32_t num[] = {7, -7, 7, -7, INT32_MIN}, den[] = {2, 2, -2, -2, -1};
    static const char *const modes[] = {"None", "'trunc'", "'floor'"};
    int64_t n = 5, failures = 0;
    ct_tensor *a = NULL, *b = NULL, *zero = NULL;
    printf("\nDivision: a = [7, -7, 7, -7, INT32_MIN], b = [2, 2, -2, -2, -1] (int32)\n\n");
    if (ct_tensor_from_data(&n, 1, CT_INT32, num, NULL, &a) != CT_OK ||
        ct_tensor_from_data(&n, 1, CT_INT32, den, NULL, &b) != CT_OK) {
        printf("  error: %s\n", ct_last_error());
        failures++;
        goto done;
    }
    for (int mode = CT_ROUNDING_NONE; mode <= CT_ROUNDING_FLOOR; mode++) {
        ct_tensor *q = NULL;
        printf("  torch.div(a, b, rounding_mode=%s)\n", modes[mode]);
        if (ct_div(a, b, (ct_rounding_mode)mode, &q) == CT_OK)
            print_value(q);
        else
            printf("      error: %s\n", ct_last_error()), failures++;
        ct_tensor_release(q);
    }
    ct_tensor *q = NULL;
    if (ct_tensor_wrapped_number(ct_scalar_int(0), &zero) == CT_OK &&
        ct_div(a, zero, CT_ROUNDING_FLOOR, &q) != CT_OK)
        printf("  a // 0 -> %s: %s\n", ct_status_name(ct_last_error_kind()), ct_last_error());
    else
        failures++;
    ct_tensor_release(q);
done:
    ct_tensor_release(zero);
    ct_tensor_release(b);
    ct_tensor_release(a);
    return (int)failures;
}

static void print_limits(void) {
    printf("\nfinfo (floating dtypes)\n\n");
    printf("  %-16s %4s %-14s %-14s %-14s %s\n", "dtype", "bits", "eps", "max", "tiny", "resolution");
    for (int i = 0; i < CT_NUM_DTYPES; i++) {
        ct_finfo f;
        if (!ct_dtype_is_floating_point((ct_dtype)i) || ct_finfo_of((ct_dtype)i, &f) != CT_OK)
            continue;
        if (!f.has_values) {
            printf("  %-16s %4d (no limits defined: packed pairs)\n", ct_dtype_name((ct_dtype)i), f.bits);
            continue;
        }
        printf("  %-16s %4d %-14g %-14g %-14g %g\n", ct_dtype_name((ct_dtype)i), f.bits, f.eps, f.max,
               f.tiny, f.resolution);
    }
    printf("\nConverting 0.1, 300.0, 1e6 and NaN from float32\n\n");
    const float values[] = {0.1f, 300.0f, 1e6f, __builtin_nanf("")};
    const ct_dtype targets[] = {CT_FLOAT16, CT_BFLOAT16, CT_FLOAT8_E4M3FN, CT_FLOAT8_E5M2, CT_INT8, CT_UINT8};
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        double back[4];
        unsigned char raw[4 * 8];
        if (ct_convert(targets[t], raw, CT_FLOAT32, values, 4) != CT_OK ||
            ct_convert(CT_FLOAT64, back, targets[t], raw, 4) != CT_OK) {
            printf("  %-16s error: %s\n", ct_dtype_name(targets[t]), ct_last_error());
            continue;
        }
        printf("  %-16s %-12g %-12g %-12g %g\n", ct_dtype_name(targets[t]), back[0], back[1], back[2], back[3]);
    }
}

int main(void) {
    print_dtype_table();
    int mismatches = print_promotions() + print_castings() + print_division();
    print_limits();
    printf("\n%s\n", mismatches ? "Some results differ from the documentation." :
                                  "All results match the documentation.");
    return mismatches ? 1 : 0;
}
