// libtorch's side of the 1-element add in bench/run_arith.sh (bench/README.md, "Arithmetic").
// Built only when CMake finds Torch (Debian's libtorch-dev); never needed by CI.
//
// Usage: bench_arith_torch [--threads T] [--calls C] [--reps R]
//   at::set_num_threads(T), then the best of R timed runs (after one warm-up run) of C calls:
//     CPPTORCH add-1 <T> <ns per call>      at::Tensor c = at::add(a, b); (destroyed each call)
//     CPPTORCH add_out-1 <T> <ns per call>  at::add_out(c, a, b) into a 1-element tensor
//   on 1-element float32 CPU tensors, the counterpart of bench_arith's LATENCY lines.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

int main(int argc, char **argv) {
    int threads = 0, calls = 200000, reps = 5;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
            calls = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: bench_arith_torch [--threads T] [--calls C] [--reps R]\n");
            return 2;
        }
    }
    if (calls < 1 || reps < 1 || threads < 0) {
        std::fprintf(stderr, "bench_arith_torch: --calls and --reps must be positive\n");
        return 2;
    }
    if (threads > 0)
        at::set_num_threads(threads);
    threads = at::get_num_threads();

    at::Tensor a = at::full({1}, 1.5, at::kFloat);
    at::Tensor b = at::full({1}, 2.25, at::kFloat);
    at::Tensor c = at::empty({1}, at::kFloat);
    double best_alloc = 1e30, best_out = 1e30;
    for (int r = 0; r <= reps; r++) {
        double t0 = now_seconds();
        for (int i = 0; i < calls; i++) {
            at::Tensor d = at::add(a, b);
            (void)d;
        }
        double t1 = now_seconds();
        for (int i = 0; i < calls; i++)
            at::add_out(c, a, b);
        double t2 = now_seconds();
        if (r > 0 && t1 - t0 < best_alloc)
            best_alloc = t1 - t0;
        if (r > 0 && t2 - t1 < best_out)
            best_out = t2 - t1;
    }
    if (c.item<float>() != 3.75f) {
        std::fprintf(stderr, "bench_arith_torch: 1.5 + 2.25 gave %g\n", c.item<double>());
        return 1;
    }
    std::printf("CPPTORCH add-1 %d %.1f\n", threads, best_alloc / calls * 1e9);
    std::printf("CPPTORCH add_out-1 %d %.1f\n", threads, best_out / calls * 1e9);
    return 0;
}
