/* Random kernels: uniform, gaussian, randint, randperm, bernoulli, uniform_ and exponential_
 * follow real Paddle's CPU kernels element by element on the mt19937_64 engine (csrc/core/
 * pd_random.h), as do truncated_gaussian and multinomial, so seeded results equal Paddle's. */
#include <stdlib.h>
#include "pd_kernel_util.h"
#include "../../core/pd_random.h"

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

/* ---- uniform, gaussian, exponential: Paddle's CPU kernels, element by element from the engine.
 * float16/bfloat16 draw in float and round (Paddle's specialisations); float32 computes in
 * float, float64 in double, the bounds of uniform rounded to float first (Paddle passes them
 * as float). kind 0: uniform_real_distribution(lo, hi); 1: normal_distribution(lo=mean,
 * hi=std); 2: exponential: -1 / lam * log(1 - u) with u uniform in [0, 1). */
#define DEF_FILL(SUF, T, CT)                                                                   \
  static void fill_##SUF(T *d, int64_t n, int kind, double lo, double hi, int64_t seed) {      \
    pd_rng_use u;                                                                               \
    pd_rng_begin(&u, seed);                                                                     \
    pd_normal_state ns = {0, 0.0};                                                              \
    if (sizeof(T) == 8) {                                                                       \
      double a = kind == 0 ? (double)(float)lo : lo, b = kind == 0 ? (double)(float)hi : hi;     \
      for (int64_t i = 0; i < n; i++) {                                                         \
        double v;                                                                               \
        if (kind == 0) v = pd_mt64_unit_d(u.e) * (b - a) + a;                                   \
        else if (kind == 1) v = pd_mt64_normal_d(u.e, &ns) * b + a;                             \
        else v = -1.0 / a * log(1.0 - pd_mt64_unit_d(u.e));                                     \
        PD_ST_##SUF(&d[i], v);                                                                  \
      }                                                                                         \
    } else {                                                                                    \
      float a = (float)lo, b = (float)hi;                                                       \
      for (int64_t i = 0; i < n; i++) {                                                         \
        float v;                                                                                \
        if (kind == 0) v = pd_mt64_unit_f(u.e) * (b - a) + a;                                   \
        else if (kind == 1) v = pd_mt64_normal_f(u.e, &ns) * b + a;                             \
        else v = -1.0f / a * logf(1.0f - pd_mt64_unit_f(u.e));                                  \
        PD_ST_##SUF(&d[i], v);                                                                  \
      }                                                                                         \
    }                                                                                           \
    pd_rng_end(&u);                                                                             \
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

/* ---- randint: std::uniform_int_distribution<T>(low, high - 1) per element ---- */
#define DEF_RANDINT(SUF, T, CT)                                                                \
  pd_status pd_kernel_randint_##SUF(const void *args, pd_tensor **out, int n_out) {            \
    (void)n_out;                                                                                \
    const pd_randint_args *a = (const pd_randint_args *)args;                                   \
    T *d = (T *)pd_tensor_data(out[0]);                                                         \
    int64_t n = out[0]->numel;                                                                  \
    uint64_t range = (uint64_t)a->high - (uint64_t)a->low;                                      \
    pd_rng_use u;                                                                               \
    pd_rng_begin(&u, a->seed);                                                                  \
    for (int64_t i = 0; i < n; i++) d[i] = (T)(int64_t)((uint64_t)a->low + pd_mt64_below(u.e, range)); \
    pd_rng_end(&u);                                                                             \
    return PD_OK;                                                                               \
  }
DEF_RANDINT(i32, int32_t, int32_t)
DEF_RANDINT(i64, int64_t, int64_t)

/* ---- randperm: 0..n-1 shuffled by std::shuffle's algorithm (libstdc++: for a 64-bit engine
 * two swap positions come from one draw over the product of their ranges) ---- */
