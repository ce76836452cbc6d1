/* paddle._C's model-file surface for static programs: ProgramDesc <-> Paddle's .pdmodel bytes
 * (csrc/graph/pd_program_io.c), pruning (pd_prune.c), the feed/fetch target names of an
 * inference program, and the few descriptor methods paddle.static.io needs (clearing the
 * training-only fields of VarDescs, OpDesc.set_is_target). The methods are added to the
 * descriptor types made by static_desc_py.c. */
#include "pd_static_py.h"
#include "../graph/pd_program_io.h"
#include "../graph/pd_prune.h"

static PyObject *raise(pd_status s) { return pd_py_raise(s); }
#define PROG(o) (((PdProgramDescObject *)(o))->p)
#define H(o) ((PdHandleObject *)(o))
#define OPD(o) ((pd_opdesc *)H(o)->ptr)
#define VAR(o) ((pd_var *)H(o)->ptr)

/* ======================================================================== module functions */
/* program_desc_parse(bytes) -> ProgramDesc */
static PyObject *py_parse(PyObject *m, PyObject *arg) {
  (void)m;
  Py_buffer view;
  if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) {
    PyErr_Clear();
    return PyErr_Format(PyExc_TypeError, "program_desc_parse expects bytes, received %s", Py_TYPE(arg)->tp_name);
  }
  pd_program *p = NULL;
  pd_status s;
  Py_BEGIN_ALLOW_THREADS
  s = pd_program_parse((const uint8_t *)view.buf, (size_t)view.len, &p);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&view);
  if (s != PD_OK) return raise(s);
  return pd_py_program_wrap(p);
}

/* a sequence of str -> borrowed UTF-8 pointers (valid while seq lives); NULL with an exception */
static const char **names_of(PyObject *seq, Py_ssize_t *n, const char *what) {
  *n = PySequence_Fast_GET_SIZE(seq);
  const char **v = (const char **)malloc(sizeof(char *) * (size_t)(*n ? *n : 1));
  if (!v) {
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t i = 0; i < *n; i++) {
    PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
    if (!PyUnicode_Check(o)) {
      PyErr_Format(PyExc_TypeError, "%s must be names (str), item %zd is %s", what, i, Py_TYPE(o)->tp_name);
      free(v);
      return NULL;
    }
    if (!(v[i] = PyUnicode_AsUTF8(o))) {
      free(v);
      return NULL;
    }
  }
  return v;
}

/* program_prune(program, feed_names, target_names) -> ProgramDesc */
static PyObject *py_prune(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *prog, *feeds, *targets;
  if (!PyArg_ParseTuple(args, "O!OO", PdProgramDesc_Type, &prog, &feeds, &targets)) return NULL;
  PyObject *fs = PySequence_Fast(feeds, "program_prune: feed names must be a sequence");
  PyObject *ts = fs ? PySequence_Fast(targets, "program_prune: target names must be a sequence") : NULL;
  PyObject *r = NULL;
  const char **fv = NULL, **tv = NULL;
  Py_ssize_t nf = 0, nt = 0;
  if (ts && (fv = names_of(fs, &nf, "feed names")) && (tv = names_of(ts, &nt, "target names"))) {
    pd_program *out;
    pd_status s = pd_program_prune(PROG(prog), (int)nf, fv, (int)nt, tv, &out);
    r = s == PD_OK ? pd_py_program_wrap(out) : raise(s);
  }
  free(fv);
  free(tv);
  Py_XDECREF(fs);
  Py_XDECREF(ts);
  return r;
}

static PyMethodDef io_module_methods[] = {
    {"program_desc_parse", py_parse, METH_O, "program_desc_parse(bytes) -> ProgramDesc (a .pdmodel file)"},
    {"program_prune", py_prune, METH_VARARGS,
     "program_prune(program, feed_names, target_names) -> the program cut to what the targets need"},
    {NULL, NULL, 0, NULL}};

/* ======================================================================== ProgramDesc methods */
static PyObject *prog_serialize(PyObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"legacy_format", NULL};
  int legacy = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|p", kwlist, &legacy)) return NULL;
  uint8_t *buf;
  size_t len;
  pd_status s = pd_program_serialize(PROG(self), &buf, &len);
  if (s != PD_OK) return raise(s);
  PyObject *r = PyBytes_FromStringAndSize((const char *)buf, (Py_ssize_t)len);
  free(buf);
  return r;
}

