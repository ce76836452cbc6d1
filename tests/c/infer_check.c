/* A C program over the C inference API alone (pd_inference_api.h, libpaddle_inference_c.so; no
 * Python), driven by tests/python/test_inference_capi.py:
 *   infer_check run PROG PARAMS IR THREADS OUTDIR NAME=FILE:DTYPE:D0,D1,.. ...
 *       runs the model on raw little-endian inputs, writes OUTDIR/<i>.bin and OUTDIR/outputs.txt
 *       ("name dtype d0,d1,..." per output)
 *   infer_check threads PROG PARAMS N NAME=FILE:DTYPE:DIMS ...
 *       one predictor and N-1 clones run in N threads, 3 rounds each: prints "identical" when every
 *       output of every thread equals the first predictor's bit for bit
 *   infer_check errors PROG PARAMS
 *       bad input through the API: every case must fail with a status and a message, never crash;
 *       prints one line per case ("ok <case>: <code> <message>") and "errors: N checked"
 *   infer_check fuzz PROG PARAMS SEED ITERS
 *       mutated program / params bytes from memory and random shapes/dtypes/names: prints counts
 * INFER_CHECK_GPU=N (run, threads): the predictors run on GPU N (PD_ConfigEnableUseGpu). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_inference_api.h"

static int fails;
#define FAIL(...)                      \
  do {                                 \
    fprintf(stderr, "FAIL: ");         \
    fprintf(stderr, __VA_ARGS__);      \
    fprintf(stderr, "\n");             \
    fails++;                           \
  } while (0)

static void *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *b = malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return b;
}

typedef struct {
  char name[4096];
  int32_t shape[8];
  size_t nd;
  PD_DataType dt;
  void *data;
} input;

static PD_DataType dtype_of(const char *s) {
  if (!strcmp(s, "float32")) return PD_DATA_FLOAT32;
  if (!strcmp(s, "int64")) return PD_DATA_INT64;
  if (!strcmp(s, "int32")) return PD_DATA_INT32;
  if (!strcmp(s, "uint8")) return PD_DATA_UINT8;
  if (!strcmp(s, "int8")) return PD_DATA_INT8;
  return PD_DATA_UNK;
}
static const char *dtype_name(PD_DataType d) {
  switch (d) {
    case PD_DATA_FLOAT32: return "float32";
    case PD_DATA_INT64: return "int64";
    case PD_DATA_INT32: return "int32";
    case PD_DATA_UINT8: return "uint8";
    case PD_DATA_INT8: return "int8";
    case PD_DATA_FLOAT16: return "float16";
    case PD_DATA_BOOL: return "bool";
    case PD_DATA_FLOAT64: return "float64";
    default: return "unknown";
  }
}

/* NAME=FILE:DTYPE:D0,D1,.. */
static int parse_input(const char *arg, input *in) {
  memset(in, 0, sizeof *in);
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", arg);
  char *eq = strchr(buf, '='), *c2 = strrchr(buf, ':');
  if (!eq || !c2) return 0;
  *eq = 0;
  *c2 = 0;
  char *c1 = strrchr(eq + 1, ':');
  if (!c1) return 0;
  *c1 = 0;
  snprintf(in->name, sizeof in->name, "%s", buf);
  in->dt = dtype_of(c1 + 1);
  for (char *p = c2 + 1; *p && in->nd < 8;) {
    in->shape[in->nd++] = (int32_t)strtol(p, &p, 10);
    if (*p == ',') p++;
  }
  size_t len;
  in->data = read_all(eq + 1, &len);
  return in->data != NULL;
}

