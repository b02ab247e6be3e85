/* Streams and events of the cuda backend (ctensor/cuda.h), and the current stream per
 * thread and device.
 *
 * Each device's default stream is the legacy default stream (handle 0), a static object
 * never freed. A thread's current stream of a device is its default stream until
 * ct_cuda_set_stream. A freed stream must stop being current in every thread, but other
 * threads' tables cannot be reached: every table entry remembers the stream's unique id,
 * every free bumps a generation counter, and a thread that sees a new generation checks
 * its entries against the list of live streams (one atomic load on the fast path). */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "ctensor/cuda.h"
#include "cuda/caching_alloc.h"
#include "cuda/cuda_impl.h"

#define MAX_DEVICES CT_CUDA_ALLOC_MAX_DEVICES

struct ct_cuda_stream {
    int32_t device;
    cudaStream_t handle;
    bool is_default;
    uint64_t id;                 /* unique, never reused; 0 for default streams */
    struct ct_cuda_stream *next; /* in the list of live streams */
};

struct ct_cuda_event {
    cudaEvent_t handle; /* created at the first record */
    bool timing;
    int32_t device; /* -1 until the first record */
};

static pthread_once_t defaults_once = PTHREAD_ONCE_INIT;
static struct ct_cuda_stream defaults[MAX_DEVICES];

static void init_defaults(void) {
    for (int32_t i = 0; i < MAX_DEVICES; i++)
        defaults[i] = (struct ct_cuda_stream){.device = i, .handle = 0, .is_default = true};
}

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ct_cuda_stream *live; /* streams from ct_cuda_stream_new, not yet freed */
static uint64_t next_id = 1;        /* under live_lock */
static atomic_uint_fast64_t generation;

typedef struct current_entry {
    struct ct_cuda_stream *stream; /* NULL: the default stream */
    uint64_t id;
} current_entry;

static _Thread_local current_entry current[MAX_DEVICES];
static _Thread_local uint_fast64_t seen_generation;

/* Drop this thread's entries for streams freed since it last looked. */
static void revalidate(void) {
    uint_fast64_t gen = atomic_load(&generation);
    if (gen == seen_generation)
        return;
    pthread_mutex_lock(&live_lock);
    for (int32_t d = 0; d < MAX_DEVICES; d++) {
        if (current[d].stream == NULL)
            continue;
        bool alive = false;
        for (struct ct_cuda_stream *s = live; s != NULL && !alive; s = s->next)
            alive = s == current[d].stream && s->id == current[d].id;
        if (!alive)
            current[d] = (current_entry){0};
    }
    seen_generation = gen;
    pthread_mutex_unlock(&live_lock);
}

static struct ct_cuda_stream *current_of(int32_t device) {
    pthread_once(&defaults_once, init_defaults);
    revalidate();
    struct ct_cuda_stream *s = current[device].stream;
    return s != NULL ? s : &defaults[device];
}

ct_cuda_impl_stream_t ct_cuda_impl_current_stream(int32_t device) {
    if (device < 0 || device >= MAX_DEVICES)
        return NULL;
    return (ct_cuda_impl_stream_t)current_of(device)->handle;
}

/* ---- streams -------------------------------------------------------------------------------- */

