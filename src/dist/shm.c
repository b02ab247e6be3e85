/* shm.c: shared-memory windows (MPI-3 MPI_Win_allocate_shared) for the collectives of ranks
 * that share one node.
 *
 * Why: S(d) -> B with d > 0 interleaves every rank's block into the row-major whole. MPI
 * receiving into strided memory (subarray or vector types) loses Open MPI's single-copy
 * path and runs at a third of MPI_Allgatherv's speed. When all ranks of the communicator
 * are on one node, each rank instead copies its shard once into a window every rank maps,
 * and then reads every peer's block straight into place (boxing_fast.c).
 *
 * One window per communicator, made on first need, grown when a call needs larger slots and
 * kept until ct_dist_finalize. Each rank owns two slots and successive uses alternate
 * between them, so a use may fill its slot before the collective that orders the ranks (the
 * caller's all-ready): the slot it overwrites was last read in the use before the previous
 * one, which every rank finished before entering the previous use's collective, which this
 * rank has passed. Whether a communicator can have a window is decided collectively once
 * (MPI_Comm_split_type, then an agreement; a failed window is agreed too), so all members
 * always take the same path. CTENSOR_BOXING_SHM=0 in the environment of every rank turns
 * the windows off (the MPI-datatype path then runs).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "dist/dist_impl.h"

struct ct_shm_window {
    MPI_Comm comm; /* the key: a communicator cached by comm.c (never freed before us) */
    int usable;    /* 1 usable, -1 not (ranks on several nodes, or a window failed) */
    MPI_Win win;   /* MPI_WIN_NULL until the first window */
    size_t cap;    /* bytes of each rank's slot; each rank owns two, 2 * cap bytes */
    int half;      /* which of the two slots the current use has */
    int cow;       /* shm_cow.c works on comm: 0 not known yet, 1 yes, -1 no (agreed) */
};

/* A fixed table, so that recording an entry cannot fail after the collective that decided
 * it (programs use a handful of placements). MPI_THREAD_SERIALIZED: the lock only guards the
 * table against concurrent look-ups, never two collectives at once. */
#define SHM_MAX_WINDOWS 64
static pthread_mutex_t g_shm_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_shm_window g_windows[SHM_MAX_WINDOWS];
static size_t g_count;

bool ct_dist_impl_shm_enabled(void) {
    const char *s = getenv("CTENSOR_BOXING_SHM");
    return s == NULL || strcmp(s, "0") != 0;
}

