/* placement.c: ct_placement (oneflow.placement): construction in canonical order, queries,
 * format, equality and hash, placement.all. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist_impl.h"

/* The device types a placement can use: ctensor places on host memory (cpu) and on cuda
 * when a host-accessible backend is registered. Anything else, meta included, is refused
 * with OneFlow's message. */
static ct_status parse_type(const char *type, ct_device_type *out) {
    if (strcmp(type, "cpu") == 0)
        *out = CT_DEVICE_CPU;
    else if (strcmp(type, "cuda") == 0)
        *out = CT_DEVICE_CUDA;
    else
        return ct_set_error(CT_ERR_RUNTIME,
                            "Expected one of cpu, cuda device type at start of device string: %s",
                            type);
    return CT_OK;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t placement_hash(const ct_placement *p) {
    int64_t head[3] = {(int64_t)p->type, p->n, p->ndim};
    uint64_t h = ct_hash_bytes(0, "placement", 9);
    h = ct_hash_bytes(h, head, sizeof(head));
    h = ct_hash_bytes(h, p->ranks, sizeof(int64_t) * (size_t)p->n);
    return ct_hash_bytes(h, p->hierarchy, sizeof(int64_t) * (size_t)p->ndim);
}

/* Build from already validated, sorted, distinct ranks. Takes ownership of `sorted`. */
static ct_status placement_build(ct_device_type type, int64_t *sorted, int64_t n,
                                 const int64_t *hierarchy, int64_t ndim, ct_placement **out) {
    ct_placement *p = ct_dist_impl_calloc(1, sizeof(*p));
    if (!p) {
        ct_dist_impl_free(sorted);
        return ct_set_error(CT_ERR_NOMEM, "out of memory creating a placement");
    }
    atomic_init(&p->refcount, 1);
    p->type = type;
    p->n = n;
    p->ranks = sorted;
    p->ndim = ndim;
    memcpy(p->hierarchy, hierarchy, sizeof(int64_t) * (size_t)ndim);
    p->hash = placement_hash(p);
    *out = p;
    return CT_OK;
}

ct_status ct_placement_new(const char *type, const int64_t *ranks, const int64_t *hierarchy,
                           int64_t ndim, ct_placement **out) {
    if (!out)
        return ct_set_error(CT_ERR_MISUSE, "ct_placement_new: out is NULL");
    *out = NULL;
    if (!type)
        return ct_set_error(CT_ERR_MISUSE, "ct_placement_new: type is NULL");
    ct_device_type dtype = CT_DEVICE_CPU;
    ct_status st = parse_type(type, &dtype);
    if (st != CT_OK)
        return st;
    if (ndim < 1 || ndim > CT_PLACEMENT_MAX_NDIM)
        return ct_set_error(CT_ERR_VALUE,
                            "placement hierarchy must have 1 to %d dims, but got %lld",
                            CT_PLACEMENT_MAX_NDIM, (long long)ndim);
    if (!hierarchy)
        return ct_set_error(CT_ERR_MISUSE, "ct_placement_new: hierarchy is NULL");
    int64_t n = 1;
    bool empty = false;
    for (int64_t i = 0; i < ndim; i++) {
        if (hierarchy[i] < 0)
            return ct_set_error(CT_ERR_VALUE,
                                "placement hierarchy sizes must be positive, but got %lld",
                                (long long)hierarchy[i]);
        if (hierarchy[i] == 0)
            empty = true;
        else if (n > INT32_MAX / hierarchy[i])
            return ct_set_error(CT_ERR_VALUE, "placement hierarchy is too large");
        else
            n *= hierarchy[i];
    }
    /* An empty rank list is what Python's placement("cpu", []) produces. */
    if (empty)
        return ct_set_error(CT_ERR_RUNTIME, "placement ranks shoule be an array of long int");
    if (!ranks)
        return ct_set_error(CT_ERR_MISUSE, "ct_placement_new: ranks is NULL");
    int64_t world;
    st = ct_dist_world_size(&world);
    if (st != CT_OK)
        return st;
    for (int64_t i = 0; i < n; i++) {
        if (ranks[i] < 0)
            return ct_set_error(CT_ERR_RUNTIME,
                                "Placement is invalid because rank must be non-negative, but got "
                                "%lld!",
                                (long long)ranks[i]);
        if (ranks[i] >= world)
            return ct_set_error(CT_ERR_RUNTIME,
                                "Placement is invalid because rank must be less than world size!");
    }
    int64_t *sorted = ct_dist_impl_alloc(sizeof(int64_t) * (size_t)n);
    if (!sorted)
        return ct_set_error(CT_ERR_NOMEM, "out of memory creating a placement");
    memcpy(sorted, ranks, sizeof(int64_t) * (size_t)n);
    qsort(sorted, (size_t)n, sizeof(int64_t), cmp_i64);
    for (int64_t i = 1; i < n; i++) {
        if (sorted[i] == sorted[i - 1]) {
            int64_t dup = sorted[i];
            ct_dist_impl_free(sorted);
            return ct_set_error(CT_ERR_RUNTIME,
                                "Placement is invalid because rank %lld appears more than once!",
                                (long long)dup);
        }
    }
    return placement_build(dtype, sorted, n, hierarchy, ndim, out);
}

ct_status ct_placement_all(const char *type, ct_placement **out) {
    if (!out)
        return ct_set_error(CT_ERR_MISUSE, "ct_placement_all: out is NULL");
    *out = NULL;
    if (!type)
        return ct_set_error(CT_ERR_MISUSE, "ct_placement_all: type is NULL");
    ct_device_type dtype = CT_DEVICE_CPU;
    ct_status st = parse_type(type, &dtype);
    if (st != CT_OK)
        return st;
    int64_t world, nodes;
    if ((st = ct_dist_world_size(&world)) != CT_OK)
        return st;
    /* Every process on every node may use the cpu; an accelerator only up to its device
     * count per node. */
    int64_t per_node = world, k = world;
    if (dtype != CT_DEVICE_CPU) {
        if ((st = ct_dist_node_size(&nodes)) != CT_OK)
            return st;
        per_node = world / nodes;
        int32_t count = 0;
        if ((st = ct_device_count(dtype, &count)) != CT_OK)
            return st;
        if (count <= 0)
            return ct_set_error(CT_ERR_RUNTIME,
                                "Can't construct placement with \"%s\" type because there is no "
                                "device!",
                                type);
        k = count < per_node ? count : per_node;
    }
    int64_t n = (world / per_node) * k;
    int64_t *ranks = ct_dist_impl_alloc(sizeof(int64_t) * (size_t)n);
    if (!ranks)
        return ct_set_error(CT_ERR_NOMEM, "out of memory creating a placement");
    int64_t m = 0;
    for (int64_t node = 0; node < world / per_node; node++)
        for (int64_t j = 0; j < k; j++)
            ranks[m++] = node * per_node + j;
    int64_t h[1] = {n};
    return placement_build(dtype, ranks, n, h, 1, out);
}

ct_placement *ct_placement_retain(ct_placement *placement) {
    if (placement)
        atomic_fetch_add_explicit(&placement->refcount, 1, memory_order_relaxed);
    return placement;
}

void ct_placement_release(ct_placement *placement) {
    if (!placement)
        return;
    if (atomic_fetch_sub_explicit(&placement->refcount, 1, memory_order_acq_rel) != 1)
        return;
    ct_dist_impl_free(placement->ranks);
    ct_dist_impl_free(placement);
}

ct_device_type ct_placement_device_type(const ct_placement *placement) {
    return placement ? placement->type : CT_DEVICE_UNDEFINED;
}

const char *ct_placement_type_name(const ct_placement *placement) {
    if (!placement)
        return NULL;
    return placement->type == CT_DEVICE_CPU ? "cpu" : "cuda";
}

int64_t ct_placement_size(const ct_placement *placement) { return placement ? placement->n : 0; }
const int64_t *ct_placement_ranks(const ct_placement *placement) {
    return placement ? placement->ranks : NULL;
}
int64_t ct_placement_ndim(const ct_placement *placement) { return placement ? placement->ndim : 0; }
const int64_t *ct_placement_hierarchy(const ct_placement *placement) {
    return placement ? placement->hierarchy : NULL;
}

int64_t ct_placement_parallel_id(const ct_placement *placement, int64_t rank) {
    if (!placement)
        return -1;
    int64_t lo = 0, hi = placement->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (placement->ranks[mid] < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < placement->n && placement->ranks[lo] == rank ? lo : -1;
}

bool ct_placement_contains(const ct_placement *placement, int64_t rank) {
    return ct_placement_parallel_id(placement, rank) >= 0;
}

bool ct_placement_equal(const ct_placement *a, const ct_placement *b) {
    if (a == b)
        return true;
    if (!a || !b)
        return false;
    return a->type == b->type && a->n == b->n && a->ndim == b->ndim &&
           memcmp(a->hierarchy, b->hierarchy, sizeof(int64_t) * (size_t)a->ndim) == 0 &&
           memcmp(a->ranks, b->ranks, sizeof(int64_t) * (size_t)a->n) == 0;
}

uint64_t ct_placement_hash(const ct_placement *placement) {
    return placement ? placement->hash : 0;
}

ct_status ct_placement_local_device(const ct_placement *placement, ct_device *out) {
    if (!out)
        return ct_set_error(CT_ERR_MISUSE, "ct_placement_local_device: out is NULL");
    out->type = CT_DEVICE_UNDEFINED;
    out->index = CT_DEVICE_NO_INDEX;
    if (!placement)
        return ct_set_error(CT_ERR_MISUSE, "ct_placement_local_device: placement is NULL");
    if (placement->type == CT_DEVICE_CPU) /* ctensor's cpu device carries no index */
        return ct_device_make(CT_DEVICE_CPU, CT_DEVICE_NO_INDEX, out);
    int64_t local;
    ct_status st = ct_dist_local_rank(&local);
    if (st != CT_OK)
        return st;
    /* OneFlow's rule: the rank's device is cuda:(local rank % device count), so that more
     * processes than devices on a node share them. Without devices the index stays the local
     * rank, and the first allocation on it reports the missing backend or device. */
    int32_t count = 0;
    if (ct_device_count(placement->type, &count) == CT_OK && count > 0)
        local %= count;
    return ct_device_make(placement->type, local, out);
}

ct_status ct_dist_impl_placement_retype(const ct_placement *placement, ct_device_type type,
                                        ct_placement **out) {
    if (placement->type == type) {
        *out = ct_placement_retain((ct_placement *)placement);
        return CT_OK;
    }
    int64_t *ranks = ct_dist_impl_alloc(sizeof(int64_t) * (size_t)placement->n);
    if (!ranks) {
        *out = NULL;
        return ct_set_error(CT_ERR_NOMEM, "out of memory creating a placement");
    }
    memcpy(ranks, placement->ranks, sizeof(int64_t) * (size_t)placement->n);
    return placement_build(type, ranks, placement->n, placement->hierarchy, placement->ndim, out);
}

/* ---- format ---------------------------------------------------------------------------- */

/* Nested Python lists following the hierarchy: axis `k`, ranks from `*next` on. */
static void fmt_ranks(ct_sb *f, const ct_placement *p, int64_t k, int64_t *next) {
    ct_sb_appendf(f, "[");
    for (int64_t i = 0; i < p->hierarchy[k]; i++) {
        if (i > 0)
            ct_sb_appendf(f, ", ");
        /* (the bound on k also tells the optimiser the recursion stops inside hierarchy[]) */
        if (k + 1 >= p->ndim || k + 1 >= CT_PLACEMENT_MAX_NDIM)
            ct_sb_appendf(f, "%lld", (long long)p->ranks[(*next)++]);
        else
            fmt_ranks(f, p, k + 1, next);
    }
    ct_sb_appendf(f, "]");
}

void ct_dist_impl_placement_append(ct_sb *b, const ct_placement *placement, const char *module) {
    if (!placement)
        return;
    ct_sb_appendf(b, "%s.placement(type=\"%s\", ranks=", module ? module : "ctensor",
                  ct_placement_type_name(placement));
    int64_t next = 0;
    fmt_ranks(b, placement, 0, &next);
    ct_sb_appendf(b, ")");
}

ct_status ct_placement_format(const ct_placement *placement, const char *module, char **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_placement_format: out is NULL");
    *out = NULL;
    if (placement == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_placement_format: placement is NULL");
    ct_sb f;
    ct_sb_init(&f);
    ct_dist_impl_placement_append(&f, placement, module);
    ct_status st = ct_sb_finish(&f, out);
    ct_sb_free(&f);
    return st;
}

/* ---- internal ---------------------------------------------------------------------------- */

void ct_dist_impl_placement_coords(const ct_placement *placement, int64_t pid, int64_t *coords) {
    for (int64_t k = placement->ndim - 1; k >= 0; k--) {
        coords[k] = pid % placement->hierarchy[k];
        pid /= placement->hierarchy[k];
    }
}

int64_t ct_dist_impl_placement_pid_of(const ct_placement *placement, const int64_t *coords) {
    int64_t pid = 0;
    for (int64_t k = 0; k < placement->ndim; k++)
        pid = pid * placement->hierarchy[k] + coords[k];
    return pid;
}

int64_t ct_dist_impl_placement_my_pid(const ct_placement *placement) {
    return ct_placement_parallel_id(placement, ct_dist_impl_my_rank());
}
