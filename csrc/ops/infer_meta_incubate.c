/* Shape/dtype rules of the paddle.incubate ops (ops/incubate.yaml): segment pooling and
 * graph_send_recv (with their grad ops), the fused masked softmaxes, graph neighbour sampling
 * and reindexing. Data-dependent lengths are -1 here; the kernels make those outputs. */
#include <string.h>
#include "generated/pd_ops_gen.h"

#define BAD(...) pd_set_error(PD_ERR_INVALID_ARGUMENT, __VA_ARGS__)

static pd_status need_index(const char *op, const char *name, const pd_tensor *t) {
  if (t->dtype != PD_INT32 && t->dtype != PD_INT64)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected %s to be int32 or int64, received %s", op, name,
                        pd_dtype_name(t->dtype));
  return PD_OK;
}

static pd_status need_1d(const char *op, const char *name, const pd_tensor *t) {
  if (t->ndim != 1 && !(t->ndim == 2 && t->shape[1] == 1))
    return BAD("[%s] expected %s to be 1-D, received a %d-D tensor", op, name, t->ndim);
  return PD_OK;
}

static int64_t len_1d(const pd_tensor *t) { return t->ndim ? t->shape[0] : 1; }

static pd_status pool_kind(const char *op, const char *s, int *kind) {
  static const char *names[] = {"SUM", "MEAN", "MAX", "MIN"};
  for (int i = 0; i < 4; i++)
    if (s && strcmp(s, names[i]) == 0) {
      *kind = i;
      return PD_OK;
    }
  return BAD("[%s] expected pool type SUM, MEAN, MAX or MIN, received '%s'", op, s ? s : "(null)");
}

pd_status pd_infer_segment_pool(const void *args, pd_meta_list *out) {
  const pd_segment_pool_args *a = (const pd_segment_pool_args *)args;
  int k;
  PD_TRY(pool_kind("segment_pool", a->pooltype, &k));
  PD_TRY(need_index("segment_pool", "segment_ids", a->segment_ids));
  PD_TRY(need_1d("segment_pool", "segment_ids", a->segment_ids));
  if (a->x->ndim < 1) return BAD("[segment_pool] expected x with at least 1 dimension, received 0");
  if (a->x->shape[0] >= 0 && a->segment_ids->shape[0] >= 0 &&
      len_1d(a->segment_ids) != a->x->shape[0])
    return BAD("[segment_pool] expected segment_ids of length x.shape[0] = %lld, received %lld",
               (long long)a->x->shape[0], (long long)len_1d(a->segment_ids));
  pd_meta *m = pd_meta_list_resize(out, 2);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  int64_t sh[PD_MAX_DIMS];
  memcpy(sh, a->x->shape, sizeof(int64_t) * (size_t)a->x->ndim);
  sh[0] = -1;
  pd_meta_set(&m[0], a->x->dtype, a->x->ndim, sh);
  int64_t s2[2] = {-1, 1};
  pd_meta_set(&m[1], a->x->dtype, 2, s2);
  return PD_OK;
}

pd_status pd_infer_segment_pool_grad(const void *args, pd_meta_list *out) {
  const pd_segment_pool_grad_args *a = (const pd_segment_pool_grad_args *)args;
  int k;
  PD_TRY(pool_kind("segment_pool_grad", a->pooltype, &k));
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}

