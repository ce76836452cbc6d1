/* paddle._C bindings of the LoDTensor stream (csrc/graph/pd_tensor_stream.c): load every tensor
 * of a byte buffer (a .pdiparams file, a single-variable file of save/save_vars, or a
 * paddle.save(use_binary_format=True) file), with or without its LoD, and dump tensors (each
 * with an optional LoD) back into one buffer. */
#include "pd_py.h"
#include "pd_static_py.h"
#include "../graph/pd_tensor_stream.h"

/* tensor_stream_load(buffer, what='buffer', with_lod=False, count=-1)
 *   -> list of Tensors, or of (Tensor, lod) pairs with with_lod. The whole buffer must be
 *   consumed unless count >= 0 asks for that many tensors (then the list is followed by the
 *   byte offset where reading stopped: (list, offset)). */
static PyObject *stream_load(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwlist[] = {"buffer", "what", "with_lod", "count", NULL};
  Py_buffer view;
  const char *what = "buffer";
  int with_lod = 0;
  Py_ssize_t count = -1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "y*|spn", kwlist, &view, &what, &with_lod, &count)) return NULL;
  PyObject *list = PyList_New(0);
  size_t pos = 0, len = (size_t)view.len;
  while (list && (count >= 0 ? PyList_GET_SIZE(list) < count : pos < len)) {
    pd_tensor *t;
    pd_lod lod;
    pd_status s = pd_tensor_stream_read_lod((const uint8_t *)view.buf, len, &pos, what, &t, &lod);
    if (s != PD_OK) {
      Py_CLEAR(list);
      pd_py_raise(s);
      break;
    }
    PyObject *o = pd_py_wrap(t);
    if (o && with_lod) {
      PyObject *l = pd_py_lod_to_py(&lod);
      PyObject *pair = l ? PyTuple_Pack(2, o, l) : NULL;
      Py_XDECREF(l);
      Py_DECREF(o);
      o = pair;
    }
    pd_lod_clear(&lod);
    if (!o || PyList_Append(list, o) < 0) Py_CLEAR(list);
    Py_XDECREF(o);
  }
  PyBuffer_Release(&view);
  if (list && count >= 0) {
    PyObject *r = Py_BuildValue("(On)", list, (Py_ssize_t)pos);
    Py_DECREF(list);
    return r;
  }
  return list;
}

/* item k of a dump: a Tensor or a (Tensor, lod) pair; 0 with an exception otherwise */
static int dump_item(PyObject *o, Py_ssize_t k, pd_tensor **t, pd_lod *lod) {
  memset(lod, 0, sizeof *lod);
  PyObject *lo = NULL;
  if (PyTuple_Check(o) && PyTuple_GET_SIZE(o) == 2) {
    lo = PyTuple_GET_ITEM(o, 1);
    o = PyTuple_GET_ITEM(o, 0);
  }
  if (!PdTensor_Check(o) || !PdTensor_T(o)->storage) {
    PyErr_Format(PyExc_TypeError, "tensor_stream_dump: item %zd is %s, expected a Tensor with data or a "
                 "(Tensor, lod) pair", k, Py_TYPE(o)->tp_name);
    return 0;
  }
  *t = PdTensor_T(o);
  return lo ? pd_py_lod_from_py(lo, lod) : 1;
}

/* tensor_stream_dump(sequence of Tensors or (Tensor, lod) pairs) -> bytes */
static PyObject *stream_dump(PyObject *m, PyObject *seq) {
  (void)m;
  PyObject *fast = PySequence_Fast(seq, "tensor_stream_dump expects a sequence of Tensors");
  if (!fast) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  size_t total = 0;
  for (Py_ssize_t k = 0; k < n; k++) {
    pd_tensor *t;
    pd_lod lod;
    if (!dump_item(PySequence_Fast_GET_ITEM(fast, k), k, &t, &lod)) {
      Py_DECREF(fast);
      return NULL;
    }
    total += pd_tensor_stream_size_lod(t, &lod);
    pd_lod_clear(&lod);
  }
  PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
  if (!out) {
    Py_DECREF(fast);
    return NULL;
  }
  uint8_t *p = (uint8_t *)PyBytes_AS_STRING(out);
  size_t off = 0;
  for (Py_ssize_t k = 0; k < n; k++) {
    size_t w;
    pd_tensor *t;
    pd_lod lod;
    if (!dump_item(PySequence_Fast_GET_ITEM(fast, k), k, &t, &lod)) {
      Py_DECREF(fast);
      Py_DECREF(out);
      return NULL;
    }
    pd_status s = pd_tensor_stream_write_lod(t, &lod, p + off, total - off, &w);
    pd_lod_clear(&lod);
    if (s != PD_OK) {
      Py_DECREF(fast);
      Py_DECREF(out);
      return pd_py_raise(s);
    }
    off += w;
  }
  Py_DECREF(fast);
  return out;
}

PyMethodDef pd_py_stream_methods[] = {
    {"tensor_stream_load", (PyCFunction)(void (*)(void))stream_load, METH_VARARGS | METH_KEYWORDS,
     "tensor_stream_load(buffer, what='buffer', with_lod=False, count=-1): the LoDTensors of a Paddle "
     "tensor stream (with their LoD as (tensor, lod) pairs when with_lod)"},
    {"tensor_stream_dump", stream_dump, METH_O,
     "tensor_stream_dump(items): Paddle's LoDTensor stream of the items (Tensors or (Tensor, lod) pairs)"},
    {NULL, NULL, 0, NULL}};
