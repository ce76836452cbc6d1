/* PD_Tensor: a handle on one input or output of a predictor (it holds the predictor's inputs and
 * outputs alive). Inputs are shaped by Reshape (checked against the program's declaration), filled
 * by CopyFromCpu / MutableData or borrowed with ShareExternalData; outputs hold the fetched values
 * of the last Run and are read with CopyToCpu or zero-copy Data. dtypes must match exactly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_infer_internal.h"
#include "../core/pd_device.h"
#include "../core/pd_pool.h"
#include "../kernels/cpu/layout_dnnl.h"

#define CHECK_T(ret)                                                                          \
  do {                                                                                        \
    pd_api_clear();                                                                           \
    if (!t || !t->io) {                                                                       \
      pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: the tensor handle is NULL", __func__);       \
      return ret;                                                                             \
    }                                                                                         \
  } while (0)

static const char *tname(const PD_Tensor *t) {
  return t->is_input ? t->io->m->in_names[t->idx] : t->io->m->out_names[t->idx];
}
static const pd_var *tvar(const PD_Tensor *t) { return pd_block_find_var(t->io->m->prog->blocks[0], tname(t)); }
static pd_infer_input *tin(const PD_Tensor *t) { return &t->io->in[t->idx]; }

/* the handle's current value: an input's data or an output's fetched tensor (borrowed) */
static pd_tensor *tval(const PD_Tensor *t) {
  if (t->is_input) return tin(t)->t;
  const pd_value *v = &t->io->out[t->idx];
  return v->kind == PD_VAL_TENSOR ? v->t : NULL;
}

void PD_TensorDestroy(PD_Tensor *t) {
  /* a destroy cannot fail: it leaves the thread's error as it was */
  if (!t) return;
  pd_infer_io_release(t->io);
  free(t);
}

/* checks shape (n dims) against the input's declaration */
static int check_shape(const PD_Tensor *t, int n, const int64_t *shape, const char *fn) {
  if (!t->is_input)
    return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: '%s' is an output; only inputs take a shape or data", fn, tname(t));
  if (n < 0 || n > PD_MAX_DIMS)
    return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: input '%s': %d dims (at most %d)", fn, tname(t), n, PD_MAX_DIMS);
  int64_t numel = 1;
  for (int d = 0; d < n; d++) {
    if (shape[d] < 0)
      return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: input '%s': dim %d is %lld (sizes must be >= 0)", fn, tname(t),
                          d, (long long)shape[d]);
    if (shape[d] && numel > ((int64_t)1 << 40) / shape[d])
      return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: input '%s': the shape has too many elements", fn, tname(t));
    numel *= shape[d];
  }
  const pd_var *v = tvar(t);
  if (!v || !v->need_check_feed || v->ndim < 0) return 1;
  int ok = v->ndim == n;
  for (int d = 0; ok && d < n; d++) ok = v->dims[d] < 0 || v->dims[d] == shape[d];
  if (!ok) {
    char a[160], b[160];
    return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: input '%s' takes shape %s (-1: any size), received %s", fn,
                        tname(t), pd_shape_str(v->ndim, v->dims, a, sizeof a), pd_shape_str(n, shape, b, sizeof b));
  }
  return 1;
}

static int check_dtype(const PD_Tensor *t, pd_dtype dt, const char *fn) {
  const pd_var *v = tvar(t);
  if (v && pd_dtype_is_valid(v->dtype) && v->dtype != (int)dt)
    return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: input '%s' is %s in the program, received %s data", fn, tname(t),
                        pd_dtype_name((pd_dtype)v->dtype), pd_dtype_name(dt));
  return 1;
}

