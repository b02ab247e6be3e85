/* Element-wise arithmetic on global tensors (global.h "element-wise arithmetic"), on 1..4
 * ranks.
 *
 * Every rank builds the same logical reference tensors; the global inputs are made with
 * ct_dist_impl_global_make from slices of them (partial_sum axes: the first rank of each partial
 * group holds ref - (m-1), the others ones; bool: all hold ref), and results are gathered here with
 * plain MPI. So the test depends on neither ct_global_from_local nor ct_global_to_logical. Each
 * result is compared with the same op run on the full references: bitwise for integer results and
 * for float32 add/sub/mul without partial sums, within a tolerance otherwise. The output sbp is
 * asserted for the unambiguous signatures of docs/global-tensors.md (per hierarchy axis on
 * the 2-D mesh). Errors must come back identically on every rank. */
#include "dist_ops_util.h" /* placements, sbp, reference tensors, gathering, comparison */


/* ---- the ops under test -------------------------------------------------------------------- */

typedef enum { K_ADD, K_SUB, K_MUL, K_DIV } kind;

typedef struct binop {
    const char *name;
    kind k;
    int64_t alpha;
    ct_rounding_mode mode;
} binop;

static const binop OPS[] = {
    {"add", K_ADD, 1, CT_ROUNDING_NONE},        {"add(alpha=2)", K_ADD, 2, CT_ROUNDING_NONE},
    {"sub", K_SUB, 1, CT_ROUNDING_NONE},        {"mul", K_MUL, 1, CT_ROUNDING_NONE},
    {"div", K_DIV, 1, CT_ROUNDING_NONE},        {"div(floor)", K_DIV, 1, CT_ROUNDING_FLOOR},
    {"div(trunc)", K_DIV, 1, CT_ROUNDING_TRUNC},
};
#define N_OPS (sizeof OPS / sizeof OPS[0])

static ct_status global_op(const binop *op, const ct_global *a, const ct_global *b, ct_global **out) {
    switch (op->k) {
    case K_ADD:
        return ct_global_add(a, b, ct_scalar_int(op->alpha), out);
    case K_SUB:
        return ct_global_sub(a, b, ct_scalar_int(op->alpha), out);
    case K_MUL:
        return ct_global_mul(a, b, out);
    default:
        return ct_global_div(a, b, op->mode, out);
    }
}

static ct_status local_op(const binop *op, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    switch (op->k) {
    case K_ADD:
        return ct_add(a, b, ct_scalar_int(op->alpha), out);
    case K_SUB:
        return ct_sub(a, b, ct_scalar_int(op->alpha), out);
    case K_MUL:
        return ct_mul(a, b, out);
    default:
        return ct_div(a, b, op->mode, out);
    }
}

/* The output sbp of op(x, y) on one axis where OneFlow's rules leave no doubt (equal shapes); false
 * when ambiguous. */
static bool expected_axis(const binop *op, ct_sbp x, ct_sbp y, ct_sbp *z) {
    bool linear_div = op->k == K_DIV && op->mode == CT_ROUNDING_NONE;
    if (x.kind == CT_SBP_SPLIT && ct_sbp_equal(x, y))
        *z = x;
    else if (x.kind == CT_SBP_BROADCAST && y.kind == CT_SBP_BROADCAST)
        *z = B;
    else if ((op->k == K_ADD || op->k == K_SUB) && x.kind == CT_SBP_PARTIAL_SUM &&
             y.kind == CT_SBP_PARTIAL_SUM)
        *z = P;
    else if ((op->k == K_MUL || linear_div) && x.kind == CT_SBP_PARTIAL_SUM &&
             y.kind == CT_SBP_BROADCAST)
        *z = P;
    else if (op->k == K_MUL && x.kind == CT_SBP_BROADCAST && y.kind == CT_SBP_PARTIAL_SUM)
        *z = P;
    else if (op->k == K_ADD && x.kind == CT_SBP_PARTIAL_SUM && y.kind == CT_SBP_BROADCAST)
        *z = S0; /* the newer cost model */
    else if (op->k == K_ADD && ct_sbp_equal(x, S0) && y.kind == CT_SBP_BROADCAST)
        *z = S0;
    else
        return false;
    return true;
}

static void describe(char *buf, size_t size, const char *what, const ct_tensor *ra,
                     const ct_tensor *rb, const ct_sbp *sa, const ct_sbp *sb, int64_t nh,
                     const ct_placement *pl) {
    char a[64], b[64];
    ct_nd_sbp_format_short(sa, nh, a, sizeof a);
    ct_nd_sbp_format_short(sb, nh, b, sizeof b);
    snprintf(buf, size, "%s(%s %s dims %lld, %s %s dims %lld) on %lld ranks (hierarchy ndim %lld)",
             what, ct_dtype_name(ct_tensor_dtype(ra)), a, (long long)ct_tensor_dim(ra),
             ct_dtype_name(ct_tensor_dtype(rb)), b, (long long)ct_tensor_dim(rb),
             (long long)ct_placement_size(pl), (long long)nh);
}

/* One case: op(ra as sa, rb as sb) on pl against op(ra, rb); `check_sbp` asserts the
 * unambiguous sbp signatures of docs/global-tensors.md. */
static void run_case(const binop *op, const ct_tensor *ra, const ct_tensor *rb,
                     const ct_placement *pl, const ct_sbp *sa, const ct_sbp *sb, bool check_sbp) {
    n_cases++;
    const int64_t nh = ct_placement_ndim(pl);
    char desc[320];
    describe(desc, sizeof desc, op->name, ra, rb, sa, sb, nh, pl);
    ct_global *ga = make_global(ra, pl, sa), *gb = make_global(rb, pl, sb), *gz = NULL;
    ct_status st = global_op(op, ga, gb, &gz);
    if (st != CT_OK && R == 0)
        fprintf(stderr, "%s: %s\n", desc, ct_last_error());
    CHECK_ALL(st == CT_OK, desc);
    ct_tensor *want = NULL;
    assert_int_equal(local_op(op, ra, rb, &want), CT_OK);
    ct_tensor *got = gather_logical(gz);
    const ct_dtype zt = ct_tensor_dtype(want);
    bool partial = nd_has_p(sa, nh) || nd_has_p(sb, nh);
    bool exact = ct_dtype_is_integral(zt, true) ||
                 (zt == CT_FLOAT32 && op->k != K_DIV && !partial);
    CHECK_ALL(got != NULL && values_match(got, want, exact), desc);
    if (check_sbp) {
        ct_sbp z[CT_PLACEMENT_MAX_NDIM];
        bool known = true;
        for (int64_t k = 0; k < nh; k++)
            known = known && expected_axis(op, sa[k], sb[k], &z[k]);
        if (known)
            CHECK_ALL(ct_nd_sbp_equal(ct_global_sbp(gz), z, nh), desc);
    }
    ct_tensor_release(want);
    ct_tensor_release(got);
    ct_global_release(ga);
    ct_global_release(gb);
    ct_global_release(gz);
}

