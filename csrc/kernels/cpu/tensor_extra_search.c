/* Kernels of ops/tensor_extra.yaml, second part: searchsorted, histogram, bincount, mode,
 * put_along_axis (assign) / put_along_axis_mul and poisson sampling (special functions and
 * scans: tensor_extra_math.c). Integer results are
 * computed in the input's own type (no rounding through double where it could matter). */
#include <float.h>
#include <limits.h>
#include <stdlib.h>
#include "manip_util.h"
#include "../../core/pd_random.h"

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory"); }

/* ---- searchsorted: per row of values, a binary search of the matching row of the sequence */
#define DEF_SEARCH(SUF, T, CT)                                                                     \
  pd_status pd_kernel_searchsorted_##SUF(const void *args, pd_tensor **out, int n_out) {           \
    const pd_searchsorted_args *a = (const pd_searchsorted_args *)args;                            \
    (void)n_out;                                                                                   \
    pd_tensor *sc, *vc;                                                                            \
    PD_TRY(pd_tensor_contiguous(a->sorted_sequence, &sc));                                         \
    pd_status s = pd_tensor_contiguous(a->values, &vc);                                            \
    if (s != PD_OK) {                                                                              \
      pd_tensor_release(sc);                                                                       \
      return s;                                                                                    \
    }                                                                                              \
    const T *seq = (const T *)pd_tensor_data(sc), *val = (const T *)pd_tensor_data(vc);           \
    int64_t m = sc->shape[sc->ndim - 1];                                                           \
    int64_t nv = vc->ndim ? vc->shape[vc->ndim - 1] : 1;                                           \
    int multi = sc->ndim > 1, right = a->right, i32 = a->out_int32;                                \
    void *od = pd_tensor_data(out[0]);                                                             \
    for (int64_t i = 0; i < vc->numel; i++) {                                                      \
      const T *row = multi ? seq + (i / nv) * m : seq;                                             \
      CT v = (CT)val[i];                                                                           \
      int64_t lo = 0, hi = m;                                                                      \
      while (lo < hi) {                                                                            \
        int64_t mid = lo + (hi - lo) / 2;                                                          \
        CT r = (CT)row[mid];                                                                       \
        if (right ? !(v < r) : r < v) lo = mid + 1;                                                \
        else hi = mid;                                                                             \
      }                                                                                            \
      if (i32) ((int32_t *)od)[i] = (int32_t)lo;                                                   \
      else ((int64_t *)od)[i] = lo;                                                                \
    }                                                                                              \
    pd_tensor_release(sc);                                                                         \
    pd_tensor_release(vc);                                                                         \
    return PD_OK;                                                                                  \
  }
DEF_SEARCH(i32, int32_t, int32_t)
DEF_SEARCH(i64, int64_t, int64_t)
DEF_SEARCH(f32, float, float)
DEF_SEARCH(f64, double, double)

/* ---- histogram: equal-width bins over [min, max] (the data's range when min == max == 0 ...) */
#define DEF_HIST(SUF, T, CT)                                                                       \
  pd_status pd_kernel_histogram_##SUF(const void *args, pd_tensor **out, int n_out) {              \
    const pd_histogram_args *a = (const pd_histogram_args *)args;                                  \
    (void)n_out;                                                                                   \
    pd_tensor *xc;                                                                                 \
    PD_TRY(pd_tensor_contiguous(a->input, &xc));                                                   \
    const T *x = (const T *)pd_tensor_data(xc);                                                    \
    int64_t n = xc->numel, bins = a->bins, *h = (int64_t *)pd_tensor_data(out[0]);                \
    double lo = (double)a->min, hi = (double)a->max;                                               \
    if (lo == hi && n > 0) {                                                                       \
      lo = hi = (double)x[0];                                                                      \
      for (int64_t i = 1; i < n; i++) {                                                            \
        double v = (double)x[i];                                                                   \
        if (v < lo) lo = v;                                                                        \
        if (v > hi) hi = v;                                                                        \
      }                                                                                            \
    }                                                                                              \
    if (lo == hi) {                                                                                \
      lo -= 1;                                                                                     \
      hi += 1;                                                                                     \
    }                                                                                              \
    memset(h, 0, sizeof(int64_t) * (size_t)bins);                                                  \
    for (int64_t i = 0; i < n; i++) {                                                              \
      double v = (double)x[i];                                                                     \
      if (!(v >= lo && v <= hi)) continue;                                                         \
      int64_t b = (int64_t)((v - lo) * (double)bins / (hi - lo));                                  \
      if (b >= bins) b = bins - 1;                                                                 \
      h[b]++;                                                                                      \
    }                                                                                              \
    pd_tensor_release(xc);                                                                         \
    return PD_OK;                                                                                  \
  }
