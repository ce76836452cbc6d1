/* Argument converters for the generated METH_FASTCALL bindings, pd_status -> Python
 * exception mapping (Paddle's rules, seed E12), and wrapping of op outputs. */
#include <stdlib.h>
#include <string.h>
#include "pd_py.h"
#include "../core/pd_device.h"

/* A wrong type or dtype (PD_ERR_TYPE) is a TypeError here, as Python's convention; Paddle raises
 * ValueError (InvalidArgument) from its argument parser and RuntimeError (NotFound) for a dtype
 * without a kernel. The two classes are both, so either `except` clause catches them; exported as
 * paddle._C.InvalidTypeError and paddle._C.KernelNotFoundError for the Python-side checks. */
static PyObject *g_type_errors[2];

int pd_py_errors_init(PyObject *m) {
  static const struct { const char *name, *attr, *doc; } k[2] = {
      {"paddle.base.core.InvalidTypeError", "InvalidTypeError",
       "An argument of the wrong type: Paddle raises ValueError (InvalidArgument); also a TypeError"},
      {"paddle.base.core.KernelNotFoundError", "KernelNotFoundError",
       "No kernel for the input's data type: Paddle raises RuntimeError (NotFound); also a TypeError"}};
  for (int i = 0; i < 2; i++) {
    PyObject *bases = PyTuple_Pack(2, i == 0 ? PyExc_ValueError : PyExc_RuntimeError, PyExc_TypeError);
    if (!bases) return -1;
    g_type_errors[i] = PyErr_NewExceptionWithDoc(k[i].name, k[i].doc, bases, NULL);
    Py_DECREF(bases);
    if (!g_type_errors[i]) return -1;
    Py_INCREF(g_type_errors[i]);
    if (PyModule_AddObject(m, k[i].attr, g_type_errors[i]) < 0) {
      Py_DECREF(g_type_errors[i]);
      return -1;
    }
  }
  return 0;
}

PyObject *pd_py_raise(pd_status s) {
  PyObject *exc;
  switch (s) {
    case PD_ERR_INVALID_ARGUMENT: exc = PyExc_ValueError; break;
    case PD_ERR_OUT_OF_RANGE: exc = PyExc_IndexError; break;
    case PD_ERR_RESOURCE_EXHAUSTED: exc = PyExc_MemoryError; break;
    case PD_ERR_UNIMPLEMENTED: exc = PyExc_NotImplementedError; break;
    case PD_ERR_FATAL: exc = PyExc_SystemError; break;
    case PD_ERR_EXTERNAL: exc = PyExc_OSError; break;
    case PD_ERR_TYPE: exc = PyExc_TypeError; break;
    default: exc = PyExc_RuntimeError; break;
  }
  /* Paddle's error class tag first ("(InvalidArgument) ..."), which users and tests search for */
  const char *tag;
  switch (s) {
    case PD_ERR_INVALID_ARGUMENT: case PD_ERR_TYPE: tag = "InvalidArgument"; break;
    case PD_ERR_NOT_FOUND: tag = "NotFound"; break;
    case PD_ERR_OUT_OF_RANGE: tag = "OutOfRange"; break;
    case PD_ERR_ALREADY_EXISTS: tag = "AlreadyExists"; break;
    case PD_ERR_RESOURCE_EXHAUSTED: tag = "ResourceExhausted"; break;
    case PD_ERR_PRECONDITION_NOT_MET: tag = "PreconditionNotMet"; break;
    case PD_ERR_PERMISSION_DENIED: tag = "PermissionDenied"; break;
    case PD_ERR_EXECUTION_TIMEOUT: tag = "ExecutionTimeout"; break;
    case PD_ERR_UNIMPLEMENTED: tag = "Unimplemented"; break;
    case PD_ERR_UNAVAILABLE: tag = "Unavailable"; break;
    case PD_ERR_FATAL: tag = "Fatal"; break;
    case PD_ERR_EXTERNAL: tag = "External"; break;
    default: tag = NULL; break;
  }
  const char *m = pd_last_error();
  if (!m || !m[0]) m = pd_status_name(s);
  char own[32];
  if (m[0] == '(') { /* already tagged: "(Tag) text" keeps its tag */
    const char *close = strchr(m, ')');
    size_t n = close ? (size_t)(close - m - 1) : 0;
    int alpha = n > 0 && n < sizeof own;
    for (size_t i = 0; alpha && i < n; i++) alpha = (m[1 + i] >= 'A' && m[1 + i] <= 'Z') || (m[1 + i] >= 'a' && m[1 + i] <= 'z');
    if (close && close[1] == ' ' && alpha) {
      memcpy(own, m + 1, n);
      own[n] = 0;
      tag = own;
      m = close + 2;
    }
  }
  if (s == PD_ERR_TYPE && g_type_errors[0]) /* TypeError and Paddle's class (see pd_py_errors_init) */
    exc = tag && strcmp(tag, "NotFound") == 0 ? g_type_errors[1] : g_type_errors[0];
  if (tag && pd_py_call_stack_level() >= 2) /* Paddle's error summary (FLAGS_call_stack_level=2) */
    PyErr_Format(exc,
                 "\n\n----------------------\nError Message Summary:\n----------------------\n%sError: %s\n",
                 tag, m);
  else if (tag)
    PyErr_Format(exc, "(%s) %s", tag, m);
  else
    PyErr_SetString(exc, m);
  return NULL;
}

