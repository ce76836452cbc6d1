/* The paddle.Tensor heap type: lifetime (one Python object per C tensor via the back-pointer),
 * C-level attributes (shape, dtype, ndim, stop_gradient ...), the buffer protocol, and fast
 * paths for the arithmetic operators on two tensors of one dtype. Everything else (scalars,
 * promotion, indexing, printing) is patched on from python/paddle/tensor/. */
#include "../graph/pd_program.h"
#include <string.h>
#include "pd_py.h"
#include "../core/pd_device.h"
#include <structmember.h>
#include "../ops/generated/pd_ops_gen.h"
#include "../autograd/pd_autograd.h"

PyTypeObject *PdTensor_Type = NULL;
static PyObject *g_binary_fallback = NULL; /* python callable(opname, a, b) */

PyObject *pd_py_wrap(pd_tensor *t) {
  if (!t) return NULL;
  if (t->pyobj) {
    PyObject *o = (PyObject *)t->pyobj;
    Py_INCREF(o);
    pd_tensor_release(t);
    return o;
  }
  /* program variables (static mode) are paddle.static.Variable objects */
  PyTypeObject *tp = t->var && pd_py_variable_type ? (PyTypeObject *)pd_py_variable_type : PdTensor_Type;
  PdTensorObject *o = (PdTensorObject *)tp->tp_alloc(tp, 0);
  if (!o) {
    pd_tensor_release(t);
    return NULL;
  }
  o->t = t;
  t->pyobj = o;
  return (PyObject *)o;
}

static void tensor_dealloc(PyObject *self) {
  PdTensorObject *o = (PdTensorObject *)self;
  PyTypeObject *tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  if (o->weakreflist) PyObject_ClearWeakRefs(self);
  Py_CLEAR(o->dict);
  if (o->t) {
    if (o->t->pyobj == self) o->t->pyobj = NULL;
    pd_tensor_release(o->t);
    o->t = NULL;
  }
  tp->tp_free(self);
  Py_DECREF(tp);
}

static int tensor_traverse(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(((PdTensorObject *)self)->dict);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

static int tensor_clear(PyObject *self) {
  Py_CLEAR(((PdTensorObject *)self)->dict);
  return 0;
}

static PyObject *tensor_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  (void)type;
  (void)args;
  (void)kw;
  PyErr_SetString(PyExc_TypeError,
                  "paddle.Tensor cannot be constructed directly; use paddle.to_tensor(data)");
  return NULL;
}

/* ---- getset ---- */
static PyObject *get_shape(PyObject *self, void *c) {
  (void)c;
  pd_tensor *t = PdTensor_T(self);
  PyObject *l = PyList_New(t->ndim);
  if (!l) return NULL;
  for (int i = 0; i < t->ndim; i++) PyList_SET_ITEM(l, i, PyLong_FromLongLong(t->shape[i]));
  return l;
}
static PyObject *get_dtype(PyObject *self, void *c) {
  (void)c;
  PyObject *d = pd_py_dtypes[PdTensor_T(self)->dtype];
  Py_INCREF(d);
  return d;
}
static PyObject *get_ndim(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(PdTensor_T(self)->ndim);
}
static PyObject *get_size(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLongLong(PdTensor_T(self)->numel);
}
static PyObject *get_stop_gradient(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(PdTensor_T(self)->stop_gradient);
}
static int set_stop_gradient(PyObject *self, PyObject *v, void *c) {
  (void)c;
  if (!v) {
    PyErr_SetString(PyExc_AttributeError, "cannot delete stop_gradient");
    return -1;
  }
  int r = PyObject_IsTrue(v);
  if (r < 0) return -1;
  PdTensor_T(self)->stop_gradient = r;
  if (PdTensor_T(self)->var) PdTensor_T(self)->var->stop_gradient = r; /* a program variable */
  return 0;
}
static PyObject *get_strides(PyObject *self, void *c) {
  (void)c;
  pd_tensor *t = PdTensor_T(self);
  PyObject *l = PyList_New(t->ndim);
  if (!l) return NULL;
  for (int i = 0; i < t->ndim; i++) PyList_SET_ITEM(l, i, PyLong_FromLongLong(t->strides[i]));
  return l;
}
static PyObject *get_offset(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLongLong(PdTensor_T(self)->offset);
}
static PyObject *get_data_ptr(PyObject *self, void *c) {
  (void)c;
  pd_tensor *t = PdTensor_T(self);
  return PyLong_FromVoidPtr(t->storage ? pd_tensor_data(t) : NULL);
}
static PyObject *get_storage_ptr(PyObject *self, void *c) {
  (void)c;
  pd_tensor *t = PdTensor_T(self);
  return PyLong_FromVoidPtr(t->storage ? t->storage->data : NULL);
}
static PyObject *get_version(PyObject *self, void *c) {
  (void)c;
  pd_tensor *t = PdTensor_T(self);
  return PyLong_FromUnsignedLongLong(t->storage ? t->storage->version : 0);
}
static PyObject *get_contig(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(pd_tensor_is_contiguous(PdTensor_T(self)));
}

