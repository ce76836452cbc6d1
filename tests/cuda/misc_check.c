/* Standalone GPU check of the CUDA 'misc' launchers (csrc/cuda/misc.cu) against the CPU kernels
 * themselves (csrc/kernels/cpu/optim.c and common.c's dropout are linked in, with stubs for the
 * few core functions they call) and against direct loops for the index ops. Results must be
 * bit-identical. Build and run on a GPU machine: tests/cuda/run_misc_check.sh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <cuda_runtime_api.h>
#include "../../csrc/core/pd_random.h"
#include "../../csrc/kernels/cpu/pd_kernel_util.h"
#include "../../csrc/cuda/pd_cuda_misc.h"

extern const pd_cuda_misc pd_cuda_misc_table;
static const pd_cuda_misc *M = &pd_cuda_misc_table;

/* ---- the runtime's two internal functions, stubbed ---- */
void pd_cu_set_error(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "launcher error %d: ", code);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
}
void *pd_cu_current_stream(void) { return NULL; }

/* ---- core stubs for the linked CPU kernels ---- */
size_t pd_dtype_size(pd_dtype t) {
  switch (t) {
    case PD_BOOL: case PD_UINT8: case PD_INT8: return 1;
    case PD_INT16: case PD_FLOAT16: case PD_BFLOAT16: return 2;
    case PD_INT32: case PD_FLOAT32: return 4;
    case PD_INT64: case PD_FLOAT64: case PD_COMPLEX64: return 8;
    default: return 16;
  }
}
double pd_load_as_double(const void *p, pd_dtype t) {
  switch (t) {
    case PD_FLOAT32: return *(const float *)p;
    case PD_FLOAT64: return *(const double *)p;
    case PD_BOOL: case PD_UINT8: return *(const uint8_t *)p;
    default: abort();
  }
}
void pd_load_as_complex(const void *p, pd_dtype t, double *re, double *im) {
  *re = pd_load_as_double(p, t);
  *im = 0;
}
void pd_store_from_double(void *p, pd_dtype t, double v) {
  if (t == PD_FLOAT32) *(float *)p = (float)v;
  else if (t == PD_FLOAT64) *(double *)p = v;
  else abort();
}
int pd_num_threads(void) { return 1; }
int pd_tensor_is_contiguous(const pd_tensor *t) { (void)t; return 1; }
pd_status pd_tensor_contiguous(pd_tensor *t, pd_tensor **out) { *out = t; return PD_OK; }
pd_status pd_tensor_cast(pd_tensor *src, pd_dtype dtype, pd_tensor **out) {
  if (src->dtype != dtype) abort();
  *out = src;
  return PD_OK;
}
void pd_tensor_release(pd_tensor *t) { (void)t; }
pd_status pd_set_error(pd_status code, const char *fmt, ...) { (void)fmt; return code; }
pd_status pd_dropout_mode(const char *op, const char *mode, int *up) {
  (void)op;
  *up = strcmp(mode, "upscale_in_train") == 0;
  return PD_OK;
}
pd_status pd_index_i64(const char *op, pd_tensor *index, pd_tensor **out) { (void)op, (void)index, (void)out; abort(); }
pd_status pd_unfold_geometry(void) { abort(); }

/* ---- helpers ---- */
static int fails = 0, checks = 0;
#define CK(x) do { if ((x) != cudaSuccess) { fprintf(stderr, "CUDA error line %d: %s\n", __LINE__, cudaGetErrorString(x)); exit(2); } } while (0)

static pd_tensor *host_t(pd_dtype dt, int ndim, const int64_t *shape, void *data) {
  pd_storage *s = calloc(1, sizeof *s);
  s->data = data;
  s->device = -1;
  pd_tensor *t = calloc(1, sizeof *t);
  t->dtype = dt;
  t->ndim = ndim;
  t->numel = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    t->shape[d] = shape[d];
    t->strides[d] = t->numel;
    t->numel *= shape[d];
  }
  t->storage = s;
  return t;
}
static pd_cuda_tensor gpu_t(int dt, int ndim, const int64_t *shape, void *dptr) {
  pd_cuda_tensor v;
  memset(&v, 0, sizeof v);
  v.data = dptr;
  v.dtype = dt;
  v.ndim = ndim;
  v.numel = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    v.shape[d] = shape[d];
    v.strides[d] = v.numel;
    v.numel *= shape[d];
  }
  return v;
}
static void *up(const void *h, size_t n) {
  void *d;
  CK(cudaMalloc(&d, n ? n : 1));
  if (n) CK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice));
  return d;
}
static void down(void *h, const void *d, size_t n) {
  CK(cudaDeviceSynchronize());
  if (n) CK(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost));
}
static void same(const char *what, const void *a, const void *b, size_t n) {
  checks++;
  if (memcmp(a, b, n) != 0) {
    size_t i = 0;
    while (((const unsigned char *)a)[i] == ((const unsigned char *)b)[i]) i++;
    fprintf(stderr, "MISMATCH %s (first differing byte %zu of %zu)\n", what, i, n);
    fails++;
  }
}
static double rnd(void) { return (double)rand() / RAND_MAX * 2 - 1; }

