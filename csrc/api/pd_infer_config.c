/* PD_Config: where the model is (files, a directory, or memory) and how to run it (threads,
 * analysis passes, IR debug dumps, memory plan, bfloat16, the GPU where the CUDA backend finds
 * one). Switches Paddle-C cannot honour (a GPU where none is found, TensorRT, ONNX Runtime,
 * int8) record nothing and fail with a message; Summary prints a table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_infer_internal.h"
#include "../core/pd_isa.h"
#include "../graph/pd_pass.h"
#include "../core/pd_device.h"

#define CHECK_CFG(ret)                                                                        \
  do {                                                                                        \
    pd_api_clear();                                                                           \
    if (!c) {                                                                                 \
      pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: the config is NULL", __func__);              \
      return ret;                                                                             \
    }                                                                                         \
  } while (0)

static int set_str(char **dst, const char *v, const char *what) {
  char *d = NULL;
  if (v) {
    d = pd_api_strdup(v);
    if (!d) return pd_api_failf(PD_ERR_RESOURCE_EXHAUSTED, "%s: out of memory", what);
  }
  free(*dst);
  *dst = d;
  return 1;
}

static int set_passes(PD_Config *c, int n, const char *const *names) {
  char **p = (char **)calloc((size_t)(n ? n : 1), sizeof(char *));
  if (!p) return 0;
  for (int i = 0; i < n; i++)
    if (!(p[i] = pd_api_strdup(names[i]))) {
      for (int k = 0; k < i; k++) free(p[k]);
      free(p);
      return 0;
    }
  for (int i = 0; i < c->n_passes; i++) free(c->passes[i]);
  free(c->passes);
  c->passes = p;
  c->n_passes = n;
  return 1;
}

PD_Config *PD_ConfigCreate(void) {
  pd_api_clear();
  PD_Config *c = (PD_Config *)calloc(1, sizeof *c);
  if (!c) {
    pd_api_failf(PD_ERR_RESOURCE_EXHAUSTED, "PD_ConfigCreate: out of memory");
    return NULL;
  }
  c->ir_optim = 1;
  c->memory_optim = 0; /* Paddle's default: off (EnableMemoryOptim turns the workspace plan on) */
  c->valid = 1;
  c->fc_padding = 1;
  c->feed_fetch_ops = 0;
  c->specify_input_names = 0;
  c->mkldnn = 1; /* as Paddle 2.6's CPU builds: oneDNN on */
  c->threads = 1;
  int n;
  const char *const *names = pd_pass_default_list(&n);
  if (!set_passes(c, n, names)) {
    free(c);
    pd_api_failf(PD_ERR_RESOURCE_EXHAUSTED, "PD_ConfigCreate: out of memory");
    return NULL;
  }
  return c;
}

void PD_ConfigDestroy(PD_Config *c) {
  /* a destroy cannot fail: it leaves the thread's error as it was */
  if (!c) return;
  free(c->prog_file);
  free(c->params_file);
  free(c->model_dir);
  free(c->opt_cache_dir);
  free(c->prog_buf);
  free(c->params_buf);
  for (int i = 0; i < c->n_passes; i++) free(c->passes[i]);
  free(c->passes);
  free(c);
}

PD_Bool PD_ConfigSetModel(PD_Config *c, const char *prog, const char *params) {
  CHECK_CFG(FALSE);
  if (!prog) return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "PD_ConfigSetModel: the program file path is NULL");
  if (!set_str(&c->prog_file, prog, __func__) || !set_str(&c->params_file, params, __func__)) return FALSE;
  c->from_memory = 0;
  return TRUE;
}
PD_Bool PD_ConfigSetProgFile(PD_Config *c, const char *p) {
  CHECK_CFG(FALSE);
  if (!set_str(&c->prog_file, p, __func__)) return FALSE;
  c->from_memory = 0;
  return TRUE;
}
PD_Bool PD_ConfigSetParamsFile(PD_Config *c, const char *p) {
  CHECK_CFG(FALSE);
  return set_str(&c->params_file, p, __func__) ? TRUE : FALSE;
}
PD_Bool PD_ConfigSetOptimCacheDir(PD_Config *c, const char *d) {
  CHECK_CFG(FALSE);
  return set_str(&c->opt_cache_dir, d, __func__) ? TRUE : FALSE;
}
PD_Bool PD_ConfigSetModelDir(PD_Config *c, const char *d) {
  CHECK_CFG(FALSE);
  if (!d) return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "PD_ConfigSetModelDir: the directory is NULL");
  if (!set_str(&c->model_dir, d, __func__)) return FALSE;
  c->from_memory = 0;
  return TRUE;
}
const char *PD_ConfigGetModelDir(PD_Config *c) {
  CHECK_CFG(NULL);
  return c->model_dir ? c->model_dir : "";
}
const char *PD_ConfigGetProgFile(PD_Config *c) {
  CHECK_CFG(NULL);
  return c->prog_file ? c->prog_file : "";
}
const char *PD_ConfigGetParamsFile(PD_Config *c) {
  CHECK_CFG(NULL);
  return c->params_file ? c->params_file : "";
}

