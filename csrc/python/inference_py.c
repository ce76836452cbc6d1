/* paddle._C bindings of the C inference API (csrc/api/pd_inference_api.h), which
 * python/paddle/inference wraps: configs, predictors and tensor handles are capsules around the
 * PD_* objects, every call goes through the PD_* functions (no second implementation), a failed
 * call raises with the API's message (its code mapped like every pd_status), and Run releases
 * the GIL so clones run in parallel threads. */
#include "pd_py.h"
#include "../api/pd_inference_api.h"

static const char *K_CFG = "paddle_c.PD_Config", *K_PRED = "paddle_c.PD_Predictor", *K_T = "paddle_c.PD_Tensor";

static void cfg_del(PyObject *c) { PD_ConfigDestroy((PD_Config *)PyCapsule_GetPointer(c, K_CFG)); }
static void pred_del(PyObject *c) { PD_PredictorDestroy((PD_Predictor *)PyCapsule_GetPointer(c, K_PRED)); }
static void t_del(PyObject *c) { PD_TensorDestroy((PD_Tensor *)PyCapsule_GetPointer(c, K_T)); }

/* raises the thread's API error */
static PyObject *api_raise(void) {
  PD_ErrorCode code = PD_GetLastErrorCode();
  pd_set_error(code ? (pd_status)code : PD_ERR_FATAL, "%s", PD_GetLastErrorMsg());
  return pd_py_raise(code ? (pd_status)code : PD_ERR_FATAL);
}
static PyObject *checked_none(PD_Bool ok) {
  if (!ok) return api_raise();
  Py_RETURN_NONE;
}

#define GET(var, T, obj, kind)                                                       \
  T *var = (T *)PyCapsule_GetPointer(obj, kind);                                     \
  if (!var) return NULL

/* ------------------------------------------------------------------ config */
static PyObject *cfg_new(PyObject *m, PyObject *u) {
  (void)m;
  (void)u;
  PD_Config *c = PD_ConfigCreate();
  if (!c) return api_raise();
  PyObject *cap = PyCapsule_New(c, K_CFG, cfg_del);
  if (!cap) PD_ConfigDestroy(c);
  return cap;
}

typedef enum { A_NONE, A_BOOL, A_INT, A_STR, A_STR2, A_PASS_AT } argk;
typedef enum { RT_OK, RT_BOOL, RT_INT, RT_STR } retk;
typedef struct {
  const char *name;
  argk a;
  retk r;
  void *fn;
} cfg_fn;