/* ---- dropout: the CPU kernel vs host mask + dropout_apply ---- */
static void check_dropout(pd_dtype dt, const char *mode, double p) {
  const int64_t n = 100003, sh[1] = {n};
  size_t es = pd_dtype_size(dt);
  void *x = malloc(n * es), *oc = malloc(n * es), *og = malloc(n * es);
  uint8_t *mc = malloc(n), *mg = malloc(n);
  for (int64_t i = 0; i < n; i++) {
    if (dt == PD_FLOAT32) ((float *)x)[i] = (float)rnd();
    else ((double *)x)[i] = rnd();
  }
  pd_dropout_args a = {host_t(dt, 1, sh, x), p, mode, 0};
  pd_tensor *outs[2] = {host_t(dt, 1, sh, oc), host_t(PD_UINT8, 1, sh, mc)};
  pd_random_seed(5);
  (dt == PD_FLOAT32 ? pd_kernel_dropout_f32 : pd_kernel_dropout_f64)(&a, outs, 2);
  /* the glue's path */
  pd_random_seed(5);
  pd_dropout_mask(mg, n, p, 0);
  void *dx = up(x, n * es), *dm = up(mg, n), *dout;
  CK(cudaMalloc(&dout, n * es));
  int cdt = dt == PD_FLOAT32 ? PD_CU_FLOAT32 : PD_CU_FLOAT64;
  pd_cuda_tensor xv = gpu_t(cdt, 1, sh, dx), mv = gpu_t(PD_CU_UINT8, 1, sh, dm), ov = gpu_t(cdt, 1, sh, dout);
  int upm = strcmp(mode, "upscale_in_train") == 0;
  if (M->dropout_apply(&xv, &mv, &ov, (double)(1.0f - (float)p), upm)) fails++;
  down(og, dout, n * es);
  char w[96];
  snprintf(w, sizeof w, "dropout %s %s p=%g mask", dt == PD_FLOAT32 ? "f32" : "f64", mode, p);
  same(w, mc, mg, n);
  snprintf(w, sizeof w, "dropout %s %s p=%g out", dt == PD_FLOAT32 ? "f32" : "f64", mode, p);
  same(w, oc, og, n * es);
  /* backward: dout = x, through a transposed-looking stride? keep contiguous here */
  pd_dropout_grad_args g = {outs[1], a.x, p, mode};
  pd_tensor *gouts[1] = {host_t(dt, 1, sh, oc)};
  (dt == PD_FLOAT32 ? pd_kernel_dropout_grad_f32 : pd_kernel_dropout_grad_f64)(&g, gouts, 1);
  const float pf = (float)p, keepf = 1.0f - pf;
  double sc = !upm ? 1.0 : !(pf < 1.0f) ? 0.0 : dt == PD_FLOAT64 ? 1.0 / (double)keepf : (double)(1.0f / keepf);
  if (M->dropout_grad(&mv, &xv, &ov, sc)) fails++;
  down(og, dout, n * es);
  snprintf(w, sizeof w, "dropout_grad %s %s p=%g", dt == PD_FLOAT32 ? "f32" : "f64", mode, p);
  same(w, oc, og, n * es);
  /* Philox: the device mask equals pd_philox's */
  uint64_t key = 0x1234567890abcdefULL, first = 7;
  if (M->dropout_philox(&xv, &mv, &ov, key, first, (float)p, (double)keepf, upm)) fails++;
  down(mg, dm, n);
  for (int64_t i = 0; i < n; i += 4) {
    uint32_t wd[4];
    pd_philox(key, first + (uint64_t)(i / 4), wd);
    for (int e = 0; e < 4 && i + e < n; e++) mc[i + e] = !(pd_u32_to_unit_f(wd[e]) < (float)p);
  }
  snprintf(w, sizeof w, "dropout_philox mask p=%g", p);
  same(w, mc, mg, n);
  cudaFree(dx), cudaFree(dm), cudaFree(dout);
  free(x), free(oc), free(og), free(mc), free(mg);
}

/* ---- optimizers: the CPU kernels vs opt_update / opt_finish ---- */
typedef pd_status (*kfn)(const void *, pd_tensor **, int);
static void fill(float *f, double *d, int64_t n, int pos) {
  for (int64_t i = 0; i < n; i++) {
    double v = pos ? fabs(rnd()) + 0.01 : rnd();
    if (i % 97 == 3) v = pos ? 1e-39 : -3e-39; /* subnormal in float: the FTZ|DAZ path */
    if (i % 89 == 5) v = 0.0;
    if (f) f[i] = (float)v;
    else d[i] = v * (i % 83 == 7 ? 1e-300 : 1.0);
  }
}

