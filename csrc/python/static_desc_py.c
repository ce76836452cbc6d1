/* paddle._C's program descriptors, the surface Paddle's core exposes as ProgramDesc / BlockDesc /
 * OpDesc / VarDesc: thin handles over csrc/graph/pd_program.h that paddle.static's Python
 * classes (python/paddle/static/framework.py) are built on. Handles keep their program alive;
 * ops removed from a block stay valid (the program keeps them until it goes). */
#include "pd_py.h"
#include "pd_static_py.h"
#include "../graph/pd_names.h"
#include "../graph/pd_trace.h"

PyTypeObject *PdProgramDesc_Type, *PdBlockDesc_Type, *PdOpDesc_Type, *PdVarDesc_Type;

static PyObject *raise(pd_status s) { return pd_py_raise(s); }

PyObject *pd_py_program_wrap(pd_program *p) {
  PdProgramDescObject *o = PyObject_New(PdProgramDescObject, PdProgramDesc_Type);
  if (!o) {
    pd_program_release(p);
    return NULL;
  }
  o->p = p;
  return (PyObject *)o;
}

static PyObject *handle_new(PyTypeObject *tp, PyObject *prog, void *ptr) {
  PdHandleObject *o = PyObject_New(PdHandleObject, tp);
  if (!o) return NULL;
  Py_INCREF(prog);
  o->prog = prog;
  o->ptr = ptr;
  if (tp == PdVarDesc_Type) pd_var_retain((pd_var *)ptr);
  return (PyObject *)o;
}

static void handle_dealloc(PyObject *self) {
  PdHandleObject *o = (PdHandleObject *)self;
  PyTypeObject *tp = Py_TYPE(self);
  if (tp == PdVarDesc_Type) pd_var_release((pd_var *)o->ptr);
  Py_XDECREF(o->prog);
  PyObject_Free(self);
  Py_DECREF(tp);
}

static PyObject *handle_eq(PyObject *a, PyObject *b, int op) {
  if ((op != Py_EQ && op != Py_NE) || Py_TYPE(a) != Py_TYPE(b)) Py_RETURN_NOTIMPLEMENTED;
  int eq = ((PdHandleObject *)a)->ptr == ((PdHandleObject *)b)->ptr;
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}
static Py_hash_t handle_hash(PyObject *a) { return _Py_HashPointer(((PdHandleObject *)a)->ptr); }

static pd_program *PROG(PyObject *o) { return ((PdProgramDescObject *)o)->p; }
#define H(o) ((PdHandleObject *)(o))
#define BLK(o) ((pd_block *)H(o)->ptr)
#define OPD(o) ((pd_opdesc *)H(o)->ptr)
#define VAR(o) ((pd_var *)H(o)->ptr)

static PyObject *str_list(char **v, int64_t n) {
  PyObject *l = PyList_New((Py_ssize_t)n);
  for (int64_t i = 0; l && i < n; i++) {
    PyObject *s = PyUnicode_FromString(v[i] ? v[i] : "");
    if (!s) {
      Py_CLEAR(l);
      break;
    }
    PyList_SET_ITEM(l, (Py_ssize_t)i, s);
  }
  return l;
}

/* ======================================================================== ProgramDesc */
static PyObject *prog_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
  (void)tp;
  (void)args;
  (void)kw;
  pd_program *p;
  pd_status s = pd_program_new(&p);
  if (s != PD_OK) return raise(s);
  return pd_py_program_wrap(p);
}

static void prog_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  pd_program_release(PROG(self));
  PyObject_Free(self);
  Py_DECREF(tp);
}

static PyObject *prog_block(PyObject *self, PyObject *arg) {
  long i = PyLong_AsLong(arg);
  if (i == -1 && PyErr_Occurred()) return NULL;
  pd_program *p = PROG(self);
  if (i < 0 || i >= p->n_blocks) return PyErr_Format(PyExc_IndexError, "block %ld out of range [0, %d)", i, p->n_blocks);
  return handle_new(PdBlockDesc_Type, self, p->blocks[i]);
}

static PyObject *prog_num_blocks(PyObject *self, PyObject *u) {
  (void)u;
  return PyLong_FromLong(PROG(self)->n_blocks);
}

static PyObject *prog_append_block(PyObject *self, PyObject *parent) {
  if (!PyObject_TypeCheck(parent, PdBlockDesc_Type)) return PyErr_Format(PyExc_TypeError, "append_block expects a BlockDesc");
  pd_block *b;
  pd_status s = pd_program_append_block(PROG(self), BLK(parent)->idx, &b);
  if (s != PD_OK) return raise(s);
  return handle_new(PdBlockDesc_Type, self, b);
}

static PyObject *prog_clone(PyObject *self, PyObject *u) {
  (void)u;
  pd_program *c;
  pd_status s = pd_program_clone(PROG(self), &c);
  if (s != PD_OK) return raise(s);
  return pd_py_program_wrap(c);
}

static PyObject *prog_to_string(PyObject *self, PyObject *u) {
  (void)u;
  char *t = pd_program_to_string(PROG(self));
  if (!t) return PyErr_NoMemory();
  PyObject *r = PyUnicode_FromString(t);
  free(t);
  return r;
}

static PyObject *prog_version(PyObject *self, PyObject *u) {
  (void)u;
  return PyLong_FromLongLong(PROG(self)->has_version ? PROG(self)->version : 0);
}

