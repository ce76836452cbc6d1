/* grid_sample kernels (ops/nn_extra.yaml): bilinear (trilinear for 5-D) or nearest sampling of
 * x [N, C, *in] at the normalised points of grid [N, *out, ns] (grid[..., 0] indexes the last
 * dim, W), with Paddle's unnormalisation (align_corners) and zeros/border/reflection padding;
 * grid_sample_grad gives dx (each output gradient added back onto its taps) and dgrid (the
 * derivative of the interpolation through the unnormalise/clip/reflect map). */
#include <stdlib.h>
#include "pd_kernel_util.h"
#include "../../ops/infer_meta_nn_extra.h"

/* Unnormalised, padded coordinate of grid value v along a dim of size n; *ds gets d coord / d v. */
static double gs_coord(double v, int64_t n, int align, int pad, double *ds) {
  double s, d, max = (double)(n - 1);
  if (align) {
    s = (v + 1) * 0.5 * max;
    d = 0.5 * max;
  } else {
    s = ((v + 1) * (double)n - 1) * 0.5;
    d = 0.5 * (double)n;
  }
  if (pad == 1) {
    if (s < 0 || s > max) {
      s = s < 0 ? 0 : max;
      d = 0;
    }
  } else if (pad == 2) {
    /* reflect about the corner centres (align) or the outer edges (-0.5, n - 0.5) */
    double off = align ? 0.0 : 0.5, span = align ? 2 * max : 2 * (double)n;
    if (span <= 0) {
      *ds = 0;
      return 0;
    }
    double a = s + off, sign = 1;
    if (a < 0) {
      a = -a;
      sign = -1;
    }
    double extra = a - floor(a / span) * span;
    if (extra > span - extra) {
      extra = span - extra;
      sign = -sign;
    }
    s = extra - off;
    d *= sign;
    if (!align && (s < 0 || s > max)) {
      s = s < 0 ? 0 : max;
      d = 0;
    }
  }
  *ds = d;
  return s;
}

typedef struct {
  int nc;              /* corners: 2^ns (bilinear) or 1 (nearest) */
  int64_t off[8];      /* spatial offset of each corner, -1 when out of bounds */
  double w[8];         /* interpolation weight of each corner */
  double dw[8][3];     /* d weight / d coord[d] */
  double ds[3];        /* d coord[d] / d grid value */
} gs_taps;

/* Taps of point g (grid values, component k indexes spatial dim ns-1-k). */
static void gs_point(const pd_grid_geom *G, int align, const double *gv, gs_taps *t) {
  const int ns = G->ns;
  double s[3];
  int64_t st[3];
  st[ns - 1] = 1;
  for (int d = ns - 2; d >= 0; d--) st[d] = st[d + 1] * G->in[d + 1];
  for (int d = 0; d < ns; d++) s[d] = gs_coord(gv[ns - 1 - d], G->in[d], align, G->pad, &t->ds[d]);
  if (G->mode == 1) {
    t->nc = 1;
    int64_t o = 0;
    for (int d = 0; d < ns; d++) {
      double r = round(s[d]);
      if (!(r >= 0 && r <= (double)(G->in[d] - 1))) {
        o = -1;
        break;
      }
      o += (int64_t)r * st[d];
    }
    t->off[0] = o;
    t->w[0] = 1;
    for (int d = 0; d < 3; d++) t->dw[0][d] = 0;
    return;
  }
  int64_t i0[3];
  double f[3];
  for (int d = 0; d < ns; d++) {
    /* far outside (or NaN): every tap is out of bounds; clamping keeps the int cast defined */
    if (!(s[d] > -2.0)) s[d] = -2.0;
    if (s[d] > (double)G->in[d] + 1.0) s[d] = (double)G->in[d] + 1.0;
    double fl = floor(s[d]);
    i0[d] = (int64_t)fl;
    f[d] = s[d] - fl;
  }
  t->nc = 1 << ns;
  for (int c = 0; c < t->nc; c++) {
    int64_t o = 0;
    double w = 1;
    for (int d = 0; d < ns; d++) {
      int bit = (c >> (ns - 1 - d)) & 1;
      int64_t i = i0[d] + bit;
      if (o >= 0) o = (i >= 0 && i < G->in[d]) ? o + i * st[d] : -1;
      w *= bit ? f[d] : 1 - f[d];
    }
    for (int d = 0; d < ns; d++) {
      double dw = 1;
      for (int e = 0; e < ns; e++) {
        int bit = (c >> (ns - 1 - e)) & 1;
        dw *= e == d ? (bit ? 1.0 : -1.0) : (bit ? f[e] : 1 - f[e]);
      }
      t->dw[c][d] = dw;
    }
    t->off[c] = o;
    t->w[c] = w;
  }
}