PD_Bool PD_ConfigSetModelBuffer(PD_Config *c, const char *prog, size_t prog_size, const char *params,
                                size_t params_size) {
  CHECK_CFG(FALSE);
  if (!prog || !prog_size) return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "PD_ConfigSetModelBuffer: the program buffer is empty");
  if (!params && params_size) return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "PD_ConfigSetModelBuffer: params buffer NULL with size %zu", params_size);
  uint8_t *a = (uint8_t *)malloc(prog_size), *b = (uint8_t *)malloc(params_size ? params_size : 1);
  if (!a || !b) {
    free(a);
    free(b);
    return pd_api_failf(PD_ERR_RESOURCE_EXHAUSTED, "PD_ConfigSetModelBuffer: out of memory");
  }
  memcpy(a, prog, prog_size);
  if (params_size) memcpy(b, params, params_size);
  free(c->prog_buf);
  free(c->params_buf);
  c->prog_buf = a;
  c->prog_len = prog_size;
  c->params_buf = b;
  c->params_len = params_size;
  c->from_memory = 1;
  return TRUE;
}
PD_Bool PD_ConfigModelFromMemory(PD_Config *c) {
  CHECK_CFG(FALSE);
  return c->from_memory ? TRUE : FALSE;
}

PD_Bool PD_ConfigDisableFCPadding(PD_Config *c) {
  CHECK_CFG(FALSE);
  c->fc_padding = 0;
  return TRUE;
}
PD_Bool PD_ConfigUseFcPadding(PD_Config *c) {
  CHECK_CFG(FALSE);
  return c->fc_padding ? TRUE : FALSE;
}

/* ---------------------------------------------------------------- devices Paddle-C lacks */
static PD_Bool absent(const char *what) {
  return (PD_Bool)pd_api_failf(PD_ERR_UNAVAILABLE, "%s: Paddle-C has no %s; nothing was recorded and the "
                               "predictor runs on the CPU", what,
                               strstr(what, "Gpu") || strstr(what, "Cudnn") ? "GPU (CUDA) support"
                               : strstr(what, "TensorRt")                  ? "TensorRT"
                               : strstr(what, "ONNX")                      ? "ONNX Runtime backend"
                                                                           : "such backend");
}
/* ---------------------------------------------------------------- GPU (the CUDA backend, pd_device.h) */
/* The predictor runs on GPU device_id when the CUDA backend finds one (libpaddle_c_cuda.so and a
 * GPU); elsewhere nothing is recorded and the call fails with PD_ERROR_UNAVAILABLE. float32 only.
 * The memory pool size is recorded and reported; the caching allocator grows on demand. */