/* FLAGS_call_stack_level (Paddle's flag, environment or paddle.set_flags, which sets the
 * environment too): 2 gives the "Error Message Summary" form "InvalidArgumentError: text",
 * 0 and 1 (the default) the short form "(InvalidArgument) text" */
int pd_py_call_stack_level(void) {
  const char *v = getenv("FLAGS_call_stack_level");
  return v ? atoi(v) : 1;
}

PyObject *pd_py_nargs_error(const char *op, int lo, int hi, Py_ssize_t got) {
  if (lo == hi)
    PyErr_Format(PyExc_TypeError, "[%s] expected %d arguments, received %zd", op, lo, got);
  else
    PyErr_Format(PyExc_TypeError, "[%s] expected %d to %d arguments, received %zd", op, lo, hi,
                 got);
  return NULL;
}

void pd_py_argbuf_init(pd_py_argbuf *b) { b->n = 0; }
void pd_py_argbuf_free(pd_py_argbuf *b) {
  for (int i = 0; i < b->n; i++) PyMem_Free(b->ptrs[i]);
  b->n = 0;
}
static void *argbuf_alloc(pd_py_argbuf *b, size_t n) {
  if (b->n >= 8) {
    PyErr_SetString(PyExc_SystemError, "too many array arguments");
    return NULL;
  }
  void *p = PyMem_Malloc(n ? n : 1);
  if (!p) {
    PyErr_NoMemory();
    return NULL;
  }
  b->ptrs[b->n++] = p;
  return p;
}

static int type_error(const char *op, const char *name, const char *expected, PyObject *o) {
  pd_set_error(PD_ERR_TYPE, "[%s] expected %s to be %s, but received %s", op, name, expected, Py_TYPE(o)->tp_name);
  pd_py_raise(PD_ERR_TYPE); /* Paddle's argument parser: (InvalidArgument), see pd_py_errors_init */
  return 0;
}

int pd_py_arg_tensor(PyObject *o, pd_tensor **out, const char *op, const char *name, int optional) {
  if (PdTensor_Check(o)) {
    *out = PdTensor_T(o);
    return 1;
  }
  if (optional && o == Py_None) {
    *out = NULL;
    return 1;
  }
  return type_error(op, name, optional ? "a paddle.Tensor or None" : "a paddle.Tensor", o);
}

