/* GPU kernels of the 'misc' family: the glue between the op table's args structs and the
 * launchers of libpaddle_c_cuda.so (csrc/cuda/pd_cuda_misc.h). The CPU kernels are the reference
 * semantics (csrc/kernels/cpu/common.c, optim.c, index.c, manip.c, sort.c, random.c).
 *
 * Random numbers: Paddle-C's generator is real Paddle's CPU one, a sequential mt19937_64 on the
 * host (csrc/core/pd_random.h), and the CPU kernels draw from it element by element (the polar
 * normal even rejects a variable number of draws). So that a GPU run draws bit for bit what the
 * CPU run draws for the same generator state (same seeded masks, same initialisation, same
 * losses), the draws stay on the host: dropout makes its uint8 keep mask with the CPU's own
 * pd_dropout_mask, uploads it, and applies it on the GPU; uniform / gaussian / randint / randperm
 * / truncated_gaussian / bernoulli / multinomial / uniform_ / exponential_ run their CPU kernel
 * on host copies of their inputs (host_run) and upload the result. Each advances the engine
 * exactly as the CPU kernel does because it IS the CPU code. */
#include <stdlib.h>
#include <string.h>
#include "../../core/pd_device.h"
#include "../../core/pd_random.h"
#include "../../ops/pd_op.h"
#include "../../ops/generated/pd_ops_gen.h"
#include "../../ops/infer_meta_common.h"
#include "../../cuda/pd_cuda_misc.h"

#define MISC (pd_cuda->misc)

static pd_status no_launcher(const char *op) {
  return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] the CUDA library has no kernel for this op", op);
}
#define NEED(fn, op)                                   \
  do {                                                 \
    if (!pd_cuda || !MISC || !MISC->fn) return no_launcher(op); \
  } while (0)

static int dev_of(pd_tensor *const *out, int n_out) {
  for (int i = 0; i < n_out; i++)
    if (out[i] && pd_tensor_on_gpu(out[i])) return pd_tensor_device(out[i]);
  return pd_device_current();
}

/* copies host tensor h (contiguous) into device tensor d (any strides, same dtype and numel) */
static pd_status upload_into(pd_tensor *d, pd_tensor *h, const char *op) {
  if (d->numel == 0) return PD_OK;
  int dev = pd_tensor_device(d);
  if (pd_tensor_is_contiguous(d))
    return pd_device_memcpy(pd_tensor_data(d), dev, pd_tensor_data(h), PD_CPU,
                            (size_t)d->numel * pd_dtype_size(d->dtype));
  NEED(copy, op);
  pd_tensor *t;
  PD_TRY(pd_tensor_to_device(h, dev, 1, &t));
  pd_cuda_tensor dv = pd_cu_view(d), sv = pd_cu_view(t);
  sv.ndim = dv.ndim; /* same numel, h contiguous: read it with d's shape */
  int64_t st = 1;
  for (int k = dv.ndim - 1; k >= 0; k--) {
    sv.shape[k] = dv.shape[k];
    sv.strides[k] = st;
    st *= dv.shape[k];
  }
  pd_status s = pd_cu_status(MISC->copy(&dv, &sv), op);
  pd_tensor_release(t);
  return s;
}

