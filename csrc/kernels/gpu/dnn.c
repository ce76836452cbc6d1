/* GPU kernels of the 'dnn' family: the glue between the op table's args structs and the launchers
 * of libpaddle_c_cuda.so (csrc/cuda/pd_cuda_dnn.h): conv2d / conv3d (+ bias), conv2d_transpose /
 * conv3d_transpose (the data gradient), conv2d_grad_filter on cuDNN; pool2d / pool3d,
 * pool2d_grad, max_pool2d_with_index, unpool and pool_gather on the family's own kernels. The
 * geometry (SAME / VALID / EXPLICIT padding, 2*nsp or nsp paddings, ceil_mode, output_size,
 * global / adaptive pooling) comes from the CPU's own functions (csrc/kernels/cpu/conv_geom.h),
 * so both devices compute the same windows; the CPU kernels (conv.c, pool.c) are the reference. */
#include <string.h>
#include "../../core/pd_device.h"
#include "../../ops/pd_op.h"
#include "../../ops/generated/pd_ops_gen.h"
#include "../../cuda/pd_cuda_dnn.h"
#include "../pd_kernel_shared.h"
#include "../cpu/conv_geom.h"

#define DNN (pd_cuda->dnn)

static pd_status no_launcher(const char *op) {
  return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] the CUDA library has no kernel for this op", op);
}
#define NEED(fn, op)                                             \
  do {                                                           \
    if (!pd_cuda || !DNN || !DNN->fn) return no_launcher(op);    \
  } while (0)

static pd_status same_dtype(const char *op, const pd_tensor *t, pd_dtype dt, const char *name) {
  if (!t || t->dtype == dt) return PD_OK;
  return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected %s of dtype %s, received %s", op, name,
                      pd_dtype_name(dt), pd_dtype_name(t->dtype));
}

static void rel_all(pd_tensor **c, int n) {
  for (int i = 0; i < n; i++)
    if (c[i]) pd_tensor_release(c[i]);
}
#define DATA(t) ((t) ? pd_tensor_data(t) : NULL)

/* ---------------------------------------------------------------- convolutions */
static void cu_conv_geom(const pd_conv_geom *g, pd_cuda_conv_geom *c) {
  memset(c, 0, sizeof *c);
  c->nsp = g->nsp;
  c->nhwc = g->nhwc;
  c->N = g->N;
  c->C = g->C;
  c->O = g->O;
  c->G = g->G;
  for (int i = 0; i < 3; i++) {
    c->in[i] = g->in[i];
    c->out[i] = g->out[i];
    c->k[i] = g->k[i];
    c->s[i] = g->s[i];
    c->pl[i] = g->pl[i];
    c->pr[i] = g->pr[i];
    c->d[i] = g->d[i];
  }
}

/* conv2d / conv3d: out = conv(input, filter) (+ bias) */
static pd_status gpu_conv(const void *args, pd_tensor **out, int n_out) {
  const pd_conv2d_args *a = (const pd_conv2d_args *)args;
  (void)n_out;
  NEED(conv_fwd, "conv2d");
  pd_conv_geom g;
  PD_TRY(pd_conv_geom_fwd("conv", a->input, a->filter->shape, a->filter->ndim, a->strides, a->paddings,
                          a->padding_algorithm, a->groups, a->dilations, a->data_format, &g));
  const pd_dtype dt = out[0]->dtype;
  PD_TRY(same_dtype("conv2d", a->input, dt, "input"));
  PD_TRY(same_dtype("conv2d", a->filter, dt, "filter"));
  PD_TRY(same_dtype("conv2d", a->bias, dt, "bias"));
  if (a->bias && a->bias->numel != g.O)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[conv2d] expected bias of %lld elements, received %lld",
                        (long long)g.O, (long long)a->bias->numel);
  pd_cuda_conv_geom cg;
  cu_conv_geom(&g, &cg);
  pd_tensor *in[3] = {a->input, a->filter, a->bias}, *c[3];
  PD_TRY(pd_contiguous_all(in, c, 3));
  int rc = DNN->conv_fwd((int)dt, &cg, DATA(c[0]), DATA(c[1]), DATA(c[2]), pd_tensor_data(out[0]));
  rel_all(c, 3);
  return pd_cu_status(rc, "conv2d");
}

