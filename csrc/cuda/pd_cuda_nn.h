/* The 'nn' family of libpaddle_c_cuda.so (see pd_cuda_api.h for the conventions): matmul on
 * cuBLAS (dlopen'd at first use), reductions, softmax, the fused softmax cross entropy and the
 * normalizations. Owner: helper "cunn"; kernels in csrc/cuda/nn*.cu, glue in
 * csrc/kernels/gpu/nn.c. Every launcher runs on the current device's current stream. */
#ifndef PD_CUDA_NN_H
#define PD_CUDA_NN_H
#include "pd_cuda_api.h"
#ifdef __cplusplus
extern "C" {
#endif

/* reduce kinds */
enum {
  PD_CU_RED_SUM = 0, PD_CU_RED_MEAN, PD_CU_RED_PROD, PD_CU_RED_MAX, PD_CU_RED_MIN,
  PD_CU_RED_ALL, PD_CU_RED_ANY, PD_CU_RED_LOGSUMEXP,
  /* reduce2 only (param: unbiased for var / std, porder for p_norm) */
  PD_CU_RED_VAR, PD_CU_RED_STD, PD_CU_RED_FROBENIUS, PD_CU_RED_PNORM, PD_CU_RED_ARGMAX, PD_CU_RED_ARGMIN
};

typedef struct pd_cuda_gemm_batch {
  int nb;                              /* batch dims (0: one product) */
  int64_t shape[PD_CUDA_MAX_DIMS];     /* batch dims of the output */
  int64_t astride[PD_CUDA_MAX_DIMS];   /* element strides of A / B over the batch dims (0: shared) */
  int64_t bstride[PD_CUDA_MAX_DIMS];
} pd_cuda_gemm_batch;

typedef struct pd_cuda_nn {
  /* Row-major C[b] (M x N, contiguous, batches back to back) = op(A[b]) @ op(B[b]) for dtype
   * float16 / bfloat16 / float32 / float64 (16-bit floats accumulate in float32). A is logically
   * M x K: stored row-major with row stride lda when ta == 0, or as its transpose (K x M, row
   * stride lda) when ta == 1; B likewise (K x N). M, N, K >= 1 (the caller handles zeros). */
  int (*gemm)(int dtype, int ta, int tb, int64_t M, int64_t N, int64_t K, const void *A,
              int64_t lda, const void *B, int64_t ldb, void *C, const pd_cuda_gemm_batch *batch);
  /* float32 GEMMs may use TF32 tensor cores when allow != 0 (the default, as Paddle's
   * FLAGS_allow_tf32_cublas); returns the previous setting. */
  int (*set_allow_tf32)(int allow);

  /* out[o] = reduction over the axes in mask (bit d = dim d of x) of x, for every index o of
   * the kept dims in order (out contiguous, numel = product of kept dims, dtype out_dtype).
   * Accumulation as the CPU kernels: sum/prod/mean of ints and bool in int64, of 16-bit floats
   * and float32 in float, of float64 in double; max/min in the input type; logsumexp in double;
   * all/any give bool. An empty reduction gives the identity (sum 0, prod 1, all 1, any 0, mean
   * NaN); max/min/logsumexp of an empty reduction is the caller's error. */
  int (*reduce)(int kind, const pd_cuda_tensor *x, unsigned mask, void *out, int out_dtype);

  /* softmax (log_ != 0: log_softmax) of contiguous x viewed as [outer, n, inner] along n;
   * float16 / bfloat16 / float32 compute in float, float64 in double. */
  int (*softmax)(int dtype, const void *x, void *y, int64_t outer, int64_t n, int64_t inner,
                 int log_);
  /* cross_entropy_with_softmax on contiguous [outer, n, inner] logits (float32 / float64):
   * softmax out [outer, n, inner], loss [outer, inner]. Hard labels (label_dtype int32/int64,
   * [outer, inner]) or soft labels (same dtype and shape as the logits). A hard label outside
   * [0, n) that is not ignore_index fails with PD_CU_ERR_INVALID (this synchronises). */
  int (*ce_softmax)(int dtype, const void *logits, const void *label, int label_dtype, int soft,
                    int64_t ignore_index, void *softmax, void *loss, int64_t outer, int64_t n,
                    int64_t inner);
  /* dlogits = s * (c + q - sum(q s)) - t * dloss (ops/loss.yaml); dsoftmax (q) may be NULL (0).
   * No synchronisation: a row whose hard label is out of range gets NaN (the forward reports it). */
  int (*ce_softmax_grad)(int dtype, const void *label, int label_dtype, int soft,
                         int64_t ignore_index, const void *softmax, const void *dloss,
                         const void *dsoftmax, void *dlogits, int64_t outer, int64_t n,
                         int64_t inner);

  /* layer_norm over rows of D (R rows, contiguous); scale / bias [D] may be NULL; mean and
   * variance [R] out. float32 / float64. */
  int (*layer_norm)(int dtype, int64_t R, int64_t D, const void *x, const void *scale,
                    const void *bias, void *y, void *mean, void *var, double eps);
  /* dx [R, D]; dscale / dbias [D] (NULL: not wanted); dmean / dvar [R] optional incoming
   * gradients of the mean / variance outputs (NULL: zero). */
  int (*layer_norm_grad)(int dtype, int64_t R, int64_t D, const void *x, const void *scale,
                         const void *mean, const void *var, const void *dy, void *dx,
                         void *dscale, void *dbias, double eps, const void *dmean,
                         const void *dvar);
  /* batch_norm of contiguous x viewed as [A, C, B] (NCHW: A = N, B = spatial; NHWC: A = rows,
   * B = 1). train != 0: batch statistics, running mean / var updated in place with momentum;
   * else the running statistics are used. saved_mean / saved_invstd [C] out. */
  int (*batch_norm)(int dtype, int64_t A, int64_t C, int64_t B, const void *x, void *run_mean,
                    void *run_var, const void *scale, const void *bias, void *y,
                    void *saved_mean, void *saved_invstd, int train, double momentum,
                    double eps);
  int (*batch_norm_grad)(int dtype, int64_t A, int64_t C, int64_t B, const void *x,
                         const void *scale, const void *saved_mean, const void *saved_invstd,
                         const void *dy, void *dx, void *dscale, void *dbias, void *dmean,
                         void *dvar, int use_global, const void *dsaved_mean,
                         const void *dsaved_invstd);
  /* reduce for every kind, with one parameter: var / std (param = unbiased) and frobenius_norm /
   * p_norm (param = porder: 0 counts nonzeros, +-inf max / min |x|) in double as the CPU's
   * two-pass kernels; argmax / argmin write the first index of the extreme (NaN the most
   * extreme) along the reduced index, out_dtype int32 or int64. */
  int (*reduce2)(int kind, const pd_cuda_tensor *x, unsigned mask, void *out, int out_dtype, double param);
  /* dot: out[r] = sum_i x[r*xr + i*xc] * y[r*yr + i*yc] for r < rows, accumulated in double
   * (float dtypes) or int64 (integer dtypes) and stored in dtype (the CPU kernel's rule). */
  int (*dot)(int dtype, const void *x, const void *y, int64_t rows, int64_t n, int64_t xr, int64_t xc,
             int64_t yr, int64_t yc, void *out);
  /* cumsum (prod == 0) / cumprod (prod != 0) of contiguous x viewed as [outer, n, inner] along n,
   * in the CPU's order (sequential per line: the same sums), accumulating ints in int64, 16-bit
   * floats in float; exclusive leaves x[r] out, reverse runs from the end. Real dtypes. */
  int (*scan)(int dtype, int prod, const void *x, void *y, int64_t outer, int64_t n, int64_t inner,
              int exclusive, int reverse);
  /* y = x * s over n contiguous values of a float dtype (s applied in float for the 16-bit
   * floats and float32, in double for float64). */
  int (*scale)(int dtype, const void *x, void *y, int64_t n, double s);

  /* ---- added for attention_core (helper cuamp; glue csrc/kernels/gpu/attn.c) ---- */
  /* gemm with C's layout given (nn_cublas.cu): row-major C[b] with row stride ldc, batch b at
   * sum_d i_d * cstride[d] (cstride: batch->nb entries, NULL without batch); else as gemm. */
  int (*gemm_c)(int dtype, int ta, int tb, int64_t M, int64_t N, int64_t K, const void *A, int64_t lda,
                const void *B, int64_t ldb, void *C, int64_t ldc, const pd_cuda_gemm_batch *batch,
                const int64_t *cstride);
  /* (attn_core.cu, float32 / float64) in place on contiguous S [B, H, Tq, Tk]: each row
   * s = s * scale (+ the mask row), then softmax; mask (NULL: none) contiguous [Mb, Mh, Tq, Tk]
   * with Mb in {1, B}, Mh in {1, H} (broadcast). */
  int (*attn_softmax)(int dtype, void *s, const void *mask, int64_t B, int64_t H, int64_t Tq, int64_t Tk,
                      int64_t Mb, int64_t Mh, double scale);
  /* D[e] = m[e] (uint8) ? P[e] / keep : 0 over n contiguous elements (keep rounded to dtype). */
  int (*attn_dropout)(int dtype, const void *P, const void *m, void *D, int64_t n, double keep);
  /* per row of G [rows, n] (contiguous, in place) with probs P: g = (m ? (m[e] ? g * dsc : 0) : g)
   * (+ dP[e] when dP), s = sum(g * p), g = p * (g - s) * scale. m / dP may be NULL. */
  int (*attn_softmax_grad)(int dtype, void *G, const void *P, const void *m, const void *dP, int64_t rows,
                           int64_t n, double dsc, double scale);
} pd_cuda_nn;

#ifdef __cplusplus
}
#endif
#endif