/* ---------------------------------------------------------------- random: host_run */
#define HOST_MAX_TENSORS 8
static pd_status host_run(const char *name, const void *args, pd_tensor **out, int n_out) {
  int op = pd_op_lookup(name);
  if (op < 0) return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] unknown op", name);
  const pd_op_def *d = &pd_op_defs[op];
  if (n_out < 0 || n_out > 4) return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] too many outputs", name);
  const int dev = dev_of(out, n_out);
  char *ha = (char *)malloc(d->args_size ? d->args_size : 1);
  if (!ha) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[%s] out of memory", name);
  memcpy(ha, args, d->args_size);
  pd_tensor *orig[HOST_MAX_TENSORS], *host[HOST_MAX_TENSORS];
  int nt = 0;
  pd_status s = PD_OK;
  pd_dtype kdt = PD_NUM_DTYPES;
  for (int k = 0; k < d->n_args && s == PD_OK; k++) {
    const pd_arg_def *ad = &d->args[k];
    if (ad->kind == PD_ARG_TENSOR_LIST) {
      s = pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] tensor lists are not supported on GPU", name);
    } else if (ad->kind == PD_ARG_TENSOR || ad->kind == PD_ARG_TENSOR_OPT) {
      pd_tensor **slot = (pd_tensor **)(ha + ad->offset);
      if (k == d->dtype_arg && *slot) kdt = (*slot)->dtype;
      if (!*slot || !pd_tensor_on_gpu(*slot)) continue;
      if (nt == HOST_MAX_TENSORS) {
        s = pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] too many tensor arguments", name);
        break;
      }
      orig[nt] = *slot;
      s = pd_tensor_to_device(*slot, PD_CPU, 0, &host[nt]);
      if (s != PD_OK) break;
      *slot = host[nt++];
    } else if (ad->kind == PD_ARG_DTYPE && k == d->dtype_arg) {
      int v;
      memcpy(&v, ha + ad->offset, sizeof v);
      if (v >= 0) kdt = (pd_dtype)v;
    }
  }
  if (kdt == PD_NUM_DTYPES && n_out > 0 && out[0]) kdt = out[0]->dtype;
  pd_kernel_fn fn = (s == PD_OK && kdt < PD_NUM_DTYPES) ? d->kernels[kdt] : NULL;
  if (s == PD_OK && !fn) s = pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] no CPU kernel for this dtype", name);
  pd_tensor *ho[4] = {NULL, NULL, NULL, NULL};
  for (int i = 0; i < n_out && s == PD_OK; i++) {
    if (!out[i]) continue;
    for (int j = 0; j < nt; j++)
      if (orig[j] == out[i]) { /* in place: the host copy of the input */
        ho[i] = host[j];
        pd_tensor_retain(ho[i]);
      }
    if (!ho[i]) s = pd_tensor_empty_on(PD_CPU, out[i]->dtype, out[i]->ndim, out[i]->shape, &ho[i]);
  }
  if (s == PD_OK) {
    int prev = pd_device_swap_current(PD_CPU);
    s = fn(ha, ho, n_out);
    pd_device_swap_current(prev);
  }
  for (int i = 0; i < n_out && s == PD_OK; i++) {
    if (!ho[i]) continue;
    if (out[i]) s = upload_into(out[i], ho[i], name);
    else s = pd_tensor_to_device(ho[i], dev, 1, &out[i]);
  }
  for (int i = 0; i < 4; i++) pd_tensor_release(ho[i]);
  for (int j = 0; j < nt; j++) pd_tensor_release(host[j]);
  free(ha);
  return s;
}

#define HOST_KERNEL(OP)                                                          \
  static pd_status gpu_##OP(const void *args, pd_tensor **out, int n_out) {       \
    return host_run(#OP, args, out, n_out);                                       \
  }
HOST_KERNEL(uniform)
HOST_KERNEL(gaussian)
HOST_KERNEL(truncated_gaussian)
HOST_KERNEL(randint)
HOST_KERNEL(randperm)
HOST_KERNEL(bernoulli)
HOST_KERNEL(multinomial)
HOST_KERNEL(uniform_)
HOST_KERNEL(exponential_)

/* ---------------------------------------------------------------- dropout */
/* PADDLE_C_GPU_DROPOUT=philox: draw dropout masks on the GPU (Philox-4x32-10, keyed from the
 * engine) instead of taking the CPU's mt19937_64 draws on the host. Much faster for large
 * activations; seeded runs are still reproducible, but GPU masks then differ from the CPU's. */
static int philox_dropout(void) {
  static int v = -1;
  if (v < 0) {
    const char *e = getenv("PADDLE_C_GPU_DROPOUT");
    v = e && strcmp(e, "philox") == 0;
  }
  return v;
}