pd_status pd_infer_graph_send_recv(const void *args, pd_meta_list *out) {
  const pd_graph_send_recv_args *a = (const pd_graph_send_recv_args *)args;
  int k;
  PD_TRY(pool_kind("graph_send_recv", a->pool_type, &k));
  PD_TRY(need_index("graph_send_recv", "src_index", a->src_index));
  PD_TRY(need_index("graph_send_recv", "dst_index", a->dst_index));
  PD_TRY(need_1d("graph_send_recv", "src_index", a->src_index));
  PD_TRY(need_1d("graph_send_recv", "dst_index", a->dst_index));
  if (a->src_index->dtype != a->dst_index->dtype)
    return pd_set_error(PD_ERR_TYPE, "[graph_send_recv] expected src_index and dst_index of one "
                        "dtype, received %s and %s", pd_dtype_name(a->src_index->dtype),
                        pd_dtype_name(a->dst_index->dtype));
  if (a->src_index->shape[0] >= 0 && a->dst_index->shape[0] >= 0 &&
      len_1d(a->src_index) != len_1d(a->dst_index))
    return BAD("[graph_send_recv] expected src_index and dst_index of the same length, received "
               "%lld and %lld", (long long)len_1d(a->src_index), (long long)len_1d(a->dst_index));
  if (a->x->ndim < 1) return BAD("[graph_send_recv] expected x with at least 1 dimension");
  pd_meta *m = pd_meta_list_resize(out, 2);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  int64_t sh[PD_MAX_DIMS];
  memcpy(sh, a->x->shape, sizeof(int64_t) * (size_t)a->x->ndim);
  if (a->out_size > 0) sh[0] = a->out_size;
  pd_meta_set(&m[0], a->x->dtype, a->x->ndim, sh);
  pd_meta_set(&m[1], PD_INT32, 1, sh);
  return PD_OK;
}

pd_status pd_infer_graph_send_recv_grad(const void *args, pd_meta_list *out) {
  const pd_graph_send_recv_grad_args *a = (const pd_graph_send_recv_grad_args *)args;
  int k;
  PD_TRY(pool_kind("graph_send_recv_grad", a->pool_type, &k));
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}

pd_status pd_infer_fused_softmax_mask(const void *args, pd_meta_list *out) {
  const pd_fused_softmax_mask_args *a = (const pd_fused_softmax_mask_args *)args;
  const pd_tensor *x = a->x, *mk = a->mask;
  if (x->ndim != 4) return BAD("[softmax_mask_fuse] expected x to be 4-D, received %d-D", x->ndim);
  if (mk->ndim != 4 || mk->shape[1] != 1 || mk->shape[0] != x->shape[0] ||
      mk->shape[2] != x->shape[2] || mk->shape[3] != x->shape[3])
    return BAD("[softmax_mask_fuse] expected mask of shape [%lld, 1, %lld, %lld], received a %d-D "
               "tensor with dims [%lld, %lld, ...]", (long long)x->shape[0], (long long)x->shape[2],
               (long long)x->shape[3], mk->ndim, (long long)(mk->ndim > 0 ? mk->shape[0] : 0),
               (long long)(mk->ndim > 1 ? mk->shape[1] : 0));
  if (mk->dtype != x->dtype)
    return pd_set_error(PD_ERR_TYPE, "[softmax_mask_fuse] expected mask of x's dtype %s, received %s",
                        pd_dtype_name(x->dtype), pd_dtype_name(mk->dtype));
  pd_meta_like(pd_meta_list_resize(out, 1), x);
  return PD_OK;
}

pd_status pd_infer_fused_softmax_mask_upper_triangle(const void *args, pd_meta_list *out) {
  const pd_fused_softmax_mask_upper_triangle_args *a =
      (const pd_fused_softmax_mask_upper_triangle_args *)args;
  if (a->x->ndim != 4)
    return BAD("[softmax_mask_fuse_upper_triangle] expected x to be 4-D, received %d-D", a->x->ndim);
  if (a->x->shape[2] != a->x->shape[3])
    return BAD("[softmax_mask_fuse_upper_triangle] expected x's last two dims equal, received %lld "
               "and %lld", (long long)a->x->shape[2], (long long)a->x->shape[3]);
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}

