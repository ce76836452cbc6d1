/* paddle._C's static-graph runtime: scopes, the executor, the recording target (which program
 * block paddle ops append to in static mode), gradients (append_backward), the Variable class
 * hook, and the few ops Python records by hand (assigning into an existing variable). */
#include "pd_static_py.h"
#include "../graph/pd_backward.h"
#include "../graph/pd_executor.h"
#include "../graph/pd_trace.h"
#include "../ops/generated/pd_ops_gen.h"

PyTypeObject *PdScope_Type;
PyObject *pd_py_variable_type = NULL; /* paddle.static.Variable: the class of wrapped var tensors */

static PyObject *raise(pd_status s) { return pd_py_raise(s); }
#define SCOPE(o) (((PdScopeObject *)(o))->s)
#define PROG(o) (((PdProgramDescObject *)(o))->p)

/* ======================================================================== LoD <-> Python */
PyObject *pd_py_lod_to_py(const pd_lod *l) {
  PyObject *r = PyList_New(l->n);
  for (int i = 0; r && i < l->n; i++) {
    PyObject *lv = PyList_New((Py_ssize_t)l->len[i]);
    if (!lv) {
      Py_CLEAR(r);
      break;
    }
    for (int64_t k = 0; k < l->len[i]; k++) PyList_SET_ITEM(lv, (Py_ssize_t)k, PyLong_FromLongLong(l->offs[i][k]));
    PyList_SET_ITEM(r, i, lv);
  }
  return r;
}

/* a list of offset lists -> LoD (caller clears); 0 with an exception on bad input */
int pd_py_lod_from_py(PyObject *o, pd_lod *l) {
  memset(l, 0, sizeof *l);
  if (o == Py_None) return 1;
  PyObject *seq = PySequence_Fast(o, "lod must be a list of lists of offsets");
  if (!seq) return 0;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n == 0) {
    Py_DECREF(seq);
    return 1;
  }
  l->len = (int64_t *)calloc((size_t)n, sizeof(int64_t));
  l->offs = (int64_t **)calloc((size_t)n, sizeof(int64_t *));
  if (!l->len || !l->offs) {
    free(l->len);
    free(l->offs);
    memset(l, 0, sizeof *l);
    Py_DECREF(seq);
    PyErr_NoMemory();
    return 0;
  }
  l->n = (int)n;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *lv = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, i), "each lod level must be a list of offsets");
    if (!lv) {
      pd_lod_clear(l);
      Py_DECREF(seq);
      return 0;
    }
    Py_ssize_t m = PySequence_Fast_GET_SIZE(lv);
    l->len[i] = m;
    l->offs[i] = (int64_t *)malloc(sizeof(int64_t) * (size_t)(m ? m : 1));
    for (Py_ssize_t k = 0; l->offs[i] && k < m; k++) l->offs[i][k] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(lv, k));
    Py_DECREF(lv);
    if (!l->offs[i] || PyErr_Occurred()) {
      if (!PyErr_Occurred()) PyErr_NoMemory();
      pd_lod_clear(l);
      Py_DECREF(seq);
      return 0;
    }
  }
  Py_DECREF(seq);
  return 1;
}

/* ======================================================================== Scope */
static PyObject *scope_wrap(pd_scope *s) {
  PdScopeObject *o = PyObject_New(PdScopeObject, PdScope_Type);
  if (!o) {
    pd_scope_release(s);
    return NULL;
  }
  o->s = s;
  return (PyObject *)o;
}

static PyObject *scope_new(PyTypeObject *tp, PyObject *a, PyObject *k) {
  (void)tp;
  (void)a;
  (void)k;
  pd_scope *s;
  pd_status st = pd_scope_new(NULL, &s);
  if (st != PD_OK) return raise(st);
  return scope_wrap(s);
}

static void scope_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  pd_scope_release(SCOPE(self));
  PyObject_Free(self);
  Py_DECREF(tp);
}

static PyObject *scope_get(PyObject *self, PyObject *arg) {
  const char *n = PyUnicode_AsUTF8(arg);
  if (!n) return NULL;
  pd_value *v = pd_scope_find(SCOPE(self), n);
  if (!v || !v->t) Py_RETURN_NONE;
  pd_tensor_retain(v->t);
  return pd_py_wrap(v->t);
}

static PyObject *scope_kind(PyObject *self, PyObject *arg) {
  const char *n = PyUnicode_AsUTF8(arg);
  if (!n) return NULL;
  pd_value *v = pd_scope_find(SCOPE(self), n);
  if (!v) Py_RETURN_NONE;
  return PyLong_FromLong(v->kind);
}

