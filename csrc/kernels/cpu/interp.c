/* interp kernels (ops/common.yaml): nearest, linear, bilinear, trilinear and bicubic resize of
 * 1-3 spatial dims, channel-first or channel-last, with Paddle's coordinate rules
 * (align_corners, align_mode, explicit scale), and interp_grad (the adjoint: each output's
 * gradient added back onto its taps). Resizing is separable: each dim gets per-output taps. */
#include <stdlib.h>
#include <string.h>
#include "pd_kernel_util.h"
#include "layout_dnnl.h"
#include "../../ops/infer_meta_common.h"

#define MAXT 4 /* taps per dim (bicubic) */

typedef struct {
  int nt;             /* taps per output index */
  int64_t *idx;       /* [out][nt] input indices */
  double *w;          /* [out][nt] weights */
} taps1;

/* Paddle's source-coordinate ratio, in float as Paddle computes it (0 for a single output) */
static double ratio_of(const pd_interp_geom *g, int d, int align_corners) {
  int64_t in = g->in[d], out = g->out[d];
  if (out <= 1) return 0.0;
  if (align_corners) return (double)((float)(in - 1) / (float)(out - 1));
  return g->scale[d] > 0 ? (double)(float)(1.0 / g->scale[d]) : (double)((float)in / (float)out);
}

static int64_t clampi(int64_t v, int64_t n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }

static void cubic_coeffs(double t, double c[4]) {
  const double A = -0.75;
  double x1 = t + 1, x2 = 1 - t;
  c[0] = ((A * x1 - 5 * A) * x1 + 8 * A) * x1 - 4 * A;
  c[1] = ((A + 2) * t - (A + 3)) * t * t + 1;
  c[2] = ((A + 2) * x2 - (A + 3)) * x2 * x2 + 1;
  c[3] = 1 - c[0] - c[1] - c[2];
}

static pd_status make_taps(const pd_interp_geom *g, int d, int align_corners, int align_mode, taps1 *t) {
  int64_t in = g->in[d], out = g->out[d];
  double r = ratio_of(g, d, align_corners);
  t->nt = g->mode == 0 ? 1 : (g->mode == 4 ? 4 : 2);
  t->idx = (int64_t *)malloc(sizeof(int64_t) * (size_t)(out * t->nt));
  t->w = (double *)malloc(sizeof(double) * (size_t)(out * t->nt));
  if (!t->idx || !t->w) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t o = 0; o < out; o++) {
    int64_t *ix = t->idx + o * t->nt;
    double *w = t->w + o * t->nt;
    if (g->mode == 0) {
      /* float products, as Paddle's nearest kernel (the index truncates) */
      float p = (float)r * (float)o;
      ix[0] = clampi(align_corners ? (int64_t)((double)p + 0.5) : (int64_t)p, in);
      w[0] = 1;
    } else if (g->mode == 4) {
      double s = align_corners ? r * (double)o : r * ((double)o + 0.5) - 0.5;
      double f = floor(s), c[4];
      cubic_coeffs(s - f, c);
      for (int k = 0; k < 4; k++) {
        ix[k] = clampi((int64_t)f - 1 + k, in);
        w[k] = c[k];
      }
    } else {
      /* Paddle's arithmetic: the index from a double expression, the weight in float */
      int flag = align_mode == 0 && !align_corners;
      double sd = flag ? r * ((double)o + 0.5) - 0.5 : (double)((float)r * (float)o);
      int64_t i0 = (int64_t)sd;
      if (i0 < 0) i0 = 0;
      i0 = clampi(i0, in);
      float sf = (float)sd;
      if (flag && sf < 0) sf = 0;
      double l = (double)(sf - (float)i0);
      if (l < 0) l = 0;
      ix[0] = i0;
      ix[1] = i0 + (i0 < in - 1 ? 1 : 0);
      w[0] = (double)(1.0f - (float)l);
      w[1] = l;
    }
  }
  return PD_OK;
}

typedef struct {
  pd_interp_geom g;
  taps1 t[3];
  int64_t in_st[3], c_st, n_st, pout;  /* input strides (elements) */
} plan;

static void plan_free(plan *p) {
  for (int d = 0; d < 3; d++) {
    free(p->t[d].idx);
    free(p->t[d].w);
  }
}

