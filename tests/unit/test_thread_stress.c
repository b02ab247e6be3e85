/* Thread stress: NTHREADS threads at once create, view, cast, add and print
 * tensors, with per-thread default devices, current devices and errors, sharing read-only
 * inputs and handing tensors to each other. Every thread checks its own results.
 *
 * Built like every unit test and also run by scripts/tsan.sh under ThreadSanitizer, which
 * is what finds the data races; the plain and ASan runs check results and leaks. The
 * iteration count is CT_STRESS_ITERS (default 100: under a second in the plain build).
 *
 * cmocka's assertions longjmp and are not thread-safe, so workers record their first
 * failure (with the line and the library's last error) and main asserts after joining. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmocka_all.h"
#include "ctensor/ctensor.h"

#define NTHREADS 8
#define NSLOTS 5 /* hand-off slots, fewer than threads so they are contended */
#define ROWS 64  /* shared_a is ROWS x COLS float32, a[i][j] = i * COLS + j */
#define COLS 33
#define BIG (1 << 18)    /* float32 elements: 1 MiB, cached by the host cache, split by OpenMP */
#define VAL_SCALE 100000 /* hand-off values: thread * VAL_SCALE + iteration */

static const ct_device cpu_dev = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
static const ct_device meta_dev = {CT_DEVICE_META, CT_DEVICE_NO_INDEX};
static const ct_device cuda_dev = {CT_DEVICE_CUDA, CT_DEVICE_NO_INDEX}; /* emulated, 2 devices */

/* Read-only after set-up: shared by every thread. */
static ct_tensor *shared_a, *shared_b, *shared_big;
static char expected_repr[256], expected_repr_p2[256];
static int iters = 100;

/* Tensors passed between threads: a thread swaps its new tensor in and checks and releases
 * whatever another thread left there. */
static _Atomic(ct_tensor *) slots[NSLOTS];
/* The same through DLPack: exported on one thread, imported (and freed) on another. */
static _Atomic(ct_dl_managed_tensor_versioned *) dl_slots[NSLOTS];

/* The warning handler counts on the thread that raised the warning. */
static _Thread_local int my_warnings;
static atomic_int all_warnings;
static void on_warning(void *ctx, const char *message) {
    (void)ctx;
    (void)message;
    my_warnings++;
    atomic_fetch_add_explicit(&all_warnings, 1, memory_order_relaxed);
}

/* ---- failure reporting ---------------------------------------------------------------- */

static atomic_int failures, completed; /* completed: iterations run to the end */
static atomic_flag failure_taken = ATOMIC_FLAG_INIT;
static char first_failure[512];

typedef struct worker {
    int tid, iter;
    pthread_t thread;
    ct_generator *gen;
} worker;

static void report(const worker *w, int line, const char *what) {
    atomic_fetch_add(&failures, 1);
    if (!atomic_flag_test_and_set(&failure_taken))
        snprintf(first_failure, sizeof first_failure,
                 "thread %d iteration %d line %d: %s (last error: %s)", w->tid, w->iter, line, what,
                 ct_last_error());
}