PD_Bool PD_ConfigEnableUseGpu(PD_Config *c, uint64_t mb, int32_t dev, PD_PrecisionType prec) {
  CHECK_CFG(FALSE);
  if (pd_cuda_load() != PD_OK || pd_cuda_device_count() < 1)
    return (PD_Bool)pd_api_failf(PD_ERR_UNAVAILABLE, "PD_ConfigEnableUseGpu: no CUDA GPU is available to Paddle-C "
                                 "(%s); nothing was recorded and the predictor runs on the CPU",
                                 pd_cuda_unavailable_reason());
  int n = pd_cuda_device_count();
  if (dev < 0 || dev >= n)
    return (PD_Bool)pd_api_failf(PD_ERR_INVALID_ARGUMENT, "PD_ConfigEnableUseGpu: device_id %d is not a GPU of this "
                                 "machine (%d found); nothing was recorded", (int)dev, n);
  if (prec != PD_PRECISION_FLOAT32)
    return (PD_Bool)pd_api_failf(PD_ERR_UNIMPLEMENTED, "PD_ConfigEnableUseGpu: precision %s on GPU is not "
                                 "implemented in Paddle-C (Float32 only); nothing was recorded",
                                 prec == PD_PRECISION_HALF ? "Half" : prec == PD_PRECISION_BFLOAT16 ? "Bfloat16"
                                 : prec == PD_PRECISION_INT8 ? "Int8" : "(unknown)");
  c->use_gpu = 1;
  c->gpu_device = dev;
  c->gpu_pool_mb = mb;
  return TRUE;
}
PD_Bool PD_ConfigDisableGpu(PD_Config *c) {
  CHECK_CFG(FALSE);
  c->use_gpu = 0;
  c->cudnn = 0;
  return TRUE;
}
PD_Bool PD_ConfigUseGpu(PD_Config *c) {
  CHECK_CFG(FALSE);
  return c->use_gpu ? TRUE : FALSE;
}
int32_t PD_ConfigGpuDeviceId(PD_Config *c) {
  CHECK_CFG(0);
  return c->use_gpu ? c->gpu_device : 0;
}
int32_t PD_ConfigMemoryPoolInitSizeMb(PD_Config *c) {
  CHECK_CFG(0);
  return c->use_gpu ? (int32_t)c->gpu_pool_mb : 0;
}
/* the pool size as a fraction of the GPU's memory (Paddle's formula) */
float PD_ConfigFractionOfGpuMemoryForPool(PD_Config *c) {
  CHECK_CFG(0.0f);
  pd_cuda_props pr;
  if (!c->use_gpu || !pd_cuda || pd_cuda->rt->get_props(c->gpu_device, &pr) != 0 || !pr.total_memory) return 0.0f;
  return (float)((double)c->gpu_pool_mb / ((double)pr.total_memory / 1048576.0));
}
/* convolutions on a GPU predictor run on cuDNN (the CUDA backend's dnn family) */
PD_Bool PD_ConfigEnableCudnn(PD_Config *c) {
  CHECK_CFG(FALSE);
  if (!c->use_gpu)
    return (PD_Bool)pd_api_failf(PD_ERR_UNAVAILABLE, "PD_ConfigEnableCudnn: the predictor is not on a GPU (call "
                                 "PD_ConfigEnableUseGpu first, where a CUDA GPU is available); nothing was recorded");
  c->cudnn = 1;
  return TRUE;
}
PD_Bool PD_ConfigCudnnEnabled(PD_Config *c) {
  CHECK_CFG(FALSE);
  return c->use_gpu && c->cudnn ? TRUE : FALSE;
}
PD_Bool PD_ConfigUseXpu(PD_Config *c) {
  CHECK_CFG(FALSE);
  return FALSE;
}
PD_Bool PD_ConfigEnableONNXRuntime(PD_Config *c) {
  CHECK_CFG(FALSE);
  return absent("PD_ConfigEnableONNXRuntime");
}
PD_Bool PD_ConfigDisableONNXRuntime(PD_Config *c) {
  CHECK_CFG(FALSE);
  return TRUE;
}
PD_Bool PD_ConfigONNXRuntimeEnabled(PD_Config *c) {
  CHECK_CFG(FALSE);
  return FALSE;
}
PD_Bool PD_ConfigEnableTensorRtEngine(PD_Config *c, int64_t ws, int32_t mb, int32_t ms, PD_PrecisionType p,
                                      PD_Bool st, PD_Bool cal) {
  (void)ws;
  (void)mb;
  (void)ms;
  (void)p;
  (void)st;
  (void)cal;
  CHECK_CFG(FALSE);
  return absent("PD_ConfigEnableTensorRtEngine");
}
PD_Bool PD_ConfigTensorRtEngineEnabled(PD_Config *c) {
  CHECK_CFG(FALSE);
  return FALSE;
}
PD_Bool PD_ConfigLiteEngineEnabled(PD_Config *c) {
  CHECK_CFG(FALSE);
  return FALSE;
}