/* conv2d_transpose / conv3d_transpose: the data gradient of conv(., filter) at x */
static pd_status gpu_conv_transpose(const void *args, pd_tensor **out, int n_out) {
  const pd_conv2d_transpose_args *a = (const pd_conv2d_transpose_args *)args;
  (void)n_out;
  NEED(conv_bwd_data, "conv2d_transpose");
  pd_conv_geom g;
  PD_TRY(pd_conv_geom_tr("conv_transpose", a->x, a->filter, a->strides, a->paddings, a->output_padding,
                         a->output_size, a->padding_algorithm, a->groups, a->dilations, a->data_format, &g));
  const pd_dtype dt = out[0]->dtype;
  PD_TRY(same_dtype("conv2d_transpose", a->x, dt, "x"));
  PD_TRY(same_dtype("conv2d_transpose", a->filter, dt, "filter"));
  pd_cuda_conv_geom cg;
  cu_conv_geom(&g, &cg);
  pd_tensor *in[2] = {a->x, a->filter}, *c[2];
  PD_TRY(pd_contiguous_all(in, c, 2));
  int rc = DNN->conv_bwd_data((int)dt, &cg, DATA(c[0]), DATA(c[1]), pd_tensor_data(out[0]));
  rel_all(c, 2);
  return pd_cu_status(rc, "conv2d_transpose");
}

/* conv2d_grad_filter: the filter gradient of conv(input, .) at dout */
static pd_status gpu_conv_grad_filter(const void *args, pd_tensor **out, int n_out) {
  const pd_conv2d_grad_filter_args *a = (const pd_conv2d_grad_filter_args *)args;
  (void)n_out;
  NEED(conv_bwd_filter, "conv2d_grad_filter");
  pd_conv_geom g;
  PD_TRY(pd_conv_geom_fwd("conv2d_grad_filter", a->input, a->filter_shape.data, (int)a->filter_shape.n, a->strides,
                          a->paddings, a->padding_algorithm, a->groups, a->dilations, a->data_format, &g));
  const pd_dtype dt = out[0]->dtype;
  PD_TRY(same_dtype("conv2d_grad_filter", a->input, dt, "input"));
  PD_TRY(same_dtype("conv2d_grad_filter", a->dout, dt, "dout"));
  pd_cuda_conv_geom cg;
  cu_conv_geom(&g, &cg);
  pd_tensor *in[2] = {a->input, a->dout}, *c[2];
  PD_TRY(pd_contiguous_all(in, c, 2));
  int rc = DNN->conv_bwd_filter((int)dt, &cg, DATA(c[0]), DATA(c[1]), pd_tensor_data(out[0]));
  rel_all(c, 2);
  return pd_cu_status(rc, "conv2d_grad_filter");
}

/* ---------------------------------------------------------------- pooling */
static void cu_pool_geom(const pd_pool_geom *g, pd_cuda_pool_geom *c) {
  memset(c, 0, sizeof *c);
  c->nsp = g->nsp;
  c->nhwc = g->nhwc;
  c->is_max = g->is_max;
  c->exclusive = g->exclusive;
  c->adaptive = g->adaptive;
  c->N = g->N;
  c->C = g->C;
  for (int i = 0; i < 3; i++) {
    c->in[i] = g->in[i];
    c->out[i] = g->out[i];
    c->k[i] = g->k[i];
    c->s[i] = g->s[i];
    c->pl[i] = g->pl[i];
    c->pr[i] = g->pr[i];
  }
}

static pd_status gpu_pool(const void *args, pd_tensor **out, int n_out) {
  const pd_pool2d_args *a = (const pd_pool2d_args *)args;
  (void)n_out;
  NEED(pool_fwd, "pool2d");
  pd_pool_geom g;
  PD_TRY(pd_pool_geom_make("pool2d", a->x, a->kernel_size, a->strides, a->paddings, a->ceil_mode, a->exclusive,
                           a->data_format, a->pooling_type, a->global_pooling, a->adaptive, a->padding_algorithm,
                           &g));
  const pd_dtype dt = out[0]->dtype;
  PD_TRY(same_dtype("pool2d", a->x, dt, "x"));
  pd_cuda_pool_geom cg;
  cu_pool_geom(&g, &cg);
  pd_tensor *xc;
  PD_TRY(pd_tensor_contiguous(a->x, &xc));
  int rc = DNN->pool_fwd((int)dt, &cg, pd_tensor_data(xc), pd_tensor_data(out[0]), NULL);
  pd_tensor_release(xc);
  return pd_cu_status(rc, "pool2d");
}

