/* paddle._C's entry points for custom operators (csrc/ops/custom_op.c):
 * _load_custom_op_library(path) -> [info, ...] and _custom_op_info(name) -> info or None, where
 * info = (name, inputs, outputs, attr_names, attr_kinds, has_backward); attr kinds are "int",
 * "int64", "float", "bool". paddle.utils.cpp_extension builds the Python functions from these. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "pd_py.h"
#include "../ops/custom_op.h"

static PyObject *names(char **v, int n) {
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) {
    PyObject *s = PyUnicode_FromString(v[i]);
    if (!s) {
      Py_DECREF(l);
      return NULL;
    }
    PyList_SET_ITEM(l, i, s);
  }
  return l;
}

static PyObject *info(const pd_custom_entry *e) {
  static const char *kinds[] = {"int", "int64", "float", "bool"};
  PyObject *ak = PyList_New(e->n_attrs);
  for (int i = 0; ak && i < e->n_attrs; i++) {
    PyObject *s = PyUnicode_FromString(kinds[e->attr_kinds[i]]);
    if (!s) {
      Py_CLEAR(ak);
      break;
    }
    PyList_SET_ITEM(ak, i, s);
  }
  PyObject *in = names(e->inputs, e->n_inputs), *out = names(e->outputs, e->n_outputs);
  PyObject *an = names(e->attr_names, e->n_attrs);
  PyObject *r = NULL;
  if (ak && in && out && an)
    r = Py_BuildValue("(sOOOOO)", e->name, in, out, an, ak, e->backward ? Py_True : Py_False);
  Py_XDECREF(ak);
  Py_XDECREF(in);
  Py_XDECREF(out);
  Py_XDECREF(an);
  return r;
}

static PyObject *py_load(PyObject *self, PyObject *arg) {
  (void)self;
  PyObject *b;
  if (!PyUnicode_FSConverter(arg, &b)) return NULL;
  const PD_CustomOpTable *t = NULL;
  pd_status st;
  Py_BEGIN_ALLOW_THREADS
  st = pd_custom_load_library(PyBytes_AS_STRING(b), &t);
  Py_END_ALLOW_THREADS
  Py_DECREF(b);
  if (st != PD_OK) return pd_py_raise(st);
  PyObject *l = PyList_New(0);
  for (int i = 0; l && i < t->n_ops; i++) {
    const pd_custom_entry *e = pd_custom_find(t->ops[i].name);
    PyObject *x = e ? info(e) : NULL;
    if (!x || PyList_Append(l, x) < 0) {
      Py_XDECREF(x);
      Py_DECREF(l);
      if (!PyErr_Occurred()) PyErr_Format(PyExc_RuntimeError, "custom operator %s vanished", t->ops[i].name);
      return NULL;
    }
    Py_DECREF(x);
  }
  return l;
}

static PyObject *py_info(PyObject *self, PyObject *arg) {
  (void)self;
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  const pd_custom_entry *e = pd_custom_find(name);
  if (!e) Py_RETURN_NONE;
  return info(e);
}

PyMethodDef pd_py_custom_op_methods[] = {
    {"_load_custom_op_library", py_load, METH_O, "dlopen a custom-operator library and register its operators"},
    {"_custom_op_info", py_info, METH_O, "a registered custom operator's declaration, or None"},
    {NULL, NULL, 0, NULL},
};
