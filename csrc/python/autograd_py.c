/* Python bindings of the autograd engine: backward / grad entry points, grad mode, and the
 * Tensor attributes and methods that touch autograd state (grad, is_leaf, hooks,
 * retain_grads, clear_grad). Python hooks run through a trampoline holding the callable. */
#include "pd_py.h"
#include "../autograd/pd_autograd.h"

static int seq_to_tensors(PyObject *seq, pd_tensor ***out, Py_ssize_t *n, int allow_none,
                          const char *what) {
  PyObject *fast = PySequence_Fast(seq, what);
  if (!fast) return 0;
  *n = PySequence_Fast_GET_SIZE(fast);
  *out = (pd_tensor **)PyMem_Calloc((size_t)(*n > 0 ? *n : 1), sizeof(pd_tensor *));
  if (!*out) {
    Py_DECREF(fast);
    PyErr_NoMemory();
    return 0;
  }
  for (Py_ssize_t i = 0; i < *n; i++) {
    PyObject *o = PySequence_Fast_GET_ITEM(fast, i);
    if (o == Py_None && allow_none) continue;
    if (!PdTensor_Check(o)) {
      PyErr_Format(PyExc_TypeError, "%s: element %zd must be a paddle.Tensor%s, received %s", what,
                   i, allow_none ? " or None" : "", Py_TYPE(o)->tp_name);
      Py_DECREF(fast);
      PyMem_Free(*out);
      return 0;
    }
    (*out)[i] = PdTensor_T(o);
  }
  Py_DECREF(fast);
  return 1;
}

/* _run_backward(outputs, grad_outputs|None, inputs|None, retain_graph, create_graph, allow_unused)
 * inputs None: accumulate into leaves, returns None; else returns a list of grads (None = unused) */
static PyObject *py_run_backward(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *outs_o, *grads_o, *ins_o;
  int retain, create, allow_unused;
  if (!PyArg_ParseTuple(args, "OOOppp", &outs_o, &grads_o, &ins_o, &retain, &create, &allow_unused))
    return NULL;
  pd_tensor **outs = NULL, **grads = NULL, **ins = NULL, **res = NULL;
  Py_ssize_t n_out = 0, n_g = 0, n_in = 0;
  PyObject *ret = NULL;
  if (!seq_to_tensors(outs_o, &outs, &n_out, 0, "outputs")) return NULL;
  for (Py_ssize_t i = 0; i < n_out; i++)
    if (outs[i] && outs[i]->var) { /* a static program's variable: no eager graph to run */
      PyErr_Format(PyExc_RuntimeError, "backward/grad run eagerly, but output %zd is a static program "
                   "variable: use paddle.static.append_backward / paddle.static.gradients", i);
      goto done;
    }
  if (grads_o != Py_None) {
    if (!seq_to_tensors(grads_o, &grads, &n_g, 1, "grad_outputs")) goto done;
    if (n_g != n_out) {
      PyErr_Format(PyExc_ValueError, "grad_outputs must have as many entries as outputs (%zd), "
                   "received %zd", n_out, n_g);
      goto done;
    }
  }
  if (ins_o != Py_None) {
    if (!seq_to_tensors(ins_o, &ins, &n_in, 0, "inputs")) goto done;
    res = (pd_tensor **)PyMem_Calloc((size_t)(n_in > 0 ? n_in : 1), sizeof(pd_tensor *));
    if (!res) {
      PyErr_NoMemory();
      goto done;
    }
  }
  pd_status s = pd_autograd_run(outs, grads, (int)n_out, ins, (int)n_in, res, retain, create,
                                allow_unused);
  if (s != PD_OK) {
    if (!PyErr_Occurred()) pd_py_raise(s);
    goto done;
  }
  if (!ins) {
    ret = Py_None;
    Py_INCREF(ret);
  } else {
    ret = PyList_New(n_in);
    for (Py_ssize_t i = 0; ret && i < n_in; i++) {
      if (res[i]) {
        PyObject *w = pd_py_wrap(res[i]);
        res[i] = NULL;
        if (!w) {
          Py_CLEAR(ret);
          break;
        }
        PyList_SET_ITEM(ret, i, w);
      } else {
        Py_INCREF(Py_None);
        PyList_SET_ITEM(ret, i, Py_None);
      }
    }
    for (Py_ssize_t i = 0; i < n_in; i++) pd_tensor_release(res[i]);
  }
done:
  PyMem_Free(outs);
  PyMem_Free(grads);
  PyMem_Free(ins);
  PyMem_Free(res);
  return ret;
}

static PyObject *py_set_grad_enabled(PyObject *m, PyObject *v) {
  (void)m;
  int prev = pd_grad_enabled();
  int on = PyObject_IsTrue(v);
  if (on < 0) return NULL;
  pd_set_grad_enabled(on);
  return PyBool_FromLong(prev);
}
static PyObject *py_is_grad_enabled(PyObject *m, PyObject *u) {
  (void)m;
  (void)u;
  return PyBool_FromLong(pd_grad_enabled());
}