static int set_input(PD_Predictor *p, const input *in) {
  PD_Tensor *t = PD_PredictorGetInputHandle(p, in->name);
  if (!t) return 0;
  int32_t shape[8];
  memcpy(shape, in->shape, sizeof shape);
  int ok = PD_TensorReshape(t, in->nd, shape);
  if (ok) {
    switch (in->dt) {
      case PD_DATA_FLOAT32: ok = PD_TensorCopyFromCpuFloat(t, (const float *)in->data); break;
      case PD_DATA_INT64: ok = PD_TensorCopyFromCpuInt64(t, (const int64_t *)in->data); break;
      case PD_DATA_INT32: ok = PD_TensorCopyFromCpuInt32(t, (const int32_t *)in->data); break;
      case PD_DATA_UINT8: ok = PD_TensorCopyFromCpuUint8(t, (const uint8_t *)in->data); break;
      case PD_DATA_INT8: ok = PD_TensorCopyFromCpuInt8(t, (const int8_t *)in->data); break;
      default: ok = PD_TensorCopyFromCpuRaw(t, in->data, in->dt);
    }
  }
  PD_TensorDestroy(t);
  return ok;
}

static PD_Config *config(const char *prog, const char *params, int ir, int threads) {
  PD_Config *c = PD_ConfigCreate();
  PD_ConfigSetModel(c, prog, params);
  const char *gpu = getenv("INFER_CHECK_GPU"); /* a device id: the predictor runs on that GPU */
  if (gpu && *gpu) {
    int dev = atoi(gpu);
    if (!PD_ConfigEnableUseGpu(c, 64, dev, PD_PRECISION_FLOAT32) || !PD_ConfigUseGpu(c) ||
        PD_ConfigGpuDeviceId(c) != dev || PD_ConfigMemoryPoolInitSizeMb(c) != 64) {
      printf("EnableUseGpu(%d) failed: %s\n", dev, PD_GetLastErrorMsg());
      exit(4);
    }
  } else {
    PD_ConfigDisableGpu(c);
  }
  PD_ConfigSwitchIrOptim(c, (PD_Bool)ir);
  PD_ConfigSetCpuMathLibraryNumThreads(c, threads);
  return c;
}

/* an output's bytes (malloc'd) and element count */
static void *output(PD_Predictor *p, const char *name, PD_DataType *dt, PD_OneDimArrayInt32 **shape, size_t *nbytes) {
  PD_Tensor *t = PD_PredictorGetOutputHandle(p, name);
  if (!t) return NULL;
  *dt = PD_TensorGetDataType(t);
  *shape = PD_TensorGetShape(t);
  size_t n = 1;
  for (size_t d = 0; *shape && d < (*shape)->size; d++) n *= (size_t)(*shape)->data[d];
  *nbytes = n * PD_GetNumBytesOfDataType(*dt);
  void *buf = malloc(*nbytes ? *nbytes : 1);
  if (!PD_TensorCopyToCpuRaw(t, buf, *nbytes)) {
    free(buf);
    buf = NULL;
  }
  PD_TensorDestroy(t);
  return buf;
}