static pd_status gpu_dropout(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_dropout_args *a = (const pd_dropout_args *)args;
  int up;
  PD_TRY(pd_dropout_mode("dropout", a->mode, &up));
  NEED(dropout_apply, "dropout");
  int64_t n = a->x->numel;
  if (n == 0) return PD_OK; /* the CPU kernel draws nothing either */
  const float keepf = 1.0f - (float)a->p; /* CPU: (T)(1.0f - (float)p) */
  if (philox_dropout() && MISC->dropout_philox) {
    /* opt-in: the mask drawn on the device from a Philox key (one draw of the engine, or the
     * seed attribute): reproducible by paddle.seed, fast, but not the CPU's mask */
    uint64_t key, first;
    pd_random_reserve_seeded(a->seed, &key, &first);
    pd_cuda_tensor xv = pd_cu_view(a->x), mv = pd_cu_view(out[1]), ov = pd_cu_view(out[0]);
    return pd_cu_status(MISC->dropout_philox(&xv, &mv, &ov, key, first, (float)a->p, (double)keepf, up),
                        "dropout");
  }
  uint8_t *m = (uint8_t *)malloc((size_t)n);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[dropout] out of memory");
  pd_dropout_mask(m, n, a->p, a->seed); /* the CPU's draws, from the same engine */
  pd_status s = pd_device_memcpy(pd_tensor_data(out[1]), pd_tensor_device(out[1]), m, PD_CPU, (size_t)n);
  free(m);
  PD_TRY(s);
  pd_cuda_tensor xv = pd_cu_view(a->x), mv = pd_cu_view(out[1]), ov = pd_cu_view(out[0]);
  return pd_cu_status(MISC->dropout_apply(&xv, &mv, &ov, (double)keepf, up), "dropout");
}

static pd_status gpu_dropout_grad(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_dropout_grad_args *a = (const pd_dropout_grad_args *)args;
  int up;
  PD_TRY(pd_dropout_mode("dropout_grad", a->mode, &up));
  NEED(dropout_grad, "dropout_grad");
  pd_dtype mt = a->mask->dtype;
  if (mt != PD_UINT8 && mt != PD_BOOL && mt != PD_INT8) return pd_cu_unsupported("dropout_grad (mask)", mt);
  const float pf = (float)a->p, keepf = 1.0f - pf;
  double sc; /* CPU: up ? (pf < 1 ? (T)1 / (T)keepf : 0) : 1, rounded in T */
  if (!up) sc = 1.0;
  else if (!(pf < 1.0f)) sc = 0.0;
  else if (out[0]->dtype == PD_FLOAT64) sc = 1.0 / (double)keepf;
  else sc = (double)(1.0f / keepf);
  pd_cuda_tensor mv = pd_cu_view(a->mask), gv = pd_cu_view(a->dout), ov = pd_cu_view(out[0]);
  return pd_cu_status(MISC->dropout_grad(&mv, &gv, &ov, sc), "dropout_grad");
}

/* ---------------------------------------------------------------- optimizers */
static void opt_tensor(const pd_tensor *t, const void **p, int *dt) {
  *p = t ? pd_tensor_data(t) : NULL;
  *dt = t ? (int)t->dtype : 0;
}

static pd_status opt_run(const char *op, pd_cuda_opt *o, pd_tensor *param, pd_tensor *grad, pd_tensor *master,
                         pd_tensor *lr_t, pd_tensor *skip, pd_tensor *a0, pd_tensor *a1, pd_tensor *a2) {
  NEED(opt_update, op);
  NEED(opt_finish, op);
  opt_tensor(lr_t, &o->lr_tensor, &o->lr_dtype);
  opt_tensor(skip, &o->skip, &o->skip_dtype);
  pd_cuda_tensor pv = pd_cu_view(param), gv = pd_cu_view(grad), mv, v0, v1, v2;
  if (master) mv = pd_cu_view(master);
  if (a0) v0 = pd_cu_view(a0);
  if (a1) v1 = pd_cu_view(a1);
  if (a2) v2 = pd_cu_view(a2);
  int rc = MISC->opt_update(o, &pv, &gv, master ? &mv : NULL, a0 ? &v0 : NULL, a1 ? &v1 : NULL,
                            a2 ? &v2 : NULL);
  if (rc == 0) rc = MISC->opt_finish(o);
  return pd_cu_status(rc, op);
}

