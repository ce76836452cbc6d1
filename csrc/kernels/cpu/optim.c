/* Fused optimizer updates (ops/optim.yaml): one pass per parameter updates the parameter and its
 * accumulators in place (lamb: two passes, for its norms). float32/float64 compute in their own
 * type; float16/bfloat16 compute in float32 with float32 accumulators and an optional float32
 * master copy (multi_precision). Large tensors run as one contiguous chunk per OpenMP thread;
 * the inner loops are straight-line and vectorise. Formulas follow Paddle 2.3's kernels. Static
 * programs pass the learning rate as a tensor (times the lr attribute) and AMP's found_inf as
 * skip_update. Every chunk runs with FTZ/DAZ set in its thread (pd_ftz_enter): accumulators that
 * decay below FLT_MIN become 0 rather than subnormals, which are slow to compute with. */
#include "pd_kernel_util.h"
#include "pd_vmath.h"

#define OPT_GRAIN 65536 /* elements below which an update stays on one thread */

#define SQRT(x) _Generic((x), float: sqrtf, default: sqrt)(x)
#define FABS(x) _Generic((x), float: fabsf, default: fabs)(x)
#define SEL(c, a, b) _Generic((a), float: pd_vm_self, default: pd_vm_seld)((c), (a), (b))

/* What every update reads: param (and its master copy), grad, up to three accumulators, the
 * regularisation coefficients and the op's scalars h[]. */
typedef struct {
  void *p;
  const void *g;
  float *mp;
  void *a0, *a1, *a2;
  double l1, l2, rescale;
  double h[8];
} opt_ctx;

typedef void (*chunk_fn)(const opt_ctx *c, int64_t b, int64_t e, double *red);

/* Runs fn over units [0, n) (per_unit elements each): one chunk per thread when large; red[2]
 * receives the sum of the chunks' partial results. */
static void run_chunks(int64_t n, int64_t per_unit, chunk_fn fn, const opt_ctx *c, double *red) {
  int64_t nch = n * per_unit >= OPT_GRAIN ? pd_num_threads() : 1;
  if (nch > n) nch = n;
  double r0 = 0, r1 = 0;
  if (nch <= 1) {
    double r[2] = {0, 0};
    unsigned csr = pd_ftz_enter();
    if (n > 0) fn(c, 0, n, r);
    pd_ftz_leave(csr);
    r0 = r[0];
    r1 = r[1];
  } else {
#pragma omp parallel for schedule(static) reduction(+ : r0, r1)
    for (int64_t k = 0; k < nch; k++) {
      /* chunk edges on 16-element boundaries (whole cache lines for float32) */
      int64_t b = k == 0 ? 0 : (n * k / nch) & ~(int64_t)15;
      int64_t e = k == nch - 1 ? n : (n * (k + 1) / nch) & ~(int64_t)15;
      double r[2] = {0, 0};
      unsigned csr = pd_ftz_enter(); /* in the thread that runs the chunk */
      if (e > b) fn(c, b, e, r);
      pd_ftz_leave(csr);
      r0 += r[0];
      r1 += r[1];
    }
  }
  if (red) {
    red[0] = r0;
    red[1] = r1;
  }
}

/* Runs the statements in __VA_ARGS__ for i in [b, e) with CT p (param, from the master copy when
 * there is one) and CT g (the regularised gradient); they update p, which is stored back. */
#define ELEM_LOOP(SUF, T, CT, ...)                                                            \
  do {                                                                                        \
    T *restrict P_ = (T *)c->p;                                                               \
    const T *restrict G_ = (const T *)c->g;                                                   \
    float *restrict M_ = c->mp;                                                               \
    const CT L1_ = (CT)c->l1, L2_ = (CT)c->l2, RS_ = (CT)c->rescale;                          \
    if (M_) {                                                                                 \
      for (int64_t i = b; i < e; i++) {                                                       \
        CT p = (CT)M_[i];                                                                     \
        CT g = (CT)PD_LD_##SUF(G_ + i) * RS_ + L2_ * p + L1_ * (CT)((p > 0) - (p < 0));       \
        __VA_ARGS__                                                                           \
        M_[i] = (float)p;                                                                     \
        PD_ST_##SUF(P_ + i, p);                                                               \
      }                                                                                       \
    } else {                                                                                  \
      for (int64_t i = b; i < e; i++) {                                                       \
        CT p = (CT)PD_LD_##SUF(P_ + i);                                                       \
        CT g = (CT)PD_LD_##SUF(G_ + i) * RS_ + L2_ * p + L1_ * (CT)((p > 0) - (p < 0));       \
        __VA_ARGS__                                                                           \
        PD_ST_##SUF(P_ + i, p);                                                               \
      }                                                                                       \
    }                                                                                         \
  } while (0)

