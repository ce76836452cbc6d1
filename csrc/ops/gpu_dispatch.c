/* The runner's GPU side (pd_op.h, "GPU kernels"): the op x dtype table of GPU kernels that
 * csrc/kernels/gpu/ registers when libpaddle_c_cuda.so loads, and the routing of an op's inputs
 * to one device. Paddle's rule: an op runs where its GPU inputs are; a CPU input that needs no
 * gradient is copied there first (Paddle's data transform), one that needs a gradient is an
 * error (the copy would cut its gradient); ops without tensor inputs run on the creation device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_dispatch.h"
#include "../core/pd_device.h"
#include "../cuda/pd_cuda_nn.h"
#include "../cuda/pd_cuda_dnn.h"
#include "../kernels/gpu/pd_gpu_extra.h"

static pd_kernel_fn (*gpu_tab)[PD_NUM_DTYPES] = NULL;
int pd_gpu_fallback_enabled = 1;

/* pd_device.c calls this once when libpaddle_c_cuda.so loaded and found a GPU (pd_cuda set) */
static void on_load(const pd_cuda_api *api) {
  const char *fb = getenv("PADDLE_C_GPU_FALLBACK");
  if (fb && strcmp(fb, "0") == 0) pd_gpu_fallback_enabled = 0;
  const char *tf = getenv("FLAGS_allow_tf32_cublas"); /* Paddle's flag, from the environment */
  if (tf && (strcmp(tf, "0") == 0 || strcmp(tf, "false") == 0 || strcmp(tf, "False") == 0)) {
    if (api->nn && api->nn->set_allow_tf32) api->nn->set_allow_tf32(0);
    if (api->dnn && api->dnn->set_allow_tf32) api->dnn->set_allow_tf32(0);
  }
  pd_gpu_register_elementwise();
  pd_gpu_register_nn();
  pd_gpu_register_misc();
  pd_gpu_register_dnn();  /* conv (cuDNN) and pooling: csrc/kernels/gpu/dnn.c */
  pd_gpu_register_amp();  /* csrc/kernels/gpu/amp.c */
  pd_gpu_register_attn(); /* csrc/kernels/gpu/attn.c */
}

__attribute__((constructor)) static void install_on_load(void) { pd_cuda_on_load = on_load; }

void pd_gpu_register(const char *op, pd_dtype dtype, pd_kernel_fn fn) {
  int id = pd_op_lookup(op);
  if (id < 0 || !pd_dtype_is_valid((int)dtype)) return; /* an op this build does not declare */
  if (!gpu_tab) {
    gpu_tab = calloc((size_t)pd_num_ops, sizeof *gpu_tab);
    if (!gpu_tab) return;
  }
  gpu_tab[id][dtype] = fn;
}

void pd_gpu_register_mask(const char *op, unsigned mask, pd_kernel_fn fn) {
  for (int t = 0; t < PD_NUM_DTYPES; t++)
    if (mask & (1u << t)) pd_gpu_register(op, (pd_dtype)t, fn);
}

pd_kernel_fn pd_gpu_kernel(int op, pd_dtype dtype) {
  return gpu_tab && op >= 0 && op < pd_num_ops ? gpu_tab[op][dtype] : NULL;
}

static pd_status mixed(const pd_op_def *d, const char *name, int a, int b) {
  char pa[32], pb[32];
  if (a < 0) snprintf(pa, sizeof pa, "Place(cpu)"); else snprintf(pa, sizeof pa, "Place(gpu:%d)", a);
  if (b < 0) snprintf(pb, sizeof pb, "Place(cpu)"); else snprintf(pb, sizeof pb, "Place(gpu:%d)", b);
  return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                      "[%s] expected all tensors on one place, but input %s is on %s and the op runs on %s; "
                      "move it first (x.cuda() / x.cpu() / x.to(place))",
                      d->name, name, pb, pa);
}

/* The tensors of arg i of a filled args struct: one slot for Tensor / Tensor?, the array of a
 * Tensor[]; 0 when arg i holds no tensors. */
static int arg_tensors(const pd_op_def *d, const void *args, int i, pd_tensor *const **ts, int64_t *n) {
  const pd_arg_def *a = &d->args[i];
  const char *p = (const char *)args + a->offset;
  if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT) {
    *ts = (pd_tensor *const *)p;
    *n = 1;
    return 1;
  }
  if (a->kind == PD_ARG_TENSOR_LIST) {
    *ts = ((const pd_tensor_list *)p)->data;
    *n = ((const pd_tensor_list *)p)->n;
    return 1;
  }
  return 0;
}

static int tensor_dev(const pd_tensor *t) { return t && t->storage ? t->storage->device : PD_DEVICE_NONE; }