pd_status pd_infer_graph_sample_neighbors(const void *args, pd_meta_list *out) {
  const pd_graph_sample_neighbors_args *a = (const pd_graph_sample_neighbors_args *)args;
  const char *op = "graph_sample_neighbors";
  PD_TRY(need_index(op, "row", a->row));
  PD_TRY(need_1d(op, "row", a->row));
  PD_TRY(need_1d(op, "colptr", a->colptr));
  PD_TRY(need_1d(op, "input_nodes", a->input_nodes));
  if (a->colptr->dtype != a->row->dtype || a->input_nodes->dtype != a->row->dtype)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected row, colptr and input_nodes of one dtype, "
                        "received %s, %s and %s", op, pd_dtype_name(a->row->dtype),
                        pd_dtype_name(a->colptr->dtype), pd_dtype_name(a->input_nodes->dtype));
  if (a->return_eids) {
    if (!a->eids) return BAD("[%s] return_eids is true but eids is None", op);
    PD_TRY(need_index(op, "eids", a->eids));
    if (a->eids->numel != a->row->numel)
      return BAD("[%s] expected eids of row's length %lld, received %lld", op,
                 (long long)a->row->numel, (long long)a->eids->numel);
  }
  if (a->sample_size < -1 || a->sample_size == 0)
    return BAD("[%s] expected sample_size -1 or > 0, received %lld", op, (long long)a->sample_size);
  pd_meta *m = pd_meta_list_resize(out, 3);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  int64_t n = -1, c = len_1d(a->input_nodes);
  pd_meta_set(&m[0], a->row->dtype, 1, &n);
  pd_meta_set(&m[1], PD_INT32, 1, &c);
  pd_meta_set(&m[2], a->eids ? a->eids->dtype : a->row->dtype, 1, &n);
  return PD_OK;
}

pd_status pd_infer_graph_reindex(const void *args, pd_meta_list *out) {
  const pd_graph_reindex_args *a = (const pd_graph_reindex_args *)args;
  const char *op = "graph_reindex";
  PD_TRY(need_index(op, "x", a->x));
  PD_TRY(need_index(op, "count", a->count));
  PD_TRY(need_1d(op, "x", a->x));
  PD_TRY(need_1d(op, "neighbors", a->neighbors));
  PD_TRY(need_1d(op, "count", a->count));
  if (a->neighbors->dtype != a->x->dtype)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected neighbors of x's dtype %s, received %s", op,
                        pd_dtype_name(a->x->dtype), pd_dtype_name(a->neighbors->dtype));
  if (a->count->shape[0] >= 0 && a->x->shape[0] >= 0 && len_1d(a->count) != len_1d(a->x))
    return BAD("[%s] expected count of x's length %lld, received %lld", op,
               (long long)len_1d(a->x), (long long)len_1d(a->count));
  pd_meta *m = pd_meta_list_resize(out, 3);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  int64_t ne = len_1d(a->neighbors), n = -1;
  pd_meta_set(&m[0], a->x->dtype, 1, &ne);
  pd_meta_set(&m[1], a->x->dtype, 1, &ne);
  pd_meta_set(&m[2], a->x->dtype, 1, &n);
  return PD_OK;
}

/* ---- viterbi_decode (ops/text.yaml) ---- */
pd_status pd_infer_viterbi_decode(const void *args, pd_meta_list *out) {
  const pd_viterbi_decode_args *a = (const pd_viterbi_decode_args *)args;
  const char *op = "viterbi_decode";
  const pd_tensor *p = a->potentials, *t = a->transition_params, *l = a->lengths;
  if (p->ndim != 3)
    return BAD("[%s] expected potentials of shape [batch, seq_len, num_tags], received %d-D", op,
               p->ndim);
  if (t->ndim != 2 || t->shape[0] != p->shape[2] || t->shape[1] != p->shape[2])
    return BAD("[%s] expected transition_params of shape [%lld, %lld], received a %d-D tensor", op,
               (long long)p->shape[2], (long long)p->shape[2], t->ndim);
  if (t->dtype != p->dtype)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected transition_params of potentials' dtype %s, "
                        "received %s", op, pd_dtype_name(p->dtype), pd_dtype_name(t->dtype));
  PD_TRY(need_index(op, "lengths", l));
  if (l->ndim != 1 || (p->shape[0] >= 0 && l->shape[0] != p->shape[0]))
    return BAD("[%s] expected lengths of shape [%lld], received a %d-D tensor", op,
               (long long)p->shape[0], l->ndim);
  if (a->include_bos_eos_tag && p->shape[2] >= 0 && p->shape[2] < 2)
    return BAD("[%s] include_bos_eos_tag needs at least 2 tags, received %lld", op,
               (long long)p->shape[2]);
  pd_meta *m = pd_meta_list_resize(out, 2);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  int64_t b = p->shape[0], sh[2] = {p->shape[0], -1};
  pd_meta_set(&m[0], p->dtype, 1, &b);
  pd_meta_set(&m[1], PD_INT64, 2, sh);
  return PD_OK;
}