static void shuffle_idx(int64_t *d, int64_t n, pd_mt64 *e) {
  if (n <= 1) return;
  int64_t i = 1;
  if (n % 2 == 0) {
    int64_t j = (int64_t)pd_mt64_below(e, 2);
    int64_t t = d[i];
    d[i] = d[j];
    d[j] = t;
    i++;
  }
  while (i < n) {
    uint64_t b0 = (uint64_t)i + 1, b1 = b0 + 1, x = pd_mt64_below(e, b0 * b1);
    int64_t j0 = (int64_t)(x / b1), j1 = (int64_t)(x % b1), t;
    t = d[i];
    d[i] = d[j0];
    d[j0] = t;
    i++;
    t = d[i];
    d[i] = d[j1];
    d[j1] = t;
    i++;
  }
}

#define DEF_RANDPERM(SUF, T, CT)                                                               \
  pd_status pd_kernel_randperm_##SUF(const void *args, pd_tensor **out, int n_out) {           \
    (void)n_out;                                                                                \
    const pd_randperm_args *a = (const pd_randperm_args *)args;                                 \
    T *d = (T *)pd_tensor_data(out[0]);                                                         \
    int64_t n = out[0]->numel;                                                                  \
    if (n >= ((int64_t)1 << 32))                                                                \
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[randperm] expected n < 2^32, received %lld", \
                          (long long)n);                                                        \
    int64_t *j = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));                  \
    if (!j) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[randperm] out of memory");        \
    for (int64_t i = 0; i < n; i++) j[i] = i;                                                   \
    pd_rng_use u;                                                                               \
    pd_rng_begin(&u, a->seed);                                                                  \
    shuffle_idx(j, n, u.e);                                                                     \
    pd_rng_end(&u);                                                                             \
    for (int64_t i = 0; i < n; i++) d[i] = (T)j[i];                                             \
    free(j);                                                                                    \
    return PD_OK;                                                                               \
  }
DEF_RANDPERM(i32, int32_t, int32_t)
DEF_RANDPERM(i64, int64_t, int64_t)
DEF_RANDPERM(f32, float, float)
DEF_RANDPERM(f64, double, double)

/* ---- bernoulli: out = (u < p) with u from uniform_real_distribution<T>(0, 1), probabilities
 * checked first ---- */
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
    pd_rng_use u;                                                                               \
    pd_rng_begin(&u, a->seed);                                                                  \
    for (int64_t i = 0; i < n; i++) {                                                           \
      int hit = sizeof(T) == 8 ? pd_mt64_unit_d(u.e) < (double)PD_LD_##SUF(&p[i])               \
                               : pd_mt64_unit_f(u.e) < (float)PD_LD_##SUF(&p[i]);               \
      PD_ST_##SUF(&d[i], hit ? 1.0 : 0.0);                                                      \
    }                                                                                           \
    pd_rng_end(&u);                                                                             \
    pd_tensor_release(x);                                                                       \
    return PD_OK;                                                                               \
  }
PD_FOR_FLOAT(DEF_BERNOULLI)

/* ---- truncated_gaussian: Paddle's TruncatedNormal functor (inverse CDF through its rational
 * erfinv approximation) over uniform_real_distribution<T>(FLT_MIN, 1), with the same mix of
 * T and double arithmetic, so seeded values equal Paddle's ---- */
