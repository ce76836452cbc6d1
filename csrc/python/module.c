/* paddle._C module init: the dtype objects, the Tensor type, the generated op bindings in the
 * submodule paddle._C._C_ops, and runtime utilities (buffer import, allocator statistics,
 * threads). */
#include "../core/pd_pool.h"
#include <string.h>
#include "pd_py.h"
#include "pd_static_py.h"
#include "../core/pd_alloc.h"
#include "../core/pd_iter.h"
#include "../core/pd_random.h"
#include "../core/pd_prof.h"
#include "../autograd/pd_autograd.h"

PyTypeObject *PdDType_Type = NULL;
PyObject *pd_py_dtypes[PD_NUM_DTYPES];
extern PyMethodDef pd_py_tensor_module_methods[];
extern PyMethodDef pd_py_dlpack_methods[];
extern PyMethodDef pd_py_dlpack_tensor_methods[];
extern PyMethodDef pd_py_autograd_methods[];
extern PyMethodDef pd_py_autograd_tensor_methods[];
extern PyGetSetDef pd_py_autograd_getset[];
extern PyMethodDef pd_py_pylayer_methods[];
extern PyMethodDef pd_py_stream_methods[];
extern PyMethodDef pd_py_amp_methods[];
extern PyMethodDef pd_py_inference_methods[];
extern PyMethodDef pd_py_custom_op_methods[];
extern PyMethodDef pd_py_isa_methods[];
extern PyMethodDef pd_py_cuda_methods[];
extern PyMethodDef pd_py_cuda_tensor_methods[];

/* ---- dtype objects ---- */
static PyObject *dtype_repr(PyObject *self) {
  return PyUnicode_FromFormat("paddle.%s", pd_dtype_name((pd_dtype)((PdDTypeObject *)self)->code));
}
static PyObject *dtype_get_name(PyObject *self, void *c) {
  (void)c;
  return PyUnicode_FromString(pd_dtype_name((pd_dtype)((PdDTypeObject *)self)->code));
}
static PyObject *dtype_get_code(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(((PdDTypeObject *)self)->code);
}
static PyObject *dtype_get_itemsize(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromSize_t(pd_dtype_size((pd_dtype)((PdDTypeObject *)self)->code));
}
static PyObject *dtype_richcompare(PyObject *a, PyObject *b, int op) {
  if (op != Py_EQ && op != Py_NE) Py_RETURN_NOTIMPLEMENTED;
  int ca = ((PdDTypeObject *)a)->code, cb;
  if (PyObject_TypeCheck(b, PdDType_Type)) cb = ((PdDTypeObject *)b)->code;
  else if (PyUnicode_Check(b)) cb = pd_dtype_from_name(PyUnicode_AsUTF8(b));
  else Py_RETURN_NOTIMPLEMENTED;
  int eq = ca == cb;
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}
static Py_hash_t dtype_hash(PyObject *self) { return 0x5044 + ((PdDTypeObject *)self)->code; }
static PyGetSetDef dtype_getset[] = {
    {"name", dtype_get_name, NULL, NULL, NULL},
    {"_code", dtype_get_code, NULL, NULL, NULL},
    {"itemsize", dtype_get_itemsize, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL}};
static PyType_Slot dtype_slots[] = {{Py_tp_repr, dtype_repr},
                                    {Py_tp_str, dtype_repr},
                                    {Py_tp_getset, dtype_getset},
                                    {Py_tp_richcompare, dtype_richcompare},
                                    {Py_tp_hash, dtype_hash},
                                    {0, NULL}};
static PyType_Spec dtype_spec = {"paddle.dtype", sizeof(PdDTypeObject), 0, Py_TPFLAGS_DEFAULT,
                                 dtype_slots};

int pd_py_dtype_type_init(PyObject *m) {
  PdDType_Type = (PyTypeObject *)PyType_FromSpec(&dtype_spec);
  if (!PdDType_Type) return -1;
  PyObject *tuple = PyTuple_New(PD_NUM_DTYPES);
  if (!tuple) return -1;
  for (int i = 0; i < PD_NUM_DTYPES; i++) {
    PdDTypeObject *o = PyObject_New(PdDTypeObject, PdDType_Type);
    if (!o) return -1;
    o->code = i;
    pd_py_dtypes[i] = (PyObject *)o;
    Py_INCREF(o);
    PyTuple_SET_ITEM(tuple, i, (PyObject *)o);
  }
  Py_INCREF(PdDType_Type);
  if (PyModule_AddObject(m, "dtype", (PyObject *)PdDType_Type) < 0) return -1;
  return PyModule_AddObject(m, "dtypes", tuple);
}

