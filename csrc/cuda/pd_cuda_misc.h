/* The 'misc' family of libpaddle_c_cuda.so (see pd_cuda_api.h for the conventions): dropout's
 * apply / backward, the fused optimizer updates, embedding, gather / index_select, strided
 * copies (concat / stack / split), topk. Every launcher returns 0 or -1 (error set through the
 * runtime); numel 0 launches nothing. Tensor views may have any strides unless a launcher says
 * otherwise. Glue: csrc/kernels/gpu/misc.c. */
#ifndef PD_CUDA_MISC_H
#define PD_CUDA_MISC_H
#include "pd_cuda_api.h"
#ifdef __cplusplus
extern "C" {
#endif

/* The scalars of an optimizer update (csrc/kernels/cpu/optim.c's formulas). The tensors read
 * on the host by the CPU kernel (beta1_pow, beta2_pow, learning_rate, skip_update) stay on the
 * device: their pointers (NULL: absent) and PD_CU_* dtypes are passed, the kernel derives the
 * same double-precision step constants the CPU kernel derives on the host, and opt_finish
 * advances the pows (beta_pow *= beta) unless skip_update is set. */
enum { PD_CU_OPT_SGD = 0, PD_CU_OPT_MOMENTUM, PD_CU_OPT_ADAM, PD_CU_OPT_ADAMAX, PD_CU_OPT_ADAGRAD,
       PD_CU_OPT_ADADELTA, PD_CU_OPT_RMSPROP };
typedef struct pd_cuda_opt {
  int kind;                 /* PD_CU_OPT_* */
  double lr, l1, l2, rescale;
  double beta1, beta2, epsilon, coeff; /* adam (coeff: adamw's decoupled decay), adamax */
  double mu;                /* momentum */
  int use_nesterov;         /* momentum */
  double rho, momentum;     /* adadelta / rmsprop */
  int centered;             /* rmsprop */
  const void *beta1_pow; int beta1_pow_dtype;
  const void *beta2_pow; int beta2_pow_dtype;
  const void *lr_tensor; int lr_dtype;      /* learning_rate: step lr = value * lr */
  const void *skip; int skip_dtype;         /* skip_update: non-zero -> no change */
} pd_cuda_opt;

typedef struct pd_cuda_misc {
  /* out[i] = mask[i] ? (upscale ? x[i] / keep : x[i]) : 0 over the row-major elements of out.
   * x and out share a shape (float16/bfloat16/float32/float64; half types divide in float);
   * mask is a uint8 tensor of the same numel, contiguous. keep is (T)(1.0f - (float)p), given
   * exactly (a float value widened to double). */
  int (*dropout_apply)(const pd_cuda_tensor *x, const pd_cuda_tensor *mask, const pd_cuda_tensor *out,
                       double keep, int upscale);
  /* dx[i] = mask[i] != 0 ? dout[i] * scale : 0; mask a 1-byte dtype (uint8/bool/int8), any
   * strides; scale is the T-rounded factor, widened to double. */
  int (*dropout_grad)(const pd_cuda_tensor *mask, const pd_cuda_tensor *dout, const pd_cuda_tensor *dx,
                      double scale);
  /* One fused in-place update: param (its dtype T; contiguous), grad (T, any strides), master
   * (float32 contiguous or NULL), acc0..acc2 (contiguous; float32 when T is a half type, else
   * T; NULL where the kind has fewer). */
  int (*opt_update)(const pd_cuda_opt *o, const pd_cuda_tensor *param, const pd_cuda_tensor *grad,
                    const pd_cuda_tensor *master, const pd_cuda_tensor *acc0,
                    const pd_cuda_tensor *acc1, const pd_cuda_tensor *acc2);
  /* beta1_pow *= beta1 and (when present) beta2_pow *= beta2, in double then stored in the
   * pow's dtype, unless skip is set: one thread, after opt_update on the same stream. */
  int (*opt_finish)(const pd_cuda_opt *o);
  /* out[i, :] = ids[i] == padding_idx ? 0 : weight[ids[i], :]; ids int32/int64 (any shape,
   * strides), weight [rows, dim] (any strides), out [n, dim] contiguous. An id outside
   * [0, rows) writes zeros and sets *err_flag = 1 and *err_value = that id (device memory,
   * zeroed by the caller; the caller reads them back). */
  int (*embedding)(const pd_cuda_tensor *ids, const pd_cuda_tensor *weight, const pd_cuda_tensor *out,
                   int64_t padding_idx, int *err_flag, int64_t *err_value);
  /* dweight [rows, dim] contiguous = sum over i (in increasing i, as the CPU kernel adds) of
   * dout[i, :] for ids[i] == row, rows never hit are 0, ids == padding_idx skipped; dout
   * viewed as [n, dim] (contiguous, or 2-D with any strides). Deterministic: per-row buckets of
   * id positions, sorted, one block per row. scratch: device memory for 3 * rows + n ints (n <
   * 2^31 - 1). Errors as embedding. */
  int (*embedding_grad)(const pd_cuda_tensor *ids, const pd_cuda_tensor *dout,
                        const pd_cuda_tensor *dweight, int64_t padding_idx, int *scratch,
                        int *err_flag, int64_t *err_value);
  /* out = take(x, index, axis): out has x's ndim with out.shape[axis] = index.numel; index
   * int32/int64 (any shape, read in row-major order), negative entries count from the end; an
   * index outside [-dim, dim) sets the error flag and value (element written as 0). Any dtype
   * (elements moved as bytes). */
  int (*gather)(const pd_cuda_tensor *x, const pd_cuda_tensor *index, int axis,
                const pd_cuda_tensor *out, int *err_flag, int64_t *err_value);
  /* dst = src, same shape (same dtype), any strides on both: concat / stack / split. */
  int (*copy)(const pd_cuda_tensor *dst, const pd_cuda_tensor *src);
  /* The first k of each row along axis of a stable sort (largest: descending; NaN ranks above
   * every number, NaNs equal), ties in index order: csrc/kernels/cpu/sort.c's topk. vals has
   * x's dtype, inds int64; both x's shape with k on the axis. Real dtypes. */
  int (*topk)(const pd_cuda_tensor *x, int axis, int64_t k, int largest, const pd_cuda_tensor *vals,
              const pd_cuda_tensor *inds);
  /* dropout with the keep mask drawn on the device (the opt-in fast path; NOT the CPU's
   * stream): mask[i] = !(u_i < p) with u_i = pd_u32_to_unit_f(word i % 4 of pd_philox(key,
   * counter + i / 4)) (pd_random.h), then out as dropout_apply. mask uint8 contiguous. */
  int (*dropout_philox)(const pd_cuda_tensor *x, const pd_cuda_tensor *mask, const pd_cuda_tensor *out,
                        uint64_t key, uint64_t counter, float p, double keep, int upscale);

  /* ---- mixed precision (csrc/cuda/amp_unscale.cu, glue csrc/kernels/gpu/amp.c) ---- */
  /* check_finite_and_unscale_: each of the n contiguous device tensors (data[i], numel[i]
   * elements of dtype[i]: float16 / bfloat16 / float32 / float64; the arrays are on the host) is
   * multiplied in place by inv = 1.0f / *scale (scale: a float32 device scalar; float64 tensors
   * by (double)inv, 16-bit floats in float), and *found_inf (a bool device scalar) is set to
   * whether any element was inf or nan (csrc/kernels/cpu/amp.c). One launch per 48 tensors. */
  int (*amp_unscale)(int n, void *const *data, const int64_t *numel, const int *dtype, const void *scale,
                     void *found_inf);
  /* update_loss_scaling_ on device scalars (loss_scaling float32, found_inf bool, good / bad
   * steps int32), one thread, the CPU kernel's rule in float32. */
  int (*amp_update_scaling)(void *loss_scaling, const void *found_inf, void *good_steps, void *bad_steps,
                            int64_t incr_every, int64_t decr_every, float incr_ratio, float decr_ratio);
} pd_cuda_misc;

#ifdef __cplusplus
}
#endif
#endif