/* ---- hooks ---- */
static pd_status py_hook_trampoline(void *ctx, pd_tensor *grad, pd_tensor **replace) {
  PyObject *fn = (PyObject *)ctx;
  *replace = NULL;
  pd_tensor_retain(grad);
  PyObject *g = pd_py_wrap(grad);
  if (!g) return pd_set_error(PD_ERR_EXTERNAL, "hook: cannot wrap the gradient");
  PyObject *r = PyObject_CallOneArg(fn, g);
  Py_DECREF(g);
  if (!r) {
    /* keep the Python exception; the caller sees a failed status and returns NULL */
    return pd_set_error(PD_ERR_EXTERNAL, "a gradient hook raised an exception");
  }
  if (r != Py_None) {
    if (!PdTensor_Check(r)) {
      Py_DECREF(r);
      PyErr_Format(PyExc_TypeError, "a gradient hook must return None or a Tensor");
      return pd_set_error(PD_ERR_TYPE, "a gradient hook must return None or a Tensor");
    }
    pd_tensor *t = PdTensor_T(r);
    if (t->ndim != grad->ndim || t->dtype != grad->dtype) {
      Py_DECREF(r);
      PyErr_Format(PyExc_ValueError, "a gradient hook returned a tensor whose shape or dtype "
                   "differs from the gradient's");
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "bad hook result");
    }
    pd_tensor_retain(t);
    *replace = t;
  }
  Py_DECREF(r);
  return PD_OK;
}
static void py_hook_free(void *ctx) {
  PyGILState_STATE g = PyGILState_Ensure();
  Py_XDECREF((PyObject *)ctx);
  PyGILState_Release(g);
}

static PyObject *m_register_hook(PyObject *self, PyObject *fn) {
  if (!PyCallable_Check(fn)) {
    PyErr_SetString(PyExc_TypeError, "register_hook expects a callable");
    return NULL;
  }
  pd_tensor *t = PdTensor_T(self);
  if (t->stop_gradient) {
    PyErr_SetString(PyExc_RuntimeError,
                    "cannot register a hook on a tensor with stop_gradient=True");
    return NULL;
  }
  Py_INCREF(fn);
  int64_t id = pd_tensor_add_hook(t, py_hook_trampoline, fn, py_hook_free);
  if (id < 0) {
    Py_DECREF(fn);
    return PyErr_NoMemory();
  }
  return PyLong_FromLongLong(id);
}
static PyObject *m_remove_hook(PyObject *self, PyObject *id) {
  long long v = PyLong_AsLongLong(id);
  if (v == -1 && PyErr_Occurred()) return NULL;
  return PyBool_FromLong(pd_tensor_remove_hook(PdTensor_T(self), v));
}
static PyObject *m_retain_grads(PyObject *self, PyObject *u) {
  (void)u;
  pd_status s = pd_tensor_retain_grads(PdTensor_T(self));
  if (s != PD_OK) return pd_py_raise(s);
  Py_RETURN_NONE;
}
static PyObject *m_clear_grad(PyObject *self, PyObject *args) {
  int set_to_zero = 1;
  if (!PyArg_ParseTuple(args, "|p", &set_to_zero)) return NULL;
  pd_tensor *t = PdTensor_T(self);
  pd_autograd_meta *m = t->autograd;
  if (m && m->sp_rows) { /* row-sparse: set_to_zero keeps an empty one */
    pd_status s = pd_sparse_grad_clear(m, t, set_to_zero);
    if (s != PD_OK) return pd_py_raise(s);
    Py_RETURN_NONE;
  }
  if (!m || !m->grad) Py_RETURN_NONE;
  if (set_to_zero) {
    m->grad_zero_pending = 1; /* zero on the next read; the next backward overwrites it */
  } else {
    m->grad_zero_pending = 0;
    pd_tensor *g = m->grad;
    m->grad = NULL;
    pd_tensor_release(g);
  }
  Py_RETURN_NONE;
}

static PyObject *get_grad(PyObject *self, void *c) {
  (void)c;
  pd_tensor *g = pd_tensor_grad(PdTensor_T(self));
  if (!g) {
    pd_autograd_meta *m = PdTensor_T(self)->autograd;
    if (m && (m->grad || m->sp_values)) return pd_py_raise(pd_last_status());
    Py_RETURN_NONE;
  }
  pd_tensor_retain(g);
  return pd_py_wrap(g);
}
/* _grad_value(): what an optimizer consumes: (rows, values) for a row-sparse gradient (merged:
 * sorted unique rows), else the dense gradient as .grad gives it, or None. */
