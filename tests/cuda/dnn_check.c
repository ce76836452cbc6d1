/* Standalone GPU check of the CUDA 'dnn' family (csrc/cuda/dnn.cu: convolutions on cuDNN 9;
 * dnn_pool.cu: pooling) against direct loops in double over the same (dtype-rounded) inputs:
 * conv forward / data gradient / filter gradient and pooling forward / backward / with index, for
 * strides 1 and 2, symmetric and asymmetric paddings, dilations, groups (incl. depthwise), 1-D /
 * 2-D / 3-D, NCHW and NHWC, float32 (TF32 off, within 1e-4 of the output's scale), float64
 * (1e-10), float16 / bfloat16 (1e-2 / 3e-2). The references define what csrc/kernels/cpu/conv.c
 * and pool.c compute (their window rules are copied: pool.c's win()); tests/ops/test_gpu_sweep.py
 * compares the registered GPU kernels with the CPU kernels themselves.
 * Build: tests/cuda/build_dnn_check.sh [DIR]; run on a GPU machine with cuDNN 9 reachable
 * (pip install nvidia-cudnn-cu13; PADDLE_C_CUDNN_LIB=/path/to/libcudnn.so.9 if it is not on the
 * loader's path): DIR/dnn_check (one line per check, then a summary; exit 1 on a failure) and
 * DIR/dnn_check bench (ResNet-50 layer timings, float32 / TF32 / float16, NCHW and NHWC). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "../../csrc/cuda/pd_cuda_api.h"
#include "../../csrc/cuda/pd_cuda_dnn.h"

extern const pd_cuda_dnn pd_cuda_dnn_table;
extern const pd_cuda_runtime pd_cuda_rt_table;
static const pd_cuda_dnn *D = &pd_cuda_dnn_table;

static int fails = 0, checks = 0;
#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "CUDA error line %d: %s\n", __LINE__, cudaGetErrorString(e_));              \
      exit(2);                                                                                     \
    }                                                                                              \
  } while (0)

/* ---- host float16 / bfloat16 (round to nearest even) ---- */
static uint16_t f2h(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
  int32_t exp = (int32_t)((x >> 23) & 0xff);
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
  int32_t e = exp - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (uint16_t)sign;
    mant |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - e), half = 1u << (shift - 1), r = mant >> shift, rem = mant & ((1u << shift) - 1);
    if (rem > half || (rem == half && (r & 1))) r++;
    return (uint16_t)(sign | r);
  }
  uint32_t r = ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1))) r++;
  return (uint16_t)(sign | r);
}
static float h2f(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu, x;
  if (e == 0) {
    if (!m) x = sign;
    else {
      int k = -1;
      do { k++; m <<= 1; } while (!(m & 0x400u));
      x = sign | ((uint32_t)(127 - 15 - k) << 23) | ((m & 0x3ffu) << 13);
    }
  } else if (e == 31) {
    x = sign | 0x7f800000u | (m << 13);
  } else {
    x = sign | ((e - 15 + 127) << 23) | (m << 13);
  }
  float f;
  memcpy(&f, &x, 4);
  return f;
}
static uint16_t f2b(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t r = x + 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(r >> 16);
}
static float b2f(uint16_t b) {
  uint32_t x = (uint32_t)b << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static size_t esz_of(int dt) { return dt == PD_CU_FLOAT64 ? 8 : dt == PD_CU_FLOAT32 ? 4 : 2; }
static const char *dt_name(int dt) {
  return dt == PD_CU_FLOAT64 ? "f64" : dt == PD_CU_FLOAT32 ? "f32" : dt == PD_CU_FLOAT16 ? "f16" : "bf16";
}
/* values in dtype storage from doubles; v is rounded in place to what the dtype holds */
static void *to_dt(int dt, double *v, int64_t n) {
  void *p = malloc((size_t)(n > 0 ? n : 1) * esz_of(dt));
  for (int64_t i = 0; i < n; i++) {
    if (dt == PD_CU_FLOAT64) ((double *)p)[i] = v[i];
    else if (dt == PD_CU_FLOAT32) v[i] = ((float *)p)[i] = (float)v[i];
    else if (dt == PD_CU_FLOAT16) v[i] = h2f(((uint16_t *)p)[i] = f2h((float)v[i]));
    else v[i] = b2f(((uint16_t *)p)[i] = f2b((float)v[i]));
  }
  return p;
}
static double from_dt(int dt, const void *p, int64_t i) {
  if (dt == PD_CU_FLOAT64) return ((const double *)p)[i];
  if (dt == PD_CU_FLOAT32) return ((const float *)p)[i];
  if (dt == PD_CU_FLOAT16) return h2f(((const uint16_t *)p)[i]);
  return b2f(((const uint16_t *)p)[i]);
}
static double rnd(void) { return (double)rand() / RAND_MAX * 2 - 1; }
static double *rand_vec(int64_t n) {
  double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  for (int64_t i = 0; i < n; i++) v[i] = rnd();
  return v;
}
static void *up(const void *h, size_t n) {
  void *d;
  CK(cudaMalloc(&d, n ? n : 1));
  if (n) CK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice));
  return d;
}
static double tol_of(int dt) {
  return dt == PD_CU_FLOAT64 ? 1e-10 : dt == PD_CU_FLOAT32 ? 1e-4 : dt == PD_CU_FLOAT16 ? 1e-2 : 3e-2;
}
/* |gpu - ref| <= tol * max(1, max |ref|) everywhere (NaN where the reference has NaN) */
static void compare(const char *what, int dt, const void *dev, const double *ref, int64_t n) {
  checks++;
  size_t es = esz_of(dt);
  void *h = malloc((size_t)(n > 0 ? n : 1) * es);
  CK(cudaDeviceSynchronize());
  if (n) CK(cudaMemcpy(h, dev, (size_t)n * es, cudaMemcpyDeviceToHost));
  double scale = 1, worst = 0;
  int64_t wi = -1;
  for (int64_t i = 0; i < n; i++)
    if (fabs(ref[i]) > scale) scale = fabs(ref[i]);
  for (int64_t i = 0; i < n; i++) {
    double g = from_dt(dt, h, i), e = fabs(g - ref[i]);
    if (isnan(ref[i]) ? !isnan(g) : !(e <= worst)) {
      worst = isnan(ref[i]) || isnan(g) ? INFINITY : e;
      wi = i;
    }
  }
  int ok = worst <= tol_of(dt) * scale;
  if (!ok) fails++;
  printf("%s %-58s %-4s max err %.3g (scale %.3g)", ok ? "PASS" : "FAIL", what, dt_name(dt), worst, scale);
  if (!ok && wi >= 0) printf(" at %lld: gpu %.8g ref %.8g", (long long)wi, from_dt(dt, h, wi), ref[wi]);
  printf("\n");
  free(h);
}
static void compare_i32(const char *what, const int32_t *dev, const int32_t *ref, int64_t n) {
  checks++;
  int32_t *h = malloc((size_t)(n > 0 ? n : 1) * 4);
  CK(cudaDeviceSynchronize());
  if (n) CK(cudaMemcpy(h, dev, (size_t)n * 4, cudaMemcpyDeviceToHost));
  int64_t bad = -1;
  for (int64_t i = 0; i < n && bad < 0; i++)
    if (h[i] != ref[i]) bad = i;
  if (bad >= 0) fails++;
  printf("%s %-58s mask", bad < 0 ? "PASS" : "FAIL", what);
  if (bad >= 0) printf(" at %lld: gpu %d ref %d", (long long)bad, h[bad], ref[bad]);
  printf("\n");
  free(h);
}
static void launch_ok(const char *what, int rc) {
  if (rc == 0) return;
  fprintf(stderr, "FAIL %s: launcher error: %s\n", what, pd_cuda_rt_table.last_error());
  fails++;
  checks++;
}