PD_Bool PD_TensorReshape(PD_Tensor *t, size_t n, int32_t *shape) {
  CHECK_T(FALSE);
  if (n && !shape) return (PD_Bool)pd_api_failf(PD_ERR_INVALID_ARGUMENT, "PD_TensorReshape: the shape is NULL");
  int64_t s64[PD_MAX_DIMS];
  if (n > PD_MAX_DIMS) return (PD_Bool)check_shape(t, (int)(n > 1000 ? 1000 : n), s64, __func__);
  for (size_t d = 0; d < n; d++) s64[d] = shape[d];
  if (!check_shape(t, (int)n, s64, __func__)) return FALSE;
  pd_infer_input *in = tin(t);
  int same = in->t && in->t->ndim == (int)n && !memcmp(in->t->shape, s64, sizeof(int64_t) * n);
  if (!same) {
    pd_tensor_release(in->t);
    in->t = NULL;
  }
  in->ndim = (int)n;
  memcpy(in->shape, s64, sizeof(int64_t) * n);
  return TRUE;
}

/* the input's own buffer of dtype dt and its Reshape shape (reused when nothing else holds it) */
static void *input_buffer(PD_Tensor *t, pd_dtype dt, const char *fn) {
  if (!t->is_input) {
    pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: '%s' is an output; only inputs take data", fn, tname(t));
    return NULL;
  }
  pd_infer_input *in = tin(t);
  if (in->ndim < 0) {
    pd_api_failf(PD_ERR_PRECONDITION_NOT_MET, "%s: input '%s' has no shape: call PD_TensorReshape first", fn, tname(t));
    return NULL;
  }
  if (!check_dtype(t, dt, fn)) return NULL;
  pd_tensor *x = in->t;
  if (x && x->dtype == dt && x->storage && !x->storage->deleter && atomic_load(&x->refcount) == 1 &&
      atomic_load(&x->storage->refcount) == 1 && pd_tensor_is_contiguous(x))
    return pd_tensor_data(x);
  pd_tensor *nt;
  pd_status s = pd_tensor_empty(dt, in->ndim, in->shape, &nt);
  if (s != PD_OK) {
    pd_api_fail(s);
    return NULL;
  }
  pd_tensor_release(in->t);
  in->t = nt;
  return pd_tensor_data(nt);
}

static int copy_from(PD_Tensor *t, pd_dtype dt, const void *data, const char *fn) {
  if (!data) return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: the data pointer is NULL", fn);
  void *dst = input_buffer(t, dt, fn);
  if (!dst) return 0;
  memcpy(dst, data, (size_t)tin(t)->t->numel * pd_dtype_size(dt));
  return 1;
}

static void noop_deleter(void *ctx, void *data) {
  (void)ctx;
  (void)data;
}

static int share(PD_Tensor *t, pd_dtype dt, const void *data, size_t n, const int32_t *shape, PD_PlaceType place,
                 const char *fn) {
  if (place != PD_PLACE_CPU && place != PD_PLACE_UNK)
    return pd_api_failf(PD_ERR_UNAVAILABLE, "%s: Paddle-C shares host memory only (place %d; a GPU predictor "
                        "copies its inputs to the device at Run)", fn, (int)place);
  if (n && !shape) return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: the shape is NULL", fn);
  if (n > PD_MAX_DIMS) return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: %zu dims (at most %d)", fn, n, PD_MAX_DIMS);
  int64_t s64[PD_MAX_DIMS];
  for (size_t d = 0; d < n; d++) s64[d] = shape[d];
  if (!check_shape(t, (int)n, s64, fn) || !check_dtype(t, dt, fn)) return 0;
  int64_t numel = pd_shape_numel((int)n, s64);
  if (numel && !data) return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: the data pointer is NULL", fn);
  size_t nbytes = (size_t)numel * pd_dtype_size(dt);
  pd_storage *st;
  pd_status s = pd_storage_wrap((void *)data, nbytes, noop_deleter, NULL, &st);
  pd_tensor *x = NULL;
  if (s == PD_OK) {
    int64_t strides[PD_MAX_DIMS];
    pd_contiguous_strides((int)n, s64, strides);
    s = pd_tensor_from_storage(st, dt, (int)n, s64, strides, 0, &x);
    pd_storage_release(st);
  }
  if (s != PD_OK) return pd_api_fail(s);
  pd_infer_input *in = tin(t);
  pd_tensor_release(in->t);
  in->t = x;
  in->ndim = (int)n;
  memcpy(in->shape, s64, sizeof(int64_t) * n);
  return 1;
}