/* the names the feed (Out) or fetch (X) ops of the global block use, ordered by their col */
static PyObject *target_names(PyObject *self, int fetch) {
  const pd_block *b = PROG(self)->blocks[0];
  const char *type = fetch ? "fetch" : "feed";
  int n = 0;
  for (int i = 0; i < b->n_ops; i++) n += strcmp(b->ops[i]->type, type) == 0;
  PyObject *l = PyList_New(0);
  if (!l) return NULL;
  for (int i = 0; i < n; i++) {
    PyObject *e = PyUnicode_FromString("");
    if (!e || PyList_Append(l, e) < 0) {
      Py_XDECREF(e);
      Py_DECREF(l);
      return NULL;
    }
    Py_DECREF(e);
  }
  int top = 0;
  for (int i = 0; i < b->n_ops; i++) {
    const pd_opdesc *op = b->ops[i];
    if (strcmp(op->type, type) != 0) continue;
    const pd_attr *a = pd_opdesc_attr(op, "col");
    int64_t col = 0;
    if (a && pd_attr_as_int(op, a, &col) != PD_OK) {
      Py_DECREF(l);
      return raise(pd_last_status());
    }
    const pd_opslot *s = pd_opdesc_slot(op, 0, "X");
    if (!fetch) s = pd_opdesc_slot(op, 1, "Out");
    if (col < 0 || col >= n || !s || s->n < 1) {
      Py_DECREF(l);
      return PyErr_Format(PyExc_ValueError, "[%s] op %d of the global block: col %lld out of range [0, %d) or no %s "
                          "variable", type, i, (long long)col, n, fetch ? "X" : "Out");
    }
    PyObject *nm = PyUnicode_FromString(s->args[0]);
    if (!nm) {
      Py_DECREF(l);
      return NULL;
    }
    PyList_SetItem(l, (Py_ssize_t)col, nm);
    if ((int)col + 1 > top) top = (int)col + 1;
  }
  if (PyList_SetSlice(l, top, n, NULL) < 0) Py_CLEAR(l);
  return l;
}
static PyObject *prog_feed_names(PyObject *self, PyObject *u) {
  (void)u;
  return target_names(self, 0);
}
static PyObject *prog_fetch_names(PyObject *self, PyObject *u) {
  (void)u;
  return target_names(self, 1);
}

static PyObject *prog_has_version(PyObject *self, PyObject *u) {
  (void)u;
  return PyBool_FromLong(PROG(self)->has_version);
}

static PyMethodDef prog_methods[] = {
    {"serialize_to_string", (PyCFunction)(void (*)(void))prog_serialize, METH_VARARGS | METH_KEYWORDS,
     "the program as Paddle's ProgramDesc protobuf bytes (a .pdmodel file)"},
    {"get_feed_target_names", prog_feed_names, METH_NOARGS, "Out names of the feed ops, by col"},
    {"get_fetch_target_names", prog_fetch_names, METH_NOARGS, "X names of the fetch ops, by col"},
    {"_has_version", prog_has_version, METH_NOARGS, "does the program record a version"},
    {NULL, NULL, 0, NULL}};

/* ======================================================================== VarDesc / OpDesc */
static void touch_var(pd_var *v) {
  if (v->block) pd_program_touch(v->block->prog);
}
static PyObject *var_clear_is_parameter(PyObject *self, PyObject *u) {
  (void)u;
  VAR(self)->is_parameter = 0;
  VAR(self)->pb_has &= ~(unsigned)PD_PB_IS_PARAMETER;
  touch_var(VAR(self));
  Py_RETURN_NONE;
}
static PyObject *var_clear_stop_gradient(PyObject *self, PyObject *u) {
  (void)u;
  VAR(self)->stop_gradient = 0;
  VAR(self)->pb_has &= ~(unsigned)PD_PB_STOP_GRADIENT;
  if (VAR(self)->tensor) VAR(self)->tensor->stop_gradient = 0;
  touch_var(VAR(self));
  Py_RETURN_NONE;
}
static PyObject *var_pb_has(PyObject *self, PyObject *u) {
  (void)u;
  return PyLong_FromUnsignedLong(VAR(self)->pb_has);
}
static PyMethodDef var_methods[] = {
    {"clear_is_parameter", var_clear_is_parameter, METH_NOARGS, "unset is_parameter (not written to files)"},
    {"clear_stop_gradient", var_clear_stop_gradient, METH_NOARGS, "unset stop_gradient (not written to files)"},
    {"_pb_has", var_pb_has, METH_NOARGS, "which optional fields a program file had (PD_PB_* bits)"},
    {NULL, NULL, 0, NULL}};

static PyObject *op_set_is_target(PyObject *self, PyObject *arg) {
  int v = PyObject_IsTrue(arg);
  if (v < 0) return NULL;
  OPD(self)->is_target = v;
  if (OPD(self)->block) pd_program_touch(OPD(self)->block->prog);
  Py_RETURN_NONE;
}
static PyMethodDef op_methods[] = {
    {"set_is_target", op_set_is_target, METH_O, NULL},
    {NULL, NULL, 0, NULL}};

static int add_methods(PyTypeObject *tp, PyMethodDef *defs) {
  for (PyMethodDef *d = defs; d->ml_name; d++) {
    PyObject *descr = PyDescr_NewMethod(tp, d);
    if (!descr) return -1;
    int r = PyObject_SetAttrString((PyObject *)tp, d->ml_name, descr);
    Py_DECREF(descr);
    if (r < 0) return -1;
  }
  PyType_Modified(tp);
  return 0;
}

int pd_py_static_io_init(PyObject *m) {
  if (!PdProgramDesc_Type || !PdVarDesc_Type || !PdOpDesc_Type) {
    PyErr_SetString(PyExc_SystemError, "static_io: the descriptor types are not made yet");
    return -1;
  }
  if (add_methods(PdProgramDesc_Type, prog_methods) < 0 || add_methods(PdVarDesc_Type, var_methods) < 0 ||
      add_methods(PdOpDesc_Type, op_methods) < 0)
    return -1;
  return PyModule_AddFunctions(m, io_module_methods);
}