/* ---- convolution reference (conv.c's definition; NCHW / NHWC addressing) ---- */
static int64_t p3(const int64_t *v) { return v[0] * v[1] * v[2]; }
static int64_t aidx(const pd_cuda_conv_geom *g, int64_t n, int64_t c, int64_t ch, const int64_t *sp, int64_t d,
                    int64_t h, int64_t w) {
  int64_t s = (d * sp[1] + h) * sp[2] + w;
  return g->nhwc ? (n * p3(sp) + s) * ch + c : (n * ch + c) * p3(sp) + s;
}
/* for each (n, o, out position, c in group, kernel tap) inside the input: f(x index, w index, y index) */
#define CONV_LOOP(g, BODY)                                                                          \
  do {                                                                                             \
    const int64_t Cg = (g)->C / (g)->G, Og = (g)->O / (g)->G;                                      \
    for (int64_t n = 0; n < (g)->N; n++)                                                           \
      for (int64_t o = 0; o < (g)->O; o++)                                                         \
        for (int64_t od = 0; od < (g)->out[0]; od++)                                               \
          for (int64_t oh = 0; oh < (g)->out[1]; oh++)                                             \
            for (int64_t ow = 0; ow < (g)->out[2]; ow++) {                                         \
              const int64_t yi = aidx(g, n, o, (g)->O, (g)->out, od, oh, ow);                      \
              for (int64_t cg = 0; cg < Cg; cg++)                                                  \
                for (int64_t kd = 0; kd < (g)->k[0]; kd++)                                         \
                  for (int64_t kh = 0; kh < (g)->k[1]; kh++)                                       \
                    for (int64_t kw = 0; kw < (g)->k[2]; kw++) {                                   \
                      int64_t id = od * (g)->s[0] - (g)->pl[0] + kd * (g)->d[0];                   \
                      int64_t ih = oh * (g)->s[1] - (g)->pl[1] + kh * (g)->d[1];                   \
                      int64_t iw = ow * (g)->s[2] - (g)->pl[2] + kw * (g)->d[2];                   \
                      if (id < 0 || id >= (g)->in[0] || ih < 0 || ih >= (g)->in[1] || iw < 0 ||    \
                          iw >= (g)->in[2])                                                        \
                        continue;                                                                  \
                      const int64_t c = (o / Og) * Cg + cg;                                        \
                      const int64_t xi = aidx(g, n, c, (g)->C, (g)->in, id, ih, iw);               \
                      const int64_t wi = (((o * Cg + cg) * (g)->k[0] + kd) * (g)->k[1] + kh) * (g)->k[2] + kw; \
                      BODY                                                                         \
                    }                                                                              \
            }                                                                                      \
  } while (0)