static ct_status check_stream(const ct_cuda_stream *stream, const char *fn) {
    if (stream == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: stream is NULL", fn);
    return CT_OK;
}

ct_status ct_cuda_stream_new(int32_t device, int32_t priority, ct_cuda_stream **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_cuda_stream_new: out is NULL");
    *out = NULL;
    int32_t d;
    ct_status st = ct_cuda_impl_check_device(device, &d);
    if (st != CT_OK)
        return st;
    struct ct_cuda_stream *s = calloc(1, sizeof *s);
    if (s == NULL)
        return ct_set_error(CT_ERR_NOMEM, "Out of memory for a cuda stream");
    ct_cuda_impl_guard g;
    st = ct_cuda_impl_device_enter(d, &g);
    if (st != CT_OK) {
        free(s);
        return st;
    }
    int least = 0, greatest = 0; /* numerically: least 0, greatest negative */
    cudaError_t e = cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (e == cudaSuccess) {
        int p = priority > least ? least : priority < greatest ? greatest : priority;
        e = cudaStreamCreateWithPriority(&s->handle, cudaStreamNonBlocking, p);
    }
    if (e != cudaSuccess)
        st = ct_cuda_impl_error(e);
    ct_cuda_impl_device_exit(&g);
    if (st != CT_OK) {
        free(s);
        return st;
    }
    s->device = d;
    pthread_mutex_lock(&live_lock);
    s->id = next_id++;
    s->next = live;
    live = s;
    pthread_mutex_unlock(&live_lock);
    *out = s;
    return CT_OK;
}

void ct_cuda_stream_free(ct_cuda_stream *stream) {
    if (stream == NULL || stream->is_default)
        return;
    pthread_mutex_lock(&live_lock);
    for (struct ct_cuda_stream **link = &live; *link != NULL; link = &(*link)->next) {
        if (*link == stream) {
            *link = stream->next;
            break;
        }
    }
    atomic_fetch_add(&generation, 1);
    pthread_mutex_unlock(&live_lock);
    ct_cuda_impl_guard g;
    if (ct_cuda_impl_device_enter(stream->device, &g) == CT_OK) {
        /* Its work finishes first; blocks cached for it stay usable (in order) by a later
         * stream that gets the same handle. Errors cannot be reported from here. */
        if (cudaStreamSynchronize(stream->handle) != cudaSuccess ||
            cudaStreamDestroy(stream->handle) != cudaSuccess)
            (void)cudaGetLastError();
        ct_cuda_impl_device_exit(&g);
    }
    free(stream);
}

ct_status ct_cuda_current_stream(int32_t device, ct_cuda_stream **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_cuda_current_stream: out is NULL");
    *out = NULL;
    int32_t d;
    ct_status st = ct_cuda_impl_check_device(device, &d);
    if (st != CT_OK)
        return st;
    *out = current_of(d);
    return CT_OK;
}

ct_status ct_cuda_default_stream(int32_t device, ct_cuda_stream **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_cuda_default_stream: out is NULL");
    *out = NULL;
    int32_t d;
    ct_status st = ct_cuda_impl_check_device(device, &d);
    if (st != CT_OK)
        return st;
    pthread_once(&defaults_once, init_defaults);
    *out = &defaults[d];
    return CT_OK;
}

ct_status ct_cuda_set_stream(ct_cuda_stream *stream) {
    ct_status st = check_stream(stream, "ct_cuda_set_stream");
    if (st != CT_OK)
        return st;
    revalidate();
    current[stream->device] = stream->is_default ? (current_entry){0}
                                                 : (current_entry){.stream = stream, .id = stream->id};
    return CT_OK;
}

int32_t ct_cuda_stream_device(const ct_cuda_stream *stream) {
    return stream == NULL ? -1 : stream->device;
}

uintptr_t ct_cuda_stream_handle(const ct_cuda_stream *stream) {
    return stream == NULL ? 0 : (uintptr_t)stream->handle;
}

ct_status ct_cuda_stream_synchronize(ct_cuda_stream *stream) {
    ct_status st = check_stream(stream, "ct_cuda_stream_synchronize");
    if (st != CT_OK)
        return st;
    ct_cuda_impl_guard g;
    st = ct_cuda_impl_device_enter(stream->device, &g);
    if (st != CT_OK)
        return st;
    cudaError_t e = cudaStreamSynchronize(stream->handle);
    if (e != cudaSuccess)
        st = ct_cuda_impl_error(e);
    ct_cuda_impl_device_exit(&g);
    return st;
}

ct_status ct_cuda_stream_query(ct_cuda_stream *stream, bool *done) {
    if (done == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_cuda_stream_query: done is NULL");
    *done = false;
    ct_status st = check_stream(stream, "ct_cuda_stream_query");
    if (st != CT_OK)
        return st;
    ct_cuda_impl_guard g;
    st = ct_cuda_impl_device_enter(stream->device, &g);
    if (st != CT_OK)
        return st;
    cudaError_t e = cudaStreamQuery(stream->handle);
    if (e == cudaSuccess)
        *done = true;
    else if (e == cudaErrorNotReady)
        (void)cudaGetLastError(); /* not an error: still running */
    else
        st = ct_cuda_impl_error(e);
    ct_cuda_impl_device_exit(&g);
    return st;
}

/* ---- events --------------------------------------------------------------------------------- */

ct_status ct_cuda_event_new(bool enable_timing, ct_cuda_event **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_cuda_event_new: out is NULL");
    *out = calloc(1, sizeof **out);
    if (*out == NULL)
        return ct_set_error(CT_ERR_NOMEM, "Out of memory for a cuda event");
    (*out)->timing = enable_timing;
    (*out)->device = -1;
    return CT_OK;
}

void ct_cuda_event_free(ct_cuda_event *event) {
    if (event == NULL)
        return;
    if (event->handle != NULL) {
        ct_cuda_impl_guard g;
        if (ct_cuda_impl_device_enter(event->device, &g) == CT_OK) {
            if (cudaEventDestroy(event->handle) != cudaSuccess)
                (void)cudaGetLastError();
            ct_cuda_impl_device_exit(&g);
        }
    }
    free(event);
}

/* `stream`, or the current stream of the current device for NULL. */
static ct_status stream_or_current(ct_cuda_stream *stream, ct_cuda_stream **out) {
    if (stream != NULL) {
        *out = stream;
        return CT_OK;
    }
    return ct_cuda_current_stream(-1, out);
}

ct_status ct_cuda_event_record(ct_cuda_event *event, ct_cuda_stream *stream) {
    if (event == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_cuda_event_record: event is NULL");
    ct_cuda_stream *s;
    ct_status st = stream_or_current(stream, &s);
    if (st != CT_OK)
        return st;
    if (event->device >= 0 && event->device != s->device) /* PyTorch's wording */
        return ct_set_error(CT_ERR_RUNTIME,
                            "Event device %d does not match recording stream's device %d.",
                            (int)event->device, (int)s->device);
    ct_cuda_impl_guard g;
    st = ct_cuda_impl_device_enter(s->device, &g);
    if (st != CT_OK)
        return st;
    cudaError_t e = cudaSuccess;
    if (event->handle == NULL) {
        e = cudaEventCreateWithFlags(&event->handle,
                                     event->timing ? cudaEventDefault : cudaEventDisableTiming);
        if (e == cudaSuccess)
            event->device = s->device;
        else
            event->handle = NULL;
    }
    if (e == cudaSuccess)
        e = cudaEventRecord(event->handle, s->handle);
    if (e != cudaSuccess)
        st = ct_cuda_impl_error(e);
    ct_cuda_impl_device_exit(&g);
    return st;
}

ct_status ct_cuda_stream_wait_event(ct_cuda_stream *stream, ct_cuda_event *event) {
    if (event == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_cuda_stream_wait_event: event is NULL");
    ct_cuda_stream *s;
    ct_status st = stream_or_current(stream, &s);
    if (st != CT_OK)
        return st;
    if (event->handle == NULL) /* never recorded: nothing to wait for (as in PyTorch) */
        return CT_OK;
    ct_cuda_impl_guard g;
    st = ct_cuda_impl_device_enter(s->device, &g);
    if (st != CT_OK)
        return st;
    cudaError_t e = cudaStreamWaitEvent(s->handle, event->handle, 0);
    if (e != cudaSuccess)
        st = ct_cuda_impl_error(e);
    ct_cuda_impl_device_exit(&g);
    return st;
}

ct_status ct_cuda_event_synchronize(ct_cuda_event *event) {
    if (event == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_cuda_event_synchronize: event is NULL");
    if (event->handle == NULL)
        return CT_OK;
    ct_cuda_impl_guard g;
    ct_status st = ct_cuda_impl_device_enter(event->device, &g);
    if (st != CT_OK)
        return st;
    cudaError_t e = cudaEventSynchronize(event->handle);
    if (e != cudaSuccess)
        st = ct_cuda_impl_error(e);
    ct_cuda_impl_device_exit(&g);
    return st;
}

ct_status ct_cuda_event_query(ct_cuda_event *event, bool *done) {
    if (done == NULL || event == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_cuda_event_query: NULL argument");
    *done = true;
    if (event->handle == NULL)
        return CT_OK;
    ct_cuda_impl_guard g;
    ct_status st = ct_cuda_impl_device_enter(event->device, &g);
    if (st != CT_OK)
        return st;
    cudaError_t e = cudaEventQuery(event->handle);
    if (e == cudaErrorNotReady) {
        *done = false;
        (void)cudaGetLastError();
    } else if (e != cudaSuccess) {
        st = ct_cuda_impl_error(e);
    }
    ct_cuda_impl_device_exit(&g);
    return st;
}

ct_status ct_cuda_event_elapsed_ms(ct_cuda_event *start, ct_cuda_event *end, float *ms) {
    if (start == NULL || end == NULL || ms == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_cuda_event_elapsed_ms: NULL argument");
    *ms = 0.0f;
    /* PyTorch's checks and wording */
    if (!start->timing || !end->timing)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Both events must be created with argument 'enable_timing=True'.");
    if (start->handle == NULL || end->handle == NULL)
        return ct_set_error(CT_ERR_RUNTIME,
                            "Both events must be recorded before calculating elapsed time.");
    ct_cuda_impl_guard g;
    ct_status st = ct_cuda_impl_device_enter(start->device, &g);
    if (st != CT_OK)
        return st;
    cudaError_t e = cudaEventElapsedTime(ms, start->handle, end->handle);
    if (e != cudaSuccess)
        st = ct_cuda_impl_error(e);
    ct_cuda_impl_device_exit(&g);
    return st;
}