static PyObject *prog_set_version(PyObject *self, PyObject *arg) {
  long long v = PyLong_AsLongLong(arg);
  if (v == -1 && PyErr_Occurred()) return NULL;
  PROG(self)->has_version = 1;
  PROG(self)->version = v;
  Py_RETURN_NONE;
}

static PyObject *prog_op_versions(PyObject *self, PyObject *u) {
  (void)u;
  pd_program *p = PROG(self);
  PyObject *d = PyDict_New();
  for (int i = 0; d && i < p->n_op_versions; i++) {
    PyObject *v = PyLong_FromLong(p->op_version_values[i]);
    if (!v || PyDict_SetItemString(d, p->op_version_names[i], v) < 0) Py_CLEAR(d);
    Py_XDECREF(v);
  }
  return d;
}

static PyObject *prog_set_op_version(PyObject *self, PyObject *args) {
  const char *name;
  int v;
  if (!PyArg_ParseTuple(args, "si", &name, &v)) return NULL;
  pd_status s = pd_program_set_op_version(PROG(self), name, v);
  if (s != PD_OK) return raise(s);
  Py_RETURN_NONE;
}

static PyObject *prog_rev(PyObject *self, PyObject *u) {
  (void)u;
  return PyLong_FromUnsignedLongLong(PROG(self)->rev);
}

static PyObject *prog_ptr(PyObject *self, PyObject *u) {
  (void)u;
  return PyLong_FromVoidPtr(PROG(self));
}

static PyObject *prog_validate(PyObject *self, PyObject *u) {
  (void)u;
  pd_status s = pd_program_validate(PROG(self));
  if (s != PD_OK) return raise(s);
  Py_RETURN_NONE;
}

static PyMethodDef prog_methods[] = {
    {"block", prog_block, METH_O, NULL},
    {"num_blocks", prog_num_blocks, METH_NOARGS, NULL},
    {"append_block", prog_append_block, METH_O, NULL},
    {"clone", prog_clone, METH_NOARGS, "deep copy"},
    {"to_string", prog_to_string, METH_NOARGS, "Paddle's program text"},
    {"_version", prog_version, METH_NOARGS, NULL},
    {"_set_version", prog_set_version, METH_O, NULL},
    {"get_op_version_map", prog_op_versions, METH_NOARGS, NULL},
    {"_set_op_version", prog_set_op_version, METH_VARARGS, NULL},
    {"_rev", prog_rev, METH_NOARGS, "revision: bumped on every change"},
    {"_ptr", prog_ptr, METH_NOARGS, NULL},
    {"_validate", prog_validate, METH_NOARGS, NULL},
    {"flush", (PyCFunction)prog_rev, METH_NOARGS, "no-op (descs are always current)"},
    {NULL, NULL, 0, NULL}};

/* ======================================================================== BlockDesc */
static PyObject *blk_get_id(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(BLK(self)->idx);
}
static PyObject *blk_get_parent(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(BLK(self)->parent_idx);
}
static PyObject *blk_get_fwd(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(BLK(self)->forward_block_idx);
}
static PyGetSetDef blk_getset[] = {{"id", blk_get_id, NULL, NULL, NULL},
                                   {"parent", blk_get_parent, NULL, NULL, NULL},
                                   {"forward_block_idx", blk_get_fwd, NULL, NULL, NULL},
                                   {NULL, NULL, NULL, NULL, NULL}};

static PyObject *blk_set_fwd(PyObject *self, PyObject *arg) {
  long v = PyLong_AsLong(arg);
  if (v == -1 && PyErr_Occurred()) return NULL;
  BLK(self)->forward_block_idx = (int)v;
  pd_program_touch(BLK(self)->prog);
  Py_RETURN_NONE;
}

static PyObject *blk_var(PyObject *self, PyObject *arg) {
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  pd_var *v;
  pd_status s = pd_block_var(BLK(self), name, &v);
  if (s != PD_OK) return raise(s);
  return handle_new(PdVarDesc_Type, H(self)->prog, v);
}

static PyObject *blk_find_var(PyObject *self, PyObject *arg) {
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  pd_var *v = pd_block_find_var(BLK(self), name);
  if (!v) Py_RETURN_NONE;
  return handle_new(PdVarDesc_Type, H(self)->prog, v);
}

static PyObject *blk_find_var_recursive(PyObject *self, PyObject *arg) {
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  pd_var *v = pd_block_find_var_recursive(BLK(self), name);
  if (!v) Py_RETURN_NONE;
  return handle_new(PdVarDesc_Type, H(self)->prog, v);
}

static PyObject *blk_has_var(PyObject *self, PyObject *arg) {
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  return PyBool_FromLong(pd_block_find_var(BLK(self), name) != NULL);
}

static PyObject *blk_all_vars(PyObject *self, PyObject *u) {
  (void)u;
  pd_block *b = BLK(self);
  PyObject *l = PyList_New(b->n_vars);
  for (int i = 0; l && i < b->n_vars; i++) {
    PyObject *v = handle_new(PdVarDesc_Type, H(self)->prog, b->vars[i]);
    if (!v) {
      Py_CLEAR(l);
      break;
    }
    PyList_SET_ITEM(l, i, v);
  }
  return l;
}

static PyObject *blk_remove_var(PyObject *self, PyObject *arg) {
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  pd_status s = pd_block_remove_var(BLK(self), name);
  if (s != PD_OK) return raise(s);
  Py_RETURN_NONE;
}