static PyGetSetDef tensor_getset[] = {
    {"shape", get_shape, NULL, "the shape as a list of ints", NULL},
    {"dtype", get_dtype, NULL, "the data type", NULL},
    {"ndim", get_ndim, NULL, "number of dimensions", NULL},
    {"size", get_size, NULL, "number of elements", NULL},
    {"stop_gradient", get_stop_gradient, set_stop_gradient, "no gradient flows when True", NULL},
    {"_strides", get_strides, NULL, "strides in elements", NULL},
    {"_offset", get_offset, NULL, "offset into the storage in elements", NULL},
    {"_data_ptr", get_data_ptr, NULL, "address of the first element", NULL},
    {"_storage_ptr", get_storage_ptr, NULL, "address of the storage", NULL},
    {"_inplace_version", get_version, NULL, "the storage's in-place version counter", NULL},
    {"_is_contiguous", get_contig, NULL, "row-major contiguous", NULL},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* ---- methods ---- */
static PyObject *m_numel(PyObject *self, PyObject *unused) {
  (void)unused;
  return PyLong_FromLongLong(PdTensor_T(self)->numel);
}

static PyObject *m_item_at(PyObject *self, PyObject *arg) {
  /* _item_at(flat_index) -> Python scalar of the element in row-major order */
  pd_tensor *t = PdTensor_T(self);
  if (!t->storage) {
    PyErr_SetString(PyExc_TypeError, "the tensor holds no data (a static Variable has no value while the program is built)");
    return NULL;
  }
  long long idx = PyLong_AsLongLong(arg);
  if (idx == -1 && PyErr_Occurred()) return NULL;
  if (idx < 0 || idx >= t->numel) {
    PyErr_Format(PyExc_IndexError, "index %lld is out of range for a tensor of %lld elements", idx,
                 (long long)t->numel);
    return NULL;
  }
  int64_t off = t->offset, rem = idx;
  for (int d = t->ndim - 1; d >= 0; d--) {
    off += (rem % t->shape[d]) * t->strides[d];
    rem /= t->shape[d];
  }
  unsigned char host[16];
  const void *pv;
  pd_status st = pd_elem_host(t, off, host, &pv); /* a GPU element is copied back */
  if (st != PD_OK) return pd_py_raise(st);
  const char *p = (const char *)pv;
  double re, im;
  switch (t->dtype) {
    case PD_BOOL: return PyBool_FromLong(*(const uint8_t *)p != 0);
    case PD_UINT8: case PD_INT8: case PD_INT16: case PD_INT32: case PD_INT64:
      return PyLong_FromLongLong(pd_load_as_int64(p, t->dtype));
    case PD_COMPLEX64: case PD_COMPLEX128:
      pd_load_as_complex(p, t->dtype, &re, &im);
      return PyComplex_FromDoubles(re, im);
    default:
      return PyFloat_FromDouble(pd_load_as_double(p, t->dtype));
  }
}

static PyObject *m_copy_(PyObject *self, PyObject *arg) {
  /* _copy_(src): writes src (broadcast, cast) into self in place */
  if (!PdTensor_Check(arg)) {
    PyErr_SetString(PyExc_TypeError, "_copy_ expects a Tensor");
    return NULL;
  }
  pd_tensor *dst = PdTensor_T(self), *src = PdTensor_T(arg);
  if (!dst->storage || !src->storage) {
    PyErr_SetString(PyExc_TypeError, "_copy_: both tensors need data (static Variables are assigned with paddle.assign)");
    return NULL;
  }
  int bn;
  int64_t bshape[PD_MAX_DIMS];
  pd_status s = pd_broadcast_shapes("copy_", dst->ndim, dst->shape, src->ndim, src->shape, &bn, bshape);
  if (s == PD_OK && bn != dst->ndim)
    s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[copy_] the source has more dimensions than the destination");
  for (int d = 0; s == PD_OK && d < bn; d++)
    if (bshape[d] != dst->shape[d])
      s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[copy_] the source cannot be broadcast to the "
                       "destination's shape (dimension %d: %lld vs %lld)", d,
                       (long long)bshape[d], (long long)dst->shape[d]);
  if (s != PD_OK) return pd_py_raise(s);
  s = pd_autograd_record_copy(dst, src);
  if (s != PD_OK) return pd_py_raise(s);
  Py_BEGIN_ALLOW_THREADS
  s = pd_tensor_copy_(dst, PdTensor_T(arg));
  Py_END_ALLOW_THREADS
  if (s != PD_OK) return pd_py_raise(s);
  pd_tensor_bump_version(dst);
  Py_INCREF(self);
  return self;
}

