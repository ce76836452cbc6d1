/* DLPack interop: Tensor -> "dltensor" capsule (zero-copy, the capsule keeps the tensor alive)
 * and capsule/__dlpack__ object -> Tensor (zero-copy, the producer's deleter runs when the last
 * view of the storage goes). Struct layouts follow the public DLPack ABI (unversioned 0.x). */
#include <string.h>
#include "pd_py.h"
#include "../core/pd_device.h"

typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

enum { kDLCPU = 1 };
enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6 };

typedef struct {
  DLManagedTensor m;
  int64_t shape[PD_MAX_DIMS];
  int64_t strides[PD_MAX_DIMS];
  pd_tensor *t;
} export_ctx;

static void export_deleter(DLManagedTensor *self) {
  export_ctx *c = (export_ctx *)self->manager_ctx;
  pd_tensor_release(c->t);
  PyMem_RawFree(c);
}

static void capsule_destructor(PyObject *cap) {
  if (PyCapsule_IsValid(cap, "dltensor")) {
    DLManagedTensor *m = (DLManagedTensor *)PyCapsule_GetPointer(cap, "dltensor");
    if (m && m->deleter) m->deleter(m);
  }
  PyErr_Clear();
}

static DLDataType to_dl(pd_dtype t) {
  DLDataType d = {kDLFloat, (uint8_t)(pd_dtype_size(t) * 8), 1};
  switch (t) {
    case PD_BOOL: d.code = kDLBool; break;
    case PD_UINT8: d.code = kDLUInt; break;
    case PD_INT8: case PD_INT16: case PD_INT32: case PD_INT64: d.code = kDLInt; break;
    case PD_BFLOAT16: d.code = kDLBfloat; break;
    case PD_COMPLEX64: case PD_COMPLEX128: d.code = kDLComplex; break;
    default: break;
  }
  return d;
}

static int from_dl(DLDataType d) {
  if (d.lanes != 1) return -1;
  switch (d.code) {
    case kDLBool: return d.bits == 8 ? PD_BOOL : -1;
    case kDLUInt: return d.bits == 8 ? PD_UINT8 : -1;
    case kDLInt:
      return d.bits == 8 ? PD_INT8 : d.bits == 16 ? PD_INT16 : d.bits == 32 ? PD_INT32
             : d.bits == 64 ? PD_INT64 : -1;
    case kDLFloat: return d.bits == 16 ? PD_FLOAT16 : d.bits == 32 ? PD_FLOAT32 : d.bits == 64 ? PD_FLOAT64 : -1;
    case kDLBfloat: return d.bits == 16 ? PD_BFLOAT16 : -1;
    case kDLComplex: return d.bits == 64 ? PD_COMPLEX64 : d.bits == 128 ? PD_COMPLEX128 : -1;
    default: return -1;
  }
}

PyObject *pd_py_to_dlpack(PyObject *m, PyObject *obj) {
  (void)m;
  if (!PdTensor_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "to_dlpack expects a paddle.Tensor, received %s", Py_TYPE(obj)->tp_name);
    return NULL;
  }
  pd_tensor *t = PdTensor_T(obj);
  export_ctx *c = (export_ctx *)PyMem_RawCalloc(1, sizeof *c);
  if (!c) return PyErr_NoMemory();
  if (!t->storage) {
    PyMem_RawFree(c);
    PyErr_SetString(PyExc_TypeError, "to_dlpack: the tensor holds no data (a static Variable)");
    return NULL;
  }
  pd_tensor_retain(t);
  c->t = t;
  for (int d = 0; d < t->ndim; d++) {
    c->shape[d] = t->shape[d];
    c->strides[d] = t->strides[d];
  }
  c->m.dl_tensor.data = t->storage->data;
  c->m.dl_tensor.byte_offset = (uint64_t)(t->offset * (int64_t)pd_dtype_size(t->dtype));
  /* a GPU tensor is exported as kDLCUDA (2) on its ordinal */
  c->m.dl_tensor.device.device_type = pd_tensor_on_gpu(t) ? 2 : kDLCPU;
  c->m.dl_tensor.device.device_id = pd_tensor_on_gpu(t) ? pd_tensor_device(t) : 0;
  c->m.dl_tensor.ndim = t->ndim;
  c->m.dl_tensor.dtype = to_dl(t->dtype);
  c->m.dl_tensor.shape = c->shape;
  c->m.dl_tensor.strides = c->strides;
  c->m.manager_ctx = c;
  c->m.deleter = export_deleter;
  PyObject *cap = PyCapsule_New(&c->m, "dltensor", capsule_destructor);
  if (!cap) export_deleter(&c->m);
  return cap;
}

static void import_deleter(void *ctx, void *data) {
  (void)data;
  DLManagedTensor *m = (DLManagedTensor *)ctx;
  if (!m->deleter) return;
  PyGILState_STATE g = PyGILState_Ensure(); /* producers (numpy) may touch Python objects */
  m->deleter(m);
  PyGILState_Release(g);
}