/* ---- value and sbp matrices ------------------------------------------------------------------ */

typedef struct shapes {
    int64_t a[2], na, b[2], nb;
} shapes;

static const shapes SHAPES[] = {
    {{7, 5}, 2, {7, 5}, 2}, /* equal, uneven splits */
    {{7, 5}, 2, {5, 0}, 1}, /* (7,5) + (5,) */
    {{7, 1}, 2, {1, 5}, 2},
    {{3, 1}, 2, {3, 4}, 2},
};

static const ct_dtype DTYPES[][2] = {
    {CT_FLOAT32, CT_FLOAT32}, {CT_INT32, CT_INT32}, {CT_INT32, CT_FLOAT32}, {CT_FLOAT16, CT_FLOAT16}};

/* Every op x shape x dtype pair x sbp pair over {S(0), S(1), B, P} on a 1-D placement. */
static void matrix_1d(const ct_placement *pl, size_t n_shapes, size_t n_dtypes) {
    const ct_sbp set[4] = {S0, S1, B, P};
    for (size_t s = 0; s < n_shapes; s++)
        for (size_t t = 0; t < n_dtypes; t++) {
            const shapes *sh = &SHAPES[s];
            ct_tensor *ra = ref_tensor(sh->a, sh->na, DTYPES[t][0], 1, false);
            ct_tensor *rb = ref_tensor(sh->b, sh->nb, DTYPES[t][1], 2, true);
            for (size_t o = 0; o < N_OPS; o++)
                for (int i = 0; i < 4; i++)
                    for (int j = 0; j < 4; j++) {
                        if (!nd_valid(&set[i], 1, sh->na) || !nd_valid(&set[j], 1, sh->nb))
                            continue;
                        run_case(&OPS[o], ra, rb, pl, &set[i], &set[j], s == 0);
                    }
            ct_tensor_release(ra);
            ct_tensor_release(rb);
        }
}

static void test_matrix_all_ranks(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    matrix_1d(pl, sizeof SHAPES / sizeof SHAPES[0], sizeof DTYPES / sizeof DTYPES[0]);
    ct_placement_release(pl);
}

/* Rank 0 outside the placement: it gets the metadata and an empty component. */
static void test_matrix_subset(void **state) {
    (void)state;
    if (W < 2)
        skip();
    ct_placement *pl = tail_ranks();
    matrix_1d(pl, 2, 2);
    ct_placement_release(pl);
}

/* The 2-D mesh [[0, 1], [2, 3]]: a sample of nd-sbp pairs, each axis chosen independently. */
static void test_matrix_2d(void **state) {
    (void)state;
    if (W != 4)
        skip();
    ct_placement *pl = mesh_2x2();
    const ct_sbp nd[][2] = {{S0, S1}, {B, S0}, {P, B}, {S1, P}, {B, B},
                            {P, P},   {S0, S0}, {S1, B}, {B, P}};
    const size_t n_nd = sizeof nd / sizeof nd[0];
    size_t counter = 0;
    for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++)
        for (size_t t = 0; t < 2; t++) {
            const shapes *sh = &SHAPES[s];
            ct_tensor *ra = ref_tensor(sh->a, sh->na, DTYPES[t][0], 3, false);
            ct_tensor *rb = ref_tensor(sh->b, sh->nb, DTYPES[t][1], 4, true);
            for (size_t o = 0; o < N_OPS; o++)
                for (size_t i = 0; i < n_nd; i++)
                    for (size_t j = 0; j < n_nd; j++) {
                        if (!nd_valid(nd[i], 2, sh->na) || !nd_valid(nd[j], 2, sh->nb))
                            continue;
                        /* All pairs for add and mul on equal float32 shapes, a stride of
                         * the others. */
                        bool full = s == 0 && t == 0 && (OPS[o].k == K_ADD || OPS[o].k == K_MUL);
                        if (!full && counter++ % 7 != 0)
                            continue;
                        run_case(&OPS[o], ra, rb, pl, nd[i], nd[j], s == 0);
                    }
            ct_tensor_release(ra);
            ct_tensor_release(rb);
        }
    ct_placement_release(pl);
}

/* ct_dist_impl_global_binary_signature(op, x as sx, y as sy) on pl gives (wx, wy) -> wz; NULL wx /
 * wy skip those checks. Pure metadata: the same on every rank. */
static void expect_signature(ct_op op, const ct_tensor *x, const ct_tensor *y,
                             const ct_placement *pl, const ct_sbp *sx, const ct_sbp *sy,
                             const ct_sbp *wx, const ct_sbp *wy, const ct_sbp *wz) {
    const int64_t nh = ct_placement_ndim(pl);
    ct_sbp gx[CT_PLACEMENT_MAX_NDIM], gy[CT_PLACEMENT_MAX_NDIM], gz[CT_PLACEMENT_MAX_NDIM];
    ct_global *a = make_global(x, pl, sx), *b = make_global(y, pl, sy);
    assert_int_equal(ct_dist_impl_global_binary_signature(op, a, b, gx, gy, gz), CT_OK);
    assert_true(ct_nd_sbp_equal(gz, wz, nh));
    assert_true(!wx || ct_nd_sbp_equal(gx, wx, nh));
    assert_true(!wy || ct_nd_sbp_equal(gy, wy, nh));
    ct_global_release(a);
    ct_global_release(b);
}

/* The pure signature: split dims mapped to each operand, the quirk of operands of different
 * ndims (a dim of size 1 in both is split alike on both), rounding div without partial, and
 * the per-axis choice on the mesh. */
