/* The table-driven fault-injection driver of test_fault_all.c and test_fault_ops.c: each
 * case is an operation, optionally on an in-place / out= `target` that its prep makes fresh
 * (fault off) before every attempt. For each case, fail allocation 1, 2, ... until the call
 * goes through; every failure must return CT_ERR_NOMEM with the result NULL, leak nothing and
 * leave the target's metadata as it was, and the final success must release cleanly.
 * Header-only with file-local state (via fault_alloc.h): include it from one test file per
 * executable, after cmocka and the ctensor headers. */
#ifndef CT_TEST_FAULT_TABLE_H
#define CT_TEST_FAULT_TABLE_H

#include <stdlib.h>
#include <string.h>

#include "fault_alloc.h"

/* An in-place / out= target, made fresh before each attempt by the case's prep. */
static ct_tensor *target;

typedef struct fault_case {
    const char *name;
    ct_status (*op)(ct_tensor **out);
    ct_status (*prep)(void); /* makes `target` (fault off); NULL: none */
    bool none;               /* must allocate nothing (so it cannot fail with NOMEM) */
} fault_case;

/* The case's name is its function's without the "op_" prefix. */
#define CASE(fn)                                                                                   \
    { &(#fn)[3], fn, NULL, false }
#define CASE_ON(fn, prep)                                                                          \
    { &(#fn)[3], fn, prep, false }
/* In-place forms whose target needs no resize allocate nothing (the iterator keeps its
 * state inline): the test holds them to that. */
#define CASE_NONE(fn, prep)                                                                        \
    { &(#fn)[3], fn, prep, true }

/* What an in-place or out= target must keep when the call fails. */
typedef struct fault_meta {
    int64_t ndim, offset, sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    ct_dtype dtype;
    ct_device device;
    const ct_storage *storage;
} fault_meta;

static fault_meta fault_meta_of(const ct_tensor *t) {
    fault_meta m;
    memset(&m, 0, sizeof m);
    m.ndim = ct_tensor_dim(t);
    m.offset = ct_tensor_storage_offset(t);
    memcpy(m.sizes, ct_tensor_sizes(t), sizeof(int64_t) * (size_t)m.ndim);
    memcpy(m.strides, ct_tensor_strides(t), sizeof(int64_t) * (size_t)m.ndim);
    m.dtype = ct_tensor_dtype(t);
    m.device = ct_tensor_device(t);
    m.storage = ct_tensor_storage(t);
    return m;
}

/* Fail allocation 1, 2, ... of `c` until it succeeds; returns the failures injected. */
static long fault_drive(const fault_case *c) {
    for (long n = 1;; n++) {
        long base = live_allocs;
        if (c->prep != NULL && c->prep() != CT_OK)
            fail_msg("%s: prep failed: %s", c->name, ct_last_error());
        fault_meta before = c->prep != NULL ? fault_meta_of(target) : (fault_meta){0};
        long held = live_allocs;
        ct_tensor *out = NULL;
        ct_clear_error();
        calls = 0;
        fail_at = n;
        ct_status st = c->op(&out);
        fail_at = 0;
        bool faulted = calls >= n;
        if (!faulted && st != CT_OK)
            fail_msg("%s: failed without a fault: %s", c->name, ct_last_error());
        if (faulted && st != CT_OK) {
            if (st != CT_ERR_NOMEM)
                fail_msg("%s: allocation %ld failed with %s: %s", c->name, n, ct_status_name(st),
                         ct_last_error());
            if (out != NULL)
                fail_msg("%s: out is not NULL after a failure", c->name);
            if (live_allocs != held)
                fail_msg("%s: allocation %ld failed and %ld allocations leaked", c->name, n,
                         live_allocs - held);
            if (c->prep != NULL) {
                fault_meta after = fault_meta_of(target);
                if (memcmp(&before, &after, sizeof before) != 0)
                    fail_msg("%s: allocation %ld failed and the target changed", c->name, n);
            }
        }
        ct_tensor_release(out);
        ct_tensor_release(target);
        target = NULL;
        if (live_allocs != base)
            fail_msg("%s: attempt %ld leaves %ld allocations", c->name, n, live_allocs - base);
        if (!faulted)
            return n - 1;
    }
}

/* Runs the whole table: first each case once without faults (one-time lazy state, such as
 * the default generator or backend bookkeeping, settles outside the counts; every case that
 * fails is named before the test stops), then each under fault_drive. FAULT_ONLY=<name>
 * (debugging) drives that case alone. `label` names the table in the summary line. */
static void fault_table_run(const fault_case *cases, size_t n, const char *label) {
    long broken = 0;
    for (size_t k = 0; k < n; k++) {
        ct_tensor *out = NULL;
        if (cases[k].prep != NULL && cases[k].prep() != CT_OK)
            fail_msg("%s: prep failed: %s", cases[k].name, ct_last_error());
        if (cases[k].op(&out) != CT_OK) {
            print_error("%s: %s\n", cases[k].name, ct_last_error());
            broken++;
        }
        ct_tensor_release(out);
        ct_tensor_release(target);
        target = NULL;
    }
    assert_int_equal(broken, 0);
    long total = 0, idle = 0, noalloc = 0;
    const char *only = getenv("FAULT_ONLY");
    for (size_t k = 0; k < n; k++) {
        if (only != NULL && strcmp(only, cases[k].name) != 0)
            continue;
        long f = fault_drive(&cases[k]);
        if (cases[k].none) {
            if (f != 0)
                fail_msg("%s: allocates (%ld points)", cases[k].name, f);
            noalloc++;
            continue;
        }
        if (f == 0) {
            print_error("%s allocates nothing: the loop tested no failure\n", cases[k].name);
            idle++;
        }
        total += f;
    }
    assert_int_equal(idle, 0);
    print_message("%s: %zu operations (%ld allocation-free), %ld allocation failure points "
                  "injected\n",
                  label, n, noalloc, total);
}

#endif /* CT_TEST_FAULT_TABLE_H */