int pd_py_arg_tensor_list(PyObject *o, pd_tensor_list *out, pd_py_argbuf *b, const char *op,
                          const char *name) {
  if (PdTensor_Check(o)) { /* a single tensor counts as a list of one */
    pd_tensor **a = (pd_tensor **)argbuf_alloc(b, sizeof(pd_tensor *));
    if (!a) return 0;
    a[0] = PdTensor_T(o);
    out->data = a;
    out->n = 1;
    return 1;
  }
  if (!PyList_Check(o) && !PyTuple_Check(o))
    return type_error(op, name, "a list or tuple of paddle.Tensor", o);
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject **items = PySequence_Fast_ITEMS(o);
  pd_tensor **a = (pd_tensor **)argbuf_alloc(b, sizeof(pd_tensor *) * (size_t)n);
  if (!a) return 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    if (!PdTensor_Check(items[i])) {
      pd_set_error(PD_ERR_TYPE, "[%s] expected every element of %s to be a paddle.Tensor, but element %zd is %s",
                   op, name, i, Py_TYPE(items[i])->tp_name);
      pd_py_raise(PD_ERR_TYPE);
      return 0;
    }
    a[i] = PdTensor_T(items[i]);
  }
  out->data = a;
  out->n = n;
  return 1;
}

/* The bytes of element elem (an offset in elements from t's data) readable on the host (a GPU
 * tensor's element is copied into buf). NULL with a Python error set on failure. */
static const void *host_elem(const pd_tensor *t, int64_t elem, unsigned char *buf) {
  const void *p;
  pd_status s = pd_elem_host(t, t->offset + elem, buf, &p);
  if (s != PD_OK) {
    pd_py_raise(s);
    return NULL;
  }
  return p;
}

static int one_elem_tensor_value(PyObject *o, double *re, double *im, pd_dtype *dt) {
  pd_tensor *t = PdTensor_T(o);
  if (t->numel != 1 || !t->storage) return 0; /* a program variable has no value to read */
  unsigned char buf[16];
  const void *p = host_elem(t, 0, buf);
  if (!p) {
    PyErr_Clear();
    return 0;
  }
  pd_load_as_complex(p, t->dtype, re, im);
  *dt = t->dtype;
  return 1;
}

int pd_py_arg_int(PyObject *o, int64_t *out, const char *op, const char *name) {
  if (PyLong_Check(o)) {
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) return 0;
    *out = v;
    return 1;
  }
  if (PdTensor_Check(o)) {
    double re, im;
    pd_dtype dt;
    if (one_elem_tensor_value(o, &re, &im, &dt) && !pd_dtype_is_float(dt) && !pd_dtype_is_complex(dt)) {
      unsigned char buf[16];
      const void *p = host_elem(PdTensor_T(o), 0, buf);
      if (!p) return 0;
      *out = pd_load_as_int64(p, dt);
      return 1;
    }
    return type_error(op, name, "an int or a one-element integer Tensor", o);
  }
  if (PyFloat_Check(o)) return type_error(op, name, "an int", o);
  PyObject *i = PyNumber_Index(o);
  if (!i) {
    PyErr_Clear();
    return type_error(op, name, "an int", o);
  }
  long long v = PyLong_AsLongLong(i);
  Py_DECREF(i);
  if (v == -1 && PyErr_Occurred()) return 0;
  *out = v;
  return 1;
}

int pd_py_arg_float(PyObject *o, double *out, const char *op, const char *name) {
  if (PdTensor_Check(o)) {
    double re, im;
    pd_dtype dt;
    if (one_elem_tensor_value(o, &re, &im, &dt)) {
      *out = re;
      return 1;
    }
    return type_error(op, name, "a float or a one-element Tensor", o);
  }
  double v = PyFloat_AsDouble(o);
  if (v == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    return type_error(op, name, "a float", o);
  }
  *out = v;
  return 1;
}

int pd_py_arg_bool(PyObject *o, int *out, const char *op, const char *name) {
  if (o == Py_True || o == Py_False) {
    *out = o == Py_True;
    return 1;
  }
  if (PyLong_Check(o) || PdTensor_Check(o) ||
      (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_bool)) {
    int r = PyObject_IsTrue(o);
    if (r < 0) return 0;
    *out = r;
    return 1;
  }
  return type_error(op, name, "a bool", o);
}

int pd_py_arg_str(PyObject *o, const char **out, const char *op, const char *name) {
  if (!PyUnicode_Check(o)) return type_error(op, name, "a str", o);
  *out = PyUnicode_AsUTF8(o);
  return *out != NULL;
}