static PyObject *scope_set(PyObject *self, PyObject *args) {
  const char *n;
  PyObject *t, *lod = Py_None;
  if (!PyArg_ParseTuple(args, "sO|O", &n, &t, &lod)) return NULL;
  if (!PdTensor_Check(t) || !PdTensor_T(t)->storage) return PyErr_Format(PyExc_TypeError, "Scope: expected a Tensor with data for %s", n);
  pd_lod l;
  if (!pd_py_lod_from_py(lod, &l)) return NULL;
  pd_tensor *tt = PdTensor_T(t);
  pd_status s = pd_lod_check(&l, tt->ndim ? tt->shape[0] : 1, n);
  pd_value *v = NULL;
  if (s == PD_OK) s = pd_scope_var(SCOPE(self), n, &v);
  if (s != PD_OK) {
    pd_lod_clear(&l);
    return raise(s);
  }
  pd_tensor_retain(tt);
  pd_value_set(v, tt);
  v->lod = l;
  Py_RETURN_NONE;
}

static PyObject *scope_get_lod(PyObject *self, PyObject *arg) {
  const char *n = PyUnicode_AsUTF8(arg);
  if (!n) return NULL;
  pd_value *v = pd_scope_find(SCOPE(self), n);
  if (!v) return PyList_New(0);
  return pd_py_lod_to_py(&v->lod);
}

static PyObject *scope_get_array(PyObject *self, PyObject *arg) {
  const char *n = PyUnicode_AsUTF8(arg);
  if (!n) return NULL;
  pd_value *v = pd_scope_find(SCOPE(self), n);
  if (!v || v->kind != PD_VAL_ARRAY) Py_RETURN_NONE;
  PyObject *l = PyList_New(v->n_arr);
  for (int i = 0; l && i < v->n_arr; i++) {
    PyObject *x;
    if (v->arr[i]) {
      pd_tensor_retain(v->arr[i]);
      x = pd_py_wrap(v->arr[i]);
    } else {
      Py_INCREF(Py_None);
      x = Py_None;
    }
    if (!x) {
      Py_CLEAR(l);
      break;
    }
    PyList_SET_ITEM(l, i, x);
  }
  return l;
}

static PyObject *scope_has(PyObject *self, PyObject *arg) {
  const char *n = PyUnicode_AsUTF8(arg);
  if (!n) return NULL;
  return PyBool_FromLong(pd_scope_find(SCOPE(self), n) != NULL);
}

static PyObject *scope_has_local(PyObject *self, PyObject *arg) {
  const char *n = PyUnicode_AsUTF8(arg);
  if (!n) return NULL;
  return PyBool_FromLong(pd_scope_find_local(SCOPE(self), n) != NULL);
}

static PyObject *scope_create(PyObject *self, PyObject *arg) {
  const char *n = PyUnicode_AsUTF8(arg);
  if (!n) return NULL;
  pd_value *v;
  pd_status s = pd_scope_var(SCOPE(self), n, &v);
  if (s != PD_OK) return raise(s);
  Py_RETURN_NONE;
}

static PyObject *scope_erase(PyObject *self, PyObject *arg) {
  const char *n = PyUnicode_AsUTF8(arg);
  if (!n) return NULL;
  pd_scope_erase(SCOPE(self), n);
  Py_RETURN_NONE;
}

static PyObject *scope_names(PyObject *self, PyObject *u) {
  (void)u;
  int n = pd_scope_size(SCOPE(self));
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++) PyList_SET_ITEM(l, i, PyUnicode_FromString(pd_scope_name_at(SCOPE(self), i)));
  return l;
}

static PyObject *scope_new_kid(PyObject *self, PyObject *u) {
  (void)u;
  pd_scope *k;
  pd_status s = pd_scope_new_kid(SCOPE(self), &k);
  if (s != PD_OK) return raise(s);
  pd_scope_retain(k);
  return scope_wrap(k);
}

static PyObject *scope_drop_kids(PyObject *self, PyObject *u) {
  (void)u;
  pd_scope_drop_kids(SCOPE(self));
  Py_RETURN_NONE;
}

static PyObject *scope_ptr(PyObject *self, PyObject *u) {
  (void)u;
  return PyLong_FromVoidPtr(SCOPE(self));
}