static void check_opt(int kind, pd_dtype dt) {
  static const char *names[] = {"sgd", "momentum", "adam", "adamax", "adagrad", "adadelta", "rmsprop"};
  const int64_t n = 5003, sh[1] = {n}, one[1] = {1};
  const int isf = dt == PD_FLOAT32;
  size_t es = isf ? 4 : 8;
  void *h[5], *c[5];
  for (int k = 0; k < 5; k++) {
    h[k] = malloc(n * es);
    c[k] = malloc(n * es);
    fill(isf ? h[k] : NULL, isf ? NULL : h[k], n, k >= 2);
  }
  double b1p = 0.81, b2p = 0.998, lrv = 0.5;
  float skip0 = 0.0f;
  pd_cuda_opt o;
  memset(&o, 0, sizeof o);
  o.kind = kind;
  o.lr = 0.01;
  o.l1 = kind == 0 ? 0.01 : 0.0;
  o.l2 = kind == 2 ? 0.0 : 0.02;
  o.rescale = kind == 1 ? 0.5 : 1.0;
  o.beta1 = 0.9, o.beta2 = 0.999, o.epsilon = 1e-8, o.coeff = kind == 2 ? 0.1 : 0.0;
  o.mu = 0.9, o.use_nesterov = 1, o.rho = 0.95, o.momentum = 0.5, o.centered = 1;
  void *d[5];
  for (int k = 0; k < 5; k++) d[k] = up(h[k], n * es);
  void *db1 = up(&b1p, 8), *db2 = up(&b2p, 8), *dlr = up(&lrv, 8), *dsk = up(&skip0, 4);
  o.beta1_pow = db1, o.beta1_pow_dtype = PD_CU_FLOAT64;
  o.beta2_pow = kind == 2 ? db2 : NULL, o.beta2_pow_dtype = PD_CU_FLOAT64;
  if (kind != 2 && kind != 3) o.beta1_pow = NULL;
  o.lr_tensor = kind == 4 ? dlr : NULL, o.lr_dtype = PD_CU_FLOAT64;
  o.skip = dsk, o.skip_dtype = PD_CU_FLOAT32;
  int cdt = isf ? PD_CU_FLOAT32 : PD_CU_FLOAT64;
  pd_cuda_tensor v[5];
  for (int k = 0; k < 5; k++) v[k] = gpu_t(cdt, 1, sh, d[k]);
  pd_tensor *t[5];
  for (int k = 0; k < 5; k++) t[k] = host_t(dt, 1, sh, h[k]);
  pd_tensor *tb1 = host_t(PD_FLOAT64, 1, one, &b1p), *tb2 = host_t(PD_FLOAT64, 1, one, &b2p);
  pd_tensor *tlr = host_t(PD_FLOAT64, 1, one, &lrv);
  for (int step = 0; step < 3; step++) {
    /* GPU first (reads the pows before the CPU advances them) */
    int nacc = kind == 0 ? 0 : (kind == 1 || kind == 4) ? 1 : kind == 6 ? 3 : 2;
    if (M->opt_update(&o, &v[0], &v[1], NULL, nacc > 0 ? &v[2] : NULL, nacc > 1 ? &v[3] : NULL,
                      nacc > 2 ? &v[4] : NULL) || M->opt_finish(&o))
      fails++;
    pd_tensor *out[1] = {t[0]};
    switch (kind) {
      case 0: { pd_sgd__args a = {t[0], t[1], o.lr, NULL, o.l1, o.l2, NULL, NULL};
                (isf ? pd_kernel_sgd__f32 : pd_kernel_sgd__f64)(&a, out, 1); break; }
      case 1: { pd_momentum__args a = {t[0], t[1], t[2], o.lr, o.mu, o.use_nesterov, o.rescale, NULL, o.l1, o.l2, NULL, NULL};
                (isf ? pd_kernel_momentum__f32 : pd_kernel_momentum__f64)(&a, out, 1); break; }
      case 2: { pd_adam__args a = {t[0], t[1], t[2], t[3], tb1, tb2, o.lr, o.beta1, o.beta2, o.epsilon, 0, o.coeff, NULL, o.l1, o.l2, NULL, NULL};
                (isf ? pd_kernel_adam__f32 : pd_kernel_adam__f64)(&a, out, 1); break; }
      case 3: { pd_adamax__args a = {t[0], t[1], t[2], t[3], tb1, o.lr, o.beta1, o.beta2, o.epsilon, NULL, o.l1, o.l2, NULL, NULL};
                (isf ? pd_kernel_adamax__f32 : pd_kernel_adamax__f64)(&a, out, 1); break; }
      case 4: { pd_adagrad__args a = {t[0], t[1], t[2], o.lr, o.epsilon, NULL, o.l1, o.l2, tlr, NULL};
                (isf ? pd_kernel_adagrad__f32 : pd_kernel_adagrad__f64)(&a, out, 1); break; }
      case 5: { pd_adadelta__args a = {t[0], t[1], t[2], t[3], o.rho, o.epsilon, NULL, o.l1, o.l2, NULL, o.lr, NULL};
                (isf ? pd_kernel_adadelta__f32 : pd_kernel_adadelta__f64)(&a, out, 1); break; }
      case 6: { pd_rmsprop__args a = {t[0], t[1], t[2], t[3], t[4], o.lr, o.rho, o.epsilon, o.momentum, o.centered, NULL, o.l1, o.l2, NULL, NULL};
                (isf ? pd_kernel_rmsprop__f32 : pd_kernel_rmsprop__f64)(&a, out, 1); break; }
    }
  }
  char w[64];
  for (int k = 0; k < 5; k++) {
    if (k == 1) continue;
    down(c[k], d[k], n * es);
    snprintf(w, sizeof w, "%s %s tensor %d", names[kind], isf ? "f32" : "f64", k);
    /* bit for bit, except that any NaN equals any NaN (x86's default NaN is negative, the
     * GPU's positive: rmsprop's centered sqrt of a negative estimate makes some) */
    checks++;
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; i++) {
      double a = isf ? ((float *)h[k])[i] : ((double *)h[k])[i], b = isf ? ((float *)c[k])[i] : ((double *)c[k])[i];
      if (memcmp((char *)h[k] + i * es, (char *)c[k] + i * es, es) != 0 && !(a != a && b != b)) bad = i;
    }
    if (bad >= 0) {
      double a = isf ? ((float *)h[k])[bad] : ((double *)h[k])[bad], b = isf ? ((float *)c[k])[bad] : ((double *)c[k])[bad];
      fprintf(stderr, "MISMATCH %s [%lld] cpu %a gpu %a\n", w, (long long)bad, a, b);
      fails++;
    }
  }
  double g1, g2;
  down(&g1, db1, 8);
  down(&g2, db2, 8);
  snprintf(w, sizeof w, "%s pows", names[kind]);
  same(w, &b1p, &g1, 8);
  same(w, &b2p, &g2, 8);
  /* skip_update set: nothing changes */
  float one_f = 1.0f;
  down(h[0], d[0], n * es);
  CK(cudaMemcpy(dsk, &one_f, 4, cudaMemcpyHostToDevice));
  if (M->opt_update(&o, &v[0], &v[1], NULL, &v[2], &v[3], &v[4]) || M->opt_finish(&o)) fails++;
  down(c[0], d[0], n * es);
  snprintf(w, sizeof w, "%s skip_update", names[kind]);
  same(w, h[0], c[0], n * es);
  for (int k = 0; k < 5; k++) cudaFree(d[k]), free(h[k]), free(c[k]);
  cudaFree(db1), cudaFree(db2), cudaFree(dlr), cudaFree(dsk);
}