#define F(name, a, r, fn) {name, a, r, (void *)fn}
static const cfg_fn k_cfg[] = {
    F("set_model", A_STR2, RT_OK, PD_ConfigSetModel),
    F("set_prog_file", A_STR, RT_OK, PD_ConfigSetProgFile),
    F("set_params_file", A_STR, RT_OK, PD_ConfigSetParamsFile),
    F("set_model_dir", A_STR, RT_OK, PD_ConfigSetModelDir),
    F("set_optim_cache_dir", A_STR, RT_OK, PD_ConfigSetOptimCacheDir),
    F("prog_file", A_NONE, RT_STR, PD_ConfigGetProgFile),
    F("params_file", A_NONE, RT_STR, PD_ConfigGetParamsFile),
    F("model_dir", A_NONE, RT_STR, PD_ConfigGetModelDir),
    F("model_from_memory", A_NONE, RT_BOOL, PD_ConfigModelFromMemory),
    F("disable_gpu", A_NONE, RT_OK, PD_ConfigDisableGpu),
    F("use_gpu", A_NONE, RT_BOOL, PD_ConfigUseGpu),
    F("gpu_device_id", A_NONE, RT_INT, PD_ConfigGpuDeviceId),
    F("memory_pool_init_size_mb", A_NONE, RT_INT, PD_ConfigMemoryPoolInitSizeMb),
    F("enable_cudnn", A_NONE, RT_OK, PD_ConfigEnableCudnn),
    F("cudnn_enabled", A_NONE, RT_BOOL, PD_ConfigCudnnEnabled),
    F("use_xpu", A_NONE, RT_BOOL, PD_ConfigUseXpu),
    F("enable_onnxruntime", A_NONE, RT_OK, PD_ConfigEnableONNXRuntime),
    F("disable_onnxruntime", A_NONE, RT_OK, PD_ConfigDisableONNXRuntime),
    F("onnxruntime_enabled", A_NONE, RT_BOOL, PD_ConfigONNXRuntimeEnabled),
    F("tensorrt_engine_enabled", A_NONE, RT_BOOL, PD_ConfigTensorRtEngineEnabled),
    F("lite_engine_enabled", A_NONE, RT_BOOL, PD_ConfigLiteEngineEnabled),
    F("switch_ir_optim", A_BOOL, RT_OK, PD_ConfigSwitchIrOptim),
    F("ir_optim", A_NONE, RT_BOOL, PD_ConfigIrOptim),
    F("switch_ir_debug", A_BOOL, RT_OK, PD_ConfigSwitchIrDebug),
    F("delete_pass", A_STR, RT_OK, PD_ConfigDeletePass),
    F("append_pass", A_STR, RT_OK, PD_ConfigAppendPass),
    F("insert_pass", A_PASS_AT, RT_OK, PD_ConfigInsertPass),
    F("enable_mkldnn", A_NONE, RT_OK, PD_ConfigEnableMKLDNN),
    F("mkldnn_enabled", A_NONE, RT_BOOL, PD_ConfigMkldnnEnabled),
    F("set_mkldnn_cache_capacity", A_INT, RT_OK, PD_ConfigSetMkldnnCacheCapacity),
    F("enable_mkldnn_bfloat16", A_NONE, RT_OK, PD_ConfigEnableMkldnnBfloat16),
    F("mkldnn_bfloat16_enabled", A_NONE, RT_BOOL, PD_ConfigMkldnnBfloat16Enabled),
    F("enable_mkldnn_int8", A_NONE, RT_OK, PD_ConfigEnableMkldnnInt8),
    F("mkldnn_int8_enabled", A_NONE, RT_BOOL, PD_ConfigMkldnnInt8Enabled),
    F("enable_quantizer", A_NONE, RT_OK, PD_ConfigEnableMkldnnQuantizer),
    F("set_cpu_math_library_num_threads", A_INT, RT_OK, PD_ConfigSetCpuMathLibraryNumThreads),
    F("cpu_math_library_num_threads", A_NONE, RT_INT, PD_ConfigGetCpuMathLibraryNumThreads),
    F("enable_memory_optim", A_BOOL, RT_OK, PD_ConfigEnableMemoryOptim),
    F("memory_optim_enabled", A_NONE, RT_BOOL, PD_ConfigMemoryOptimEnabled),
    F("enable_profile", A_NONE, RT_OK, PD_ConfigEnableProfile),
    F("profile_enabled", A_NONE, RT_BOOL, PD_ConfigProfileEnabled),
    F("disable_glog_info", A_NONE, RT_OK, PD_ConfigDisableGlogInfo),
    F("glog_info_disabled", A_NONE, RT_BOOL, PD_ConfigGlogInfoDisabled),
    F("switch_specify_input_names", A_BOOL, RT_OK, PD_ConfigSwitchSpecifyInputNames),
    F("specify_input_name", A_NONE, RT_BOOL, PD_ConfigSpecifyInputName),
    F("switch_use_feed_fetch_ops", A_BOOL, RT_OK, PD_ConfigSwitchUseFeedFetchOps),
    F("use_feed_fetch_ops_enabled", A_NONE, RT_BOOL, PD_ConfigUseFeedFetchOpsEnabled),
    F("disable_fc_padding", A_NONE, RT_OK, PD_ConfigDisableFCPadding),
    F("use_fc_padding", A_NONE, RT_BOOL, PD_ConfigUseFcPadding),
    F("set_invalid", A_NONE, RT_OK, PD_ConfigSetInvalid),
    F("is_valid", A_NONE, RT_BOOL, PD_ConfigIsValid),
    F("partially_release", A_NONE, RT_OK, PD_ConfigPartiallyRelease),
};
#undef F