typedef struct {
  const char *name;
  int nsp, nhwc;
  int64_t N, C, O, G, in[3], k[3], s[3], pl[3], pr[3], d[3], extra[3]; /* extra: output_padding-like growth of in */
  int bias;
} conv_case;

static void geom_of(const conv_case *cc, pd_cuda_conv_geom *g) {
  memset(g, 0, sizeof *g);
  g->nsp = cc->nsp;
  g->nhwc = cc->nhwc;
  g->N = cc->N;
  g->C = cc->C;
  g->O = cc->O;
  g->G = cc->G;
  for (int i = 0; i < 3; i++) {
    int u = i < cc->nsp;
    g->in[i] = u ? cc->in[i] : 1;
    g->k[i] = u ? cc->k[i] : 1;
    g->s[i] = u ? cc->s[i] : 1;
    g->pl[i] = u ? cc->pl[i] : 0;
    g->pr[i] = u ? cc->pr[i] : 0;
    g->d[i] = u ? cc->d[i] : 1;
    int64_t ext = g->d[i] * (g->k[i] - 1) + 1;
    g->out[i] = (g->in[i] + g->pl[i] + g->pr[i] - ext) / g->s[i] + 1;
    if (u) g->in[i] += cc->extra[i]; /* positions no window reaches (a transposed conv's output_padding) */
  }
}

static void check_conv(const conv_case *cc, int dt) {
  pd_cuda_conv_geom g;
  geom_of(cc, &g);
  const int64_t nx = g.N * g.C * p3(g.in), ny = g.N * g.O * p3(g.out), nw = g.O * (g.C / g.G) * p3(g.k);
  const size_t es = esz_of(dt);
  double *x = rand_vec(nx), *w = rand_vec(nw), *dy = rand_vec(ny), *b = rand_vec(g.O);
  void *hx = to_dt(dt, x, nx), *hw = to_dt(dt, w, nw), *hdy = to_dt(dt, dy, ny), *hb = to_dt(dt, b, g.O);
  void *dx_ = up(hx, nx * es), *dw_ = up(hw, nw * es), *ddy = up(hdy, ny * es), *db = up(hb, g.O * es), *o;
  double *ry = calloc((size_t)ny + 1, 8), *rdx = calloc((size_t)nx + 1, 8), *rdw = calloc((size_t)nw + 1, 8);
  CONV_LOOP(&g, {
    ry[yi] += x[xi] * w[wi];
    rdx[xi] += dy[yi] * w[wi];
    rdw[wi] += dy[yi] * x[xi];
  });
  char what[160];
  /* forward (+ bias) */
  if (cc->bias) {
    for (int64_t i = 0; i < ny; i++) {
      int64_t oc = g.nhwc ? i % g.O : (i / p3(g.out)) % g.O;
      ry[i] += b[oc];
    }
  }
  CK(cudaMalloc(&o, (size_t)(ny > 0 ? ny : 1) * es));
  snprintf(what, sizeof what, "conv fwd %s%s", cc->name, cc->bias ? " +bias" : "");
  launch_ok(what, D->conv_fwd(dt, &g, dx_, dw_, cc->bias ? db : NULL, o));
  compare(what, dt, o, ry, ny);
  CK(cudaFree(o));
  /* data gradient (conv2d_transpose) */
  CK(cudaMalloc(&o, (size_t)(nx > 0 ? nx : 1) * es));
  snprintf(what, sizeof what, "conv bwd data %s", cc->name);
  launch_ok(what, D->conv_bwd_data(dt, &g, ddy, dw_, o));
  compare(what, dt, o, rdx, nx);
  CK(cudaFree(o));
  /* filter gradient (conv2d_grad_filter) */
  CK(cudaMalloc(&o, (size_t)(nw > 0 ? nw : 1) * es));
  snprintf(what, sizeof what, "conv bwd filter %s", cc->name);
  launch_ok(what, D->conv_bwd_filter(dt, &g, dx_, ddy, o));
  compare(what, dt, o, rdw, nw);
  CK(cudaFree(o));
  CK(cudaFree(dx_));
  CK(cudaFree(dw_));
  CK(cudaFree(ddy));
  CK(cudaFree(db));
  free(x), free(w), free(dy), free(b), free(hx), free(hw), free(hdy), free(hb), free(ry), free(rdx), free(rdw);
}

/* ---- pooling reference (pool.c's definition) ---- */
typedef struct {
  const char *name;
  int nsp, nhwc, is_max, exclusive, adaptive, ceil_mode;
  int64_t N, C, in[3], k[3], s[3], pl[3], pr[3];
} pool_case;

