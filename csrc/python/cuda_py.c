/* paddle._C's CUDA surface: device queries, memory statistics, streams and events (what
 * python/paddle/device/cuda builds on), the default device of paddle.set_device, and the Tensor
 * methods that move data between places (_device, _to_device, _move_to_device_). Everything goes
 * through csrc/core/pd_device.h; without a GPU the queries answer "none" and moves raise. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "pd_py.h"
#include "../core/pd_device.h"
#include "../ops/pd_op.h"
#include "../ops/gpu_dispatch.h"
#include "../cuda/pd_cuda_nn.h"
#include "../cuda/pd_cuda_dnn.h"

static PyObject *rt_error(void) {
  int code = pd_cuda->rt->last_error_code();
  PyObject *cls = code == PD_CU_ERR_OOM ? PyExc_MemoryError
                  : code == PD_CU_ERR_INVALID ? PyExc_ValueError
                                              : PyExc_RuntimeError;
  PyErr_SetString(cls, pd_cuda->rt->last_error());
  return NULL;
}

static int need(int dev) {
  pd_status s = pd_cuda_load();
  if (s != PD_OK) {
    pd_py_raise(s);
    return 0;
  }
  if (dev < -1 || dev >= pd_cuda_device_count()) {
    PyErr_Format(PyExc_ValueError, "(InvalidArgument) the device id must be in [0, %d), received %d",
                 pd_cuda_device_count(), dev);
    return 0;
  }
  return 1;
}

static int dev_arg(PyObject *args, int *dev) {
  *dev = -1;
  if (!PyArg_ParseTuple(args, "|i", dev)) return 0;
  if (!need(*dev)) return 0;
  if (*dev < 0) *dev = pd_cuda->rt->get_device();
  return 1;
}

static PyObject *cuda_device_count(PyObject *m, PyObject *a) {
  (void)m, (void)a;
  return PyLong_FromLong(pd_cuda_device_count());
}

static PyObject *cuda_unavailable_reason(PyObject *m, PyObject *a) {
  (void)m, (void)a;
  return PyUnicode_FromString(pd_cuda_unavailable_reason());
}

static PyObject *set_default_device(PyObject *m, PyObject *args) {
  (void)m;
  int dev;
  if (!PyArg_ParseTuple(args, "i", &dev)) return NULL;
  if (dev >= 0) {
    if (!need(dev)) return NULL;
    pd_status st = pd_device_activate(dev);
    if (st != PD_OK) return pd_py_raise(st);
  }
  pd_device_set_default(dev);
  Py_RETURN_NONE;
}

static PyObject *get_default_device(PyObject *m, PyObject *a) {
  (void)m, (void)a;
  return PyLong_FromLong(pd_device_get_default());
}

static PyObject *cuda_props(PyObject *m, PyObject *args) {
  (void)m;
  int dev;
  if (!dev_arg(args, &dev)) return NULL;
  pd_cuda_props p;
  if (pd_cuda->rt->get_props(dev, &p) != 0) return rt_error();
  int drv = 0, rtv = 0;
  if (pd_cuda->rt->versions) pd_cuda->rt->versions(&drv, &rtv);
  return Py_BuildValue("{s:s,s:i,s:i,s:i,s:K,s:i,s:i,s:K,s:i,s:i,s:i}", "name", p.name, "major", p.major,
                       "minor", p.minor, "multi_processor_count", p.multi_processor_count, "total_memory",
                       (unsigned long long)p.total_memory, "l2_cache_size", p.l2_cache_size,
                       "max_threads_per_multi_processor", p.max_threads_per_multi_processor,
                       "shared_mem_per_block_optin", (unsigned long long)p.shared_mem_per_block_optin,
                       "warp_size", p.warp_size, "driver_version", drv, "runtime_version", rtv);
}

static PyObject *cuda_mem_stats(PyObject *m, PyObject *args) {
  (void)m;
  int dev;
  if (!dev_arg(args, &dev)) return NULL;
  pd_cuda_mem_stats st;
  if (pd_cuda->rt->mem_stats(dev, &st) != 0) return rt_error();
  return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K}", "allocated", (unsigned long long)st.allocated, "reserved",
                       (unsigned long long)st.reserved, "max_allocated", (unsigned long long)st.max_allocated,
                       "max_reserved", (unsigned long long)st.max_reserved, "device_allocs",
                       (unsigned long long)st.n_device_allocs);
}

static PyObject *cuda_reset_peak(PyObject *m, PyObject *args) {
  (void)m;
  int dev;
  if (!dev_arg(args, &dev)) return NULL;
  pd_cuda->rt->reset_peak(dev);
  Py_RETURN_NONE;
}

static PyObject *cuda_empty_cache(PyObject *m, PyObject *a) {
  (void)m, (void)a;
  if (!pd_cuda) Py_RETURN_NONE; /* nothing was ever allocated */
  if (pd_cuda->rt->empty_cache() != 0) return rt_error();
  Py_RETURN_NONE;
}