static pd_cuda_opt opt_base(int kind, double lr, double l1, double l2) {
  pd_cuda_opt o;
  memset(&o, 0, sizeof o);
  o.kind = kind;
  o.lr = lr;
  o.l1 = l1;
  o.l2 = l2;
  o.rescale = 1.0;
  return o;
}

static pd_status gpu_sgd_(const void *args, pd_tensor **out, int n_out) {
  (void)out, (void)n_out;
  const pd_sgd__args *a = (const pd_sgd__args *)args;
  pd_cuda_opt o = opt_base(PD_CU_OPT_SGD, a->lr, a->l1, a->l2);
  return opt_run("sgd_", &o, a->param, a->grad, a->master_param, a->learning_rate, a->skip_update, NULL, NULL, NULL);
}

static pd_status gpu_momentum_(const void *args, pd_tensor **out, int n_out) {
  (void)out, (void)n_out;
  const pd_momentum__args *a = (const pd_momentum__args *)args;
  pd_cuda_opt o = opt_base(PD_CU_OPT_MOMENTUM, a->lr, a->l1, a->l2);
  o.rescale = a->rescale_grad;
  o.mu = a->mu;
  o.use_nesterov = a->use_nesterov;
  return opt_run("momentum_", &o, a->param, a->grad, a->master_param, a->learning_rate, a->skip_update,
                 a->velocity, NULL, NULL);
}

static pd_status gpu_adam_(const void *args, pd_tensor **out, int n_out) {
  (void)out, (void)n_out;
  const pd_adam__args *a = (const pd_adam__args *)args;
  pd_cuda_opt o = opt_base(PD_CU_OPT_ADAM, a->lr, a->l1, a->l2);
  o.beta1 = a->beta1;
  o.beta2 = a->beta2;
  o.epsilon = a->epsilon;
  o.coeff = a->coeff; /* lazy_mode: no effect on a dense gradient (the CPU kernel's rule) */
  opt_tensor(a->beta1_pow, &o.beta1_pow, &o.beta1_pow_dtype);
  opt_tensor(a->beta2_pow, &o.beta2_pow, &o.beta2_pow_dtype);
  return opt_run("adam_", &o, a->param, a->grad, a->master_param, a->learning_rate, a->skip_update,
                 a->moment1, a->moment2, NULL);
}

static pd_status gpu_adamax_(const void *args, pd_tensor **out, int n_out) {
  (void)out, (void)n_out;
  const pd_adamax__args *a = (const pd_adamax__args *)args;
  pd_cuda_opt o = opt_base(PD_CU_OPT_ADAMAX, a->lr, a->l1, a->l2);
  o.beta1 = a->beta1;
  o.beta2 = a->beta2;
  o.epsilon = a->epsilon;
  opt_tensor(a->beta1_pow, &o.beta1_pow, &o.beta1_pow_dtype);
  return opt_run("adamax_", &o, a->param, a->grad, a->master_param, a->learning_rate, a->skip_update,
                 a->moment, a->inf_norm, NULL);
}

static pd_status gpu_adagrad_(const void *args, pd_tensor **out, int n_out) {
  (void)out, (void)n_out;
  const pd_adagrad__args *a = (const pd_adagrad__args *)args;
  pd_cuda_opt o = opt_base(PD_CU_OPT_ADAGRAD, a->lr, a->l1, a->l2);
  o.epsilon = a->epsilon;
  return opt_run("adagrad_", &o, a->param, a->grad, a->master_param, a->learning_rate, a->skip_update,
                 a->moment, NULL, NULL);
}

static pd_status gpu_adadelta_(const void *args, pd_tensor **out, int n_out) {
  (void)out, (void)n_out;
  const pd_adadelta__args *a = (const pd_adadelta__args *)args;
  pd_cuda_opt o = opt_base(PD_CU_OPT_ADADELTA, a->lr, a->l1, a->l2);
  o.rho = a->rho;
  o.epsilon = a->epsilon;
  return opt_run("adadelta_", &o, a->param, a->grad, a->master_param, a->learning_rate, a->skip_update,
                 a->avg_squared_grad, a->avg_squared_update, NULL);
}