static pd_status gpu_pool_grad(const void *args, pd_tensor **out, int n_out) {
  const pd_pool2d_grad_args *a = (const pd_pool2d_grad_args *)args;
  (void)n_out;
  NEED(pool_bwd, "pool2d_grad");
  pd_pool_geom g;
  PD_TRY(pd_pool_geom_make("pool2d_grad", a->x, a->kernel_size, a->strides, a->paddings, a->ceil_mode,
                           a->exclusive, a->data_format, a->pooling_type, a->global_pooling, a->adaptive,
                           a->padding_algorithm, &g));
  const pd_dtype dt = out[0]->dtype;
  PD_TRY(same_dtype("pool2d_grad", a->x, dt, "x"));
  PD_TRY(same_dtype("pool2d_grad", a->dout, dt, "dout"));
  if (a->dout->numel != g.N * g.C * g.out[0] * g.out[1] * g.out[2])
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[pool2d_grad] dout has %lld elements, the pooling gives %lld",
                        (long long)a->dout->numel, (long long)(g.N * g.C * g.out[0] * g.out[1] * g.out[2]));
  pd_cuda_pool_geom cg;
  cu_pool_geom(&g, &cg);
  pd_tensor *in[2] = {a->x, a->dout}, *c[2];
  PD_TRY(pd_contiguous_all(in, c, 2));
  int rc = DNN->pool_bwd((int)dt, &cg, pd_tensor_data(c[0]), pd_tensor_data(c[1]), pd_tensor_data(out[0]));
  rel_all(c, 2);
  return pd_cu_status(rc, "pool2d_grad");
}

static pd_status gpu_pool_index(const void *args, pd_tensor **out, int n_out) {
  const pd_max_pool2d_with_index_args *a = (const pd_max_pool2d_with_index_args *)args;
  NEED(pool_fwd, "max_pool2d_with_index");
  pd_pool_geom g;
  PD_TRY(pd_pool_geom_make("max_pool2d_with_index", a->x, a->kernel_size, a->strides, a->paddings, a->ceil_mode, 1,
                           a->data_format, "max", a->global_pooling, a->adaptive, a->padding_algorithm, &g));
  const pd_dtype dt = out[0]->dtype;
  PD_TRY(same_dtype("max_pool2d_with_index", a->x, dt, "x"));
  const int64_t IS = g.in[0] * g.in[1] * g.in[2];
  if (IS > INT32_MAX)
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[max pooling] an input plane of %lld elements does not fit Paddle's "
                        "int32 mask", (long long)IS);
  pd_cuda_pool_geom cg;
  cu_pool_geom(&g, &cg);
  pd_tensor *xc, *mask = NULL;
  pd_status st = PD_OK;
  int own_mask = n_out < 2 || !out[1] || out[1]->dtype != PD_INT32 || !pd_tensor_is_contiguous(out[1]);
  if (own_mask) PD_TRY(pd_tensor_empty(PD_INT32, out[0]->ndim, out[0]->shape, &mask));
  else mask = out[1];
  if ((st = pd_tensor_contiguous(a->x, &xc)) != PD_OK) {
    if (own_mask) pd_tensor_release(mask);
    return st;
  }
  int rc = DNN->pool_fwd((int)dt, &cg, pd_tensor_data(xc), pd_tensor_data(out[0]), (int32_t *)pd_tensor_data(mask));
  pd_tensor_release(xc);
  st = pd_cu_status(rc, "max_pool2d_with_index");
  if (own_mask) {
    if (st == PD_OK && n_out >= 2) {
      if (out[1]) {
        st = pd_tensor_copy_(out[1], mask);
      } else {
        out[1] = mask;
        mask = NULL;
      }
    }
    if (mask) pd_tensor_release(mask);
  }
  return st;
}

/* unpool / pool_gather: planes of [N, C, S] (NHWC [N, S, C] is permuted to planes and back) */
static int is_nhwc(const char *fmt) {
  return fmt && (!strcmp(fmt, "NHWC") || !strcmp(fmt, "NLC") || !strcmp(fmt, "NDHWC"));
}
/* t [N, S, C] (contiguous) -> a new [N, C, S] tensor on the same GPU (or t itself, retained, when NCHW) */
static pd_status to_planes(pd_tensor *t, int nhwc, int64_t N, int64_t C, int64_t S, pd_tensor **out) {
  pd_tensor *c;
  PD_TRY(pd_tensor_contiguous(t, &c));
  if (!nhwc) {
    *out = c;
    return PD_OK;
  }
  int64_t n = t->numel;
  pd_status st = pd_tensor_empty(t->dtype, 1, &n, out);
  if (st == PD_OK) {
    int rc = DNN->permute021(pd_dtype_size(t->dtype), N, S, C, pd_tensor_data(c), pd_tensor_data(*out));
    if (rc) {
      pd_tensor_release(*out);
      *out = NULL;
      st = pd_cu_status(rc, "pool permute");
    }
  }
  pd_tensor_release(c);
  return st;
}