static PyObject *blk_rename_var(PyObject *self, PyObject *args) {
  const char *a, *b;
  if (!PyArg_ParseTuple(args, "ss", &a, &b)) return NULL;
  pd_status s = pd_block_rename_var(BLK(self), a, b);
  if (s != PD_OK) return raise(s);
  Py_RETURN_NONE;
}

static PyObject *blk_insert_op(PyObject *self, PyObject *arg) {
  long i = PyLong_AsLong(arg);
  if (i == -1 && PyErr_Occurred()) return NULL;
  pd_opdesc *op;
  pd_status s = pd_block_insert_op(BLK(self), (int)i, &op);
  if (s != PD_OK) return raise(s);
  return handle_new(PdOpDesc_Type, H(self)->prog, op);
}

static PyObject *blk_append_op(PyObject *self, PyObject *u) {
  (void)u;
  pd_opdesc *op;
  pd_status s = pd_block_append_op(BLK(self), &op);
  if (s != PD_OK) return raise(s);
  return handle_new(PdOpDesc_Type, H(self)->prog, op);
}

static PyObject *blk_prepend_op(PyObject *self, PyObject *u) {
  (void)u;
  pd_opdesc *op;
  pd_status s = pd_block_insert_op(BLK(self), 0, &op);
  if (s != PD_OK) return raise(s);
  return handle_new(PdOpDesc_Type, H(self)->prog, op);
}

static PyObject *blk_remove_op(PyObject *self, PyObject *args) {
  int a, b;
  if (!PyArg_ParseTuple(args, "ii", &a, &b)) return NULL;
  pd_status s = pd_block_remove_ops(BLK(self), a, b);
  if (s != PD_OK) return raise(s);
  Py_RETURN_NONE;
}

static PyObject *blk_op(PyObject *self, PyObject *arg) {
  long i = PyLong_AsLong(arg);
  if (i == -1 && PyErr_Occurred()) return NULL;
  pd_block *b = BLK(self);
  if (i < 0) i += b->n_ops;
  if (i < 0 || i >= b->n_ops) return PyErr_Format(PyExc_IndexError, "op %ld out of range [0, %d)", i, b->n_ops);
  return handle_new(PdOpDesc_Type, H(self)->prog, b->ops[i]);
}

static PyObject *blk_op_size(PyObject *self, PyObject *u) {
  (void)u;
  return PyLong_FromLong(BLK(self)->n_ops);
}

static PyObject *blk_program(PyObject *self, PyObject *u) {
  (void)u;
  Py_INCREF(H(self)->prog);
  return H(self)->prog;
}

static PyMethodDef blk_methods[] = {
    {"_set_forward_block_idx", blk_set_fwd, METH_O, NULL},
    {"var", blk_var, METH_O, "the var named so (created if missing)"},
    {"find_var", blk_find_var, METH_O, NULL},
    {"find_var_recursive", blk_find_var_recursive, METH_O, NULL},
    {"has_var", blk_has_var, METH_O, NULL},
    {"all_vars", blk_all_vars, METH_NOARGS, NULL},
    {"_remove_var", blk_remove_var, METH_O, NULL},
    {"_rename_var", blk_rename_var, METH_VARARGS, NULL},
    {"append_op", blk_append_op, METH_NOARGS, NULL},
    {"_prepend_op", blk_prepend_op, METH_NOARGS, NULL},
    {"_insert_op", blk_insert_op, METH_O, NULL},
    {"_remove_op", blk_remove_op, METH_VARARGS, "remove ops [start, end)"},
    {"op", blk_op, METH_O, NULL},
    {"op_size", blk_op_size, METH_NOARGS, NULL},
    {"program", blk_program, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}};

/* ======================================================================== OpDesc */
PyObject *pd_py_attr_value(const pd_attr *a) {
  switch (a->type) {
    case PD_AT_INT: case PD_AT_LONG: case PD_AT_BLOCK: return PyLong_FromLongLong(a->i);
    case PD_AT_BOOLEAN: return PyBool_FromLong(a->i != 0);
    case PD_AT_FLOAT: return PyFloat_FromDouble((double)(float)a->f);
    case PD_AT_FLOAT64: return PyFloat_FromDouble(a->f);
    case PD_AT_STRING: case PD_AT_VAR: return PyUnicode_FromString(a->s ? a->s : "");
    case PD_AT_STRINGS: case PD_AT_VARS: return str_list(a->strings, a->n);
    case PD_AT_SCALAR:
      if (a->sc.kind == PD_SCALAR_BOOL) return PyBool_FromLong(a->sc.i != 0);
      if (a->sc.kind == PD_SCALAR_INT) return PyLong_FromLongLong(a->sc.i);
      if (a->sc.kind == PD_SCALAR_COMPLEX) return PyComplex_FromDoubles(a->sc.f, a->sc.imag);
      return PyFloat_FromDouble(a->sc.f);
    default: {
      PyObject *l = PyList_New((Py_ssize_t)a->n);
      for (int64_t k = 0; l && k < a->n; k++) {
        PyObject *v;
        if (a->type == PD_AT_BOOLEANS) v = PyBool_FromLong(a->ints[k] != 0);
        else if (a->type == PD_AT_FLOATS) v = PyFloat_FromDouble((double)(float)a->floats[k]);
        else if (a->type == PD_AT_FLOAT64S) v = PyFloat_FromDouble(a->floats[k]);
        else if (a->type == PD_AT_SCALARS) v = PyFloat_FromDouble(a->scalars[k].f);
        else v = PyLong_FromLongLong(a->ints[k]);
        if (!v) {
          Py_CLEAR(l);
          break;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)k, v);
      }
      return l;
    }
  }
}

