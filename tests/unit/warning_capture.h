/* A warning handler for tests: counts ct_warn calls and keeps the last message. */
#ifndef CT_TESTS_WARNING_CAPTURE_H
#define CT_TESTS_WARNING_CAPTURE_H

#include <stdio.h>

#include "ctensor/warning.h"

static int nwarnings;
static char last_warning[1024];

static void on_warning(void *ctx, const char *msg) {
    (void)ctx;
    nwarnings++;
    snprintf(last_warning, sizeof last_warning, "%s", msg);
}

#endif /* CT_TESTS_WARNING_CAPTURE_H */
