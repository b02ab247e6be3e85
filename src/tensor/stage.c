/* Note [Staging through host memory] (stage.h): mirrors, results and write-back. */
#include <stdatomic.h>
#include <string.h>

#include "ctensor/reorder.h"
#include "ctensor/warning.h"

#include "base/error_impl.h"
#include "tensor/stage.h"
#include "tensor/tensor_impl.h"

/* Mirrors start on a 16-byte boundary of the device storage, so the offset of every view in
 * them stays a whole number of elements whatever the dtypes sharing the storage. */
#define STAGE_ALIGN 16

bool ct_stage_wanted(const ct_tensor *t) {
    return t != NULL && t->layout == CT_LAYOUT_STRIDED && t->device.type != CT_DEVICE_CPU &&
           t->device.type != CT_DEVICE_META;
}

void ct_stage_init(ct_stage *s, const char *fn) {
    memset(s, 0, sizeof *s);
    s->fn = fn;
    s->device = (ct_device){CT_DEVICE_UNDEFINED, CT_DEVICE_NO_INDEX};
}

int ct_stage_add(ct_stage *s, const ct_tensor *t, unsigned flags) {
    int k = s->nargs++;
    if (k < CT_STAGE_MAX_ARGS)
        s->args[k] = (ct_stage_arg){.device = (ct_tensor *)t, .flags = flags, .group = -1};
    return k;
}

ct_tensor *ct_stage_host(const ct_stage *s, int k) {
    return k >= 0 && k < s->nargs && k < CT_STAGE_MAX_ARGS ? s->args[k].host : NULL;
}

/* The bytes of t's storage its elements reach: [*lo, *hi). False for no elements. */
static bool byte_span(const ct_tensor *t, size_t *lo, size_t *hi) {
    if (t->numel == 0)
        return false;
    size_t isz = ct_dtype_itemsize(t->dtype);
    int64_t last = t->storage_offset;
    for (int32_t d = 0; d < t->ndim; d++)
        last += (t->sizes[d] - 1) * t->strides[d]; /* strides are never negative */
    *lo = (size_t)t->storage_offset * isz;
    *hi = ((size_t)last + 1) * isz;
    return true;
}

static void release_all(ct_stage *s) {
    for (int k = 0; k < s->nargs && k < CT_STAGE_MAX_ARGS; k++) {
        ct_tensor_release(s->args[k].host);
        s->args[k].host = NULL;
    }
    for (int g = 0; g < s->ngroups; g++) {
        ct_storage_release(s->groups[g].host);
        s->groups[g].host = NULL;
    }
    s->ngroups = 0;
}

static ct_status check_devices(ct_stage *s) {
    int first = 0;
    for (int k = s->nargs - 1; k >= 0; k--)
        if (ct_stage_wanted(s->args[k].device)) {
            s->device = s->args[k].device->device;
            first = k;
        }
    for (int k = 0; k < s->nargs; k++) {
        const ct_tensor *t = s->args[k].device;
        if (t == NULL || t->layout != CT_LAYOUT_STRIDED || ct_device_equal(t->device, s->device))
            continue;
        if (t->device.type == CT_DEVICE_CPU && (s->args[k].flags & CT_STAGE_ANY_DEVICE))
            continue;
        char a[64], b[64];
        /* PyTorch names the devices in the order of the arguments */
        CT_TRY(ct_device_str(k < first ? t->device : s->device, a, sizeof a));
        CT_TRY(ct_device_str(k < first ? s->device : t->device, b, sizeof b));
        return ct_set_error(CT_ERR_RUNTIME,
                            "Expected all tensors to be on the same device, but found at least "
                            "two devices, %s and %s!",
                            a, b);
    }
    return CT_OK;
}

/* Groups the staged arguments by device storage and widens each group's span. */
static void plan_groups(ct_stage *s) {
    for (int k = 0; k < s->nargs; k++) {
        ct_stage_arg *a = &s->args[k];
        if (!ct_stage_wanted(a->device))
            continue;
        int g = 0;
        while (g < s->ngroups && s->groups[g].device_storage != a->device->storage)
            g++;
        if (g == s->ngroups)
            s->groups[s->ngroups++] = (ct_stage_group){
                .device_storage = a->device->storage, .start = SIZE_MAX, .end = 0};
        a->group = g;
        ct_stage_group *gr = &s->groups[g];
        gr->written = gr->written || (a->flags & CT_STAGE_WRITTEN);
        size_t lo, hi;
        if (byte_span(a->device, &lo, &hi)) {
            lo -= lo % STAGE_ALIGN;
            gr->start = lo < gr->start ? lo : gr->start;
            gr->end = hi > gr->end ? hi : gr->end;
        }
    }
    for (int g = 0; g < s->ngroups; g++)
        if (s->groups[g].start == SIZE_MAX) /* only empty tensors */
            s->groups[g].start = s->groups[g].end = 0;
}

