/* safetensors files: mapping a file and handing out tensors that view it (no copy), and
 * writing one (include/ctensor/safetensors.h). The mapping is shared by the handle and by a
 * storage per tensor (ct_storage_wrap with a finalizer), each holding a reference, so the
 * pages stay mapped exactly as long as something can read them. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc_impl.h"
#include "base/error_impl.h"
#include "base/strbuf.h"
#include "io/safetensors_impl.h"

static ct_safetensors *handle_new(void) {
    ct_safetensors *f = ct_alloc(sizeof *f, _Alignof(ct_safetensors));
    if (f != NULL)
        *f = (ct_safetensors){0};
    return f;
}

ct_status ct_safetensors_parse(const void *bytes, size_t size, ct_safetensors **out) {
    if (out != NULL)
        *out = NULL;
    if (out == NULL || (bytes == NULL && size > 0))
        return ct_set_error(CT_ERR_MISUSE, "ct_safetensors_parse: NULL argument");
    ct_safetensors *f = handle_new();
    if (f == NULL)
        return ct_set_error(CT_ERR_NOMEM, "out of memory");
    uint64_t start = 0;
    ct_status st = st_parse_into(f, bytes, size, &start);
    if (st != CT_OK) {
        st_handle_free(f);
        return st;
    }
    *out = f;
    return CT_OK;
}

/* ---- the mapping ----------------------------------------------------------------------------- */

static void mapping_release(st_mapping *m) {
    if (m != NULL && atomic_fetch_sub_explicit(&m->refcount, 1, memory_order_acq_rel) == 1) {
        munmap(m->addr, m->size);
        ct_free(m, sizeof *m, _Alignof(st_mapping));
    }
}

static void storage_finalizer(void *ctx, void *data) {
    (void)data;
    mapping_release(ctx);
}

static ct_status os_error(const char *what, const char *path, int err) {
    return ct_set_error(CT_ERR_RUNTIME, "%s (os error %d): %s: %s", strerror(err), err, what, path);
}

/* Map the whole file (copy-on-write, so that writes into loaded tensors stay private). */
static ct_status map_file(const char *path, st_mapping **out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return os_error("open", path, errno);
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return os_error("stat", path, e);
    }
    if (!S_ISREG(sb.st_mode) || sb.st_size < 8) {
        close(fd);
        if (!S_ISREG(sb.st_mode))
            return ct_set_error(CT_ERR_RUNTIME, "not a regular file: %s", path);
        return ct_set_error(CT_ERR_VALUE, "Error while deserializing header: HeaderTooSmall: "
                                          "the file has %lld bytes, fewer than the 8 of the "
                                          "header length",
                            (long long)sb.st_size);
    }
    size_t size = (size_t)sb.st_size;
    void *addr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd); /* the mapping keeps the file */
    if (addr == MAP_FAILED)
        return os_error("mmap", path, e);
    st_mapping *m = ct_alloc(sizeof *m, _Alignof(st_mapping));
    if (m == NULL) {
        munmap(addr, size);
        return ct_set_error(CT_ERR_NOMEM, "out of memory");
    }
    atomic_init(&m->refcount, 1);
    m->addr = addr;
    m->size = size;
    *out = m;
    return CT_OK;
}