/* a new object of type tp owning the view v (the reference passes to it) */
static PyObject *wrap_view(PyTypeObject *tp, pd_tensor *v) {
  PdTensorObject *o = (PdTensorObject *)tp->tp_alloc(tp, 0);
  if (!o) {
    pd_tensor_release(v);
    return NULL;
  }
  o->t = v;
  v->pyobj = o;
  return (PyObject *)o;
}

static PyObject *m_share_as(PyObject *self, PyObject *args) {
  /* _share_as(cls): a new object of subclass cls over a view of the same storage */
  PyObject *cls;
  if (!PyArg_ParseTuple(args, "O", &cls)) return NULL;
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, PdTensor_Type)) {
    PyErr_SetString(PyExc_TypeError, "_share_as expects a subclass of paddle.Tensor");
    return NULL;
  }
  pd_tensor *t = PdTensor_T(self), *v;
  pd_status s = pd_tensor_view(t, t->ndim, t->shape, t->strides, t->offset, &v);
  if (s != PD_OK) return pd_py_raise(s);
  v->stop_gradient = t->stop_gradient;
  return wrap_view((PyTypeObject *)cls, v);
}

static PyObject *m_strided_view(PyObject *self, PyObject *args) {
  /* _strided_view(shape, strides, offset): a Tensor over self's storage with that geometry
   * (strides and offset in elements, offset from self's first element); pd_tensor_view checks
   * that every element it can reach lies inside the storage (paddle.as_strided) */
  PyObject *shp, *str;
  long long off;
  if (!PyArg_ParseTuple(args, "OOL", &shp, &str, &off)) return NULL;
  int64_t sh[PD_MAX_DIMS], st[PD_MAX_DIMS];
  PyObject *seqs[2] = {shp, str};
  int64_t *dst[2] = {sh, st};
  Py_ssize_t n = -1;
  for (int k = 0; k < 2; k++) {
    PyObject *f = PySequence_Fast(seqs[k], "_strided_view expects sequences of ints");
    if (!f) return NULL;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(f);
    if (m > PD_MAX_DIMS || (n >= 0 && m != n)) {
      Py_DECREF(f);
      PyErr_Format(PyExc_ValueError, "(InvalidArgument) [as_strided] shape and stride must have the same length "
                   "(at most %d), received %zd and %zd", PD_MAX_DIMS, n < 0 ? m : n, m);
      return NULL;
    }
    n = m;
    for (Py_ssize_t i = 0; i < m; i++) {
      long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(f, i));
      if (v == -1 && PyErr_Occurred()) {
        Py_DECREF(f);
        return NULL;
      }
      if (v < 0) {
        Py_DECREF(f);
        PyErr_Format(PyExc_ValueError, "(InvalidArgument) [as_strided] %s must be non-negative, received %lld",
                     k ? "stride" : "shape", v);
        return NULL;
      }
      dst[k][i] = (int64_t)v;
    }
    Py_DECREF(f);
  }
  int64_t numel = 1, ext = (int64_t)off, e;
  for (Py_ssize_t i = 0; i < n; i++)
    if (__builtin_mul_overflow(numel, sh[i], &numel) ||
        (sh[i] > 0 && (__builtin_mul_overflow(sh[i] - 1, st[i], &e) || __builtin_add_overflow(ext, e, &ext)))) {
      PyErr_SetString(PyExc_ValueError, "(InvalidArgument) [as_strided] the shape and stride reach past int64");
      return NULL;
    }
  pd_tensor *t = PdTensor_T(self), *v;
  if (off < 0) {
    PyErr_Format(PyExc_ValueError, "(InvalidArgument) [as_strided] offset must be non-negative, received %lld", off);
    return NULL;
  }
  pd_status s = pd_tensor_view(t, (int)n, sh, st, t->offset + (int64_t)off, &v);
  if (s != PD_OK) return pd_py_raise(s);
  v->stop_gradient = t->stop_gradient;
  return wrap_view(Py_TYPE(self), v);
}