/* a Python value as an attribute of the given type (-1: inferred from the value) */
static pd_status attr_from_py(PyObject *v, int type, const char *name, pd_attr *a, int *ok) {
  memset(a, 0, sizeof *a);
  a->name = (char *)name;
  *ok = 1;
  if (type < 0) {
    if (PyBool_Check(v)) type = PD_AT_BOOLEAN;
    else if (PyLong_Check(v)) {
      long long x = PyLong_AsLongLong(v);
      type = (x >= INT32_MIN && x <= INT32_MAX) ? PD_AT_INT : PD_AT_LONG;
    } else if (PyFloat_Check(v)) type = PD_AT_FLOAT;
    else if (PyUnicode_Check(v)) type = PD_AT_STRING;
    else if (PyObject_TypeCheck(v, PdBlockDesc_Type)) type = PD_AT_BLOCK;
    else if (PyList_Check(v) || PyTuple_Check(v)) {
      Py_ssize_t n = PySequence_Size(v);
      type = PD_AT_INTS;
      int any_float = 0, all_bool = n > 0, any_str = 0, any_block = 0, big = 0;
      for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(v, i);
        if (!PyBool_Check(x)) all_bool = 0;
        if (PyFloat_Check(x)) any_float = 1;
        if (PyUnicode_Check(x)) any_str = 1;
        if (PyObject_TypeCheck(x, PdBlockDesc_Type)) any_block = 1;
        if (PyLong_Check(x) && !PyBool_Check(x)) {
          long long q = PyLong_AsLongLong(x);
          if (q < INT32_MIN || q > INT32_MAX) big = 1;
        }
      }
      if (any_block) type = PD_AT_BLOCKS;
      else if (any_str) type = PD_AT_STRINGS;
      else if (any_float) type = PD_AT_FLOATS;
      else if (all_bool) type = PD_AT_BOOLEANS;
      else if (big) type = PD_AT_LONGS;
    } else {
      *ok = 0;
      return PD_OK;
    }
  }
  a->type = (pd_attr_type)type;
  switch (type) {
    case PD_AT_INT: case PD_AT_LONG: case PD_AT_BOOLEAN:
      a->i = PyObject_IsTrue(v) && PyBool_Check(v) ? 1 : PyLong_AsLongLong(v);
      if (PyBool_Check(v)) a->i = v == Py_True;
      return PyErr_Occurred() ? (*ok = 0, PD_OK) : PD_OK;
    case PD_AT_BLOCK:
      a->i = PyObject_TypeCheck(v, PdBlockDesc_Type) ? BLK(v)->idx : PyLong_AsLongLong(v);
      return PD_OK;
    case PD_AT_FLOAT: case PD_AT_FLOAT64:
      a->f = PyFloat_AsDouble(v);
      if (PyErr_Occurred()) *ok = 0;
      return PD_OK;
    case PD_AT_STRING: case PD_AT_VAR:
      a->s = (char *)PyUnicode_AsUTF8(v);
      if (!a->s) *ok = 0;
      return PD_OK;
    case PD_AT_SCALAR:
      if (PyBool_Check(v)) {
        a->sc.kind = PD_SCALAR_BOOL;
        a->sc.i = v == Py_True;
        a->sc.f = (double)a->sc.i;
      } else if (PyLong_Check(v)) {
        a->sc = pd_scalar_int(PyLong_AsLongLong(v));
      } else {
        a->sc = pd_scalar_float(PyFloat_AsDouble(v));
      }
      if (PyErr_Occurred()) *ok = 0;
      return PD_OK;
    default: {
      PyObject *seq = PySequence_Fast(v, "attribute list");
      if (!seq) {
        *ok = 0;
        return PD_OK;
      }
      Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
      a->n = n;
      size_t cnt = (size_t)(n ? n : 1);
      if (type == PD_AT_FLOATS || type == PD_AT_FLOAT64S) a->floats = (double *)calloc(cnt, sizeof(double));
      else if (type == PD_AT_STRINGS || type == PD_AT_VARS) a->strings = (char **)calloc(cnt, sizeof(char *));
      else a->ints = (int64_t *)calloc(cnt, sizeof(int64_t));
      for (Py_ssize_t i = 0; i < n && *ok; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(seq, i);
        if (a->floats) a->floats[i] = PyFloat_AsDouble(x);
        else if (a->strings) a->strings[i] = (char *)PyUnicode_AsUTF8(x);
        else if (PyObject_TypeCheck(x, PdBlockDesc_Type)) a->ints[i] = BLK(x)->idx;
        else a->ints[i] = PyBool_Check(x) ? (x == Py_True) : PyLong_AsLongLong(x);
        if (PyErr_Occurred()) *ok = 0;
      }
      Py_DECREF(seq);
      return PD_OK;
    }
  }
}

static void attr_from_py_free(pd_attr *a) {
  /* only the arrays were allocated here; strings point into Python objects */
  free(a->ints);
  free(a->floats);
  free(a->strings);
}

static PyObject *op_type(PyObject *self, PyObject *u) {
  (void)u;
  return PyUnicode_FromString(OPD(self)->type);
}