/* ---- half params with float32 master weights and accumulators ---- */
static int same_nan_f32(const float *a, const float *b, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (memcmp(&a[i], &b[i], 4) != 0 && !(a[i] != a[i] && b[i] != b[i])) return 0;
  return 1;
}
static void check_opt_half(int kind, pd_dtype dt) {
  const int64_t n = 4099, sh[1] = {n}, one[1] = {1};
  uint16_t *p = malloc(n * 2), *g = malloc(n * 2), *pc = malloc(n * 2);
  float *mw = malloc(n * 4), *acc[3], *cc = malloc(n * 4);
  for (int64_t i = 0; i < n; i++) {
    float v = (float)rnd(), gv = (float)rnd() * (i % 101 == 4 ? 1e-6f : 1.0f);
    mw[i] = v;
    p[i] = dt == PD_FLOAT16 ? pd_f32_to_f16(v).x : pd_f32_to_bf16(v).x;
    g[i] = dt == PD_FLOAT16 ? pd_f32_to_f16(gv).x : pd_f32_to_bf16(gv).x;
  }
  for (int k = 0; k < 3; k++) {
    acc[k] = malloc(n * 4);
    fill(acc[k], NULL, n, 1);
  }
  double b1p = 0.9, b2p = 0.999;
  void *dp = up(p, n * 2), *dg = up(g, n * 2), *dm = up(mw, n * 4), *da[3], *db1 = up(&b1p, 8), *db2 = up(&b2p, 8);
  for (int k = 0; k < 3; k++) da[k] = up(acc[k], n * 4);
  int cdt = dt == PD_FLOAT16 ? PD_CU_FLOAT16 : PD_CU_BFLOAT16;
  pd_cuda_tensor pv = gpu_t(cdt, 1, sh, dp), gv = gpu_t(cdt, 1, sh, dg), mv = gpu_t(PD_CU_FLOAT32, 1, sh, dm), av[3];
  for (int k = 0; k < 3; k++) av[k] = gpu_t(PD_CU_FLOAT32, 1, sh, da[k]);
  pd_cuda_opt o;
  memset(&o, 0, sizeof o);
  o.kind = kind, o.lr = 0.01, o.l2 = 0.01, o.rescale = 1.0, o.beta1 = 0.9, o.beta2 = 0.999, o.epsilon = 1e-8;
  o.coeff = 0.01, o.mu = 0.9, o.rho = 0.95, o.momentum = 0.1;
  if (kind == PD_CU_OPT_ADAM) {
    o.beta1_pow = db1, o.beta1_pow_dtype = PD_CU_FLOAT64;
    o.beta2_pow = db2, o.beta2_pow_dtype = PD_CU_FLOAT64;
  }
  pd_tensor *tp = host_t(dt, 1, sh, p), *tg = host_t(dt, 1, sh, g), *tm = host_t(PD_FLOAT32, 1, sh, mw), *ta[3];
  for (int k = 0; k < 3; k++) ta[k] = host_t(PD_FLOAT32, 1, sh, acc[k]);
  pd_tensor *tb1 = host_t(PD_FLOAT64, 1, one, &b1p), *tb2 = host_t(PD_FLOAT64, 1, one, &b2p);
  const int f16 = dt == PD_FLOAT16;
  for (int step = 0; step < 3; step++) {
    if (M->opt_update(&o, &pv, &gv, &mv, &av[0], &av[1], &av[2]) || M->opt_finish(&o)) fails++;
    pd_tensor *out[1] = {tp};
    if (kind == PD_CU_OPT_ADAM) {
      pd_adam__args a = {tp, tg, ta[0], ta[1], tb1, tb2, o.lr, o.beta1, o.beta2, o.epsilon, 0, o.coeff, tm, o.l1, o.l2, NULL, NULL};
      (f16 ? pd_kernel_adam__f16 : pd_kernel_adam__bf16)(&a, out, 1);
    } else if (kind == PD_CU_OPT_MOMENTUM) {
      pd_momentum__args a = {tp, tg, ta[0], o.lr, o.mu, 0, 1.0, tm, o.l1, o.l2, NULL, NULL};
      (f16 ? pd_kernel_momentum__f16 : pd_kernel_momentum__bf16)(&a, out, 1);
    } else {
      pd_rmsprop__args a = {tp, tg, ta[0], ta[1], ta[2], o.lr, o.rho, o.epsilon, o.momentum, 0, tm, o.l1, o.l2, NULL, NULL};
      (f16 ? pd_kernel_rmsprop__f16 : pd_kernel_rmsprop__bf16)(&a, out, 1);
    }
  }
  char w[64];
  snprintf(w, sizeof w, "opt kind %d %s param", kind, f16 ? "f16" : "bf16");
  down(pc, dp, n * 2);
  same(w, p, pc, n * 2);
  down(cc, dm, n * 4);
  checks++;
  if (!same_nan_f32(mw, cc, n)) fprintf(stderr, "MISMATCH opt kind %d half master\n", kind), fails++;
  for (int k = 0; k < 3; k++) {
    down(cc, da[k], n * 4);
    checks++;
    if (!same_nan_f32(acc[k], cc, n)) fprintf(stderr, "MISMATCH opt kind %d half acc %d\n", kind, k), fails++;
  }
  cudaFree(dp), cudaFree(dg), cudaFree(dm), cudaFree(db1), cudaFree(db2);
  for (int k = 0; k < 3; k++) cudaFree(da[k]), free(acc[k]);
  free(p), free(g), free(pc), free(mw), free(cc);
}