static PyObject *m_set_view_of(PyObject *self, PyObject *arg) {
  /* _set_view_of(src): self becomes a view with src's geometry over src's storage (used by
   * in-place shape ops such as reshape_); returns self */
  if (!PdTensor_Check(arg)) {
    PyErr_SetString(PyExc_TypeError, "_set_view_of expects a Tensor");
    return NULL;
  }
  pd_tensor *src = PdTensor_T(arg), *v;
  pd_status s = pd_tensor_view(src, src->ndim, src->shape, src->strides, src->offset, &v);
  if (s != PD_OK) return pd_py_raise(s);
  PdTensorObject *o = (PdTensorObject *)self;
  v->stop_gradient = o->t->stop_gradient;
  if (o->t->pyobj == self) o->t->pyobj = NULL;
  pd_tensor_release(o->t);
  o->t = v;
  v->pyobj = self;
  Py_INCREF(self);
  return self;
}

static PyMethodDef tensor_methods[] = {
    {"_set_view_of", m_set_view_of, METH_O, "make self a view with src's geometry (in-place reshape)"},
    {"numel", m_numel, METH_NOARGS, "number of elements (an int here; Paddle returns a Tensor)"},
    {"_item_at", m_item_at, METH_O, "element at a row-major flat index as a Python scalar"},
    {"_copy_", m_copy_, METH_O, "copy src into self in place (broadcast, cast)"},
    {"_share_as", m_share_as, METH_VARARGS, "view of the same storage as an object of a subclass"},
    {"_strided_view", m_strided_view, METH_VARARGS, "a view of the same storage with another geometry (as_strided)"},
    {NULL, NULL, 0, NULL}};

/* ---- buffer protocol ---- */
static const char *buffer_format(pd_dtype t) {
  switch (t) {
    case PD_BOOL: return "?";
    case PD_UINT8: return "B";
    case PD_INT8: return "b";
    case PD_INT16: return "h";
    case PD_INT32: return "i";
    case PD_INT64: return "q";
    case PD_FLOAT16: return "e";
    case PD_BFLOAT16: return "H"; /* raw bits, as Paddle's numpy() gives uint16 */
    case PD_FLOAT32: return "f";
    case PD_FLOAT64: return "d";
    case PD_COMPLEX64: return "Zf";
    case PD_COMPLEX128: return "Zd";
    default: return "B";
  }
}