#define ACCS(CT)                                                                              \
  CT *restrict A0_ = (CT *)c->a0;                                                             \
  CT *restrict A1_ = (CT *)c->a1;                                                             \
  CT *restrict A2_ = (CT *)c->a2;                                                             \
  (void)A0_;                                                                                  \
  (void)A1_;                                                                                  \
  (void)A2_;

/* ---- shared set-up ---- */
static pd_status ctx_init(opt_ctx *c, pd_tensor *param, pd_tensor *grad, pd_tensor *master,
                          double l1, double l2, pd_tensor **gtmp) {
  memset(c, 0, sizeof *c);
  *gtmp = NULL;
  if (!pd_tensor_is_contiguous(grad)) {
    PD_TRY(pd_tensor_contiguous(grad, gtmp));
    grad = *gtmp;
  }
  c->p = pd_tensor_data(param);
  c->g = pd_tensor_data(grad);
  c->mp = master ? (float *)pd_tensor_data(master) : NULL;
  c->l1 = l1;
  c->l2 = l2;
  c->rescale = 1.0;
  return PD_OK;
}

static pd_status finish(pd_tensor **out, pd_tensor *param, pd_tensor *gtmp) {
  if (gtmp) pd_tensor_release(gtmp);
  out[0] = param; /* the runner already holds param as output 0 */
  return PD_OK;
}

static double ld_pow(const pd_tensor *t) {
  double re, im;
  pd_load_as_complex(pd_tensor_data(t), t->dtype, &re, &im);
  return re;
}
static void st_pow(pd_tensor *t, double v) { pd_store_from_double(pd_tensor_data(t), t->dtype, v); }

/* the step's learning rate: lr, or (static programs) the learning_rate tensor's value times lr */
static double eff_lr(double lr, const pd_tensor *t) { return t ? ld_pow(t) * lr : lr; }

/* static AMP: a true skip_update (found_inf) leaves parameter and accumulators untouched */
static int skipped(const pd_tensor *t) { return t && pd_load_as_double(pd_tensor_data(t), t->dtype) != 0; }
#define SKIP_IF(a)                                                                            \
  if (skipped((a)->skip_update)) {                                                            \
    out[0] = (a)->param;                                                                      \
    return PD_OK;                                                                             \
  }

/* ---- sgd: p -= lr * g ---- */
#define DEF_SGD(SUF, T, CT)                                                                   \
  static void sgd_chunk_##SUF(const opt_ctx *c, int64_t b, int64_t e, double *red) {          \
    (void)red;                                                                                \
    const CT LR = (CT)c->h[0];                                                                \
    ELEM_LOOP(SUF, T, CT, p -= LR * g;);                                                      \
  }                                                                                           \
  pd_status pd_kernel_sgd__##SUF(const void *args, pd_tensor **out, int n_out) {              \
    (void)n_out;                                                                              \
    const pd_sgd__args *a = (const pd_sgd__args *)args;                                       \
    SKIP_IF(a)                                                                                \
    const double lr = eff_lr(a->lr, a->learning_rate);                                        \
    opt_ctx c;                                                                                \
    pd_tensor *gt;                                                                            \
    PD_TRY(ctx_init(&c, a->param, a->grad, a->master_param, a->l1, a->l2, &gt));              \
    c.h[0] = lr;                                                                              \
    run_chunks(a->param->numel, 1, sgd_chunk_##SUF, &c, NULL);                                \
    return finish(out, a->param, gt);                                                         \
  }
PD_FOR_FLOAT(DEF_SGD)