static pd_status gpu_rmsprop_(const void *args, pd_tensor **out, int n_out) {
  (void)out, (void)n_out;
  const pd_rmsprop__args *a = (const pd_rmsprop__args *)args;
  pd_cuda_opt o = opt_base(PD_CU_OPT_RMSPROP, a->lr, a->l1, a->l2);
  o.rho = a->rho;
  o.epsilon = a->epsilon;
  o.momentum = a->momentum;
  o.centered = a->centered;
  return opt_run("rmsprop_", &o, a->param, a->grad, a->master_param, a->learning_rate, a->skip_update,
                 a->mean_square, a->mean_grad, a->moment);
}

/* ---------------------------------------------------------------- index errors */
/* A device buffer of {int flag, pad, int64 value}, zeroed; read back after the launch (the
 * copy to the host waits for the stream). */
typedef struct {
  pd_tensor *t;
  int *flag;
  int64_t *val;
} err_buf;

static pd_status err_begin(int dev, err_buf *e) {
  int64_t two = 2;
  e->t = NULL;
  PD_TRY(pd_tensor_empty_on(dev, PD_INT64, 1, &two, &e->t));
  e->flag = (int *)pd_tensor_data(e->t);
  e->val = (int64_t *)pd_tensor_data(e->t) + 1;
  if (pd_cuda->rt->memset(e->flag, 0, 16) != 0) {
    pd_tensor_release(e->t);
    e->t = NULL;
    return pd_cu_status(-1, "index check");
  }
  return PD_OK;
}
/* *bad = 1 and *v = the offending index when the kernel flagged one */
static pd_status err_end(err_buf *e, int dev, int *bad, int64_t *v) {
  int64_t h[2] = {0, 0};
  pd_status s = pd_device_memcpy(h, PD_CPU, pd_tensor_data(e->t), dev, sizeof h);
  pd_tensor_release(e->t);
  e->t = NULL;
  int32_t f;
  memcpy(&f, &h[0], sizeof f);
  *bad = f != 0;
  *v = h[1];
  return s;
}

/* ---------------------------------------------------------------- embedding */
static pd_status gpu_embedding(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_embedding_args *a = (const pd_embedding_args *)args;
  NEED(embedding, "embedding");
  if (a->x->dtype != PD_INT32 && a->x->dtype != PD_INT64) return pd_cu_unsupported("embedding (ids)", a->x->dtype);
  if (out[0]->numel == 0) return PD_OK;
  int dev = pd_tensor_device(out[0]), bad;
  int64_t v;
  err_buf e;
  PD_TRY(err_begin(dev, &e));
  pd_cuda_tensor iv = pd_cu_view(a->x), wv = pd_cu_view(a->weight), ov = pd_cu_view(out[0]);
  int rc = MISC->embedding(&iv, &wv, &ov, a->padding_idx, e.flag, e.val);
  if (rc != 0) {
    pd_tensor_release(e.t);
    return pd_cu_status(rc, "embedding");
  }
  PD_TRY(err_end(&e, dev, &bad, &v));
  if (bad)
    return pd_set_error(PD_ERR_OUT_OF_RANGE, "[embedding] id %lld is out of range [0, %lld)", (long long)v,
                        (long long)a->weight->shape[0]);
  return PD_OK;
}