/* ---------------------------------------------------------------- passes */
PD_Bool PD_ConfigSwitchIrOptim(PD_Config *c, PD_Bool x) {
  CHECK_CFG(FALSE);
  c->ir_optim = x != 0;
  return TRUE;
}
PD_Bool PD_ConfigIrOptim(PD_Config *c) {
  CHECK_CFG(FALSE);
  return c->ir_optim ? TRUE : FALSE;
}
PD_Bool PD_ConfigSwitchIrDebug(PD_Config *c, PD_Bool x) {
  CHECK_CFG(FALSE);
  c->ir_debug = x != 0;
  return TRUE;
}
PD_Bool PD_ConfigDeletePass(PD_Config *c, const char *pass) {
  CHECK_CFG(FALSE);
  if (!pass) return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "PD_ConfigDeletePass: the pass name is NULL");
  int w = 0;
  for (int i = 0; i < c->n_passes; i++) {
    if (strcmp(c->passes[i], pass) == 0) free(c->passes[i]);
    else c->passes[w++] = c->passes[i];
  }
  c->n_passes = w;
  return TRUE; /* Paddle: deleting a pass that is not there is not an error */
}
PD_Bool PD_ConfigInsertPass(PD_Config *c, size_t idx, const char *pass) {
  CHECK_CFG(FALSE);
  if (!pass || !pd_pass_known(pass))
    return pd_api_failf(PD_ERR_NOT_FOUND, "PD_ConfigInsertPass: Paddle-C has no pass named %s (PD_ConfigAllPasses "
                        "lists the default ones)", pass ? pass : "(NULL)");
  if (idx > (size_t)c->n_passes) idx = (size_t)c->n_passes;
  char *d = pd_api_strdup(pass);
  char **np = (char **)realloc(c->passes, sizeof(char *) * (size_t)(c->n_passes + 1));
  if (!d || !np) {
    free(d);
    if (np) c->passes = np;
    return pd_api_failf(PD_ERR_RESOURCE_EXHAUSTED, "PD_ConfigInsertPass: out of memory");
  }
  c->passes = np;
  memmove(&np[idx + 1], &np[idx], sizeof(char *) * ((size_t)c->n_passes - idx));
  np[idx] = d;
  c->n_passes++;
  return TRUE;
}
PD_Bool PD_ConfigAppendPass(PD_Config *c, const char *pass) {
  CHECK_CFG(FALSE);
  return PD_ConfigInsertPass(c, (size_t)c->n_passes, pass);
}
PD_OneDimArrayCstr *PD_ConfigAllPasses(PD_Config *c) {
  CHECK_CFG(NULL);
  PD_OneDimArrayCstr *a = pd_api_cstr_array(c->n_passes, c->passes);
  if (!a) pd_api_failf(PD_ERR_RESOURCE_EXHAUSTED, "PD_ConfigAllPasses: out of memory");
  return a;
}