static PyObject *op_set_type(PyObject *self, PyObject *arg) {
  const char *t = PyUnicode_AsUTF8(arg);
  if (!t) return NULL;
  pd_status s = pd_opdesc_set_type(OPD(self), t);
  if (s != PD_OK) return raise(s);
  Py_RETURN_NONE;
}

static PyObject *slot_get(PyObject *self, PyObject *arg, int is_out) {
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  const pd_opslot *s = pd_opdesc_slot(OPD(self), is_out, name);
  if (!s) return PyList_New(0);
  return str_list(s->args, s->n);
}
static PyObject *op_input(PyObject *self, PyObject *arg) { return slot_get(self, arg, 0); }
static PyObject *op_output(PyObject *self, PyObject *arg) { return slot_get(self, arg, 1); }

static PyObject *slot_names(PyObject *self, int is_out) {
  const pd_opdesc *op = OPD(self);
  int n = is_out ? op->n_out : op->n_in;
  const pd_opslot *l = is_out ? op->out : op->in;
  PyObject *r = PyList_New(n);
  for (int i = 0; r && i < n; i++) {
    PyObject *s = PyUnicode_FromString(l[i].name);
    if (!s) {
      Py_CLEAR(r);
      break;
    }
    PyList_SET_ITEM(r, i, s);
  }
  return r;
}
static PyObject *op_input_names(PyObject *self, PyObject *u) {
  (void)u;
  return slot_names(self, 0);
}
static PyObject *op_output_names(PyObject *self, PyObject *u) {
  (void)u;
  return slot_names(self, 1);
}

static PyObject *arg_names(PyObject *self, int is_out) {
  const pd_opdesc *op = OPD(self);
  int n = is_out ? op->n_out : op->n_in;
  const pd_opslot *l = is_out ? op->out : op->in;
  PyObject *r = PyList_New(0);
  for (int i = 0; r && i < n; i++)
    for (int k = 0; k < l[i].n; k++) {
      PyObject *s = PyUnicode_FromString(l[i].args[k]);
      if (!s || PyList_Append(r, s) < 0) Py_CLEAR(r);
      Py_XDECREF(s);
      if (!r) break;
    }
  return r;
}
static PyObject *op_input_arg_names(PyObject *self, PyObject *u) {
  (void)u;
  return arg_names(self, 0);
}
static PyObject *op_output_arg_names(PyObject *self, PyObject *u) {
  (void)u;
  return arg_names(self, 1);
}

static PyObject *slot_set(PyObject *self, PyObject *args, int is_out) {
  const char *name;
  PyObject *lst;
  if (!PyArg_ParseTuple(args, "sO", &name, &lst)) return NULL;
  PyObject *seq = PySequence_Fast(lst, "set_input/set_output expects a list of names");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  const char **v = (const char **)malloc(sizeof(char *) * (size_t)(n ? n : 1));
  if (!v) {
    Py_DECREF(seq);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    v[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
    if (!v[i]) {
      free(v);
      Py_DECREF(seq);
      return NULL;
    }
  }
  pd_status s = pd_opdesc_set_slot(OPD(self), is_out, name, (int)n, v);
  free(v);
  Py_DECREF(seq);
  if (s != PD_OK) return raise(s);
  Py_RETURN_NONE;
}
static PyObject *op_set_input(PyObject *self, PyObject *args) { return slot_set(self, args, 0); }
static PyObject *op_set_output(PyObject *self, PyObject *args) { return slot_set(self, args, 1); }

static PyObject *op_remove_input(PyObject *self, PyObject *arg) {
  const char *n = PyUnicode_AsUTF8(arg);
  if (!n) return NULL;
  pd_opdesc_remove_slot(OPD(self), 0, n);
  Py_RETURN_NONE;
}
static PyObject *op_remove_output(PyObject *self, PyObject *arg) {
  const char *n = PyUnicode_AsUTF8(arg);
  if (!n) return NULL;
  pd_opdesc_remove_slot(OPD(self), 1, n);
  Py_RETURN_NONE;
}

static PyObject *op_attr(PyObject *self, PyObject *arg) {
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  const pd_attr *a = pd_opdesc_attr(OPD(self), name);
  if (!a) return PyErr_Format(PyExc_ValueError, "[%s] has no attribute %s", OPD(self)->type, name);
  return pd_py_attr_value(a);
}

static PyObject *op_has_attr(PyObject *self, PyObject *arg) {
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  return PyBool_FromLong(pd_opdesc_attr(OPD(self), name) != NULL);
}

static PyObject *op_attr_type(PyObject *self, PyObject *arg) {
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  const pd_attr *a = pd_opdesc_attr(OPD(self), name);
  if (!a) return PyErr_Format(PyExc_ValueError, "[%s] has no attribute %s", OPD(self)->type, name);
  return PyLong_FromLong(a->type);
}

static PyObject *op_attr_names(PyObject *self, PyObject *u) {
  (void)u;
  const pd_opdesc *op = OPD(self);
  PyObject *r = PyList_New(op->n_attrs);
  for (int i = 0; r && i < op->n_attrs; i++) {
    PyObject *s = PyUnicode_FromString(op->attrs[i].name);
    if (!s) {
      Py_CLEAR(r);
      break;
    }
    PyList_SET_ITEM(r, i, s);
  }
  return r;
}

static PyObject *op_set_attr(PyObject *self, PyObject *args) {
  const char *name;
  PyObject *v;
  int type = -1;
  if (!PyArg_ParseTuple(args, "sO|i", &name, &v, &type)) return NULL;
  pd_attr a;
  int ok;
  attr_from_py(v, type, name, &a, &ok);
  if (!ok) {
    attr_from_py_free(&a);
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_TypeError, "[%s] attribute %s: cannot store a %s", OPD(self)->type, name,
                   Py_TYPE(v)->tp_name);
    return NULL;
  }
  pd_status s = pd_opdesc_set_attr(OPD(self), &a);
  attr_from_py_free(&a);
  if (s != PD_OK) return raise(s);
  Py_RETURN_NONE;
}

