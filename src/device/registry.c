/* The backend registry and the PrivateUse1 name (backend.h).
 *
 * One slot per device type, guarded by a mutex; callers copy a slot out and call its
 * functions without the lock, so a slow backend never blocks the registry. Allocations
 * through a user backend are counted, and a backend with live allocations cannot be
 * unregistered. cpu and meta are built in: their tables are constants that can be neither
 * replaced nor unregistered, so lookups of them skip the lock and the counting (every
 * small cpu tensor looks its backend up; the mutex pair alone cost ~35 ns).
 *
 * Note [Interned PrivateUse1 names]
 * ct_device_type_name hands out the PrivateUse1 name without a lock and callers may keep
 * it, so a name, once registered, is never overwritten: each distinct name gets its own
 * buffer for the life of the process and the current name is an atomic pointer to one of
 * them. Tests that unregister and register names again reuse the buffers of equal names.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/error_impl.h"
#include "device/device_impl.h"

/* Slots of user backends; cpu and meta are served from their constant tables. */
typedef struct slot {
    bool used;
    ct_backend backend;
    size_t live; /* allocations (and reservations in flight) of a user backend */
} slot;

static slot slots[CT_NUM_DEVICE_TYPES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define MAX_NAMES 16
static char names[MAX_NAMES][2][CT_BACKEND_MAX_NAME + 1]; /* [i][0] lower, [i][1] upper */
static int n_names;                                       /* under lock */
static _Atomic(const char *) pu1_lower;                   /* NULL: no name set */
static _Atomic(const char *) pu1_upper;

static void enter(void) { pthread_mutex_lock(&lock); }
static void leave(void) { pthread_mutex_unlock(&lock); }

/* The constant table of a built-in type, NULL for the others. */
static const ct_backend *builtin(ct_device_type type) {
    return type == CT_DEVICE_CPU    ? ct_device_impl_cpu_backend()
           : type == CT_DEVICE_META ? ct_device_impl_meta_backend()
                                    : NULL;
}

const char *ct_device_impl_registry_pu1_name(bool upper) {
    return atomic_load_explicit(upper ? &pu1_upper : &pu1_lower, memory_order_acquire);
}

ct_status ct_device_impl_registry_missing_error(ct_device_type type) {
    return ct_set_error(CT_ERR_RUNTIME, "No backend is registered for device type %s",
                        ct_device_type_name(type));
}

bool ct_device_impl_registry_find(ct_device_type type, ct_backend *out) {
    if (!ct_device_impl_type_ok(type))
        return false;
    const ct_backend *b = builtin(type);
    if (b != NULL) {
        *out = *b;
        return true;
    }
    enter();
    bool found = slots[type].used;
    if (found)
        *out = slots[type].backend;
    leave();
    return found;
}

ct_status ct_device_impl_registry_get(ct_device_type type, bool reserve, ct_backend *out) {
    if (!ct_device_impl_type_ok(type))
        return ct_device_impl_devval_check((ct_device){type, CT_DEVICE_NO_INDEX});
    const ct_backend *b = builtin(type);
    if (b != NULL) { /* nothing to reserve: it can never be unregistered */
        *out = *b;
        return CT_OK;
    }
    enter();
    bool found = slots[type].used;
    if (found) {
        *out = slots[type].backend;
        if (reserve)
            slots[type].live++;
    }
    leave();
    return found ? CT_OK : ct_device_impl_registry_missing_error(type);
}

bool ct_device_impl_has_launch(ct_device_type type) {
    ct_backend b;
    return ct_device_impl_type_ok(type) && type != CT_DEVICE_CPU && type != CT_DEVICE_META &&
           ct_device_impl_registry_find(type, &b) && b.launch != NULL;
}

ct_status ct_device_impl_launch(ct_device device, const ct_kernel_launch *launch) {
    /* initialised only for gcc -O3, which cannot see that registry_get fills b whenever it
     * returns CT_OK (-Wmaybe-uninitialized) */
    ct_backend b = {.launch = NULL};
    CT_TRY(ct_device_impl_registry_get(device.type, false, &b));
    if (b.launch == NULL)
        return ct_set_error(CT_ERR_NOT_IMPLEMENTED, "%s: no kernels for device type %s",
                            launch->name, ct_device_type_name(device.type));
    return b.launch(b.context, ct_device_impl_current_slot_index(&b, device), launch);
}

bool ct_device_impl_host_accessible(ct_device_type type) {
    if (type == CT_DEVICE_CPU)
        return true;
    if (type == CT_DEVICE_META)
        return false;
    ct_backend b;
    return ct_device_impl_registry_find(type, &b) && (b.flags & CT_BACKEND_HOST_ACCESSIBLE) != 0;
}

bool ct_device_type_host_accessible(ct_device_type type) {
    return ct_device_impl_host_accessible(type);
}

void ct_device_impl_registry_release(ct_device_type type) {
    if (builtin(type) != NULL) /* never reserved */
        return;
    enter();
    if (slots[type].live > 0)
        slots[type].live--;
    leave();
}

bool ct_backend_is_registered(ct_device_type type) {
    ct_backend b;
    return ct_device_impl_registry_find(type, &b);
}

/* ---- the PrivateUse1 name ---- */

static bool valid_name(const char *name) {
    size_t n = strlen(name);
    if (n == 0 || n > CT_BACKEND_MAX_NAME)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || name[i] == '_'))
            return false;
    return true;
}