static void test_signature(void **state) {
    (void)state;
    ct_placement *p1 = all_ranks();
    int64_t s75[2] = {7, 5}, s5[1] = {5}, s1[1] = {1}, s31[2] = {3, 1};
    ct_tensor *t75 = ref_tensor(s75, 2, CT_FLOAT32, 0, false);
    ct_tensor *t5 = ref_tensor(s5, 1, CT_FLOAT32, 0, false);
    ct_tensor *t1 = ref_tensor(s1, 1, CT_FLOAT32, 0, false);
    ct_tensor *t31 = ref_tensor(s31, 2, CT_FLOAT32, 0, false);
    /* (7,5) S(1) + (5,) S(0): output dim 1 is dim 0 of the 1-D operand. */
    expect_signature(CT_OP_ADD, t75, t5, p1, &S1, &S0, &S1, &S0, &S1);
    /* (1,) S(0) * (3,1) S(1) -> S(1) without boxing (and the value is right); B, B stays B. */
    expect_signature(CT_OP_MUL, t1, t31, p1, &S0, &S1, &S0, &S1, &S1);
    run_case(&OPS[3], t1, t31, p1, &S0, &S1, false);
    expect_signature(CT_OP_MUL, t1, t31, p1, &B, &B, &B, &B, &B);
    /* Only true division keeps a partial numerator. */
    expect_signature(CT_OP_DIV, t75, t75, p1, &P, &B, &P, &B, &P);
    expect_signature(CT_OP_DIV_FLOOR, t75, t75, p1, &P, &B, NULL, NULL, &S0);
    expect_signature(CT_OP_MUL, t75, t75, p1, &P, &P, &S0, &S0, &S0); /* tie -> split */
    if (W == 4) {
        ct_placement *p2 = mesh_2x2();
        const ct_sbp x1[2] = {P, S1}, y1[2] = {B, S1}, z1[2] = {P, S1};
        const ct_sbp x2[2] = {S0, P}, y2[2] = {B, P}, z2[2] = {S0, P};
        expect_signature(CT_OP_MUL, t75, t75, p2, x1, y1, x1, y1, z1);
        expect_signature(CT_OP_ADD, t75, t75, p2, x2, y2, z2, z2, z2);
        ct_placement_release(p2);
    }
    ct_tensor_release(t75);
    ct_tensor_release(t5);
    ct_tensor_release(t1);
    ct_tensor_release(t31);
    ct_placement_release(p1);
}

/* Zero-size and 0-dim operands: (0, 5) + (5,), a 0-dim partial int64 times a split float32
 * (7, 5), two 0-dim tensors. */
static void test_edge_shapes(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    int64_t s05[2] = {0, 5}, s5[1] = {5}, s75[2] = {7, 5};
    ct_tensor *e = ref_tensor(s05, 2, CT_FLOAT32, 0, false), *v = ref_tensor(s5, 1, CT_FLOAT32, 1, true);
    ct_tensor *x = ref_tensor(s75, 2, CT_FLOAT32, 2, false), *i0 = ref_tensor(NULL, 0, CT_INT64, 3, true);
    ct_tensor *f0 = ref_tensor(NULL, 0, CT_FLOAT64, 4, true);
    const binop *add = &OPS[0], *mul = &OPS[3], *fdiv = &OPS[5];
    run_case(add, e, v, pl, &S0, &B, false);
    run_case(mul, e, v, pl, &S1, &S0, false);
    run_case(mul, i0, x, pl, &P, &S1, false);
    run_case(fdiv, x, i0, pl, &S0, &P, false);
    run_case(add, i0, f0, pl, &P, &B, false);
    run_case(mul, f0, i0, pl, &P, &P, false);
    /* A bool partial (logical or) stays partial only for a bool result. */
    ct_tensor *b = NULL;
    assert_int_equal(ct_tensor_to_dtype(x, CT_BOOL, &b), CT_OK);
    run_case(add, b, b, pl, &P, &P, true);
    run_case(mul, b, b, pl, &P, &B, true);
    run_case(mul, b, x, pl, &P, &B, false);
    run_case(add, x, b, pl, &B, &P, false);
    ct_global *g = make_global(b, pl, &P), *z = NULL;
    CT_ASSERT_ALL(ct_global_mul_scalar(g, ct_scalar_int(3), &z) == CT_OK);
    ct_tensor *want = NULL, *got = gather_logical(z);
    assert_int_equal(ct_mul_scalar(b, ct_scalar_int(3), &want), CT_OK);
    CT_ASSERT_ALL(values_match(got, want, true) && ct_sbp_equal(ct_global_sbp(z)[0], B));
    ct_tensor_release(want);
    ct_tensor_release(got);
    ct_global_release(z);
    ct_global_release(g);
    ct_tensor_release(b);
    ct_tensor_release(e);
    ct_tensor_release(v);
    ct_tensor_release(x);
    ct_tensor_release(i0);
    ct_tensor_release(f0);
    ct_placement_release(pl);
}

/* ---- tensor-scalar forms ---------------------------------------------------------------- */

typedef enum { SK_ADD, SK_SUB, SK_MUL, SK_DIV, SK_RSUB, SK_RDIV } skind;

typedef struct scop {
    const char *name;
    skind k;
    ct_scalar s;
    int64_t alpha;
    ct_rounding_mode mode;
} scop;

static ct_status global_scalar(const scop *op, const ct_global *a, ct_global **out) {
    ct_scalar alpha = ct_scalar_int(op->alpha);
    switch (op->k) {
    case SK_ADD:
        return ct_global_add_scalar(a, op->s, alpha, out);
    case SK_SUB:
        return ct_global_sub_scalar(a, op->s, alpha, out);
    case SK_MUL:
        return ct_global_mul_scalar(a, op->s, out);
    case SK_DIV:
        return ct_global_div_scalar(a, op->s, op->mode, out);
    case SK_RSUB:
        return ct_global_rsub_scalar(a, op->s, alpha, out);
    default:
        return ct_global_rdiv_scalar(a, op->s, op->mode, out);
    }
}

/* The reference: reflected forms are the scalar as a left wrapped number. */
static ct_status local_scalar(const scop *op, const ct_tensor *a, ct_tensor **out) {
    ct_scalar alpha = ct_scalar_int(op->alpha);
    ct_tensor *w = NULL;
    ct_status st;
    switch (op->k) {
    case SK_ADD:
        return ct_add_scalar(a, op->s, alpha, out);
    case SK_SUB:
        return ct_sub_scalar(a, op->s, alpha, out);
    case SK_MUL:
        return ct_mul_scalar(a, op->s, out);
    case SK_DIV:
        return ct_div_scalar(a, op->s, op->mode, out);
    default:
        assert_int_equal(ct_tensor_wrapped_number(op->s, &w), CT_OK);
        st = op->k == SK_RSUB ? ct_sub(w, a, alpha, out) : ct_div(w, a, op->mode, out);
        ct_tensor_release(w);
        return st;
    }
}