static PyObject *op_remove_attr(PyObject *self, PyObject *arg) {
  const char *n = PyUnicode_AsUTF8(arg);
  if (!n) return NULL;
  pd_opdesc_remove_attr(OPD(self), n);
  Py_RETURN_NONE;
}

static PyObject *op_rename(PyObject *self, PyObject *args, int is_out) {
  const char *o, *n;
  if (!PyArg_ParseTuple(args, "ss", &o, &n)) return NULL;
  pd_opdesc *op = OPD(self);
  int cnt = is_out ? op->n_out : op->n_in;
  pd_opslot *l = is_out ? op->out : op->in;
  for (int i = 0; i < cnt; i++)
    for (int k = 0; k < l[i].n; k++)
      if (strcmp(l[i].args[k], o) == 0) {
        size_t L = strlen(n) + 1;
        char *d = (char *)malloc(L);
        if (!d) return PyErr_NoMemory();
        memcpy(d, n, L);
        free(l[i].args[k]);
        l[i].args[k] = d;
      }
  if (op->block) pd_program_touch(op->block->prog);
  Py_RETURN_NONE;
}
static PyObject *op_rename_input(PyObject *self, PyObject *args) { return op_rename(self, args, 0); }
static PyObject *op_rename_output(PyObject *self, PyObject *args) { return op_rename(self, args, 1); }

static PyObject *op_block(PyObject *self, PyObject *u) {
  (void)u;
  return handle_new(PdBlockDesc_Type, H(self)->prog, OPD(self)->block);
}

static PyObject *op_copy_from(PyObject *self, PyObject *other) {
  if (!PyObject_TypeCheck(other, PdOpDesc_Type)) return PyErr_Format(PyExc_TypeError, "copy_from expects an OpDesc");
  pd_status s = pd_opdesc_copy(OPD(self), OPD(other));
  if (s != PD_OK) return raise(s);
  Py_RETURN_NONE;
}

static PyObject *op_id(PyObject *self, PyObject *u) {
  (void)u;
  return PyLong_FromVoidPtr(OPD(self));
}

static PyObject *op_is_target(PyObject *self, PyObject *u) {
  (void)u;
  return PyBool_FromLong(OPD(self)->is_target);
}

static PyMethodDef op_methods[] = {
    {"type", op_type, METH_NOARGS, NULL},
    {"set_type", op_set_type, METH_O, NULL},
    {"input", op_input, METH_O, NULL},
    {"output", op_output, METH_O, NULL},
    {"input_names", op_input_names, METH_NOARGS, NULL},
    {"output_names", op_output_names, METH_NOARGS, NULL},
    {"input_arg_names", op_input_arg_names, METH_NOARGS, NULL},
    {"output_arg_names", op_output_arg_names, METH_NOARGS, NULL},
    {"set_input", op_set_input, METH_VARARGS, NULL},
    {"set_output", op_set_output, METH_VARARGS, NULL},
    {"remove_input", op_remove_input, METH_O, NULL},
    {"remove_output", op_remove_output, METH_O, NULL},
    {"attr", op_attr, METH_O, NULL},
    {"has_attr", op_has_attr, METH_O, NULL},
    {"attr_type", op_attr_type, METH_O, NULL},
    {"attr_names", op_attr_names, METH_NOARGS, NULL},
    {"_set_attr", op_set_attr, METH_VARARGS, "(name, value[, AttrType code])"},
    {"set_attr", op_set_attr, METH_VARARGS, NULL},
    {"remove_attr", op_remove_attr, METH_O, NULL},
    {"_rename_input", op_rename_input, METH_VARARGS, NULL},
    {"_rename_output", op_rename_output, METH_VARARGS, NULL},
    {"block", op_block, METH_NOARGS, NULL},
    {"copy_from", op_copy_from, METH_O, NULL},
    {"id", op_id, METH_NOARGS, NULL},
    {"is_target", op_is_target, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}};

