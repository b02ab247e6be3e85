/* The fault-injection driver for operations that produce a tensor: fail allocation 1, 2,
 * ... until the operation goes through. Every failure must be CT_ERR_NOMEM with a NULL
 * result and no allocation left behind; the final success must release cleanly.
 * Header-only with file-local state (via fault_alloc.h): include it from one test file per
 * executable, after cmocka and the ctensor headers. */
#ifndef CT_TEST_FAULT_LOOP_H
#define CT_TEST_FAULT_LOOP_H

#include "fault_alloc.h"

typedef ct_status (*op_fn)(ct_tensor **out);

/* Returns the number of failures injected. */
static int fault_loop(const char *name, op_fn op) {
    for (long n = 1;; n++) {
        long before = live_allocs;
        calls = 0;
        fail_at = n;
        ct_tensor *out = NULL;
        ct_clear_error();
        ct_status st = op(&out);
        fail_at = 0;
        if (calls < n) { /* no allocation failed: the call went through */
            if (st != CT_OK)
                fail_msg("%s: failed without a fault: %s", name, ct_last_error());
            ct_tensor_release(out);
            if (live_allocs != before)
                fail_msg("%s: %ld allocations remain after release", name, live_allocs - before);
            return (int)n - 1;
        }
        if (st == CT_OK) { /* a failure that was recovered from is fine */
            ct_tensor_release(out);
        } else {
            if (st != CT_ERR_NOMEM)
                fail_msg("%s: allocation %ld failed with %s: %s", name, n, ct_status_name(st),
                         ct_last_error());
            if (out != NULL)
                fail_msg("%s: out is not NULL after a failure", name);
        }
        if (live_allocs != before)
            fail_msg("%s: allocation %ld failed and %ld allocations leaked", name, n,
                     live_allocs - before);
    }
}

#endif /* CT_TEST_FAULT_LOOP_H */