static PyObject *cuda_synchronize(PyObject *m, PyObject *args) {
  (void)m;
  int dev;
  if (!dev_arg(args, &dev)) return NULL;
  int r;
  Py_BEGIN_ALLOW_THREADS
  r = pd_device_activate(dev) == PD_OK ? pd_cuda->rt->device_sync() : -1;
  Py_END_ALLOW_THREADS
  if (r != 0) return rt_error();
  Py_RETURN_NONE;
}

/* ---- streams and events: handles are ints (the cudaStream_t / cudaEvent_t) ---- */
static void *ptr_arg(PyObject *o) { return o == Py_None ? NULL : PyLong_AsVoidPtr(o); }

static PyObject *stream_create(PyObject *m, PyObject *args) {
  (void)m;
  int dev, prio = 0;
  if (!PyArg_ParseTuple(args, "ii", &dev, &prio) || !need(dev)) return NULL;
  void *s = pd_cuda->rt->stream_create(dev, prio);
  if (!s) return rt_error();
  return PyLong_FromVoidPtr(s);
}

#define HANDLE_FN(pyname, call)                                   \
  static PyObject *pyname(PyObject *m, PyObject *o) {             \
    (void)m;                                                      \
    if (!need(-1)) return NULL;                                   \
    void *h = ptr_arg(o);                                         \
    if (PyErr_Occurred()) return NULL;                            \
    int r;                                                        \
    Py_BEGIN_ALLOW_THREADS r = call(h);                           \
    Py_END_ALLOW_THREADS if (r < 0) return rt_error();            \
    return PyLong_FromLong(r);                                    \
  }
HANDLE_FN(stream_destroy, pd_cuda->rt->stream_destroy)
HANDLE_FN(stream_sync, pd_cuda->rt->stream_sync)
HANDLE_FN(stream_query, pd_cuda->rt->stream_query)
HANDLE_FN(event_destroy, pd_cuda->rt->event_destroy)
HANDLE_FN(event_sync, pd_cuda->rt->event_sync)
HANDLE_FN(event_query, pd_cuda->rt->event_query)

static PyObject *current_stream(PyObject *m, PyObject *args) {
  (void)m;
  int dev;
  if (!dev_arg(args, &dev)) return NULL;
  return PyLong_FromVoidPtr(pd_cuda->rt->current_stream(dev));
}

static PyObject *set_current_stream(PyObject *m, PyObject *args) {
  (void)m;
  int dev;
  PyObject *h;
  if (!PyArg_ParseTuple(args, "iO", &dev, &h) || !need(dev)) return NULL;
  void *s = ptr_arg(h);
  if (PyErr_Occurred()) return NULL;
  if (pd_cuda->rt->set_current_stream(dev, s) != 0) return rt_error();
  Py_RETURN_NONE;
}

static PyObject *stream_wait_event(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *a, *b;
  if (!PyArg_ParseTuple(args, "OO", &a, &b) || !need(-1)) return NULL;
  void *s = ptr_arg(a), *e = ptr_arg(b);
  if (PyErr_Occurred()) return NULL;
  if (pd_cuda->rt->stream_wait_event(s, e) != 0) return rt_error();
  Py_RETURN_NONE;
}

static PyObject *event_create(PyObject *m, PyObject *args) {
  (void)m;
  int timing, blocking, ipc;
  if (!PyArg_ParseTuple(args, "ppp", &timing, &blocking, &ipc) || !need(-1)) return NULL;
  void *e = pd_cuda->rt->event_create(timing, blocking, ipc);
  if (!e) return rt_error();
  return PyLong_FromVoidPtr(e);
}

static PyObject *event_record(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *a, *b;
  if (!PyArg_ParseTuple(args, "OO", &a, &b) || !need(-1)) return NULL;
  void *e = ptr_arg(a), *s = ptr_arg(b);
  if (PyErr_Occurred()) return NULL;
  if (pd_cuda->rt->event_record(e, s) != 0) return rt_error();
  Py_RETURN_NONE;
}