/* the value to read (made contiguous and plain in place so pointers stay valid; a predictor's output
 * may come blocked, pd_executor_set_layout 2), or NULL with the error */
static pd_tensor *readable(PD_Tensor *t, pd_dtype dt, const char *fn) {
  pd_tensor *x = tval(t);
  if (!x) {
    pd_api_failf(PD_ERR_PRECONDITION_NOT_MET, "%s: '%s' has no data yet%s", fn, tname(t),
                 t->is_input ? " (set it first)" : ": call PD_PredictorRun first");
    return NULL;
  }
  if (x->dtype != dt) {
    pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: '%s' holds %s data, not %s", fn, tname(t), pd_dtype_name(x->dtype),
                 pd_dtype_name(dt));
    return NULL;
  }
  if (!pd_tensor_is_contiguous(x) || x->offset || x->layout) {
    pd_tensor *c;
    pd_status s = x->layout ? pd_layout_to_plain(x, &c) : pd_tensor_clone(x, &c);
    if (s != PD_OK) {
      pd_api_fail(s);
      return NULL;
    }
    if (t->is_input) {
      pd_tensor_release(tin(t)->t);
      tin(t)->t = c;
    } else {
      pd_value_set(&t->io->out[t->idx], c);
    }
    x = c;
  }
  return x;
}

static int copy_to(PD_Tensor *t, pd_dtype dt, void *data, const char *fn) {
  if (!data) return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: the destination is NULL", fn);
  pd_tensor *x = tval(t);
  if (x && x->layout && x->dtype == dt && !x->offset) {
    /* a blocked output: reordered into data in one pass, on the predictor's threads */
    const int prev = pd_pool_local_begin(pd_pool_clamp(t->io->m->threads));
    pd_layout_copy(x, (float *)data, 0);
    pd_pool_local_end(prev);
    return 1;
  }
  x = readable(t, dt, fn);
  if (!x) return 0;
  /* a GPU predictor's outputs are on the device */
  pd_status s = pd_device_memcpy(data, PD_CPU, pd_tensor_data(x), pd_tensor_device(x), (size_t)x->numel * pd_dtype_size(dt));
  return s == PD_OK ? 1 : pd_api_fail(s);
}

static void *data_ptr(PD_Tensor *t, pd_dtype dt, PD_PlaceType *place, int32_t *size, const char *fn) {
  pd_tensor *x = readable(t, dt, fn);
  if (!x) return NULL;
  if (x->numel > INT32_MAX) {
    pd_api_failf(PD_ERR_OUT_OF_RANGE, "%s: '%s' has %lld elements, more than an int32_t size holds", fn, tname(t),
                 (long long)x->numel);
    return NULL;
  }
  if (place) *place = pd_tensor_on_gpu(x) ? PD_PLACE_GPU : PD_PLACE_CPU; /* Paddle: a GPU output's device pointer */
  if (size) *size = (int32_t)x->numel;
  return pd_tensor_data(x);
}

#define TYPED(SUF, CT, DT)                                                                              \
  CT *PD_TensorMutableData##SUF(PD_Tensor *t, PD_PlaceType place) {                                     \
    CHECK_T(NULL);                                                                                      \
    if (place != PD_PLACE_CPU && place != PD_PLACE_UNK) {                                               \
      pd_api_failf(PD_ERR_UNAVAILABLE, "%s: input buffers are host memory in Paddle-C (place %d; a GPU "  \
                   "predictor copies its inputs to the device at Run)", __func__, (int)place);              \
      return NULL;                                                                                      \
    }                                                                                                   \
    return (CT *)input_buffer(t, DT, __func__);                                                         \
  }                                                                                                     \
  CT *PD_TensorData##SUF(PD_Tensor *t, PD_PlaceType *place, int32_t *size) {                            \
    CHECK_T(NULL);                                                                                      \
    return (CT *)data_ptr(t, DT, place, size, __func__);                                                \
  }                                                                                                     \
  PD_Bool PD_TensorCopyFromCpu##SUF(PD_Tensor *t, const CT *data) {                                     \
    CHECK_T(FALSE);                                                                                     \
    return (PD_Bool)copy_from(t, DT, data, __func__);                                                   \
  }                                                                                                     \
  PD_Bool PD_TensorCopyToCpu##SUF(PD_Tensor *t, CT *data) {                                             \
    CHECK_T(FALSE);                                                                                     \
    return (PD_Bool)copy_to(t, DT, data, __func__);                                                     \
  }                                                                                                     \
  PD_Bool PD_TensorShareExternalData##SUF(PD_Tensor *t, const CT *data, size_t n, const int32_t *shape, \
                                          PD_PlaceType place) {                                         \
    CHECK_T(FALSE);                                                                                     \
    return (PD_Bool)share(t, DT, data, n, shape, place, __func__);                                      \
  }