static void pgeom_of(const pool_case *pc, pd_cuda_pool_geom *g) {
  memset(g, 0, sizeof *g);
  g->nsp = pc->nsp;
  g->nhwc = pc->nhwc;
  g->is_max = pc->is_max;
  g->exclusive = pc->exclusive;
  g->adaptive = pc->adaptive;
  g->N = pc->N;
  g->C = pc->C;
  for (int i = 0; i < 3; i++) {
    int u = i < pc->nsp;
    g->in[i] = u ? pc->in[i] : 1;
    g->k[i] = u ? pc->k[i] : 1;
    g->s[i] = u ? pc->s[i] : 1;
    g->pl[i] = u ? pc->pl[i] : 0;
    g->pr[i] = u ? pc->pr[i] : 0;
    if (pc->adaptive) {
      g->out[i] = g->k[i];
    } else {
      int64_t span = g->in[i] + g->pl[i] + g->pr[i] - g->k[i];
      g->out[i] = (pc->ceil_mode ? (span + g->s[i] - 1) / g->s[i] : span / g->s[i]) + 1;
    }
  }
}
static void rwin(const pd_cuda_pool_geom *g, int i, int64_t o, int64_t *lo, int64_t *hi, int64_t *ext) {
  if (g->adaptive) {
    *lo = o * g->in[i] / g->out[i];
    *hi = ((o + 1) * g->in[i] + g->out[i] - 1) / g->out[i];
    *ext = *hi - *lo;
    return;
  }
  int64_t s = o * g->s[i] - g->pl[i], e = s + g->k[i];
  if (e > g->in[i] + g->pr[i]) e = g->in[i] + g->pr[i];
  *ext = e - s;
  *lo = s < 0 ? 0 : s;
  *hi = e > g->in[i] ? g->in[i] : e;
}
static int64_t pidx(const pd_cuda_pool_geom *g, int64_t n, int64_t c, int64_t S, int64_t s) {
  return g->nhwc ? (n * S + s) * g->C + c : (n * g->C + c) * S + s;
}

static void check_pool(const pool_case *pc, int dt) {
  pd_cuda_pool_geom g;
  pgeom_of(pc, &g);
  const int64_t IS = p3(g.in), OS = p3(g.out), nx = g.N * g.C * IS, ny = g.N * g.C * OS;
  const size_t es = esz_of(dt);
  double *x = rand_vec(nx), *dy = rand_vec(ny);
  if (pc->is_max && nx > 7) x[nx / 3] = x[nx / 3 + 1]; /* a tie: the first maximum must win */
  void *hx = to_dt(dt, x, nx), *hdy = to_dt(dt, dy, ny);
  void *dxd = up(hx, nx * es), *ddy = up(hdy, ny * es), *o;
  double *ry = calloc((size_t)ny + 1, 8), *rdx = calloc((size_t)nx + 1, 8);
  int32_t *rm = calloc((size_t)ny + 1, 4), *dm;
  for (int64_t n = 0; n < g.N; n++)
    for (int64_t c = 0; c < g.C; c++)
      for (int64_t od = 0; od < g.out[0]; od++)
        for (int64_t oh = 0; oh < g.out[1]; oh++)
          for (int64_t ow = 0; ow < g.out[2]; ow++) {
            int64_t d0, d1, h0, h1, w0, w1, ed, eh, ew;
            rwin(&g, 0, od, &d0, &d1, &ed);
            rwin(&g, 1, oh, &h0, &h1, &eh);
            rwin(&g, 2, ow, &w0, &w1, &ew);
            const int64_t yi = pidx(&g, n, c, OS, (od * g.out[1] + oh) * g.out[2] + ow);
            if (g.is_max) {
              double best = 0;
              int64_t bi = -1;
              for (int64_t d = d0; d < d1; d++)
                for (int64_t h = h0; h < h1; h++)
                  for (int64_t w = w0; w < w1; w++) {
                    int64_t ii = (d * g.in[1] + h) * g.in[2] + w;
                    double v = x[pidx(&g, n, c, IS, ii)];
                    if (bi < 0 || v > best) {
                      best = v;
                      bi = ii;
                    }
                  }
              ry[yi] = bi < 0 ? 0 : best;
              rm[yi] = bi < 0 ? -1 : (int32_t)bi;
              if (bi >= 0) rdx[pidx(&g, n, c, IS, bi)] += dy[yi];
            } else {
              int64_t cnt = (g.exclusive || g.adaptive) ? (d1 - d0) * (h1 - h0) * (w1 - w0) : ed * eh * ew;
              double acc = 0, inv = cnt > 0 ? 1.0 / (double)cnt : 0;
              for (int64_t d = d0; d < d1; d++)
                for (int64_t h = h0; h < h1; h++)
                  for (int64_t w = w0; w < w1; w++) {
                    int64_t xi = pidx(&g, n, c, IS, (d * g.in[1] + h) * g.in[2] + w);
                    acc += x[xi];
                    rdx[xi] += dy[yi] * inv;
                  }
              ry[yi] = acc * inv;
            }
          }
  char what[160];
  CK(cudaMalloc(&o, (size_t)(ny > 0 ? ny : 1) * es));
  CK(cudaMalloc((void **)&dm, (size_t)(ny > 0 ? ny : 1) * 4));
  snprintf(what, sizeof what, "pool fwd %s", pc->name);
  launch_ok(what, D->pool_fwd(dt, &g, dxd, o, g.is_max ? dm : NULL));
  compare(what, dt, o, ry, ny);
  if (g.is_max) compare_i32(what, dm, rm, ny);
  CK(cudaFree(o));
  CK(cudaMalloc(&o, (size_t)(nx > 0 ? nx : 1) * es));
  snprintf(what, sizeof what, "pool bwd %s", pc->name);
  launch_ok(what, D->pool_bwd(dt, &g, dxd, ddy, o));
  compare(what, dt, o, rdx, nx);
  if (g.is_max && !g.nhwc) { /* the with-index backward: unpool(dy, mask, accumulate) */
    snprintf(what, sizeof what, "unpool(mask) %s", pc->name);
    CK(cudaMemset(o, 0xff, (size_t)nx * es));
    launch_ok(what, D->unpool(dt, g.N * g.C, OS, IS, ddy, dm, PD_CU_INT32, o, 1));
    compare(what, dt, o, rdx, nx);
    /* pool_gather(x, mask) = the forward's values */
    void *o2;
    CK(cudaMalloc(&o2, (size_t)(ny > 0 ? ny : 1) * es));
    snprintf(what, sizeof what, "pool_gather(mask) %s", pc->name);
    launch_ok(what, D->pool_gather(dt, g.N * g.C, OS, IS, dxd, dm, PD_CU_INT32, o2));
    compare(what, dt, o2, ry, ny);
    CK(cudaFree(o2));
  }
  CK(cudaFree(o));
  CK(cudaFree(dm));
  CK(cudaFree(dxd));
  CK(cudaFree(ddy));
  free(x), free(dy), free(hx), free(hdy), free(ry), free(rdx), free(rm);
}