ct_status ct_safetensors_open(const char *path, ct_safetensors **out) {
    if (out != NULL)
        *out = NULL;
    if (path == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_safetensors_open: NULL argument");
    st_mapping *m = NULL;
    CT_TRY(map_file(path, &m));
    ct_safetensors *f = handle_new();
    if (f == NULL) {
        mapping_release(m);
        return ct_set_error(CT_ERR_NOMEM, "out of memory");
    }
    f->mapping = m;
    uint64_t start = 0;
    ct_status st = st_parse_into(f, m->addr, m->size, &start);
    if (st != CT_OK) {
        ct_safetensors_close(f);
        return st;
    }
    f->data = (const unsigned char *)m->addr + start;
    *out = f;
    return CT_OK;
}

void ct_safetensors_close(ct_safetensors *f) {
    if (f == NULL)
        return;
    mapping_release(f->mapping);
    st_handle_free(f);
}

size_t ct_safetensors_count(const ct_safetensors *f) { return f != NULL ? f->n : 0; }
size_t ct_safetensors_metadata_count(const ct_safetensors *f) { return f != NULL ? f->nmeta : 0; }

ct_status ct_safetensors_info_at(const ct_safetensors *f, size_t i, ct_safetensors_info *out) {
    if (f == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_safetensors_info_at: NULL argument");
    if (i >= f->n)
        return ct_set_error(CT_ERR_INDEX, "safetensors: tensor index %zu out of range for %zu "
                                          "tensors", i, f->n);
    const st_entry *e = &f->entries[i];
    static const int64_t none[1] = {0};
    *out = (ct_safetensors_info){.name = e->name, .format = e->format->name,
                                 .dtype = e->format->dtype, .ndim = e->ndim,
                                 .shape = e->shape != NULL ? e->shape : none,
                                 .begin = e->begin, .end = e->end};
    return CT_OK;
}

ct_status ct_safetensors_metadata_at(const ct_safetensors *f, size_t i, const char **key,
                                     const char **value) {
    if (f == NULL || key == NULL || value == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_safetensors_metadata_at: NULL argument");
    if (i >= f->nmeta)
        return ct_set_error(CT_ERR_INDEX, "safetensors: metadata index %zu out of range for %zu "
                                          "entries", i, f->nmeta);
    *key = f->meta[2 * i];
    *value = f->meta[2 * i + 1];
    return CT_OK;
}

ct_status ct_safetensors_tensor(const ct_safetensors *f, size_t i, ct_tensor **out) {
    if (out != NULL)
        *out = NULL;
    if (f == NULL || out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_safetensors_tensor: NULL argument");
    if (f->mapping == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_safetensors_tensor: the handle was parsed from "
                                           "bytes and has no data");
    if (i >= f->n)
        return ct_set_error(CT_ERR_INDEX, "safetensors: tensor index %zu out of range for %zu "
                                          "tensors", i, f->n);
    const st_entry *e = &f->entries[i];
    if (e->format->dtype == CT_DTYPE_UNDEFINED)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "safetensors: dtype %s of '%s' has no ctensor "
                                                    "dtype", e->format->name, e->name);
    int64_t shape[CT_MAX_DIMS];
    if (e->ndim > 0)
        memcpy(shape, e->shape, (size_t)e->ndim * sizeof(int64_t));
    if (e->format->dtype == CT_FLOAT4_E2M1FN_X2) { /* the file counts values, ctensor pairs */
        if (e->ndim == 0 || shape[e->ndim - 1] % 2 != 0)
            return ct_set_error(CT_ERR_VALUE, "safetensors: F4 tensor '%s' has %s; "
                                              "float4_e2m1fn_x2 holds pairs", e->name,
                                e->ndim == 0 ? "no dimensions" : "an odd last dimension");
        shape[e->ndim - 1] /= 2;
    }
    ct_storage *s = NULL;
    atomic_fetch_add_explicit(&f->mapping->refcount, 1, memory_order_relaxed);
    ct_status st = ct_storage_wrap((ct_device){CT_DEVICE_CPU, CT_DEVICE_NO_INDEX},
                                   (void *)(f->data + e->begin), (size_t)(e->end - e->begin),
                                   storage_finalizer, f->mapping, &s);
    if (st != CT_OK) { /* the finalizer was not taken over */
        mapping_release(f->mapping);
        return st;
    }
    st = ct_tensor_from_storage(s, shape, NULL, e->ndim, 0, e->format->dtype, out);
    ct_storage_release(s); /* the tensor holds its own reference */
    return st;
}

/* ---- saving ---------------------------------------------------------------------------------- */

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_string(ct_sb *b, const char *s) {
    ct_sb_puts(b, "\"");
    for (; *s != 0; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            ct_sb_appendf(b, "\\%c", c);
        else if (c < 0x20)
            ct_sb_appendf(b, "\\u%04x", c);
        else
            ct_sb_put(b, s, 1);
    }
    ct_sb_puts(b, "\"");
}

typedef struct save_item {
    const char *name;
    const ct_tensor *tensor;
    const st_format *format;
    uint64_t nbytes;
} save_item;

static int by_size_then_name(const void *a, const void *b) {
    const save_item *x = a, *y = b;
    if (x->format->bits != y->format->bits)
        return x->format->bits > y->format->bits ? -1 : 1;
    return strcmp(x->name, y->name);
}

static ct_status check_item(save_item *it) {
    const ct_tensor *t = it->tensor;
    if (it->name == NULL || t == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_safetensors_save: NULL name or tensor");
    if (ct_tensor_layout(t) != CT_LAYOUT_STRIDED)
        return ct_set_error(CT_ERR_VALUE,
                            "You are trying to save a sparse tensor: '%s' which this library "
                            "does not support. You can make it a dense tensor before saving "
                            "with `.to_dense()` but be aware this might make a much larger file "
                            "than needed.",
                            it->name);
    if (strcmp(it->name, "__metadata__") == 0)
        return ct_set_error(CT_ERR_VALUE, "safetensors: a tensor cannot be named __metadata__");
    it->format = st_format_of(ct_tensor_dtype(t));
    if (it->format == NULL)
        return ct_set_error(CT_ERR_TYPE, "safetensors: dtype %s of '%s' has no safetensors dtype",
                            ct_dtype_name(ct_tensor_dtype(t)), it->name);
    if (ct_tensor_dtype(t) == CT_FLOAT4_E2M1FN_X2 && ct_tensor_dim(t) == 0)
        return ct_set_error(CT_ERR_VALUE, "safetensors: the 0-dim float4_e2m1fn_x2 tensor '%s' "
                                          "has no F4 shape", it->name);
    if (ct_tensor_is_meta(t))
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "Cannot copy out of meta tensor; no data!");
    it->nbytes = (uint64_t)ct_tensor_nbytes(t);
    return CT_OK;
}

/* The header, padded with spaces to a multiple of 8 bytes (after the 8-byte length). */
static void build_header(ct_sb *b, const save_item *items, size_t n, size_t nmeta,
                         const char *const *keys, const char *const *values) {
    ct_sb_puts(b, "{");
    if (nmeta > 0) {
        ct_sb_puts(b, "\"__metadata__\":{");
        for (size_t i = 0; i < nmeta; i++) {
            ct_sb_puts(b, i > 0 ? "," : "");
            json_string(b, keys[i]);
            ct_sb_puts(b, ":");
            json_string(b, values[i]);
        }
        ct_sb_puts(b, "}");
    }
    uint64_t at = 0;
    for (size_t i = 0; i < n; i++) {
        const ct_tensor *t = items[i].tensor;
        ct_sb_puts(b, i > 0 || nmeta > 0 ? "," : "");
        json_string(b, items[i].name);
        ct_sb_appendf(b, ":{\"dtype\":\"%s\",\"shape\":[", items[i].format->name);
        for (int64_t d = 0; d < ct_tensor_dim(t); d++) {
            int64_t s = ct_tensor_sizes(t)[d];
            if (d == ct_tensor_dim(t) - 1 && items[i].format->bits == 4)
                s *= 2; /* pairs -> values */
            ct_sb_appendf(b, "%s%lld", d > 0 ? "," : "", (long long)s);
        }
        ct_sb_appendf(b, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)at,
                      (unsigned long long)(at + items[i].nbytes));
        at += items[i].nbytes;
    }
    ct_sb_puts(b, "}");
    ct_sb_fill(b, ' ', (int64_t)((8 - ct_sb_len(b) % 8) % 8));
}

static ct_status write_all(FILE *fp, const void *p, size_t n, const char *path) {
    if (n > 0 && fwrite(p, 1, n, fp) != n)
        return os_error("write", path, errno != 0 ? errno : EIO);
    return CT_OK;
}

/* One tensor's bytes: contiguous cpu data as it is, anything else through a copy. */
static ct_status write_tensor(FILE *fp, const ct_tensor *t, const char *path) {
    ct_tensor *c = NULL;
    ct_device cpu = {CT_DEVICE_CPU, CT_DEVICE_NO_INDEX};
    CT_TRY(ct_tensor_to(t, CT_DTYPE_UNDEFINED, &cpu, false, CT_MEMFMT_PRESERVE, &c));
    ct_tensor *d = NULL;
    ct_status st = ct_tensor_contiguous(c, CT_MEMFMT_CONTIGUOUS, &d);
    ct_tensor_release(c);
    if (st == CT_OK)
        st = write_all(fp, ct_tensor_data_ptr(d), (size_t)ct_tensor_nbytes(d), path);
    ct_tensor_release(d);
    return st;
}

/* A new file next to `path` (its name in tmp), replaced onto `path` once complete: a file
 * that is loaded (mapped) while it is overwritten keeps its old pages, where truncating it in
 * place would make the mapped tensors fault (SIGBUS) on their next read. Created with mode
 * 0666 less the umask, as fopen creates. */
static ct_status open_temp(const char *path, char *tmp, size_t size, FILE **out) {
    static atomic_uint counter;
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned k = atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
        int w = snprintf(tmp, size, "%s.ct-tmp-%ld-%u", path, (long)getpid(), k);
        if (w < 0 || (size_t)w >= size)
            return ct_set_error(CT_ERR_RUNTIME, "File name too long: %s", path);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno == EEXIST)
            continue;
        if (fd < 0)
            return os_error("open", path, errno);
        *out = fdopen(fd, "wb");
        if (*out == NULL) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return os_error("open", path, e);
        }
        return CT_OK;
    }
    return ct_set_error(CT_ERR_RUNTIME, "could not create a temporary file next to %s", path);
}