int pd_py_arg_int_array(PyObject *o, pd_int_array *out, pd_py_argbuf *b, const char *op,
                        const char *name) {
  if (PyLong_Check(o)) {
    int64_t *a = (int64_t *)argbuf_alloc(b, sizeof(int64_t));
    if (!a || !pd_py_arg_int(o, a, op, name)) return 0;
    out->data = a;
    out->n = 1;
    return 1;
  }
  if (PdTensor_Check(o)) { /* an integer tensor holding the values */
    pd_tensor *t = PdTensor_T(o);
    if (!t->storage)
      return type_error(op, name, "a list of ints (a static Variable's value is only known when the "
                        "program runs)", o);
    if (pd_dtype_is_float(t->dtype) || pd_dtype_is_complex(t->dtype) || t->ndim > 1)
      return type_error(op, name, "a list of ints or a 1-D integer Tensor", o);
    int64_t *a = (int64_t *)argbuf_alloc(b, sizeof(int64_t) * (size_t)t->numel);
    if (!a) return 0;
    size_t isz = pd_dtype_size(t->dtype);
    (void)isz;
    for (int64_t i = 0; i < t->numel; i++) {
      int64_t off = t->ndim ? i * t->strides[0] : 0;
      unsigned char buf[16];
      const void *p = host_elem(t, off, buf);
      if (!p) return 0;
      a[i] = pd_load_as_int64(p, t->dtype);
    }
    out->data = a;
    out->n = t->numel;
    return 1;
  }
  if (!PyList_Check(o) && !PyTuple_Check(o))
    return type_error(op, name, "a list or tuple of ints", o);
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject **items = PySequence_Fast_ITEMS(o);
  int64_t *a = (int64_t *)argbuf_alloc(b, sizeof(int64_t) * (size_t)n);
  if (!a) return 0;
  for (Py_ssize_t i = 0; i < n; i++)
    if (!pd_py_arg_int(items[i], &a[i], op, name)) return 0;
  out->data = a;
  out->n = n;
  return 1;
}

int pd_py_arg_float_array(PyObject *o, pd_float_array *out, pd_py_argbuf *b, const char *op,
                          const char *name) {
  if (PyFloat_Check(o) || PyLong_Check(o)) {
    double *a = (double *)argbuf_alloc(b, sizeof(double));
    if (!a || !pd_py_arg_float(o, a, op, name)) return 0;
    out->data = a;
    out->n = 1;
    return 1;
  }
  if (!PyList_Check(o) && !PyTuple_Check(o))
    return type_error(op, name, "a list or tuple of floats", o);
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject **items = PySequence_Fast_ITEMS(o);
  double *a = (double *)argbuf_alloc(b, sizeof(double) * (size_t)n);
  if (!a) return 0;
  for (Py_ssize_t i = 0; i < n; i++)
    if (!pd_py_arg_float(items[i], &a[i], op, name)) return 0;
  out->data = a;
  out->n = n;
  return 1;
}

int pd_py_arg_scalar(PyObject *o, pd_scalar *out, const char *op, const char *name) {
  if (PyBool_Check(o)) {
    out->kind = PD_SCALAR_BOOL;
    out->i = o == Py_True;
    out->f = (double)out->i;
    out->imag = 0;
    return 1;
  }
  if (PyLong_Check(o)) {
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      /* too large for int64: keep as float */
      out->kind = PD_SCALAR_FLOAT;
      out->f = PyLong_AsDouble(o);
      out->i = 0;
      out->imag = 0;
      return !PyErr_Occurred();
    }
    *out = pd_scalar_int(v);
    return 1;
  }
  if (PyFloat_Check(o)) {
    *out = pd_scalar_float(PyFloat_AS_DOUBLE(o));
    return 1;
  }
  if (PyComplex_Check(o)) {
    out->kind = PD_SCALAR_COMPLEX;
    out->f = PyComplex_RealAsDouble(o);
    out->imag = PyComplex_ImagAsDouble(o);
    out->i = (int64_t)out->f;
    return 1;
  }
  if (PdTensor_Check(o)) {
    double re, im;
    pd_dtype dt;
    if (!one_elem_tensor_value(o, &re, &im, &dt))
      return type_error(op, name, "a scalar or a one-element Tensor", o);
    if (pd_dtype_is_complex(dt)) {
      out->kind = PD_SCALAR_COMPLEX;
      out->f = re;
      out->imag = im;
      out->i = (int64_t)re;
    } else if (pd_dtype_is_float(dt)) {
      *out = pd_scalar_float(re);
    } else if (dt == PD_BOOL) {
      *out = pd_scalar_int((int64_t)re);
      out->kind = PD_SCALAR_BOOL;
    } else {
      unsigned char buf[16];
      const void *p = host_elem(PdTensor_T(o), 0, buf);
      if (!p) return 0;
      *out = pd_scalar_int(pd_load_as_int64(p, dt));
    }
    return 1;
  }
  /* numpy scalars and other numbers */
  if (PyIndex_Check(o)) {
    int64_t v;
    if (!pd_py_arg_int(o, &v, op, name)) return 0;
    *out = pd_scalar_int(v);
    return 1;
  }
  double v = PyFloat_AsDouble(o);
  if (v == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    return type_error(op, name, "a number", o);
  }
  *out = pd_scalar_float(v);
  return 1;
}

