/* Kernels of paddle.incubate (ops/incubate.yaml): segment_pool and graph_send_recv (SUM, MEAN,
 * MAX, MIN; empty segments / rows are 0) with their grad ops (MAX/MIN send the gradient to every
 * element equal to the pooled value, Paddle's rule), and the fused masked softmaxes. Indices are
 * int32 or int64 and are range-checked before anything is written. */
#include "incubate_util.h"
#include <stdlib.h>
#include "pd_kernel_util.h"
#include "pd_vmath.h"

enum { POOL_SUM, POOL_MEAN, POOL_MAX, POOL_MIN };

static int pool_of(const char *s) {
  if (strcmp(s, "MEAN") == 0) return POOL_MEAN;
  if (strcmp(s, "MAX") == 0) return POOL_MAX;
  if (strcmp(s, "MIN") == 0) return POOL_MIN;
  return POOL_SUM;
}

/* Index tensor (int32/int64) -> malloc'd int64 array (n elements); incubate_util.h */
pd_status pd_incubate_load_idx(const pd_tensor *t, int64_t **out) {
  pd_tensor *c;
  PD_TRY(pd_tensor_contiguous((pd_tensor *)t, &c));
  int64_t n = c->numel;
  int64_t *v = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
  if (!v) {
    pd_tensor_release(c);
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  if (c->dtype == PD_INT32) {
    const int32_t *p = (const int32_t *)pd_tensor_data(c);
    for (int64_t i = 0; i < n; i++) v[i] = p[i];
  } else {
    memcpy(v, pd_tensor_data(c), sizeof(int64_t) * (size_t)n);
  }
  pd_tensor_release(c);
  *out = v;
  return PD_OK;
}

static int64_t row_width(const pd_tensor *t) {
  int64_t w = 1;
  for (int d = 1; d < t->ndim; d++) w *= t->shape[d];
  return w;
}

/* ---------------- segment_pool ---------------- */
#define DEF_SEGMENT(SUF, T, CT)                                                                   \
  pd_status pd_kernel_segment_pool_##SUF(const void *args, pd_tensor **out, int n_out) {          \
    (void)n_out;                                                                                   \
    const pd_segment_pool_args *a = (const pd_segment_pool_args *)args;                            \
    int kind = pool_of(a->pooltype);                                                               \
    int64_t *ids = NULL, n = a->x->shape[0], w = row_width(a->x);                                  \
    PD_TRY(pd_incubate_load_idx(a->segment_ids, &ids));                                                        \
    pd_status s = PD_OK;                                                                           \
    for (int64_t i = 0; i < n && s == PD_OK; i++) {                                                \
      if (ids[i] < 0)                                                                              \
        s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[segment_pool] expected segment_ids >= 0, "     \
                         "received %lld at %lld", (long long)ids[i], (long long)i);                \
      else if (i > 0 && ids[i] < ids[i - 1])                                                       \
        s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[segment_pool] expected sorted segment_ids, "   \
                         "received %lld after %lld at %lld", (long long)ids[i],                   \
                         (long long)ids[i - 1], (long long)i);                                     \
    }                                                                                              \
    int64_t nseg = n > 0 ? ids[n - 1] + 1 : 0;                                                     \
    pd_tensor *xc = NULL;                                                                          \
    if (s == PD_OK) s = pd_tensor_contiguous(a->x, &xc);                                           \
    if (s == PD_OK) {                                                                              \
      int64_t sh[PD_MAX_DIMS];                                                                     \
      memcpy(sh, a->x->shape, sizeof(int64_t) * (size_t)a->x->ndim);                               \
      sh[0] = nseg;                                                                                \
      s = pd_tensor_empty(a->x->dtype, a->x->ndim, sh, &out[0]);                                   \
      int64_t s2[2] = {nseg, 1};                                                                   \
      if (s == PD_OK) s = pd_tensor_empty(a->x->dtype, 2, s2, &out[1]);                            \
    }                                                                                              \
    int64_t *starts = NULL;                                                                        \
    if (s == PD_OK) {                                                                              \
      starts = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nseg + 1));                            \
      if (!starts) s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");                   \
    }                                                                                              \
    if (s == PD_OK) {                                                                              \
      for (int64_t sg = 0, i = 0; sg <= nseg; sg++) { /* first row of each segment */              \
        while (i < n && ids[i] < sg) i++;                                                          \
        starts[sg] = i;                                                                            \
      }                                                                                            \
      const T *x = (const T *)pd_tensor_data(xc);                                                  \
      T *o = (T *)pd_tensor_data(out[0]), *cnt = (T *)pd_tensor_data(out[1]);                      \
      int fail = 0;                                                                                \
      _Pragma("omp parallel if (n * w >= 65536)")                                                  \
      {                                                                                            \
        double *acc = (double *)malloc(sizeof(double) * (size_t)(w > 0 ? w : 1));                  \
        if (!acc) {                                                                                \
          _Pragma("omp atomic write") fail = 1;                                                    \
        }                                                                                          \
        _Pragma("omp for schedule(dynamic, 16)")                                                   \
        for (int64_t sg = 0; sg < nseg; sg++) {                                                    \
          if (!acc) continue;                                                                      \
          int64_t beg = starts[sg], end = starts[sg + 1];                                          \
          PD_ST_##SUF(&cnt[sg], (double)(end - beg));                                              \
          T *orow = o + sg * w;                                                                    \
          if (end == beg) {                                                                        \
            for (int64_t j = 0; j < w; j++) PD_ST_##SUF(&orow[j], 0.0);                            \
            continue;                                                                              \
          }                                                                                        \
          const T *xr = x + beg * w;                                                               \
          for (int64_t j = 0; j < w; j++) acc[j] = (double)PD_LD_##SUF(&xr[j]);                    \
          for (int64_t i = beg + 1; i < end; i++) {                                                \
            xr = x + i * w;                                                                        \
            if (kind == POOL_MAX) {                                                                \
              for (int64_t j = 0; j < w; j++) {                                                    \
                double v = (double)PD_LD_##SUF(&xr[j]);                                            \
                acc[j] = v > acc[j] ? v : acc[j];                                                  \
              }                                                                                    \
            } else if (kind == POOL_MIN) {                                                         \
              for (int64_t j = 0; j < w; j++) {                                                    \
                double v = (double)PD_LD_##SUF(&xr[j]);                                            \
                acc[j] = v < acc[j] ? v : acc[j];                                                  \
              }                                                                                    \
            } else {                                                                               \
              for (int64_t j = 0; j < w; j++) acc[j] += (double)PD_LD_##SUF(&xr[j]);              \
            }                                                                                      \
          }                                                                                        \
          double div = kind == POOL_MEAN ? (double)(end - beg) : 1.0;                              \
          for (int64_t j = 0; j < w; j++) PD_ST_##SUF(&orow[j], acc[j] / div);                     \
        }                                                                                          \
        free(acc);                                                                                 \
      }                                                                                            \
      if (fail) s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[segment_pool] out of memory");       \
    }                                                                                              \
    free(starts);                                                                                  \
    pd_tensor_release(xc);                                                                         \
    free(ids);                                                                                     \
    return s;                                                                                      \
  }