PyObject *pd_py_from_dlpack(PyObject *mod, PyObject *obj) {
  (void)mod;
  PyObject *cap = obj;
  int owned = 0;
  if (!PyCapsule_CheckExact(obj)) {
    if (!PyObject_HasAttrString(obj, "__dlpack__")) {
      PyErr_Format(PyExc_TypeError, "from_dlpack expects a DLPack capsule or an object with "
                   "__dlpack__, received %s", Py_TYPE(obj)->tp_name);
      return NULL;
    }
    cap = PyObject_CallMethod(obj, "__dlpack__", NULL);
    if (!cap) return NULL;
    owned = 1;
  }
  if (!PyCapsule_IsValid(cap, "dltensor")) {
    if (owned) Py_DECREF(cap);
    PyErr_SetString(PyExc_ValueError, "from_dlpack: the capsule is not an unused 'dltensor' "
                    "(a DLPack capsule can be consumed only once)");
    return NULL;
  }
  DLManagedTensor *m = (DLManagedTensor *)PyCapsule_GetPointer(cap, "dltensor");
  DLTensor *dl = &m->dl_tensor;
  int dt = from_dl(dl->dtype);
  const char *err = NULL;
  if (dl->device.device_type != kDLCPU) err = "only CPU tensors can be imported";
  else if (dt < 0) err = "unsupported DLPack data type";
  else if (dl->ndim < 0 || dl->ndim > PD_MAX_DIMS) err = "too many dimensions";
  if (err) {
    if (owned) Py_DECREF(cap);
    PyErr_Format(PyExc_ValueError, "from_dlpack: %s", err);
    return NULL;
  }
  /* The header comes from another library: check what a consumer can (sizes, overflow, NULL
   * pointers, alignment); an extent beyond the producer's buffer cannot be seen from here. */
  int64_t strides[PD_MAX_DIMS], numel = 1, lo = 0, hi = 0;
  size_t isz = pd_dtype_size((pd_dtype)dt);
  if (dl->ndim > 0 && !dl->shape) err = "the shape pointer is NULL";
  for (int d = 0; !err && d < dl->ndim; d++)
    if (dl->shape[d] < 0) err = "a dimension is negative";
  for (int d = 0; !err && d < dl->ndim; d++)
    if (__builtin_mul_overflow(numel, dl->shape[d], &numel)) err = "the element count overflows int64";
  if (!err) { /* strides as given, else contiguous ones (0 past an overflow: only with no element) */
    int64_t acc = 1;
    for (int d = dl->ndim - 1; d >= 0; d--) {
      strides[d] = dl->strides ? dl->strides[d] : acc;
      if (__builtin_mul_overflow(acc, dl->shape[d] ? dl->shape[d] : 1, &acc)) acc = 0;
      int64_t ext; /* the extent [lo, hi] in elements, only when there is an element to reach */
      if (numel > 0 && (__builtin_mul_overflow(dl->shape[d] - 1, strides[d], &ext) ||
                        (ext < 0 ? __builtin_add_overflow(lo, ext, &lo) : __builtin_add_overflow(hi, ext, &hi)))) {
        err = "the strides overflow int64";
        break;
      }
    }
  }
  int64_t span, lo_bytes, first, nbytes;
  /* a view may repeat elements (stride 0), but a copy of it must still have a size in bytes */
  if (!err && __builtin_mul_overflow(numel, (int64_t)isz, &nbytes)) err = "the size in bytes overflows int64";
  if (!err && (__builtin_mul_overflow(hi - lo + 1, (int64_t)isz, &span) ||
               __builtin_mul_overflow(lo, (int64_t)isz, &lo_bytes) || dl->byte_offset > (uint64_t)INT64_MAX ||
               __builtin_add_overflow((int64_t)dl->byte_offset, lo_bytes, &first)))
    err = "the extent in bytes overflows int64";
  if (!err && numel > 0 && !dl->data) err = "the data pointer is NULL";
  if (!err && numel > 0 && ((uintptr_t)dl->data + (uintptr_t)dl->byte_offset) % isz)
    err = "the data pointer plus byte_offset is not aligned to the element size";
  if (err) {
    if (owned) Py_DECREF(cap);
    PyErr_Format(PyExc_ValueError, "from_dlpack: %s", err);
    return NULL;
  }
  char *base = numel > 0 ? (char *)dl->data + first : (char *)dl->data;
  pd_storage *st;
  pd_status s = pd_storage_wrap(base, (size_t)span, import_deleter, m, &st);
  if (s != PD_OK) {
    if (owned) Py_DECREF(cap);
    return pd_py_raise(s);
  }
  PyCapsule_SetName(cap, "used_dltensor");
  if (owned) Py_DECREF(cap);
  pd_tensor *t;
  s = pd_tensor_from_storage(st, (pd_dtype)dt, dl->ndim, dl->shape, strides, -lo, &t);
  pd_storage_release(st);
  if (s != PD_OK) return pd_py_raise(s);
  return pd_py_wrap(t);
}

static PyObject *m_dlpack(PyObject *self, PyObject *args, PyObject *kw) {
  (void)args;
  (void)kw;
  return pd_py_to_dlpack(NULL, self);
}
static PyObject *m_dlpack_device(PyObject *self, PyObject *unused) {
  (void)unused;
  pd_tensor *t = PdTensor_T(self);
  if (pd_tensor_on_gpu(t)) return Py_BuildValue("(ii)", 2, pd_tensor_device(t)); /* kDLCUDA */
  return Py_BuildValue("(ii)", kDLCPU, 0);
}

PyMethodDef pd_py_dlpack_methods[] = {
    {"to_dlpack", pd_py_to_dlpack, METH_O, "Tensor -> DLPack capsule (zero-copy)"},
    {"from_dlpack", pd_py_from_dlpack, METH_O, "DLPack capsule or __dlpack__ object -> Tensor"},
    {NULL, NULL, 0, NULL}};
PyMethodDef pd_py_dlpack_tensor_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))m_dlpack, METH_VARARGS | METH_KEYWORDS, "DLPack export"},
    {"__dlpack_device__", m_dlpack_device, METH_NOARGS, "(kDLCPU, 0)"},
    {NULL, NULL, 0, NULL}};
