/* A consumer of the installed libctensor_dist: one rank (no mpirun), a placement and a
 * global tensor, printed. */
#include <ctensor/ctensor.h>
#include <ctensor/dist.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    int64_t ranks[1] = {0}, hierarchy[1] = {1}, sizes[2] = {3, 2};
    ct_placement *p = NULL;
    ct_global *g = NULL;
    ct_sbp s;
    char *text = NULL;
    if (ct_dist_init() != CT_OK || ct_placement_new("cpu", ranks, hierarchy, 1, &p) != CT_OK ||
        ct_sbp_split(0, &s) != CT_OK ||
        ct_global_ones(sizes, 2, CT_FLOAT32, p, &s, 1, &g) != CT_OK) {
        fprintf(stderr, "consumer_dist: %s\n", ct_last_error());
        return 1;
    }
    if (ct_placement_format(p, NULL, &text) != CT_OK) {
        fprintf(stderr, "consumer_dist: %s\n", ct_last_error());
        return 1;
    }
    int ok = strcmp(text, "ctensor.placement(type=\"cpu\", ranks=[0])") == 0 &&
             ct_tensor_numel(ct_global_local(g)) == 6;
    printf("consumer_dist %s: %s\n", ok ? "ok" : "FAILED", text);
    ct_string_free(text);
    ct_global_release(g);
    ct_placement_release(p);
    ct_dist_finalize();
    return ok ? 0 : 2;
}