/* ---- momentum: v = mu v + g; p -= lr v, or lr (g + mu v) with use_nesterov ---- */
#define DEF_MOMENTUM(SUF, T, CT)                                                              \
  static void momentum_chunk_##SUF(const opt_ctx *c, int64_t b, int64_t e, double *red) {     \
    (void)red;                                                                                \
    ACCS(CT)                                                                                  \
    const CT LR = (CT)c->h[0], MU = (CT)c->h[1], CG = (CT)c->h[2], CV = (CT)c->h[3];          \
    ELEM_LOOP(SUF, T, CT, CT v = MU * A0_[i] + g; A0_[i] = v; p -= LR * (CG * g + CV * v););  \
  }                                                                                           \
  pd_status pd_kernel_momentum__##SUF(const void *args, pd_tensor **out, int n_out) {         \
    (void)n_out;                                                                              \
    const pd_momentum__args *a = (const pd_momentum__args *)args;                             \
    SKIP_IF(a)                                                                                \
    const double lr = eff_lr(a->lr, a->learning_rate);                                        \
    opt_ctx c;                                                                                \
    pd_tensor *gt;                                                                            \
    PD_TRY(ctx_init(&c, a->param, a->grad, a->master_param, a->l1, a->l2, &gt));              \
    c.a0 = pd_tensor_data(a->velocity);                                                       \
    c.rescale = a->rescale_grad;                                                              \
    c.h[0] = lr;                                                                              \
    c.h[1] = a->mu;                                                                           \
    c.h[2] = a->use_nesterov ? 1.0 : 0.0; /* coefficient of g */                              \
    c.h[3] = a->use_nesterov ? a->mu : 1.0; /* coefficient of v */                            \
    run_chunks(a->param->numel, 1, momentum_chunk_##SUF, &c, NULL);                           \
    return finish(out, a->param, gt);                                                         \
  }
PD_FOR_FLOAT(DEF_MOMENTUM)

/* ---- adam / adamw (coeff > 0: decoupled decay p *= 1 - lr coeff first) ----
 * m1 = b1 m1 + (1-b1) g; m2 = b2 m2 + (1-b2) g^2;
 * p -= lr sqrt(1-b2^t)/(1-b1^t) * m1 / (sqrt(m2) + eps sqrt(1-b2^t)).
 * lazy_mode only matters for row-sparse gradients (adam_sparse_, selected_rows.c): a dense
 * gradient updates every element, as in Paddle's dense adam kernel. */
#define DEF_ADAM(SUF, T, CT)                                                                  \
  static void adam_chunk_##SUF(const opt_ctx *c, int64_t b, int64_t e, double *red) {         \
    (void)red;                                                                                \
    ACCS(CT)                                                                                  \
    const CT LRT = (CT)c->h[0], B1 = (CT)c->h[1], B2 = (CT)c->h[2], EPST = (CT)c->h[3];       \
    const CT DEC = (CT)c->h[4], OB1 = (CT)1 - B1, OB2 = (CT)1 - B2;                           \
    ELEM_LOOP(SUF, T, CT, CT m1 = B1 * A0_[i] + OB1 * g; CT m2 = B2 * A1_[i] + OB2 * g * g;   \
              A0_[i] = m1; A1_[i] = m2; p = p * DEC - LRT * (m1 / (SQRT(m2) + EPST)););       \
  }                                                                                           \
  pd_status pd_kernel_adam__##SUF(const void *args, pd_tensor **out, int n_out) {             \
    (void)n_out;                                                                              \
    const pd_adam__args *a = (const pd_adam__args *)args;                                     \
    SKIP_IF(a)                                                                                \
    const double lr = eff_lr(a->lr, a->learning_rate);                                        \
    opt_ctx c;                                                                                \
    pd_tensor *gt;                                                                            \
    PD_TRY(ctx_init(&c, a->param, a->grad, a->master_param, a->l1, a->l2, &gt));              \
    c.a0 = pd_tensor_data(a->moment1);                                                        \
    c.a1 = pd_tensor_data(a->moment2);                                                        \
    double b1p = ld_pow(a->beta1_pow), b2p = ld_pow(a->beta2_pow);                            \
    c.h[0] = lr * sqrt(1 - b2p) / (1 - b1p);                                                  \
    c.h[1] = a->beta1;                                                                        \
    c.h[2] = a->beta2;                                                                        \
    c.h[3] = a->epsilon * sqrt(1 - b2p);                                                      \
    c.h[4] = 1 - lr * a->coeff;                                                               \
    run_chunks(a->param->numel, 1, adam_chunk_##SUF, &c, NULL);                               \
    st_pow(a->beta1_pow, b1p * a->beta1);                                                     \
    st_pow(a->beta2_pow, b2p * a->beta2);                                                     \
    return finish(out, a->param, gt);                                                         \
  }