typedef PD_Bool (*fn_b)(PD_Config *);
typedef PD_Bool (*fn_b_b)(PD_Config *, PD_Bool);
typedef PD_Bool (*fn_b_i)(PD_Config *, int32_t);
typedef PD_Bool (*fn_b_s)(PD_Config *, const char *);
typedef PD_Bool (*fn_b_ss)(PD_Config *, const char *, const char *);
typedef PD_Bool (*fn_b_zs)(PD_Config *, size_t, const char *);
typedef int32_t (*fn_i)(PD_Config *);
typedef const char *(*fn_s)(PD_Config *);

/* config_call(cfg, name, *args): the PD_Config function `name` (see k_cfg) */
static PyObject *cfg_call(PyObject *m, PyObject *args) {
  (void)m;
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (n < 2) return PyErr_Format(PyExc_TypeError, "config_call(cfg, name, *args)");
  GET(c, PD_Config, PyTuple_GET_ITEM(args, 0), K_CFG);
  const char *name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(args, 1));
  if (!name) return NULL;
  const cfg_fn *f = NULL;
  for (size_t i = 0; i < sizeof k_cfg / sizeof k_cfg[0] && !f; i++)
    if (!strcmp(k_cfg[i].name, name)) f = &k_cfg[i];
  if (!f) return PyErr_Format(PyExc_AttributeError, "config_call: no PD_Config function %s", name);
  int want = f->a == A_NONE ? 0 : f->a == A_STR2 || f->a == A_PASS_AT ? 2 : 1;
  if (n - 2 != want) return PyErr_Format(PyExc_TypeError, "%s() takes %d argument(s) (%zd given)", name, want, n - 2);
  PyObject *a0 = want ? PyTuple_GET_ITEM(args, 2) : NULL, *a1 = want > 1 ? PyTuple_GET_ITEM(args, 3) : NULL;
  PD_Bool ok = TRUE;
  switch (f->a) {
    case A_NONE:
      if (f->r == RT_BOOL) {
        PD_Bool v = ((fn_b)f->fn)(c);
        if (PD_GetLastErrorCode()) return api_raise();
        return PyBool_FromLong(v);
      }
      if (f->r == RT_INT) {
        int32_t v = ((fn_i)f->fn)(c);
        if (PD_GetLastErrorCode()) return api_raise();
        return PyLong_FromLong(v);
      }
      if (f->r == RT_STR) {
        const char *v = ((fn_s)f->fn)(c);
        if (!v) return api_raise();
        return PyUnicode_FromString(v);
      }
      ok = ((fn_b)f->fn)(c);
      break;
    case A_BOOL: {
      int b = PyObject_IsTrue(a0);
      if (b < 0) return NULL;
      ok = ((fn_b_b)f->fn)(c, (PD_Bool)b);
      break;
    }
    case A_INT: {
      long v = PyLong_AsLong(a0);
      if (v == -1 && PyErr_Occurred()) return NULL;
      if (v < INT32_MIN || v > INT32_MAX) return PyErr_Format(PyExc_ValueError, "%s: %ld out of range", name, v);
      ok = ((fn_b_i)f->fn)(c, (int32_t)v);
      break;
    }
    case A_STR: {
      const char *s = PyUnicode_AsUTF8(a0);
      if (!s) return NULL;
      ok = ((fn_b_s)f->fn)(c, s);
      break;
    }
    case A_STR2: {
      const char *s = PyUnicode_AsUTF8(a0), *t = a1 == Py_None ? NULL : PyUnicode_AsUTF8(a1);
      if (!s || (a1 != Py_None && !t)) return NULL;
      ok = ((fn_b_ss)f->fn)(c, s, t);
      break;
    }
    case A_PASS_AT: {
      Py_ssize_t at = PyLong_AsSsize_t(a0);
      const char *s = PyUnicode_AsUTF8(a1);
      if ((at < 0 && PyErr_Occurred()) || !s) return NULL;
      ok = ((fn_b_zs)f->fn)(c, at < 0 ? 0 : (size_t)at, s);
      break;
    }
  }
  return checked_none(ok);
}