static PyMethodDef scope_methods[] = {
    {"_get", scope_get, METH_O, "the tensor of a variable (searching parents), or None"},
    {"_kind", scope_kind, METH_O, "0 empty, 1 tensor, 2 tensor array; None if missing"},
    {"_set", scope_set, METH_VARARGS, "(name, tensor[, lod]) into this scope"},
    {"_get_lod", scope_get_lod, METH_O, NULL},
    {"_get_array", scope_get_array, METH_O, NULL},
    {"_has", scope_has, METH_O, NULL},
    {"_has_local", scope_has_local, METH_O, NULL},
    {"_create", scope_create, METH_O, "an empty variable in this scope"},
    {"erase", scope_erase, METH_O, NULL},
    {"local_var_names", scope_names, METH_NOARGS, NULL},
    {"new_scope", scope_new_kid, METH_NOARGS, NULL},
    {"drop_kids", scope_drop_kids, METH_NOARGS, NULL},
    {"_ptr", scope_ptr, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}};

/* ======================================================================== Executor */
typedef struct {
  PyObject_HEAD
  pd_executor *e;
} PdExecutorObject;
static PyTypeObject *PdExecutor_Type;

static PyObject *exe_new(PyTypeObject *tp, PyObject *a, PyObject *k) {
  (void)a;
  (void)k;
  PdExecutorObject *o = (PdExecutorObject *)tp->tp_alloc(tp, 0);
  if (!o) return NULL;
  pd_status s = pd_executor_new(&o->e);
  if (s != PD_OK) {
    Py_DECREF(o);
    return raise(s);
  }
  return (PyObject *)o;
}

static void exe_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  pd_executor_free(((PdExecutorObject *)self)->e);
  tp->tp_free(self);
  Py_DECREF(tp);
}

/* _run(program, block, scope, feed_names, feed_tensors, feed_lods, fetch_names) ->
 * [(tensor or [tensors], lod)] */
static PyObject *exe_run(PyObject *self, PyObject *args) {
  PyObject *prog, *scope, *fnames, *ftensors, *flods, *xnames;
  int block;
  if (!PyArg_ParseTuple(args, "O!iO!OOOO", PdProgramDesc_Type, &prog, &block, PdScope_Type, &scope, &fnames,
                        &ftensors, &flods, &xnames))
    return NULL;
  PyObject *fn = PySequence_Fast(fnames, "feed names"), *ft = PySequence_Fast(ftensors, "feed tensors");
  PyObject *fl = flods == Py_None ? NULL : PySequence_Fast(flods, "feed lods");
  PyObject *xn = PySequence_Fast(xnames, "fetch names");
  PyObject *result = NULL;
  pd_feed *feeds = NULL;
  pd_lod *lods = NULL;
  const char **fetch = NULL;
  pd_fetch *out = NULL;
  Py_ssize_t nf = 0, nx = 0;
  if (!fn || !ft || !xn || (flods != Py_None && !fl)) goto done;
  nf = PySequence_Fast_GET_SIZE(fn);
  nx = PySequence_Fast_GET_SIZE(xn);
  if (PySequence_Fast_GET_SIZE(ft) != nf) {
    PyErr_SetString(PyExc_ValueError, "feed names and tensors differ in length");
    goto done;
  }
  feeds = (pd_feed *)calloc((size_t)(nf ? nf : 1), sizeof(pd_feed));
  lods = (pd_lod *)calloc((size_t)(nf ? nf : 1), sizeof(pd_lod));
  fetch = (const char **)calloc((size_t)(nx ? nx : 1), sizeof(char *));
  out = (pd_fetch *)calloc((size_t)(nx ? nx : 1), sizeof(pd_fetch));
  if (!feeds || !lods || !fetch || !out) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t i = 0; i < nf; i++) {
    feeds[i].name = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(fn, i));
    PyObject *t = PySequence_Fast_GET_ITEM(ft, i);
    if (!feeds[i].name) goto done;
    if (!PdTensor_Check(t) || !PdTensor_T(t)->storage) {
      PyErr_Format(PyExc_TypeError, "feed %s: expected a Tensor with data", feeds[i].name);
      goto done;
    }
    feeds[i].t = PdTensor_T(t);
    if (fl && i < PySequence_Fast_GET_SIZE(fl)) {
      if (!pd_py_lod_from_py(PySequence_Fast_GET_ITEM(fl, i), &lods[i])) goto done;
      feeds[i].lod = &lods[i];
    }
  }
  for (Py_ssize_t i = 0; i < nx; i++) {
    fetch[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(xn, i));
    if (!fetch[i]) goto done;
  }
  pd_status s;
  Py_BEGIN_ALLOW_THREADS
  s = pd_executor_run(((PdExecutorObject *)self)->e, PROG(prog), block, SCOPE(scope), (int)nf, feeds, (int)nx, fetch, out);
  Py_END_ALLOW_THREADS
  if (s != PD_OK) {
    raise(s);
    goto done;
  }
  result = PyList_New(nx);
  for (Py_ssize_t i = 0; result && i < nx; i++) {
    pd_value *v = &out[i].v;
    PyObject *val;
    if (v->kind == PD_VAL_ARRAY) {
      val = PyList_New(v->n_arr);
      for (int k = 0; val && k < v->n_arr; k++) {
        PyObject *x;
        if (v->arr[k]) {
          pd_tensor_retain(v->arr[k]);
          x = pd_py_wrap(v->arr[k]);
        } else {
          Py_INCREF(Py_None);
          x = Py_None;
        }
        if (!x) Py_CLEAR(val);
        else PyList_SET_ITEM(val, k, x);
      }
    } else {
      pd_tensor_retain(v->t);
      val = pd_py_wrap(v->t);
    }
    PyObject *lod = val ? pd_py_lod_to_py(&v->lod) : NULL;
    PyObject *pair = lod ? PyTuple_Pack(2, val, lod) : NULL;
    Py_XDECREF(val);
    Py_XDECREF(lod);
    if (!pair) {
      Py_CLEAR(result);
      break;
    }
    PyList_SET_ITEM(result, i, pair);
  }