static int tensor_getbuffer(PyObject *self, Py_buffer *view, int flags) {
  pd_tensor *t = PdTensor_T(self);
  if (!t->storage) {
    PyErr_SetString(PyExc_BufferError, "tensor holds no data");
    return -1;
  }
  if (pd_tensor_on_gpu(t)) {
    /* numpy() / np.asarray of a GPU tensor: the buffer of a host copy (which the view owns);
     * writes into it do not reach the GPU, as with Paddle's numpy() of a GPU tensor */
    pd_tensor *h = NULL;
    pd_status s = pd_tensor_to_device(t, PD_CPU, 1, &h);
    if (s != PD_OK) {
      pd_py_raise(s);
      return -1;
    }
    PyObject *ho = pd_py_wrap(h);
    if (!ho) return -1;
    int r = PyObject_GetBuffer(ho, view, flags);
    Py_DECREF(ho);
    return r;
  }
  int contig = pd_tensor_is_contiguous(t);
  if (!contig && (flags & PyBUF_STRIDES) != PyBUF_STRIDES) {
    PyErr_SetString(PyExc_BufferError, "tensor is not contiguous");
    return -1;
  }
  Py_ssize_t *arr = (Py_ssize_t *)PyMem_Malloc(sizeof(Py_ssize_t) * 2 * (size_t)(t->ndim + 1));
  if (!arr) {
    PyErr_NoMemory();
    return -1;
  }
  Py_ssize_t isz = (Py_ssize_t)pd_dtype_size(t->dtype);
  for (int d = 0; d < t->ndim; d++) {
    arr[d] = (Py_ssize_t)t->shape[d];
    arr[t->ndim + d] = (Py_ssize_t)(t->strides[d] * isz);
  }
  view->buf = pd_tensor_data(t);
  view->obj = self;
  Py_INCREF(self);
  view->len = (Py_ssize_t)t->numel * isz;
  view->readonly = 0;
  view->itemsize = isz;
  view->format = (flags & PyBUF_FORMAT) ? (char *)buffer_format(t->dtype) : NULL;
  view->ndim = t->ndim;
  view->shape = (flags & PyBUF_ND) == PyBUF_ND ? arr : NULL;
  view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? arr + t->ndim : NULL;
  view->suboffsets = NULL;
  view->internal = arr;
  return 0;
}

static void tensor_releasebuffer(PyObject *self, Py_buffer *view) {
  (void)self;
  PyMem_Free(view->internal);
}

/* ---- number protocol: fast path for two tensors of one dtype, else python fallback ---- */
typedef struct { pd_tensor *x, *y; } binary_args;

static PyObject *binary(PyObject *a, PyObject *b, int op, const char *name) {
  if (PdTensor_Check(a) && PdTensor_Check(b) && PdTensor_T(a)->dtype == PdTensor_T(b)->dtype &&
      op >= 0) {
    binary_args args = {PdTensor_T(a), PdTensor_T(b)};
    return pd_py_run_op(op, &args);
  }
  if (!g_binary_fallback) Py_RETURN_NOTIMPLEMENTED;
  return PyObject_CallFunction(g_binary_fallback, "sOO", name, a, b);
}

#define BIN(fn, opid, name) \
  static PyObject *fn(PyObject *a, PyObject *b) { return binary(a, b, opid, name); }
BIN(nb_add, PD_OP_ADD, "add")
BIN(nb_sub, PD_OP_SUBTRACT, "subtract")
BIN(nb_mul, PD_OP_MULTIPLY, "multiply")
BIN(nb_div, PD_OP_DIVIDE, "divide")
BIN(nb_floordiv, -1, "floor_divide")
BIN(nb_mod, -1, "remainder")
BIN(nb_matmul, -1, "matmul")
BIN(nb_and, -1, "bitwise_and")
BIN(nb_or, -1, "bitwise_or")
BIN(nb_xor, -1, "bitwise_xor")
BIN(nb_lshift, -1, "lshift")
BIN(nb_rshift, -1, "rshift")

static PyObject *nb_pow(PyObject *a, PyObject *b, PyObject *m) {
  if (m != Py_None) {
    PyErr_SetString(PyExc_TypeError, "pow() with a modulus is not supported for Tensor");
    return NULL;
  }
  return binary(a, b, -1, "pow");
}

