/* viterbi_decode (ops/text.yaml): per sequence, max-sum over tag paths of
 * sum_t potentials[t, y_t] + sum_t trans[y_{t-1}, y_t] (+ trans[n-1, y_0] + trans[n-2, y_last]
 * with include_bos_eos_tag), over the first lengths[b] steps. Paths are [batch, max(lengths)],
 * 0 past each sequence's end; ties pick the lowest tag (Paddle's argmax). Sequences run in
 * parallel; each keeps an int32 backpointer table [len - 1, n]. */
#include <stdlib.h>
#include "pd_kernel_util.h"

#define DEF_VITERBI(SUF, T)                                                                       \
  pd_status pd_kernel_viterbi_decode_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                                   \
    const pd_viterbi_decode_args *a = (const pd_viterbi_decode_args *)args;                        \
    int64_t B = a->potentials->shape[0], L = a->potentials->shape[1], N = a->potentials->shape[2]; \
    pd_tensor *pc = NULL, *tc = NULL, *lc = NULL;                                                  \
    int64_t *len = (int64_t *)malloc(sizeof(int64_t) * (size_t)(B > 0 ? B : 1));                   \
    if (!len) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");                     \
    pd_status s = pd_tensor_contiguous(a->potentials, &pc);                                        \
    if (s == PD_OK) s = pd_tensor_contiguous(a->transition_params, &tc);                           \
    if (s == PD_OK) s = pd_tensor_contiguous(a->lengths, &lc);                                     \
    int64_t maxlen = 0;                                                                            \
    for (int64_t b = 0; s == PD_OK && b < B; b++) {                                                \
      len[b] = lc->dtype == PD_INT32 ? ((const int32_t *)pd_tensor_data(lc))[b]                    \
                                     : ((const int64_t *)pd_tensor_data(lc))[b];                   \
      if (len[b] < 0 || len[b] > L)                                                                \
        s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[viterbi_decode] expected lengths in [0, %lld]" \
                         " (the sequence dim of potentials), received %lld at %lld",              \
                         (long long)L, (long long)len[b], (long long)b);                           \
      maxlen = len[b] > maxlen ? len[b] : maxlen;                                                  \
    }                                                                                              \
    int64_t psh[2] = {B, maxlen};                                                                  \
    if (s == PD_OK) s = pd_tensor_empty(PD_INT64, 2, psh, &out[1]);                                \
    if (s == PD_OK && B > 0) {                                                                     \
      const T *pot = (const T *)pd_tensor_data(pc), *tr = (const T *)pd_tensor_data(tc);           \
      T *score = (T *)pd_tensor_data(out[0]);                                                      \
      int64_t *path = (int64_t *)pd_tensor_data(out[1]);                                           \
      int bos = a->include_bos_eos_tag;                                                            \
      const T *stop = tr + (N - 2) * N, *start = tr + (N - 1) * N;                                 \
      int fail = 0;                                                                                \
      _Pragma("omp parallel for if (B * maxlen * N * N >= 65536) schedule(dynamic, 1)")            \
      for (int64_t b = 0; b < B; b++) {                                                            \
        T *alpha = (T *)malloc(sizeof(T) * (size_t)(2 * N));                                       \
        int32_t *hist = (int32_t *)malloc(sizeof(int32_t) * (size_t)((maxlen > 1 ? maxlen - 1 : 1) \
                                                                      * N));                       \
        if (!alpha || !hist) {                                                                     \
          free(alpha);                                                                             \
          free(hist);                                                                              \
          _Pragma("omp atomic write") fail = 1;                                                    \
          continue;                                                                                \
        }                                                                                          \
        T *nxt = alpha + N;                                                                        \
        const T *pb = pot + b * L * N;                                                             \
        int64_t left = len[b];                                                                     \
        for (int64_t j = 0; j < N; j++) {                                                          \
          T v = pb[j];                                                                             \
          if (bos) {                                                                               \
            v += start[j];                                                                         \
            if (left == 1) v += stop[j];                                                           \
          }                                                                                        \
          alpha[j] = v;                                                                            \
        }                                                                                          \
        left--;                                                                                    \
        for (int64_t i = 1; i < maxlen; i++) {                                                     \
          int32_t *h = hist + (i - 1) * N;                                                         \
          for (int64_t j = 0; j < N; j++) {                                                        \
            T best = alpha[0] + tr[j];                                                             \
            int32_t arg = 0;                                                                       \
            for (int64_t k = 1; k < N; k++) {                                                      \
              T v = alpha[k] + tr[k * N + j];                                                      \
              if (v > best) {                                                                      \
                best = v;                                                                          \
                arg = (int32_t)k;                                                                  \
              }                                                                                    \
            }                                                                                      \
            h[j] = arg;                                                                            \
            nxt[j] = best + pb[i * N + j];                                                         \
          }                                                                                        \
          if (left > 0)                                                                            \
            for (int64_t j = 0; j < N; j++) alpha[j] = nxt[j];                                     \
          if (bos && left == 1)                                                                    \
            for (int64_t j = 0; j < N; j++) alpha[j] += stop[j];                                   \
          left--;                                                                                  \
        }                                                                                          \
        int64_t last = 0;                                                                          \
        for (int64_t j = 1; j < N; j++)                                                            \
          if (alpha[j] > alpha[last]) last = j;                                                    \
        score[b] = alpha[last];                                                                    \
        int64_t *pr = path + b * maxlen;                                                           \
        if (maxlen > 0) pr[maxlen - 1] = left >= 0 ? last : 0;                                     \
        for (int64_t i = maxlen - 1; i >= 1; i--) {                                                \
          left++;                                                                                  \
          int64_t val = left > 0 ? (int64_t)hist[(i - 1) * N + last] : (left == 0 ? last : 0);     \
          pr[i - 1] = val;                                                                         \
          if (left >= 0) last = val;                                                               \
        }                                                                                          \
        free(alpha);                                                                               \
        free(hist);                                                                                \
      }                                                                                            \
      if (fail) s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[viterbi_decode] out of memory");     \
    }                                                                                              \
    free(len);                                                                                     \
    pd_tensor_release(pc);                                                                         \
    pd_tensor_release(tc);                                                                         \
    pd_tensor_release(lc);                                                                         \
    return s;                                                                                      \
  }
DEF_VITERBI(f32, float)
DEF_VITERBI(f64, double)