/* The GPU the op runs on (or PD_CPU), whether any tensor input exists, and whether some input
 * must move there. */
static pd_status scan(const pd_op_def *d, const void *args, int *dev, int *any, int *moves) {
  *dev = PD_CPU;
  *any = 0;
  *moves = 0;
  pd_tensor *const *ts;
  int64_t n;
  for (int i = 0; i < d->n_args; i++)
    for (int64_t j = 0; arg_tensors(d, args, i, &ts, &n) && j < n; j++) {
      int td = tensor_dev(ts[j]);
      if (td == PD_DEVICE_NONE) continue;
      *any = 1;
      if (td >= 0 && *dev >= 0 && td != *dev) return mixed(d, d->args[i].name, *dev, td);
      if (td >= 0) *dev = td;
    }
  if (*dev < 0) {
    if (!*any) *dev = pd_device_creation();
    return PD_OK;
  }
  for (int i = 0; i < d->n_args; i++) /* CPU inputs of a GPU op */
    for (int64_t j = 0; arg_tensors(d, args, i, &ts, &n) && j < n; j++) {
      if (tensor_dev(ts[j]) != PD_CPU) continue;
      /* an in-place op may write any of its tensor inputs (optimizer states, beta powers): a
       * moved copy would swallow the update, so every input must already be on the op's GPU */
      if ((d->flags & PD_OP_INPLACE) || (!ts[j]->stop_gradient && !(d->flags & PD_OP_NONDIFF)))
        return mixed(d, d->args[i].name, *dev, PD_CPU);
      *moves = 1;
    }
  return PD_OK;
}

void pd_gpu_route_free(pd_gpu_route *r) {
  for (int i = 0; i < r->n_hold; i++) pd_tensor_release(r->hold[i]);
  free(r->hold);
  for (int i = 0; i < r->n_lists; i++) free(r->lists[i]);
  free(r->lists);
  free(r->args);
  memset(r, 0, sizeof *r);
}