static PyObject *cfg_set_model_buffer(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap;
  Py_buffer a, b;
  if (!PyArg_ParseTuple(args, "Oy*y*", &cap, &a, &b)) return NULL;
  PD_Config *c = (PD_Config *)PyCapsule_GetPointer(cap, K_CFG);
  PD_Bool ok = c ? PD_ConfigSetModelBuffer(c, (const char *)a.buf, (size_t)a.len, (const char *)b.buf, (size_t)b.len) : 0;
  PyBuffer_Release(&a);
  PyBuffer_Release(&b);
  if (!c) return NULL;
  return checked_none(ok);
}

static PyObject *cfg_enable_use_gpu(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap;
  unsigned long long mb;
  int dev, prec;
  if (!PyArg_ParseTuple(args, "OKii", &cap, &mb, &dev, &prec)) return NULL;
  GET(c, PD_Config, cap, K_CFG);
  return checked_none(PD_ConfigEnableUseGpu(c, (uint64_t)mb, dev, prec));
}

static PyObject *cstr_array_list(PD_OneDimArrayCstr *a) {
  if (!a) return api_raise();
  PyObject *l = PyList_New((Py_ssize_t)a->size);
  for (size_t i = 0; l && i < a->size; i++) {
    PyObject *s = PyUnicode_FromString(a->data[i]);
    if (!s) Py_CLEAR(l);
    else PyList_SET_ITEM(l, (Py_ssize_t)i, s);
  }
  PD_OneDimArrayCstrDestroy(a);
  return l;
}

static PyObject *cfg_all_passes(PyObject *m, PyObject *cap) {
  (void)m;
  GET(c, PD_Config, cap, K_CFG);
  return cstr_array_list(PD_ConfigAllPasses(c));
}

static PyObject *cfg_summary(PyObject *m, PyObject *cap) {
  (void)m;
  GET(c, PD_Config, cap, K_CFG);
  PD_Cstr *s = PD_ConfigSummary(c);
  if (!s) return api_raise();
  PyObject *r = PyUnicode_FromString(s->data ? s->data : "");
  PD_CstrDestroy(s);
  return r;
}

/* ------------------------------------------------------------------ predictor */
static PyObject *pred_new(PyObject *m, PyObject *cap) {
  (void)m;
  GET(c, PD_Config, cap, K_CFG);
  PD_Predictor *p;
  Py_BEGIN_ALLOW_THREADS
  p = PD_PredictorCreate(c);
  Py_END_ALLOW_THREADS
  if (!p) return api_raise();
  PyObject *r = PyCapsule_New(p, K_PRED, pred_del);
  if (!r) PD_PredictorDestroy(p);
  return r;
}

static PyObject *pred_clone(PyObject *m, PyObject *cap) {
  (void)m;
  GET(p, PD_Predictor, cap, K_PRED);
  PD_Predictor *q;
  Py_BEGIN_ALLOW_THREADS
  q = PD_PredictorClone(p);
  Py_END_ALLOW_THREADS
  if (!q) return api_raise();
  PyObject *r = PyCapsule_New(q, K_PRED, pred_del);
  if (!r) PD_PredictorDestroy(q);
  return r;
}

static PyObject *pred_names(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap;
  int outputs;
  if (!PyArg_ParseTuple(args, "Op", &cap, &outputs)) return NULL;
  GET(p, PD_Predictor, cap, K_PRED);
  return cstr_array_list(outputs ? PD_PredictorGetOutputNames(p) : PD_PredictorGetInputNames(p));
}

/* [(name, [dims], dtype code)] of the inputs or outputs */
static PyObject *pred_infos(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap;
  int outputs;
  if (!PyArg_ParseTuple(args, "Op", &cap, &outputs)) return NULL;
  GET(p, PD_Predictor, cap, K_PRED);
  PD_IOInfos *in = outputs ? PD_PredictorGetOutputInfos(p) : PD_PredictorGetInputInfos(p);
  if (!in) return api_raise();
  PyObject *l = PyList_New((Py_ssize_t)in->size);
  for (size_t i = 0; l && i < in->size; i++) {
    const PD_IOInfo *io = in->io_info[i];
    PyObject *dims = PyList_New((Py_ssize_t)io->shape->size);
    for (size_t d = 0; dims && d < io->shape->size; d++)
      PyList_SET_ITEM(dims, (Py_ssize_t)d, PyLong_FromLongLong(io->shape->data[d]));
    PyObject *e = dims ? Py_BuildValue("(sNi)", io->name->data ? io->name->data : "", dims, (int)io->dtype) : NULL;
    if (!e) Py_CLEAR(l);
    else PyList_SET_ITEM(l, (Py_ssize_t)i, e);
  }
  PD_IOInfosDestroy(in);
  return l;
}