static pd_status gpu_embedding_grad(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_embedding_grad_args *a = (const pd_embedding_grad_args *)args;
  NEED(embedding_grad, "embedding_grad");
  NEED(copy, "embedding_grad");
  if (a->x->dtype != PD_INT32 && a->x->dtype != PD_INT64)
    return pd_cu_unsupported("embedding_grad (ids)", a->x->dtype);
  int dev = pd_tensor_device(out[0]), bad;
  int64_t v, rows = out[0]->ndim == 2 ? out[0]->shape[0] : 0;
  pd_tensor *g = a->dout, *gc = NULL, *cnt = NULL;
  pd_status s = PD_OK;
  if (!pd_tensor_is_contiguous(g) && g->ndim != 2) { /* the launcher takes contiguous or 2-D */
    s = pd_tensor_empty_on(dev, g->dtype, g->ndim, g->shape, &gc);
    if (s == PD_OK) {
      pd_cuda_tensor dv = pd_cu_view(gc), sv = pd_cu_view(g);
      s = pd_cu_status(MISC->copy(&dv, &sv), "embedding_grad");
    }
    g = gc;
  }
  int64_t nr = 3 * rows + a->x->numel + 1; /* the launcher's scratch: counts, starts, cursors, positions */
  if (s == PD_OK) s = pd_tensor_empty_on(dev, PD_INT32, 1, &nr, &cnt);
  err_buf e = {NULL, NULL, NULL};
  if (s == PD_OK) s = err_begin(dev, &e);
  if (s == PD_OK) {
    pd_cuda_tensor iv = pd_cu_view(a->x), gv = pd_cu_view(g), ov = pd_cu_view(out[0]);
    s = pd_cu_status(MISC->embedding_grad(&iv, &gv, &ov, a->padding_idx, (int *)pd_tensor_data(cnt), e.flag,
                                          e.val), "embedding_grad");
  }
  if (s == PD_OK) {
    s = err_end(&e, dev, &bad, &v);
    if (s == PD_OK && bad)
      s = pd_set_error(PD_ERR_OUT_OF_RANGE, "[embedding_grad] id %lld is out of range [0, %lld)", (long long)v,
                       (long long)rows);
  }
  pd_tensor_release(e.t);
  pd_tensor_release(cnt);
  pd_tensor_release(gc);
  return s;
}

/* ---------------------------------------------------------------- gather / index_select */
static pd_status take(const char *op, pd_tensor *x, pd_tensor *index, int64_t axis, pd_tensor *o) {
  NEED(gather, op);
  int ax;
  PD_TRY(pd_norm_axis(op, axis, x->ndim, &ax));
  if (index->dtype != PD_INT32 && index->dtype != PD_INT64)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected index of dtype int32 or int64, received %s", op,
                        pd_dtype_name(index->dtype));
  if (o->numel == 0) return PD_OK;
  int dev = pd_tensor_device(o), bad;
  int64_t v;
  err_buf e;
  PD_TRY(err_begin(dev, &e));
  pd_cuda_tensor xv = pd_cu_view(x), iv = pd_cu_view(index), ov = pd_cu_view(o);
  int rc = MISC->gather(&xv, &iv, ax, &ov, e.flag, e.val);
  if (rc != 0) {
    pd_tensor_release(e.t);
    return pd_cu_status(rc, op);
  }
  PD_TRY(err_end(&e, dev, &bad, &v));
  if (bad)
    return pd_set_error(PD_ERR_OUT_OF_RANGE, "[%s] index %lld is out of bounds for axis %d with size %lld", op,
                        (long long)v, ax, (long long)x->shape[ax]);
  return PD_OK;
}

static pd_status gpu_gather(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_gather_args *a = (const pd_gather_args *)args;
  return take("gather", a->x, a->index, a->axis, out[0]);
}
static pd_status gpu_index_select(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_index_select_args *a = (const pd_index_select_args *)args;
  return take("index_select", a->x, a->index, a->axis, out[0]);
}

/* ---------------------------------------------------------------- concat / stack / split */
/* dst = src as the CPU's pd_tensor_copy_ does it for one dtype: same shape, or (same numel) src
 * read in row-major order with dst's shape when src is contiguous */
static pd_status copy_view(const char *op, pd_cuda_tensor *dv, pd_tensor *src) {
  if ((int)src->dtype != dv->dtype) return pd_cu_unsupported(op, src->dtype);
  if (dv->numel == 0) return PD_OK;
  pd_cuda_tensor sv = pd_cu_view(src);
  int same = sv.ndim == dv->ndim;
  for (int k = 0; same && k < sv.ndim; k++) same = sv.shape[k] == dv->shape[k];
  if (!same) {
    if (sv.numel != dv->numel || !pd_tensor_is_contiguous(src))
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected inputs of matching shapes", op);
    sv.ndim = dv->ndim;
    int64_t st = 1;
    for (int k = dv->ndim - 1; k >= 0; k--) {
      sv.shape[k] = dv->shape[k];
      sv.strides[k] = st;
      st *= dv->shape[k];
    }
  }
  return pd_cu_status(MISC->copy(dv, &sv), op);
}

