/* The functions of tensor_reduce2.c that tensor_reduce.c's method tables list (so the module
 * and the Tensor type take them with the other reductions). */
#ifndef CTP_TENSOR_REDUCE2_H
#define CTP_TENSOR_REDUCE2_H

#include <Python.h>
#include <stdint.h>

#define CTP_REDUCE2_DECLARE(name)                                                                  \
    PyObject *ctp_reduce2_##name(PyObject *self, PyObject *args, PyObject *kwargs);
CTP_REDUCE2_DECLARE(f_var)
CTP_REDUCE2_DECLARE(f_std)
CTP_REDUCE2_DECLARE(f_var_mean)
CTP_REDUCE2_DECLARE(f_std_mean)
CTP_REDUCE2_DECLARE(m_var)
CTP_REDUCE2_DECLARE(m_std)
CTP_REDUCE2_DECLARE(f_norm)
CTP_REDUCE2_DECLARE(m_norm)
CTP_REDUCE2_DECLARE(f_aminmax)
CTP_REDUCE2_DECLARE(m_aminmax)
CTP_REDUCE2_DECLARE(f_cumsum)
CTP_REDUCE2_DECLARE(f_cumprod)
CTP_REDUCE2_DECLARE(m_cumsum)
CTP_REDUCE2_DECLARE(m_cumprod)
CTP_REDUCE2_DECLARE(m_cumsum_)
CTP_REDUCE2_DECLARE(m_cumprod_)
#undef CTP_REDUCE2_DECLARE

/* max / min (input, dim, keepdim, out=(values, indices)): the two out tensors as new
 * references, or -1 with the exception set. */
int ctp_reduce2_max_out(int is_max, PyObject *input, int64_t dim, int keepdim, PyObject *out,
                        PyObject **values, PyObject **indices);

#endif /* CTP_TENSOR_REDUCE2_H */