static ct_status save_items(const char *path, save_item *items, size_t n, size_t nmeta,
                            const char *const *keys, const char *const *values) {
    for (size_t i = 0; i < n; i++)
        CT_TRY(check_item(&items[i]));
    for (size_t i = 0; i < nmeta; i++)
        if (keys == NULL || values == NULL || keys[i] == NULL || values[i] == NULL)
            return ct_set_error(CT_ERR_MISUSE, "ct_safetensors_save: NULL metadata");
    if (n > 1)
        qsort(items, n, sizeof *items, by_size_then_name);
    for (size_t i = 1; i < n; i++)
        if (strcmp(items[i].name, items[i - 1].name) == 0)
            return ct_set_error(CT_ERR_VALUE, "safetensors: the name '%s' appears twice",
                                items[i].name);
    ct_sb b;
    ct_sb_init(&b);
    build_header(&b, items, n, nmeta, keys, values);
    if (ct_sb_failed(&b)) {
        ct_sb_free(&b);
        return ct_set_error(CT_ERR_NOMEM, "out of memory");
    }
    char tmp[4096];
    FILE *fp = NULL;
    ct_status st = open_temp(path, tmp, sizeof tmp, &fp);
    if (st != CT_OK) {
        ct_sb_free(&b);
        return st;
    }
    unsigned char len[8];
    uint64_t hl = ct_sb_len(&b);
    for (int i = 0; i < 8; i++)
        len[i] = (unsigned char)(hl >> (8 * i));
    st = write_all(fp, len, 8, path);
    if (st == CT_OK)
        st = write_all(fp, ct_sb_str(&b), ct_sb_len(&b), path);
    ct_sb_free(&b);
    for (size_t i = 0; i < n && st == CT_OK; i++)
        st = write_tensor(fp, items[i].tensor, path);
    if (fclose(fp) != 0 && st == CT_OK)
        st = os_error("close", path, errno);
    if (st == CT_OK && rename(tmp, path) != 0)
        st = os_error("rename", path, errno);
    if (st != CT_OK)
        unlink(tmp);
    return st;
}

ct_status ct_safetensors_save(const char *path, size_t n, const char *const *names,
                              const ct_tensor *const *tensors, size_t nmeta,
                              const char *const *keys, const char *const *values) {
    if (path == NULL || (n > 0 && (names == NULL || tensors == NULL)))
        return ct_set_error(CT_ERR_MISUSE, "ct_safetensors_save: NULL argument");
    save_item *items = NULL;
    if (n > 0 && (items = ct_alloc(n * sizeof *items, _Alignof(save_item))) == NULL)
        return ct_set_error(CT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        items[i] = (save_item){.name = names[i], .tensor = tensors[i]};
    ct_status st = save_items(path, items, n, nmeta, keys, values);
    if (items != NULL)
        ct_free(items, n * sizeof *items, _Alignof(save_item));
    return st;
}