done:
  for (Py_ssize_t i = 0; lods && i < nf; i++) pd_lod_clear(&lods[i]);
  for (Py_ssize_t i = 0; out && i < nx; i++) pd_value_clear(&out[i].v);
  free(feeds);
  free(lods);
  free(fetch);
  free(out);
  Py_XDECREF(fn);
  Py_XDECREF(ft);
  Py_XDECREF(fl);
  Py_XDECREF(xn);
  return result;
}

static PyObject *exe_clear(PyObject *self, PyObject *u) {
  (void)u;
  pd_executor_clear(((PdExecutorObject *)self)->e);
  Py_RETURN_NONE;
}

/* _set_device(dev): -1 the CPU, n >= 0 GPU n (pd_executor_set_device); _device() reads it */
static PyObject *exe_set_device(PyObject *self, PyObject *arg) {
  int dev = (int)PyLong_AsLong(arg);
  if (dev == -1 && PyErr_Occurred()) return NULL;
  pd_status s = pd_executor_set_device(((PdExecutorObject *)self)->e, dev);
  if (s != PD_OK) return raise(s);
  Py_RETURN_NONE;
}

static PyObject *exe_device(PyObject *self, PyObject *u) {
  (void)u;
  return PyLong_FromLong(pd_executor_device(((PdExecutorObject *)self)->e));
}

static PyObject *exe_plan_stats(PyObject *self, PyObject *u) {
  (void)u;
  pd_plan_stats st[32];
  int n = pd_executor_plan_stats(((PdExecutorObject *)self)->e, st, 32);
  PyObject *l = PyList_New(n);
  for (int i = 0; l && i < n; i++)
    PyList_SET_ITEM(l, i, Py_BuildValue("{s:i,s:i,s:i,s:L}", "n_instr", st[i].n_instr, "n_slots", st[i].n_slots,
                                        "n_consts", st[i].n_consts, "workspace_bytes", (long long)st[i].workspace_bytes));
  return l;
}

static PyMethodDef exe_methods[] = {
    {"_plan_stats", exe_plan_stats, METH_NOARGS, "what the cached plans look like"},
    {"_run", exe_run, METH_VARARGS, "(program, block, scope, feed_names, feed_tensors, feed_lods, fetch_names)"},
    {"_clear", exe_clear, METH_NOARGS, "drop cached plans"},
    {"_set_device", exe_set_device, METH_O, "where plans run: -1 the CPU, n GPU n"},
    {"_device", exe_device, METH_NOARGS, "where plans run: -1 the CPU, n GPU n"},
    {NULL, NULL, 0, NULL}};

/* ======================================================================== module functions */
/* _static_target(program_desc or None, block): where ops are recorded from now on; returns the
 * previous (program_desc or None, block) */
