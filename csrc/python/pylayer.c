/* paddle.autograd.PyLayer support: a custom grad node whose apply calls the Python backward
 * (ctx, *grads) and maps its results onto the tensor inputs. The node owns (backward, ctx). */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "pd_py.h"
#include "../autograd/pd_autograd.h"

typedef struct {
  PyObject *backward; /* callable(ctx, *grads) */
  PyObject *ctx;
  int n_out;
  char name[96];
} pylayer_ctx;

static void free_pylayer(void *p) {
  pylayer_ctx *c = (pylayer_ctx *)p;
  PyGILState_STATE g = PyGILState_Ensure();
  Py_XDECREF(c->backward);
  Py_XDECREF(c->ctx);
  PyGILState_Release(g);
  free(c);
}

static pd_status apply_pylayer(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  pylayer_ctx *c = (pylayer_ctx *)n->custom;
  if (n->released)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET,
                        "[%s] trying to run backward through the PyLayer a second time after its "
                        "graph was freed; call backward(retain_graph=True) the first time", n->name);
  PyObject *args = PyTuple_New(1 + n->n_out);
  if (!args) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  Py_INCREF(c->ctx);
  PyTuple_SET_ITEM(args, 0, c->ctx);
  for (int k = 0; k < n->n_out; k++) {
    PyObject *g;
    if (gout[k]) {
      pd_tensor_retain(gout[k]);
      g = pd_py_wrap(gout[k]);
    } else {
      g = Py_None;
      Py_INCREF(g);
    }
    if (!g) {
      Py_DECREF(args);
      return pd_set_error(PD_ERR_EXTERNAL, "PyLayer: cannot wrap a gradient");
    }
    PyTuple_SET_ITEM(args, 1 + k, g);
  }
  PyObject *r = PyObject_Call(c->backward, args, NULL);
  Py_DECREF(args);
  if (!r) return pd_set_error(PD_ERR_EXTERNAL, "[%s] PyLayer.backward raised", n->name);
  PyObject *seq = PyTuple_Check(r) || PyList_Check(r) ? PySequence_Tuple(r) : PyTuple_Pack(1, r);
  Py_DECREF(r);
  if (!seq) return pd_set_error(PD_ERR_EXTERNAL, "PyLayer: bad backward result");
  Py_ssize_t m = PyTuple_GET_SIZE(seq);
  pd_status st = PD_OK;
  if (m != n->n_edges) {
    PyErr_Format(PyExc_ValueError, "%s.backward returned %zd gradients, but forward received %d "
                 "tensor inputs", n->name, m, n->n_edges);
    st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "bad PyLayer gradient count");
  }
  for (Py_ssize_t i = 0; st == PD_OK && i < m; i++) {
    PyObject *o = PyTuple_GET_ITEM(seq, i);
    if (o == Py_None) continue;
    if (!PdTensor_Check(o)) {
      PyErr_Format(PyExc_TypeError, "%s.backward must return Tensors or None, got %s", n->name,
                   Py_TYPE(o)->tp_name);
      st = pd_set_error(PD_ERR_TYPE, "bad PyLayer gradient type");
      break;
    }
    if (!(n->edges[i].node || n->edges[i].leaf)) continue;
    pd_tensor *t = PdTensor_T(o);
    pd_tensor *want = n->saved && i < n->n_saved ? n->saved[i] : NULL;
    if (want) {
      int ok = want->ndim == t->ndim;
      for (int d = 0; ok && d < t->ndim; d++) ok = want->shape[d] == t->shape[d];
      if (!ok) {
        char a[128], b[128];
        PyErr_Format(PyExc_ValueError, "%s.backward: the gradient of input %zd has shape %s, "
                     "expected %s", n->name, i, pd_shape_str(t->ndim, t->shape, a, sizeof a),
                     pd_shape_str(want->ndim, want->shape, b, sizeof b));
        st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "bad PyLayer gradient shape");
        break;
      }
    }
    pd_tensor_retain(t);
    gin[i] = t;
  }
  Py_DECREF(seq);
  if (st != PD_OK)
    for (int i = 0; i < n->n_edges; i++) {
      pd_tensor_release(gin[i]);
      gin[i] = NULL;
    }
  return st;
}

/* _pylayer_record(name, backward, ctx, inputs, outputs) -> None */
static PyObject *py_pylayer_record(PyObject *mod, PyObject *args) {
  (void)mod;
  const char *name;
  PyObject *bw, *ctx, *ins, *outs;
  if (!PyArg_ParseTuple(args, "sOOO!O!", &name, &bw, &ctx, &PyList_Type, &ins, &PyList_Type, &outs))
    return NULL;
  Py_ssize_t ni = PyList_GET_SIZE(ins), no = PyList_GET_SIZE(outs);
  for (Py_ssize_t i = 0; i < ni; i++)
    if (!PdTensor_Check(PyList_GET_ITEM(ins, i))) {
      PyErr_SetString(PyExc_TypeError, "PyLayer inputs must be tensors");
      return NULL;
    }
  for (Py_ssize_t i = 0; i < no; i++)
    if (!PdTensor_Check(PyList_GET_ITEM(outs, i))) {
      PyErr_SetString(PyExc_TypeError, "PyLayer outputs must be tensors");
      return NULL;
    }
  pylayer_ctx *c = (pylayer_ctx *)calloc(1, sizeof *c);
  if (!c) return PyErr_NoMemory();
  snprintf(c->name, sizeof c->name, "%s", name);
  pd_node *n = pd_node_new(c->name, -1, (int)ni, (int)no);
  if (!n) {
    free(c);
    return PyErr_NoMemory();
  }
  Py_INCREF(bw);
  Py_INCREF(ctx);
  c->backward = bw;
  c->ctx = ctx;
  c->n_out = (int)no;
  n->custom = c;
  n->free_custom = free_pylayer;
  n->apply = apply_pylayer;
  pd_status s = PD_OK;
  for (Py_ssize_t i = 0; i < ni && s == PD_OK; i++) {
    pd_tensor *t = PdTensor_T(PyList_GET_ITEM(ins, i));
    pd_node_set_edge(n, (int)i, t);
    s = pd_node_save(n, (int)i, t, 1, -1); /* shapes, to check the returned gradients */
  }
  pd_tensor *obuf[64];
  pd_tensor **o = no <= 64 ? obuf : (pd_tensor **)malloc(sizeof(pd_tensor *) * (size_t)no);
  if (!o) s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (Py_ssize_t i = 0; s == PD_OK && i < no; i++) o[i] = PdTensor_T(PyList_GET_ITEM(outs, i));
  if (s == PD_OK) s = pd_node_attach_outputs(n, o, (int)no);
  if (o && o != obuf) free(o);
  pd_node_release(n);
  if (s != PD_OK) return pd_py_raise(s);
  Py_RETURN_NONE;
}

PyMethodDef pd_py_pylayer_methods[] = {
    {"_pylayer_record", py_pylayer_record, METH_VARARGS, "attach PyLayer outputs to a custom node"},
    {NULL, NULL, 0, NULL}};