static void scalar_cases(const ct_placement *pl, const ct_sbp (*nd)[2], size_t n_nd) {
    const scop ops[] = {
        {"add_scalar(2.5)", SK_ADD, ct_scalar_float(2.5), 1, CT_ROUNDING_NONE},
        {"add_scalar(3, alpha=2)", SK_ADD, ct_scalar_int(3), 2, CT_ROUNDING_NONE},
        {"sub_scalar(3)", SK_SUB, ct_scalar_int(3), 1, CT_ROUNDING_NONE},
        {"mul_scalar(3)", SK_MUL, ct_scalar_int(3), 1, CT_ROUNDING_NONE},
        {"mul_scalar(0.5)", SK_MUL, ct_scalar_float(0.5), 1, CT_ROUNDING_NONE},
        {"div_scalar(2)", SK_DIV, ct_scalar_int(2), 1, CT_ROUNDING_NONE},
        {"div_scalar(-3, floor)", SK_DIV, ct_scalar_int(-3), 1, CT_ROUNDING_FLOOR},
        {"div_scalar(2, trunc)", SK_DIV, ct_scalar_int(2), 1, CT_ROUNDING_TRUNC},
        {"rsub_scalar(10, alpha=2)", SK_RSUB, ct_scalar_int(10), 2, CT_ROUNDING_NONE},
        {"rdiv_scalar(3.0)", SK_RDIV, ct_scalar_float(3.0), 1, CT_ROUNDING_NONE},
        {"rdiv_scalar(7, floor)", SK_RDIV, ct_scalar_int(7), 1, CT_ROUNDING_FLOOR},
    };
    const int64_t nh = ct_placement_ndim(pl);
    int64_t sizes[2] = {7, 5};
    const ct_dtype dts[2] = {CT_FLOAT32, CT_INT32};
    for (size_t t = 0; t < 2; t++) {
        /* nonzero: rdiv divides by the tensor */
        ct_tensor *ra = ref_tensor(sizes, 2, dts[t], 5, true);
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
            for (size_t i = 0; i < n_nd; i++) {
                const scop *op = &ops[o];
                char desc[320], sb[64];
                ct_nd_sbp_format_short(nd[i], nh, sb, sizeof sb);
                snprintf(desc, sizeof desc, "%s of %s %s on %lld ranks", op->name,
                         ct_dtype_name(dts[t]), sb, (long long)ct_placement_size(pl));
                ct_global *ga = make_global(ra, pl, nd[i]), *gz = NULL;
                ct_status st = global_scalar(op, ga, &gz);
                if (st != CT_OK && R == 0)
                    fprintf(stderr, "%s: %s\n", desc, ct_last_error());
                CHECK_ALL(st == CT_OK, desc);
                ct_tensor *want = NULL, *got = gather_logical(gz);
                assert_int_equal(local_scalar(op, ra, &want), CT_OK);
                bool exact = ct_dtype_is_integral(ct_tensor_dtype(want), true);
                CHECK_ALL(values_match(got, want, exact), desc);
                /* The operand's nd-sbp; partial kept only by mul and true div. */
                bool keep_p = op->k == SK_MUL || (op->k == SK_DIV && op->mode == CT_ROUNDING_NONE);
                ct_sbp z[CT_PLACEMENT_MAX_NDIM];
                for (int64_t k = 0; k < nh; k++)
                    z[k] = nd[i][k].kind == CT_SBP_PARTIAL_SUM && !keep_p ? B : nd[i][k];
                CHECK_ALL(ct_nd_sbp_equal(ct_global_sbp(gz), z, nh), desc);
                ct_tensor_release(want);
                ct_tensor_release(got);
                ct_global_release(ga);
                ct_global_release(gz);
            }
        ct_tensor_release(ra);
    }
}

static void test_scalar(void **state) {
    (void)state;
    const ct_sbp nd1[4][2] = {{S0, B}, {S1, B}, {B, B}, {P, B}}; /* second entry unused */
    ct_placement *pl = all_ranks();
    scalar_cases(pl, nd1, 4);
    ct_placement_release(pl);
    if (W >= 2) {
        pl = tail_ranks();
        scalar_cases(pl, nd1, 4);
        ct_placement_release(pl);
    }
    if (W == 4) {
        const ct_sbp nd2[4][2] = {{P, S0}, {B, P}, {S1, B}, {P, P}};
        pl = mesh_2x2();
        scalar_cases(pl, nd2, 4);
        ct_placement_release(pl);
    }
}

/* ---- errors, identical on every rank ------------------------------------------------------- */

#define ASSERT_ERR_ALL(call, status, msg)                                                     \
    do {                                                                                      \
        ct_status st_ = (call);                                                               \
        CT_ASSERT_ALL(st_ == (status) && strcmp(ct_last_error(), (msg)) == 0);                \
    } while (0)

static void test_error_placement(void **state) {
    (void)state;
    int64_t s[2] = {7, 5};
    ct_tensor *r = ref_tensor(s, 2, CT_FLOAT32, 0, false);
    ct_placement *p = all_ranks(), *q;
    if (W >= 2) {
        int64_t r0 = 0, h = 1;
        q = placement(&r0, &h, 1);
    } else {
        int64_t r0 = 0, h[2] = {1, 1}; /* same rank, another hierarchy */
        q = placement(&r0, h, 2);
    }
    const ct_sbp bq[2] = {B, B};
    ct_global *a = make_global(r, p, &S0), *b = make_global(r, q, bq), *z = NULL;
    char fp[256], fq[256], msg[700];
    ct_test_placement_text(p, NULL, fp, sizeof fp);
    ct_test_placement_text(q, NULL, fq, sizeof fq);
    snprintf(msg, sizeof msg,
             "Expected all tensors to be on the same placement, but found at least two "
             "placements, %s and %s!",
             fp, fq);
    ASSERT_ERR_ALL(ct_global_add(a, b, ct_scalar_int(1), &z), CT_ERR_RUNTIME, msg);
    CT_ASSERT_ALL(z == NULL);
    snprintf(msg, sizeof msg,
             "Expected all tensors to be on the same placement, but found at least two "
             "placements, %s and %s!",
             fq, fp);
    ASSERT_ERR_ALL(ct_global_div(b, a, CT_ROUNDING_FLOOR, &z), CT_ERR_RUNTIME, msg);
    ct_global_release(a);
    ct_global_release(b);
    ct_tensor_release(r);
    ct_placement_release(p);
    ct_placement_release(q);
}

