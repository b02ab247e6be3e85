/* repr() of sparse COO tensors (ct_sparse_repr in include/ctensor/sparse.h): PyTorch's
 * _str_intern for is_sparse tensors, built from the dense printer's pieces (print_impl.h),
 * which lays out the indices and values as it lays out any strided tensor:
 *
 *   tensor(indices=tensor([[0, 1],
 *                          [1, 0]]),
 *          values=tensor([1., 2.]),
 *          size=(2, 2), nnz=2, layout=torch.sparse_coo)
 *
 * The suffixes always start on a new line (PyTorch's force_newline for sparse tensors);
 * empty indices or values name their shape; the dtype suffix is left out for the dtypes a
 * non-empty dense tensor would print without one, whatever the nnz (PyTorch tests
 * has_default_dtype only). Meta tensors have no data: as newest PyTorch, they print no nnz,
 * and their indices and values print as "..." as the dense printer prints meta tensors. */
#include <stdio.h>
#include <string.h>

#include "base/error_impl.h"
#include "dtype/table_impl.h"
#include "sparse/sparse_impl.h"
#include "tensor/print_impl.h"

enum { SPARSE_MAX_SUFFIXES = 5 };

/* One "name=tensor(<body>)" part: `column` is where "name=" starts. */
static ct_status put_part(ct_sb *b, const char *label, const ct_tensor *t, int64_t column,
                          const ct_print_options *o) {
    ct_sb_puts(b, label);
    ct_sb_puts(b, "=tensor(");
    const int64_t indent = column + (int64_t)strlen(label) + (int64_t)strlen("=tensor(");
    if (t->device.type == CT_DEVICE_META) {
        ct_sb_puts(b, "...");
    } else {
        CT_TRY(ct_print_impl_body(b, t, indent, o));
        if (t->numel == 0) { /* "[]" alone would not say which shape is empty */
            ct_sb_puts(b, ", size=");
            ct_print_impl_shape(b, t->sizes, t->ndim);
        }
    }
    ct_sb_puts(b, ")");
    return CT_OK;
}

static void put_int(ct_sb *b, int64_t v) {
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)v);
    ct_sb_puts(b, num);
}

/* fn: the public function called, for its misuse messages. */
static ct_status repr(const char *fn, const ct_tensor *t, const ct_print_options *opts,
                      const char *name, char **out) {
    if (out == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: out is NULL", fn);
    *out = NULL;
    if (t == NULL)
        return ct_set_error(CT_ERR_MISUSE, "%s: tensor is NULL", fn);
    if (!ct_sparse_is_sparse(t)) /* strided and other layouts: the dense printer's answer */
        return ct_tensor_repr_named(t, opts, name, out);
    ct_print_options o = opts != NULL ? *opts : ct_get_printoptions();
    CT_TRY(ct_print_options_check(&o));
    if (name == NULL)
        name = "tensor";
    const int64_t indent = (int64_t)strlen(name) + 1;

    ct_tensor *indices = NULL, *values = NULL;
    int64_t nnz = 0;
    ct_status st = ct_sparse_raw_indices(t, &indices);
    if (st == CT_OK)
        st = ct_sparse_raw_values(t, &values);
    if (st == CT_OK)
        st = ct_sparse_nnz(t, &nnz);
    if (st != CT_OK) {
        ct_tensor_release(indices);
        ct_tensor_release(values);
        return st;
    }

    ct_sb sx[SPARSE_MAX_SUFFIXES];
    size_t n = 0;
    if (t->device.type != CT_DEVICE_CPU) { /* Note [Print tensor device], as print.c */
        char dev[CT_DEVICE_STRING_MAX];
        st = ct_device_str(t->device, dev, sizeof dev);
        if (st != CT_OK)
            goto done;
        ct_sb_init(&sx[n]);
        ct_sb_puts(&sx[n], "device='");
        ct_sb_puts(&sx[n], dev);
        ct_sb_puts(&sx[n++], "'");
    }
    ct_sb_init(&sx[n]);
    ct_sb_puts(&sx[n], "size=");
    ct_print_impl_shape(&sx[n++], t->sizes, t->ndim);
    if (t->device.type != CT_DEVICE_META) {
        ct_sb_init(&sx[n]);
        ct_sb_puts(&sx[n], "nnz=");
        put_int(&sx[n++], nnz);
    }
    if (!ct_print_impl_has_default_dtype(t->dtype)) {
        ct_sb_init(&sx[n]);
        ct_sb_puts(&sx[n], "dtype=");
        ct_sb_puts(&sx[n], o.prefix);
        ct_sb_puts(&sx[n++], ct_dtype_table[t->dtype].name);
    }
    ct_sb_init(&sx[n]);
    ct_sb_puts(&sx[n], "layout=");
    ct_sb_puts(&sx[n], o.prefix);
    ct_sb_puts(&sx[n++], ct_layout_name(t->layout));

    ct_sb b;
    ct_sb_init(&b);
    ct_sb_puts(&b, name);
    ct_sb_puts(&b, "(");
    st = put_part(&b, "indices", indices, indent, &o);
    if (st == CT_OK) {
        ct_sb_puts(&b, ",\n");
        ct_sb_fill(&b, ' ', indent);
        st = put_part(&b, "values", values, indent, &o);
    }
    if (st == CT_OK) {
        const char *texts[SPARSE_MAX_SUFFIXES];
        for (size_t i = 0; i < n; i++) {
            if (sx[i].failed)
                st = CT_ERR_NOMEM;
            texts[i] = sx[i].data;
        }
        if (st == CT_OK) {
            ct_print_impl_add_suffixes(&b, texts, n, indent, true, &o);
            st = ct_sb_finish(&b, out);
        } /* else: the failed append set the message */
    }
    ct_sb_free(&b);
done:
    for (size_t i = 0; i < n; i++)
        ct_sb_free(&sx[i]);
    ct_tensor_release(indices);
    ct_tensor_release(values);
    return st;
}

ct_status ct_sparse_repr(const ct_tensor *t, const ct_print_options *opts, char **out) {
    return repr("ct_sparse_repr", t, opts, NULL, out);
}

ct_status ct_sparse_repr_named(const ct_tensor *t, const ct_print_options *opts, const char *name,
                               char **out) {
    return repr("ct_sparse_repr_named", t, opts, name, out);
}