static pd_status plan_make(const char *op, int ndim, const int64_t *shape, pd_int_array size, pd_float_array scale,
                           const char *mode, const char *fmt, int align_corners, int align_mode, plan *p) {
  memset(p, 0, sizeof(*p));
  PD_TRY(pd_interp_check(op, ndim, shape, size, scale, mode, fmt, &p->g));
  int ns = p->g.ns;
  for (int d = 0; d < ns; d++) PD_TRY(make_taps(&p->g, d, align_corners, align_mode, &p->t[d]));
  for (int d = ns; d < 3; d++) { /* unit dims */
    p->g.in[d] = p->g.out[d] = 1;
    p->t[d].nt = 1;
    p->t[d].idx = (int64_t *)calloc(1, sizeof(int64_t));
    p->t[d].w = (double *)malloc(sizeof(double));
    if (!p->t[d].idx || !p->t[d].w) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    p->t[d].w[0] = 1;
  }
  int64_t C = p->g.c, pin = p->g.in[0] * p->g.in[1] * p->g.in[2];
  p->pout = p->g.out[0] * p->g.out[1] * p->g.out[2];
  int64_t unit = p->g.channel_last ? C : 1;
  p->in_st[2] = unit;
  p->in_st[1] = unit * p->g.in[2];
  p->in_st[0] = unit * p->g.in[1] * p->g.in[2];
  p->c_st = p->g.channel_last ? 1 : pin;
  p->n_st = C * pin;
  return PD_OK;
}

/* taps of output position q: up to 64 (offset, weight) pairs; returns the count */
static int gather_taps(const plan *p, int64_t q, int64_t *off, double *w) {
  int64_t o2 = q % p->g.out[2], o1 = (q / p->g.out[2]) % p->g.out[1], o0 = q / (p->g.out[2] * p->g.out[1]);
  const taps1 *a = &p->t[0], *b = &p->t[1], *c = &p->t[2];
  int k = 0;
  for (int i = 0; i < a->nt; i++)
    for (int j = 0; j < b->nt; j++)
      for (int l = 0; l < c->nt; l++) {
        off[k] = a->idx[o0 * a->nt + i] * p->in_st[0] + b->idx[o1 * b->nt + j] * p->in_st[1] +
                 c->idx[o2 * c->nt + l] * p->in_st[2];
        w[k] = a->w[o0 * a->nt + i] * b->w[o1 * b->nt + j] * c->w[o2 * c->nt + l];
        k++;
      }
  return k;
}

/* nearest 2-D resize of a blocked (nChw<B>c) float32 x into a blocked out: per (n, channel block)
 * an [H, W] image of B-float vectors, each output pixel one vector copy (the executor lets out
 * stay blocked: pd_layout_want) */
static void interp_nearest_blocked(const plan *p, const pd_tensor *x, pd_tensor *o) {
  /* two spatial dims: plan dims 0 (H) and 1 (W), dim 2 a unit */
  const int64_t B = x->layout, N = p->g.n, CB = (p->g.c + B - 1) / B, IH = p->g.in[0], IW = p->g.in[1];
  const int64_t OH = p->g.out[0], OW = p->g.out[1];
  const int64_t *i1 = p->t[0].idx, *i2 = p->t[1].idx;
  const float *xd = (const float *)pd_tensor_data(x);
  float *od = (float *)pd_tensor_data(o);
  _Pragma("omp parallel for if (o->numel >= 16384) schedule(static)")
  for (int64_t q = 0; q < N * CB; q++) {
    const float *src = xd + q * IH * IW * B;
    float *dst = od + q * OH * OW * B;
    for (int64_t a1 = 0; a1 < OH; a1++) {
      const float *row = src + i1[a1] * IW * B;
      float *d = dst + a1 * OW * B;
      if (a1 && i1[a1] == i1[a1 - 1]) { /* an upscaled row repeats the one above: one copy */
        memcpy(d, d - OW * B, sizeof(float) * (size_t)(OW * B));
      } else if (B == 16) { /* fixed-size vector copies */
        for (int64_t a2 = 0; a2 < OW; a2++) memcpy(d + a2 * 16, row + i2[a2] * 16, 16 * sizeof(float));
      } else if (B == 8) {
        for (int64_t a2 = 0; a2 < OW; a2++) memcpy(d + a2 * 8, row + i2[a2] * 8, 8 * sizeof(float));
      } else {
        for (int64_t a2 = 0; a2 < OW; a2++)
          for (int64_t c = 0; c < B; c++) d[a2 * B + c] = row[i2[a2] * B + c];
      }
    }
  }
  o->layout = (int)B;
}

#define OUT_OFF(p, n, c, q) \
  ((p)->g.channel_last ? ((n) * (p)->pout + (q)) * (p)->g.c + (c) : ((n) * (p)->g.c + (c)) * (p)->pout + (q))

