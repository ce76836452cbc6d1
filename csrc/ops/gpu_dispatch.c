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

static pd_kernel_fn (*gpu_tab)[PD_NUM_DTYPES] = NULL;

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

/* One pass over the tensor args: the GPU the op runs on (or PD_CPU), whether any tensor input
 * exists, and whether some input must move. */
static pd_status scan(const pd_op_def *d, const void *args, int *dev, int *any, int *moves) {
  *dev = PD_CPU;
  *any = 0;
  *moves = 0;
  for (int i = 0; i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    const char *p = (const char *)args + a->offset;
    pd_tensor *const *ts;
    int64_t n;
    if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT) {
      ts = (pd_tensor *const *)p;
      n = 1;
    } else if (a->kind == PD_ARG_TENSOR_LIST) {
      ts = ((const pd_tensor_list *)p)->data;
      n = ((const pd_tensor_list *)p)->n;
    } else {
      continue;
    }
    for (int64_t j = 0; j < n; j++) {
      const pd_tensor *t = ts[j];
      if (!t || !t->storage) continue;
      *any = 1;
      int td = t->storage->device;
      if (td >= 0) {
        if (*dev >= 0 && td != *dev) return mixed(d, a->name, *dev, td);
        *dev = td;
      }
    }
  }
  if (*dev >= 0) {
    /* CPU inputs of a GPU op */
    for (int i = 0; i < d->n_args; i++) {
      const pd_arg_def *a = &d->args[i];
      const char *p = (const char *)args + a->offset;
      pd_tensor *const *ts;
      int64_t n;
      if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT) {
        ts = (pd_tensor *const *)p;
        n = 1;
      } else if (a->kind == PD_ARG_TENSOR_LIST) {
        ts = ((const pd_tensor_list *)p)->data;
        n = ((const pd_tensor_list *)p)->n;
      } else {
        continue;
      }
      for (int64_t j = 0; j < n; j++) {
        const pd_tensor *t = ts[j];
        if (!t || !t->storage || t->storage->device >= 0) continue;
        /* an in-place op may write any of its tensor inputs (optimizer states, beta powers): a
         * moved copy would swallow the update, so every input must already be on the op's GPU */
        if (d->flags & PD_OP_INPLACE) return mixed(d, a->name, *dev, PD_CPU);
        if (!t->stop_gradient && !(d->flags & PD_OP_NONDIFF)) return mixed(d, a->name, *dev, PD_CPU);
        *moves = 1;
      }
    }
  } else if (!*any) {
    *dev = pd_device_creation();
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

pd_status pd_gpu_route_args(const pd_op_def *d, const void *args, pd_gpu_route *r) {
  memset(r, 0, sizeof *r);
  int moves;
  PD_TRY(scan(d, args, &r->dev, &r->any_tensor, &moves));
  r->args = NULL;
  if (!moves) return PD_OK;
  char *copy = malloc(d->args_size ? d->args_size : 1);
  if (!copy) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  memcpy(copy, args, d->args_size);
  r->args = copy;
  pd_status s = PD_OK;
  for (int i = 0; i < d->n_args && s == PD_OK; i++) {
    const pd_arg_def *a = &d->args[i];
    char *p = copy + a->offset;
    if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT) {
      pd_tensor **tp = (pd_tensor **)p;
      if (!*tp || !(*tp)->storage || (*tp)->storage->device >= 0) continue;
      pd_tensor *g = NULL;
      s = pd_tensor_to_device(*tp, r->dev, 0, &g);
      if (s == PD_OK) s = hold(r, g);
      if (s == PD_OK) *tp = g;
    } else if (a->kind == PD_ARG_TENSOR_LIST) {
      pd_tensor_list *l = (pd_tensor_list *)p;
      int need = 0;
      for (int64_t j = 0; j < l->n; j++)
        if (l->data[j] && l->data[j]->storage && l->data[j]->storage->device < 0) need = 1;
      if (!need) continue;
      pd_tensor **nl = malloc(sizeof *nl * (size_t)(l->n ? l->n : 1));
      void **lists = realloc(r->lists, sizeof *lists * (size_t)(r->n_lists + 1));
      if (!nl || !lists) {
        free(nl);
        if (lists) r->lists = lists;
        s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
        break;
      }
      r->lists = lists;
      lists[r->n_lists++] = nl;
      for (int64_t j = 0; j < l->n && s == PD_OK; j++) {
        nl[j] = l->data[j];
        if (!nl[j] || !nl[j]->storage || nl[j]->storage->device >= 0) continue;
        pd_tensor *g = NULL;
        s = pd_tensor_to_device(nl[j], r->dev, 0, &g);
        if (s == PD_OK) s = hold(r, g);
        if (s == PD_OK) nl[j] = g;
      }
      l->data = nl;
    }
  }
  if (s != PD_OK) pd_gpu_route_free(r);
  return s;
}