#define ERFINV_BODY(T, ABS)                                                                     \
  if (x < -1 || x > 1) return (T)NAN;                                                           \
  if (x == 1.0) return (T)INFINITY;                                                             \
  if (x == -1.0) return (T)-INFINITY;                                                           \
  const T LN2 = (T)6.931471805599453094172321214581e-1;                                         \
  const T A0 = (T)1.1975323115670912564578e0, A1 = (T)4.7072688112383978012285e1,                 \
          A2 = (T)6.9706266534389598238465e2, A3 = (T)4.8548868893843886794648e3,                 \
          A4 = (T)1.6235862515167575384252e4, A5 = (T)2.3782041382114385731252e4,                 \
          A6 = (T)1.1819493347062294404278e4, A7 = (T)8.8709406962545514830200e2;                 \
  const T B0 = (T)1.0000000000000000000e0, B1 = (T)4.2313330701600911252e1,                       \
          B2 = (T)6.8718700749205790830e2, B3 = (T)5.3941960214247511077e3,                       \
          B4 = (T)2.1213794301586595867e4, B5 = (T)3.9307895800092710610e4,                       \
          B6 = (T)2.8729085735721942674e4, B7 = (T)5.2264952788528545610e3;                       \
  const T C0 = (T)1.42343711074968357734e0, C1 = (T)4.63033784615654529590e0,                     \
          C2 = (T)5.76949722146069140550e0, C3 = (T)3.64784832476320460504e0,                     \
          C4 = (T)1.27045825245236838258e0, C5 = (T)2.41780725177450611770e-1,                    \
          C6 = (T)2.27238449892691845833e-2, C7 = (T)7.74545014278341407640e-4;                   \
  const T D0 = (T)1.4142135623730950488016887e0, D1 = (T)2.9036514445419946173133295e0,           \
          D2 = (T)2.3707661626024532365971225e0, D3 = (T)9.7547832001787427186894837e-1,          \
          D4 = (T)2.0945065210512749128288442e-1, D5 = (T)2.1494160384252876777097297e-2,         \
          D6 = (T)7.7441459065157709165577218e-4, D7 = (T)1.4859850019840355905497876e-9;         \
  const T E0 = (T)6.65790464350110377720e0, E1 = (T)5.46378491116411436990e0,                     \
          E2 = (T)1.78482653991729133580e0, E3 = (T)2.96560571828504891230e-1,                    \
          E4 = (T)2.65321895265761230930e-2, E5 = (T)1.24266094738807843860e-3,                   \
          E6 = (T)2.71155556874348757815e-5, E7 = (T)2.01033439929228813265e-7;                   \
  const T F0 = (T)1.414213562373095048801689e0, F1 = (T)8.482908416595164588112026e-1,            \
          F2 = (T)1.936480946950659106176712e-1, F3 = (T)2.103693768272068968719679e-2,           \
          F4 = (T)1.112800997078859844711555e-3, F5 = (T)2.611088405080593625138020e-5,           \
          F6 = (T)2.010321207683943062279931e-7, F7 = (T)2.891024605872965461538222e-15;          \
  T abs_x = ABS(x);                                                                             \
  if (abs_x <= 0.85) {                                                                          \
    T r = (T)(0.180625 - 0.25 * (double)x * (double)x);                                         \
    T num = (((((((A7 * r + A6) * r + A5) * r + A4) * r + A3) * r + A2) * r + A1) * r + A0);    \
    T den = (((((((B7 * r + B6) * r + B5) * r + B4) * r + B3) * r + B2) * r + B1) * r + B0);    \
    return x * num / den;                                                                       \
  }                                                                                             \
  T r = (T)sqrt((double)LN2 - log(1.0 - (double)abs_x));                                        \
  T num, den;                                                                                   \
  if (r <= 5.0) {                                                                               \
    r = (T)((double)r - 1.6);                                                                   \
    num = (((((((C7 * r + C6) * r + C5) * r + C4) * r + C3) * r + C2) * r + C1) * r + C0);      \
    den = (((((((D7 * r + D6) * r + D5) * r + D4) * r + D3) * r + D2) * r + D1) * r + D0);      \
  } else {                                                                                      \
    r = (T)((double)r - 5.0);                                                                   \
    num = (((((((E7 * r + E6) * r + E5) * r + E4) * r + E3) * r + E2) * r + E1) * r + E0);      \
    den = (((((((F7 * r + F6) * r + F5) * r + F4) * r + F3) * r + F2) * r + F1) * r + F0);      \
  }                                                                                             \
  return x < 0 ? -num / den : num / den;

static float erfinv_f(float x) { ERFINV_BODY(float, fabsf) }
static double erfinv_d(double x) { ERFINV_BODY(double, fabs) }
#undef ERFINV_BODY

