/* placeholder: filled in by the cuda backend work */
typedef int ct_cuda_placeholder_pinned;