static PyObject *pred_handle(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap;
  const char *name;
  int outputs;
  if (!PyArg_ParseTuple(args, "Osp", &cap, &name, &outputs)) return NULL;
  GET(p, PD_Predictor, cap, K_PRED);
  PD_Tensor *t = outputs ? PD_PredictorGetOutputHandle(p, name) : PD_PredictorGetInputHandle(p, name);
  if (!t) return api_raise();
  PyObject *r = PyCapsule_New(t, K_T, t_del);
  if (!r) PD_TensorDestroy(t);
  return r;
}

static PyObject *pred_run(PyObject *m, PyObject *cap) {
  (void)m;
  GET(p, PD_Predictor, cap, K_PRED);
  PD_Bool ok;
  Py_BEGIN_ALLOW_THREADS
  ok = PD_PredictorRun(p);
  Py_END_ALLOW_THREADS
  return checked_none(ok);
}

static PyObject *pred_clear(PyObject *m, PyObject *cap) {
  (void)m;
  GET(p, PD_Predictor, cap, K_PRED);
  return checked_none(PD_PredictorClearIntermediateTensor(p));
}

static PyObject *pred_shrink(PyObject *m, PyObject *cap) {
  (void)m;
  GET(p, PD_Predictor, cap, K_PRED);
  uint64_t n = PD_PredictorTryShrinkMemory(p);
  if (PD_GetLastErrorCode()) return api_raise();
  return PyLong_FromUnsignedLongLong(n);
}

/* ------------------------------------------------------------------ tensor */
static int shape_arg(PyObject *o, int32_t *shape, size_t *n) {
  PyObject *seq = PySequence_Fast(o, "shape must be a list of ints");
  if (!seq) return 0;
  Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
  if (k > 9) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_ValueError, "shape has %zd dims (at most 9)", k);
    return 0;
  }
  for (Py_ssize_t i = 0; i < k; i++) {
    long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
    if ((v == -1 && PyErr_Occurred()) || v < INT32_MIN || v > INT32_MAX) {
      Py_DECREF(seq);
      if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "shape entry %ld out of range", v);
      return 0;
    }
    shape[i] = (int32_t)v;
  }
  *n = (size_t)k;
  Py_DECREF(seq);
  return 1;
}

static PyObject *t_reshape(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap, *shp;
  if (!PyArg_ParseTuple(args, "OO", &cap, &shp)) return NULL;
  GET(t, PD_Tensor, cap, K_T);
  int32_t shape[16];
  size_t n;
  if (!shape_arg(shp, shape, &n)) return NULL;
  return checked_none(PD_TensorReshape(t, n, shape));
}

/* copy_from_cpu(t, buffer, dtype code, shape): reshape + copy (buffer: C-contiguous bytes) */
static PyObject *t_copy_from(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap, *shp;
  Py_buffer b;
  int dt, share;
  if (!PyArg_ParseTuple(args, "Oy*iOp", &cap, &b, &dt, &shp, &share)) return NULL;
  PD_Tensor *t = (PD_Tensor *)PyCapsule_GetPointer(cap, K_T);
  int32_t shape[16];
  size_t n = 0;
  PD_Bool ok = 0;
  if (t && shape_arg(shp, shape, &n)) {
    size_t need = PD_GetNumBytesOfDataType(dt);
    for (size_t d = 0; d < n; d++) need *= (size_t)(shape[d] < 0 ? 0 : shape[d]);
    if (need != (size_t)b.len) {
      PyBuffer_Release(&b);
      return PyErr_Format(PyExc_ValueError, "copy_from_cpu: the buffer has %zd bytes, the shape needs %zu", b.len, need);
    }
    if (share) ok = PD_TensorShareExternalDataRaw(t, b.buf, n, shape, dt);
    else ok = PD_TensorReshape(t, n, shape) && PD_TensorCopyFromCpuRaw(t, b.buf, dt);
  }
  PyBuffer_Release(&b);
  if (!t || PyErr_Occurred()) return NULL;
  return checked_none(ok);
}