/* ---- index ops vs loops ---- */
static void check_index(void) {
  const int64_t rows = 50, dim = 33, n = 700;
  float *w = malloc(rows * dim * 4), *g = malloc(n * dim * 4), *o = malloc(n * dim * 4), *r = malloc(n * dim * 4);
  float *dwc = calloc(rows * dim, 4), *dwg = malloc(rows * dim * 4);
  int64_t *ids = malloc(n * 8);
  for (int64_t i = 0; i < rows * dim; i++) w[i] = (float)rnd();
  for (int64_t i = 0; i < n * dim; i++) g[i] = (float)rnd();
  for (int64_t i = 0; i < n; i++) ids[i] = (i * 7919) % 37 % rows;
  const int64_t pad = 3;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < dim; j++) {
      r[i * dim + j] = ids[i] == pad ? 0.0f : w[ids[i] * dim + j];
      if (ids[i] != pad) dwc[ids[i] * dim + j] += g[i * dim + j];
    }
  int64_t ws[2] = {rows, dim}, os[2] = {n, dim}, is[1] = {n};
  void *dw = up(w, rows * dim * 4), *dg = up(g, n * dim * 4), *di = up(ids, n * 8), *dout, *ddw, *dcnt;
  int64_t zero[2] = {0, 0};
  void *derr = up(zero, 16);
  CK(cudaMalloc(&dout, n * dim * 4));
  CK(cudaMalloc(&ddw, rows * dim * 4));
  CK(cudaMalloc(&dcnt, (3 * rows + n) * 4));
  pd_cuda_tensor iv = gpu_t(PD_CU_INT64, 1, is, di), wv = gpu_t(PD_CU_FLOAT32, 2, ws, dw),
                 ov = gpu_t(PD_CU_FLOAT32, 2, os, dout), gv = gpu_t(PD_CU_FLOAT32, 2, os, dg),
                 dwv = gpu_t(PD_CU_FLOAT32, 2, ws, ddw);
  if (M->embedding(&iv, &wv, &ov, pad, (int *)derr, (int64_t *)derr + 1)) fails++;
  down(o, dout, n * dim * 4);
  same("embedding", r, o, n * dim * 4);
  if (M->embedding_grad(&iv, &gv, &dwv, pad, (int *)dcnt, (int *)derr, (int64_t *)derr + 1)) fails++;
  down(dwg, ddw, rows * dim * 4);
  same("embedding_grad", dwc, dwg, rows * dim * 4);
  int64_t e[2];
  down(e, derr, 16);
  checks++;
  if (e[0] != 0) fprintf(stderr, "MISMATCH error flag set\n"), fails++;
  /* a bad id */
  ids[5] = rows + 4;
  CK(cudaMemcpy(di, ids, n * 8, cudaMemcpyHostToDevice));
  if (M->embedding(&iv, &wv, &ov, pad, (int *)derr, (int64_t *)derr + 1)) fails++;
  down(e, derr, 16);
  checks++;
  if ((int)e[0] != 1 || e[1] != rows + 4) fprintf(stderr, "MISMATCH bad id not flagged\n"), fails++;
  /* gather along axis 1 of w (x [rows, dim]) with negative indices; strided read via a transposed view */
  int32_t gi[5] = {0, -1, 7, 32, -33};
  int64_t gis[1] = {5}, gos[2] = {rows, 5};
  float *gr = malloc(rows * 5 * 4), *gg = malloc(rows * 5 * 4);
  for (int64_t i = 0; i < rows; i++)
    for (int k = 0; k < 5; k++) gr[i * 5 + k] = w[i * dim + (gi[k] < 0 ? gi[k] + dim : gi[k])];
  void *dgi = up(gi, 20), *dgo;
  CK(cudaMalloc(&dgo, rows * 5 * 4));
  CK(cudaMemcpy(derr, zero, 16, cudaMemcpyHostToDevice));
  pd_cuda_tensor giv = gpu_t(PD_CU_INT32, 1, gis, dgi), gov = gpu_t(PD_CU_FLOAT32, 2, gos, dgo);
  if (M->gather(&wv, &giv, 1, &gov, (int *)derr, (int64_t *)derr + 1)) fails++;
  down(gg, dgo, rows * 5 * 4);
  same("gather axis 1", gr, gg, rows * 5 * 4);
  /* copy: w transposed (strided src) into a contiguous [dim, rows] */
  float *tr = malloc(rows * dim * 4), *tg = malloc(rows * dim * 4);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < dim; j++) tr[j * rows + i] = w[i * dim + j];
  int64_t ts[2] = {dim, rows};
  pd_cuda_tensor src = gpu_t(PD_CU_FLOAT32, 2, ts, dw), dst = gpu_t(PD_CU_FLOAT32, 2, ts, ddw);
  src.strides[0] = 1;
  src.strides[1] = dim;
  if (M->copy(&dst, &src)) fails++;
  down(tg, ddw, rows * dim * 4);
  same("copy transposed", tr, tg, rows * dim * 4);
  cudaFree(dw), cudaFree(dg), cudaFree(di), cudaFree(dout), cudaFree(ddw), cudaFree(dcnt), cudaFree(derr);
  cudaFree(dgi), cudaFree(dgo);
  free(w), free(g), free(o), free(r), free(dwc), free(dwg), free(ids), free(gr), free(gg), free(tr), free(tg);
}