/* CHECK jumps to the stage's `out:` label, which releases what the stage holds. */
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            report(w, __LINE__, #cond);                                                            \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)
#define OK(call) CHECK((call) == CT_OK)

static void release_all(ct_tensor **t, int n) {
    for (int i = 0; i < n; i++) {
        ct_tensor_release(t[i]);
        t[i] = NULL;
    }
}

/* The values of a cpu tensor as doubles, row-major (a contiguous float64 copy). */
static bool values(const ct_tensor *t, double *buf, int64_t n) {
    ct_tensor *c = NULL;
    if (ct_tensor_numel(t) != n ||
        ct_tensor_to(t, CT_FLOAT64, &cpu_dev, true, CT_MEMFMT_CONTIGUOUS, &c) != CT_OK)
        return false;
    memcpy(buf, ct_tensor_data_ptr(c), (size_t)n * sizeof *buf);
    ct_tensor_release(c);
    return true;
}

static double a_at(int64_t i, int64_t j) { return (double)(i * COLS + j); }

/* ---- stages: each returns after releasing what it made -------------------------------- */

/* Views of views of the shared input: transpose, strided slice, select, narrow, expand,
 * as_strided, reshape (a copy), all checked against a[i][j]. */
static void stage_views(worker *w) {
    ct_tensor *t[8] = {0};
    double buf[ROWS * COLS];
    int64_t col = w->tid % COLS;
    OK(ct_tensor_transpose(shared_a, 0, 1, &t[0])); /* [COLS, ROWS] */
    OK(ct_tensor_slice(t[0], 1, 3, 60, 2, &t[1]));  /* [COLS, 29]: rows 3, 5, .. */
    OK(ct_tensor_select(t[1], 0, col, &t[2]));      /* [29] */
    OK(ct_tensor_narrow(t[2], 0, 1, 5, &t[3]));     /* [5]: rows 5, 7, .. 13 */
    CHECK(values(t[3], buf, 5));
    for (int k = 0; k < 5; k++)
        CHECK(buf[k] == a_at(5 + 2 * k, col));
    int64_t esz[] = {4, COLS};
    OK(ct_tensor_unsqueeze(shared_b, 0, &t[4]));
    OK(ct_tensor_expand(t[4], esz, 2, &t[5]));
    CHECK(ct_tensor_strides(t[5])[0] == 0);
    CHECK(values(t[5], buf, 4 * COLS));
    CHECK(buf[3 * COLS + col] == (double)(col + 1));
    int64_t asz[] = {3, 2}, ast[] = {COLS, 2}, off = 1;
    OK(ct_tensor_as_strided(shared_a, asz, ast, 2, &off, &t[6]));
    CHECK(values(t[6], buf, 6));
    CHECK(buf[5] == a_at(2, 3));
    int64_t flat = -1;
    OK(ct_tensor_reshape(t[1], &flat, 1, &t[7]));
    CHECK(ct_tensor_numel(t[7]) == COLS * 29 &&
          ct_tensor_is_contiguous(t[7], CT_MEMFMT_CONTIGUOUS));
    CHECK(values(t[7], buf, COLS * 29));
    CHECK(buf[col * 29 + 4] == a_at(11, col));
out:
    release_all(t, 8);
}

/* Casts: to_dtype chains, contiguous, copy_ between dtypes into the thread's own tensors. */
static void stage_casts(worker *w) {
    ct_tensor *t[8] = {0};
    double buf[COLS * 29];
    OK(ct_tensor_transpose(shared_a, 0, 1, &t[0]));
    OK(ct_tensor_slice(t[0], 1, 3, 60, 2, &t[1])); /* [COLS, 29], b[i][j] = a[3 + 2j][i] */
    OK(ct_tensor_to_dtype(t[1], CT_FLOAT64, &t[2]));
    OK(ct_tensor_to_dtype(t[2], CT_INT32, &t[3]));
    OK(ct_tensor_to_dtype(t[3], CT_FLOAT16, &t[4])); /* values < 2048: exact in half */
    CHECK(ct_tensor_dtype(t[4]) == CT_FLOAT16);
    CHECK(values(t[4], buf, COLS * 29));
    for (int64_t i = 0; i < COLS; i += 7)
        for (int64_t j = 0; j < 29; j += 5)
            CHECK(buf[i * 29 + j] == a_at(3 + 2 * j, i));
    OK(ct_tensor_contiguous(t[1], CT_MEMFMT_CONTIGUOUS, &t[5]));
    CHECK(ct_tensor_is_contiguous(t[5], CT_MEMFMT_CONTIGUOUS));
    int64_t sz[] = {COLS, 29};
    OK(ct_tensor_empty(sz, 2, CT_INT64, &cpu_dev, CT_LAYOUT_STRIDED, CT_MEMFMT_CONTIGUOUS, &t[6]));
    OK(ct_tensor_copy_(t[6], t[1])); /* float32 view -> int64 */
    OK(ct_tensor_zeros(sz, 2, CT_BFLOAT16, NULL, CT_LAYOUT_STRIDED, &t[7]));
    OK(ct_tensor_copy_(t[7], t[6])); /* int64 -> bfloat16 (rounds) */
    CHECK(values(t[6], buf, COLS * 29));
    CHECK(buf[w->tid * 29 + 2] == a_at(7, w->tid));
    CHECK(values(t[7], buf, COLS * 29));
    CHECK(buf[1 * 29 + 0] == a_at(3, 1)); /* 34: exact in bfloat16 */
out:
    release_all(t, 8);
}

/* Arithmetic: broadcasting with a shared input, out= into the thread's own tensors (resized
 * with a warning on this thread), in-place, a fully aliased out=, division errors. */
static void stage_ops(worker *w) {
    ct_tensor *t[8] = {0};
    double buf[ROWS * COLS];
    double s = (double)(w->tid + 1);
    OK(ct_add(shared_a, shared_b, ct_scalar_int(1), &t[0])); /* float32 + float64 rows */
    CHECK(ct_tensor_dtype(t[0]) == CT_FLOAT64);
    CHECK(values(t[0], buf, ROWS * COLS));
    for (int64_t i = 0; i < ROWS; i += 9)
        for (int64_t j = 0; j < COLS; j += 4)
            CHECK(buf[i * COLS + j] == a_at(i, j) + (double)(j + 1));
    int64_t one = 1;
    OK(ct_tensor_full(&one, 1, ct_scalar_float(7), CT_FLOAT64, NULL, CT_LAYOUT_STRIDED, &t[1]));
    int warned = my_warnings;
    OK(ct_mul_out(shared_a, shared_b, t[1])); /* [1] -> [ROWS, COLS]: resized, warns */
    CHECK(my_warnings == warned + 1);
    CHECK(values(t[1], buf, ROWS * COLS));
    CHECK(buf[5 * COLS + 6] == a_at(5, 6) * 7.0);
    OK(ct_tensor_scalar_tensor(ct_scalar_float(s), CT_FLOAT64, NULL, &t[2]));
    OK(ct_div_(t[1], t[2], CT_ROUNDING_NONE));            /* own tensor, 0-dim divisor */
    OK(ct_add_out(t[1], t[1], ct_scalar_float(1), t[1])); /* out aliases both inputs */
    CHECK(values(t[1], buf, ROWS * COLS));
    CHECK(buf[5 * COLS + 6] == 2.0 * (a_at(5, 6) * 7.0 / s));
    OK(ct_div(shared_a, shared_b, CT_ROUNDING_FLOOR, &t[3]));
    CHECK(values(t[3], buf, ROWS * COLS));
    CHECK(buf[2 * COLS + 4] == floor(a_at(2, 4) / 5.0));
    OK(ct_tensor_arange(ct_scalar_int(0), ct_scalar_int(6), ct_scalar_int(1), CT_INT64, NULL,
                        CT_LAYOUT_STRIDED, &t[4]));
    OK(ct_tensor_zeros(&one, 1, CT_INT64, NULL, CT_LAYOUT_STRIDED, &t[5]));
    CHECK(ct_div(t[4], t[5], CT_ROUNDING_TRUNC, &t[6]) == CT_ERR_RUNTIME && t[6] == NULL);
    CHECK(strcmp(ct_last_error(), "ZeroDivisionError") == 0);
    OK(ct_sub(t[4], t[5], ct_scalar_int(3), &t[6]));
    CHECK(values(t[6], buf, 6) && buf[5] == 5.0);
out:
    release_all(t, 8);
}

/* Large operations: the parallel-for (while other threads change the thread count) and the
 * host cache (1 MiB blocks freed and reused by all threads). */
static void stage_big(worker *w) {
    ct_tensor *t[3] = {0};
    CHECK(ct_set_num_threads(1 + (w->tid + w->iter) % 3) == CT_OK);
    CHECK(ct_get_num_threads() >= 1);
    OK(ct_add(shared_big, shared_big, ct_scalar_int(w->tid), &t[0])); /* a + tid * a */
    const float *r = ct_tensor_data_ptr(t[0]);
    for (int64_t k = w->tid; k < BIG; k += 4099)
        CHECK(r[k] == (float)(k % 1000) * (float)(1 + w->tid));
    OK(ct_tensor_to_dtype(t[0], CT_FLOAT64, &t[1])); /* 2 MiB: a parallel copy */
    const double *d = ct_tensor_data_ptr(t[1]);
    CHECK(d[BIG - 1] == (double)((BIG - 1) % 1000) * (1 + w->tid));
    OK(ct_tensor_empty_like(shared_big, CT_DTYPE_UNDEFINED, NULL, CT_MEMFMT_PRESERVE, &t[2]));
    OK(ct_tensor_fill_(t[2], ct_scalar_float(w->tid)));
    CHECK(((const float *)ct_tensor_data_ptr(t[2]))[BIG / 2] == (float)w->tid);
    ct_host_cache_stats st = ct_host_cache_get_stats();
    CHECK(st.blocks <= CT_HOST_CACHE_MAX_BLOCKS && st.bytes <= st.limit);
out:
    release_all(t, 3);
}

/* Random numbers: the shared default generator and a thread's own (replayable). */
static void stage_random(worker *w) {
    ct_tensor *t[3] = {0};
    double x[64], y[64];
    int64_t n = 64;
    OK(ct_tensor_rand(&n, 1, NULL, CT_FLOAT32, NULL, CT_LAYOUT_STRIDED, &t[0]));
    CHECK(values(t[0], x, n));
    for (int k = 0; k < n; k++)
        CHECK(x[k] >= 0.0 && x[k] < 1.0);
    ct_generator_manual_seed(w->gen, (uint64_t)w->tid);
    OK(ct_tensor_randn(&n, 1, w->gen, CT_FLOAT64, NULL, CT_LAYOUT_STRIDED, &t[1]));
    ct_generator_manual_seed(w->gen, (uint64_t)w->tid);
    OK(ct_tensor_randn(&n, 1, w->gen, CT_FLOAT64, NULL, CT_LAYOUT_STRIDED, &t[2]));
    CHECK(values(t[1], x, n) && values(t[2], y, n));
    CHECK(memcmp(x, y, sizeof x) == 0);
out:
    release_all(t, 3);
}

/* Default-device scopes and the current device are per thread: meta, then cpu, then the
 * emulated cuda whose current device is tid % 2 on this thread only. */
static void stage_devices(worker *w) {
    ct_tensor *t[5] = {0};
    size_t base = ct_default_device_depth(), mark = 0, inner = 0;
    int32_t mine = w->tid % 2;
    double buf[6];
    int64_t sz[] = {2, 3};
    CHECK(base == 0);
    OK(ct_set_device((ct_device){CT_DEVICE_CUDA, mine}));
    OK(ct_default_device_push(meta_dev, &mark));
    OK(ct_tensor_ones(sz, 2, CT_FLOAT32, NULL, CT_LAYOUT_STRIDED, &t[0]));
    CHECK(ct_tensor_is_meta(t[0]));
    OK(ct_add(t[0], t[0], ct_scalar_int(1), &t[1])); /* shapes only */
    CHECK(ct_tensor_is_meta(t[1]) && ct_tensor_numel(t[1]) == 6);
    OK(ct_default_device_push(cpu_dev, &inner));
    CHECK(inner == 1 && ct_default_device_depth() == 2);
    OK(ct_tensor_full(sz, 2, ct_scalar_int(w->tid), CT_INT32, NULL, CT_LAYOUT_STRIDED, &t[2]));
    CHECK(ct_tensor_device(t[2]).type == CT_DEVICE_CPU);
    OK(ct_default_device_push(cuda_dev, NULL));
    ct_device got;
    OK(ct_get_default_device(&got));
    CHECK(got.type == CT_DEVICE_CUDA && got.index == mine);
    OK(ct_tensor_full(sz, 2, ct_scalar_int(w->tid), CT_FLOAT32, NULL, CT_LAYOUT_STRIDED, &t[3]));
    CHECK(ct_tensor_device(t[3]).type == CT_DEVICE_CUDA && ct_tensor_device(t[3]).index == mine);
    ct_default_device_pop(inner); /* drops cuda and cpu */
    CHECK(ct_default_device_depth() == 1);
    OK(ct_get_default_device(&got));
    CHECK(got.type == CT_DEVICE_META);
    ct_default_device_pop(mark);
    OK(ct_tensor_to_device(t[3], cpu_dev, &t[4]));
    CHECK(values(t[4], buf, 6) && buf[5] == (double)w->tid);
    ct_device cur;
    OK(ct_current_device(CT_DEVICE_CUDA, &cur));
    CHECK(cur.index == mine);
    /* Registration is thread-safe: thread 0 registers, uses and unregisters an xpu backend
     * while the others look the registry up (but never call the xpu backend: unregistering
     * must not race with its use). */
    int32_t count = -1;
    if (w->tid == 0) {
        OK(ct_backend_register_host_emulated(CT_DEVICE_XPU, 1));
        ct_tensor *x = NULL;
        ct_status st =
            ct_tensor_zeros(sz, 2, CT_INT8, &(ct_device){CT_DEVICE_XPU, 0}, CT_LAYOUT_STRIDED, &x);
        ct_tensor_release(x); /* before unregistering: its memory is the backend's */
        OK(st);
        OK(ct_backend_unregister(CT_DEVICE_XPU));
    } else {
        (void)ct_backend_is_registered(CT_DEVICE_XPU); /* either answer */
        OK(ct_device_count(CT_DEVICE_CUDA, &count));
        CHECK(count == 2);
        ct_device_type acc;
        OK(ct_current_accelerator(&acc));
        CHECK(acc == CT_DEVICE_CUDA);
    }
out:
    ct_default_device_pop(base);
    release_all(t, 5);
}

/* Errors are per thread: each thread's message names its own numbers and survives other
 * threads' errors; clearing clears only its own. */
static void stage_errors(worker *w) {
    int64_t idx = 1000 + (int64_t)w->tid * 1000 + w->iter % 1000;
    ct_tensor *t = NULL;
    char want[64];
    CHECK(ct_tensor_select(shared_a, 0, idx, &t) == CT_ERR_INDEX && t == NULL);
    snprintf(want, sizeof want, "index %lld out of range", (long long)idx);
    CHECK(strstr(ct_last_error(), want) != NULL);
    sched_yield(); /* let other threads fail meanwhile */
    CHECK(strstr(ct_last_error(), want) != NULL && ct_last_error_kind() == CT_ERR_INDEX);
    CHECK(ct_tensor_transpose(shared_a, 0, 100 + w->tid, &t) == CT_ERR_INDEX);
    snprintf(want, sizeof want, "but got %d)", 100 + w->tid);
    CHECK(strstr(ct_last_error(), want) != NULL);
    ct_device d;
    CHECK(ct_device_from_string("cuda:999", &d) == CT_ERR_RUNTIME);
    CHECK(strstr(ct_last_error(), "999") != NULL);
    ct_clear_error();
    sched_yield();
    CHECK(ct_last_error()[0] == '\0' && ct_last_error_kind() == CT_OK);
out:
    ct_tensor_release(t);
}

/* Reference counts across threads: a tensor made here is released by whichever thread
 * takes it out of a slot; views of the shared input are made and dropped everywhere. */
static void stage_handoff(worker *w) {
    ct_tensor *t[3] = {0};
    int64_t n = 5;
    int64_t v = (int64_t)w->tid * VAL_SCALE + w->iter;
    OK(ct_tensor_full(&n, 1, ct_scalar_int(v), CT_INT64, NULL, CT_LAYOUT_STRIDED, &t[0]));
    OK(ct_tensor_alias(t[0], &t[1])); /* a second reference to the same storage */
    ct_tensor_release(t[0]);
    t[0] = atomic_exchange(&slots[(w->tid * 3 + w->iter) % NSLOTS], t[1]);
    t[1] = NULL;
    if (t[0] != NULL) { /* another thread's (or an earlier one of ours) */
        const int64_t *p = ct_tensor_data_ptr(t[0]);
        CHECK(ct_tensor_numel(t[0]) == 5 && p[0] == p[4]);
        CHECK(p[0] / VAL_SCALE < NTHREADS && p[0] % VAL_SCALE < iters);
        CHECK(ct_tensor_refcount(t[0]) == 1 && ct_storage_refcount(ct_tensor_storage(t[0])) == 1);
    }
    ct_tensor_release(t[0]);
    t[0] = NULL;
    ct_dl_managed_tensor_versioned *dl = NULL;
    OK(ct_tensor_full(&n, 1, ct_scalar_int(v), CT_INT64, NULL, CT_LAYOUT_STRIDED, &t[0]));
    OK(ct_tensor_to_dlpack_versioned(t[0], 0, &dl));
    dl = atomic_exchange(&dl_slots[(w->tid + w->iter) % NSLOTS], dl);
    if (dl != NULL) {
        OK(ct_tensor_from_dlpack_versioned(dl, CT_DLPACK_IMPORT_DEFAULT, NULL, &t[1]));
        const int64_t *p = ct_tensor_data_ptr(t[1]);
        CHECK(ct_tensor_numel(t[1]) == 5 && p[1] == p[3] && p[0] / VAL_SCALE < NTHREADS);
    }
    ct_tensor *shared = ct_tensor_retain(shared_a);
    OK(ct_tensor_select(shared, 1, w->tid, &t[2]));
    CHECK(ct_storage_refcount(ct_tensor_storage(shared)) >= 2);
    ct_tensor_release(shared);
    CHECK(ct_tensor_refcount(shared_a) >= 1);
out:
    release_all(t, 3);
}

/* Sparse COO: build, coalesce (duplicates), add, to_dense, print. */
static void stage_sparse(worker *w) {
    ct_tensor *t[7] = {0};
    char *s = NULL;
    int64_t ind[] = {0, 1, 1, 1, 2, 0, 2, 0}; /* (0,2) (1,0) (1,2) (1,0) */
    float val[] = {(float)w->tid, 2, 3, 4};
    int64_t isz[] = {2, 4}, n = 4, size[] = {2, 3};
    double buf[6];
    OK(ct_tensor_from_data(isz, 2, CT_INT64, ind, NULL, &t[0]));
    OK(ct_tensor_from_data(&n, 1, CT_FLOAT32, val, NULL, &t[1]));
    OK(ct_sparse_coo_tensor(t[0], t[1], size, 2, NULL, &t[2]));
    OK(ct_sparse_coalesce(t[2], &t[3]));
    int64_t nnz = 0;
    OK(ct_sparse_nnz(t[3], &nnz));
    CHECK(nnz == 3);
    OK(ct_sparse_add(t[3], t[2], ct_scalar_int(1), &t[4]));
    OK(ct_sparse_to_dense(t[4], &t[5]));
    CHECK(values(t[5], buf, 6));
    CHECK(buf[2] == 2.0 * w->tid && buf[3] == 12.0 && buf[5] == 6.0 && buf[0] == 0.0);
    OK(ct_sparse_repr(t[3], NULL, &s));
    CHECK(strstr(s, "nnz=3") != NULL && strstr(s, "layout=torch.sparse_coo") != NULL);
out:
    ct_string_free(s);
    release_all(t, 7);
}

/* Printing with the process-wide options (re-set to the same values by some threads while
 * others read them) and with explicit ones. */
static void stage_print(worker *w) {
    ct_tensor *t = NULL;
    char *s = NULL, *s2 = NULL;
    int64_t sz[] = {2, 3};
    const float data[] = {1.5f, -2.25f, 3, 4, 5.125f, 6};
    if (w->iter % 4 == w->tid % 4) {
        ct_print_options o = ct_print_options_default();
        OK(ct_set_printoptions(&o));
        /* process-wide settings re-set to the values they have: atomic, nothing changes */
        OK(ct_set_default_dtype(CT_FLOAT32));
        OK(ct_set_compat_mode(CT_COMPAT_PYTORCH));
        OK(ct_cpu_set_isa(ct_cpu_isa_active()));
    }
    CHECK(ct_get_default_dtype() == CT_FLOAT32 && ct_get_compat_mode() == CT_COMPAT_PYTORCH);
    OK(ct_tensor_from_data(sz, 2, CT_FLOAT32, data, NULL, &t));
    OK(ct_tensor_repr(t, NULL, &s));
    CHECK(strcmp(s, expected_repr) == 0);
    ct_print_options p2 = ct_print_options_default();
    p2.precision = 2;
    OK(ct_tensor_repr(t, &p2, &s2));
    CHECK(strcmp(s2, expected_repr_p2) == 0);
out:
    ct_string_free(s);
    ct_string_free(s2);
    ct_tensor_release(t);
}

static void *run_worker(void *arg) {
    worker *w = arg;
    for (w->iter = 0; w->iter < iters && atomic_load(&failures) == 0; w->iter++) {
        stage_views(w);
        stage_casts(w);
        stage_ops(w);
        if ((w->iter + w->tid) % 8 == 0)
            stage_big(w);
        stage_random(w);
        stage_devices(w);
        stage_errors(w);
        stage_handoff(w);
        stage_sparse(w);
        stage_print(w);
        atomic_fetch_add_explicit(&completed, 1, memory_order_relaxed);
    }
    return NULL;
}

/* ---- set-up and the test ---------------------------------------------------------------- */

static void make_shared(void) {
    static float a[ROWS * COLS];
    static double b[COLS];
    for (int k = 0; k < ROWS * COLS; k++)
        a[k] = (float)k;
    for (int j = 0; j < COLS; j++)
        b[j] = j + 1;
    int64_t asz[] = {ROWS, COLS}, bsz = COLS, big = BIG;
    assert_int_equal(ct_tensor_from_data(asz, 2, CT_FLOAT32, a, NULL, &shared_a), CT_OK);
    assert_int_equal(ct_tensor_from_data(&bsz, 1, CT_FLOAT64, b, NULL, &shared_b), CT_OK);
    float *g = malloc(BIG * sizeof *g);
    assert_non_null(g);
    for (int k = 0; k < BIG; k++)
        g[k] = (float)(k % 1000);
    assert_int_equal(ct_tensor_from_data(&big, 1, CT_FLOAT32, g, NULL, &shared_big), CT_OK);
    free(g);

    /* the reprs every thread must reproduce */
    int64_t sz[] = {2, 3};
    const float data[] = {1.5f, -2.25f, 3, 4, 5.125f, 6};
    ct_tensor *t = NULL;
    char *s = NULL;
    assert_int_equal(ct_tensor_from_data(sz, 2, CT_FLOAT32, data, NULL, &t), CT_OK);
    assert_int_equal(ct_tensor_repr(t, NULL, &s), CT_OK);
    snprintf(expected_repr, sizeof expected_repr, "%s", s);
    ct_string_free(s);
    ct_print_options p2 = ct_print_options_default();
    p2.precision = 2;
    assert_int_equal(ct_tensor_repr(t, &p2, &s), CT_OK);
    snprintf(expected_repr_p2, sizeof expected_repr_p2, "%s", s);
    ct_string_free(s);
    ct_tensor_release(t);
}

static void stress(void **state) {
    (void)state;
    const char *env = getenv("CT_STRESS_ITERS");
    if (env != NULL && atoi(env) > 0)
        iters = atoi(env);
    /* Process-wide settings first, as the header's rules say. */
    ct_set_warning_handler(on_warning, NULL);
    assert_int_equal(ct_backend_register_host_emulated(CT_DEVICE_CUDA, 2), CT_OK);
    int saved_threads = ct_get_num_threads();
    make_shared();

    worker ws[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        ws[i] = (worker){.tid = i};
        assert_int_equal(ct_generator_new(0, &ws[i].gen), CT_OK);
    }
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(pthread_create(&ws[i].thread, NULL, run_worker, &ws[i]), 0);
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(pthread_join(ws[i].thread, NULL), 0);
    if (atomic_load(&failures) != 0)
        fail_msg("%d failure(s); first: %s", atomic_load(&failures), first_failure);
    assert_int_equal(atomic_load(&completed), NTHREADS * iters);
    assert_int_equal(atomic_load(&all_warnings), NTHREADS * iters); /* one per ct_mul_out resize */

    /* Everything handed off is released; the shared inputs are ours alone again. */
    for (int i = 0; i < NSLOTS; i++) {
        ct_tensor_release(atomic_exchange(&slots[i], NULL));
        ct_dl_managed_tensor_versioned *dl = atomic_exchange(&dl_slots[i], NULL);
        if (dl != NULL)
            dl->deleter(dl);
    }
    for (int i = 0; i < NTHREADS; i++)
        ct_generator_free(ws[i].gen);
    assert_int_equal(ct_tensor_refcount(shared_a), 1);
    assert_int_equal(ct_storage_refcount(ct_tensor_storage(shared_a)), 1);
    ct_tensor_release(shared_a);
    ct_tensor_release(shared_b);
    ct_tensor_release(shared_big);
    ct_host_cache_empty();
    assert_int_equal(ct_backend_unregister(CT_DEVICE_CUDA), CT_OK);
    ct_set_warning_handler(NULL, NULL);
    assert_int_equal(ct_set_num_threads(saved_threads), CT_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(stress)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