/* ---- cases ---- */
#define SP2(a, b) {a, b, 1}
static const conv_case CONV_CASES[] = {
    /* name                          nsp nhwc N  C   O  G   in           k         s         pl        pr        d         extra   bias */
    {"3x3 s1 p1 NCHW", 2, 0, 2, 8, 16, 1, SP2(9, 10), SP2(3, 3), SP2(1, 1), SP2(1, 1), SP2(1, 1), SP2(1, 1), SP2(0, 0), 1},
    {"3x3 s2 p1 NCHW", 2, 0, 2, 8, 12, 1, SP2(11, 9), SP2(3, 3), SP2(2, 2), SP2(1, 1), SP2(1, 1), SP2(1, 1), SP2(0, 0), 0},
    {"3x3 s1 p1 NHWC", 2, 1, 2, 8, 16, 1, SP2(9, 10), SP2(3, 3), SP2(1, 1), SP2(1, 1), SP2(1, 1), SP2(1, 1), SP2(0, 0), 1},
    {"3x3 s2 p1 NHWC", 2, 1, 2, 16, 8, 1, SP2(10, 7), SP2(3, 3), SP2(2, 2), SP2(1, 1), SP2(1, 1), SP2(1, 1), SP2(0, 0), 0},
    {"1x1 s1 NCHW", 2, 0, 2, 16, 24, 1, SP2(5, 6), SP2(1, 1), SP2(1, 1), SP2(0, 0), SP2(0, 0), SP2(1, 1), SP2(0, 0), 1},
    {"1x1 s2 NHWC", 2, 1, 2, 16, 8, 1, SP2(7, 6), SP2(1, 1), SP2(2, 2), SP2(0, 0), SP2(0, 0), SP2(1, 1), SP2(0, 0), 0},
    {"asym pads [1,2]x[0,1] s(2,1)", 2, 0, 2, 3, 4, 1, SP2(7, 6), SP2(3, 3), SP2(2, 1), SP2(1, 0), SP2(2, 1), SP2(1, 1), SP2(0, 0), 0},
    {"asym pads NHWC SAME s2 (0,1)", 2, 1, 2, 6, 5, 1, SP2(8, 8), SP2(3, 3), SP2(2, 2), SP2(0, 0), SP2(1, 1), SP2(1, 1), SP2(0, 0), 1},
    {"dilation (2,1) groups 2", 2, 0, 2, 4, 6, 2, SP2(6, 5), SP2(2, 3), SP2(1, 2), SP2(1, 1), SP2(1, 1), SP2(2, 1), SP2(0, 0), 0},
    {"groups 4 dil (1,2) asym", 2, 0, 2, 8, 12, 4, SP2(9, 10), SP2(3, 3), SP2(2, 1), SP2(1, 0), SP2(2, 1), SP2(1, 2), SP2(0, 0), 1},
    {"depthwise 3x3 s1 NCHW", 2, 0, 2, 8, 8, 8, SP2(7, 7), SP2(3, 3), SP2(1, 1), SP2(1, 1), SP2(1, 1), SP2(1, 1), SP2(0, 0), 0},
    {"depthwise x2 3x3 s2 NHWC", 2, 1, 2, 8, 16, 8, SP2(7, 7), SP2(3, 3), SP2(2, 2), SP2(1, 1), SP2(1, 1), SP2(1, 1), SP2(0, 0), 1},
    {"output_padding (in +1, +1)", 2, 0, 1, 4, 8, 1, SP2(7, 9), SP2(3, 3), SP2(2, 2), SP2(1, 1), SP2(1, 1), SP2(1, 1), SP2(1, 1), 0},
    {"output_padding >= stride (dil 2)", 2, 0, 1, 4, 4, 1, SP2(6, 6), SP2(3, 3), SP2(1, 1), SP2(0, 0), SP2(0, 0), SP2(2, 2), SP2(1, 1), 0},
    {"7x7 s2 p3 (stem)", 2, 0, 2, 3, 8, 1, SP2(20, 20), SP2(7, 7), SP2(2, 2), SP2(3, 3), SP2(3, 3), SP2(1, 1), SP2(0, 0), 0},
    {"1-D k3 s2 p(1,2) d2", 1, 0, 2, 8, 16, 1, {11, 1, 1}, {3, 1, 1}, {2, 1, 1}, {1, 0, 0}, {2, 0, 0}, {2, 1, 1}, {0, 0, 0}, 1},
    {"3-D NCDHW groups 2", 3, 0, 2, 8, 8, 2, {5, 6, 5}, {3, 2, 3}, {1, 2, 1}, {1, 0, 0}, {0, 1, 1}, {1, 1, 2}, {0, 0, 0}, 1},
    {"3-D NDHWC", 3, 1, 1, 8, 6, 1, {4, 5, 4}, {2, 2, 2}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}, 0},
    {"empty batch", 2, 0, 0, 4, 4, 1, SP2(5, 5), SP2(3, 3), SP2(1, 1), SP2(1, 1), SP2(1, 1), SP2(1, 1), SP2(0, 0), 0},
};
static const pool_case POOL_CASES[] = {
    /* name                         nsp nhwc max excl adapt ceil N  C   in          k          s          pl         pr */
    {"max 3x3 s2 p1 NCHW", 2, 0, 1, 1, 0, 0, 2, 3, SP2(9, 8), SP2(3, 3), SP2(2, 2), SP2(1, 1), SP2(1, 1)},
    {"max 3x3 s2 p1 NHWC", 2, 1, 1, 1, 0, 0, 2, 5, SP2(9, 8), SP2(3, 3), SP2(2, 2), SP2(1, 1), SP2(1, 1)},
    {"max 3x2 s2 ceil asym", 2, 0, 1, 1, 0, 1, 2, 3, SP2(7, 6), SP2(3, 2), SP2(2, 2), SP2(1, 0), SP2(0, 1)},
    {"avg 3x3 s(2,1) incl pad", 2, 0, 0, 0, 0, 0, 2, 3, SP2(7, 6), SP2(3, 3), SP2(2, 1), SP2(1, 0), SP2(1, 1)},
    {"avg 3x3 s2 ceil exclusive", 2, 0, 0, 1, 0, 1, 2, 3, SP2(7, 6), SP2(3, 3), SP2(2, 2), SP2(1, 1), SP2(1, 1)},
    {"avg 3x2 s2 ceil non-exclusive NHWC", 2, 1, 0, 0, 0, 1, 1, 2, SP2(5, 4), SP2(3, 2), SP2(2, 1), SP2(1, 0), SP2(1, 0)},
    {"adaptive avg 2x3 NHWC", 2, 1, 0, 1, 1, 0, 2, 5, SP2(7, 3), SP2(2, 3), SP2(1, 1), SP2(0, 0), SP2(0, 0)},
    {"adaptive max 3x2 NCHW", 2, 0, 1, 1, 1, 0, 2, 3, SP2(7, 5), SP2(3, 2), SP2(1, 1), SP2(0, 0), SP2(0, 0)},
    {"adaptive avg up 5x4 from 3x3", 2, 0, 0, 1, 1, 0, 1, 2, SP2(3, 3), SP2(5, 4), SP2(1, 1), SP2(0, 0), SP2(0, 0)},
    {"global avg 7x7", 2, 0, 0, 1, 0, 0, 2, 16, SP2(7, 7), SP2(7, 7), SP2(1, 1), SP2(0, 0), SP2(0, 0)},
    {"1-D max k3 s2 p1", 1, 0, 1, 1, 0, 0, 2, 3, {6, 1, 1}, {3, 1, 1}, {2, 1, 1}, {1, 0, 0}, {1, 0, 0}},
    {"3-D avg", 3, 0, 0, 1, 0, 0, 1, 2, {3, 4, 3}, {2, 2, 2}, {1, 2, 1}, {0, 1, 0}, {0, 1, 0}},
    {"3-D max ceil", 3, 0, 1, 1, 0, 1, 2, 2, {5, 4, 5}, {2, 2, 3}, {2, 1, 2}, {1, 0, 1}, {1, 0, 1}},
};