/* copy_to_cpu(t, writable buffer) */
static PyObject *t_copy_to(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap;
  Py_buffer b;
  if (!PyArg_ParseTuple(args, "Ow*", &cap, &b)) return NULL;
  PD_Tensor *t = (PD_Tensor *)PyCapsule_GetPointer(cap, K_T);
  PD_Bool ok = t ? PD_TensorCopyToCpuRaw(t, b.buf, (size_t)b.len) : 0;
  PyBuffer_Release(&b);
  if (!t) return NULL;
  return checked_none(ok);
}

static PyObject *t_shape(PyObject *m, PyObject *cap) {
  (void)m;
  GET(t, PD_Tensor, cap, K_T);
  PD_OneDimArrayInt32 *a = PD_TensorGetShape(t);
  if (!a) return api_raise();
  PyObject *l = PyList_New((Py_ssize_t)a->size);
  for (size_t i = 0; l && i < a->size; i++) PyList_SET_ITEM(l, (Py_ssize_t)i, PyLong_FromLong(a->data[i]));
  PD_OneDimArrayInt32Destroy(a);
  return l;
}

static PyObject *t_type(PyObject *m, PyObject *cap) {
  (void)m;
  GET(t, PD_Tensor, cap, K_T);
  PD_DataType d = PD_TensorGetDataType(t);
  if (PD_GetLastErrorCode()) return api_raise();
  return PyLong_FromLong(d);
}

static PyObject *t_name(PyObject *m, PyObject *cap) {
  (void)m;
  GET(t, PD_Tensor, cap, K_T);
  const char *s = PD_TensorGetName(t);
  if (!s) return api_raise();
  return PyUnicode_FromString(s);
}

static PyObject *t_lod(PyObject *m, PyObject *cap) {
  (void)m;
  GET(t, PD_Tensor, cap, K_T);
  PD_TwoDimArraySize *l = PD_TensorGetLod(t);
  if (!l) return api_raise();
  PyObject *r = PyList_New((Py_ssize_t)l->size);
  for (size_t i = 0; r && i < l->size; i++) {
    PyObject *lv = PyList_New((Py_ssize_t)l->data[i]->size);
    for (size_t k = 0; lv && k < l->data[i]->size; k++)
      PyList_SET_ITEM(lv, (Py_ssize_t)k, PyLong_FromSize_t(l->data[i]->data[k]));
    if (!lv) Py_CLEAR(r);
    else PyList_SET_ITEM(r, (Py_ssize_t)i, lv);
  }
  PD_TwoDimArraySizeDestroy(l);
  return r;
}

static PyObject *t_set_lod(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap, *lod;
  if (!PyArg_ParseTuple(args, "OO", &cap, &lod)) return NULL;
  GET(t, PD_Tensor, cap, K_T);
  PyObject *seq = PySequence_Fast(lod, "lod must be a list of lists of ints");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PD_TwoDimArraySize l = {0, NULL};
  PD_OneDimArraySize *lv = (PD_OneDimArraySize *)calloc((size_t)(n ? n : 1), sizeof *lv);
  PD_OneDimArraySize **pv = (PD_OneDimArraySize **)calloc((size_t)(n ? n : 1), sizeof *pv);
  int ok = lv && pv;
  for (Py_ssize_t i = 0; ok && i < n; i++) {
    PyObject *s = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, i), "a LoD level must be a list of ints");
    if (!s) {
      ok = 0;
      break;
    }
    Py_ssize_t k = PySequence_Fast_GET_SIZE(s);
    lv[i].data = (size_t *)calloc((size_t)(k ? k : 1), sizeof(size_t));
    lv[i].size = (size_t)k;
    pv[i] = &lv[i];
    for (Py_ssize_t j = 0; lv[i].data && j < k; j++) {
      long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(s, j));
      if (v < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "LoD offsets must be >= 0");
        ok = 0;
        break;
      }
      lv[i].data[j] = (size_t)v;
    }
    if (!lv[i].data) ok = 0;
    Py_DECREF(s);
  }
  PyObject *r = NULL;
  if (ok) {
    l.size = (size_t)n;
    l.data = pv;
    r = checked_none(PD_TensorSetLod(t, &l));
  } else if (!PyErr_Occurred()) {
    PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; lv && i < n; i++) free(lv[i].data);
  free(lv);
  free(pv);
  Py_DECREF(seq);
  return r;
}

