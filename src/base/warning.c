/* Warnings: formatted here, delivered to one process-wide handler (warning.h). */
#include <stdarg.h>
#include <stdio.h>

#include "ctensor/warning.h"

static ct_warning_handler warning_handler;
static void *warning_ctx;

void ct_set_warning_handler(ct_warning_handler handler, void *ctx) {
    warning_handler = handler;
    warning_ctx = ctx;
}

void ct_warn(const char *fmt, ...) {
    ct_warning_handler handler = warning_handler;
    if (!handler)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    handler(warning_ctx, buf);
}