static pd_status gpu_concat(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_concat_args *a = (const pd_concat_args *)args;
  NEED(copy, "concat");
  pd_tensor *o = out[0];
  int ax;
  PD_TRY(pd_norm_axis("concat", a->axis, o->ndim, &ax));
  const size_t es = pd_dtype_size(o->dtype);
  int64_t pos = 0;
  for (int64_t i = 0; i < a->x.n; i++) {
    pd_tensor *x = a->x.data[i];
    if (x->ndim != o->ndim) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[concat] expected inputs of out's ndim");
    pd_cuda_tensor dv = pd_cu_view(o);
    dv.data = (char *)dv.data + (size_t)(pos * o->strides[ax]) * es;
    dv.numel = x->numel;
    for (int k = 0; k < o->ndim; k++) dv.shape[k] = x->shape[k];
    PD_TRY(copy_view("concat", &dv, x));
    pos += x->shape[ax];
  }
  return PD_OK;
}

static pd_status gpu_stack(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_stack_args *a = (const pd_stack_args *)args;
  NEED(copy, "stack");
  pd_tensor *o = out[0];
  int ax;
  PD_TRY(pd_norm_axis("stack", a->axis, o->ndim, &ax));
  if (o->numel == 0) return PD_OK;
  const size_t es = pd_dtype_size(o->dtype);
  for (int64_t i = 0; i < a->x.n; i++) {
    pd_cuda_tensor dv = pd_cu_view(o);
    dv.data = (char *)dv.data + (size_t)(i * o->strides[ax]) * es;
    dv.ndim = 0;
    dv.numel = 1;
    for (int k = 0; k < o->ndim; k++)
      if (k != ax) {
        dv.shape[dv.ndim] = o->shape[k];
        dv.strides[dv.ndim++] = o->strides[k];
        dv.numel *= o->shape[k];
      }
    PD_TRY(copy_view("stack", &dv, a->x.data[i]));
  }
  return PD_OK;
}

static pd_status gpu_split(const void *args, pd_tensor **out, int n_out) {
  const pd_split_args *a = (const pd_split_args *)args;
  NEED(copy, "split");
  pd_tensor *x = a->x;
  int ax;
  PD_TRY(pd_norm_axis("split", a->axis, x->ndim, &ax));
  const size_t es = pd_dtype_size(x->dtype);
  int64_t pos = 0;
  for (int i = 0; i < n_out; i++) {
    if (!out[i]) return pd_set_error(PD_ERR_UNIMPLEMENTED, "[split] outputs of unknown shape on GPU");
    if (out[i]->dtype != x->dtype || out[i]->ndim != x->ndim)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[split] expected outputs of x's dtype and ndim");
    if (out[i]->numel > 0) {
      pd_cuda_tensor sv = pd_cu_view(x), dv = pd_cu_view(out[i]);
      sv.data = (char *)sv.data + (size_t)(pos * x->strides[ax]) * es;
      sv.numel = out[i]->numel;
      for (int k = 0; k < x->ndim; k++) sv.shape[k] = out[i]->shape[k];
      PD_TRY(pd_cu_status(MISC->copy(&dv, &sv), "split"));
    }
    pos += out[i]->shape[ax];
  }
  return PD_OK;
}

/* ---------------------------------------------------------------- topk */
static pd_status gpu_topk(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_topk_args *a = (const pd_topk_args *)args;
  NEED(topk, "topk");
  if (a->x->ndim == 0) return pd_cu_unsupported("topk (0-D x)", a->x->dtype);
  int ax;
  PD_TRY(pd_norm_axis("topk", a->axis, a->x->ndim, &ax));
  if (out[1]->dtype != PD_INT64) return pd_cu_unsupported("topk (indices)", out[1]->dtype);
  if (out[0]->numel == 0) return PD_OK;
  pd_cuda_tensor xv = pd_cu_view(a->x), vv = pd_cu_view(out[0]), iv = pd_cu_view(out[1]);
  return pd_cu_status(MISC->topk(&xv, ax, a->k, a->largest, &vv, &iv), "topk");
}