/* Set the name; the caller holds the lock. */
static ct_status set_name_locked(const char *name) {
    const char *cur = atomic_load_explicit(&pu1_lower, memory_order_relaxed);
    if (cur != NULL && strcmp(cur, name) != 0)
        return ct_set_error(CT_ERR_RUNTIME,
                            "torch.register_privateuse1_backend() has already been set! Current "
                            "backend: %s",
                            cur);
    if (strcmp(name, "privateuseone") != 0 && ct_device_impl_devval_is_builtin_name(name))
        return ct_set_error(CT_ERR_RUNTIME,
                            "Cannot register privateuse1 backend with in-tree device name: %s",
                            name);
    if (!valid_name(name))
        return ct_set_error(CT_ERR_RUNTIME,
                            "Invalid privateuse1 backend name '%s': use 1 to %d lower-case ASCII "
                            "letters or '_'",
                            name, CT_BACKEND_MAX_NAME);
    if (cur != NULL)
        return CT_OK;
    int i = 0;
    while (i < n_names && strcmp(names[i][0], name) != 0)
        i++;
    if (i == n_names) {
        if (n_names == MAX_NAMES)
            return ct_set_error(CT_ERR_RUNTIME,
                                "Cannot register privateuse1 backend name %s: a process may "
                                "register at most %d different names",
                                name, MAX_NAMES);
        size_t n = strlen(name);
        for (size_t k = 0; k <= n; k++) {
            names[i][0][k] = name[k];
            names[i][1][k] =
                (name[k] >= 'a' && name[k] <= 'z') ? (char)(name[k] - 'a' + 'A') : name[k];
        }
        n_names++;
    }
    atomic_store_explicit(&pu1_upper, names[i][1], memory_order_release);
    atomic_store_explicit(&pu1_lower, names[i][0], memory_order_release);
    return CT_OK;
}