/* ======================================================================== VarDesc */
static PyObject *var_name(PyObject *self, PyObject *u) {
  (void)u;
  return PyUnicode_FromString(VAR(self)->name);
}
static PyObject *var_shape(PyObject *self, PyObject *u) {
  (void)u;
  pd_var *v = VAR(self);
  PyObject *l = PyList_New(v->ndim < 0 ? 0 : v->ndim);
  for (int d = 0; l && d < v->ndim; d++) PyList_SET_ITEM(l, d, PyLong_FromLongLong(v->dims[d]));
  return l;
}
static PyObject *var_set_shape(PyObject *self, PyObject *arg) {
  PyObject *seq = PySequence_Fast(arg, "set_shape expects a list of ints");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > PD_MAX_DIMS) {
    Py_DECREF(seq);
    return PyErr_Format(PyExc_ValueError, "variable %s: %zd dims, at most %d are supported", VAR(self)->name, n, PD_MAX_DIMS);
  }
  int64_t dims[PD_MAX_DIMS];
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *x = PySequence_Fast_GET_ITEM(seq, i);
    dims[i] = x == Py_None ? -1 : PyLong_AsLongLong(x);
  }
  Py_DECREF(seq);
  if (PyErr_Occurred()) return NULL;
  pd_status s = pd_var_set_shape(VAR(self), (int)n, dims);
  if (s != PD_OK) return raise(s);
  Py_RETURN_NONE;
}
static PyObject *var_dtype(PyObject *self, PyObject *u) {
  (void)u;
  int dt = VAR(self)->dtype;
  if (!pd_dtype_is_valid(dt)) Py_RETURN_NONE;
  Py_INCREF(pd_py_dtypes[dt]);
  return pd_py_dtypes[dt];
}
static PyObject *var_set_dtype(PyObject *self, PyObject *arg) {
  int dt;
  if (!pd_py_parse_dtype(arg, &dt)) return NULL;
  VAR(self)->dtype = dt;
  pd_var_sync_tensor(VAR(self));
  if (VAR(self)->block) pd_program_touch(VAR(self)->block->prog);
  Py_RETURN_NONE;
}

#define VAR_INT_FIELD(field)                                                   \
  static PyObject *var_get_##field(PyObject *self, PyObject *u) {              \
    (void)u;                                                                   \
    return PyLong_FromLong(VAR(self)->field);                                  \
  }                                                                            \
  static PyObject *var_set_##field(PyObject *self, PyObject *arg) {            \
    long v = PyObject_IsTrue(arg);                                             \
    if (PyLong_Check(arg) && !PyBool_Check(arg)) v = PyLong_AsLong(arg);       \
    if (v == -1 && PyErr_Occurred()) return NULL;                              \
    VAR(self)->field = (int)v;                                                 \
    if (VAR(self)->block) pd_program_touch(VAR(self)->block->prog);            \
    Py_RETURN_NONE;                                                            \
  }
VAR_INT_FIELD(type)
VAR_INT_FIELD(lod_level)
VAR_INT_FIELD(persistable)
VAR_INT_FIELD(need_check_feed)
VAR_INT_FIELD(is_parameter)

static PyObject *var_get_stop_gradient(PyObject *self, PyObject *u) {
  (void)u;
  return PyBool_FromLong(VAR(self)->stop_gradient);
}
static PyObject *var_set_stop_gradient(PyObject *self, PyObject *arg) {
  int v = PyObject_IsTrue(arg);
  if (v < 0) return NULL;
  VAR(self)->stop_gradient = v;
  if (VAR(self)->tensor) VAR(self)->tensor->stop_gradient = v;
  Py_RETURN_NONE;
}

static PyObject *var_block(PyObject *self, PyObject *u) {
  (void)u;
  if (!VAR(self)->block) Py_RETURN_NONE;
  return handle_new(PdBlockDesc_Type, H(self)->prog, VAR(self)->block);
}

/* the Variable object standing for this var (its canonical meta tensor) */
static PyObject *var_tensor(PyObject *self, PyObject *u) {
  (void)u;
  pd_tensor *t;
  pd_status s = pd_var_tensor(VAR(self), &t);
  if (s != PD_OK) return raise(s);
  return pd_py_wrap(t);
}

static PyObject *var_id(PyObject *self, PyObject *u) {
  (void)u;
  return PyLong_FromVoidPtr(VAR(self));
}

static PyMethodDef var_methods[] = {
    {"name", var_name, METH_NOARGS, NULL},
    {"shape", var_shape, METH_NOARGS, NULL},
    {"set_shape", var_set_shape, METH_O, NULL},
    {"dtype", var_dtype, METH_NOARGS, NULL},
    {"set_dtype", var_set_dtype, METH_O, NULL},
    {"type", var_get_type, METH_NOARGS, NULL},
    {"set_type", var_set_type, METH_O, NULL},
    {"lod_level", var_get_lod_level, METH_NOARGS, NULL},
    {"set_lod_level", var_set_lod_level, METH_O, NULL},
    {"persistable", var_get_persistable, METH_NOARGS, NULL},
    {"set_persistable", var_set_persistable, METH_O, NULL},
    {"need_check_feed", var_get_need_check_feed, METH_NOARGS, NULL},
    {"set_need_check_feed", var_set_need_check_feed, METH_O, NULL},
    {"is_parameter", var_get_is_parameter, METH_NOARGS, NULL},
    {"set_is_parameter", var_set_is_parameter, METH_O, NULL},
    {"stop_gradient", var_get_stop_gradient, METH_NOARGS, NULL},
    {"set_stop_gradient", var_set_stop_gradient, METH_O, NULL},
    {"block", var_block, METH_NOARGS, NULL},
    {"_tensor", var_tensor, METH_NOARGS, "the Variable (meta tensor) standing for this var"},
    {"id", var_id, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}};

/* ======================================================================== module functions */
/* the VarDesc of a Variable (a meta tensor bound to a program var), or None */
static PyObject *py_var_of(PyObject *m, PyObject *t) {
  (void)m;
  if (!PdTensor_Check(t) || !PdTensor_T(t)->var) Py_RETURN_NONE;
  pd_var *v = PdTensor_T(t)->var;
  /* the owning program object: made on demand around the block's program */
  if (!v->block) Py_RETURN_NONE;
  pd_program *p = v->block->prog;
  pd_program_retain(p);
  PyObject *po = pd_py_program_wrap(p);
  if (!po) return NULL;
  PyObject *r = handle_new(PdVarDesc_Type, po, v);
  Py_DECREF(po);
  return r;
}