/* embedding_grad with a bucket over the sort limit (the ordered-scan fallback) and int32 ids */
static void check_embedding_grad_big(void) {
  const int64_t rows = 40, dim = 300, n = 7001;
  float *g = malloc(n * dim * 4), *ref = calloc(rows * dim, 4), *got = malloc(rows * dim * 4);
  int32_t *ids = malloc(n * 4);
  for (int64_t i = 0; i < n * dim; i++) g[i] = (float)rnd();
  for (int64_t i = 0; i < n; i++) ids[i] = i % 3 == 0 ? 1 : (int32_t)((i * 31) % rows);
  for (int64_t i = 0; i < n; i++)
    if (ids[i] != 0) /* padding_idx 0 */
      for (int64_t j = 0; j < dim; j++) ref[ids[i] * dim + j] += g[i * dim + j];
  int64_t ws[2] = {rows, dim}, gs[2] = {n, dim}, is[1] = {n}, zero[2] = {0, 0};
  void *dg = up(g, n * dim * 4), *di = up(ids, n * 4), *derr = up(zero, 16), *ddw, *dsc;
  CK(cudaMalloc(&ddw, rows * dim * 4));
  CK(cudaMalloc(&dsc, (3 * rows + n) * 4));
  pd_cuda_tensor iv = gpu_t(PD_CU_INT32, 1, is, di), gv = gpu_t(PD_CU_FLOAT32, 2, gs, dg), wv = gpu_t(PD_CU_FLOAT32, 2, ws, ddw);
  if (M->embedding_grad(&iv, &gv, &wv, 0, (int *)dsc, (int *)derr, (int64_t *)derr + 1)) fails++;
  down(got, ddw, rows * dim * 4);
  same("embedding_grad big bucket", ref, got, rows * dim * 4);
  cudaFree(dg), cudaFree(di), cudaFree(derr), cudaFree(ddw), cudaFree(dsc);
  free(g), free(ref), free(got), free(ids);
}

