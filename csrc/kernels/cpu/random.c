/* Random kernels over the counter-based Philox generator: uniform, gaussian, randint, randperm,
 * bernoulli, multinomial, uniform_ and exponential_. Each op reserves its counters up front
 * (seed != 0: a private stream keyed by the seed, counters from 0), then fills blocks of
 * counters in parallel, so results depend only on (seed, op order), not on the thread count. */
#include <stdlib.h>
#include "pd_kernel_util.h"
#include "../../core/pd_random.h"

#define PAR_MIN_CTR 4096 /* below this many counters, one thread */
#define TWO_PI 6.283185307179586476925286766559

static uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static void rng_begin(int64_t seed, uint64_t ncounters, uint64_t *key, uint64_t *first) {
  if (seed != 0) {
    *key = mix64((uint64_t)seed);
    *first = 0;
  } else {
    pd_random_reserve(ncounters, key, first);
  }
}

/* per == 4: four 24-bit uniforms in [0, 1); per == 2: two 53-bit uniforms. */
static inline void units(uint64_t key, uint64_t ctr, int per, double u[4]) {
  uint32_t w[4];
  pd_philox(key, ctr, w);
  if (per == 4) {
    for (int j = 0; j < 4; j++) u[j] = (double)pd_u32_to_unit_f(w[j]);
  } else {
    u[0] = pd_u64_to_unit_d(w[0], w[1]);
    u[1] = pd_u64_to_unit_d(w[2], w[3]);
  }
}

/* A contiguous buffer to fill for t: t's data if contiguous, else a new tensor (*tmp). */
static pd_status fill_target(pd_tensor *t, pd_tensor **tmp, void **data) {
  *tmp = NULL;
  if (pd_tensor_is_contiguous(t)) {
    *data = pd_tensor_data(t);
    return PD_OK;
  }
  PD_TRY(pd_tensor_empty(t->dtype, t->ndim, t->shape, tmp));
  *data = pd_tensor_data(*tmp);
  return PD_OK;
}
static pd_status fill_finish(pd_tensor *t, pd_tensor *tmp) {
  if (!tmp) return PD_OK;
  pd_status s = pd_tensor_copy_(t, tmp);
  pd_tensor_release(tmp);
  return s;
}

/* ---- uniform, gaussian, exponential: fill n elements of T ---- */
/* kind 0: lo + (hi - lo) * u; kind 1: Box-Muller normal(lo=mean, hi=std); kind 2: exponential(lo=lam) */
#define DEF_FILL(SUF, T, CT)                                                                   \
  static void fill_##SUF(T *d, int64_t n, int kind, double lo, double hi, int64_t seed) {      \
    const int per = sizeof(T) == 8 ? 2 : 4;                                                     \
    int64_t nc = (n + per - 1) / per;                                                           \
    uint64_t key, first;                                                                        \
    rng_begin(seed, (uint64_t)nc, &key, &first);                                                \
    _Pragma("omp parallel for if (nc >= PAR_MIN_CTR) schedule(static)")                         \
    for (int64_t c = 0; c < nc; c++) {                                                          \
      double u[4], v[4];                                                                        \
      units(key, first + (uint64_t)c, per, u);                                                  \
      if (kind == 0) {                                                                          \
        for (int j = 0; j < per; j++) v[j] = lo + (hi - lo) * u[j];                             \
      } else if (kind == 1) {                                                                   \
        for (int j = 0; j < per; j += 2) {                                                      \
          double r = sqrt(-2.0 * log(1.0 - u[j])), th = TWO_PI * u[j + 1];                      \
          v[j] = lo + hi * r * cos(th);                                                         \
          v[j + 1] = lo + hi * r * sin(th);                                                     \
        }                                                                                       \
      } else {                                                                                  \
        for (int j = 0; j < per; j++) v[j] = -log(1.0 - u[j]) / lo;                             \
      }                                                                                         \
      int64_t base = c * per;                                                                   \
      int m = n - base < per ? (int)(n - base) : per;                                           \
      for (int j = 0; j < m; j++) PD_ST_##SUF(&d[base + j], v[j]);                              \
    }                                                                                           \
  }                                                                                             \
  pd_status pd_kernel_uniform_##SUF(const void *args, pd_tensor **out, int n_out) {            \
    (void)n_out;                                                                                \
    const pd_uniform_args *a = (const pd_uniform_args *)args;                                   \
    fill_##SUF((T *)pd_tensor_data(out[0]), out[0]->numel, 0, a->min.f, a->max.f, a->seed);     \
    return PD_OK;                                                                               \
  }                                                                                             \
  pd_status pd_kernel_gaussian_##SUF(const void *args, pd_tensor **out, int n_out) {           \
    (void)n_out;                                                                                \
    const pd_gaussian_args *a = (const pd_gaussian_args *)args;                                 \
    fill_##SUF((T *)pd_tensor_data(out[0]), out[0]->numel, 1, a->mean, a->std, a->seed);        \
    return PD_OK;                                                                               \
  }                                                                                             \
  pd_status pd_kernel_uniform__##SUF(const void *args, pd_tensor **out, int n_out) {           \
    (void)n_out;                                                                                \
    const pd_uniform__args *a = (const pd_uniform__args *)args;                                 \
    pd_tensor *tmp;                                                                             \
    void *data;                                                                                 \
    PD_TRY(fill_target(out[0], &tmp, &data));                                                   \
    fill_##SUF((T *)data, out[0]->numel, 0, a->min.f, a->max.f, a->seed);                       \
    return fill_finish(out[0], tmp);                                                            \
  }                                                                                             \
  pd_status pd_kernel_exponential__##SUF(const void *args, pd_tensor **out, int n_out) {       \
    (void)n_out;                                                                                \
    const pd_exponential__args *a = (const pd_exponential__args *)args;                         \
    pd_tensor *tmp;                                                                             \
    void *data;                                                                                 \
    PD_TRY(fill_target(out[0], &tmp, &data));                                                   \
    fill_##SUF((T *)data, out[0]->numel, 2, a->lam, 0.0, a->seed);                              \
    return fill_finish(out[0], tmp);                                                            \
  }