ct_status ct_privateuse1_set_name(const char *name) {
    if (name == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_privateuse1_set_name: name is NULL");
    enter();
    ct_status st = set_name_locked(name);
    leave();
    return st;
}

const char *ct_privateuse1_name(void) { return ct_device_impl_registry_pu1_name(false); }

/* ---- registration ---- */

/* The size of struct ct_backend in API version 1: everything before the first slot that
 * version 2 appended. */
#define V1_SIZE offsetof(ct_backend, launch)

/* Check a backend before taking the lock. `label` names it in messages. */
static ct_status check_backend(const ct_backend *b, const char *label) {
    if (b->api_version < 1 || b->api_version > CT_BACKEND_API_VERSION)
        return ct_set_error(CT_ERR_MISUSE,
                            "Backend '%s' has API version %d, but this ctensor supports "
                            "versions 1 to %d",
                            label, (int)b->api_version, CT_BACKEND_API_VERSION);
    /* version 3 changed ct_kernel_launch's layout: an older launch slot would misread it */
    if (b->api_version == 2 && b->launch != NULL)
        return ct_set_error(CT_ERR_MISUSE,
                            "Backend '%s' has API version 2, whose launch slot this ctensor "
                            "cannot call (ct_kernel_launch changed in version 3): rebuild it "
                            "against version %d",
                            label, CT_BACKEND_API_VERSION);
    if (!ct_device_impl_type_ok(b->device_type))
        return ct_set_error(CT_ERR_MISUSE, "Backend '%s' has an invalid device type %d", label,
                            (int)b->device_type);
    if (b->device_type == CT_DEVICE_CPU || b->device_type == CT_DEVICE_META)
        return ct_set_error(CT_ERR_MISUSE,
                            "Backend '%s': the %s backend is built in and cannot be replaced",
                            label, ct_device_type_name(b->device_type));
    const char *missing = b->allocate == NULL   ? "allocate"
                          : b->free == NULL     ? "free"
                          : b->copy_h2d == NULL ? "copy_h2d"
                          : b->copy_d2h == NULL ? "copy_d2h"
                                                : NULL;
    if (missing != NULL)
        return ct_set_error(CT_ERR_MISUSE, "Backend '%s' lacks the required slot '%s'", label,
                            missing);
    if ((b->get_device == NULL) != (b->set_device == NULL))
        return ct_set_error(CT_ERR_MISUSE,
                            "Backend '%s' must set both get_device and set_device, or neither",
                            label);
    if (b->device_type == CT_DEVICE_PRIVATEUSEONE) {
        if (b->name == NULL)
            return ct_set_error(CT_ERR_MISUSE,
                                "Backend for privateuseone needs a name (use \"privateuseone\" "
                                "to keep the default)");
    } else if (b->name != NULL && strcmp(b->name, ct_device_type_name(b->device_type)) != 0) {
        return ct_set_error(CT_ERR_MISUSE,
                            "Backend '%s' is for device type %s; only privateuseone backends "
                            "choose their name",
                            label, ct_device_type_name(b->device_type));
    }
    return CT_OK;
}

ct_status ct_backend_register(const ct_backend *backend) {
    if (backend == NULL)
        return ct_set_error(CT_ERR_MISUSE, "ct_backend_register: backend is NULL");
    const char *label = backend->name;
    if (label == NULL || strlen(label) > CT_BACKEND_MAX_NAME)
        label = ct_device_impl_type_ok(backend->device_type)
                    ? ct_device_type_name(backend->device_type)
                    : "?";
    CT_TRY(check_backend(backend, label));
    ct_device_type t = backend->device_type;
    enter();
    ct_status st = CT_OK;
    if (t == CT_DEVICE_PRIVATEUSEONE)
        st = set_name_locked(backend->name);
    if (st == CT_OK && slots[t].used)
        st = ct_set_error(CT_ERR_RUNTIME, "A backend is already registered for device type %s",
                          ct_device_type_name(t));
    if (st == CT_OK) {
        /* A version-1 struct ends before the version-2 slots: copy only its own prefix, so
         * a backend compiled against the older header is never read past its end. */
        slots[t] = (slot){.used = true, .live = 0};
        size_t size = backend->api_version >= 2 ? sizeof *backend : V1_SIZE;
        memcpy(&slots[t].backend, backend, size);
        slots[t].backend.name = ct_device_type_name(t);
    }
    leave();
    return st;
}

ct_status ct_backend_unregister(ct_device_type type) {
    if (!ct_device_impl_type_ok(type))
        return ct_device_impl_devval_check((ct_device){type, CT_DEVICE_NO_INDEX});
    if (type == CT_DEVICE_CPU || type == CT_DEVICE_META)
        return ct_set_error(CT_ERR_MISUSE, "The built-in %s backend cannot be unregistered",
                            ct_device_type_name(type));
    enter();
    ct_status st = CT_OK;
    bool had_name = type == CT_DEVICE_PRIVATEUSEONE &&
                    atomic_load_explicit(&pu1_lower, memory_order_relaxed) != NULL;
    if (slots[type].used && slots[type].live > 0) {
        st = ct_set_error(CT_ERR_RUNTIME,
                          "Cannot unregister the backend of device type %s: %zu allocations "
                          "are still live",
                          ct_device_type_name(type), slots[type].live);
    } else if (!slots[type].used && !had_name) {
        st = ct_device_impl_registry_missing_error(type);
    } else {
        slots[type] = (slot){false, {0}, 0};
        if (type == CT_DEVICE_PRIVATEUSEONE) {
            atomic_store_explicit(&pu1_lower, NULL, memory_order_release);
            atomic_store_explicit(&pu1_upper, NULL, memory_order_release);
        }
    }
    leave();
    return st;
}