/* ---------------------------------------------------------------- registration */
#define DT_ALL (PD_DT_BIT(PD_BOOL) | PD_DT_REALS | PD_DT_BIT(PD_COMPLEX64) | PD_DT_BIT(PD_COMPLEX128))
#define DT_F3264 (PD_DT_BIT(PD_FLOAT32) | PD_DT_BIT(PD_FLOAT64))

void pd_gpu_register_misc(void) {
  if (!pd_cuda || !MISC) return;
  /* random: the CPU kernels' own draws (host_run), their CPU dtypes */
  pd_gpu_register_mask("uniform", PD_DT_FLOATS, gpu_uniform);
  pd_gpu_register_mask("gaussian", PD_DT_FLOATS, gpu_gaussian);
  pd_gpu_register_mask("truncated_gaussian", DT_F3264, gpu_truncated_gaussian);
  pd_gpu_register_mask("randint", PD_DT_BIT(PD_INT32) | PD_DT_BIT(PD_INT64), gpu_randint);
  pd_gpu_register_mask("randperm", PD_DT_BIT(PD_INT32) | PD_DT_BIT(PD_INT64) | DT_F3264, gpu_randperm);
  pd_gpu_register_mask("bernoulli", PD_DT_FLOATS, gpu_bernoulli);
  pd_gpu_register_mask("multinomial", PD_DT_FLOATS, gpu_multinomial);
  pd_gpu_register_mask("uniform_", PD_DT_FLOATS, gpu_uniform_);
  pd_gpu_register_mask("exponential_", PD_DT_FLOATS, gpu_exponential_);
  /* dropout: host mask (the CPU's draws), applied on the GPU; half types divide in float */
  if (MISC->dropout_apply) pd_gpu_register_mask("dropout", PD_DT_FLOATS, gpu_dropout);
  if (MISC->dropout_grad) pd_gpu_register_mask("dropout_grad", PD_DT_FLOATS, gpu_dropout_grad);
  /* optimizers: the CPU's dtypes (float32 accumulators and master weights for half params) */
  if (MISC->opt_update && MISC->opt_finish) {
    pd_gpu_register_mask("sgd_", PD_DT_FLOATS, gpu_sgd_);
    pd_gpu_register_mask("momentum_", PD_DT_FLOATS, gpu_momentum_);
    pd_gpu_register_mask("adam_", PD_DT_FLOATS, gpu_adam_);
    pd_gpu_register_mask("adamax_", PD_DT_FLOATS, gpu_adamax_);
    pd_gpu_register_mask("adagrad_", PD_DT_FLOATS, gpu_adagrad_);
    pd_gpu_register_mask("adadelta_", PD_DT_FLOATS, gpu_adadelta_);
    pd_gpu_register_mask("rmsprop_", PD_DT_FLOATS, gpu_rmsprop_);
  }
  if (MISC->embedding) pd_gpu_register_mask("embedding", PD_DT_FLOATS, gpu_embedding);
  if (MISC->embedding_grad && MISC->copy) pd_gpu_register_mask("embedding_grad", DT_F3264, gpu_embedding_grad);
  if (MISC->gather) {
    pd_gpu_register_mask("gather", DT_ALL, gpu_gather);
    pd_gpu_register_mask("index_select", DT_ALL, gpu_index_select);
  }
  if (MISC->copy) {
    pd_gpu_register_mask("concat", DT_ALL, gpu_concat);
    pd_gpu_register_mask("stack", DT_ALL, gpu_stack);
    pd_gpu_register_mask("split", DT_ALL, gpu_split);
  }
  if (MISC->topk) pd_gpu_register_mask("topk", PD_DT_REALS, gpu_topk);
}