PD_FOR_FLOAT(DEF_FILL)

/* ---- randint: two 64-bit draws per counter, reduced modulo the range ---- */
#define DEF_RANDINT(SUF, T, CT)                                                                \
  pd_status pd_kernel_randint_##SUF(const void *args, pd_tensor **out, int n_out) {            \
    (void)n_out;                                                                                \
    const pd_randint_args *a = (const pd_randint_args *)args;                                   \
    T *d = (T *)pd_tensor_data(out[0]);                                                         \
    int64_t n = out[0]->numel, nc = (n + 1) / 2;                                                \
    uint64_t range = (uint64_t)a->high - (uint64_t)a->low, key, first;                          \
    int64_t low = a->low;                                                                       \
    rng_begin(a->seed, (uint64_t)nc, &key, &first);                                             \
    _Pragma("omp parallel for if (nc >= PAR_MIN_CTR) schedule(static)")                         \
    for (int64_t c = 0; c < nc; c++) {                                                          \
      uint32_t w[4];                                                                            \
      pd_philox(key, first + (uint64_t)c, w);                                                   \
      uint64_t r0 = ((uint64_t)w[0] << 32) | w[1], r1 = ((uint64_t)w[2] << 32) | w[3];          \
      d[2 * c] = (T)(int64_t)((uint64_t)low + r0 % range);                                      \
      if (2 * c + 1 < n) d[2 * c + 1] = (T)(int64_t)((uint64_t)low + r1 % range);               \
    }                                                                                           \
    return PD_OK;                                                                               \
  }
DEF_RANDINT(i32, int32_t, int32_t)
DEF_RANDINT(i64, int64_t, int64_t)

/* ---- randperm: swap targets drawn in parallel, Fisher-Yates swaps in order ---- */
#define DEF_RANDPERM(SUF, T, CT)                                                               \
  pd_status pd_kernel_randperm_##SUF(const void *args, pd_tensor **out, int n_out) {           \
    (void)n_out;                                                                                \
    const pd_randperm_args *a = (const pd_randperm_args *)args;                                 \
    T *d = (T *)pd_tensor_data(out[0]);                                                         \
    int64_t n = out[0]->numel;                                                                  \
    int64_t *j = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));                  \
    if (!j) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[randperm] out of memory");        \
    uint64_t key, first;                                                                        \
    rng_begin(a->seed, (uint64_t)n, &key, &first);                                              \
    _Pragma("omp parallel for if (n >= PAR_MIN_CTR) schedule(static)")                          \
    for (int64_t i = 0; i < n; i++) {                                                           \
      uint32_t w[4];                                                                            \
      pd_philox(key, first + (uint64_t)i, w);                                                   \
      j[i] = (int64_t)((((uint64_t)w[0] << 32) | w[1]) % (uint64_t)(i + 1));                    \
      d[i] = (T)i;                                                                              \
    }                                                                                           \
    for (int64_t i = n - 1; i > 0; i--) {                                                       \
      T t = d[i];                                                                               \
      d[i] = d[j[i]];                                                                           \
      d[j[i]] = t;                                                                              \
    }                                                                                           \
    free(j);                                                                                    \
    return PD_OK;                                                                               \
  }