static PyObject *m_grad_value(PyObject *self, PyObject *u) {
  (void)u;
  pd_autograd_meta *m = PdTensor_T(self)->autograd;
  if (m && m->sp_rows) {
    pd_tensor *r, *v;
    pd_status s = pd_tensor_sparse_grad(PdTensor_T(self), &r, &v);
    if (s != PD_OK) return pd_py_raise(s);
    if (r) {
      PyObject *pr = pd_py_wrap(r), *pv = pr ? pd_py_wrap(v) : NULL;
      if (!pr) pd_tensor_release(v);
      if (!pv) {
        Py_XDECREF(pr);
        return NULL;
      }
      return Py_BuildValue("(NN)", pr, pv);
    }
  }
  return get_grad(self, NULL);
}
static int set_grad(PyObject *self, PyObject *v, void *c) {
  (void)c;
  pd_tensor *t = PdTensor_T(self);
  if (v == NULL || v == Py_None) {
    if (t->autograd) {
      pd_sparse_grad_clear(t->autograd, t, 0); /* cannot fail without set_to_zero */
      pd_tensor *g = t->autograd->grad;
      t->autograd->grad = NULL;
      t->autograd->grad_zero_pending = 0;
      pd_tensor_release(g);
    }
    return 0;
  }
  if (!PdTensor_Check(v)) {
    PyErr_SetString(PyExc_TypeError, "grad must be a Tensor or None");
    return -1;
  }
  pd_tensor *g = PdTensor_T(v);
  if (g->ndim != t->ndim || g->dtype != t->dtype) {
    PyErr_SetString(PyExc_ValueError, "the assigned grad must have the tensor's shape and dtype");
    return -1;
  }
  for (int d = 0; d < t->ndim; d++)
    if (g->shape[d] != t->shape[d]) {
      PyErr_SetString(PyExc_ValueError, "the assigned grad must have the tensor's shape");
      return -1;
    }
  pd_autograd_meta *m = pd_autograd_meta_get(t, 1);
  if (!m) {
    PyErr_NoMemory();
    return -1;
  }
  pd_sparse_grad_clear(m, t, 0); /* a row-sparse gradient is replaced too */
  pd_tensor_retain(g);
  pd_tensor *old = m->grad;
  m->grad = g;
  m->grad_zero_pending = 0;
  pd_tensor_release(old);
  return 0;
}
static PyObject *get_is_leaf(PyObject *self, void *c) {
  (void)c;
  pd_autograd_meta *m = PdTensor_T(self)->autograd;
  return PyBool_FromLong(!(m && m->node));
}
static PyObject *get_grad_fn_name(PyObject *self, void *c) {
  (void)c;
  pd_autograd_meta *m = PdTensor_T(self)->autograd;
  if (!m || !m->node) Py_RETURN_NONE;
  return PyUnicode_FromFormat("%sBackward", m->node->name);
}

static PyObject *m_detach_inplace(PyObject *self, PyObject *u) {
  /* _detach_(): cut this tensor from its producing node (it becomes a leaf with no gradient) */
  (void)u;
  pd_tensor *t = PdTensor_T(self);
  pd_autograd_meta *m = t->autograd;
  if (m && m->node) {
    if (m->retain_hook_id) {
      pd_tensor_remove_hook(t, m->retain_hook_id);
      m->retain_hook_id = 0;
    }
    pd_node *n = m->node;
    m->node = NULL;
    pd_node_release(n);
  }
  t->stop_gradient = 1;
  Py_INCREF(self);
  return self;
}

PyGetSetDef pd_py_autograd_getset[] = {
    {"grad", get_grad, set_grad, "the accumulated gradient (None before any backward)", NULL},
    {"is_leaf", get_is_leaf, NULL, "True unless the tensor was produced by a recorded op", NULL},
    {"_grad_fn_name", get_grad_fn_name, NULL, "name of the producing grad node", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyMethodDef pd_py_autograd_tensor_methods[] = {
    {"_register_hook", m_register_hook, METH_O, "add a gradient hook; returns its id"},
    {"_remove_hook", m_remove_hook, METH_O, "remove a hook by id"},
    {"retain_grads", m_retain_grads, METH_NOARGS, "keep the gradient of a non-leaf tensor"},
    {"_clear_grad", m_clear_grad, METH_VARARGS, "zero (or drop) the gradient"},
    {"_grad_value", m_grad_value, METH_NOARGS, "(rows, values) if row-sparse, else .grad"},
    {"_detach_", m_detach_inplace, METH_NOARGS, "cut from the graph in place (stop_gradient=True)"},
    {NULL, NULL, 0, NULL}};

PyMethodDef pd_py_autograd_methods[] = {
    {"_run_backward", py_run_backward, METH_VARARGS, "run the autograd engine"},
    {"_set_grad_enabled", py_set_grad_enabled, METH_O, "set grad mode; returns the previous"},
    {"_is_grad_enabled", py_is_grad_enabled, METH_NOARGS, "grad mode"},
    {NULL, NULL, 0, NULL}};
