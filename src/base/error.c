/* The error model: a per-thread kind and message (see include/ctensor/status.h). */
#include <stdarg.h>
#include <stdio.h>

#include "ctensor/status.h"

#define CT_ERROR_MESSAGE_CAPACITY 1024

static _Thread_local char last_message[CT_ERROR_MESSAGE_CAPACITY];
static _Thread_local ct_status last_kind = CT_OK;

static const char *const status_names[CT_NUM_STATUS] = {
    [CT_OK] = "CT_OK",
    [CT_ERR_RUNTIME] = "CT_ERR_RUNTIME",
    [CT_ERR_VALUE] = "CT_ERR_VALUE",
    [CT_ERR_TYPE] = "CT_ERR_TYPE",
    [CT_ERR_INDEX] = "CT_ERR_INDEX",
    [CT_ERR_NOT_IMPLEMENTED] = "CT_ERR_NOT_IMPLEMENTED",
    [CT_ERR_NOMEM] = "CT_ERR_NOMEM",
    [CT_ERR_MISUSE] = "CT_ERR_MISUSE",
    [CT_ERR_OVERFLOW] = "CT_ERR_OVERFLOW",
};

const char *ct_last_error(void) { return last_message; }

ct_status ct_last_error_kind(void) { return last_kind; }

void ct_clear_error(void) {
    last_message[0] = '\0';
    last_kind = CT_OK;
}

const char *ct_status_name(ct_status status) {
    if ((int)status < 0 || (int)status >= CT_NUM_STATUS)
        return "CT_ERR_UNKNOWN";
    return status_names[status];
}

ct_status ct_set_error(ct_status status, const char *fmt, ...) {
    /* Format into a scratch buffer first: fmt's arguments may point into last_message. */
    char scratch[CT_ERROR_MESSAGE_CAPACITY];
    if (fmt == NULL) {
        scratch[0] = '\0';
    } else {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(scratch, sizeof scratch, fmt, ap);
        va_end(ap);
        if (n < 0)
            scratch[0] = '\0';
    }
    for (size_t i = 0; i < sizeof scratch; i++) {
        last_message[i] = scratch[i];
        if (scratch[i] == '\0')
            break;
    }
    last_message[CT_ERROR_MESSAGE_CAPACITY - 1] = '\0';
    last_kind = status;
    return status;
}