static PyObject *py_is_variable(PyObject *m, PyObject *t) {
  (void)m;
  return PyBool_FromLong(PdTensor_Check(t) && PdTensor_T(t)->var != NULL);
}

static PyObject *py_unique_name(PyObject *m, PyObject *key) {
  (void)m;
  const char *k = PyUnicode_AsUTF8(key);
  if (!k) return NULL;
  char buf[512];
  pd_status s = pd_unique_name(k, buf, sizeof buf);
  if (s != PD_OK) return raise(s);
  return PyUnicode_FromString(buf);
}

static PyObject *py_unique_push(PyObject *m, PyObject *u) {
  (void)m;
  (void)u;
  pd_status s = pd_unique_name_push();
  if (s != PD_OK) return raise(s);
  Py_RETURN_NONE;
}

static PyObject *py_unique_pop(PyObject *m, PyObject *u) {
  (void)m;
  (void)u;
  pd_unique_name_pop();
  Py_RETURN_NONE;
}

/* the current counters as a dict; with an argument, replaces them by the dict's */
static PyObject *py_unique_table(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *newd = NULL;
  if (!PyArg_ParseTuple(args, "|O", &newd)) return NULL;
  PyObject *d = PyDict_New();
  for (int i = 0; d && i < pd_unique_name_count(); i++) {
    int64_t c;
    const char *k = pd_unique_name_entry(i, &c);
    PyObject *v = PyLong_FromLongLong(c);
    if (!v || PyDict_SetItemString(d, k, v) < 0) Py_CLEAR(d);
    Py_XDECREF(v);
  }
  if (d && newd && newd != Py_None) {
    if (!PyDict_Check(newd)) {
      Py_DECREF(d);
      return PyErr_Format(PyExc_TypeError, "unique_name.switch expects a dict or None");
    }
    pd_unique_name_reset();
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(newd, &pos, &k, &v)) {
      const char *ks = PyUnicode_AsUTF8(k);
      long long c = PyLong_AsLongLong(v);
      if (!ks || (c == -1 && PyErr_Occurred())) {
        Py_DECREF(d);
        return NULL;
      }
      pd_unique_name_set(ks, c);
    }
  } else if (d && newd == Py_None) {
    pd_unique_name_reset();
  }
  return d;
}

static PyMethodDef desc_module_methods[] = {
    {"_var_of", py_var_of, METH_O, "the VarDesc behind a Variable, or None"},
    {"_is_variable", py_is_variable, METH_O, "is this tensor a program variable"},
    {"unique_name_generate", py_unique_name, METH_O, "key_N (Paddle's unique names)"},
    {"unique_name_push", py_unique_push, METH_NOARGS, NULL},
    {"unique_name_pop", py_unique_pop, METH_NOARGS, NULL},
    {"unique_name_table", py_unique_table, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

/* ======================================================================== types */
static PyType_Slot prog_slots[] = {{Py_tp_new, prog_new}, {Py_tp_dealloc, prog_dealloc},
                                   {Py_tp_methods, prog_methods}, {0, NULL}};
static PyType_Spec prog_spec = {"paddle._C.ProgramDesc", sizeof(PdProgramDescObject), 0, Py_TPFLAGS_DEFAULT, prog_slots};
#define HANDLE_SPEC(NAME, METHODS, GETSET)                                                      \
  static PyType_Slot NAME##_slots[] = {{Py_tp_dealloc, handle_dealloc}, {Py_tp_methods, METHODS}, \
                                       {Py_tp_getset, GETSET}, {Py_tp_richcompare, handle_eq},    \
                                       {Py_tp_hash, handle_hash}, {0, NULL}};                     \
  static PyType_Spec NAME##_spec = {"paddle._C." #NAME, sizeof(PdHandleObject), 0, Py_TPFLAGS_DEFAULT, NAME##_slots};
static PyGetSetDef no_getset[] = {{NULL, NULL, NULL, NULL, NULL}};
HANDLE_SPEC(BlockDesc, blk_methods, blk_getset)
HANDLE_SPEC(OpDesc, op_methods, no_getset)
HANDLE_SPEC(VarDesc, var_methods, no_getset)

int pd_py_static_desc_init(PyObject *m) {
  struct { PyTypeObject **tp; PyType_Spec *spec; const char *name; } t[] = {
      {&PdProgramDesc_Type, &prog_spec, "ProgramDesc"},
      {&PdBlockDesc_Type, &BlockDesc_spec, "BlockDesc"},
      {&PdOpDesc_Type, &OpDesc_spec, "OpDesc"},
      {&PdVarDesc_Type, &VarDesc_spec, "VarDesc"}};
  for (int i = 0; i < 4; i++) {
    *t[i].tp = (PyTypeObject *)PyType_FromSpec(t[i].spec);
    if (!*t[i].tp) return -1;
    Py_INCREF(*t[i].tp);
    if (PyModule_AddObject(m, t[i].name, (PyObject *)*t[i].tp) < 0) return -1;
  }
  pd_program_init();
  return PyModule_AddFunctions(m, desc_module_methods);
}