int pd_py_parse_dtype(PyObject *o, int *out) {
  if (o == Py_None) {
    *out = -1;
    return 1;
  }
  if (PyObject_TypeCheck(o, PdDType_Type)) {
    *out = ((PdDTypeObject *)o)->code;
    return 1;
  }
  if (PyUnicode_Check(o)) {
    int c = pd_dtype_from_name(PyUnicode_AsUTF8(o));
    if (c < 0) {
      PyErr_Format(PyExc_TypeError, "unknown dtype '%U'", o);
      return 0;
    }
    *out = c;
    return 1;
  }
  /* numpy dtype objects and scalar types: use their name */
  PyObject *nm = PyObject_GetAttrString(o, PyType_Check(o) ? "__name__" : "name");
  if (!nm) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "expected a dtype (paddle.float32, 'float32', numpy dtype), "
                 "received %s", Py_TYPE(o)->tp_name);
    return 0;
  }
  int c = PyUnicode_Check(nm) ? pd_dtype_from_name(PyUnicode_AsUTF8(nm)) : -1;
  Py_DECREF(nm);
  if (c < 0) {
    PyErr_Format(PyExc_TypeError, "unsupported dtype %R", o);
    return 0;
  }
  *out = c;
  return 1;
}

int pd_py_arg_dtype(PyObject *o, int *out, const char *op, const char *name) {
  (void)op;
  (void)name;
  return pd_py_parse_dtype(o, out);
}

static int64_t max_numel(const pd_op_def *d, const void *args) {
  int64_t m = 0;
  for (int i = 0; i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT) {
      const pd_tensor *t = *(pd_tensor *const *)((const char *)args + a->offset);
      if (t && t->numel > m) m = t->numel;
    }
  }
  return m;
}

PyObject *pd_py_run_op(int op, const void *args) {
  const pd_op_def *d = &pd_op_defs[op];
  pd_tensor *buf[4];
  pd_tensor **outs = buf;
  int n = -4;
  pd_status s;
  if (max_numel(d, args) >= 65536) {
    Py_BEGIN_ALLOW_THREADS
    s = pd_op_run(op, args, &outs, &n);
    Py_END_ALLOW_THREADS
  } else {
    s = pd_op_run(op, args, &outs, &n);
  }
  if (s != PD_OK) return pd_py_raise(s);
  PyObject *r = NULL;
  if (d->n_outputs == 1 && n == 1) {
    r = pd_py_wrap(outs[0]);
  } else {
    r = d->n_outputs < 0 ? PyList_New(n) : PyTuple_New(n);
    if (r) {
      for (int i = 0; i < n; i++) {
        PyObject *w = pd_py_wrap(outs[i]);
        outs[i] = NULL;
        if (!w) {
          Py_CLEAR(r);
          break;
        }
        if (d->n_outputs < 0) PyList_SET_ITEM(r, i, w);
        else PyTuple_SET_ITEM(r, i, w);
      }
    }
    for (int i = 0; i < n; i++)
      if (outs[i]) pd_tensor_release(outs[i]);
  }
  if (outs != buf) free(outs);
  return r;
}
