/* shm_cow.c: the result of a same-node S(d) -> B as one shared file that every rank maps
 * copy-on-write (Note [Copy-on-write broadcast results]).
 *
 * Note [Copy-on-write broadcast results]
 * A B tensor's local storage is private to its rank: an in-place write on one rank must not
 * show on another. Yet the cheapest S(d) -> B writes each block once for all ranks, into
 * memory they share. Both hold when the sharing is the kernel's: rank 0 makes an anonymous
 * shared-memory file (memfd) of the whole tensor's size, every rank opens it through
 * /proc/<pid>/fd, maps it MAP_SHARED to write its own column blocks into place, and maps it
 * MAP_PRIVATE as its output. After the collective that follows the writes nobody writes
 * the file again (the shared mappings and every descriptor are gone), so the private
 * mappings read the same physical pages until a rank writes one: the kernel then gives that
 * rank its own copy of the page, leaving the others' untouched. Freeing is local (munmap,
 * the storage's finalizer) and the kernel frees the file's pages when the last rank unmaps
 * them, so the storage needs no collective to die and its lifetime is an ordinary
 * reference count. A fresh file per conversion: reusing one would change live outputs.
 *
 * Cost: each rank zeroes (fallocate) and writes 1/n of the tensor, where an allgather writes
 * the whole tensor on every rank; pages are mapped, not copied. But every call maps,
 * populates and unmaps every page of a fresh file, which on the VM of bench/README.md costs
 * microseconds per 4 KiB page, more than the copies saved: so this is opt-in
 * (CTENSOR_BOXING_COW=1, boxing_fast.c) for hosts with cheap page tables. Whether a
 * communicator can do this (opening another process's descriptor needs ptrace-level access
 * to it) is agreed on its first use (boxing_fast.c).
 */
#define _GNU_SOURCE /* memfd_create, fallocate, MADV_POPULATE_* */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dist/dist_impl.h"

ct_status ct_dist_impl_shm_cow_open(MPI_Comm comm, size_t bytes, bool ok, ct_shm_cow *c) {
    *c = (ct_shm_cow){.fd = -1, .shared = NULL, .priv = NULL, .bytes = bytes};
    int rank = 0, size = 1;
    ct_status st = ct_dist_impl_mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    if (st == CT_OK)
        st = ct_dist_impl_mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    if (st != CT_OK)
        return st; /* a broken communicator fails alike on every member */
    /* Rank 0 names its descriptor; the others open the same file through /proc. */
    long long info[3] = {(long long)getpid(), -1, 0};
    int err = 0; /* this rank's errno of its first failure */
    if (rank == 0 && ok && bytes <= (size_t)INT64_MAX) {
        c->fd = memfd_create("ctensor-boxing", MFD_CLOEXEC);
        if (c->fd >= 0 && ftruncate(c->fd, (off_t)bytes) == 0) {
            info[1] = c->fd;
            info[2] = 1;
        } else {
            err = errno;
        }
    }
    st = ct_dist_impl_mpi_check(MPI_Bcast(info, 3, MPI_LONG_LONG, 0, comm), "MPI_Bcast");
    if (st != CT_OK) {
        ct_dist_impl_shm_cow_close(c);
        return st;
    }
    if (!ok) { /* this rank failed before: keep its message */
        ct_dist_impl_shm_cow_close(c);
        return CT_ERR_RUNTIME;
    }
    if (!info[2])
        goto fail;
    if (rank != 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%lld/fd/%lld", info[0], info[1]);
        c->fd = open(path, O_RDWR | O_CLOEXEC);
        struct stat sb;
        if (c->fd < 0 || fstat(c->fd, &sb) != 0)
            goto fail;
        if (sb.st_size != (off_t)bytes) { /* not the file rank 0 made: cannot happen */
            errno = EINVAL;
            goto fail;
        }
    }
    /* Each rank allocates (and so zeroes) its share of the pages, then maps them all for
     * writing up front: a failure is an error here rather than a SIGBUS in the copy. */
    off_t lo = (off_t)(bytes / (size_t)size * (size_t)rank);
    off_t hi = rank == size - 1 ? (off_t)bytes : (off_t)(bytes / (size_t)size * (size_t)(rank + 1));
    if (hi > lo && fallocate(c->fd, 0, lo, hi - lo) != 0)
        goto fail;
    void *shared = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
    if (shared == MAP_FAILED)
        goto fail;
    c->shared = shared;
    if (madvise(shared, bytes, MADV_POPULATE_WRITE) != 0)
        goto fail;
    void *priv = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, c->fd, 0);
    if (priv == MAP_FAILED)
        goto fail;
    c->priv = priv;
    return CT_OK;
fail:
    if (err == 0 && info[2])
        err = errno;
    st = ct_set_error(CT_ERR_RUNTIME, "boxing: shared output of %zu bytes failed (%s)", bytes,
                      err != 0 ? strerror(err) : "on rank 0");
    /* Rank 0 keeps its descriptor until the caller's next collective: closed now, its
     * number could name another file of this process before a peer opens it. */
    int keep = rank == 0 ? c->fd : -1;
    if (rank == 0)
        c->fd = -1;
    ct_dist_impl_shm_cow_close(c);
    c->fd = keep;
    return st;
}

static void unmap_finalizer(void *ctx, void *data) { munmap(data, (size_t)(uintptr_t)ctx); }

ct_status ct_dist_impl_shm_cow_storage(ct_shm_cow *c, ct_device device, ct_storage **out) {
    *out = NULL;
    /* From here on no one writes the file: only private mappings remain. */
    munmap(c->shared, c->bytes);
    c->shared = NULL;
    close(c->fd);
    c->fd = -1;
    /* Map the pages now (read-only until written; an error only leaves them to fault in
     * later), as an allocated output would be touched by its copy. */
    (void)madvise(c->priv, c->bytes, MADV_POPULATE_READ);
    ct_status st = ct_storage_wrap(device, c->priv, c->bytes, unmap_finalizer,
                                   (void *)(uintptr_t)c->bytes, out);
    if (st != CT_OK) {
        ct_dist_impl_shm_cow_close(c);
        return st;
    }
    c->priv = NULL; /* the storage owns the mapping */
    return CT_OK;
}

void ct_dist_impl_shm_cow_close(ct_shm_cow *c) {
    if (c->shared != NULL)
        munmap(c->shared, c->bytes);
    if (c->priv != NULL)
        munmap(c->priv, c->bytes);
    if (c->fd >= 0)
        close(c->fd);
    c->shared = c->priv = NULL;
    c->fd = -1;
}