static PyObject *inf_version(PyObject *m, PyObject *u) {
  (void)m;
  (void)u;
  return PyUnicode_FromString(PD_GetVersion());
}

static PyObject *inf_num_bytes(PyObject *m, PyObject *o) {
  (void)m;
  long d = PyLong_AsLong(o);
  if (d == -1 && PyErr_Occurred()) return NULL;
  size_t n = PD_GetNumBytesOfDataType((PD_DataType)d);
  if (!n) return api_raise();
  return PyLong_FromSize_t(n);
}

static PyObject *inf_has_bf16(PyObject *m, PyObject *u) {
  (void)m;
  (void)u;
  return PyBool_FromLong(PD_CpuHasBfloat16());
}

PyMethodDef pd_py_inference_methods[] = {
    {"infer_config_new", cfg_new, METH_NOARGS, "a new PD_Config"},
    {"infer_config_call", cfg_call, METH_VARARGS, "calls a PD_Config function by name"},
    {"infer_config_set_model_buffer", cfg_set_model_buffer, METH_VARARGS, "PD_ConfigSetModelBuffer"},
    {"infer_config_enable_use_gpu", cfg_enable_use_gpu, METH_VARARGS, "PD_ConfigEnableUseGpu"},
    {"infer_config_all_passes", cfg_all_passes, METH_O, "PD_ConfigAllPasses"},
    {"infer_config_summary", cfg_summary, METH_O, "PD_ConfigSummary"},
    {"infer_predictor_new", pred_new, METH_O, "PD_PredictorCreate"},
    {"infer_predictor_clone", pred_clone, METH_O, "PD_PredictorClone"},
    {"infer_predictor_names", pred_names, METH_VARARGS, "input (False) or output (True) names"},
    {"infer_predictor_infos", pred_infos, METH_VARARGS, "input/output (name, shape, dtype)"},
    {"infer_predictor_handle", pred_handle, METH_VARARGS, "an input/output PD_Tensor"},
    {"infer_predictor_run", pred_run, METH_O, "PD_PredictorRun (without the GIL)"},
    {"infer_predictor_clear", pred_clear, METH_O, "PD_PredictorClearIntermediateTensor"},
    {"infer_predictor_shrink", pred_shrink, METH_O, "PD_PredictorTryShrinkMemory"},
    {"infer_tensor_reshape", t_reshape, METH_VARARGS, "PD_TensorReshape"},
    {"infer_tensor_copy_from", t_copy_from, METH_VARARGS, "reshape + PD_TensorCopyFromCpuRaw / ShareExternalData"},
    {"infer_tensor_copy_to", t_copy_to, METH_VARARGS, "PD_TensorCopyToCpuRaw into a writable buffer"},
    {"infer_tensor_shape", t_shape, METH_O, "PD_TensorGetShape"},
    {"infer_tensor_type", t_type, METH_O, "PD_TensorGetDataType"},
    {"infer_tensor_name", t_name, METH_O, "PD_TensorGetName"},
    {"infer_tensor_lod", t_lod, METH_O, "PD_TensorGetLod"},
    {"infer_tensor_set_lod", t_set_lod, METH_VARARGS, "PD_TensorSetLod"},
    {"infer_version", inf_version, METH_NOARGS, "PD_GetVersion"},
    {"infer_num_bytes", inf_num_bytes, METH_O, "PD_GetNumBytesOfDataType"},
    {"infer_cpu_has_bf16", inf_has_bf16, METH_NOARGS, "PD_CpuHasBfloat16"},
    {NULL, NULL, 0, NULL}};