TYPED(Float, float, PD_FLOAT32)
TYPED(Int64, int64_t, PD_INT64)
TYPED(Int32, int32_t, PD_INT32)
TYPED(Uint8, uint8_t, PD_UINT8)
TYPED(Int8, int8_t, PD_INT8)

static int raw_dtype(PD_DataType dtype, pd_dtype *dt, const char *fn) {
  int d = pd_api_dtype_in(dtype);
  if (d < 0) return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: %d is not a data type", fn, (int)dtype);
  *dt = (pd_dtype)d;
  return 1;
}
PD_Bool PD_TensorCopyFromCpuRaw(PD_Tensor *t, const void *data, PD_DataType dtype) {
  CHECK_T(FALSE);
  pd_dtype dt = PD_FLOAT32;
  return (PD_Bool)(raw_dtype(dtype, &dt, __func__) && copy_from(t, dt, data, __func__));
}
PD_Bool PD_TensorCopyToCpuRaw(PD_Tensor *t, void *data, size_t nbytes) {
  CHECK_T(FALSE);
  pd_tensor *x = tval(t);
  if (!x) return (PD_Bool)pd_api_failf(PD_ERR_PRECONDITION_NOT_MET, "%s: '%s' has no data yet", __func__, tname(t));
  size_t need = (size_t)x->numel * pd_dtype_size(x->dtype);
  if (nbytes != need)
    return (PD_Bool)pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: '%s' holds %zu bytes (%s), the buffer has %zu", __func__,
                                 tname(t), need, pd_dtype_name(x->dtype), nbytes);
  return (PD_Bool)copy_to(t, x->dtype, data, __func__);
}
PD_Bool PD_TensorShareExternalDataRaw(PD_Tensor *t, const void *data, size_t n, const int32_t *shape, PD_DataType dtype) {
  CHECK_T(FALSE);
  pd_dtype dt = PD_FLOAT32;
  return (PD_Bool)(raw_dtype(dtype, &dt, __func__) && share(t, dt, data, n, shape, PD_PLACE_CPU, __func__));
}

PD_OneDimArrayInt32 *PD_TensorGetShape(PD_Tensor *t) {
  CHECK_T(NULL);
  int n;
  int64_t shape[PD_MAX_DIMS];
  const pd_tensor *x = tval(t);
  if (x) {
    n = x->ndim;
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)n);
  } else if (t->is_input && tin(t)->ndim >= 0) {
    n = tin(t)->ndim;
    memcpy(shape, tin(t)->shape, sizeof(int64_t) * (size_t)n);
  } else { /* the declaration (-1: known at run time) */
    const pd_var *v = tvar(t);
    n = v && v->ndim > 0 ? v->ndim : 0;
    for (int d = 0; d < n; d++) shape[d] = v->dims[d];
  }
  PD_OneDimArrayInt32 *a = (PD_OneDimArrayInt32 *)calloc(1, sizeof *a);
  if (a) a->data = (int32_t *)calloc((size_t)(n ? n : 1), sizeof(int32_t));
  if (!a || !a->data) {
    PD_OneDimArrayInt32Destroy(a);
    pd_api_failf(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    return NULL;
  }
  for (int d = 0; d < n; d++) {
    if (shape[d] > INT32_MAX) {
      PD_OneDimArrayInt32Destroy(a);
      pd_api_failf(PD_ERR_OUT_OF_RANGE, "PD_TensorGetShape: dim %d of '%s' is %lld, beyond int32_t", d, tname(t),
                   (long long)shape[d]);
      return NULL;
    }
    a->data[d] = (int32_t)shape[d];
  }
  a->size = (size_t)n;
  return a;
}