static int cmd_run(int argc, char **argv) {
  if (argc < 7) return 2;
  PD_Config *c = config(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
  PD_Predictor *p = PD_PredictorCreate(c);
  PD_ConfigDestroy(c);
  if (!p) {
    printf("create failed: %d %s\n", PD_GetLastErrorCode(), PD_GetLastErrorMsg());
    return 3;
  }
  for (int i = 7; i < argc; i++) {
    input in;
    if (!parse_input(argv[i], &in) || !set_input(p, &in)) {
      printf("input %s failed: %s\n", argv[i], PD_GetLastErrorMsg());
      return 3;
    }
    free(in.data);
  }
  if (!PD_PredictorRun(p)) {
    printf("run failed: %d %s\n", PD_GetLastErrorCode(), PD_GetLastErrorMsg());
    return 3;
  }
  PD_OneDimArrayCstr *names = PD_PredictorGetOutputNames(p);
  char path[4096];
  snprintf(path, sizeof path, "%s/outputs.txt", argv[6]);
  FILE *meta = fopen(path, "w");
  for (size_t i = 0; i < names->size; i++) {
    PD_DataType dt;
    PD_OneDimArrayInt32 *shape;
    size_t nb;
    void *buf = output(p, names->data[i], &dt, &shape, &nb);
    if (!buf) {
      printf("output %s failed: %s\n", names->data[i], PD_GetLastErrorMsg());
      return 3;
    }
    const char *gpu = getenv("INFER_CHECK_GPU");
    if (gpu && *gpu && dt == PD_DATA_FLOAT32) { /* zero-copy Data of a GPU predictor: the device pointer */
      PD_Tensor *t = PD_PredictorGetOutputHandle(p, names->data[i]);
      PD_PlaceType place = PD_PLACE_UNK;
      int32_t n = -1;
      if (!PD_TensorDataFloat(t, &place, &n) || place != PD_PLACE_GPU || (size_t)n * 4 != nb) {
        printf("output %s: Data on a GPU predictor gave place %d, %d elements\n", names->data[i], (int)place, n);
        return 3;
      }
      PD_TensorDestroy(t);
    } else if (dt == PD_DATA_FLOAT32) {
      /* zero-copy Data on the CPU: the bytes CopyToCpu gave (an output the predictor left in
       * oneDNN's blocked layout is made plain for it), and a second CopyToCpu after it agrees */
      PD_Tensor *t = PD_PredictorGetOutputHandle(p, names->data[i]);
      PD_PlaceType place = PD_PLACE_UNK;
      int32_t n = -1;
      const float *d = PD_TensorDataFloat(t, &place, &n);
      void *again = malloc(nb ? nb : 1);
      if (!d || place != PD_PLACE_CPU || (size_t)n * 4 != nb || memcmp(d, buf, nb) != 0 ||
          !PD_TensorCopyToCpuFloat(t, (float *)again) || memcmp(again, buf, nb) != 0) {
        printf("output %s: zero-copy Data (place %d, %d elements) differs from CopyToCpu\n", names->data[i], (int)place, n);
        return 3;
      }
      free(again);
      PD_TensorDestroy(t);
    }
    fprintf(meta, "%s %s ", names->data[i], dtype_name(dt));
    for (size_t d = 0; d < shape->size; d++) fprintf(meta, "%s%d", d ? "," : "", shape->data[d]);
    fprintf(meta, "\n");
    snprintf(path, sizeof path, "%s/%zu.bin", argv[6], i);
    FILE *f = fopen(path, "wb");
    fwrite(buf, 1, nb, f);
    fclose(f);
    free(buf);
    PD_OneDimArrayInt32Destroy(shape);
  }
  fclose(meta);
  PD_OneDimArrayCstrDestroy(names);
  PD_PredictorDestroy(p);
  printf("ok\n");
  return 0;
}

/* ---------------------------------------------------------------- threads */
typedef struct {
  PD_Predictor *p;
  input *in;
  int n_in;
  void *out;      /* first output's bytes of the last round */
  size_t nbytes;
  int ok;
} job;

static void *worker(void *arg) {
  job *j = (job *)arg;
  j->ok = 1;
  for (int round = 0; round < 3 && j->ok; round++) {
    for (int i = 0; i < j->n_in && j->ok; i++) j->ok = set_input(j->p, &j->in[i]);
    if (j->ok) j->ok = PD_PredictorRun(j->p);
    if (!j->ok) break;
    PD_OneDimArrayCstr *names = PD_PredictorGetOutputNames(j->p);
    PD_DataType dt;
    PD_OneDimArrayInt32 *shape;
    free(j->out);
    j->out = output(j->p, names->data[0], &dt, &shape, &j->nbytes);
    PD_OneDimArrayInt32Destroy(shape);
    PD_OneDimArrayCstrDestroy(names);
    j->ok = j->out != NULL;
  }
  return NULL;
}

static int cmd_threads(int argc, char **argv) {
  if (argc < 6) return 2;
  int n = atoi(argv[4]);
  if (n < 1 || n > 64) return 2;
  int n_in = argc - 5;
  input *in = (input *)calloc((size_t)n_in, sizeof(input));
  for (int i = 0; i < n_in; i++)
    if (!parse_input(argv[5 + i], &in[i])) return 2;
  PD_Config *c = config(argv[2], argv[3], 1, 1);
  PD_Predictor *main_p = PD_PredictorCreate(c);
  PD_ConfigDestroy(c);
  if (!main_p) {
    printf("create failed: %s\n", PD_GetLastErrorMsg());
    return 3;
  }
  job *jobs = (job *)calloc((size_t)n, sizeof(job));
  pthread_t *th = (pthread_t *)calloc((size_t)n, sizeof(pthread_t));
  for (int k = 0; k < n; k++) {
    jobs[k].p = k ? PD_PredictorClone(main_p) : main_p;
    jobs[k].in = in;
    jobs[k].n_in = n_in;
    if (!jobs[k].p) {
      printf("clone failed: %s\n", PD_GetLastErrorMsg());
      return 3;
    }
  }
  for (int k = 0; k < n; k++) pthread_create(&th[k], NULL, worker, &jobs[k]);
  for (int k = 0; k < n; k++) pthread_join(th[k], NULL);
  int same = 1;
  for (int k = 0; k < n; k++) {
    if (!jobs[k].ok) {
      printf("thread %d failed\n", k);
      same = 0;
      continue;
    }
    if (jobs[k].nbytes != jobs[0].nbytes || memcmp(jobs[k].out, jobs[0].out, jobs[0].nbytes) != 0) same = 0;
  }
  /* the weights are shared: destroying the first predictor leaves the clones working */
  PD_PredictorDestroy(main_p);
  if (n > 1) {
    job again = jobs[1];
    again.out = NULL;
    worker(&again);
    if (!again.ok || again.nbytes != jobs[0].nbytes || memcmp(again.out, jobs[0].out, jobs[0].nbytes) != 0) same = 0;
    free(again.out);
  }
  for (int k = 1; k < n; k++) PD_PredictorDestroy(jobs[k].p);
  for (int k = 0; k < n; k++) free(jobs[k].out);
  for (int i = 0; i < n_in; i++) free(in[i].data);
  free(in);
  free(jobs);
  free(th);
  printf(same ? "identical\n" : "different\n");
  return same ? 0 : 1;
}

/* ---------------------------------------------------------------- errors */
static int n_checked;
static void expect_fail(int ok, const char *what) {
  n_checked++;
  if (ok) {
    FAIL("%s: succeeded", what);
    return;
  }
  if (PD_GetLastErrorCode() == PD_ERROR_NONE || !PD_GetLastErrorMsg()[0]) {
    FAIL("%s: failed without a code and message", what);
    return;
  }
  printf("ok %s: %d %s\n", what, PD_GetLastErrorCode(), PD_GetLastErrorMsg());
}

static char tmpdir[256];
static char *write_tmp(const char *name, const void *data, size_t n) {
  static char path[8][512];
  static int k;
  char *p = path[k++ % 8];
  snprintf(p, 512, "%s/%s", tmpdir, name);
  FILE *f = fopen(p, "wb");
  if (n) fwrite(data, 1, n, f);
  fclose(f);
  return p;
}

static PD_Predictor *create(const char *prog, const char *params) {
  PD_Config *c = config(prog, params, 1, 1);
  PD_Predictor *p = PD_PredictorCreate(c);
  PD_ConfigDestroy(c);
  return p;
}

static int cmd_errors(int argc, char **argv) {
  if (argc < 4) return 2;
  const char *prog = argv[2], *params = argv[3];
  snprintf(tmpdir, sizeof tmpdir, "/tmp/infer_check_XXXXXX");
  if (!mkdtemp(tmpdir)) return 2;
  size_t plen, qlen;
  uint8_t *pbuf = (uint8_t *)read_all(prog, &plen), *qbuf = (uint8_t *)read_all(params, &qlen);
  if (!pbuf || !qbuf) return 2;

  expect_fail(create("/nonexistent/model.pdmodel", params) != NULL, "missing program file");
  expect_fail(create(prog, "/nonexistent/model.pdiparams") != NULL, "missing params file");
  expect_fail(create(write_tmp("empty.pdmodel", "", 0), params) != NULL, "empty program file");
  expect_fail(create(write_tmp("junk.pdmodel", "\xff\xff\xff\xff garbage", 13), params) != NULL, "corrupt program file");
  expect_fail(create(prog, write_tmp("trunc.pdiparams", qbuf, qlen / 2)) != NULL, "truncated params file");
  uint8_t *more = (uint8_t *)malloc(qlen + 16);
  memcpy(more, qbuf, qlen);
  memset(more + qlen, 7, 16);
  expect_fail(create(prog, write_tmp("long.pdiparams", more, qlen + 16)) != NULL, "params with bytes left over");
  free(more);
  expect_fail(create(prog, write_tmp("cut.pdmodel", pbuf, plen * 2 / 3)) != NULL, "truncated program file");
  expect_fail(create(prog, NULL) != NULL, "no params file for a program with weights");
  PD_Config *c = PD_ConfigCreate();
  expect_fail(PD_PredictorCreate(c) != NULL, "config without a model");
  expect_fail(PD_ConfigSetModelDir(c, "/nonexistent") && PD_PredictorCreate(c) != NULL, "missing model dir");
  PD_ConfigDestroy(c);
  expect_fail(PD_PredictorCreate(NULL) != NULL, "NULL config");
  expect_fail(PD_PredictorRun(NULL), "run on a NULL predictor");
  expect_fail(PD_TensorReshape(NULL, 0, NULL), "reshape of a NULL tensor");

  PD_Predictor *p = create(prog, params);
  if (!p) {
    FAIL("the good model does not load: %s", PD_GetLastErrorMsg());
    return 1;
  }
  expect_fail(PD_PredictorRun(p), "run before inputs are set");
  expect_fail(PD_PredictorGetInputHandle(p, "no_such_input") != NULL, "wrong input name");
  expect_fail(PD_PredictorGetOutputHandle(p, "no_such_output") != NULL, "wrong output name");
  expect_fail(PD_PredictorGetInputHandle(p, NULL) != NULL, "NULL input name");
  PD_OneDimArrayCstr *in_names = PD_PredictorGetInputNames(p);
  PD_IOInfos *infos = PD_PredictorGetInputInfos(p);
  PD_Tensor *t = PD_PredictorGetInputHandle(p, in_names->data[0]);
  const PD_IOInfo *info = infos->io_info[0];
  /* shapes the program cannot take: refused by Reshape (need_check_feed inputs) or by the run */
  float *zeros = (float *)calloc(1 << 22, 1);
  int32_t bad_rank[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  expect_fail(PD_TensorReshape(t, info->shape->size + 1, bad_rank) && PD_TensorCopyFromCpuFloat(t, zeros) &&
              PD_PredictorRun(p), "wrong input rank");
  int32_t neg[8] = {-3, 3, 8, 8, 0, 0, 0, 0};
  expect_fail(PD_TensorReshape(t, info->shape->size, neg), "negative input size");
  int fixed = -1;
  for (size_t d = 0; d < info->shape->size; d++)
    if (info->shape->data[d] > 0 && fixed < 0) fixed = (int)d; /* the channels */
  if (fixed >= 0) {
    int32_t s[8];
    for (size_t d = 0; d < info->shape->size; d++) s[d] = info->shape->data[d] > 0 ? (int32_t)info->shape->data[d] : 8;
    s[fixed] += 1;
    expect_fail(PD_TensorReshape(t, info->shape->size, s) && PD_TensorCopyFromCpuFloat(t, zeros) && PD_PredictorRun(p),
                "input channels differing from the program's");
  }
  free(zeros);
  int32_t s[8];
  for (size_t d = 0; d < info->shape->size; d++) s[d] = info->shape->data[d] > 0 ? (int32_t)info->shape->data[d] : 1;
  if (!PD_TensorReshape(t, info->shape->size, s)) FAIL("a good reshape failed: %s", PD_GetLastErrorMsg());
  int64_t i64[64] = {0};
  if (info->dtype == PD_DATA_FLOAT32) {
    int64_t *big = (int64_t *)calloc(1 << 22, 1);
    expect_fail(PD_TensorCopyFromCpuInt64(t, big), "int64 data for a float32 input");
    free(big);
  }
  expect_fail(PD_TensorCopyFromCpuFloat(t, NULL), "NULL data");
  PD_Predictor *fresh = create(prog, params); /* no run yet */
  PD_OneDimArrayCstr *out_names = PD_PredictorGetOutputNames(fresh);
  PD_Tensor *o = PD_PredictorGetOutputHandle(fresh, out_names->data[0]);
  PD_OneDimArrayCstrDestroy(out_names);
  expect_fail(PD_TensorCopyToCpuFloat(o, (float *)i64), "copying out an output before Run");
  expect_fail(PD_TensorReshape(o, 1, s), "reshaping an output");
  PD_TensorDestroy(o);
  PD_PredictorDestroy(fresh);
  PD_TensorDestroy(t);
  PD_IOInfosDestroy(infos);
  PD_OneDimArrayCstrDestroy(in_names);
  PD_PredictorDestroy(p);

  /* switches Paddle-C cannot honour fail with a message */
  c = PD_ConfigCreate();
  /* no such GPU anywhere (UNAVAILABLE without one), and half precision (UNIMPLEMENTED with one) */
  expect_fail(PD_ConfigEnableUseGpu(c, 100, 100000, PD_PRECISION_FLOAT32), "EnableUseGpu(device 100000)");
  expect_fail(PD_ConfigEnableUseGpu(c, 100, 0, PD_PRECISION_HALF), "EnableUseGpu(Half)");
  if (PD_ConfigUseGpu(c)) FAIL("UseGpu is TRUE");
  expect_fail(PD_ConfigEnableTensorRtEngine(c, 1 << 20, 1, 3, PD_PRECISION_FLOAT32, 0, 0), "EnableTensorRtEngine");
  expect_fail(PD_ConfigDeletePass(c, NULL), "DeletePass(NULL)");
  const char *units_env = getenv("PADDLE_C_BF16_UNITS"); /* =0 turns the units off */
  if (PD_CpuHasBfloat16() && !(units_env && strcmp(units_env, "0") == 0)) { /* the convolutions run in bfloat16 */
    if (!PD_ConfigEnableMkldnnBfloat16(c) || !PD_ConfigMkldnnBfloat16Enabled(c)) FAIL("EnableMkldnnBfloat16 with avx512_bf16/AMX");
  } else {
    expect_fail(PD_ConfigEnableMkldnnBfloat16(c), "EnableMkldnnBfloat16 without avx512_bf16/AMX");
    if (PD_ConfigMkldnnBfloat16Enabled(c)) FAIL("bfloat16 claimed");
  }
  PD_ConfigDestroy(c);
  free(pbuf);
  free(qbuf);
  printf("errors: %d checked\n", n_checked);
  return fails ? 1 : 0;
}

/* ---------------------------------------------------------------- fuzz */
static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static int cmd_fuzz(int argc, char **argv) {
  if (argc < 6) return 2;
  size_t plen, qlen;
  uint8_t *pbuf = (uint8_t *)read_all(argv[2], &plen), *qbuf = (uint8_t *)read_all(argv[3], &qlen);
  if (!pbuf || !qbuf) return 2;
  rng ^= (uint64_t)strtoull(argv[4], NULL, 10) * 0x9E3779B97F4A7C15ull;
  int iters = atoi(argv[5]), loaded = 0, refused = 0, runs_ok = 0, runs_refused = 0;
  uint8_t *pm = (uint8_t *)malloc(plen), *qm = (uint8_t *)malloc(qlen);
  for (int it = 0; it < iters; it++) {
    memcpy(pm, pbuf, plen);
    memcpy(qm, qbuf, qlen);
    size_t pl = plen, ql = qlen;
    int which = (int)(next() % 3);
    int nmut = 1 + (int)(next() % 8);
    for (int k = 0; k < nmut; k++) {
      uint8_t *b = which == 1 ? qm : pm;
      size_t n = which == 1 ? ql : pl;
      if (which == 2) { /* params header region: first bytes */
        b = qm;
        n = ql < 64 ? ql : 64;
      }
      switch (next() % 4) {
        case 0: b[next() % n] ^= (uint8_t)(1u << (next() % 8)); break;
        case 1: b[next() % n] = (uint8_t)next(); break;
        case 2: b[next() % n] = 0xff; break;
        default:
          if (which == 1) ql = next() % ql;
          else if (which == 0) pl = next() % pl;
      }
    }
    PD_Config *c = PD_ConfigCreate();
    PD_ConfigSetModelBuffer(c, (const char *)pm, pl, (const char *)qm, ql);
    PD_ConfigSwitchIrOptim(c, (PD_Bool)(next() & 1));
    PD_Predictor *p = PD_PredictorCreate(c);
    PD_ConfigDestroy(c);
    if (!p) {
      if (!PD_GetLastErrorMsg()[0]) FAIL("a refused model has no message");
      refused++;
      continue;
    }
    loaded++;
    /* random inputs: shapes, dtypes, and sometimes missing */
    PD_OneDimArrayCstr *names = PD_PredictorGetInputNames(p);
    int ok = 1;
    for (size_t i = 0; i < names->size && ok; i++) {
      if (next() % 10 == 0) continue;
      PD_Tensor *t = PD_PredictorGetInputHandle(p, names->data[i]);
      int32_t shape[5];
      size_t nd = 1 + next() % 5;
      int64_t numel = 1;
      for (size_t d = 0; d < nd; d++) {
        shape[d] = (int32_t)(next() % 4 == 0 ? next() % 5 : 1 + next() % 40);
        numel *= shape[d];
      }
      if (PD_TensorReshape(t, nd, shape)) {
        float *buf = (float *)calloc((size_t)(numel ? numel : 1), 8);
        ok = (next() & 1) ? PD_TensorCopyFromCpuFloat(t, buf) : PD_TensorCopyFromCpuInt64(t, (int64_t *)buf);
        free(buf);
      }
      PD_TensorDestroy(t);
    }
    PD_OneDimArrayCstrDestroy(names);
    if (PD_PredictorRun(p)) runs_ok++;
    else {
      if (!PD_GetLastErrorMsg()[0]) FAIL("a failed run has no message");
      runs_refused++;
    }
    PD_PredictorDestroy(p);
  }
  free(pm);
  free(qm);
  free(pbuf);
  free(qbuf);
  printf("fuzz: %d refused, %d loaded, %d runs ok, %d runs refused\n", refused, loaded, runs_ok, runs_refused);
  return fails ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  int r = 2;
  if (!strcmp(argv[1], "run")) r = cmd_run(argc, argv);
  else if (!strcmp(argv[1], "threads")) r = cmd_threads(argc, argv);
  else if (!strcmp(argv[1], "errors")) r = cmd_errors(argc, argv);
  else if (!strcmp(argv[1], "fuzz")) r = cmd_fuzz(argc, argv);
  return r;
}