DEF_SEGMENT(f32, float, float)
DEF_SEGMENT(f64, double, double)
DEF_SEGMENT(i32, int32_t, int32_t)
DEF_SEGMENT(i64, int64_t, int64_t)

/* contiguous copies of the grad op's tensors */
typedef struct {
  pd_tensor *x, *out, *grad, *cnt;
} grad_inputs;

static pd_status grad_load(grad_inputs *g, pd_tensor *x, pd_tensor *out, pd_tensor *grad,
                           pd_tensor *cnt) {
  memset(g, 0, sizeof *g);
  pd_status s = pd_tensor_contiguous(x, &g->x);
  if (s == PD_OK) s = pd_tensor_contiguous(out, &g->out);
  if (s == PD_OK) s = pd_tensor_contiguous(grad, &g->grad);
  if (s == PD_OK) s = pd_tensor_contiguous(cnt, &g->cnt);
  return s;
}
static void grad_free(grad_inputs *g) {
  pd_tensor_release(g->x);
  pd_tensor_release(g->out);
  pd_tensor_release(g->grad);
  pd_tensor_release(g->cnt);
}

#define DEF_SEGMENT_GRAD(SUF, T)                                                                  \
  pd_status pd_kernel_segment_pool_grad_##SUF(const void *args, pd_tensor **out, int n_out) {     \
    (void)n_out;                                                                                   \
    const pd_segment_pool_grad_args *a = (const pd_segment_pool_grad_args *)args;                  \
    int kind = pool_of(a->pooltype);                                                               \
    int64_t *ids = NULL, n = a->x->shape[0], w = row_width(a->x), nseg = a->out->shape[0];         \
    if (a->grad->numel != a->out->numel)                                                           \
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[segment_pool_grad] expected grad of out's "   \
                          "size %lld, received %lld", (long long)a->out->numel,                   \
                          (long long)a->grad->numel);                                              \
    PD_TRY(pd_incubate_load_idx(a->segment_ids, &ids));                                                        \
    grad_inputs g;                                                                                 \
    pd_status s = grad_load(&g, a->x, a->out, a->grad, a->summed_ids);                             \
    for (int64_t i = 0; i < n && s == PD_OK; i++)                                                  \
      if (ids[i] < 0 || ids[i] >= nseg)                                                            \
        s = pd_set_error(PD_ERR_OUT_OF_RANGE, "[segment_pool_grad] segment id %lld out of "        \
                         "[0, %lld)", (long long)ids[i], (long long)nseg);                         \
    if (s == PD_OK) {                                                                              \
      const T *x = (const T *)pd_tensor_data(g.x), *o = (const T *)pd_tensor_data(g.out);          \
      const T *gr = (const T *)pd_tensor_data(g.grad), *c = (const T *)pd_tensor_data(g.cnt);      \
      T *dx = (T *)pd_tensor_data(out[0]);                                                         \
      for (int64_t i = 0; i < n; i++) {                                                            \
        int64_t sg = ids[i];                                                                       \
        for (int64_t j = 0; j < w; j++) {                                                          \
          T gv = gr[sg * w + j];                                                                   \
          if (kind == POOL_MEAN) gv = gv / c[sg];                                                  \
          else if (kind == POOL_MAX || kind == POOL_MIN)                                           \
            gv = x[i * w + j] == o[sg * w + j] ? gv : (T)0;                                        \
          dx[i * w + j] = gv;                                                                      \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    grad_free(&g);                                                                                 \
    free(ids);                                                                                     \
    return s;                                                                                      \
  }