static pd_status hold(pd_gpu_route *r, pd_tensor *t) {
  pd_tensor **h = realloc(r->hold, sizeof *h * (size_t)(r->n_hold + 1));
  if (!h) {
    pd_tensor_release(t);
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  r->hold = h;
  h[r->n_hold++] = t;
  return PD_OK;
}

/* A copy of args (in r) whose tensors not on target are replaced by copies there (held in r). */
static pd_status retarget(const pd_op_def *d, const void *args, int target, pd_gpu_route *r) {
  char *copy = malloc(d->args_size ? d->args_size : 1);
  if (!copy) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  memcpy(copy, args, d->args_size);
  r->args = copy;
  pd_status s = PD_OK;
  for (int i = 0; i < d->n_args && s == PD_OK; i++) {
    pd_tensor *const *ts;
    int64_t n;
    if (!arg_tensors(d, copy, i, &ts, &n)) continue;
    pd_tensor **slots = (pd_tensor **)ts;
    if (d->args[i].kind == PD_ARG_TENSOR_LIST) { /* a Tensor[]: a new array, the caller's stays */
      void **lists = realloc(r->lists, sizeof *lists * (size_t)(r->n_lists + 1));
      slots = malloc(sizeof *slots * (size_t)(n ? n : 1));
      if (!lists || !slots) {
        free(slots);
        if (lists) r->lists = lists;
        s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
        break;
      }
      r->lists = lists;
      lists[r->n_lists++] = slots;
      memcpy(slots, ts, sizeof *slots * (size_t)n);
      ((pd_tensor_list *)(copy + d->args[i].offset))->data = slots;
    }
    for (int64_t j = 0; j < n && s == PD_OK; j++) {
      int td = tensor_dev(slots[j]);
      if (td == PD_DEVICE_NONE || td == target) continue;
      pd_tensor *m = NULL;
      s = pd_tensor_to_device(slots[j], target, 0, &m);
      if (s == PD_OK) s = hold(r, m);
      if (s == PD_OK) slots[j] = m;
    }
  }
  return s;
}

pd_status pd_gpu_route_args(const pd_op_def *d, const void *args, pd_gpu_route *r) {
  memset(r, 0, sizeof *r);
  int moves;
  PD_TRY(scan(d, args, &r->dev, &r->any_tensor, &moves));
  if (!moves) return PD_OK;
  pd_status s = retarget(d, args, r->dev, r);
  if (s != PD_OK) pd_gpu_route_free(r);
  return s;
}

/* ---- the host fallback ---- */
static _Atomic long *fb_counts = NULL;

long pd_gpu_fallback_count(int op) {
  return fb_counts && op >= 0 && op < pd_num_ops ? fb_counts[op] : 0;
}

/* an in-place op's GPU tensor inputs get their host copies' new values */
static pd_status copy_back(const pd_op_def *d, const void *gargs, const void *hargs) {
  pd_tensor *const *g, *const *h;
  int64_t n, m;
  for (int i = 0; i < d->n_args; i++)
    for (int64_t j = 0; arg_tensors(d, gargs, i, &g, &n) && arg_tensors(d, hargs, i, &h, &m) && j < n; j++)
      if (g[j] != h[j] && tensor_dev(g[j]) >= 0) PD_TRY(pd_tensor_copy_(g[j], h[j]));
  return PD_OK;
}

/* Ops that are not flagged in-place but whose CPU kernels update inputs (the `writes` of
 * ops/compat.yaml: batch_norm's running statistics, auc's accumulators; the gradients
 * check_finite_and_unscale_ unscales, a Tensor[]): after the fallback the named inputs' host
 * copies go back to their GPU tensors, or the update would be lost. */
static const struct {
  const char *op;
  const char *args[2];
} k_writes[] = {{"batch_norm", {"mean", "variance"}}, {"auc", {"stat_pos", "stat_neg"}},
                {"check_finite_and_unscale_", {"x", "x"}}};

static pd_status copy_back_writes(const pd_op_def *d, const void *gargs, const void *hargs) {
  for (size_t w = 0; w < sizeof k_writes / sizeof k_writes[0]; w++) {
    if (strcmp(k_writes[w].op, d->name) != 0) continue;
    for (int i = 0; i < d->n_args; i++) {
      if (strcmp(d->args[i].name, k_writes[w].args[0]) != 0 && strcmp(d->args[i].name, k_writes[w].args[1]) != 0)
        continue;
      pd_tensor *const *g, *const *h;
      int64_t n, m;
      for (int64_t j = 0; arg_tensors(d, gargs, i, &g, &n) && arg_tensors(d, hargs, i, &h, &m) && j < n && j < m; j++)
        if (g[j] && g[j] != h[j] && tensor_dev(g[j]) >= 0) PD_TRY(pd_tensor_copy_(g[j], h[j]));
    }
  }
  return PD_OK;
}

/* the GPU argument whose host copy t is (an output that aliases an input), or NULL */
static pd_tensor *gpu_alias(const pd_op_def *d, const void *gargs, const void *hargs, const pd_tensor *t) {
  pd_tensor *const *g, *const *h;
  int64_t n, m;
  for (int i = 0; i < d->n_args; i++)
    for (int64_t j = 0; arg_tensors(d, gargs, i, &g, &n) && arg_tensors(d, hargs, i, &h, &m) && j < n; j++)
      if (h[j] == t) return g[j];
  return NULL;
}

pd_status pd_gpu_fallback(int op, const void *args, int dev, pd_tensor ***outs, int *n_out) {
  const pd_op_def *d = &pd_op_defs[op];
  if (!fb_counts) {
    _Atomic long *c = calloc((size_t)pd_num_ops, sizeof *c);
    if (c) fb_counts = c; /* a race allocates twice: one leaks, both count */
  }
  if (fb_counts) fb_counts[op]++;
  pd_gpu_route h;
  memset(&h, 0, sizeof h);
  pd_status s = retarget(d, args, PD_CPU, &h); /* host copies of the inputs */
  pd_tensor **ho = NULL;
  int hn = 0;
  if (s == PD_OK) {
    int prev = pd_device_swap_current(PD_CPU);
    s = pd_op_exec(op, h.args, &ho, &hn);
    pd_device_swap_current(prev);
  }
  pd_tensor **o = NULL;
  if (s == PD_OK && (d->flags & PD_OP_INPLACE)) s = copy_back(d, args, h.args);
  else if (s == PD_OK) s = copy_back_writes(d, args, h.args);
  if (s == PD_OK) {
    o = calloc((size_t)(hn > 0 ? hn : 1), sizeof *o);
    if (!o) s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  for (int i = 0; s == PD_OK && i < hn; i++) {
    pd_tensor *g = ho[i] && (d->flags & PD_OP_INPLACE) ? gpu_alias(d, args, h.args, ho[i]) : NULL;
    if (g && g->storage && g->storage->device >= 0) { /* an in-place result: the GPU tensor itself */
      pd_tensor_retain(g);
      o[i] = g;
    } else if (ho[i]) {
      s = pd_tensor_to_device(ho[i], dev, 1, &o[i]);
    }
  }
  for (int i = 0; i < hn; i++) pd_tensor_release(ho[i]);
  free(ho);
  pd_gpu_route_free(&h);
  if (s != PD_OK) {
    for (int i = 0; o && i < hn; i++) pd_tensor_release(o[i]);
    free(o);
    return s;
  }
  *outs = o;
  *n_out = hn;
  return PD_OK;
}