DEF_HIST(i32, int32_t, int32_t)
DEF_HIST(i64, int64_t, int64_t)
DEF_HIST(f32, float, float)
DEF_HIST(f64, double, double)

/* ---- bincount: counts (or summed weights) of each non-negative value ---- */
#define DEF_BINCOUNT(SUF, T, CT)                                                                   \
  pd_status pd_kernel_bincount_##SUF(const void *args, pd_tensor **out, int n_out) {               \
    const pd_bincount_args *a = (const pd_bincount_args *)args;                                    \
    (void)n_out;                                                                                   \
    pd_tensor *xc, *wc = NULL;                                                                     \
    PD_TRY(pd_tensor_contiguous(a->x, &xc));                                                       \
    const T *x = (const T *)pd_tensor_data(xc);                                                    \
    int64_t n = xc->numel, len = a->minlength;                                                     \
    for (int64_t i = 0; i < n; i++) {                                                              \
      if (x[i] < 0) {                                                                              \
        pd_tensor_release(xc);                                                                     \
        return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[bincount] expected non-negative values, "  \
                            "received %lld at index %lld", (long long)x[i], (long long)i);         \
      }                                                                                            \
      if ((int64_t)x[i] + 1 > len) len = (int64_t)x[i] + 1;                                        \
    }                                                                                              \
    pd_dtype dt = PD_INT64;                                                                        \
    if (a->weights && (a->weights->dtype == PD_FLOAT32 || a->weights->dtype == PD_FLOAT64))        \
      dt = a->weights->dtype;                                                                      \
    pd_status s = pd_tensor_zeros(dt, 1, &len, &out[0]);                                           \
    if (s == PD_OK && a->weights) s = pd_tensor_cast(a->weights, dt, &wc);                         \
    if (s == PD_OK && wc) {                                                                        \
      pd_tensor *t = wc;                                                                           \
      s = pd_tensor_contiguous(t, &wc);                                                            \
      pd_tensor_release(t);                                                                        \
      if (s != PD_OK) wc = NULL;                                                                   \
    }                                                                                              \
    if (s == PD_OK) {                                                                              \
      void *o = pd_tensor_data(out[0]);                                                            \
      const void *w = wc ? pd_tensor_data(wc) : NULL;                                              \
      for (int64_t i = 0; i < n; i++) {                                                            \
        int64_t b = (int64_t)x[i];                                                                 \
        if (dt == PD_FLOAT32) ((float *)o)[b] += ((const float *)w)[i];                            \
        else if (dt == PD_FLOAT64) ((double *)o)[b] += ((const double *)w)[i];                     \
        else ((int64_t *)o)[b] += w ? ((const int64_t *)w)[i] : 1;                                 \
      }                                                                                            \
    }                                                                                              \
    pd_tensor_release(wc);                                                                         \
    pd_tensor_release(xc);                                                                         \
    return s;                                                                                      \
  }
DEF_BINCOUNT(i32, int32_t, int32_t)
DEF_BINCOUNT(i64, int64_t, int64_t)

/* ---- mode: the most frequent value along axis (ties: the smallest value), with the largest
 * index at which it occurs; outputs keep the reduced dim (size 1). */
#define DEF_MODE(SUF, T, CT)                                                                       \
  typedef struct { T v; int64_t i; } mode_pair_##SUF;                                              \
  static int mode_cmp_##SUF(const void *p, const void *q) {                                        \
    const mode_pair_##SUF *a = (const mode_pair_##SUF *)p, *b = (const mode_pair_##SUF *)q;        \
    if (a->v < b->v) return -1;                                                                    \
    if (b->v < a->v) return 1;                                                                     \
    return (a->i > b->i) - (a->i < b->i);                                                          \
  }                                                                                                \
  pd_status pd_kernel_mode_##SUF(const void *args, pd_tensor **out, int n_out) {                   \
    const pd_mode_args *a = (const pd_mode_args *)args;                                            \
    (void)n_out;                                                                                   \
    int ax;                                                                                        \
    PD_TRY(pd_norm_axis("mode", a->axis, a->x->ndim, &ax));                                        \
    pd_tensor *xc;                                                                                 \
    PD_TRY(pd_tensor_contiguous(a->x, &xc));                                                       \
    int64_t len = xc->shape[ax], inner = 1;                                                        \
    for (int d = ax + 1; d < xc->ndim; d++) inner *= xc->shape[d];                                 \
    int64_t outer = xc->numel / (len * inner);                                                     \
    mode_pair_##SUF *buf = (mode_pair_##SUF *)malloc(sizeof(mode_pair_##SUF) * (size_t)len);       \
    if (!buf) {                                                                                    \
      pd_tensor_release(xc);                                                                       \
      return oom();                                                                                \
    }                                                                                              \
    const T *x = (const T *)pd_tensor_data(xc);                                                    \
    T *ov = (T *)pd_tensor_data(out[0]);                                                           \
    int64_t *oi = (int64_t *)pd_tensor_data(out[1]);                                               \
    for (int64_t o = 0; o < outer; o++)                                                            \
      for (int64_t in = 0; in < inner; in++) {                                                     \
        for (int64_t k = 0; k < len; k++) {                                                        \
          buf[k].v = x[(o * len + k) * inner + in];                                                \
          buf[k].i = k;                                                                            \
        }                                                                                          \
        qsort(buf, (size_t)len, sizeof *buf, mode_cmp_##SUF);                                      \
        int64_t best = 0, bestf = 0;                                                               \
        for (int64_t k = 0; k < len;) {                                                            \
          int64_t e = k + 1;                                                                       \
          while (e < len && !(buf[k].v < buf[e].v)) e++;                                           \
          if (e - k > bestf) {                                                                     \
            bestf = e - k;                                                                         \
            best = e - 1;                                                                          \
          }                                                                                        \
          k = e;                                                                                   \
        }                                                                                          \
        ov[o * inner + in] = buf[best].v;                                                          \
        oi[o * inner + in] = buf[best].i;                                                          \
      }                                                                                            \
    free(buf);                                                                                     \
    pd_tensor_release(xc);                                                                         \
    return PD_OK;                                                                                  \
  }
DEF_MODE(i32, int32_t, int32_t)
DEF_MODE(i64, int64_t, int64_t)
DEF_MODE(f32, float, float)
DEF_MODE(f64, double, double)

/* ---- put_along_axis (assign) / put_along_axis_mul: x copied, then values written (or
 * multiplied in) at indices along axis, walking indices in row-major order ---- */
#define DEF_PUT(SUF, T, CT)                                                                        \
  static pd_status put_##SUF(const char *op, const pd_put_along_axis_args *a, pd_tensor *o, int mul) { \
    int64_t *offs;                                                                                 \
    PD_TRY(pd_along_axis_offsets(op, a->x, a->indices, a->axis, &offs));                                   \
    pd_tensor *vc = NULL;                                                                          \
    pd_status s = pd_tensor_copy_(o, a->x);                                                        \
    if (s == PD_OK) s = pd_tensor_contiguous(a->values, &vc);                                      \
    if (s == PD_OK) {                                                                              \
      T *dst = (T *)pd_tensor_data(o);                                                             \
      const T *src = (const T *)pd_tensor_data(vc);                                                \
      for (int64_t i = 0; i < vc->numel; i++) {                                                    \
        CT v = PD_LD_##SUF(src + i);                                                               \
        if (mul) v = PD_LD_##SUF(dst + offs[i]) * v;                                               \
        PD_ST_##SUF(dst + offs[i], v);                                                             \
      }                                                                                            \
    }                                                                                              \
    pd_tensor_release(vc);                                                                         \
    free(offs);                                                                                    \
    return s;                                                                                      \
  }                                                                                                \
  pd_status pd_kernel_put_along_axis_##SUF(const void *args, pd_tensor **out, int n_out) {         \
    (void)n_out;                                                                                   \
    return put_##SUF("put_along_axis", (const pd_put_along_axis_args *)args, out[0], 0);           \
  }                                                                                                \
  pd_status pd_kernel_put_along_axis_mul_##SUF(const void *args, pd_tensor **out, int n_out) {     \
    (void)n_out;                                                                                   \
    const pd_put_along_axis_mul_args *m = (const pd_put_along_axis_mul_args *)args;                \
    pd_put_along_axis_args a = {.x = m->x, .indices = m->indices, .values = m->values, .axis = m->axis}; \
    return put_##SUF("put_along_axis_mul", &a, out[0], 1);                                         \
  }