static void test_error_logical(void **state) {
    (void)state;
    int64_t s75[2] = {7, 5}, s4[1] = {4};
    ct_placement *p = all_ranks(), *t = W >= 2 ? tail_ranks() : ct_placement_retain(p);
    ct_tensor *r75 = ref_tensor(s75, 2, CT_FLOAT32, 0, false);
    ct_tensor *r4 = ref_tensor(s4, 1, CT_FLOAT32, 0, false);
    ct_tensor *i75 = ref_tensor(s75, 2, CT_INT32, 0, false);
    ct_tensor *b75 = NULL;
    assert_int_equal(ct_tensor_to_dtype(r75, CT_BOOL, &b75), CT_OK);
    ct_global *z = NULL;

    /* Broadcast mismatch: PyTorch's text on every rank, members or not. */
    ct_global *a = make_global(r75, t, &S0), *b = make_global(r4, t, &S0);
    ASSERT_ERR_ALL(ct_global_mul(a, b, &z), CT_ERR_RUNTIME,
                   "The size of tensor a (5) must match the size of tensor b (4) at "
                   "non-singleton dimension 1");
    ct_global_release(a);
    ct_global_release(b);

    /* sub on bool, both and one. */
    a = make_global(b75, t, &S1);
    b = make_global(b75, t, &P);
    ASSERT_ERR_ALL(ct_global_sub(a, b, ct_scalar_int(1), &z), CT_ERR_RUNTIME,
                   "Subtraction, the `-` operator, with two bool tensors is not supported. Use "
                   "the `^` or `logical_xor()` operator instead.");
    ct_global_release(b);
    b = make_global(r75, t, &B);
    ASSERT_ERR_ALL(ct_global_sub(b, a, ct_scalar_int(1), &z), CT_ERR_RUNTIME,
                   "Subtraction, the `-` operator, with a bool tensor is not supported. If you "
                   "are trying to invert a mask, use the `~` or `logical_not()` operator "
                   "instead.");
    ASSERT_ERR_ALL(ct_global_rsub_scalar(a, ct_scalar_int(1), ct_scalar_int(1), &z),
                   CT_ERR_RUNTIME,
                   "Subtraction, the `-` operator, with a bool tensor is not supported. If you "
                   "are trying to invert a mask, use the `~` or `logical_not()` operator "
                   "instead.");
    /* A kernel meta tensors do not check: bool floor division. */
    ASSERT_ERR_ALL(ct_global_div(a, a, CT_ROUNDING_FLOOR, &z), CT_ERR_NOT_IMPLEMENTED,
                   "\"div_floor_cpu\" not implemented for 'Bool'");
    ct_global_release(a);
    ct_global_release(b);

    /* alpha rules. */
    a = make_global(i75, t, &S0);
    ASSERT_ERR_ALL(ct_global_add(a, a, ct_scalar_float(1.5), &z), CT_ERR_RUNTIME,
                   "For integral input tensors, argument alpha must not be a floating point "
                   "number.");
    ASSERT_ERR_ALL(ct_global_sub_scalar(a, ct_scalar_int(1), ct_scalar_float(0.5), &z),
                   CT_ERR_RUNTIME,
                   "For integral input tensors, argument alpha must not be a floating point "
                   "number.");

    /* NULL arguments: a misuse on every rank. */
    CT_ASSERT_ALL(ct_global_add(a, NULL, ct_scalar_int(1), &z) == CT_ERR_MISUSE);
    CT_ASSERT_ALL(ct_global_mul(a, a, NULL) == CT_ERR_MISUSE);
    CT_ASSERT_ALL(ct_global_mul_scalar(NULL, ct_scalar_int(2), &z) == CT_ERR_MISUSE);
    ct_global_release(a);

    ct_tensor_release(r75);
    ct_tensor_release(r4);
    ct_tensor_release(i75);
    ct_tensor_release(b75);
    ct_placement_release(p);
    ct_placement_release(t);
}

/* An integer division by zero seen in one rank's shard only: every rank raises it (the
 * verdict is combined after the local op). */
static void test_error_zero_division(void **state) {
    (void)state;
    int64_t s[2] = {7, 5};
    ct_tensor *num = ref_tensor(s, 2, CT_INT32, 1, false);
    ct_tensor *den = ref_tensor(s, 2, CT_INT32, 2, true);
    ct_tensor *row = NULL, *cell = NULL;
    assert_int_equal(ct_tensor_narrow(den, 0, 6, 1, &row), CT_OK); /* the last rank's rows */
    assert_int_equal(ct_tensor_narrow(row, 1, 4, 1, &cell), CT_OK);
    assert_int_equal(ct_tensor_fill_(cell, ct_scalar_int(0)), CT_OK);
    ct_tensor_release(row);
    ct_tensor_release(cell);
    ct_placement *pls[2] = {all_ranks(), W >= 2 ? tail_ranks() : NULL};
    for (int i = 0; i < 2 && pls[i]; i++) {
        ct_global *a = make_global(num, pls[i], &S0), *b = make_global(den, pls[i], &S0), *z = NULL;
        ASSERT_ERR_ALL(ct_global_div(a, b, CT_ROUNDING_FLOOR, &z), CT_ERR_RUNTIME, "ZeroDivisionError");
        CT_ASSERT_ALL(z == NULL);
        ASSERT_ERR_ALL(ct_global_div(a, b, CT_ROUNDING_TRUNC, &z), CT_ERR_RUNTIME, "ZeroDivisionError");
        ASSERT_ERR_ALL(ct_global_rdiv_scalar(b, ct_scalar_int(1), CT_ROUNDING_TRUNC, &z),
                       CT_ERR_RUNTIME, "ZeroDivisionError");
        ASSERT_ERR_ALL(ct_global_div_scalar(a, ct_scalar_int(0), CT_ROUNDING_FLOOR, &z),
                       CT_ERR_RUNTIME, "ZeroDivisionError");
        /* True division gives inf / nan, no error. */
        CT_ASSERT_ALL(ct_global_div(a, b, CT_ROUNDING_NONE, &z) == CT_OK);
        ct_tensor *want = NULL, *got = gather_logical(z);
        assert_int_equal(ct_div(num, den, CT_ROUNDING_NONE, &want), CT_OK);
        CT_ASSERT_ALL(values_match(got, want, false));
        ct_tensor_release(want);
        ct_tensor_release(got);
        ct_global_release(z);
        /* The op still works afterwards: every rank left the error path together. */
        CT_ASSERT_ALL(ct_global_div(a, a, CT_ROUNDING_NONE, &z) == CT_OK);
        ct_global_release(z);
        ct_global_release(a);
        ct_global_release(b);
        ct_placement_release(pls[i]);
    }
    ct_tensor_release(num);
    ct_tensor_release(den);
}