/* ---------------------------------------------------------------- CPU */
PD_Bool PD_ConfigEnableMKLDNN(PD_Config *c) {
  CHECK_CFG(FALSE);
  c->mkldnn = 1;
  return TRUE;
}
PD_Bool PD_ConfigSetMkldnnCacheCapacity(PD_Config *c, int32_t cap) {
  CHECK_CFG(FALSE);
  if (cap < 0) return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "PD_ConfigSetMkldnnCacheCapacity: %d < 0", cap);
  c->mkldnn_cache_capacity = cap;
  return TRUE;
}
PD_Bool PD_ConfigMkldnnEnabled(PD_Config *c) {
  CHECK_CFG(FALSE);
  return c->mkldnn ? TRUE : FALSE;
}
PD_Bool PD_ConfigSetMkldnnOp(PD_Config *c, size_t n, const char **ops) {
  (void)n;
  (void)ops;
  CHECK_CFG(FALSE);
  return TRUE;
}
PD_Bool PD_ConfigEnableMkldnnBfloat16(PD_Config *c) {
  CHECK_CFG(FALSE);
  c->bf16_asked = 1; /* Summary says why it stays off */
  if (!pd_infer_cpu_has_bf16())
    return pd_api_failf(PD_ERR_UNAVAILABLE, "PD_ConfigEnableMkldnnBfloat16: this CPU has neither AVX512_BF16 nor "
                        "AMX-BF16 (cpuid), so the predictor runs in float32");
  if (!pd_bf16_units_enabled())
    return pd_api_failf(PD_ERR_UNAVAILABLE, "PD_ConfigEnableMkldnnBfloat16: PADDLE_C_BF16_UNITS=0 turns the CPU's "
                        "bf16 units off, so the predictor runs in float32");
  c->bf16 = 1; /* the convolutions run in bfloat16 (conv_dnnl.h pd_conv_bf16_infer) */
  return TRUE;
}
PD_Bool PD_ConfigMkldnnBfloat16Enabled(PD_Config *c) {
  CHECK_CFG(FALSE);
  return c->bf16 ? TRUE : FALSE;
}
PD_Bool PD_ConfigSetBfloat16Op(PD_Config *c, size_t n, const char **ops) {
  (void)n;
  (void)ops;
  CHECK_CFG(FALSE);
  return TRUE;
}
PD_Bool PD_ConfigEnableMkldnnQuantizer(PD_Config *c) {
  CHECK_CFG(FALSE);
  return pd_api_failf(PD_ERR_UNIMPLEMENTED, "PD_ConfigEnableMkldnnQuantizer: int8 quantization is not "
                      "implemented in Paddle-C; nothing was recorded");
}
PD_Bool PD_ConfigMkldnnQuantizerEnabled(PD_Config *c) {
  CHECK_CFG(FALSE);
  return FALSE;
}
PD_Bool PD_ConfigEnableMkldnnInt8(PD_Config *c) {
  CHECK_CFG(FALSE);
  return pd_api_failf(PD_ERR_UNIMPLEMENTED, "PD_ConfigEnableMkldnnInt8: int8 inference is not implemented "
                      "in Paddle-C; nothing was recorded");
}
PD_Bool PD_ConfigMkldnnInt8Enabled(PD_Config *c) {
  CHECK_CFG(FALSE);
  return FALSE;
}
PD_Bool PD_ConfigSetCpuMathLibraryNumThreads(PD_Config *c, int32_t n) {
  CHECK_CFG(FALSE);
  if (n < 1 || n > 4096)
    return pd_api_failf(PD_ERR_INVALID_ARGUMENT, "PD_ConfigSetCpuMathLibraryNumThreads: %d is not in [1, 4096]", n);
  c->threads = n;
  return TRUE;
}
int32_t PD_ConfigGetCpuMathLibraryNumThreads(PD_Config *c) {
  CHECK_CFG(0);
  return c->threads;
}

/* ---------------------------------------------------------------- misc switches */
#define SWITCH(NAME, FIELD)                 \
  PD_Bool NAME(PD_Config *c, PD_Bool x) {   \
    CHECK_CFG(FALSE);                       \
    c->FIELD = x != 0;                      \
    return TRUE;                            \
  }
#define SETTER(NAME, FIELD)                 \
  PD_Bool NAME(PD_Config *c) {              \
    CHECK_CFG(FALSE);                       \
    c->FIELD = 1;                           \
    return TRUE;                            \
  }
#define GETTER(NAME, FIELD)                 \
  PD_Bool NAME(PD_Config *c) {              \
    CHECK_CFG(FALSE);                       \
    return c->FIELD ? TRUE : FALSE;         \
  }
SWITCH(PD_ConfigEnableMemoryOptim, memory_optim)
GETTER(PD_ConfigMemoryOptimEnabled, memory_optim)
SETTER(PD_ConfigEnableProfile, profile)
GETTER(PD_ConfigProfileEnabled, profile)
SETTER(PD_ConfigDisableGlogInfo, glog_off)
GETTER(PD_ConfigGlogInfoDisabled, glog_off)
SWITCH(PD_ConfigSwitchSpecifyInputNames, specify_input_names)
GETTER(PD_ConfigSpecifyInputName, specify_input_names)
SWITCH(PD_ConfigSwitchUseFeedFetchOps, feed_fetch_ops)
GETTER(PD_ConfigUseFeedFetchOpsEnabled, feed_fetch_ops)
GETTER(PD_ConfigIsValid, valid)