PD_FOR_FLOAT(DEF_ADAM)

/* ---- adamax: m = b1 m + (1-b1) g; u = max(b2 u + eps, |g|); p -= lr/(1-b1^t) m/u ---- */
#define DEF_ADAMAX(SUF, T, CT)                                                                \
  static void adamax_chunk_##SUF(const opt_ctx *c, int64_t b, int64_t e, double *red) {       \
    (void)red;                                                                                \
    ACCS(CT)                                                                                  \
    const CT LRT = (CT)c->h[0], B1 = (CT)c->h[1], B2 = (CT)c->h[2], EPS = (CT)c->h[3];        \
    const CT OB1 = (CT)1 - B1;                                                                \
    ELEM_LOOP(SUF, T, CT, CT m = B1 * A0_[i] + OB1 * g; CT u = B2 * A1_[i] + EPS;             \
              CT ag = FABS(g); u = SEL(u > ag, u, ag); A0_[i] = m; A1_[i] = u;                \
              p -= LRT * (m / u););                                                           \
  }                                                                                           \
  pd_status pd_kernel_adamax__##SUF(const void *args, pd_tensor **out, int n_out) {           \
    (void)n_out;                                                                              \
    const pd_adamax__args *a = (const pd_adamax__args *)args;                                 \
    SKIP_IF(a)                                                                                \
    const double lr = eff_lr(a->lr, a->learning_rate);                                        \
    opt_ctx c;                                                                                \
    pd_tensor *gt;                                                                            \
    PD_TRY(ctx_init(&c, a->param, a->grad, a->master_param, a->l1, a->l2, &gt));              \
    c.a0 = pd_tensor_data(a->moment);                                                         \
    c.a1 = pd_tensor_data(a->inf_norm);                                                       \
    double b1p = ld_pow(a->beta1_pow);                                                        \
    c.h[0] = lr / (1 - b1p);                                                                  \
    c.h[1] = a->beta1;                                                                        \
    c.h[2] = a->beta2;                                                                        \
    c.h[3] = a->epsilon;                                                                      \
    run_chunks(a->param->numel, 1, adamax_chunk_##SUF, &c, NULL);                             \
    st_pow(a->beta1_pow, b1p * a->beta1);                                                     \
    return finish(out, a->param, gt);                                                         \
  }
PD_FOR_FLOAT(DEF_ADAMAX)

/* ---- adagrad: m += g^2; p -= lr g / (sqrt(m) + eps) ---- */
#define DEF_ADAGRAD(SUF, T, CT)                                                               \
  static void adagrad_chunk_##SUF(const opt_ctx *c, int64_t b, int64_t e, double *red) {      \
    (void)red;                                                                                \
    ACCS(CT)                                                                                  \
    const CT LR = (CT)c->h[0], EPS = (CT)c->h[1];                                             \
    ELEM_LOOP(SUF, T, CT, CT m = A0_[i] + g * g; A0_[i] = m; p -= LR * g / (SQRT(m) + EPS);); \
  }                                                                                           \
  pd_status pd_kernel_adagrad__##SUF(const void *args, pd_tensor **out, int n_out) {          \
    (void)n_out;                                                                              \
    const pd_adagrad__args *a = (const pd_adagrad__args *)args;                               \
    SKIP_IF(a)                                                                                \
    const double lr = eff_lr(a->lr, a->learning_rate);                                        \
    opt_ctx c;                                                                                \
    pd_tensor *gt;                                                                            \
    PD_TRY(ctx_init(&c, a->param, a->grad, a->master_param, a->l1, a->l2, &gt));              \
    c.a0 = pd_tensor_data(a->moment);                                                         \
    c.h[0] = lr;                                                                              \
    c.h[1] = a->epsilon;                                                                      \
    run_chunks(a->param->numel, 1, adagrad_chunk_##SUF, &c, NULL);                            \
    return finish(out, a->param, gt);                                                         \
  }
PD_FOR_FLOAT(DEF_ADAGRAD)