/* ---- topk vs a stable insertion sort with sort.c's order ---- */
static int cmpf(float x, float y) {
  int xn = x != x, yn = y != y;
  if (xn || yn) return xn == yn ? 0 : (xn ? 1 : -1);
  return x < y ? -1 : x > y;
}
static void check_topk(int largest) {
  const int64_t rows = 37, len = 300, k = 9;
  float *x = malloc(rows * len * 4), *vr = malloc(rows * k * 4), *vg = malloc(rows * k * 4);
  int64_t *ir = malloc(rows * k * 8), *ig = malloc(rows * k * 8), *idx = malloc(len * 8);
  for (int64_t i = 0; i < rows * len; i++) x[i] = (float)((rand() % 21) - 10) / 4.0f; /* many ties */
  for (int64_t i = 0; i < rows * len; i += 53) x[i] = NAN;
  /* x laid out [len, rows] on the device: topk along axis 0 reads a strided row */
  float *xt = malloc(rows * len * 4);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t j = 0; j < len; j++) xt[j * rows + r] = x[r * len + j];
  for (int64_t r = 0; r < rows; r++) {
    for (int64_t j = 0; j < len; j++) idx[j] = j;
    for (int64_t j = 1; j < len; j++) {
      int64_t v = idx[j], q = j;
      while (q > 0) {
        int c = cmpf(x[r * len + v], x[r * len + idx[q - 1]]);
        if (largest ? c > 0 : c < 0) { idx[q] = idx[q - 1]; q--; } else break;
      }
      idx[q] = v;
    }
    for (int64_t t = 0; t < k; t++) {
      vr[t * rows + r] = x[r * len + idx[t]];
      ir[t * rows + r] = idx[t];
    }
  }
  int64_t xs[2] = {len, rows}, os[2] = {k, rows};
  void *dx = up(xt, rows * len * 4), *dv, *di;
  CK(cudaMalloc(&dv, rows * k * 4));
  CK(cudaMalloc(&di, rows * k * 8));
  pd_cuda_tensor xv = gpu_t(PD_CU_FLOAT32, 2, xs, dx), vv = gpu_t(PD_CU_FLOAT32, 2, os, dv), iv = gpu_t(PD_CU_INT64, 2, os, di);
  if (M->topk(&xv, 0, k, largest, &vv, &iv)) fails++;
  down(vg, dv, rows * k * 4);
  down(ig, di, rows * k * 8);
  same(largest ? "topk largest values" : "topk smallest values", vr, vg, rows * k * 4);
  same(largest ? "topk largest indices" : "topk smallest indices", ir, ig, rows * k * 8);
  cudaFree(dx), cudaFree(dv), cudaFree(di);
  free(x), free(xt), free(vr), free(vg), free(ir), free(ig), free(idx);
}

/* ---- timings (misc_check bench) ---- */
#include <time.h>
static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
#define TIME_GPU(label, reps, bytes, stmt)                                                   \
  do {                                                                                       \
    cudaEvent_t e0, e1;                                                                      \
    cudaEventCreate(&e0), cudaEventCreate(&e1);                                              \
    stmt;                                                                                    \
    cudaEventRecord(e0, 0);                                                                  \
    for (int r_ = 0; r_ < (reps); r_++) stmt;                                                \
    cudaEventRecord(e1, 0);                                                                  \
    CK(cudaEventSynchronize(e1));                                                            \
    float ms_;                                                                               \
    cudaEventElapsedTime(&ms_, e0, e1);                                                      \
    double us_ = ms_ * 1e3 / (reps);                                                         \
    printf("%-44s %9.1f us  %7.0f GB/s\n", label, us_, (double)(bytes) / us_ / 1e3);       \
  } while (0)