/* ---- timings: ResNet-50's convolutions (batch 32) and poolings ---- */
typedef struct {
  const char *name;
  int64_t C, O, H, k, s, p;
} rn_layer;
static const rn_layer RN50[] = {
    {"conv1 7x7/2 3->64 @224", 3, 64, 224, 7, 2, 3},   {"l1 1x1 64->64 @56", 64, 64, 56, 1, 1, 0},
    {"l1 3x3 64->64 @56", 64, 64, 56, 3, 1, 1},        {"l1 1x1 64->256 @56", 64, 256, 56, 1, 1, 0},
    {"l1 1x1 256->64 @56", 256, 64, 56, 1, 1, 0},      {"l2 3x3/2 128->128 @56", 128, 128, 56, 3, 2, 1},
    {"l2 3x3 128->128 @28", 128, 128, 28, 3, 1, 1},    {"l2 1x1 128->512 @28", 128, 512, 28, 1, 1, 0},
    {"l2 1x1 512->128 @28", 512, 128, 28, 1, 1, 0},    {"l3 3x3 256->256 @14", 256, 256, 14, 3, 1, 1},
    {"l3 1x1 256->1024 @14", 256, 1024, 14, 1, 1, 0},  {"l3 1x1 1024->256 @14", 1024, 256, 14, 1, 1, 0},
    {"l4 3x3 512->512 @7", 512, 512, 7, 3, 1, 1},      {"l4 1x1 512->2048 @7", 512, 2048, 7, 1, 1, 0},
    {"l4 1x1 2048->512 @7", 2048, 512, 7, 1, 1, 0},
};