/* ---- adadelta: Eg = rho Eg + (1-rho) g^2; d = -sqrt((Ex + eps)/(Eg + eps)) g;
 * Ex = rho Ex + (1-rho) d^2; p += lr d (Paddle >= 2.5; Paddle 2.3's update has no learning rate:
 * its Python passes lr = 1 at that API level) ---- */
#define DEF_ADADELTA(SUF, T, CT)                                                              \
  static void adadelta_chunk_##SUF(const opt_ctx *c, int64_t b, int64_t e, double *red) {     \
    (void)red;                                                                                \
    ACCS(CT)                                                                                  \
    const CT RHO = (CT)c->h[0], EPS = (CT)c->h[1], ORHO = (CT)1 - RHO, LR = (CT)c->h[2];     \
    ELEM_LOOP(SUF, T, CT, CT eg = RHO * A0_[i] + ORHO * g * g;                                \
              CT d = -SQRT((A1_[i] + EPS) / (eg + EPS)) * g;                                  \
              A1_[i] = RHO * A1_[i] + ORHO * d * d; A0_[i] = eg; p += LR * d;);               \
  }                                                                                           \
  pd_status pd_kernel_adadelta__##SUF(const void *args, pd_tensor **out, int n_out) {         \
    (void)n_out;                                                                              \
    const pd_adadelta__args *a = (const pd_adadelta__args *)args;                             \
    SKIP_IF(a)                                                                                \
    opt_ctx c;                                                                                \
    pd_tensor *gt;                                                                            \
    PD_TRY(ctx_init(&c, a->param, a->grad, a->master_param, a->l1, a->l2, &gt));              \
    c.a0 = pd_tensor_data(a->avg_squared_grad);                                               \
    c.a1 = pd_tensor_data(a->avg_squared_update);                                             \
    c.h[0] = a->rho;                                                                          \
    c.h[1] = a->epsilon;                                                                      \
    c.h[2] = eff_lr(a->lr, a->learning_rate);                                                 \
    run_chunks(a->param->numel, 1, adadelta_chunk_##SUF, &c, NULL);                           \
    return finish(out, a->param, gt);                                                         \
  }
PD_FOR_FLOAT(DEF_ADADELTA)

/* ---- rmsprop: ms = rho ms + (1-rho) g^2; centered: mg = rho mg + (1-rho) g;
 * mom = momentum mom + lr g / sqrt(ms - mg^2 + eps); p -= mom ---- */
#define DEF_RMSPROP(SUF, T, CT)                                                               \
  static void rmsprop_chunk_##SUF(const opt_ctx *c, int64_t b, int64_t e, double *red) {      \
    (void)red;                                                                                \
    ACCS(CT)                                                                                  \
    const CT LR = (CT)c->h[0], RHO = (CT)c->h[1], EPS = (CT)c->h[2], MOM = (CT)c->h[3];       \
    const CT CEN = (CT)c->h[4], ORHO = (CT)1 - RHO;                                           \
    ELEM_LOOP(SUF, T, CT, CT ms = RHO * A0_[i] + ORHO * g * g;                                \
              CT mg = CEN * (RHO * A1_[i] + ORHO * g);                                        \
              CT mo = MOM * A2_[i] + LR * g / SQRT(ms - mg * mg + EPS);                       \
              A0_[i] = ms; A1_[i] = mg; A2_[i] = mo; p -= mo;);                               \
  }                                                                                           \
  pd_status pd_kernel_rmsprop__##SUF(const void *args, pd_tensor **out, int n_out) {          \
    (void)n_out;                                                                              \
    const pd_rmsprop__args *a = (const pd_rmsprop__args *)args;                               \
    SKIP_IF(a)                                                                                \
    const double lr = eff_lr(a->lr, a->learning_rate);                                        \
    opt_ctx c;                                                                                \
    pd_tensor *gt;                                                                            \
    PD_TRY(ctx_init(&c, a->param, a->grad, a->master_param, a->l1, a->l2, &gt));              \
    c.a0 = pd_tensor_data(a->mean_square);                                                    \
    c.a1 = pd_tensor_data(a->mean_grad);                                                      \
    c.a2 = pd_tensor_data(a->moment);                                                         \
    c.h[0] = lr;                                                                              \
    c.h[1] = a->rho;                                                                          \
    c.h[2] = a->epsilon;                                                                      \
    c.h[3] = a->momentum;                                                                     \
    c.h[4] = a->centered ? 1.0 : 0.0;                                                         \
    run_chunks(a->param->numel, 1, rmsprop_chunk_##SUF, &c, NULL);                            \
    return finish(out, a->param, gt);                                                         \
  }