DEF_SEGMENT_GRAD(f32, float)
DEF_SEGMENT_GRAD(f64, double)

/* ---------------- graph_send_recv ---------------- */
static pd_status check_edges(const char *op, const int64_t *src, const int64_t *dst, int64_t ne,
                             int64_t nsrc, int64_t ndst) {
  for (int64_t e = 0; e < ne; e++) {
    if (src[e] < 0 || src[e] >= nsrc)
      return pd_set_error(PD_ERR_OUT_OF_RANGE, "[%s] src_index[%lld] = %lld out of [0, %lld)", op,
                          (long long)e, (long long)src[e], (long long)nsrc);
    if (dst[e] < 0 || dst[e] >= ndst)
      return pd_set_error(PD_ERR_OUT_OF_RANGE, "[%s] dst_index[%lld] = %lld out of [0, %lld) (the "
                          "output rows; set out_size)", op, (long long)e, (long long)dst[e],
                          (long long)ndst);
  }
  return PD_OK;
}

#define DEF_SEND_RECV(SUF, T, CT)                                                                 \
  pd_status pd_kernel_graph_send_recv_##SUF(const void *args, pd_tensor **out, int n_out) {       \
    (void)n_out;                                                                                   \
    const pd_graph_send_recv_args *a = (const pd_graph_send_recv_args *)args;                      \
    int kind = pool_of(a->pool_type);                                                              \
    int64_t *src = NULL, *dst = NULL, w = row_width(a->x), rows = out[0]->shape[0];                \
    int64_t ne = a->src_index->numel;                                                              \
    PD_TRY(pd_incubate_load_idx(a->src_index, &src));                                                          \
    pd_status s = pd_incubate_load_idx(a->dst_index, &dst);                                                    \
    if (s == PD_OK) s = check_edges("graph_send_recv", src, dst, ne, a->x->shape[0], rows);        \
    pd_tensor *xc = NULL;                                                                          \
    double *acc = NULL;                                                                            \
    if (s == PD_OK) s = pd_tensor_contiguous(a->x, &xc);                                           \
    if (s == PD_OK) {                                                                              \
      acc = (double *)calloc((size_t)(rows * w > 0 ? rows * w : 1), sizeof(double));               \
      if (!acc) s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");                      \
    }                                                                                              \
    if (s == PD_OK) {                                                                              \
      const T *x = (const T *)pd_tensor_data(xc);                                                  \
      int32_t *cnt = (int32_t *)pd_tensor_data(out[1]);                                            \
      for (int64_t r = 0; r < rows; r++) cnt[r] = 0;                                               \
      for (int64_t e = 0; e < ne; e++) {                                                           \
        int64_t d = dst[e], sr = src[e];                                                           \
        double *ar = acc + d * w;                                                                  \
        const T *xr = x + sr * w;                                                                  \
        for (int64_t j = 0; j < w; j++) {                                                          \
          double v = (double)PD_LD_##SUF(&xr[j]);                                                  \
          if (cnt[d] == 0 || kind == POOL_SUM || kind == POOL_MEAN)                                \
            ar[j] = cnt[d] == 0 ? v : ar[j] + v;                                                   \
          else if (kind == POOL_MAX) ar[j] = v > ar[j] ? v : ar[j];                                \
          else ar[j] = v < ar[j] ? v : ar[j];                                                      \
        }                                                                                          \
        cnt[d]++;                                                                                  \
      }                                                                                            \
      T *o = (T *)pd_tensor_data(out[0]);                                                          \
      for (int64_t r = 0; r < rows; r++)                                                           \
        for (int64_t j = 0; j < w; j++) {                                                          \
          double v = acc[r * w + j];                                                               \
          if (kind == POOL_MEAN && cnt[r] > 0) v /= (double)cnt[r];                                \
          PD_ST_##SUF(&o[r * w + j], v);                                                           \
        }                                                                                          \
    }                                                                                              \
    free(acc);                                                                                     \
    pd_tensor_release(xc);                                                                         \
    free(src);                                                                                     \
    free(dst);                                                                                     \
    return s;                                                                                      \
  }
DEF_SEND_RECV(f32, float, float)
DEF_SEND_RECV(f64, double, double)
DEF_SEND_RECV(i32, int32_t, int32_t)
DEF_SEND_RECV(i64, int64_t, int64_t)

#define DEF_SEND_RECV_GRAD(SUF, T)                                                                \
  pd_status pd_kernel_graph_send_recv_grad_##SUF(const void *args, pd_tensor **out, int n_out) {  \
    (void)n_out;                                                                                   \
    const pd_graph_send_recv_grad_args *a = (const pd_graph_send_recv_grad_args *)args;            \
    int kind = pool_of(a->pool_type);                                                              \
    int64_t *src = NULL, *dst = NULL, w = row_width(a->x), rows = a->out->shape[0];                \
    int64_t ne = a->src_index->numel, nx = a->x->shape[0];                                         \
    if (a->grad->numel != a->out->numel || a->dst_count->numel != rows)                            \
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[graph_send_recv_grad] expected grad of out's " \
                          "size %lld and dst_count of %lld rows", (long long)a->out->numel,       \
                          (long long)rows);                                                        \
    PD_TRY(pd_incubate_load_idx(a->src_index, &src));                                                          \
    pd_status s = pd_incubate_load_idx(a->dst_index, &dst);                                                    \
    if (s == PD_OK) s = check_edges("graph_send_recv_grad", src, dst, ne, nx, rows);               \
    grad_inputs g;                                                                                 \
    memset(&g, 0, sizeof g);                                                                       \
    if (s == PD_OK) s = grad_load(&g, a->x, a->out, a->grad, a->dst_count);                        \
    if (s == PD_OK) {                                                                              \
      const T *x = (const T *)pd_tensor_data(g.x), *o = (const T *)pd_tensor_data(g.out);          \
      const T *gr = (const T *)pd_tensor_data(g.grad);                                             \
      const int32_t *c = (const int32_t *)pd_tensor_data(g.cnt);                                   \
      T *dx = (T *)pd_tensor_data(out[0]);                                                         \
      for (int64_t i = 0; i < nx * w; i++) dx[i] = (T)0;                                           \
      for (int64_t e = 0; e < ne; e++) {                                                           \
        int64_t d = dst[e], sr = src[e];                                                           \
        for (int64_t j = 0; j < w; j++) {                                                          \
          T gv = gr[d * w + j];                                                                    \
          if (kind == POOL_MEAN) gv = gv / (T)c[d];                                                \
          else if (kind == POOL_MAX || kind == POOL_MIN)                                           \
            gv = x[sr * w + j] == o[d * w + j] ? gv : (T)0;                                        \
          dx[sr * w + j] += gv;                                                                    \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    grad_free(&g);                                                                                 \
    free(src);                                                                                     \
    free(dst);                                                                                     \
    return s;                                                                                      \
  }
DEF_SEND_RECV_GRAD(f32, float)
DEF_SEND_RECV_GRAD(f64, double)

/* ---------------- fused masked softmax ---------------- */
/* row softmax of x (+ mask) over k entries in the compute type CT (exp from pd_vmath.h);
 * entries j >= lim are masked out (upper triangle). buf: k CT values per thread. */
#define FSM_EXP_f16 pd_vexpf
#define FSM_EXP_f32 pd_vexpf
#define FSM_EXP_f64 pd_vexp
#define DEF_FUSED_SOFTMAX(SUF, T, CT)                                                             \
  static int fsm_rows_##SUF(const T *x, const T *mk, T *o, int64_t nrow, int64_t k,               \
                            int64_t rows_per_mask, int64_t q, int upper) {                         \
    int fail = 0;                                                                                  \
    _Pragma("omp parallel if (nrow * k >= 65536)")                                                 \
    {                                                                                              \
      CT *buf = (CT *)malloc(sizeof(CT) * (size_t)(k > 0 ? k : 1));                                \
      if (!buf) {                                                                                  \
        _Pragma("omp atomic write") fail = 1;                                                      \
      }                                                                                            \
      _Pragma("omp for schedule(static)")                                                          \
      for (int64_t r = 0; r < nrow; r++) {                                                         \
        if (!buf) continue;                                                                        \
        const T *xr = x + r * k;                                                                   \
        const T *mr = mk ? mk + ((r / rows_per_mask) * q + r % q) * k : NULL;                      \
        T *orow = o + r * k;                                                                       \
        int64_t lim = upper ? (r % q) + 1 : k;                                                     \
        if (lim > k) lim = k;                                                                      \
        CT mx = (CT)-INFINITY;                                                                     \
        if (mr) {                                                                                  \
          for (int64_t j = 0; j < lim; j++) buf[j] = (CT)PD_LD_##SUF(&xr[j]) + (CT)PD_LD_##SUF(&mr[j]); \
        } else {                                                                                   \
          for (int64_t j = 0; j < lim; j++) buf[j] = (CT)PD_LD_##SUF(&xr[j]);                      \
        }                                                                                          \
        for (int64_t j = 0; j < lim; j++) mx = buf[j] > mx ? buf[j] : mx;                          \
        CT sum = 0;                                                                                \
        if (mx > (CT)-INFINITY) {                                                                  \
          for (int64_t j = 0; j < lim; j++) buf[j] = FSM_EXP_##SUF(buf[j] - mx);                   \
          for (int64_t j = 0; j < lim; j++) sum += buf[j];                                         \
        }                                                                                          \
        CT inv = sum > 0 ? (CT)1 / sum : (CT)0;                                                    \
        for (int64_t j = 0; j < lim; j++) PD_ST_##SUF(&orow[j], buf[j] * inv);                     \
        for (int64_t j = lim; j < k; j++) PD_ST_##SUF(&orow[j], 0);                                \
      }                                                                                            \
      free(buf);                                                                                   \
    }                                                                                              \
    return fail;                                                                                   \
  }                                                                                                \
  pd_status pd_kernel_fused_softmax_mask_##SUF(const void *args, pd_tensor **out, int n_out) {    \
    (void)n_out;                                                                                   \
    const pd_fused_softmax_mask_args *a = (const pd_fused_softmax_mask_args *)args;                \
    pd_tensor *xc = NULL, *mc = NULL;                                                              \
    PD_TRY(pd_tensor_contiguous(a->x, &xc));                                                       \
    pd_status s = pd_tensor_contiguous(a->mask, &mc);                                              \
    if (s == PD_OK) {                                                                              \
      int64_t k = a->x->shape[3], q = a->x->shape[2], h = a->x->shape[1];                          \
      if (fsm_rows_##SUF((const T *)pd_tensor_data(xc), (const T *)pd_tensor_data(mc),             \
                         (T *)pd_tensor_data(out[0]), a->x->numel / (k > 0 ? k : 1), k, h * q, q, 0)) \
        s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[softmax_mask_fuse] out of memory");          \
    }                                                                                              \
    pd_tensor_release(xc);                                                                         \
    pd_tensor_release(mc);                                                                         \
    return s;                                                                                      \
  }                                                                                                \
  pd_status pd_kernel_fused_softmax_mask_upper_triangle_##SUF(const void *args, pd_tensor **out,  \
                                                              int n_out) {                         \
    (void)n_out;                                                                                   \
    const pd_fused_softmax_mask_upper_triangle_args *a =                                           \
        (const pd_fused_softmax_mask_upper_triangle_args *)args;                                   \
    pd_tensor *xc = NULL;                                                                          \
    PD_TRY(pd_tensor_contiguous(a->x, &xc));                                                       \
    int64_t k = a->x->shape[3], q = a->x->shape[2];                                                \
    int f = fsm_rows_##SUF((const T *)pd_tensor_data(xc), NULL, (T *)pd_tensor_data(out[0]),       \
                           a->x->numel / (k > 0 ? k : 1), k, 1, q, 1);                             \
    pd_tensor_release(xc);                                                                         \
    return f ? pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[softmax_mask_fuse] out of memory") : PD_OK; \
  }
DEF_FUSED_SOFTMAX(f16, pd_float16, float)
DEF_FUSED_SOFTMAX(f32, float, float)
DEF_FUSED_SOFTMAX(f64, double, double)