/* Calls that differ between ranks fail on every rank instead of hanging. */
static void test_error_mismatch(void **state) {
    (void)state;
    if (W < 2)
        skip();
    int64_t s[2] = {7, 5};
    ct_tensor *r = ref_tensor(s, 2, CT_FLOAT32, 0, false);
    ct_placement *p = all_ranks();
    ct_global *a = make_global(r, p, &S0), *z = NULL;
    const char *prefix = "global operation arguments differ across ranks: rank 0 called ";
    ct_status st = R == 0 ? ct_global_add(a, a, ct_scalar_int(1), &z) : ct_global_mul(a, a, &z);
    CT_ASSERT_ALL(st == CT_ERR_RUNTIME && strncmp(ct_last_error(), prefix, strlen(prefix)) == 0);
    CT_ASSERT_ALL(z == NULL);
    st = ct_global_add(a, a, ct_scalar_int(R == 0 ? 1 : 2), &z); /* alpha differs */
    CT_ASSERT_ALL(st == CT_ERR_RUNTIME && strncmp(ct_last_error(), prefix, strlen(prefix)) == 0);
    st = ct_global_div_scalar(a, ct_scalar_int(R), CT_ROUNDING_NONE, &z); /* scalar differs */
    CT_ASSERT_ALL(st == CT_ERR_RUNTIME && strncmp(ct_last_error(), prefix, strlen(prefix)) == 0);
    /* an operand whose sbp differs between ranks */
    ct_global *b = make_global(r, p, R == 0 ? &S0 : &B);
    st = ct_global_mul(a, b, &z);
    CT_ASSERT_ALL(st == CT_ERR_RUNTIME && strncmp(ct_last_error(), prefix, strlen(prefix)) == 0);
    /* out NULL on one rank only */
    st = ct_global_mul(a, a, R == 1 ? NULL : &z);
    CT_ASSERT_ALL(st == CT_ERR_RUNTIME && strncmp(ct_last_error(), prefix, strlen(prefix)) == 0);
    /* and the next agreeing call works */
    CT_ASSERT_ALL(ct_global_mul(a, a, &z) == CT_OK);
    ct_global_release(z);
    ct_global_release(a);
    ct_global_release(b);
    ct_tensor_release(r);
    ct_placement_release(p);
}

/* ---- the op-enum entry points (global.h), which the Python binding calls -------------------- */

/* The named function of global.h for a row of ops.def, as Python called it before the entry
 * points existed; CT_ERR_NOT_IMPLEMENTED for rows without one (rsub of two tensors). */
static ct_status named_binary(ct_op op, const ct_global *a, const ct_global *b, ct_scalar alpha,
                              ct_global **out) {
    switch (op) {
    case CT_OP_ADD:
        return ct_global_add(a, b, alpha, out);
    case CT_OP_SUB:
        return ct_global_sub(a, b, alpha, out);
    case CT_OP_MUL:
        return ct_global_mul(a, b, out);
    case CT_OP_DIV:
    case CT_OP_DIV_TRUNC:
    case CT_OP_DIV_FLOOR:
        return ct_global_div(a, b, ct_op_rounding(op), out);
    default:
        return CT_ERR_NOT_IMPLEMENTED;
    }
}

/* Whether a partial_sum operand of the scalar forms stays partial (global.h): mul, and true
 * division with the tensor on the left. */
static bool scalar_keeps_p(ct_op op, bool tensor_left) {
    return op == CT_OP_MUL || (op == CT_OP_DIV && tensor_left);
}

/* Two results are the same global tensor: metadata, nd-sbp and this rank's component. */
static bool same_global(const ct_global *x, const ct_global *y) {
    if (!x || !y || ct_global_dtype(x) != ct_global_dtype(y) ||
        ct_global_dim(x) != ct_global_dim(y))
        return false;
    const ct_placement *pl = ct_global_placement(x);
    if (!ct_placement_equal(pl, ct_global_placement(y)) ||
        !ct_nd_sbp_equal(ct_global_sbp(x), ct_global_sbp(y), ct_placement_ndim(pl)))
        return false;
    for (int64_t d = 0; d < ct_global_dim(x); d++)
        if (ct_global_sizes(x)[d] != ct_global_sizes(y)[d])
            return false;
    return values_match(ct_global_local(x), ct_global_local(y), true);
}

/* Every row x sbp pair x dtype through ct_global_binary: the result of the named function
 * (the same global tensor), and the values of ct_binary on the logical operands. */
static void test_entry_binary(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    const ct_sbp set[4] = {S0, S1, B, P};
    int64_t sizes[2] = {7, 5};
    const ct_dtype dts[2] = {CT_FLOAT32, CT_INT32};
    for (size_t t = 0; t < 2; t++) {
        ct_tensor *ra = ref_tensor(sizes, 2, dts[t], 6, false);
        ct_tensor *rb = ref_tensor(sizes, 2, dts[t], 7, true);
        for (int op = 0; op < CT_NUM_OPS; op++)
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) {
                    n_cases++;
                    char desc[160];
                    snprintf(desc, sizeof desc, "ct_global_binary(%s row %d, %s, sbp %d, %d)",
                             ct_op_name((ct_op)op), op, ct_dtype_name(dts[t]), i, j);
                    const ct_scalar alpha = ct_scalar_int(ct_op_has_alpha((ct_op)op) ? 2 : 1);
                    ct_global *ga = make_global(ra, pl, &set[i]),
                              *gb = make_global(rb, pl, &set[j]);
                    ct_global *z = NULL, *named = NULL;
                    ct_status st = ct_global_binary((ct_op)op, ga, gb, alpha, &z);
                    ct_tensor *want = NULL;
                    ct_status want_st = ct_binary((ct_op)op, ra, rb, alpha, &want);
                    if (want_st != CT_OK) { /* e.g. bitwise ops of floats: no kernel */
                        CHECK_ALL(st == want_st, desc);
                    } else {
                        CHECK_ALL(st == CT_OK, desc);
                        ct_tensor *got = gather_logical(z);
                        bool exact = ct_dtype_is_integral(ct_tensor_dtype(want), true);
                        CHECK_ALL(values_match(got, want, exact), desc);
                        if (named_binary((ct_op)op, ga, gb, alpha, &named) !=
                            CT_ERR_NOT_IMPLEMENTED)
                            CHECK_ALL(same_global(z, named), desc);
                        ct_tensor_release(got);
                    }
                    ct_tensor_release(want);
                    ct_global_release(z);
                    ct_global_release(named);
                    ct_global_release(ga);
                    ct_global_release(gb);
                }
        ct_tensor_release(ra);
        ct_tensor_release(rb);
    }
    ct_placement_release(pl);
}