/* ---- buffer import ---- */
static int format_dtype(const char *f, Py_ssize_t itemsize) {
  if (!f) return PD_UINT8;
  while (*f == '@' || *f == '=' || *f == '<' || *f == '!') f++;
  if (*f == '>') return -1; /* big-endian: caller must convert */
  if (strcmp(f, "?") == 0) return PD_BOOL;
  if (strcmp(f, "B") == 0) return PD_UINT8;
  if (strcmp(f, "b") == 0) return PD_INT8;
  if (strcmp(f, "h") == 0) return PD_INT16;
  if (strcmp(f, "H") == 0) return PD_BFLOAT16; /* uint16 bits: callers treat as bfloat16 */
  if (strcmp(f, "e") == 0) return PD_FLOAT16;
  if (strcmp(f, "f") == 0) return PD_FLOAT32;
  if (strcmp(f, "d") == 0) return PD_FLOAT64;
  if (strcmp(f, "Zf") == 0) return PD_COMPLEX64;
  if (strcmp(f, "Zd") == 0) return PD_COMPLEX128;
  if (strcmp(f, "i") == 0 || strcmp(f, "l") == 0 || strcmp(f, "q") == 0 || strcmp(f, "I") == 0 ||
      strcmp(f, "L") == 0 || strcmp(f, "Q") == 0) {
    int uns = (*f == 'I' || *f == 'L' || *f == 'Q');
    if (uns) return -1;
    return itemsize == 8 ? PD_INT64 : itemsize == 4 ? PD_INT32 : -1;
  }
  return -1;
}

static void noop_deleter(void *ctx, void *data) {
  (void)ctx;
  (void)data;
}

/* from_buffer(obj) -> Tensor: a copy of any C-contiguous or strided buffer. */
static PyObject *from_buffer(PyObject *m, PyObject *obj) {
  (void)m;
  Py_buffer v;
  if (PyObject_GetBuffer(obj, &v, PyBUF_RECORDS_RO) < 0) return NULL;
  int dt = format_dtype(v.format, v.itemsize);
  if (dt < 0) {
    PyErr_Format(PyExc_TypeError, "unsupported buffer format '%s' (itemsize %zd)",
                 v.format ? v.format : "", v.itemsize);
    PyBuffer_Release(&v);
    return NULL;
  }
  if (v.ndim > PD_MAX_DIMS) {
    PyErr_Format(PyExc_ValueError, "a tensor may have at most %d dimensions, received %d",
                 PD_MAX_DIMS, v.ndim);
    PyBuffer_Release(&v);
    return NULL;
  }
  int64_t shape[PD_MAX_DIMS];
  for (int d = 0; d < v.ndim; d++) shape[d] = v.shape ? v.shape[d] : v.len / v.itemsize;
  pd_tensor *t;
  pd_status s = pd_tensor_empty((pd_dtype)dt, v.ndim, shape, &t);
  if (s != PD_OK) {
    PyBuffer_Release(&v);
    return pd_py_raise(s);
  }
  if (PyBuffer_IsContiguous(&v, 'C')) {
    memcpy(pd_tensor_data(t), v.buf, (size_t)v.len);
  } else {
    /* strided source: wrap it as a borrowed storage view and copy */
    int64_t lo = 0, hi = 0;
    for (int d = 0; d < v.ndim; d++) {
      int64_t ext = (shape[d] - 1) * v.strides[d];
      if (shape[d] == 0) ext = 0;
      if (ext < 0) lo += ext;
      else hi += ext;
    }
    int ok = 1;
    for (int d = 0; d < v.ndim; d++)
      if (v.strides[d] % v.itemsize) ok = 0;
    if (!ok) {
      pd_tensor_release(t);
      PyBuffer_Release(&v);
      PyErr_SetString(PyExc_ValueError, "buffer strides are not multiples of the item size");
      return NULL;
    }
    pd_storage *st;
    s = pd_storage_wrap((char *)v.buf + lo, (size_t)(hi - lo + v.itemsize), noop_deleter, NULL,
                        &st);
    if (s == PD_OK) {
      int64_t strides[PD_MAX_DIMS];
      for (int d = 0; d < v.ndim; d++) strides[d] = v.strides[d] / v.itemsize;
      pd_tensor *src;
      s = pd_tensor_from_storage(st, (pd_dtype)dt, v.ndim, shape, strides, -lo / v.itemsize, &src);
      if (s == PD_OK) {
        s = pd_tensor_copy_(t, src);
        pd_tensor_release(src);
      }
      pd_storage_release(st);
    }
    if (s != PD_OK) {
      pd_tensor_release(t);
      PyBuffer_Release(&v);
      return pd_py_raise(s);
    }
  }
  PyBuffer_Release(&v);
  return pd_py_wrap(t);
}