static void bench(void) {
  const int64_t n = 1 << 24, sh[1] = {n};
  void *d[6];
  for (int k = 0; k < 6; k++) {
    CK(cudaMalloc(&d[k], n * 4));
    CK(cudaMemset(d[k], 0, n * 4));
  }
  double b = 0.9;
  void *db1 = up(&b, 8), *db2 = up(&b, 8);
  pd_cuda_tensor v[6];
  for (int k = 0; k < 6; k++) v[k] = gpu_t(PD_CU_FLOAT32, 1, sh, d[k]);
  pd_cuda_opt o;
  memset(&o, 0, sizeof o);
  o.kind = PD_CU_OPT_ADAM, o.lr = 1e-3, o.rescale = 1, o.beta1 = 0.9, o.beta2 = 0.999, o.epsilon = 1e-8;
  o.beta1_pow = db1, o.beta2_pow = db2, o.beta1_pow_dtype = o.beta2_pow_dtype = PD_CU_FLOAT64;
  TIME_GPU("adam f32 16M (update + pow)", 20, n * 28, (M->opt_update(&o, &v[0], &v[1], NULL, &v[2], &v[3], NULL), M->opt_finish(&o)));
  o.kind = PD_CU_OPT_SGD;
  TIME_GPU("sgd f32 16M", 20, n * 12, M->opt_update(&o, &v[0], &v[1], NULL, NULL, NULL, NULL));
  pd_cuda_tensor m8 = gpu_t(PD_CU_UINT8, 1, sh, d[4]);
  TIME_GPU("dropout_apply f32 16M (mask given)", 20, n * 9, M->dropout_apply(&v[0], &m8, &v[1], 0.9, 1));
  TIME_GPU("dropout_philox f32 16M", 20, n * 9, M->dropout_philox(&v[0], &m8, &v[1], 1, 0, 0.1f, 0.9, 1));
  TIME_GPU("dropout_grad f32 16M", 20, n * 9, M->dropout_grad(&m8, &v[0], &v[1], 1.0 / 0.9));
  /* the host half of the bit-identical dropout: the CPU's mask and its upload */
  uint8_t *hm = malloc(n);
  pd_random_seed(1);
  double t0 = now_ms();
  pd_dropout_mask(hm, n, 0.1, 0);
  double t1 = now_ms();
  CK(cudaMemcpy(d[4], hm, n, cudaMemcpyHostToDevice));
  double t2 = now_ms();
  printf("%-44s %9.1f us (host mask) + %.1f us (pageable upload)\n", "dropout host mask 16M", (t1 - t0) * 1e3, (t2 - t1) * 1e3);
  free(hm);
  /* embedding / grad: BERT-base shapes */
  const int64_t rows = 30522, dim = 768, nt = 4096;
  int64_t *ids = malloc(nt * 8);
  for (int64_t i = 0; i < nt; i++) ids[i] = (i * 2654435761u) % rows;
  void *di = up(ids, nt * 8), *dw, *dout, *dcnt, *derr;
  CK(cudaMalloc(&dw, rows * dim * 4));
  CK(cudaMalloc(&dout, nt * dim * 4));
  CK(cudaMalloc(&dcnt, (3 * rows + nt) * 4));
  CK(cudaMalloc(&derr, 16));
  CK(cudaMemset(derr, 0, 16));
  int64_t ws[2] = {rows, dim}, os[2] = {nt, dim}, is[1] = {nt};
  pd_cuda_tensor iv = gpu_t(PD_CU_INT64, 1, is, di), wv = gpu_t(PD_CU_FLOAT32, 2, ws, dw), ov = gpu_t(PD_CU_FLOAT32, 2, os, dout);
  TIME_GPU("embedding 4096 x 768 from 30522", 20, nt * dim * 8, M->embedding(&iv, &wv, &ov, -1, (int *)derr, (int64_t *)derr + 1));
  TIME_GPU("embedding_grad 4096 x 768 -> 30522 x 768", 10, rows * dim * 4 + nt * dim * 4,
           M->embedding_grad(&iv, &ov, &wv, -1, (int *)dcnt, (int *)derr, (int64_t *)derr + 1));
  /* topk: accuracy-like [256, 1000] k 5, and a long row */
  int64_t xs[2] = {256, 1000}, ks[2] = {256, 5};
  pd_cuda_tensor xv = gpu_t(PD_CU_FLOAT32, 2, xs, d[0]), tv = gpu_t(PD_CU_FLOAT32, 2, ks, d[1]), tiv = gpu_t(PD_CU_INT64, 2, ks, d[2]);
  TIME_GPU("topk [256, 1000] k=5", 20, 256 * 1000 * 4, M->topk(&xv, 1, 5, 1, &tv, &tiv));
  /* concat-like strided copy: [4096, 768] into a [4096, 1536] half */
  int64_t cs[2] = {4096, 768};
  pd_cuda_tensor src = gpu_t(PD_CU_FLOAT32, 2, cs, d[0]), dst = gpu_t(PD_CU_FLOAT32, 2, cs, d[1]);
  dst.strides[0] = 1536;
  TIME_GPU("copy [4096, 768] into a strided half", 20, 4096 * 768 * 8, M->copy(&dst, &src));
  CK(cudaDeviceSynchronize());
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "bench") == 0) {
    bench();
    return 0;
  }
  srand(1);
  const char *modes[2] = {"upscale_in_train", "downscale_in_infer"};
  const double ps[3] = {0.0, 0.3, 1.0};
  for (int m = 0; m < 2; m++)
    for (int q = 0; q < 3; q++) {
      check_dropout(PD_FLOAT32, modes[m], ps[q]);
      check_dropout(PD_FLOAT64, modes[m], ps[q]);
    }
  for (int kind = 0; kind < 7; kind++) {
    check_opt(kind, PD_FLOAT32);
    check_opt(kind, PD_FLOAT64);
  }
  for (int h = 0; h < 2; h++) {
    pd_dtype dt = h ? PD_BFLOAT16 : PD_FLOAT16;
    check_opt_half(PD_CU_OPT_ADAM, dt);
    check_opt_half(PD_CU_OPT_MOMENTUM, dt);
    check_opt_half(PD_CU_OPT_RMSPROP, dt);
  }
  check_index();
  check_embedding_grad_big();
  check_topk(1);
  check_topk(0);
  printf("%d checks, %d mismatches\n", checks, fails);
  return fails != 0;
}
