/* Shared declarations of the CPython extension paddle._C: the Tensor object, the dtype
 * objects, error mapping (pd_status -> the exception type Paddle uses), argument converters
 * used by the generated bindings, and wrapping of op results. */
#ifndef PD_PY_H
#define PD_PY_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "../ops/pd_op.h"

typedef struct {
  PyObject_HEAD
  pd_tensor *t;          /* owned reference */
  PyObject *dict;        /* instance __dict__ (Python-side attributes such as name) */
  PyObject *weakreflist;
} PdTensorObject;

typedef struct {
  PyObject_HEAD
  int code;              /* pd_dtype */
} PdDTypeObject;

extern PyTypeObject *PdTensor_Type;  /* heap type "paddle.Tensor" */
extern PyObject *pd_py_variable_type; /* paddle.static.Variable (a Tensor subclass), or NULL */
extern PyTypeObject *PdDType_Type;
extern PyObject *pd_py_dtypes[PD_NUM_DTYPES];

static inline int PdTensor_Check(PyObject *o) { return PyObject_TypeCheck(o, PdTensor_Type); }
static inline pd_tensor *PdTensor_T(PyObject *o) { return ((PdTensorObject *)o)->t; }

/* Wraps t (steals the reference). Returns the tensor's existing Python object when it has one. */
PyObject *pd_py_wrap(pd_tensor *t);
/* Raises the Python exception for the last C error and returns NULL. */
PyObject *pd_py_raise(pd_status s);
int pd_py_errors_init(PyObject *m); /* paddle._C.InvalidTypeError / KernelNotFoundError */
int pd_py_call_stack_level(void);
PyObject *pd_py_nargs_error(const char *op, int lo, int hi, Py_ssize_t got);
/* Runs an op and wraps its outputs: a Tensor, a tuple (several outputs) or a list (Tensor[]). */
PyObject *pd_py_run_op(int op, const void *args);

/* Temporary storage for converted arguments, freed after the call. */
typedef struct {
  void *ptrs[8];
  int n;
} pd_py_argbuf;
void pd_py_argbuf_init(pd_py_argbuf *b);
void pd_py_argbuf_free(pd_py_argbuf *b);

/* Converters: return 1 on success, 0 with a Python exception set. */
int pd_py_arg_tensor(PyObject *o, pd_tensor **out, const char *op, const char *name, int optional);
int pd_py_arg_tensor_list(PyObject *o, pd_tensor_list *out, pd_py_argbuf *b, const char *op,
                          const char *name);
int pd_py_arg_int(PyObject *o, int64_t *out, const char *op, const char *name);
int pd_py_arg_float(PyObject *o, double *out, const char *op, const char *name);
int pd_py_arg_bool(PyObject *o, int *out, const char *op, const char *name);
int pd_py_arg_str(PyObject *o, const char **out, const char *op, const char *name);
int pd_py_arg_int_array(PyObject *o, pd_int_array *out, pd_py_argbuf *b, const char *op,
                        const char *name);
int pd_py_arg_float_array(PyObject *o, pd_float_array *out, pd_py_argbuf *b, const char *op,
                          const char *name);
int pd_py_arg_scalar(PyObject *o, pd_scalar *out, const char *op, const char *name);
int pd_py_arg_dtype(PyObject *o, int *out, const char *op, const char *name);
/* dtype from a DType object, a str ("float32"), a numpy dtype/type, or None (-1). */
int pd_py_parse_dtype(PyObject *o, int *out);

extern PyMethodDef pd_py_op_methods[];   /* generated */
int pd_py_tensor_type_init(PyObject *module);
int pd_py_dtype_type_init(PyObject *module);

#endif