static PyObject *event_elapsed(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *a, *b;
  if (!PyArg_ParseTuple(args, "OO", &a, &b) || !need(-1)) return NULL;
  void *e0 = ptr_arg(a), *e1 = ptr_arg(b);
  if (PyErr_Occurred()) return NULL;
  float ms = 0;
  if (pd_cuda->rt->event_elapsed_ms(e0, e1, &ms) != 0) return rt_error();
  return PyFloat_FromDouble(ms);
}

static PyObject *gpu_kernels(PyObject *m, PyObject *a) {
  /* {op name: [dtype names with a GPU kernel]} (loads the backend; {} without a GPU) */
  (void)m, (void)a;
  PyObject *d = PyDict_New();
  if (!d || pd_cuda_device_count() == 0) return d;
  for (int op = 0; op < pd_num_ops; op++) {
    PyObject *l = NULL;
    for (int t = 0; t < PD_NUM_DTYPES; t++) {
      if (!pd_gpu_kernel(op, (pd_dtype)t)) continue;
      if (!l && !(l = PyList_New(0))) goto fail;
      PyObject *n = PyUnicode_FromString(pd_dtype_name((pd_dtype)t));
      if (!n || PyList_Append(l, n) < 0) {
        Py_XDECREF(n);
        Py_DECREF(l);
        goto fail;
      }
      Py_DECREF(n);
    }
    if (l) {
      int r = PyDict_SetItemString(d, pd_op_defs[op].name, l);
      Py_DECREF(l);
      if (r < 0) goto fail;
    }
  }
  return d;
fail:
  Py_DECREF(d);
  return NULL;
}

static PyObject *set_gpu_fallback(PyObject *m, PyObject *o) {
  (void)m;
  int on = PyObject_IsTrue(o);
  if (on < 0) return NULL;
  int old = pd_gpu_fallback_enabled;
  pd_gpu_fallback_enabled = on;
  return PyBool_FromLong(old);
}

static PyObject *gpu_fallback_counts(PyObject *m, PyObject *a) {
  (void)m, (void)a;
  PyObject *d = PyDict_New();
  for (int op = 0; d && op < pd_num_ops; op++) {
    long c = pd_gpu_fallback_count(op);
    if (!c) continue;
    PyObject *v = PyLong_FromLong(c);
    if (!v || PyDict_SetItemString(d, pd_op_defs[op].name, v) < 0) {
      Py_XDECREF(v);
      Py_DECREF(d);
      return NULL;
    }
    Py_DECREF(v);
  }
  return d;
}

static int allow_tf32 = 1;
static PyObject *set_allow_tf32(PyObject *m, PyObject *o) {
  /* FLAGS_allow_tf32_cublas: kept here, applied now if the backend is loaded and at its load */
  (void)m;
  int on = PyObject_IsTrue(o);
  if (on < 0) return NULL;
  allow_tf32 = on;
  (void)pd_cuda_device_count(); /* loads the backend (if any) so the setting reaches it now */
  if (pd_cuda && pd_cuda->nn && pd_cuda->nn->set_allow_tf32) pd_cuda->nn->set_allow_tf32(on);
  if (pd_cuda && pd_cuda->dnn && pd_cuda->dnn->set_allow_tf32) pd_cuda->dnn->set_allow_tf32(on); /* convs too */
  Py_RETURN_NONE;
}