DEF_RANDPERM(i32, int32_t, int32_t)
DEF_RANDPERM(i64, int64_t, int64_t)
DEF_RANDPERM(f32, float, float)
DEF_RANDPERM(f64, double, double)

/* ---- bernoulli: out = (u < p), probabilities checked first ---- */
#define DEF_BERNOULLI(SUF, T, CT)                                                              \
  pd_status pd_kernel_bernoulli_##SUF(const void *args, pd_tensor **out, int n_out) {          \
    (void)n_out;                                                                                \
    const pd_bernoulli_args *a = (const pd_bernoulli_args *)args;                               \
    pd_tensor *x;                                                                               \
    PD_TRY(pd_tensor_contiguous(a->x, &x));                                                     \
    const T *p = (const T *)pd_tensor_data(x);                                                  \
    T *d = (T *)pd_tensor_data(out[0]);                                                         \
    int64_t n = x->numel, bad = -1;                                                             \
    for (int64_t i = 0; i < n && bad < 0; i++) {                                                \
      double v = (double)PD_LD_##SUF(&p[i]);                                                    \
      if (!(v >= 0.0 && v <= 1.0)) bad = i;                                                     \
    }                                                                                           \
    if (bad >= 0) {                                                                             \
      double v = (double)PD_LD_##SUF(&p[bad]);                                                  \
      pd_tensor_release(x);                                                                     \
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[bernoulli] expected probabilities in "    \
                          "[0, 1], received %g at flat index %lld", v, (long long)bad);         \
    }                                                                                           \
    const int per = sizeof(T) == 8 ? 2 : 4;                                                     \
    int64_t nc = (n + per - 1) / per;                                                           \
    uint64_t key, first;                                                                        \
    rng_begin(a->seed, (uint64_t)nc, &key, &first);                                             \
    _Pragma("omp parallel for if (nc >= PAR_MIN_CTR) schedule(static)")                         \
    for (int64_t c = 0; c < nc; c++) {                                                          \
      double u[4];                                                                              \
      units(key, first + (uint64_t)c, per, u);                                                  \
      for (int j = 0; j < per && c * per + j < n; j++) {                                        \
        int64_t i = c * per + j;                                                                \
        PD_ST_##SUF(&d[i], u[j] < (double)PD_LD_##SUF(&p[i]) ? 1.0 : 0.0);                      \
      }                                                                                         \
    }                                                                                           \
    pd_tensor_release(x);                                                                       \
    return PD_OK;                                                                               \
  }
PD_FOR_FLOAT(DEF_BERNOULLI)

/* ---- multinomial ---- */
typedef struct { double key; int64_t idx; } keyed;
static int keyed_desc(const void *a, const void *b) {
  double x = ((const keyed *)a)->key, y = ((const keyed *)b)->key;
  if (x > y) return -1;
  if (x < y) return 1;
  return ((const keyed *)a)->idx < ((const keyed *)b)->idx ? -1 : 1;
}

/* w: rows x c weights (validated); per row: with replacement, inverse-cdf draws; without,
 * the k largest log(u)/w keys (Efraimidis-Spirakis), in draw order. */
static pd_status multinomial_rows(const double *w, int64_t rows, int64_t c, int64_t k, int repl,
                                  int64_t seed, int64_t *o) {
  int64_t per_row = repl ? k : c;
  uint64_t key, first;
  rng_begin(seed, (uint64_t)(rows * per_row), &key, &first);
  int fail = 0;
#pragma omp parallel if (rows * per_row >= PAR_MIN_CTR)
  {
    double *cdf = (double *)malloc(sizeof(double) * (size_t)c);
    keyed *ks = repl ? NULL : (keyed *)malloc(sizeof(keyed) * (size_t)c);
    if (!cdf || (!repl && !ks)) {
#pragma omp atomic write
      fail = 1;
    }
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; r++) {
      if (!cdf || (!repl && !ks)) continue;
      const double *wr = w + r * c;
      uint64_t ctr0 = first + (uint64_t)(r * per_row);
      if (repl) {
        double acc = 0;
        int64_t last = 0;
        for (int64_t i = 0; i < c; i++) {
          acc += wr[i];
          cdf[i] = acc;
          if (wr[i] > 0) last = i;
        }
        for (int64_t s = 0; s < k; s++) {
          uint32_t ww[4];
          pd_philox(key, ctr0 + (uint64_t)s, ww);
          double t = pd_u64_to_unit_d(ww[0], ww[1]) * acc;
          int64_t lo = 0, hi = c; /* first i with cdf[i] > t */
          while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (cdf[mid] > t) hi = mid; else lo = mid + 1;
          }
          o[r * k + s] = lo < c ? lo : last;
        }
      } else {
        for (int64_t i = 0; i < c; i++) {
          uint32_t ww[4];
          pd_philox(key, ctr0 + (uint64_t)i, ww);
          double u = 1.0 - pd_u64_to_unit_d(ww[0], ww[1]); /* (0, 1] */
          ks[i].key = wr[i] > 0 ? log(u) / wr[i] : -INFINITY;
          ks[i].idx = i;
        }
        qsort(ks, (size_t)c, sizeof(keyed), keyed_desc);
        for (int64_t s = 0; s < k; s++) o[r * k + s] = ks[s].idx;
      }
    }
    free(cdf);
    free(ks);
  }
  if (fail) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[multinomial] out of memory");
  return PD_OK;
}

