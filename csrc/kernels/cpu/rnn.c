/* Fused LSTM cell kernels (ops/rnn.yaml). gates [B, 4H] hold the pre-activations in Paddle's
 * order (input, forget, cell candidate, output); c = f*c_prev + i*g, h = o*tanh(c). The grad
 * kernel recomputes the activations from gates and tanh(c) from c, so only gates, c_prev and c
 * are saved. Rows are split across OpenMP threads when the batch is large enough to pay. */
#include "pd_kernel_util.h"
#include "pd_vmath.h"

/* Rows across threads only when there is enough work (one step of a typical LSTM is not). */
#define PD_LSTM_OMP _Pragma("omp parallel for if (B * H >= 65536) schedule(static)")

/* Inputs may be strided views; work on contiguous copies (no copy when already contiguous). */
static pd_status contig(pd_tensor *t, pd_tensor **out) {
  if (pd_tensor_is_contiguous(t)) {
    pd_tensor_retain(t);
    *out = t;
    return PD_OK;
  }
  return pd_tensor_contiguous(t, out);
}

#define DEF_LSTM(SUF, T, SIG, TANH)                                                              \
  static void lstm_fwd_##SUF(const T *g, const T *cp, T *h, T *c, int64_t B, int64_t H) {        \
    PD_LSTM_OMP                                                                                  \
    for (int64_t b = 0; b < B; b++) {                                                            \
      const T *restrict gi = g + b * 4 * H, *restrict gf = gi + H, *restrict gg = gi + 2 * H;    \
      const T *restrict go = gi + 3 * H, *restrict cpr = cp + b * H;                             \
      T *restrict hr = h + b * H, *restrict cr = c + b * H;                                      \
      _Pragma("omp simd")                                                                        \
      for (int64_t j = 0; j < H; j++) {                                                          \
        T i = SIG(gi[j]), f = SIG(gf[j]), gc = TANH(gg[j]), o = SIG(go[j]);                      \
        T cv = f * cpr[j] + i * gc;                                                              \
        cr[j] = cv;                                                                              \
        hr[j] = o * TANH(cv);                                                                    \
      }                                                                                          \
    }                                                                                            \
  }                                                                                              \
  static void lstm_bwd_##SUF(const T *g, const T *cp, const T *c, const T *dh, const T *dc,      \
                             T *dg, T *dcp, int64_t B, int64_t H) {                              \
    PD_LSTM_OMP                                                                                  \
    for (int64_t b = 0; b < B; b++) {                                                            \
      const T *restrict gi = g + b * 4 * H, *restrict gf = gi + H, *restrict gg = gi + 2 * H;    \
      const T *restrict go = gi + 3 * H, *restrict cpr = cp + b * H, *restrict cr = c + b * H;   \
      const T *restrict dhr = dh + b * H, *restrict dcr = dc + b * H;                            \
      T *restrict dgi = dg + b * 4 * H, *restrict dgf = dgi + H, *restrict dgg = dgi + 2 * H;    \
      T *restrict dgo = dgi + 3 * H, *restrict dcpr = dcp + b * H;                               \
      _Pragma("omp simd")                                                                        \
      for (int64_t j = 0; j < H; j++) {                                                          \
        T i = SIG(gi[j]), f = SIG(gf[j]), gc = TANH(gg[j]), o = SIG(go[j]);                      \
        T tc = TANH(cr[j]);                                                                      \
        T dct = dcr[j] + dhr[j] * o * ((T)1 - tc * tc);                                          \
        dgi[j] = dct * gc * i * ((T)1 - i);                                                      \
        dgf[j] = dct * cpr[j] * f * ((T)1 - f);                                                  \
        dgg[j] = dct * i * ((T)1 - gc * gc);                                                     \
        dgo[j] = dhr[j] * tc * o * ((T)1 - o);                                                   \
        dcpr[j] = dct * f;                                                                       \
      }                                                                                          \
    }                                                                                            \
  }                                                                                              \
  pd_status pd_kernel_lstm_cell_fused_##SUF(const void *args, pd_tensor **out, int n_out) {      \
    (void)n_out;                                                                                 \
    const pd_lstm_cell_fused_args *a = (const pd_lstm_cell_fused_args *)args;                    \
    pd_tensor *g, *cp;                                                                           \
    PD_TRY(contig(a->gates, &g));                                                                \
    pd_status st = contig(a->c_prev, &cp);                                                       \
    if (st == PD_OK) {                                                                           \
      lstm_fwd_##SUF((const T *)pd_tensor_data(g), (const T *)pd_tensor_data(cp),                \
                     (T *)pd_tensor_data(out[0]), (T *)pd_tensor_data(out[1]), cp->shape[0],     \
                     cp->shape[1]);                                                              \
      pd_tensor_release(cp);                                                                     \
    }                                                                                            \
    pd_tensor_release(g);                                                                        \
    return st;                                                                                   \
  }                                                                                              \
  pd_status pd_kernel_lstm_cell_fused_grad_##SUF(const void *args, pd_tensor **out, int n_out) { \
    (void)n_out;                                                                                 \
    const pd_lstm_cell_fused_grad_args *a = (const pd_lstm_cell_fused_grad_args *)args;          \
    pd_tensor *in[5] = {a->gates, a->c_prev, a->c, a->dh, a->dc}, *cc[5] = {0};                  \
    pd_status st = PD_OK;                                                                        \
    for (int k = 0; k < 5 && st == PD_OK; k++) st = contig(in[k], &cc[k]);                       \
    if (st == PD_OK)                                                                             \
      lstm_bwd_##SUF((const T *)pd_tensor_data(cc[0]), (const T *)pd_tensor_data(cc[1]),         \
                     (const T *)pd_tensor_data(cc[2]), (const T *)pd_tensor_data(cc[3]),         \
                     (const T *)pd_tensor_data(cc[4]), (T *)pd_tensor_data(out[0]),              \
                     (T *)pd_tensor_data(out[1]), cc[1]->shape[0], cc[1]->shape[1]);             \
    for (int k = 0; k < 5; k++)                                                                  \
      if (cc[k]) pd_tensor_release(cc[k]);                                                       \
    return st;                                                                                   \
  }

DEF_LSTM(f32, float, pd_vsigmoidf, pd_vtanhf)
DEF_LSTM(f64, double, pd_vsigmoid, pd_vtanh)
