/* The executor's callback into Python (pd_exec_callback, csrc/graph/pd_executor.h) for the print
 * and py_func program ops: paddle._C._set_exec_callback(fn) installs fn, which is called (with
 * the GIL taken: the executor runs without it) as fn(op_type, attrs, in_names, in_tensors,
 * in_lods, out_names, out_metas) and returns a list of Tensors for the outputs (or None). A
 * Python exception becomes the run's error, naming the op and the exception. */
#include "pd_static_py.h"
#include "../graph/pd_executor.h"

static PyObject *g_callback = NULL;

static PyObject *slot_names(const pd_opdesc *op, int is_out) {
  int n = is_out ? op->n_out : op->n_in;
  const pd_opslot *s = is_out ? op->out : op->in;
  PyObject *l = PyList_New(0);
  for (int i = 0; l && i < n; i++)
    for (int k = 0; k < s[i].n; k++) {
      PyObject *u = PyUnicode_FromString(s[i].args[k]);
      if (!u || PyList_Append(l, u) < 0) Py_CLEAR(l);
      Py_XDECREF(u);
      if (!l) break;
    }
  return l;
}

/* (dtype name or None, [dims]) of each output variable */
static PyObject *out_metas(const pd_opdesc *op) {
  PyObject *l = PyList_New(0);
  for (int i = 0; l && i < op->n_out; i++)
    for (int k = 0; l && k < op->out[i].n; k++) {
      const pd_var *v = op->block ? pd_block_find_var_recursive(op->block, op->out[i].args[k]) : NULL;
      PyObject *dims = PyList_New(v && v->ndim > 0 ? v->ndim : 0);
      for (int d = 0; dims && v && d < v->ndim; d++) PyList_SET_ITEM(dims, d, PyLong_FromLongLong(v->dims[d]));
      PyObject *m = dims ? Py_BuildValue("(sN)", v && pd_dtype_is_valid(v->dtype) ? pd_dtype_name((pd_dtype)v->dtype) : "", dims) : NULL;
      if (!m || PyList_Append(l, m) < 0) Py_CLEAR(l);
      Py_XDECREF(m);
    }
  return l;
}

static pd_status error_from_python(const pd_opdesc *op) {
  PyObject *t, *v, *tb;
  PyErr_Fetch(&t, &v, &tb);
  PyErr_NormalizeException(&t, &v, &tb);
  PyObject *s = v ? PyObject_Str(v) : NULL;
  const char *msg = s ? PyUnicode_AsUTF8(s) : NULL;
  const char *tn = t ? ((PyTypeObject *)t)->tp_name : "error";
  pd_status st = pd_set_error(PD_ERR_FATAL, "[%s] the Python function raised %s: %s", op->type, tn, msg ? msg : "?");
  PyErr_Clear();
  Py_XDECREF(s);
  Py_XDECREF(t);
  Py_XDECREF(v);
  Py_XDECREF(tb);
  return st;
}

static pd_status callback(const pd_opdesc *op, pd_tensor **ins, const pd_lod *const *lods, int n_in, pd_tensor **outs,
                          int n_out) {
  PyGILState_STATE g = PyGILState_Ensure();
  pd_status st = PD_OK;
  PyObject *attrs = PyDict_New(), *tens = PyList_New(n_in), *lls = PyList_New(n_in);
  PyObject *in_names = slot_names(op, 0), *out_names = slot_names(op, 1), *metas = out_metas(op), *res = NULL;
  int ok = attrs && tens && lls && in_names && out_names && metas;
  for (int i = 0; ok && i < op->n_attrs; i++) {
    PyObject *v = pd_py_attr_value(&op->attrs[i]);
    ok = v && PyDict_SetItemString(attrs, op->attrs[i].name, v) == 0;
    Py_XDECREF(v);
  }
  for (int i = 0; ok && i < n_in; i++) {
    pd_tensor_retain(ins[i]);
    PyObject *t = pd_py_wrap(ins[i]);
    PyObject *l = t ? (lods && lods[i] ? pd_py_lod_to_py(lods[i]) : PyList_New(0)) : NULL;
    ok = t && l;
    if (t) PyList_SET_ITEM(tens, i, t);
    if (l) PyList_SET_ITEM(lls, i, l);
  }
  if (ok && !g_callback) {
    PyErr_SetString(PyExc_RuntimeError, "no Python callback is installed for print / py_func");
    ok = 0;
  }
  if (ok) res = PyObject_CallFunction(g_callback, "sOOOOOO", op->type, attrs, in_names, tens, lls, out_names, metas);
  if (res && res != Py_None) {
    PyObject *seq = PySequence_Fast(res, "the callback must return a list of Tensors");
    Py_ssize_t n = seq ? PySequence_Fast_GET_SIZE(seq) : 0;
    if (seq && n != n_out) {
      PyErr_Format(PyExc_ValueError, "expected %d outputs, the function gave %zd", n_out, n);
      Py_CLEAR(res);
    }
    for (Py_ssize_t k = 0; seq && res && k < n; k++) {
      PyObject *o = PySequence_Fast_GET_ITEM(seq, k);
      if (o == Py_None) continue;
      if (!PdTensor_Check(o)) {
        PyErr_Format(PyExc_TypeError, "output %zd: expected a Tensor, received %s", k, Py_TYPE(o)->tp_name);
        Py_CLEAR(res);
        break;
      }
      pd_tensor_retain(PdTensor_T(o));
      outs[k] = PdTensor_T(o);
    }
    if (!seq) Py_CLEAR(res);
    Py_XDECREF(seq);
    if (!res)
      for (int k = 0; k < n_out; k++) {
        pd_tensor_release(outs[k]);
        outs[k] = NULL;
      }
  }
  if (!res) st = error_from_python(op);
  Py_XDECREF(res);
  Py_XDECREF(attrs);
  Py_XDECREF(tens);
  Py_XDECREF(lls);
  Py_XDECREF(in_names);
  Py_XDECREF(out_names);
  Py_XDECREF(metas);
  PyGILState_Release(g);
  return st;
}

static PyObject *py_set_exec_callback(PyObject *m, PyObject *fn) {
  (void)m;
  if (fn != Py_None && !PyCallable_Check(fn)) return PyErr_Format(PyExc_TypeError, "expected a callable or None");
  Py_XDECREF(g_callback);
  g_callback = fn == Py_None ? NULL : fn;
  Py_XINCREF(g_callback);
  pd_exec_callback = g_callback ? callback : NULL;
  Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"_set_exec_callback", py_set_exec_callback, METH_O, "the Python function run by print / py_func program ops"},
    {NULL, NULL, 0, NULL}};

int pd_py_exec_callback_init(PyObject *m) { return PyModule_AddFunctions(m, methods); }