static ct_status mirror_groups(ct_stage *s) {
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    for (int g = 0; g < s->ngroups; g++) {
        ct_stage_group *gr = &s->groups[g];
        size_t n = gr->end - gr->start;
        CT_TRY(ct_storage_new(cpu, n, &gr->host));
        if (n > 0)
            CT_TRY(ct_device_copy(cpu, gr->host->data, gr->device_storage->device,
                                  (const char *)gr->device_storage->data + gr->start, n));
    }
    return CT_OK;
}

/* Ops warned about so far (their name literals), so each warns once per process, as
 * PyTorch's cpu fallback for MPS does: the results are right, but a program that cares for
 * speed should know its data makes the round trip. Full: no more warnings. */
#define WARNED_MAX 256
static _Atomic(const char *) warned[WARNED_MAX];

static void warn_once(const ct_stage *s) {
    for (int i = 0; i < WARNED_MAX; i++) {
        const char *seen = atomic_load_explicit(&warned[i], memory_order_acquire);
        if (seen == NULL) {
            const char *expected = NULL;
            if (atomic_compare_exchange_strong(&warned[i], &expected, s->fn))
                break;
            seen = expected;
        }
        if (seen == s->fn || strcmp(seen, s->fn) == 0)
            return;
        if (i == WARNED_MAX - 1)
            return;
    }
    ct_warn("The operator '%s' is not currently supported on the %s device and will fall back "
            "to run on the CPU. This may have performance implications.",
            s->fn, ct_device_type_name(s->device.type));
}

static ct_status make_hosts(ct_stage *s) {
    for (int k = 0; k < s->nargs; k++) {
        ct_stage_arg *a = &s->args[k];
        if (a->group < 0) {
            a->host = a->device != NULL ? ct_tensor_retain(a->device) : NULL;
            continue;
        }
        const ct_tensor *t = a->device;
        const ct_stage_group *gr = &s->groups[a->group];
        size_t isz = ct_dtype_itemsize(t->dtype);
        size_t lo = (size_t)t->storage_offset * isz;
        int64_t off = t->numel > 0 && lo >= gr->start ? (int64_t)((lo - gr->start) / isz) : 0;
        CT_TRY(ct_tensor_impl_new(gr->host, t->dtype, t->sizes, t->strides, t->ndim, off,
                                  s->fn, &a->host));
        a->host->flags |= t->flags & CT_TF_WRAPPED_NUMBER;
    }
    return CT_OK;
}

ct_status ct_stage_begin(ct_stage *s) {
    if (s->nargs > CT_STAGE_MAX_ARGS)
        return ct_set_error(CT_ERR_MISUSE, "%s: more than %d arguments to stage", s->fn,
                            CT_STAGE_MAX_ARGS);
    ct_status st = check_devices(s);
    if (st == CT_OK) {
        plan_groups(s);
        st = mirror_groups(s);
    }
    if (st == CT_OK)
        st = make_hosts(s);
    if (st != CT_OK)
        release_all(s);
    else if (s->ngroups > 0)
        warn_once(s);
    return st;
}