PD_Bool PD_ConfigSetInvalid(PD_Config *c) {
  CHECK_CFG(FALSE);
  c->valid = 0;
  return TRUE;
}
PD_Bool PD_ConfigPartiallyRelease(PD_Config *c) {
  CHECK_CFG(FALSE);
  free(c->prog_buf);
  free(c->params_buf);
  c->prog_buf = c->params_buf = NULL;
  c->prog_len = c->params_len = 0;
  c->from_memory = 0;
  return TRUE;
}

/* ---------------------------------------------------------------- summary */
typedef struct {
  char *s;
  size_t n, cap;
} sbuf;
static void add(sbuf *b, const char *k, const char *v) {
  char line[1024];
  int n = snprintf(line, sizeof line, "| %-28s | %-44s |\n", k, v ? v : "");
  if (n < 0) return;
  if ((size_t)n >= sizeof line) n = sizeof line - 1;
  if (b->n + (size_t)n + 1 > b->cap) {
    size_t nc = (b->cap + (size_t)n + 1) * 2;
    char *ns = (char *)realloc(b->s, nc);
    if (!ns) return;
    b->s = ns;
    b->cap = nc;
  }
  memcpy(b->s + b->n, line, (size_t)n);
  b->n += (size_t)n;
  b->s[b->n] = 0;
}

PD_Cstr *PD_ConfigSummary(PD_Config *c) {
  CHECK_CFG(NULL);
  sbuf b = {NULL, 0, 0};
  char num[64];
  const char *rule = "+------------------------------+----------------------------------------------+";
  add(&b, "Option", "Value");
  if (c->from_memory) {
    add(&b, "model_from_memory", "true");
  } else {
    if (c->model_dir) add(&b, "model_dir", c->model_dir);
    if (c->prog_file) add(&b, "model_file", c->prog_file);
    if (c->params_file) add(&b, "params_file", c->params_file);
  }
  add(&b, "cpu_math_thread", (snprintf(num, sizeof num, "%d", c->threads), num));
  add(&b, "enable_mkldnn", c->mkldnn ? "true" : "false (oneDNN convolutions still)");
  add(&b, "mkldnn_bfloat16",
      c->bf16                      ? "true (convolutions: bf16 src/weights, f32 sums and output)"
      : !c->bf16_asked             ? "false"
      : !pd_infer_cpu_has_bf16()   ? "false (CPU: no avx512_bf16/AMX-BF16)"
                                   : "false (PADDLE_C_BF16_UNITS=0)");
  if (c->use_gpu) {
    add(&b, "use_gpu", "true");
    add(&b, "gpu_device_id", (snprintf(num, sizeof num, "%d", c->gpu_device), num));
    add(&b, "memory_pool_init_size", (snprintf(num, sizeof num, "%lluMB", (unsigned long long)c->gpu_pool_mb), num));
    add(&b, "use_cudnn", c->cudnn ? "true" : "false");
  } else {
    add(&b, "use_gpu", "false");
  }
  add(&b, "ir_optim", c->ir_optim ? "true" : "false");
  add(&b, "ir_debug", c->ir_debug ? "true" : "false");
  add(&b, "memory_optim", c->memory_optim ? "true" : "false");
  add(&b, "enable_profile", c->profile ? "true" : "false");
  add(&b, "use_tensorrt", "false (absent)");
  add(&b, "use_onnxruntime", "false (absent)");
  for (int i = 0; i < c->n_passes; i++) add(&b, i ? "" : "passes", c->passes[i]);
  size_t total = b.n + (strlen(rule) + 1) * 3 + 1;
  char *out = (char *)malloc(total);
  PD_Cstr *r = NULL;
  if (out && b.s) {
    const char *nl = strchr(b.s, '\n');
    size_t head = nl ? (size_t)(nl - b.s) + 1 : b.n;
    snprintf(out, total, "%s\n%.*s%s\n%s%s\n", rule, (int)head, b.s, rule, b.s + head, rule);
    r = pd_api_cstr(out);
  }
  free(out);
  free(b.s);
  if (!r) pd_api_failf(PD_ERR_RESOURCE_EXHAUSTED, "PD_ConfigSummary: out of memory");
  return r;
}