/* The minimum over comm of each of v[0..n) (a collective; all zeros when it fails). */
static void all_min(int *v, int n, MPI_Comm comm) {
    if (MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        memset(v, 0, sizeof(int) * (size_t)n);
}

static void window_free(ct_shm_window *w) {
    if (w->win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(w->win);
        MPI_Win_free(&w->win);
    }
    w->win = MPI_WIN_NULL;
    w->cap = 0;
    w->half = 0;
}

/* (Re)make w's window with slots of `cap` bytes: collective over w->comm; false (on every
 * rank) when some rank could not. */
static bool window_make(ct_shm_window *w, size_t cap) {
    window_free(w);
    char *base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    MPI_Info info = MPI_INFO_NULL;
    /* Each slot in its owner's pages (first touch by the writer); no accumulates. */
    bool ok = MPI_Info_create(&info) == MPI_SUCCESS;
    if (ok) {
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
        MPI_Info_set(info, "accumulate_ordering", "none");
    }
    ok = ok && cap <= (size_t)INT64_MAX / 2 &&
         MPI_Win_allocate_shared((MPI_Aint)(2 * cap), 1, info, w->comm, &base, &win) == MPI_SUCCESS;
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    if (ok) {
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        ok = MPI_Win_lock_all(MPI_MODE_NOCHECK, win) == MPI_SUCCESS;
        if (!ok)
            MPI_Win_free(&win);
    }
    if (ok) {
        w->win = win;
        w->cap = cap;
    }
    int v = ok ? 1 : 0;
    all_min(&v, 1, w->comm);
    if (!v) {
        window_free(w);
        return false;
    }
    return true;
}

/* The entry of `comm`, made (collectively) on first need; NULL when the table is full on
 * some rank, and then on every rank: nobody records a verdict, so all of them ask again
 * (collectively again) next time and stay on one path. */
static ct_shm_window *entry_for(MPI_Comm comm) {
    for (size_t i = 0; i < g_count; i++)
        if (g_windows[i].comm == comm)
            return &g_windows[i];
    int size = 0, node_size = -1;
    MPI_Comm node = MPI_COMM_NULL;
    bool ok =
        MPI_Comm_size(comm, &size) == MPI_SUCCESS &&
        MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS &&
        MPI_Comm_size(node, &node_size) == MPI_SUCCESS;
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    int v[2] = {ok && node_size == size, g_count < SHM_MAX_WINDOWS};
    all_min(v, 2, comm);
    if (!v[1])
        return NULL;
    ct_shm_window *w = &g_windows[g_count++];
    *w = (ct_shm_window){.comm = comm, .usable = v[0] ? 1 : -1, .win = MPI_WIN_NULL};
    return w;
}

ct_status ct_dist_impl_shm_window(MPI_Comm comm, size_t bytes, ct_shm_window **out) {
    *out = NULL;
    if (!ct_dist_impl_shm_enabled())
        return CT_OK;
    pthread_mutex_lock(&g_shm_lock);
    ct_shm_window *w = entry_for(comm);
    if (w != NULL && w->usable > 0)
        w->half ^= 1; /* every member counts the same uses */
    if (w != NULL && w->usable > 0 && bytes > w->cap) {
        /* Grow by half again at least, so that slowly growing tensors do not remake the
         * window every call; round to 64 KiB. */
        size_t want = bytes > w->cap + w->cap / 2 ? bytes : w->cap + w->cap / 2;
        want = (want + 65535u) & ~(size_t)65535u;
        if (!window_make(w, want))
            w->usable = -1; /* agreed by every rank inside window_make */
    }
    if (w != NULL && w->usable > 0)
        *out = w;
    pthread_mutex_unlock(&g_shm_lock);
    return CT_OK;
}

bool ct_dist_impl_shm_node(MPI_Comm comm, int **cow_state) {
    *cow_state = NULL;
    if (!ct_dist_impl_shm_enabled())
        return false;
    pthread_mutex_lock(&g_shm_lock);
    ct_shm_window *w = entry_for(comm);
    if (w != NULL && w->usable > 0)
        *cow_state = &w->cow;
    pthread_mutex_unlock(&g_shm_lock);
    return *cow_state != NULL;
}

void *ct_dist_impl_shm_slot(const ct_shm_window *w, int rank) {
    MPI_Aint bytes = 0;
    int disp = 0;
    void *p = NULL;
    /* Local and cheap; the window's error handler returns, and NULL then means "none". */
    if (MPI_Win_shared_query(w->win, rank, &bytes, &disp, &p) != MPI_SUCCESS || p == NULL)
        return NULL;
    return (char *)p + (size_t)w->half * w->cap;
}

ct_status ct_dist_impl_shm_sync(const ct_shm_window *w) {
    return ct_dist_impl_mpi_check(MPI_Win_sync(w->win), "MPI_Win_sync");
}

/* Note [Streamed window copies]
 * The S(d) -> B copies of large tensors write memory nothing reads soon (slots the peers
 * read after the collective, outputs larger than the caches). Regular stores first read
 * every destination line (write allocate); streaming stores do not. Measured on the 2-vCPU
 * VM of bench/README.md, one process putting 512-byte pieces into a 16 / 64 MiB output:
 * 1.5 / 18 ms with memcpy, 0.9 / 8.7 ms streamed. In cache (1 MiB) memcpy wins, hence the
 * caller's size threshold. */
void ct_dist_impl_shm_copy_stream(void *dst, const void *src, size_t n) {
#if defined(__SSE2__)
    char *d = dst;
    const char *s = src;
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    if (head > n)
        head = n;
    memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));
        _mm_stream_si128((__m128i *)(void *)d, a);
        _mm_stream_si128((__m128i *)(void *)(d + 16), b);
        _mm_stream_si128((__m128i *)(void *)(d + 32), c);
        _mm_stream_si128((__m128i *)(void *)(d + 48), e);
    }
    memcpy(d, s, n);
#else
    memcpy(dst, src, n);
#endif
}

void ct_dist_impl_shm_stream_fence(void) {
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

void ct_dist_impl_shm_clear(void) {
    pthread_mutex_lock(&g_shm_lock);
    /* In creation order: every member made its windows in the same order (each creation
     * is collective), so the collective frees match up too. */
    for (size_t i = 0; i < g_count; i++)
        window_free(&g_windows[i]);
    g_count = 0;
    pthread_mutex_unlock(&g_shm_lock);
}
