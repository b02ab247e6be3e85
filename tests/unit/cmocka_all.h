/* cmocka needs these standard headers before its own. */
#ifndef CT_TEST_CMOCKA_ALL_H
#define CT_TEST_CMOCKA_ALL_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

/* Assert a status and, for failures, the exact message left by the library. */
#define assert_status_msg(call, status, msg)                 \
    do {                                                     \
        ct_status st_ = (call);                              \
        assert_int_equal(st_, (status));                     \
        assert_int_equal(ct_last_error_kind(), (status));    \
        assert_string_equal(ct_last_error(), (msg));         \
    } while (0)

#endif