PyMethodDef pd_py_cuda_methods[] = {
    {"cuda_set_allow_tf32", set_allow_tf32, METH_O, "float32 GEMMs may use TF32 (FLAGS_allow_tf32_cublas)"},
    {"set_gpu_fallback", set_gpu_fallback, METH_O, "ops without a GPU kernel run on the CPU (True) or raise; returns the old value"},
    {"gpu_fallback_counts", gpu_fallback_counts, METH_NOARGS, "{op: times it ran through the host fallback}"},
    {"gpu_kernels", gpu_kernels, METH_NOARGS, "{op: [dtypes]} of the registered GPU kernels"},
    {"cuda_device_count", cuda_device_count, METH_NOARGS, "number of GPUs the CUDA backend sees (0: none)"},
    {"cuda_unavailable_reason", cuda_unavailable_reason, METH_NOARGS, "why there is no GPU ('' when there is)"},
    {"set_default_device", set_default_device, METH_VARARGS, "paddle.set_device's device: -1 CPU, n gpu:n"},
    {"get_default_device", get_default_device, METH_NOARGS, "-1 CPU, n gpu:n"},
    {"cuda_props", cuda_props, METH_VARARGS, "properties of a GPU"},
    {"cuda_mem_stats", cuda_mem_stats, METH_VARARGS, "the caching allocator's statistics"},
    {"cuda_reset_peak", cuda_reset_peak, METH_VARARGS, "reset the peak statistics"},
    {"cuda_empty_cache", cuda_empty_cache, METH_NOARGS, "give cached free GPU memory back to the driver"},
    {"cuda_synchronize", cuda_synchronize, METH_VARARGS, "wait for every stream of a device"},
    {"cuda_stream_create", stream_create, METH_VARARGS, "(device, priority) -> stream handle"},
    {"cuda_stream_destroy", stream_destroy, METH_O, NULL},
    {"cuda_stream_sync", stream_sync, METH_O, NULL},
    {"cuda_stream_query", stream_query, METH_O, "1 finished, 0 pending"},
    {"cuda_current_stream", current_stream, METH_VARARGS, "(device) -> this thread's current stream handle"},
    {"cuda_set_current_stream", set_current_stream, METH_VARARGS, "(device, handle)"},
    {"cuda_stream_wait_event", stream_wait_event, METH_VARARGS, "(stream, event)"},
    {"cuda_event_create", event_create, METH_VARARGS, "(enable_timing, blocking, interprocess) -> handle"},
    {"cuda_event_destroy", event_destroy, METH_O, NULL},
    {"cuda_event_record", event_record, METH_VARARGS, "(event, stream)"},
    {"cuda_event_sync", event_sync, METH_O, NULL},
    {"cuda_event_query", event_query, METH_O, "1 finished, 0 pending"},
    {"cuda_event_elapsed", event_elapsed, METH_VARARGS, "(start, end) -> milliseconds"},
    {NULL, NULL, 0, NULL}};

/* ---- Tensor methods ---- */
static PyObject *t_device(PyObject *self, PyObject *a) {
  (void)a;
  return PyLong_FromLong(pd_tensor_device(PdTensor_T(self)));
}

static PyObject *t_to_device(PyObject *self, PyObject *args) {
  /* _to_device(dev): a copy on dev (-1 CPU), not recorded by autograd; keeps stop_gradient */
  int dev;
  if (!PyArg_ParseTuple(args, "i", &dev)) return NULL;
  pd_tensor *t = PdTensor_T(self), *o = NULL;
  if (!t->storage) {
    PyErr_SetString(PyExc_ValueError, "the tensor holds no data (a static Variable) and cannot be moved");
    return NULL;
  }
  pd_status s;
  Py_BEGIN_ALLOW_THREADS
  s = pd_tensor_to_device(t, dev, 1, &o);
  Py_END_ALLOW_THREADS
  if (s != PD_OK) return pd_py_raise(s);
  return pd_py_wrap(o);
}

static PyObject *t_move_to_device_(PyObject *self, PyObject *args) {
  /* _move_to_device_(dev): self's data moves to dev in place (Layer.to / parameters): the
   * Python object, its name and its attributes stay; its storage is replaced by a copy on dev */
  int dev;
  if (!PyArg_ParseTuple(args, "i", &dev)) return NULL;
  PdTensorObject *obj = (PdTensorObject *)self;
  pd_tensor *t = obj->t, *o = NULL;
  if (!t->storage || pd_tensor_device(t) == dev) {
    Py_INCREF(self);
    return self;
  }
  pd_status s;
  Py_BEGIN_ALLOW_THREADS
  s = pd_tensor_to_device(t, dev, 1, &o);
  Py_END_ALLOW_THREADS
  if (s != PD_OK) return pd_py_raise(s);
  o->stop_gradient = t->stop_gradient;
  if (t->pyobj == self) t->pyobj = NULL;
  pd_tensor_release(t);
  obj->t = o;
  o->pyobj = self;
  Py_INCREF(self);
  return self;
}

PyMethodDef pd_py_cuda_tensor_methods[] = {
    {"_device", t_device, METH_NOARGS, "-1 on the CPU, n on gpu:n"},
    {"_to_device", t_to_device, METH_VARARGS, "a copy on device n (-1: CPU)"},
    {"_move_to_device_", t_move_to_device_, METH_VARARGS, "move self's data to device n in place"},
    {NULL, NULL, 0, NULL}};
