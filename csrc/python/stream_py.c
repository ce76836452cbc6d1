/* paddle._C bindings of the LoDTensor stream (csrc/graph/pd_tensor_stream.c): load every tensor
 * of a byte buffer (a .pdiparams file or a paddle.save(use_binary_format=True) file) and dump
 * tensors back into one buffer. */
#include "pd_py.h"
#include "../graph/pd_tensor_stream.h"

/* tensor_stream_load(buffer, what) -> list of Tensors (the whole buffer must be consumed) */
static PyObject *stream_load(PyObject *m, PyObject *args) {
  (void)m;
  Py_buffer view;
  const char *what = "buffer";
  if (!PyArg_ParseTuple(args, "y*|s", &view, &what)) return NULL;
  PyObject *list = PyList_New(0);
  size_t pos = 0, len = (size_t)view.len;
  while (list && pos < len) {
    pd_tensor *t;
    pd_status s = pd_tensor_stream_read((const uint8_t *)view.buf, len, &pos, what, &t, NULL);
    if (s != PD_OK) {
      Py_CLEAR(list);
      pd_py_raise(s);
      break;
    }
    PyObject *o = pd_py_wrap(t);
    if (!o || PyList_Append(list, o) < 0) Py_CLEAR(list);
    Py_XDECREF(o);
  }
  PyBuffer_Release(&view);
  return list;
}

/* tensor_stream_dump(sequence of Tensors) -> bytes */
static PyObject *stream_dump(PyObject *m, PyObject *seq) {
  (void)m;
  PyObject *fast = PySequence_Fast(seq, "tensor_stream_dump expects a sequence of Tensors");
  if (!fast) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  size_t total = 0;
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject *o = PySequence_Fast_GET_ITEM(fast, k);
    if (!PdTensor_Check(o)) {
      Py_DECREF(fast);
      return PyErr_Format(PyExc_TypeError, "tensor_stream_dump: item %zd is %s, expected a Tensor", k,
                          Py_TYPE(o)->tp_name);
    }
    total += pd_tensor_stream_size(PdTensor_T(o));
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
    pd_status s = pd_tensor_stream_write(PdTensor_T(PySequence_Fast_GET_ITEM(fast, k)), p + off,
                                         total - off, &w);
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
    {"tensor_stream_load", stream_load, METH_VARARGS,
     "tensor_stream_load(buffer, what='buffer'): every LoDTensor of a Paddle tensor stream"},
    {"tensor_stream_dump", stream_dump, METH_O,
     "tensor_stream_dump(tensors): Paddle's LoDTensor stream of the tensors (no LoD)"},
    {NULL, NULL, 0, NULL}};