static float time_ms(int which, int dt, const pd_cuda_conv_geom *g, void *x, void *w, void *y) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  int rc = 0;
  for (int rep = 0; rep < 13; rep++) { /* 3 warm-up (algorithm choice), then 10 timed */
    if (rep == 3) CK(cudaEventRecord(a, 0));
    rc |= which == 0 ? D->conv_fwd(dt, g, x, w, NULL, y) : which == 1 ? D->conv_bwd_data(dt, g, y, w, x)
                                                                       : D->conv_bwd_filter(dt, g, x, y, w);
  }
  CK(cudaEventRecord(b, 0));
  CK(cudaEventSynchronize(b));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  if (rc) {
    printf("  launcher error: %s\n", pd_cuda_rt_table.last_error());
    return NAN;
  }
  return ms / 10;
}

static void bench(void) {
  const int64_t N = 32;
  struct { int dt, tf32, nhwc; const char *label; } modes[] = {
      {PD_CU_FLOAT32, 0, 0, "f32 NCHW"}, {PD_CU_FLOAT32, 1, 0, "tf32 NCHW"}, {PD_CU_FLOAT32, 1, 1, "tf32 NHWC"},
      {PD_CU_FLOAT16, 0, 0, "f16 NCHW"}, {PD_CU_FLOAT16, 0, 1, "f16 NHWC"},  {PD_CU_BFLOAT16, 0, 1, "bf16 NHWC"},
  };
  printf("ResNet-50 convolutions, batch %lld: ms per call (fwd / bwd data / bwd filter) and fwd TFLOP/s\n",
         (long long)N);
  printf("%-24s", "layer");
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) printf(" | %-26s", modes[m].label);
  printf("\n");
  double tot[6][3] = {{0}};
  for (size_t l = 0; l < sizeof RN50 / sizeof RN50[0]; l++) {
    const rn_layer *L = &RN50[l];
    printf("%-24s", L->name);
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
      D->set_allow_tf32(modes[m].tf32);
      pd_cuda_conv_geom g;
      memset(&g, 0, sizeof g);
      g.nsp = 2;
      g.nhwc = modes[m].nhwc;
      g.N = N, g.C = L->C, g.O = L->O, g.G = 1;
      for (int i = 0; i < 3; i++) {
        int u = i < 2;
        g.in[i] = u ? L->H : 1, g.k[i] = u ? L->k : 1, g.s[i] = u ? L->s : 1, g.pl[i] = g.pr[i] = u ? L->p : 0;
        g.d[i] = 1;
        g.out[i] = (g.in[i] + 2 * g.pl[i] - g.k[i]) / g.s[i] + 1;
      }
      size_t es = esz_of(modes[m].dt);
      void *x, *w, *y;
      CK(cudaMalloc(&x, (size_t)(N * g.C * p3(g.in)) * es));
      CK(cudaMalloc(&w, (size_t)(g.O * g.C * p3(g.k)) * es));
      CK(cudaMalloc(&y, (size_t)(N * g.O * p3(g.out)) * es));
      CK(cudaMemset(x, 0, (size_t)(N * g.C * p3(g.in)) * es));
      CK(cudaMemset(w, 0, (size_t)(g.O * g.C * p3(g.k)) * es));
      CK(cudaMemset(y, 0, (size_t)(N * g.O * p3(g.out)) * es));
      float t[3];
      for (int k = 0; k < 3; k++) {
        t[k] = time_ms(k, modes[m].dt, &g, x, w, y);
        tot[m][k] += t[k];
      }
      double flops = 2.0 * N * g.O * p3(g.out) * g.C * p3(g.k);
      printf(" | %6.3f %6.3f %6.3f %5.1fT", t[0], t[1], t[2], flops / (t[0] * 1e-3) / 1e12);
      CK(cudaFree(x));
      CK(cudaFree(w));
      CK(cudaFree(y));
    }
    printf("\n");
  }
  printf("%-24s", "sum (one of each)");
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
    printf(" | %6.2f %6.2f %6.2f       ", tot[m][0], tot[m][1], tot[m][2]);
  printf("\n");
  D->set_allow_tf32(1);
  /* poolings: the stem's 3x3/2 max pool and the global average */
  struct { const char *name; int is_max; int64_t C, H, k, s, p; } pools[] = {
      {"maxpool 3x3/2 p1 64 @112", 1, 64, 112, 3, 2, 1}, {"global avg 2048 @7", 0, 2048, 7, 7, 1, 0}};
  for (int nh = 0; nh < 2; nh++)
    for (int dtk = 0; dtk < 2; dtk++)
      for (size_t q = 0; q < 2; q++) {
        int dt = dtk ? PD_CU_FLOAT16 : PD_CU_FLOAT32;
        pd_cuda_pool_geom g;
        memset(&g, 0, sizeof g);
        g.nsp = 2, g.nhwc = nh, g.is_max = pools[q].is_max, g.exclusive = 1, g.N = N, g.C = pools[q].C;
        for (int i = 0; i < 3; i++) {
          int u = i < 2;
          g.in[i] = u ? pools[q].H : 1, g.k[i] = u ? pools[q].k : 1, g.s[i] = u ? pools[q].s : 1;
          g.pl[i] = g.pr[i] = u ? pools[q].p : 0;
          g.out[i] = (g.in[i] + 2 * g.pl[i] - g.k[i]) / g.s[i] + 1;
        }
        size_t es = esz_of(dt);
        void *x, *y, *dx;
        CK(cudaMalloc(&x, (size_t)(N * g.C * p3(g.in)) * es));
        CK(cudaMalloc(&dx, (size_t)(N * g.C * p3(g.in)) * es));
        CK(cudaMalloc(&y, (size_t)(N * g.C * p3(g.out)) * es));
        CK(cudaMemset(x, 0, (size_t)(N * g.C * p3(g.in)) * es));
        CK(cudaMemset(y, 0, (size_t)(N * g.C * p3(g.out)) * es));
        cudaEvent_t a, b;
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
        float f = 0, bw = 0;
        D->pool_fwd(dt, &g, x, y, NULL);
        CK(cudaEventRecord(a, 0));
        for (int r = 0; r < 10; r++) D->pool_fwd(dt, &g, x, y, NULL);
        CK(cudaEventRecord(b, 0));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&f, a, b));
        CK(cudaEventRecord(a, 0));
        for (int r = 0; r < 10; r++) D->pool_bwd(dt, &g, x, y, dx);
        CK(cudaEventRecord(b, 0));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&bw, a, b));
        printf("%-26s %s %s: fwd %.3f ms, bwd %.3f ms\n", pools[q].name, nh ? "NHWC" : "NCHW", dt_name(dt), f / 10,
               bw / 10);
        CK(cudaEventDestroy(a));
        CK(cudaEventDestroy(b));
        CK(cudaFree(x));
        CK(cudaFree(y));
        CK(cudaFree(dx));
      }
}