#define DEF_MULTINOMIAL(SUF, T, CT)                                                            \
  pd_status pd_kernel_multinomial_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                                \
    const pd_multinomial_args *a = (const pd_multinomial_args *)args;                           \
    pd_tensor *x;                                                                               \
    PD_TRY(pd_tensor_contiguous(a->x, &x));                                                     \
    int64_t c = x->shape[x->ndim - 1], rows = x->numel / c;                                     \
    double *w = (double *)malloc(sizeof(double) * (size_t)x->numel);                            \
    if (!w) {                                                                                   \
      pd_tensor_release(x);                                                                     \
      return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[multinomial] out of memory");            \
    }                                                                                           \
    const T *p = (const T *)pd_tensor_data(x);                                                  \
    pd_status s = PD_OK;                                                                        \
    for (int64_t r = 0; r < rows && s == PD_OK; r++) {                                          \
      double sum = 0;                                                                           \
      int64_t pos = 0;                                                                          \
      for (int64_t i = 0; i < c; i++) {                                                         \
        double v = (double)PD_LD_##SUF(&p[r * c + i]);                                          \
        w[r * c + i] = v;                                                                       \
        if (!(v >= 0) || isinf(v)) {                                                            \
          s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[multinomial] expected finite non-negative"\
                           " weights, received %g in row %lld", v, (long long)r);               \
          break;                                                                                \
        }                                                                                       \
        sum += v;                                                                               \
        pos += v > 0;                                                                           \
      }                                                                                         \
      if (s == PD_OK && !(sum > 0))                                                             \
        s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[multinomial] expected the weights of row "  \
                         "%lld to have a positive sum, received %g", (long long)r, sum);        \
      else if (s == PD_OK && !a->replacement && pos < a->num_samples)                           \
        s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[multinomial] expected num_samples (%lld) <="\
                         " the number of positive weights (%lld) in row %lld without "          \
                         "replacement", (long long)a->num_samples, (long long)pos,              \
                         (long long)r);                                                         \
    }                                                                                           \
    if (s == PD_OK)                                                                             \
      s = multinomial_rows(w, rows, c, a->num_samples, a->replacement, a->seed,                 \
                           (int64_t *)pd_tensor_data(out[0]));                                  \
    free(w);                                                                                    \
    pd_tensor_release(x);                                                                       \
    return s;                                                                                   \
  }
PD_FOR_FLOAT(DEF_MULTINOMIAL)