PD_FOR_REAL(DEF_PUT)
PD_FOR_COMPLEX(DEF_PUT)

/* ---- poisson: element by element from the engine, as Paddle's CPU kernel draws with a fresh
 * std::poisson_distribution<int> per element: rates below 12 multiply uniform doubles until the
 * product falls to exp(-rate); larger rates take the standard library's rejection method
 * (Devroye's, with the errata libstdc++ applies: its constants, its normal draws from a fresh
 * polar-method state, its int range check), so seeded samples equal Paddle's at every rate. */
static double poisson_sample(double lam, pd_mt64 *e) {
  if (lam < 12) {
    const double thr = exp(-lam);
    double prod = 1.0, x = 0;
    do {
      prod *= pd_mt64_unit_d(e);
      x += 1;
    } while (prod > thr);
    return x - 1;
  }
  const double m = floor(lam), lm_thr = log(lam), lfm = lgamma(m + 1), sm = sqrt(m);
  const double pi_4 = 0.7853981633974483096156608458198757;
  const double dx = sqrt(2 * m * log(32 * m / pi_4));
  const double d = round(fmax(6.0, fmin(m, dx)));
  const double cx = 2 * m + d, scx = sqrt(cx / 2), r1cx = 1 / cx;
  const double c2b = sqrt(pi_4 * cx) * exp(r1cx);
  const double cb = 2 * cx * exp(-d * r1cx * (1 + d / 2)) / d;
  const double naf = (1 - DBL_EPSILON) / 2, thr = (double)INT_MAX + naf;
  const double c1 = sm * 1.2533141373155002512078826424055226; /* sqrt(pi / 2) */
  const double c2 = c2b + c1, c3 = c2 + 1, c4 = c3 + 1;
  const double w178 = 0.0128205128205128205128205128205128;   /* 1 / 78 */
  const double c5 = c4 + 1.0129030479320018583185514777512983; /* e^(1 / 78) */
  const double c = cb + c5, twocx = 2 * (2 * m + d);
  pd_normal_state ns = {0, 0.0};
  double x;
  for (;;) {
    const double u = c * pd_mt64_unit_d(e);
    const double ee = -log(1.0 - pd_mt64_unit_d(e));
    double w = 0.0;
    if (u <= c1) {
      const double n = pd_mt64_normal_d(e, &ns);
      const double y = -fabs(n) * sm - 1;
      x = floor(y);
      w = -n * n / 2;
      if (x < -m) continue;
    } else if (u <= c2) {
      const double n = pd_mt64_normal_d(e, &ns);
      const double y = 1 + fabs(n) * scx;
      x = ceil(y);
      w = y * (2 - y) * r1cx;
      if (x > d) continue;
    } else if (u <= c3) {
      x = -1;
    } else if (u <= c4) {
      x = 0;
    } else if (u <= c5) {
      x = 1;
      w = w178;
    } else {
      const double v = -log(1.0 - pd_mt64_unit_d(e));
      const double y = d + v * twocx / d;
      x = ceil(y);
      w = -d * r1cx * (1 + y / 2);
    }
    int reject = w - ee - x * lm_thr > lfm - lgamma(x + m + 1);
    reject |= x + m >= thr;
    if (!reject) break;
  }
  return (double)(int)(x + m + naf);
}