int main(int argc, char **argv) {
  int n = pd_cuda_rt_table.device_count();
  if (n <= 0) {
    printf("no GPU: skipped\n");
    return 0;
  }
  pd_cuda_rt_table.set_device(0);
  size_t ver = 0;
  int have_cudnn = D->cudnn_version(&ver) == 0;
  if (have_cudnn) printf("cuDNN %zu\n", ver);
  else printf("cuDNN NOT AVAILABLE: %s (convolution checks fail)\n", pd_cuda_rt_table.last_error());
  if (argc > 1 && !strcmp(argv[1], "bench")) {
    if (!have_cudnn) return 1;
    bench();
    return 0;
  }
  srand(12345);
  const int dts[] = {PD_CU_FLOAT32, PD_CU_FLOAT64, PD_CU_FLOAT16, PD_CU_BFLOAT16};
  D->set_allow_tf32(0);
  for (size_t i = 0; i < sizeof CONV_CASES / sizeof CONV_CASES[0]; i++)
    for (int t = 0; t < 4; t++) {
      if (!have_cudnn) {
        fails++;
        checks++;
        continue;
      }
      check_conv(&CONV_CASES[i], dts[t]);
    }
  for (size_t i = 0; i < sizeof POOL_CASES / sizeof POOL_CASES[0]; i++)
    for (int t = 0; t < 4; t++) check_pool(&POOL_CASES[i], dts[t]);
  /* TF32 on: float32 stays within TF32's precision */
  D->set_allow_tf32(1);
  CK(cudaDeviceSynchronize());
  printf("%d checks, %d failed\n", checks, fails);
  return fails ? 1 : 0;
}