static pd_status gs_contig(pd_tensor **in, pd_tensor **c, int k) {
  for (int i = 0; i < k; i++) c[i] = NULL;
  for (int i = 0; i < k; i++) {
    pd_status s = pd_tensor_contiguous(in[i], &c[i]);
    if (s != PD_OK) {
      for (int j = 0; j < i; j++) pd_tensor_release(c[j]);
      return s;
    }
  }
  return PD_OK;
}
static void gs_release(pd_tensor **c, int k) {
  for (int i = 0; i < k; i++) pd_tensor_release(c[i]);
}

#define GS_DEF(SUF, T)                                                                          \
  pd_status pd_kernel_grid_sample_##SUF(const void *args, pd_tensor **out, int n_out) {         \
    (void)n_out;                                                                                \
    const pd_grid_sample_args *A = (const pd_grid_sample_args *)args;                           \
    pd_grid_geom G;                                                                             \
    PD_TRY(pd_grid_sample_check("grid_sample", A->x, A->grid, A->mode, A->padding_mode, &G));   \
    if (out[0]->numel == 0) return PD_OK;                                                       \
    pd_tensor *in[2] = {A->x, A->grid}, *c[2];                                                  \
    PD_TRY(gs_contig(in, c, 2));                                                                \
    const T *x = (const T *)pd_tensor_data(c[0]), *grid = (const T *)pd_tensor_data(c[1]);      \
    T *y = (T *)pd_tensor_data(out[0]);                                                         \
    const int64_t P = G.out_sp, C = G.c, NP = G.n * P, insp = G.in_sp;                          \
    const int ns = G.ns, align = A->align_corners;                                              \
    _Pragma("omp parallel for if (NP * C >= 16384) schedule(static)")                           \
    for (int64_t np = 0; np < NP; np++) {                                                       \
      const int64_t n = np / P, p = np % P;                                                     \
      double gv[3];                                                                             \
      for (int k = 0; k < ns; k++) gv[k] = (double)grid[np * ns + k];                           \
      gs_taps t;                                                                                \
      gs_point(&G, align, gv, &t);                                                              \
      const T *xn = x + n * C * insp;                                                           \
      T *yn = y + n * C * P + p;                                                                \
      for (int64_t ch = 0; ch < C; ch++) {                                                      \
        double acc = 0;                                                                         \
        for (int k = 0; k < t.nc; k++)                                                          \
          if (t.off[k] >= 0) acc += t.w[k] * (double)xn[ch * insp + t.off[k]];                  \
        yn[ch * P] = (T)acc;                                                                    \
      }                                                                                         \
    }                                                                                           \
    gs_release(c, 2);                                                                           \
    return PD_OK;                                                                               \
  }                                                                                             \
  pd_status pd_kernel_grid_sample_grad_##SUF(const void *args, pd_tensor **out, int n_out) {    \
    (void)n_out;                                                                                \
    const pd_grid_sample_grad_args *A = (const pd_grid_sample_grad_args *)args;                 \
    pd_grid_geom G;                                                                             \
    PD_TRY(pd_grid_sample_check("grid_sample_grad", A->x, A->grid, A->mode, A->padding_mode, &G)); \
    PD_TRY(pd_tensor_fill_(out[0], 0, 0));                                                      \
    PD_TRY(pd_tensor_fill_(out[1], 0, 0));                                                      \
    if (A->dout->numel == 0) return PD_OK;                                                      \
    pd_tensor *in[3] = {A->x, A->grid, A->dout}, *c[3];                                         \
    PD_TRY(gs_contig(in, c, 3));                                                                \
    const T *x = (const T *)pd_tensor_data(c[0]), *grid = (const T *)pd_tensor_data(c[1]);      \
    const T *dy = (const T *)pd_tensor_data(c[2]);                                              \
    T *dx = (T *)pd_tensor_data(out[0]), *dg = (T *)pd_tensor_data(out[1]);                     \
    const int64_t P = G.out_sp, C = G.c, N = G.n, NP = N * P, insp = G.in_sp;                   \
    const int ns = G.ns, align = A->align_corners;                                              \
    /* pass 1, one point per iteration: its taps (kept for pass 2) and dgrid (bilinear; nearest \
       sampling is piecewise constant in grid, so dgrid stays 0) */                             \
    const int nc = G.mode == 1 ? 1 : 1 << ns;                                                   \
    int64_t *toff = (int64_t *)malloc(sizeof(int64_t) * (size_t)(NP * nc));                     \
    T *tw = (T *)malloc(sizeof(T) * (size_t)(NP * nc));                                         \
    if (!toff || !tw) {                                                                         \
      free(toff);                                                                               \
      free(tw);                                                                                 \
      gs_release(c, 3);                                                                         \
      return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[grid_sample_grad] out of memory");       \
    }                                                                                           \
    _Pragma("omp parallel for if (NP * C >= 16384) schedule(static)")                           \
    for (int64_t np = 0; np < NP; np++) {                                                       \
      const int64_t n = np / P, p = np % P;                                                     \
      double gv[3], ds[3] = {0, 0, 0};                                                          \
      for (int k = 0; k < ns; k++) gv[k] = (double)grid[np * ns + k];                           \
      gs_taps t;                                                                                \
      gs_point(&G, align, gv, &t);                                                              \
      for (int k = 0; k < nc; k++) {                                                            \
        toff[np * nc + k] = t.off[k];                                                           \
        tw[np * nc + k] = (T)t.w[k];                                                            \
      }                                                                                         \
      if (G.mode == 1) continue;                                                                \
      const T *xn = x + n * C * insp, *dyn = dy + n * C * P + p;                                \
      for (int64_t ch = 0; ch < C; ch++) {                                                      \
        const double g = (double)dyn[ch * P];                                                   \
        for (int k = 0; k < nc; k++) {                                                          \
          if (t.off[k] < 0) continue;                                                           \
          const double v = g * (double)xn[ch * insp + t.off[k]];                                \
          for (int d = 0; d < ns; d++) ds[d] += v * t.dw[k][d];                                 \
        }                                                                                       \
      }                                                                                         \
      for (int d = 0; d < ns; d++) dg[np * ns + (ns - 1 - d)] = (T)(ds[d] * t.ds[d]);           \
    }                                                                                           \
    /* pass 2, dx: each (n, channel) slice is owned by one iteration (no races) */              \
    _Pragma("omp parallel for if (NP * C >= 16384) schedule(static)")                           \
    for (int64_t nch = 0; nch < N * C; nch++) {                                                 \
      const int64_t n = nch / C;                                                                \
      T *dxs = dx + nch * insp;                                                                 \
      const T *dys = dy + nch * P;                                                              \
      const int64_t *to = toff + n * P * nc;                                                    \
      const T *w = tw + n * P * nc;                                                             \
      for (int64_t p = 0; p < P; p++) {                                                         \
        const T g = dys[p];                                                                     \
        for (int k = 0; k < nc; k++)                                                            \
          if (to[p * nc + k] >= 0) dxs[to[p * nc + k]] += g * w[p * nc + k];                    \
      }                                                                                         \
    }                                                                                           \
    free(toff);                                                                                 \
    free(tw);                                                                                   \
    gs_release(c, 3);                                                                           \
    return PD_OK;                                                                               \
  }

GS_DEF(f32, float)
GS_DEF(f64, double)