ct_status ct_stage_result(ct_stage *s, ct_tensor *host, ct_tensor **out) {
    *out = NULL;
    if (host == NULL)
        return CT_OK;
    for (int k = 0; k < s->nargs; k++)
        if (host == s->args[k].host && s->args[k].device != NULL &&
            (s->args[k].group >= 0 || (s->args[k].flags & CT_STAGE_WRITTEN))) {
            /* an argument itself (an out= tensor): the device argument, written back by
             * ct_stage_end */
            *out = ct_tensor_retain(s->args[k].device);
            ct_tensor_release(host);
            return CT_OK;
        }
    ct_status st = CT_OK;
    size_t isz = ct_dtype_itemsize(host->dtype);
    for (int g = 0; g < s->ngroups; g++) {
        const ct_stage_group *gr = &s->groups[g];
        if (host->storage != gr->host)
            continue;
        /* a view of an argument: the same view of its device storage */
        int64_t off = (int64_t)(((size_t)host->storage_offset * isz + gr->start) / isz);
        st = ct_tensor_impl_new(gr->device_storage, host->dtype, host->sizes, host->strides,
                                host->ndim, off, s->fn, out);
        ct_tensor_release(host);
        return st;
    }
    ct_storage *dev = NULL;
    size_t n = host->storage != NULL ? host->storage->nbytes : 0;
    st = ct_storage_new(s->device, n, &dev);
    if (st == CT_OK && n > 0)
        st = ct_device_copy(dev->device, dev->data, host->storage->device, host->storage->data,
                            n);
    if (st == CT_OK)
        st = ct_tensor_impl_new(dev, host->dtype, host->sizes, host->strides, host->ndim,
                                host->storage_offset, s->fn, out);
    if (st == CT_OK)
        (*out)->flags |= host->flags & CT_TF_WRAPPED_NUMBER;
    ct_storage_release(dev);
    ct_tensor_release(host);
    return st;
}

static bool same_dims(const ct_tensor *a, const ct_tensor *b) {
    return a->ndim == b->ndim &&
           memcmp(a->sizes, b->sizes, (size_t)a->ndim * sizeof(int64_t)) == 0 &&
           memcmp(a->strides, b->strides, (size_t)a->ndim * sizeof(int64_t)) == 0;
}

/* A written argument whose mirror view the op replaced with a new host storage (an out=
 * tensor it resized beyond the mirror): the device tensor gets the geometry too, growing its
 * own storage where needed, then the elements' bytes. */
static ct_status write_back_replaced(ct_tensor *d, const ct_tensor *h) {
    CT_TRY(ct_tensor_impl_resize(d, h->sizes, h->ndim, h->strides));
    size_t lo, hi;
    if (!byte_span(h, &lo, &hi))
        return CT_OK;
    size_t at = (size_t)d->storage_offset * ct_dtype_itemsize(d->dtype);
    return ct_device_copy(d->storage->device, (char *)d->storage->data + at, h->storage->device,
                          (const char *)h->storage->data + lo, hi - lo);
}

static ct_status write_back(ct_stage *s) {
    /* the spans first: a resize below may drop the last reference to a group's storage */
    for (int g = 0; g < s->ngroups; g++) {
        ct_stage_group *gr = &s->groups[g];
        if (gr->written && gr->end > gr->start)
            CT_TRY(ct_device_copy(gr->device_storage->device,
                                  (char *)gr->device_storage->data + gr->start,
                                  gr->host->device, gr->host->data, gr->end - gr->start));
    }
    for (int k = 0; k < s->nargs; k++) {
        ct_stage_arg *a = &s->args[k];
        if (a->group < 0 || !(a->flags & CT_STAGE_WRITTEN))
            continue;
        ct_tensor *d = a->device, *h = a->host;
        const ct_stage_group *gr = &s->groups[a->group];
        if (h->storage != gr->host) {
            CT_TRY(write_back_replaced(d, h));
            continue;
        }
        size_t isz = ct_dtype_itemsize(h->dtype);
        int64_t off = (int64_t)(((size_t)h->storage_offset * isz + gr->start) / isz);
        if (!same_dims(d, h) || d->storage_offset != off)
            CT_TRY(ct_tensor_as_strided_(d, h->sizes, h->strides, h->ndim, &off));
    }
    return CT_OK;
}

ct_status ct_stage_end(ct_stage *s, ct_status st) {
    if (st == CT_OK && s->ngroups > 0)
        st = write_back(s);
    release_all(s);
    return st;
}

ct_status ct_stage_finish(ct_stage *s, ct_status st, ct_tensor *host, ct_tensor **out) {
    ct_tensor *r = NULL;
    if (st == CT_OK)
        st = ct_stage_result(s, host, &r);
    else
        ct_tensor_release(host);
    st = ct_stage_end(s, st);
    if (st != CT_OK || out == NULL) {
        ct_tensor_release(r);
        r = NULL;
    }
    if (out != NULL)
        *out = r;
    return st;
}
