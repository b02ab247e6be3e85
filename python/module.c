/* The ctensor extension module: `import ctensor as torch` for the dtype and device parts of
 * PyTorch.
 *
 * Contents: the dtype type and its singletons under every primary name and alias, finfo,
 * iinfo, promote_types, can_cast, result_type, get/set_default_dtype, __version__, and the
 * private _result_type_of; the device type, get/set_default_device, set_device,
 * current_device, device_count, get/set_compat_mode; the submodules accelerator, utils, cuda
 * (the CUDA backend, registered at import when the module is built with it) and _testing; the
 * layout and memory_format singletons, Size, Tensor with its factory functions (empty, zeros, ones,
 * full, arange, rand, randn, tensor, *_like, ...), Generator, manual_seed and initial_seed;
 * element-wise arithmetic (add, sub, mul, div and their aliases, the Tensor operators) and
 * set/get_num_threads, with the library's warnings raised as Python UserWarnings; with
 * libctensor_dist, global tensors (placement, sbp, env, GlobalTensor, to_global, to_local).
 * Single-phase initialisation with static types, like torch._C: the dtype singletons must stay the
 * same objects for the life of the process.
 */
#include "ctensor_py.h"
#ifdef CT_HAVE_DIST
#include "ctensor_dist_py.h"
#endif

static struct PyModuleDef ctensor_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ctensor",
    .m_doc = "ctensor: PyTorch's dtype system (dtypes, promotion, result types, casting rules, "
             "default dtype, finfo/iinfo) implemented in C.",
    .m_size = -1,
    .m_methods = ctp_promotion_methods,
};

static int add_type(PyObject *module, PyTypeObject *type, const char *name) {
    if (PyType_Ready(type) < 0)
        return -1;
    Py_INCREF(type);
    if (PyModule_AddObject(module, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

PyObject *ctp_add_submodule(PyObject *module, struct PyModuleDef *def, const char *name) {
    PyObject *sub = PyModule_Create(def);
    if (sub == NULL)
        return NULL;
    /* In sys.modules, `import ctensor.accelerator` and `from ctensor.utils import ...` work
     * although ctensor is a single extension module, not a package. */
    if (PyDict_SetItemString(PyImport_GetModuleDict(), def->m_name, sub) < 0 ||
        PyModule_AddObjectRef(module, name, sub) < 0) {
        Py_DECREF(sub);
        return NULL;
    }
    Py_DECREF(sub); /* the module keeps it */
    return sub;
}

/* The one exported symbol; declared here because no header needs it. */
PyMODINIT_FUNC PyInit_ctensor(void);
/* Tensor.__dlpack__, __dlpack_device__ and from_dlpack (dlpack.c). */
int ctp_dlpack_init(PyObject *module);
/* Docstrings and text signatures from docs.def, once every name exists (docs.c). */
int ctp_docs_init(PyObject *module);
/* pickle and copy of tensors (tensor_pickle.c). */
int ctp_pickle_init(PyObject *module);
/* save_file, load_file and ctensor.safetensors (safetensors.c). */
int ctp_safetensors_init(PyObject *module);

PyMODINIT_FUNC PyInit_ctensor(void) {
    /* The module is linked with the static library, so a mismatch means a broken build. */
    if (ct_version_number() != CT_VERSION_NUMBER) {
        PyErr_Format(PyExc_ImportError, "ctensor: library version %d, headers %d",
                     ct_version_number(), CT_VERSION_NUMBER);
        return NULL;
    }
    PyObject *module = PyModule_Create(&ctensor_module);
    if (module == NULL)
        return NULL;
    if (ctp_dtype_init(module) < 0 || add_type(module, &ctp_finfo_type, "finfo") < 0 ||
        add_type(module, &ctp_iinfo_type, "iinfo") < 0 ||
        PyModule_AddStringConstant(module, "__version__", ct_version_string()) < 0 ||
        ctp_device_init(module) < 0 || PyModule_AddFunctions(module, ctp_device_functions) < 0 ||
        ctp_accelerator_init(module) < 0 || ctp_utils_init(module) < 0 ||
        ctp_testing_init(module) < 0 || ctp_layout_init(module) < 0 || ctp_size_init(module) < 0 ||
        ctp_generator_init(module) < 0 || ctp_tensor_init(module) < 0 ||
        ctp_dlpack_init(module) < 0 || ctp_cuda_init(module) < 0 ||
        PyModule_AddFunctions(module, ctp_tensor_create_functions) < 0 ||
        PyModule_AddFunctions(module, ctp_tensor_new_functions) < 0 ||
        PyModule_AddFunctions(module, ctp_tensor_random_functions) < 0 ||
        PyModule_AddFunctions(module, ctp_reduce_functions) < 0 || ctp_arith_init(module) < 0 ||
        ctp_unary_init(module) < 0 || ctp_print_init(module) < 0 ||
        ctp_ternary_init(module) < 0 /* where, clamp, lerp, addcmul, ... (tensor_ternary.c) */ ||
        ctp_join_init(module) < 0 || ctp_factories_init(module) < 0 ||
        ctp_linalg_init(module) < 0 /* matmul, mm, bmm, ... (tensor_linalg.c) */ ||
        ctp_indexops_init(module) < 0 /* index_select, nonzero, masked_select */ ||
        ctp_sort_init(module) < 0 /* sort, topk, unique, ... (tensor_sort.c) */ ||
        ctp_reorder_init(module) < 0 /* flip, roll, repeat, tril, resize_, ... (tensor_reorder.c) */ ||
        ctp_linalg_add_init(module) < 0 /* addmv, addr, addbmm, addmm_, ... (tensor_linalg_add.c) */ ||
        ctp_scatter_init(module) < 0 /* gather, scatter, index_add, ... (tensor_scatter.c) */ ||
        ctp_search_init(module) < 0 /* searchsorted, bucketize (tensor_search.c) */ ||
        ctp_method_functions_init(module) < 0 /* transpose, t, clone, negative */ ||
        ctp_grad_mode_init(module) < 0 || ctp_softmax_init(module) < 0 ||
        ctp_sparse_init(module) < 0 /* after every method and function it wraps exists */
#ifdef CT_HAVE_DIST
        || ctp_dist_init(module) < 0 /* placement, sbp, env, GlobalTensor; MPI starts later */
        || ctp_global_finish() < 0   /* last: every Tensor method has its global form or error */
#endif
        || ctp_pickle_init(module) < 0 /* after dist: GlobalTensor's refusal */
        || ctp_safetensors_init(module) < 0
        || ctp_docs_init(module) < 0 /* last: patches the docs of everything registered above */
    ) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