static pd_status scatter_exec(const char *op, pd_tensor *small, pd_tensor *idx, pd_tensor *big, const char *fmt,
                              int gather, int acc, pd_tensor *out) {
  NEED(permute021, op);
  const int nhwc = is_nhwc(fmt);
  const pd_tensor *ref = gather ? big : out;
  if (ref->ndim < 2) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected a batched channel tensor", op);
  if (idx->dtype != PD_INT32 && idx->dtype != PD_INT64)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] indices must be int32 or int64, received %s", op,
                        pd_dtype_name(idx->dtype));
  const int64_t N = ref->shape[0], C = nhwc ? ref->shape[ref->ndim - 1] : ref->shape[1], NC = N * C;
  const int64_t BS = NC > 0 ? ref->numel / NC : 0, SS = NC > 0 ? idx->numel / NC : 0;
  if (out->numel == 0) return PD_OK;
  pd_tensor *ip = NULL, *src = NULL, *res = NULL;
  pd_status st;
  if ((st = to_planes(idx, nhwc, N, C, SS, &ip)) != PD_OK) goto done;
  if ((st = to_planes(gather ? big : small, nhwc, N, C, gather ? BS : SS, &src)) != PD_OK) goto done;
  if (nhwc) {
    int64_t n = out->numel;
    if ((st = pd_tensor_empty(out->dtype, 1, &n, &res)) != PD_OK) goto done;
  }
  void *dst = nhwc ? pd_tensor_data(res) : pd_tensor_data(out);
  int rc = gather ? DNN->pool_gather((int)out->dtype, NC, SS, BS, pd_tensor_data(src), pd_tensor_data(ip),
                                     (int)idx->dtype, dst)
                  : DNN->unpool((int)out->dtype, NC, SS, BS, pd_tensor_data(src), pd_tensor_data(ip),
                                (int)idx->dtype, dst, acc);
  if (rc == 0 && nhwc)
    rc = DNN->permute021(pd_dtype_size(out->dtype), N, C, gather ? SS : BS, dst, pd_tensor_data(out));
  st = pd_cu_status(rc, op);
done:
  if (ip) pd_tensor_release(ip);
  if (src) pd_tensor_release(src);
  if (res) pd_tensor_release(res);
  return st;
}

static pd_status gpu_unpool(const void *args, pd_tensor **out, int n_out) {
  const pd_unpool_args *a = (const pd_unpool_args *)args;
  (void)n_out;
  NEED(unpool, "unpool");
  PD_TRY(same_dtype("unpool", a->x, out[0]->dtype, "x"));
  return scatter_exec("unpool", a->x, a->indices, NULL, a->data_format, 0, a->accumulate, out[0]);
}
static pd_status gpu_pool_gather(const void *args, pd_tensor **out, int n_out) {
  const pd_pool_gather_args *a = (const pd_pool_gather_args *)args;
  (void)n_out;
  NEED(pool_gather, "pool_gather");
  PD_TRY(same_dtype("pool_gather", a->x, out[0]->dtype, "x"));
  if (a->indices->numel != out[0]->numel)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[pool_gather] indices (%lld elements) and out (%lld) differ",
                        (long long)a->indices->numel, (long long)out[0]->numel);
  return scatter_exec("pool_gather", NULL, a->indices, a->x, a->data_format, 1, 0, out[0]);
}

/* TF32 policy for float32 convolutions (Paddle's FLAGS_allow_tf32_cudnn); returns the previous
 * value, -1 when no CUDA library is loaded. For the lead's flag wiring (cuda_set_allow_tf32). */
int pd_gpu_dnn_set_allow_tf32(int allow) {
  if (!pd_cuda || !pd_cuda->dnn || !pd_cuda->dnn->set_allow_tf32) return -1;
  return pd_cuda->dnn->set_allow_tf32(allow);
}

void pd_gpu_register_dnn(void) {
  if (!pd_cuda || !DNN) return;
  const unsigned floats = PD_DT_FLOATS;
  if (DNN->conv_fwd) {
    pd_gpu_register_mask("conv2d", floats, gpu_conv);
    pd_gpu_register_mask("conv3d", floats, gpu_conv);
  }
  if (DNN->conv_bwd_data) {
    pd_gpu_register_mask("conv2d_transpose", floats, gpu_conv_transpose);
    pd_gpu_register_mask("conv3d_transpose", floats, gpu_conv_transpose);
  }
  if (DNN->conv_bwd_filter) pd_gpu_register_mask("conv2d_grad_filter", floats, gpu_conv_grad_filter);
  if (DNN->pool_fwd) {
    pd_gpu_register_mask("pool2d", floats, gpu_pool);
    pd_gpu_register_mask("pool3d", floats, gpu_pool);
    pd_gpu_register_mask("max_pool2d_with_index", floats, gpu_pool_index);
  }
  if (DNN->pool_bwd) pd_gpu_register_mask("pool2d_grad", floats, gpu_pool_grad);
  if (DNN->unpool && DNN->permute021) pd_gpu_register_mask("unpool", floats, gpu_unpool);
  if (DNN->pool_gather && DNN->permute021) pd_gpu_register_mask("pool_gather", floats, gpu_pool_gather);
}
