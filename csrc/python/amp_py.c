/* paddle._C bindings of the auto_cast state (csrc/ops/amp.c): python/paddle/amp sets this
 * thread's level, low dtype and per-op class bytes on entering/leaving auto_cast, and maps
 * Paddle's op names onto op ids with _op_ids(). _op_kernel_dtypes(type) tells static AMP
 * (python/paddle/static/amp) which dtypes a program op's kernel runs in. */
#include "pd_py.h"
#include "../graph/pd_compat.h"
#include "../ops/generated/pd_ops_gen.h"
#include "../ops/pd_amp.h"

/* _amp_set(level, dtype_code, cls: bytes of one class byte per op id) */
static PyObject *amp_set(PyObject *m, PyObject *args) {
  (void)m;
  int level, code;
  Py_buffer cls;
  if (!PyArg_ParseTuple(args, "iiy*", &level, &code, &cls)) return NULL;
  if (code < 0 || code >= PD_NUM_DTYPES) {
    PyBuffer_Release(&cls);
    return PyErr_Format(PyExc_ValueError, "[auto_cast] unknown dtype code %d", code);
  }
  pd_status s = pd_amp_set(level, (pd_dtype)code, (const uint8_t *)cls.buf, (int)cls.len);
  PyBuffer_Release(&cls);
  if (s != PD_OK) return pd_py_raise(s);
  Py_RETURN_NONE;
}

/* _amp_state() -> (level, dtype_code) of this thread */
static PyObject *amp_state(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  return Py_BuildValue("(ii)", pd_amp_level(), (int)pd_amp_dtype());
}

/* _op_ids() -> {op name: id} */
static PyObject *op_ids(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  PyObject *d = PyDict_New();
  for (int i = 0; d && i < pd_num_ops; i++) {
    PyObject *v = PyLong_FromLong(i);
    if (!v || PyDict_SetItemString(d, pd_op_defs[i].name, v) < 0) Py_CLEAR(d);
    Py_XDECREF(v);
  }
  return d;
}

/* _op_kernel_dtypes(type) -> (our op name, [dtype codes with a kernel]) for a program op type
 * (Paddle's, through the compat table, or ours); None when no op of ours reads it */
static PyObject *op_kernel_dtypes(PyObject *m, PyObject *arg) {
  (void)m;
  const char *type = PyUnicode_AsUTF8(arg);
  if (!type) return NULL;
  const pd_compat_def *c = pd_compat_for_type(type);
  int op = c ? pd_op_lookup(c->ours ? c->ours : type) : pd_compat_own_op(type);
  if (op < 0) Py_RETURN_NONE;
  PyObject *l = PyList_New(0);
  for (int d = 0; l && d < PD_NUM_DTYPES; d++) {
    if (!pd_op_defs[op].kernels[d]) continue;
    PyObject *v = PyLong_FromLong(d);
    if (!v || PyList_Append(l, v) < 0) Py_CLEAR(l);
    Py_XDECREF(v);
  }
  if (!l) return NULL;
  return Py_BuildValue("(sN)", pd_op_defs[op].name, l);
}

/* _promote_types(a, b, truediv) -> the dtype the runner casts a (x, y) pair of an op flagged
 * promote (truediv: divide) to, or None when it runs them as given (pd_promote_types) */
static PyObject *promote_types(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *a, *b;
  int truediv = 0;
  int ca, cb;
  if (!PyArg_ParseTuple(args, "OO|p", &a, &b, &truediv)) return NULL;
  if (!pd_py_parse_dtype(a, &ca) || !pd_py_parse_dtype(b, &cb)) return NULL;
  if (ca < 0 || cb < 0) return PyErr_Format(PyExc_TypeError, "_promote_types: expected two dtypes");
  pd_dtype t;
  if (!pd_promote_types((pd_dtype)ca, (pd_dtype)cb, truediv, &t)) Py_RETURN_NONE;
  Py_INCREF(pd_py_dtypes[t]);
  return pd_py_dtypes[t];
}

PyMethodDef pd_py_amp_methods[] = {
    {"_promote_types", promote_types, METH_VARARGS, "the promoted dtype of a binary op's inputs, or None"},
    {"_op_kernel_dtypes", op_kernel_dtypes, METH_O, "(our op, kernel dtype codes) of a program op type"},
    {"_amp_set", amp_set, METH_VARARGS, "set this thread's auto_cast state (level, dtype, classes)"},
    {"_amp_state", amp_state, METH_NOARGS, "(level, dtype code) of this thread's auto_cast"},
    {"_op_ids", op_ids, METH_NOARGS, "op name -> op id"},
    {NULL, NULL, 0, NULL}};