/* Every row with a number on either side (Python's x op 2 and 2 op x): values of ct_binary
 * with the number as a wrapped number, the operand's nd-sbp with partial_sum reduced to
 * broadcast except where the op is linear in the tensor, and what Python's test_global_arith
 * expects of x+2, 2+x, 1.5-x, 3*x, x/2, 2/x, x//2 on a partial_sum operand. */
static void test_entry_scalar(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    const ct_sbp set[4] = {S0, S1, B, P};
    const ct_scalar nums[2] = {ct_scalar_int(3), ct_scalar_float(1.5)};
    int64_t sizes[2] = {7, 5};
    const ct_dtype dts[2] = {CT_FLOAT32, CT_INT32};
    for (size_t t = 0; t < 2; t++) {
        ct_tensor *ra = ref_tensor(sizes, 2, dts[t], 8, true); /* nonzero: 2 / x */
        for (int op = 0; op < CT_NUM_OPS; op++)
            for (int n = 0; n < 2; n++)
                for (int i = 0; i < 4; i++)
                    for (int left = 0; left < 2; left++) {
                        n_cases++;
                        char desc[160];
                        snprintf(desc, sizeof desc,
                                 "ct_global_binary_%sscalar(%s row %d, %s, num %d, sbp %d)",
                                 left ? "r" : "", ct_op_name((ct_op)op), op, ct_dtype_name(dts[t]),
                                 n, i);
                        /* alpha 2 where taken: with the number on the left, add scales the
                         * tensor first, an exact product here */
                        const ct_scalar alpha = ct_scalar_int(ct_op_has_alpha((ct_op)op) ? 2 : 1);
                        ct_global *g = make_global(ra, pl, &set[i]), *z = NULL;
                        ct_tensor *w = NULL, *want = NULL;
                        assert_int_equal(ct_tensor_wrapped_number(nums[n], &w), CT_OK);
                        ct_status st =
                            left ? ct_global_binary_rscalar((ct_op)op, nums[n], g, alpha, &z)
                                 : ct_global_binary_scalar((ct_op)op, g, nums[n], alpha, &z);
                        ct_status want_st = left ? ct_binary((ct_op)op, w, ra, alpha, &want)
                                                 : ct_binary((ct_op)op, ra, w, alpha, &want);
                        if (want_st != CT_OK) { /* e.g. an integer division by a float: none */
                            CHECK_ALL(st == want_st, desc);
                        } else {
                            CHECK_ALL(st == CT_OK, desc);
                            ct_tensor *got = gather_logical(z);
                            bool exact = ct_dtype_is_integral(ct_tensor_dtype(want), true);
                            CHECK_ALL(values_match(got, want, exact), desc);
                            ct_sbp sbp = set[i];
                            if (sbp.kind == CT_SBP_PARTIAL_SUM && !scalar_keeps_p((ct_op)op, !left))
                                sbp = B;
                            CHECK_ALL(ct_sbp_equal(ct_global_sbp(z)[0], sbp), desc);
                            ct_tensor_release(got);
                        }
                        ct_tensor_release(w);
                        ct_tensor_release(want);
                        ct_global_release(z);
                        ct_global_release(g);
                    }
        ct_tensor_release(ra);
    }
    /* The named forms Python called before: the same global tensors. */
    ct_tensor *ra = ref_tensor(sizes, 2, CT_FLOAT32, 9, true);
    ct_global *g = make_global(ra, pl, &P);
    const ct_scalar two = ct_scalar_int(2), one = ct_scalar_int(1);
    ct_global *x = NULL, *y = NULL;
#define SAME_AS(entry_call, named_call)                                                            \
    do {                                                                                           \
        CT_ASSERT_ALL((entry_call) == CT_OK && (named_call) == CT_OK && same_global(x, y));        \
        ct_global_release(x);                                                                      \
        ct_global_release(y);                                                                      \
        x = y = NULL;                                                                              \
    } while (0)
    SAME_AS(ct_global_binary_scalar(CT_OP_ADD, g, two, one, &x),
            ct_global_add_scalar(g, two, one, &y));
    SAME_AS(ct_global_binary_rscalar(CT_OP_ADD, two, g, one, &x),
            ct_global_add_scalar(g, two, one, &y));
    SAME_AS(ct_global_binary_scalar(CT_OP_SUB, g, two, two, &x),
            ct_global_sub_scalar(g, two, two, &y));
    SAME_AS(ct_global_binary_rscalar(CT_OP_SUB, two, g, two, &x),
            ct_global_rsub_scalar(g, two, two, &y));
    SAME_AS(ct_global_binary_scalar(CT_OP_RSUB, g, two, two, &x),
            ct_global_rsub_scalar(g, two, two, &y));
    SAME_AS(ct_global_binary_rscalar(CT_OP_MUL, two, g, one, &x), ct_global_mul_scalar(g, two, &y));
    SAME_AS(ct_global_binary_scalar(CT_OP_DIV_FLOOR, g, two, one, &x),
            ct_global_div_scalar(g, two, CT_ROUNDING_FLOOR, &y));
    SAME_AS(ct_global_binary_rscalar(CT_OP_DIV, two, g, one, &x),
            ct_global_rdiv_scalar(g, two, CT_ROUNDING_NONE, &y));
    SAME_AS(ct_global_binary_rscalar(CT_OP_DIV_TRUNC, two, g, one, &x),
            ct_global_rdiv_scalar(g, two, CT_ROUNDING_TRUNC, &y));
#undef SAME_AS
    /* 2 + 3 * x on a partial_sum operand: x scaled (still partial), then 2 added: broadcast. */
    ct_tensor *want = NULL, *scaled = NULL;
    CT_ASSERT_ALL(ct_global_binary_rscalar(CT_OP_ADD, two, g, ct_scalar_int(3), &x) == CT_OK);
    assert_int_equal(ct_mul_scalar(ra, ct_scalar_int(3), &scaled), CT_OK);
    assert_int_equal(ct_add_scalar(scaled, two, one, &want), CT_OK);
    ct_tensor *got = gather_logical(x);
    CT_ASSERT_ALL(values_match(got, want, false) && ct_sbp_equal(ct_global_sbp(x)[0], B));
    ct_tensor_release(got);
    ct_tensor_release(want);
    ct_tensor_release(scaled);
    ct_global_release(x);
    ct_global_release(g);
    ct_tensor_release(ra);
    ct_placement_release(pl);
}