static PyObject *alloc_stats(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  pd_alloc_stats s;
  pd_alloc_get_stats(&s);
  return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L}", "peak_reserved_bytes",
                       (long long)s.peak_reserved_bytes, "in_use_bytes", (long long)s.in_use_bytes,
                       "cached_bytes", (long long)s.cached_bytes, "peak_in_use_bytes",
                       (long long)s.peak_in_use_bytes, "n_alloc", (long long)s.n_alloc, "n_free",
                       (long long)s.n_free, "n_cache_hit", (long long)s.n_cache_hit, "n_os_alloc",
                       (long long)s.n_os_alloc, "n_live_blocks", (long long)s.n_live_blocks);
}
/* ---- profiler (csrc/core/pd_prof.h) ---- */
static PyObject *prof_now(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  return PyLong_FromLongLong((long long)pd_prof_now_ns());
}
static PyObject *prof_enable(PyObject *m, PyObject *args) {
  (void)m;
  int on, mem = 0;
  if (!PyArg_ParseTuple(args, "p|p", &on, &mem)) return NULL;
  pd_prof_enable(on, mem);
  Py_RETURN_NONE;
}
static PyObject *prof_enabled(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  return PyBool_FromLong(pd_prof_on);
}
static PyObject *prof_clear(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  pd_prof_clear();
  Py_RETURN_NONE;
}
static PyObject *prof_record(PyObject *m, PyObject *args) {
  (void)m;
  int type;
  const char *name, *extra = NULL;
  long long t0, t1;
  if (!PyArg_ParseTuple(args, "isLL|z", &type, &name, &t0, &t1, &extra)) return NULL;
  if (type < 0 || type >= PD_PROF_NUM_TYPES) {
    PyErr_Format(PyExc_ValueError, "profiler event type %d out of range [0, %d)", type, PD_PROF_NUM_TYPES);
    return NULL;
  }
  if (pd_prof_on) pd_prof_record(type, name, (int64_t)t0, (int64_t)t1, extra);
  Py_RETURN_NONE;
}
static int prof_visit_py(void *ctx, int64_t tid, const pd_prof_event *e, const char *name, const char *args) {
  PyObject *t = Py_BuildValue("(LiiLLssLLLL)", (long long)tid, (int)e->type, (int)e->depth, (long long)e->start_ns,
                              (long long)e->end_ns, name, args ? args : "", (long long)e->n_alloc,
                              (long long)e->n_free, (long long)e->alloc_bytes, (long long)e->free_bytes);
  if (!t) return 1;
  int r = PyList_Append((PyObject *)ctx, t);
  Py_DECREF(t);
  return r ? 1 : 0;
}
static PyObject *prof_events(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  PyObject *l = PyList_New(0);
  if (!l) return NULL;
  if (pd_prof_visit(prof_visit_py, l)) {
    Py_DECREF(l);
    return NULL;
  }
  return l;
}
static PyObject *alloc_reset_peak(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  pd_alloc_reset_peak();
  Py_RETURN_NONE;
}
static PyObject *alloc_raise_peaks(PyObject *m, PyObject *args) {
  (void)m;
  long long a, r;
  if (!PyArg_ParseTuple(args, "LL", &a, &r)) return NULL;
  pd_alloc_raise_peaks((int64_t)a, (int64_t)r);
  Py_RETURN_NONE;
}
static PyObject *empty_cache(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  pd_alloc_empty_cache();
  Py_RETURN_NONE;
}
static PyObject *set_threads(PyObject *m, PyObject *n) {
  (void)m;
  long v = PyLong_AsLong(n);
  if (v == -1 && PyErr_Occurred()) return NULL;
  pd_set_num_threads((int)v);
  Py_RETURN_NONE;
}
/* The API level (FLAGS_set_to_1d): set_to_1d(flag) sets it and returns the previous value,
 * set_to_1d() only returns it. */
