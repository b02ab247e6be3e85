/* Matrix products on accelerators without product kernels: each public product staged whole
 * through host memory (Note [Staging through host memory], tensor/stage.h), so it gives the
 * cpu's values, shapes and errors. One runner serves every signature (linalg_impl.h). */
#include "ops/linalg_impl.h"
#include "tensor/stage.h"
#include "tensor/tensor_impl.h"

bool ct_linalg_impl_stage_wanted(const ct_tensor *a, const ct_tensor *b, const ct_tensor *c,
                                 const ct_tensor *d) {
    const ct_tensor *all[4] = {a, b, c, d}, *first = NULL;
    for (int i = 0; i < 4; i++) {
        if (all[i] == NULL)
            continue;
        if (!ct_stage_wanted(all[i]))
            return false;
        if (first == NULL)
            first = all[i];
        else if (!ct_device_equal(first->device, all[i]->device))
            return false;
    }
    return first != NULL;
}

/* One staged call: exactly one of the function fields is set. */
typedef struct stage_call {
    const char *fn;
    ct_linalg_impl_ab_fn ab;
    ct_linalg_impl_ab_out_fn ab_out;
    ct_linalg_impl_add_fn add;
    ct_linalg_impl_add_out_fn add_out;
    ct_linalg_impl_add_self_fn add_self;
    ct_scalar beta, alpha;
} stage_call;

/* t0..t2 are read (NULL allowed); w (out= or self; may be t0) is written; a new result goes
 * to *out. */
static ct_status run(const stage_call *c, const ct_tensor *t0, const ct_tensor *t1,
                     const ct_tensor *t2, ct_tensor *w, ct_tensor **out) {
    ct_stage s;
    ct_stage_init(&s, c->fn);
    int k0 = ct_stage_add(&s, t0, w != NULL && t0 == w ? CT_STAGE_WRITTEN : 0);
    int k1 = ct_stage_add(&s, t1, 0);
    int k2 = ct_stage_add(&s, t2, 0);
    int kw = w != NULL && t0 != w ? ct_stage_add(&s, w, CT_STAGE_WRITTEN) : k0;
    ct_tensor *hr = NULL, *r = NULL;
    ct_status st = ct_stage_begin(&s);
    if (st == CT_OK) {
        ct_tensor *h0 = ct_stage_host(&s, k0), *h1 = ct_stage_host(&s, k1);
        ct_tensor *h2 = ct_stage_host(&s, k2), *hw = ct_stage_host(&s, kw);
        if (c->ab != NULL)
            st = c->ab(h0, h1, &hr);
        else if (c->ab_out != NULL)
            st = c->ab_out(h0, h1, hw);
        else if (c->add != NULL)
            st = c->add(h0, h1, h2, c->beta, c->alpha, &hr);
        else if (c->add_out != NULL)
            st = c->add_out(h0, h1, h2, c->beta, c->alpha, hw);
        else
            st = c->add_self(hw, h1, h2, c->beta, c->alpha);
    }
    if (st == CT_OK)
        st = ct_stage_result(&s, hr, &r);
    else
        ct_tensor_release(hr);
    st = ct_stage_end(&s, st);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    if (out != NULL)
        *out = r;
    return CT_OK;
}

ct_status ct_linalg_impl_stage_ab(const char *fn, ct_linalg_impl_ab_fn f, const ct_tensor *a,
                                  const ct_tensor *b, ct_tensor **out) {
    return run(&(stage_call){.fn = fn, .ab = f}, a, b, NULL, NULL, out);
}

ct_status ct_linalg_impl_stage_ab_out(const char *fn, ct_linalg_impl_ab_out_fn f,
                                      const ct_tensor *a, const ct_tensor *b, ct_tensor *out) {
    return run(&(stage_call){.fn = fn, .ab_out = f}, a, b, NULL, out, NULL);
}

ct_status ct_linalg_impl_stage_add(const char *fn, ct_linalg_impl_add_fn f, const ct_tensor *input,
                                   const ct_tensor *a, const ct_tensor *b, ct_scalar beta,
                                   ct_scalar alpha, ct_tensor **out) {
    return run(&(stage_call){.fn = fn, .add = f, .beta = beta, .alpha = alpha}, input, a, b,
               NULL, out);
}

ct_status ct_linalg_impl_stage_add_out(const char *fn, ct_linalg_impl_add_out_fn f,
                                       const ct_tensor *input, const ct_tensor *a,
                                       const ct_tensor *b, ct_scalar beta, ct_scalar alpha,
                                       ct_tensor *out) {
    return run(&(stage_call){.fn = fn, .add_out = f, .beta = beta, .alpha = alpha}, input, a,
               b, out, NULL);
}

ct_status ct_linalg_impl_stage_add_self(const char *fn, ct_linalg_impl_add_self_fn f,
                                        ct_tensor *self, const ct_tensor *a, const ct_tensor *b,
                                        ct_scalar beta, ct_scalar alpha) {
    return run(&(stage_call){.fn = fn, .add_self = f, .beta = beta, .alpha = alpha}, self, a,
               b, self, NULL);
}