#define DEF_POISSON(SUF, T, CT)                                                                    \
  pd_status pd_kernel_poisson_##SUF(const void *args, pd_tensor **out, int n_out) {                \
    (void)n_out;                                                                                   \
    const pd_poisson_args *a = (const pd_poisson_args *)args;                                      \
    pd_tensor *x;                                                                                  \
    PD_TRY(pd_tensor_contiguous(a->x, &x));                                                        \
    const T *r = (const T *)pd_tensor_data(x);                                                     \
    T *d = (T *)pd_tensor_data(out[0]);                                                            \
    int64_t n = x->numel, bad = -1;                                                                \
    for (int64_t i = 0; i < n && bad < 0; i++) {                                                   \
      double v = (double)PD_LD_##SUF(&r[i]);                                                       \
      if (!(v >= 0.0 && v < 1e18)) bad = i;                                                        \
    }                                                                                              \
    if (bad >= 0) {                                                                                \
      double v = (double)PD_LD_##SUF(&r[bad]);                                                     \
      pd_tensor_release(x);                                                                        \
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[poisson] expected finite non-negative rates, " \
                          "received %g at flat index %lld", v, (long long)bad);                    \
    }                                                                                              \
    pd_rng_use u;                                                                                  \
    pd_rng_begin(&u, a->seed);                                                                     \
    for (int64_t i = 0; i < n; i++) PD_ST_##SUF(&d[i], poisson_sample((double)PD_LD_##SUF(&r[i]), u.e)); \
    pd_rng_end(&u);                                                                                \
    pd_tensor_release(x);                                                                          \
    return PD_OK;                                                                                  \
  }
PD_FOR_FLOAT(DEF_POISSON)