static PyObject *unary_fallback(PyObject *a, const char *name) {
  if (!g_binary_fallback) Py_RETURN_NOTIMPLEMENTED;
  return PyObject_CallFunction(g_binary_fallback, "sOO", name, a, Py_None);
}
static PyObject *nb_neg(PyObject *a) { return unary_fallback(a, "neg"); }
static PyObject *nb_pos(PyObject *a) { return unary_fallback(a, "pos"); }
static PyObject *nb_abs(PyObject *a) { return unary_fallback(a, "abs"); }
static PyObject *nb_invert(PyObject *a) { return unary_fallback(a, "invert"); }
static PyObject *nb_int(PyObject *a) { return unary_fallback(a, "int"); }
static PyObject *nb_float(PyObject *a) { return unary_fallback(a, "float"); }
static PyObject *nb_index(PyObject *a) { return unary_fallback(a, "index"); }
static int nb_bool(PyObject *a) {
  pd_tensor *t = PdTensor_T(a);
  if (!t->storage) {
    PyErr_SetString(PyExc_TypeError, "the truth value of a tensor without data (a static Variable) is not "
                    "known while the program is built; use paddle.static.nn.cond for data-dependent branches");
    return -1;
  }
  if (t->numel != 1) {
    PyErr_Format(PyExc_ValueError,
                 "The truth value of a Tensor with %lld elements is ambiguous; use any() or all()",
                 (long long)t->numel);
    return -1;
  }
  double re, im;
  unsigned char host[16];
  const void *p;
  pd_status st = pd_elem_host(t, t->offset, host, &p);
  if (st != PD_OK) {
    pd_py_raise(st);
    return -1;
  }
  pd_load_as_complex(p, t->dtype, &re, &im);
  return re != 0 || im != 0;
}

static PyObject *richcompare(PyObject *a, PyObject *b, int op) {
  static const char *names[] = {"less_than", "less_equal", "equal", "not_equal", "greater_than",
                                "greater_equal"};
  if (!g_binary_fallback) Py_RETURN_NOTIMPLEMENTED;
  return PyObject_CallFunction(g_binary_fallback, "sOO", names[op], a, b);
}

static Py_hash_t tensor_hash(PyObject *self) { return _Py_HashPointer(self); }

static PyObject *set_fallback(PyObject *m, PyObject *fn) {
  (void)m;
  Py_XINCREF(fn);
  Py_XSETREF(g_binary_fallback, fn);
  Py_RETURN_NONE;
}
PyMethodDef pd_py_tensor_module_methods[] = {
    {"_set_operator_fallback", set_fallback, METH_O, "set the python operator implementation"},
    {NULL, NULL, 0, NULL}};

static PyMemberDef tensor_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(PdTensorObject, dict), READONLY, NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PdTensorObject, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};

static PyType_Slot tensor_slots[] = {
    {Py_tp_dealloc, tensor_dealloc},
    {Py_tp_traverse, tensor_traverse},
    {Py_tp_clear, tensor_clear},
    {Py_tp_new, tensor_new},
    {Py_tp_getset, tensor_getset},
    {Py_tp_methods, tensor_methods},
    {Py_tp_members, tensor_members},
    {Py_tp_richcompare, richcompare},
    {Py_tp_hash, tensor_hash},
    {Py_bf_getbuffer, tensor_getbuffer},
    {Py_bf_releasebuffer, tensor_releasebuffer},
    {Py_nb_add, nb_add},
    {Py_nb_subtract, nb_sub},
    {Py_nb_multiply, nb_mul},
    {Py_nb_true_divide, nb_div},
    {Py_nb_floor_divide, nb_floordiv},
    {Py_nb_remainder, nb_mod},
    {Py_nb_power, nb_pow},
    {Py_nb_matrix_multiply, nb_matmul},
    {Py_nb_and, nb_and},
    {Py_nb_or, nb_or},
    {Py_nb_xor, nb_xor},
    {Py_nb_lshift, nb_lshift},
    {Py_nb_rshift, nb_rshift},
    {Py_nb_negative, nb_neg},
    {Py_nb_positive, nb_pos},
    {Py_nb_absolute, nb_abs},
    {Py_nb_invert, nb_invert},
    {Py_nb_bool, nb_bool},
    {Py_nb_int, nb_int},
    {Py_nb_float, nb_float},
    {Py_nb_index, nb_index},
    {0, NULL}};

static PyType_Spec tensor_spec = {
    "paddle.Tensor", sizeof(PdTensorObject), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, tensor_slots};

int pd_py_tensor_type_init(PyObject *module) {
  PdTensor_Type = (PyTypeObject *)PyType_FromSpec(&tensor_spec);
  if (!PdTensor_Type) return -1;
  Py_INCREF(PdTensor_Type);
  return PyModule_AddObject(module, "Tensor", (PyObject *)PdTensor_Type);
}