#define DEF_TRUNC(SUF, T, ERFINV, UNIT)                                                          \
  pd_status pd_kernel_truncated_gaussian_##SUF(const void *args, pd_tensor **out, int n_out) {  \
    (void)n_out;                                                                                \
    const pd_truncated_gaussian_args *a = (const pd_truncated_gaussian_args *)args;             \
    T *d = (T *)pd_tensor_data(out[0]);                                                         \
    const T mean = (T)a->mean, sd = (T)a->std, lo = (T)1.17549435082228750797e-38, hi = (T)1.0; \
    const T acdf = (T)((1.0 + erf((double)(T)-2.0 / sqrt(2.0))) / 2.0);                          \
    const T bcdf = (T)((1.0 + erf((double)(T)2.0 / sqrt(2.0))) / 2.0);                           \
    pd_rng_use u;                                                                               \
    pd_rng_begin(&u, a->seed);                                                                  \
    for (int64_t i = 0; i < out[0]->numel; i++) {                                               \
      T v = UNIT(u.e) * (hi - lo) + lo;                                                         \
      T p = acdf + (bcdf - acdf) * v;                                                           \
      d[i] = (T)(sqrt(2.0) * (double)ERFINV(2 * p - 1) * (double)sd + (double)mean);             \
    }                                                                                           \
    pd_rng_end(&u);                                                                             \
    return PD_OK;                                                                               \
  }
DEF_TRUNC(f32, float, erfinv_f, pd_mt64_unit_f)
DEF_TRUNC(f64, double, erfinv_d, pd_mt64_unit_d)

/* ---- multinomial: Paddle's CPU functor, in T (float for the 16-bit types): per row the
 * normalised cumulative sums, then per sample one uniform_real_distribution<T>(0, 1) draw and
 * a binary search (the last entry set to 1); without replacement the drawn category's mass is
 * removed and the row renormalised. Inputs are validated first (finite, non-negative, positive
 * sum, enough positive weights). ---- */
#define DEF_MULT_ROWS(NAME, T, UNIT)                                                             \
  static pd_status NAME(const double *w, int64_t rows, int64_t c, int64_t k, int repl, int64_t seed, \
                        int64_t *o) {                                                           \
    T *cum = (T *)malloc(sizeof(T) * (size_t)(c > 0 ? c : 1));                                  \
    if (!cum) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[multinomial] out of memory");   \
    pd_rng_use u;                                                                               \
    pd_rng_begin(&u, seed);                                                                     \
    for (int64_t r = 0; r < rows; r++) {                                                        \
      T sum = 0;                                                                                \
      for (int64_t j = 0; j < c; j++) {                                                         \
        sum += (T)w[r * c + j];                                                                 \
        cum[j] = sum;                                                                           \
      }                                                                                         \
      for (int64_t j = 0; j < c; j++) cum[j] /= sum;                                            \
      for (int64_t s = 0; s < k; s++) {                                                         \
        T ur = UNIT(u.e);                                                                       \
        int64_t left = 0, right = c;                                                            \
        cum[c - 1] = 1;                                                                         \
        while (right > left) {                                                                  \
          int64_t mid = left + (right - left) / 2;                                              \
          if (cum[mid] < ur) left = mid + 1;                                                    \
          else right = mid;                                                                     \
        }                                                                                       \
        o[r * k + s] = left;                                                                    \
        if (!repl && s < k - 1) {                                                               \
          T prev = left != 0 ? cum[left - 1] : (T)0;                                            \
          T sp = cum[left] - prev, ns = (T)(1.0 - (double)sp);                                  \
          for (int64_t j = 0; j < c; j++) {                                                     \
            T v = cum[j];                                                                       \
            if (j >= left) v -= sp;                                                             \
            cum[j] = v / ns;                                                                    \
          }                                                                                     \
        }                                                                                       \
      }                                                                                         \
    }                                                                                           \
    pd_rng_end(&u);                                                                             \
    free(cum);                                                                                  \
    return PD_OK;                                                                               \
  }
DEF_MULT_ROWS(multinomial_rows_f, float, pd_mt64_unit_f)
DEF_MULT_ROWS(multinomial_rows_d, double, pd_mt64_unit_d)

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
      s = (sizeof(T) == 8 ? multinomial_rows_d : multinomial_rows_f)(w, rows, c, a->num_samples,  \
                           a->replacement, a->seed, (int64_t *)pd_tensor_data(out[0]));         \
    free(w);                                                                                    \
    pd_tensor_release(x);                                                                       \
    return s;                                                                                   \
  }
PD_FOR_FLOAT(DEF_MULTINOMIAL)