static PyObject *py_static_target(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *p;
  int block = 0;
  if (!PyArg_ParseTuple(args, "O|i", &p, &block)) return NULL;
  if (p != Py_None && !PyObject_TypeCheck(p, PdProgramDesc_Type))
    return PyErr_Format(PyExc_TypeError, "expected a ProgramDesc or None");
  pd_program *prev;
  int pb;
  pd_status s = pd_recorder_set(p == Py_None ? NULL : PROG(p), block, &prev, &pb);
  if (s != PD_OK) return raise(s);
  PyObject *po;
  if (prev) {
    po = pd_py_program_wrap(prev);
    if (!po) return NULL;
  } else {
    Py_INCREF(Py_None);
    po = Py_None;
  }
  return Py_BuildValue("(Ni)", po, pb);
}

static PyObject *py_static_active(PyObject *m, PyObject *u) {
  (void)m;
  (void)u;
  int b;
  pd_program *p = pd_recorder_program(&b);
  if (!p) Py_RETURN_NONE;
  return Py_BuildValue("(Ki)", (unsigned long long)(uintptr_t)p, b);
}

static int str_array(PyObject *o, const char ***out, Py_ssize_t *n, PyObject **keep) {
  *out = NULL;
  *n = 0;
  *keep = NULL;
  if (o == Py_None) return 1;
  PyObject *seq = PySequence_Fast(o, "expected a list of names");
  if (!seq) return 0;
  *keep = seq;
  *n = PySequence_Fast_GET_SIZE(seq);
  *out = (const char **)calloc((size_t)(*n ? *n : 1), sizeof(char *));
  if (!*out) {
    PyErr_NoMemory();
    return 0;
  }
  for (Py_ssize_t i = 0; i < *n; i++) {
    PyObject *x = PySequence_Fast_GET_ITEM(seq, i);
    (*out)[i] = x == Py_None ? NULL : PyUnicode_AsUTF8(x);
    if (x != Py_None && !(*out)[i]) return 0;
  }
  return 1;
}

/* _gradients(program, block, targets, target_grads (list or None), inputs, no_grad) -> [name|None] */
static PyObject *py_gradients(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *prog, *targets, *tgrads, *inputs, *nog;
  int block;
  if (!PyArg_ParseTuple(args, "O!iOOOO", PdProgramDesc_Type, &prog, &block, &targets, &tgrads, &inputs, &nog)) return NULL;
  const char **t = NULL, **tg = NULL, **in = NULL, **ng = NULL;
  Py_ssize_t nt, ntg, ni, nn;
  PyObject *k1 = NULL, *k2 = NULL, *k3 = NULL, *k4 = NULL, *result = NULL;
  char **names = NULL;
  if (!str_array(targets, &t, &nt, &k1) || !str_array(tgrads, &tg, &ntg, &k2) ||
      !str_array(inputs, &in, &ni, &k3) || !str_array(nog, &ng, &nn, &k4))
    goto done;
  if (tg && ntg != nt) {
    PyErr_SetString(PyExc_ValueError, "gradients: target_gradients must match targets in length");
    goto done;
  }
  names = (char **)calloc((size_t)(ni ? ni : 1), sizeof(char *));
  if (!names) {
    PyErr_NoMemory();
    goto done;
  }
  pd_status s = pd_program_gradients(PROG(prog), block, (int)nt, t, tg, (int)ni, in, (int)nn, ng, names);
  if (s != PD_OK) {
    raise(s);
    goto done;
  }
  result = PyList_New(ni);
  for (Py_ssize_t i = 0; result && i < ni; i++) {
    PyObject *x;
    if (names[i]) x = PyUnicode_FromString(names[i]);
    else {
      Py_INCREF(Py_None);
      x = Py_None;
    }
    PyList_SET_ITEM(result, i, x);
  }
done:
  for (Py_ssize_t i = 0; names && i < ni; i++) free(names[i]);
  free(names);
  free(t);
  free(tg);
  free(in);
  free(ng);
  Py_XDECREF(k1);
  Py_XDECREF(k2);
  Py_XDECREF(k3);
  Py_XDECREF(k4);
  return result;
}

/* _static_assign(dst_var, src): records dst = assign(src) into the current block (src may be
 * a variable or data) */