static PyObject *set_to_1d(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
  (void)m;
  if (nargs > 1) {
    PyErr_SetString(PyExc_TypeError, "set_to_1d expects at most one argument");
    return NULL;
  }
  int old = pd_set_to_1d;
  if (nargs == 1) {
    int v = PyObject_IsTrue(args[0]);
    if (v < 0) return NULL;
    pd_set_to_1d = v;
  }
  return PyBool_FromLong(old);
}
static PyObject *get_threads(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  return PyLong_FromLong(pd_pool_threads());
}
static PyObject *pool_stats(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  long g, w, one;
  int mode;
  pd_pool_stats(&g, &w, &one, &mode);
  return Py_BuildValue("{sl,sl,sl,si}", "guest_calls", g, "windows", w, "single_thread_calls", one,
                       "mode", mode);
}
/* cpu_deterministic([on]) -> the previous value: FLAGS_cpu_deterministic (pd_pool.c) */
static PyObject *cpu_deterministic(PyObject *m, PyObject *args) {
  (void)m;
  int on = -1;
  if (!PyArg_ParseTuple(args, "|p", &on)) return NULL;
  const int old = pd_pool_deterministic();
  if (on >= 0) pd_pool_set_deterministic(on);
  return PyBool_FromLong(old);
}
static PyObject *py_seed(PyObject *m, PyObject *arg) {
  (void)m;
  unsigned long long v = PyLong_AsUnsignedLongLongMask(arg);
  if (PyErr_Occurred()) return NULL;
  pd_random_seed(v);
  Py_RETURN_NONE;
}
/* the engine's state: (seed, bytes) (csrc/core/pd_random.h) */
static PyObject *py_get_rng_state(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  size_t n = pd_random_state_size();
  PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
  if (!b) return NULL;
  pd_random_get_state(PyBytes_AS_STRING(b));
  uint64_t seed;
  memcpy(&seed, PyBytes_AS_STRING(b) + sizeof(uint64_t), sizeof seed);
  PyObject *r = Py_BuildValue("(KO)", (unsigned long long)seed, b);
  Py_DECREF(b);
  return r;
}
static PyObject *py_set_rng_state(PyObject *m, PyObject *args) {
  (void)m;
  unsigned long long seed;
  Py_buffer buf;
  if (!PyArg_ParseTuple(args, "Ky*", &seed, &buf)) return NULL;
  int ok = pd_random_set_state(buf.buf, (size_t)buf.len);
  PyBuffer_Release(&buf);
  if (!ok) {
    PyErr_SetString(PyExc_ValueError, "set_rng_state: expected a state returned by get_rng_state");
    return NULL;
  }
  Py_RETURN_NONE;
}
static PyObject *py_rng_next(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  pd_rng_use u;
  pd_rng_begin(&u, 0);
  uint64_t v = pd_mt64_next(u.e);
  pd_rng_end(&u);
  return PyLong_FromUnsignedLongLong(v);
}