PD_Bool PD_TensorSetLod(PD_Tensor *t, PD_TwoDimArraySize *lod) {
  CHECK_T(FALSE);
  if (!t->is_input) return (PD_Bool)pd_api_failf(PD_ERR_INVALID_ARGUMENT, "PD_TensorSetLod: '%s' is an output", tname(t));
  if (!lod) return (PD_Bool)pd_api_failf(PD_ERR_INVALID_ARGUMENT, "PD_TensorSetLod: the LoD is NULL");
  if (lod->size > 64) return (PD_Bool)pd_api_failf(PD_ERR_INVALID_ARGUMENT, "PD_TensorSetLod: %zu levels (at most 64)", lod->size);
  pd_lod l;
  memset(&l, 0, sizeof l);
  int n = (int)lod->size;
  l.len = (int64_t *)calloc((size_t)(n ? n : 1), sizeof(int64_t));
  l.offs = (int64_t **)calloc((size_t)(n ? n : 1), sizeof(int64_t *));
  int ok = l.len && l.offs && (n == 0 || lod->data);
  for (int i = 0; ok && i < n; i++) {
    const PD_OneDimArraySize *lv = lod->data[i];
    if (!lv || (lv->size && !lv->data) || lv->size > ((size_t)1 << 32)) {
      ok = 0;
      break;
    }
    l.offs[i] = (int64_t *)malloc(sizeof(int64_t) * (lv->size ? lv->size : 1));
    if (!l.offs[i]) {
      ok = 0;
      break;
    }
    l.n = i + 1;
    l.len[i] = (int64_t)lv->size;
    for (size_t k = 0; k < lv->size; k++) l.offs[i][k] = lv->data[k] > (size_t)INT64_MAX ? -1 : (int64_t)lv->data[k];
  }
  if (!ok) {
    pd_lod_clear(&l);
    return (PD_Bool)pd_api_failf(PD_ERR_INVALID_ARGUMENT, "PD_TensorSetLod: a level is NULL or too long (or out of "
                                 "memory)");
  }
  l.n = n;
  pd_infer_input *in = tin(t);
  pd_lod_clear(&in->lod);
  in->lod = l;
  return TRUE;
}

PD_TwoDimArraySize *PD_TensorGetLod(PD_Tensor *t) {
  CHECK_T(NULL);
  const pd_lod *l = t->is_input ? &tin(t)->lod : &t->io->out[t->idx].lod;
  PD_TwoDimArraySize *r = (PD_TwoDimArraySize *)calloc(1, sizeof *r);
  if (r) r->data = (PD_OneDimArraySize **)calloc((size_t)(l->n ? l->n : 1), sizeof(PD_OneDimArraySize *));
  int ok = r && r->data;
  for (int i = 0; ok && i < l->n; i++) {
    PD_OneDimArraySize *a = (PD_OneDimArraySize *)calloc(1, sizeof *a);
    if (a) r->data[r->size++] = a;
    if (!a || !(a->data = (size_t *)calloc((size_t)(l->len[i] ? l->len[i] : 1), sizeof(size_t)))) {
      ok = 0;
      break;
    }
    a->size = (size_t)l->len[i];
    for (int64_t k = 0; k < l->len[i]; k++) a->data[k] = (size_t)l->offs[i][k];
  }
  if (!ok) {
    PD_TwoDimArraySizeDestroy(r);
    pd_api_failf(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    return NULL;
  }
  return r;
}

const char *PD_TensorGetName(PD_Tensor *t) {
  CHECK_T(NULL);
  return tname(t);
}

PD_DataType PD_TensorGetDataType(PD_Tensor *t) {
  CHECK_T(PD_DATA_UNK);
  const pd_tensor *x = tval(t);
  if (x) return pd_api_dtype_out(x->dtype);
  const pd_var *v = tvar(t);
  return v ? pd_api_dtype_out(v->dtype) : PD_DATA_UNK;
}
