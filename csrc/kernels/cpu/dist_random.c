/* standard_gamma: Gamma(alpha, 1) samples, one per element of alpha (Marsaglia and Tsang's
 * squeeze method; alpha < 1 samples Gamma(alpha + 1) * u^(1/alpha)). Element i reads the Philox
 * counter first + i under a different key per rejection round, so results depend only on
 * (seed, op order), not on the thread count (same contract as random.c). */
#include "pd_kernel_util.h"
#include "../../core/pd_random.h"

#define GAMMA_PAR_MIN 2048
#define GAMMA_TWO_PI 6.283185307179586476925286766559

/* Two 53-bit uniforms in [0, 1) for (key of round r, counter). */
static inline void g_units(uint64_t key, uint64_t r, uint64_t ctr, double u[2]) {
  uint32_t w[4];
  pd_philox(key + r * 0xD1B54A32D192ED03ULL, ctr, w);
  u[0] = pd_u64_to_unit_d(w[0], w[1]);
  u[1] = pd_u64_to_unit_d(w[2], w[3]);
}

/* One Philox block per rejection round: two 32-bit uniforms in (0, 1) for a Box-Muller normal
 * and a third for the acceptance test. */
static inline double g_u32(uint32_t w) { return ((double)w + 0.5) * (1.0 / 4294967296.0); }

static double gamma_one(double alpha, uint64_t key, uint64_t ctr) {
  double boost = 1.0;
  uint64_t r = 1;
  if (alpha < 1.0) {
    double u[2];
    g_units(key, 0, ctr, u);
    boost = pow(1.0 - u[0], 1.0 / alpha); /* 1 - u in (0, 1] */
    alpha += 1.0;
  }
  double d = alpha - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  for (;; r++) {
    uint32_t w[4];
    pd_philox(key + r * 0xD1B54A32D192ED03ULL, ctr, w);
    double x = sqrt(-2.0 * log(g_u32(w[0]))) * cos(GAMMA_TWO_PI * g_u32(w[1]));
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    double uu = g_u32(w[2]);
    if (uu < 1.0 - 0.0331 * (x * x) * (x * x)) return d * v * boost;
    if (log(uu) < 0.5 * x * x + d * (1.0 - v + log(v))) return d * v * boost;
  }
}

#define DEF_GAMMA(SUF, T, CT)                                                                  \
  pd_status pd_kernel_standard_gamma_##SUF(const void *args, pd_tensor **out, int n_out) {     \
    (void)n_out;                                                                                \
    const pd_standard_gamma_args *a = (const pd_standard_gamma_args *)args;                     \
    pd_tensor *x;                                                                               \
    PD_TRY(pd_tensor_contiguous(a->x, &x));                                                     \
    const T *p = (const T *)pd_tensor_data(x);                                                  \
    int64_t n = x->numel;                                                                       \
    for (int64_t i = 0; i < n; i++) {                                                           \
      double v = (double)PD_LD_##SUF(&p[i]);                                                    \
      if (!(v > 0.0) || isinf(v)) {                                                             \
        pd_tensor_release(x);                                                                   \
        return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[standard_gamma] expected concentration " \
                            "> 0 and finite, received %g at flat index %lld", v, (long long)i); \
      }                                                                                         \
    }                                                                                           \
    pd_tensor *tmp = NULL;                                                                      \
    T *d;                                                                                       \
    if (pd_tensor_is_contiguous(out[0])) {                                                      \
      d = (T *)pd_tensor_data(out[0]);                                                          \
    } else {                                                                                    \
      pd_status s = pd_tensor_empty(out[0]->dtype, out[0]->ndim, out[0]->shape, &tmp);          \
      if (s != PD_OK) {                                                                         \
        pd_tensor_release(x);                                                                   \
        return s;                                                                               \
      }                                                                                         \
      d = (T *)pd_tensor_data(tmp);                                                             \
    }                                                                                           \
    uint64_t key, first;                                                                        \
    pd_random_reserve_seeded(a->seed, &key, &first);                                            \
    _Pragma("omp parallel for if (n >= GAMMA_PAR_MIN) schedule(static)")                        \
    for (int64_t i = 0; i < n; i++) {                                                           \
      double g = gamma_one((double)PD_LD_##SUF(&p[i]), key, first + (uint64_t)i);               \
      PD_ST_##SUF(&d[i], g);                                                                    \
    }                                                                                           \
    pd_tensor_release(x);                                                                       \
    pd_status s = PD_OK;                                                                        \
    if (tmp) {                                                                                  \
      s = pd_tensor_copy_(out[0], tmp);                                                         \
      pd_tensor_release(tmp);                                                                   \
    }                                                                                           \
    return s;                                                                                   \
  }
PD_FOR_FLOAT(DEF_GAMMA)