static PyObject *py_static_assign(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *dst, *src;
  if (!PyArg_ParseTuple(args, "OO", &dst, &src)) return NULL;
  if (!PdTensor_Check(dst) || !PdTensor_T(dst)->var || !PdTensor_Check(src))
    return PyErr_Format(PyExc_TypeError, "_static_assign expects a Variable and a Tensor");
  int b;
  pd_program *p = pd_recorder_program(&b);
  if (!p) return PyErr_Format(PyExc_RuntimeError, "_static_assign: not in static mode");
  pd_block *blk = p->blocks[b];
  pd_assign_args a = {PdTensor_T(src)};
  pd_tensor **o = NULL;
  int n = 0;
  pd_status s = pd_record_op(blk, PD_OP_ASSIGN, &a, &o, &n);
  if (s != PD_OK) return raise(s);
  /* retarget the op's output to dst's variable and drop the temporary */
  pd_opdesc *op = blk->ops[blk->n_ops - 1];
  const char *dn = PdTensor_T(dst)->var->name;
  char tmp[512];
  snprintf(tmp, sizeof tmp, "%s", o[0]->var->name);
  s = pd_opdesc_set_slot(op, 1, "Out", 1, &dn);
  for (int i = 0; i < n; i++) pd_tensor_release(o[i]);
  free(o);
  if (s == PD_OK && pd_block_find_var(blk, tmp)) s = pd_block_remove_var(blk, tmp);
  if (s != PD_OK) return raise(s);
  Py_INCREF(dst);
  return dst;
}

static PyObject *py_set_variable_type(PyObject *m, PyObject *cls) {
  (void)m;
  if (cls != Py_None && (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, PdTensor_Type)))
    return PyErr_Format(PyExc_TypeError, "expected a subclass of paddle.Tensor");
  Py_XINCREF(cls == Py_None ? NULL : cls);
  Py_XSETREF(pd_py_variable_type, cls == Py_None ? NULL : cls);
  Py_RETURN_NONE;
}

static PyObject *py_unsupported_ops(PyObject *m, PyObject *prog) {
  (void)m;
  if (!PyObject_TypeCheck(prog, PdProgramDesc_Type)) return PyErr_Format(PyExc_TypeError, "expected a ProgramDesc");
  char buf[4096];
  int n = pd_program_unsupported_ops(PROG(prog), buf, sizeof buf);
  if (!n) return PyList_New(0);
  PyObject *s = PyUnicode_FromString(buf);
  if (!s) return NULL;
  PyObject *sep = PyUnicode_FromString(", ");
  PyObject *l = sep ? PyUnicode_Split(s, sep, -1) : NULL;
  Py_XDECREF(sep);
  Py_DECREF(s);
  return l;
}

static PyMethodDef exec_module_methods[] = {
    {"_static_target", py_static_target, METH_VARARGS, "set where ops are recorded; returns the previous target"},
    {"_static_active", py_static_active, METH_NOARGS, "(program pointer, block) being recorded into, or None"},
    {"_gradients", py_gradients, METH_VARARGS, "append backward ops; returns the gradient variable names"},
    {"_static_assign", py_static_assign, METH_VARARGS, "record dst = assign(src)"},
    {"_set_variable_type", py_set_variable_type, METH_O, "the Python class of program variables"},
    {"_unsupported_ops", py_unsupported_ops, METH_O, "op types of a program that cannot run"},
    {NULL, NULL, 0, NULL}};

static PyType_Slot scope_slots[] = {{Py_tp_new, scope_new}, {Py_tp_dealloc, scope_dealloc},
                                    {Py_tp_methods, scope_methods}, {0, NULL}};
static PyType_Spec scope_spec = {"paddle._C.Scope", sizeof(PdScopeObject), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, scope_slots};
static PyType_Slot exe_slots[] = {{Py_tp_new, exe_new}, {Py_tp_dealloc, exe_dealloc},
                                  {Py_tp_methods, exe_methods}, {0, NULL}};
static PyType_Spec exe_spec = {"paddle._C.ExecutorCore", sizeof(PdExecutorObject), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, exe_slots};

int pd_py_static_exec_init(PyObject *m) {
  PdScope_Type = (PyTypeObject *)PyType_FromSpec(&scope_spec);
  PdExecutor_Type = (PyTypeObject *)PyType_FromSpec(&exe_spec);
  if (!PdScope_Type || !PdExecutor_Type) return -1;
  Py_INCREF(PdScope_Type);
  Py_INCREF(PdExecutor_Type);
  if (PyModule_AddObject(m, "Scope", (PyObject *)PdScope_Type) < 0) return -1;
  if (PyModule_AddObject(m, "ExecutorCore", (PyObject *)PdExecutor_Type) < 0) return -1;
  return PyModule_AddFunctions(m, exec_module_methods);
}
