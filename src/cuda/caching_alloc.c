/* The caching allocator of the cuda backend (placeholder until the bookkeeping lands). */
typedef int ct_cuda_placeholder_caching_alloc;