/* The entry points' errors: the named functions' (PyTorch's) texts, on every rank alike,
 * and their own misuse messages. */
static void test_entry_errors(void **state) {
    (void)state;
    ct_placement *pl = all_ranks();
    int64_t sizes[2] = {7, 5}, s4[1] = {4};
    ct_tensor *r = ref_tensor(sizes, 2, CT_FLOAT32, 0, false), *b = NULL;
    ct_tensor *r4 = ref_tensor(s4, 1, CT_FLOAT32, 0, false),
              *i = ref_tensor(sizes, 2, CT_INT32, 1, true);
    assert_int_equal(ct_tensor_to_dtype(r, CT_BOOL, &b), CT_OK);
    ct_global *g = make_global(r, pl, &S0), *g4 = make_global(r4, pl, &B);
    ct_global *gb = make_global(b, pl, &S1), *gi = make_global(i, pl, &S0), *z = NULL;
    ASSERT_ERR_ALL(ct_global_binary(CT_OP_MUL, g, g4, ct_scalar_int(1), &z), CT_ERR_RUNTIME,
                   "The size of tensor a (5) must match the size of tensor b (4) at "
                   "non-singleton dimension 1");
    CT_ASSERT_ALL(z == NULL);
    ASSERT_ERR_ALL(ct_global_binary(CT_OP_SUB, gb, gb, ct_scalar_int(1), &z), CT_ERR_RUNTIME,
                   "Subtraction, the `-` operator, with two bool tensors is not supported. Use "
                   "the `^` or `logical_xor()` operator instead.");
    /* 1 - x on a bool tensor, Python's error for it */
    ASSERT_ERR_ALL(ct_global_binary_rscalar(CT_OP_SUB, ct_scalar_int(1), gb, ct_scalar_int(1), &z),
                   CT_ERR_RUNTIME,
                   "Subtraction, the `-` operator, with a bool tensor is not supported. If you "
                   "are trying to invert a mask, use the `~` or `logical_not()` operator "
                   "instead.");
    ASSERT_ERR_ALL(ct_global_binary(CT_OP_DIV_FLOOR, gb, gb, ct_scalar_int(1), &z),
                   CT_ERR_NOT_IMPLEMENTED, "\"div_floor_cpu\" not implemented for 'Bool'");
    ASSERT_ERR_ALL(ct_global_binary(CT_OP_ADD, gi, gi, ct_scalar_float(1.5), &z), CT_ERR_RUNTIME,
                   "For integral input tensors, argument alpha must not be a floating point "
                   "number.");
    /* alpha is ignored by rows without it, as ct_binary ignores it */
    CT_ASSERT_ALL(ct_global_binary(CT_OP_MUL, gi, gi, ct_scalar_float(1.5), &z) == CT_OK);
    ct_global_release(z);
    z = NULL;
    ASSERT_ERR_ALL(ct_global_binary((ct_op)99, g, g, ct_scalar_int(1), &z), CT_ERR_MISUSE,
                   "ct_global_binary: invalid op 99");
    CT_ASSERT_ALL(z == NULL);
    ASSERT_ERR_ALL(ct_global_binary_scalar((ct_op)-1, g, ct_scalar_int(1), ct_scalar_int(1), &z),
                   CT_ERR_MISUSE, "ct_global_binary_scalar: invalid op -1");
    char msg[64];
    snprintf(msg, sizeof msg, "ct_global_binary_rscalar: invalid op %d", CT_NUM_OPS);
    ASSERT_ERR_ALL(ct_global_binary_rscalar(CT_NUM_OPS, ct_scalar_int(1), g, ct_scalar_int(1), &z),
                   CT_ERR_MISUSE, msg);
    ASSERT_ERR_ALL(ct_global_binary(CT_OP_ADD, g, NULL, ct_scalar_int(1), &z), CT_ERR_MISUSE,
                   "ct_global_binary: NULL argument");
    ASSERT_ERR_ALL(
        ct_global_binary_rscalar(CT_OP_DIV, ct_scalar_int(1), NULL, ct_scalar_int(1), &z),
        CT_ERR_MISUSE, "ct_global_binary_rscalar: NULL argument");
    ASSERT_ERR_ALL(ct_global_binary_scalar(CT_OP_MUL, g, ct_scalar_int(1), ct_scalar_int(1), NULL),
                   CT_ERR_MISUSE, "ct_global_binary_scalar: NULL argument");
    /* the named functions still name themselves */
    ASSERT_ERR_ALL(ct_global_mul_scalar(NULL, ct_scalar_int(2), &z), CT_ERR_MISUSE,
                   "ct_global_mul_scalar: NULL argument");
    ASSERT_ERR_ALL(ct_global_div(g, NULL, CT_ROUNDING_FLOOR, &z), CT_ERR_MISUSE,
                   "ct_global_div: NULL argument");
    /* and every rank still agrees on the next call */
    CT_ASSERT_ALL(ct_global_binary(CT_OP_ADD, g, g, ct_scalar_int(1), &z) == CT_OK);
    ct_global_release(z);
    ct_global_release(g);
    ct_global_release(g4);
    ct_global_release(gb);
    ct_global_release(gi);
    ct_tensor_release(r);
    ct_tensor_release(r4);
    ct_tensor_release(b);
    ct_tensor_release(i);
    ct_placement_release(pl);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signature),
        cmocka_unit_test(test_matrix_all_ranks),
        cmocka_unit_test(test_matrix_subset),
        cmocka_unit_test(test_matrix_2d),
        cmocka_unit_test(test_edge_shapes),
        cmocka_unit_test(test_scalar),
        cmocka_unit_test(test_error_placement),
        cmocka_unit_test(test_error_logical),
        cmocka_unit_test(test_error_zero_division),
        cmocka_unit_test(test_error_mismatch),
        cmocka_unit_test(test_entry_binary),
        cmocka_unit_test(test_entry_scalar),
        cmocka_unit_test(test_entry_errors),
    };
    return dist_ops_main(tests, sizeof tests / sizeof tests[0], "binary cases");
}