PD_FOR_FLOAT(DEF_RMSPROP)

/* ---- lamb: m1, m2 as adam; r = (m1/(1-b1^t)) / (sqrt(m2/(1-b2^t)) + eps) + wd p;
 * p -= lr * (|p| / |r|) * r (trust ratio 1 when either norm is 0). Pass 1 updates the moments
 * and sums |p|^2 and |r|^2; pass 2 recomputes r and moves p. ---- */
#define DEF_LAMB(SUF, T, CT)                                                                  \
  static void lamb_pass1_##SUF(const opt_ctx *c, int64_t b, int64_t e, double *red) {         \
    ACCS(CT)                                                                                  \
    const CT B1 = (CT)c->h[0], B2 = (CT)c->h[1], EPS = (CT)c->h[2], WD = (CT)c->h[3];         \
    const CT B1C = (CT)c->h[4], B2C = (CT)c->h[5], OB1 = (CT)1 - B1, OB2 = (CT)1 - B2;        \
    CT sp = 0, sr = 0;                                                                        \
    ELEM_LOOP(SUF, T, CT, CT m1 = B1 * A0_[i] + OB1 * g; CT m2 = B2 * A1_[i] + OB2 * g * g;   \
              A0_[i] = m1; A1_[i] = m2; CT r = (m1 / B1C) / (SQRT(m2 / B2C) + EPS) + WD * p;  \
              sp += p * p; sr += r * r;);                                                     \
    red[0] = (double)sp;                                                                      \
    red[1] = (double)sr;                                                                      \
  }                                                                                           \
  static void lamb_pass2_##SUF(const opt_ctx *c, int64_t b, int64_t e, double *red) {         \
    (void)red;                                                                                \
    ACCS(CT)                                                                                  \
    const CT EPS = (CT)c->h[2], WD = (CT)c->h[3], B1C = (CT)c->h[4], B2C = (CT)c->h[5];       \
    const CT STEP = (CT)c->h[6];                                                              \
    ELEM_LOOP(SUF, T, CT, (void)g;                                                            \
              CT r = (A0_[i] / B1C) / (SQRT(A1_[i] / B2C) + EPS) + WD * p; p -= STEP * r;);   \
  }                                                                                           \
  pd_status pd_kernel_lamb__##SUF(const void *args, pd_tensor **out, int n_out) {             \
    (void)n_out;                                                                              \
    const pd_lamb__args *a = (const pd_lamb__args *)args;                                     \
    SKIP_IF(a)                                                                                \
    const double lr = eff_lr(a->lr, a->learning_rate);                                        \
    opt_ctx c;                                                                                \
    pd_tensor *gt;                                                                            \
    PD_TRY(ctx_init(&c, a->param, a->grad, a->master_param, a->l1, a->l2, &gt));              \
    c.a0 = pd_tensor_data(a->moment1);                                                        \
    c.a1 = pd_tensor_data(a->moment2);                                                        \
    double b1p = ld_pow(a->beta1_pow), b2p = ld_pow(a->beta2_pow), red[2];                    \
    c.h[0] = a->beta1;                                                                        \
    c.h[1] = a->beta2;                                                                        \
    c.h[2] = a->epsilon;                                                                      \
    c.h[3] = a->weight_decay;                                                                 \
    c.h[4] = 1 - b1p;                                                                         \
    c.h[5] = 1 - b2p;                                                                         \
    run_chunks(a->param->numel, 1, lamb_pass1_##SUF, &c, red);                                \
    double pn = sqrt(red[0]), rn = sqrt(red[1]);                                              \
    c.h[6] = lr * (pn > 0 && rn > 0 ? pn / rn : 1.0);                                         \
    run_chunks(a->param->numel, 1, lamb_pass2_##SUF, &c, NULL);                               \
    st_pow(a->beta1_pow, b1p * a->beta1);                                                     \
    st_pow(a->beta2_pow, b2p * a->beta2);                                                     \
    return finish(out, a->param, gt);                                                         \
  }
PD_FOR_FLOAT(DEF_LAMB)