#define DEF_INTERP(SUF, T)                                                                     \
  pd_status pd_kernel_interp_##SUF(const void *args, pd_tensor **out, int n_out) {             \
    (void)n_out;                                                                               \
    const pd_interp_args *a = (const pd_interp_args *)args;                                    \
    plan p;                                                                                    \
    pd_tensor *x = NULL;                                                                       \
    pd_status s = plan_make("interp", a->x->ndim, a->x->shape, a->out_size, a->scale, a->mode, a->data_format,    \
                            a->align_corners, (int)a->align_mode, &p);                         \
    if (s == PD_OK && a->x->layout) { /* a predictor's blocked x (layout_dnnl.h) */            \
      if (p.g.mode == 0 && !p.g.channel_last && p.g.ns == 2 && pd_layout_want) {             \
        s = pd_layout_reserve(&out[0], a->x->layout); /* padded channels: a larger storage */ \
        if (s == PD_OK) interp_nearest_blocked(&p, a->x, out[0]);                             \
        plan_free(&p);                                                                         \
        return s;                                                                              \
      }                                                                                        \
      s = pd_layout_to_plain(a->x, &x);                                                        \
    } else if (s == PD_OK) {                                                                   \
      s = pd_tensor_contiguous(a->x, &x);                                                      \
    }                                                                                          \
    if (s == PD_OK) {                                                                          \
      const T *xd = (const T *)pd_tensor_data(x);                                              \
      T *od = (T *)pd_tensor_data(out[0]);                                                     \
      int64_t N = p.g.n, C = p.g.c, P = p.pout;                                                \
      if (p.g.mode == 0 && !p.g.channel_last) { /* nearest, channel-first: plane by plane, row \
                                                   by row (the same taps, weight 1: exact) */   \
        const int64_t O0 = p.g.out[0], O1 = p.g.out[1], O2 = p.g.out[2], pin = p.c_st;        \
        const int64_t *i0 = p.t[0].idx, *i1 = p.t[1].idx, *i2 = p.t[2].idx;                    \
        _Pragma("omp parallel for if (out[0]->numel >= 16384) schedule(static)")               \
        for (int64_t nc = 0; nc < N * C; nc++) {                                               \
          const T *src = xd + nc * pin;                                                        \
          T *dst = od + nc * P;                                                                \
          for (int64_t a0 = 0; a0 < O0; a0++)                                                  \
            for (int64_t a1 = 0; a1 < O1; a1++) {                                              \
              const T *row = src + i0[a0] * p.in_st[0] + i1[a1] * p.in_st[1];                  \
              T *d = dst + (a0 * O1 + a1) * O2;                                                \
              for (int64_t a2 = 0; a2 < O2; a2++) d[a2] = row[i2[a2]];                         \
            }                                                                                  \
        }                                                                                      \
        x = (pd_tensor_release(x), NULL);                                                      \
        plan_free(&p);                                                                         \
        return PD_OK;                                                                          \
      }                                                                                        \
      _Pragma("omp parallel for if (out[0]->numel >= 16384) schedule(static)")                 \
      for (int64_t nq = 0; nq < N * P; nq++) {                                                 \
        int64_t n = nq / P, q = nq % P, off[64];                                               \
        double w[64];                                                                          \
        int k = gather_taps(&p, q, off, w);                                                    \
        const T *base = xd + n * p.n_st;                                                       \
        for (int64_t c = 0; c < C; c++) {                                                      \
          const T *bc = base + c * p.c_st;                                                     \
          double acc = 0;                                                                      \
          for (int t = 0; t < k; t++) acc += w[t] * (double)bc[off[t]];                        \
          od[OUT_OFF(&p, n, c, q)] = (T)acc;                                                   \
        }                                                                                      \
      }                                                                                        \
    }                                                                                          \
    if (x) pd_tensor_release(x);                                                               \
    plan_free(&p);                                                                             \
    return s;                                                                                  \
  }                                                                                            \
  pd_status pd_kernel_interp_grad_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                               \
    const pd_interp_grad_args *a = (const pd_interp_grad_args *)args;                          \
    plan p;                                                                                    \
    pd_tensor *g = NULL;                                                                       \
    pd_status s = plan_make("interp_grad", out[0]->ndim, out[0]->shape, a->out_size, a->scale, a->mode,                             \
                            a->data_format, a->align_corners, (int)a->align_mode, &p);         \
    if (s == PD_OK) s = pd_tensor_fill_(out[0], 0, 0);                                         \
    if (s == PD_OK) s = pd_tensor_contiguous(a->dout, &g);                                     \
    if (s == PD_OK) {                                                                          \
      const T *gd = (const T *)pd_tensor_data(g);                                              \
      T *od = (T *)pd_tensor_data(out[0]);                                                     \
      int64_t N = p.g.n, C = p.g.c, P = p.pout;                                                \
      _Pragma("omp parallel for if (g->numel >= 16384 && N > 1) schedule(static)")             \
      for (int64_t n = 0; n < N; n++) {                                                        \
        int64_t off[64];                                                                       \
        double w[64];                                                                          \
        T *base = od + n * p.n_st;                                                             \
        for (int64_t q = 0; q < P; q++) {                                                      \
          int k = gather_taps(&p, q, off, w);                                                  \
          for (int64_t c = 0; c < C; c++) {                                                    \
            T *bc = base + c * p.c_st;                                                         \
            double v = (double)gd[OUT_OFF(&p, n, c, q)];                                       \
            for (int t = 0; t < k; t++) bc[off[t]] += (T)(w[t] * v);                           \
          }                                                                                    \
        }                                                                                      \
      }                                                                                        \
    }                                                                                          \
    if (g) pd_tensor_release(g);                                                               \
    plan_free(&p);                                                                             \
    return s;                                                                                  \
  }
DEF_INTERP(f32, float)
DEF_INTERP(f64, double)