static PyMethodDef module_methods[] = {
    {"from_buffer", from_buffer, METH_O, "copy a buffer-protocol object into a new Tensor"},
    {"alloc_stats", alloc_stats, METH_NOARGS, "caching allocator statistics"},
    {"empty_cache", empty_cache, METH_NOARGS, "return cached blocks to the OS"},
    {"alloc_reset_peak", alloc_reset_peak, METH_NOARGS, "set the allocator's peaks to the current values"},
    {"alloc_raise_peaks", alloc_raise_peaks, METH_VARARGS, "raise the allocator's peaks to at least (in_use, reserved)"},
    {"prof_now", prof_now, METH_NOARGS, "CLOCK_MONOTONIC in nanoseconds (the profiler's clock)"},
    {"prof_enable", prof_enable, METH_VARARGS, "prof_enable(on, mem=False): start/stop recording events"},
    {"prof_enabled", prof_enabled, METH_NOARGS, "whether the profiler records"},
    {"prof_clear", prof_clear, METH_NOARGS, "drop every recorded profiler event"},
    {"prof_record", prof_record, METH_VARARGS, "prof_record(type, name, start_ns, end_ns, args_json=None)"},
    {"prof_events", prof_events, METH_NOARGS,
     "recorded events: (tid, type, depth, start_ns, end_ns, name, args_json, n_alloc, n_free, alloc_bytes, free_bytes)"},
    {"set_num_threads", set_threads, METH_O, "threads of the OpenMP pool"},
    {"set_to_1d", (PyCFunction)(void (*)(void))set_to_1d, METH_FASTCALL,
     "the API level (FLAGS_set_to_1d): set_to_1d([flag]) -> previous flag"},
    {"pool_stats", pool_stats, METH_NOARGS, "the thread governor's counters (pd_pool.c)"},
    {"cpu_deterministic", cpu_deterministic, METH_VARARGS, "FLAGS_cpu_deterministic: get, or set and return the old value"},
    {"get_num_threads", get_threads, METH_NOARGS, "threads of the OpenMP pool"},
    {"seed", py_seed, METH_O, "seed the global generator"},
    {"get_rng_state", py_get_rng_state, METH_NOARGS, "(seed, state bytes) of the global generator"},
    {"rng_next", py_rng_next, METH_NOARGS, "one 64-bit draw of the global generator"},
    {"set_rng_state", py_set_rng_state, METH_VARARGS, "restore (seed, state bytes)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "paddle._C",
                                        "Paddle-C core extension", -1, module_methods,
                                        NULL, NULL, NULL, NULL};
static struct PyModuleDef ops_def = {PyModuleDef_HEAD_INIT, "paddle._C._C_ops",
                                     "generated op bindings (positional arguments)", -1, NULL,
                                     NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__C(void) {
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  if (pd_py_errors_init(m) < 0 || pd_py_dtype_type_init(m) < 0 || pd_py_tensor_type_init(m) < 0) goto fail;
  if (PyModule_AddFunctions(m, pd_py_tensor_module_methods) < 0) goto fail;
  if (PyModule_AddFunctions(m, pd_py_dlpack_methods) < 0) goto fail;
  if (PyModule_AddFunctions(m, pd_py_autograd_methods) < 0) goto fail;
  if (PyModule_AddFunctions(m, pd_py_pylayer_methods) < 0) goto fail;
  if (PyModule_AddFunctions(m, pd_py_stream_methods) < 0) goto fail;
  if (PyModule_AddFunctions(m, pd_py_amp_methods) < 0) goto fail;
  if (PyModule_AddFunctions(m, pd_py_inference_methods) < 0) goto fail;
  if (PyModule_AddFunctions(m, pd_py_custom_op_methods) < 0) goto fail;
  if (PyModule_AddFunctions(m, pd_py_isa_methods) < 0) goto fail;
  if (PyModule_AddFunctions(m, pd_py_cuda_methods) < 0) goto fail;
  PyMethodDef *tables[] = {pd_py_dlpack_tensor_methods, pd_py_autograd_tensor_methods, pd_py_cuda_tensor_methods};
  for (int k = 0; k < 3; k++)
    for (PyMethodDef *d = tables[k]; d->ml_name; d++) {
      PyObject *f = PyDescr_NewMethod(PdTensor_Type, d);
      if (!f || PyObject_SetAttrString((PyObject *)PdTensor_Type, d->ml_name, f) < 0) goto fail;
      Py_DECREF(f);
    }
  for (PyGetSetDef *g = pd_py_autograd_getset; g->name; g++) {
    PyObject *f = PyDescr_NewGetSet(PdTensor_Type, g);
    if (!f || PyObject_SetAttrString((PyObject *)PdTensor_Type, g->name, f) < 0) goto fail;
    Py_DECREF(f);
  }
  if (pd_py_static_desc_init(m) < 0 || pd_py_static_exec_init(m) < 0 || pd_py_static_io_init(m) < 0) goto fail;
  if (pd_py_exec_callback_init(m) < 0) goto fail; /* print / py_func: exec_callback_py.c */
  pd_autograd_init();
  PyObject *ops = PyModule_Create(&ops_def);
  if (!ops) goto fail;
  if (PyModule_AddFunctions(ops, pd_py_op_methods) < 0) goto fail;
  if (PyModule_AddObject(m, "_C_ops", ops) < 0) goto fail;
  return m;
fail:
  Py_DECREF(m);
  return NULL;
}
