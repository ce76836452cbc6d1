/* Graph sampling kernels of paddle.incubate (ops/incubate.yaml): graph_sample_neighbors over a
 * CSC graph (row, colptr) and graph_reindex (Paddle's layout: out_nodes = x, then each new
 * neighbour in order of first appearance). Sampling without replacement is a partial
 * Fisher-Yates shuffle driven by the Philox generator (counter per input node), so results
 * depend only on (seed, op order). Every index is range-checked first. */
#include <stdlib.h>
#include "pd_kernel_util.h"
#include "../../core/pd_random.h"
#include "incubate_util.h"


static pd_status idx_store(pd_dtype dt, const int64_t *v, int64_t n, pd_tensor **out) {
  PD_TRY(pd_tensor_empty(dt, 1, &n, out));
  if (dt == PD_INT32) {
    int32_t *p = (int32_t *)pd_tensor_data(*out);
    for (int64_t i = 0; i < n; i++) p[i] = (int32_t)v[i];
  } else {
    if (n > 0) memcpy(pd_tensor_data(*out), v, sizeof(int64_t) * (size_t)n);
  }
  return PD_OK;
}

static pd_status sample_impl(const pd_graph_sample_neighbors_args *a, pd_tensor **out) {
  const char *op = "graph_sample_neighbors";
  int64_t *row = NULL, *col = NULL, *nodes = NULL, *eids = NULL, *res = NULL, *reid = NULL;
  int64_t *perm = NULL;
  int64_t nrow = a->row->numel, ncol = a->colptr->numel, nn = a->input_nodes->numel;
  int64_t k = a->sample_size;
  pd_status s = pd_incubate_load_idx(a->row, &row);
  if (s == PD_OK) s = pd_incubate_load_idx(a->colptr, &col);
  if (s == PD_OK) s = pd_incubate_load_idx(a->input_nodes, &nodes);
  if (s == PD_OK && a->return_eids) s = pd_incubate_load_idx(a->eids, &eids);
  if (s == PD_OK && ncol < 1) s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] colptr is empty", op);
  for (int64_t i = 0; s == PD_OK && i + 1 < ncol; i++)
    if (col[i] < 0 || col[i + 1] < col[i] || col[i + 1] > nrow)
      s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] colptr must be non-decreasing within [0, "
                       "%lld], received colptr[%lld] = %lld, colptr[%lld] = %lld", op,
                       (long long)nrow, (long long)i, (long long)col[i], (long long)(i + 1),
                       (long long)col[i + 1]);
  int64_t total = 0, maxdeg = 0;
  for (int64_t i = 0; s == PD_OK && i < nn; i++) {
    if (nodes[i] < 0 || nodes[i] >= ncol - 1) {
      s = pd_set_error(PD_ERR_OUT_OF_RANGE, "[%s] input_nodes[%lld] = %lld out of [0, %lld)", op,
                       (long long)i, (long long)nodes[i], (long long)(ncol - 1));
      break;
    }
    int64_t deg = col[nodes[i] + 1] - col[nodes[i]];
    total += (k < 0 || deg <= k) ? deg : k;
    maxdeg = deg > maxdeg ? deg : maxdeg;
  }
  if (s == PD_OK) {
    res = (int64_t *)malloc(sizeof(int64_t) * (size_t)(total > 0 ? total : 1));
    reid = (int64_t *)malloc(sizeof(int64_t) * (size_t)(total > 0 ? total : 1));
    perm = (int64_t *)malloc(sizeof(int64_t) * (size_t)(maxdeg > 0 ? maxdeg : 1));
    if (!res || !reid || !perm) s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  if (s == PD_OK) s = pd_tensor_empty(PD_INT32, 1, &nn, &out[1]);
  if (s == PD_OK) {
    uint64_t key, first;
    pd_random_reserve_seeded(a->seed, &key, &first);
    int32_t *cnt = (int32_t *)pd_tensor_data(out[1]);
    int64_t pos = 0;
    for (int64_t i = 0; i < nn; i++) {
      int64_t b = col[nodes[i]], deg = col[nodes[i] + 1] - b;
      if (k < 0 || deg <= k) {
        for (int64_t j = 0; j < deg; j++) {
          res[pos] = row[b + j];
          if (eids) reid[pos] = eids[b + j];
          pos++;
        }
        cnt[i] = (int32_t)deg;
        continue;
      }
      for (int64_t j = 0; j < deg; j++) perm[j] = j;
      for (int64_t j = 0; j < k; j++) { /* partial Fisher-Yates */
        uint32_t w[4];
        pd_philox(key + (uint64_t)j * 0xD1B54A32D192ED03ULL, first + (uint64_t)i, w);
        uint64_t r = (((uint64_t)w[0] << 32) | w[1]) % (uint64_t)(deg - j);
        int64_t t = perm[j];
        perm[j] = perm[j + (int64_t)r];
        perm[j + (int64_t)r] = t;
        res[pos] = row[b + perm[j]];
        if (eids) reid[pos] = eids[b + perm[j]];
        pos++;
      }
      cnt[i] = (int32_t)k;
    }
    s = idx_store(a->row->dtype, res, total, &out[0]);
    if (s == PD_OK) s = idx_store(eids ? a->eids->dtype : a->row->dtype, reid, eids ? total : 0, &out[2]);
  }
  free(row);
  free(col);
  free(nodes);
  free(eids);
  free(res);
  free(reid);
  free(perm);
  return s;
}

pd_status pd_kernel_graph_sample_neighbors_i32(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  return sample_impl((const pd_graph_sample_neighbors_args *)args, out);
}
pd_status pd_kernel_graph_sample_neighbors_i64(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  return sample_impl((const pd_graph_sample_neighbors_args *)args, out);
}

/* open-addressing map int64 -> int64 */
typedef struct {
  int64_t *keys, *vals;
  uint64_t cap;
} imap;

static int imap_init(imap *m, int64_t n) {
  uint64_t cap = 16;
  while (cap < (uint64_t)n * 2 + 1) cap <<= 1;
  m->cap = cap;
  m->keys = (int64_t *)malloc(sizeof(int64_t) * cap);
  m->vals = (int64_t *)malloc(sizeof(int64_t) * cap);
  if (!m->keys || !m->vals) return 0;
  for (uint64_t i = 0; i < cap; i++) m->vals[i] = -1;
  return 1;
}
/* the value of key, inserting nv when absent (*inserted = 1) */
static int64_t imap_get(imap *m, int64_t key, int64_t nv, int *inserted) {
  uint64_t h = pd_mix64((uint64_t)key) & (m->cap - 1);
  while (m->vals[h] >= 0) {
    if (m->keys[h] == key) {
      *inserted = 0;
      return m->vals[h];
    }
    h = (h + 1) & (m->cap - 1);
  }
  m->keys[h] = key;
  m->vals[h] = nv;
  *inserted = 1;
  return nv;
}

static pd_status reindex_impl(const pd_graph_reindex_args *a, pd_tensor **out) {
  const char *op = "graph_reindex";
  int64_t *x = NULL, *nb = NULL, *cnt = NULL, *nodes = NULL, *src = NULL, *dst = NULL;
  int64_t nx = a->x->numel, nnb = a->neighbors->numel;
  imap m = {NULL, NULL, 0};
  pd_status s = pd_incubate_load_idx(a->x, &x);
  if (s == PD_OK) s = pd_incubate_load_idx(a->neighbors, &nb);
  if (s == PD_OK) s = pd_incubate_load_idx(a->count, &cnt);
  int64_t tot = 0;
  for (int64_t i = 0; s == PD_OK && i < nx; i++) {
    if (cnt[i] < 0)
      s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] count[%lld] = %lld is negative", op,
                       (long long)i, (long long)cnt[i]);
    tot += cnt[i];
  }
  if (s == PD_OK && tot != nnb)
    s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected sum(count) = len(neighbors) = %lld, "
                     "received %lld", op, (long long)nnb, (long long)tot);
  if (s == PD_OK) {
    nodes = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nx + nnb + 1));
    src = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nnb + 1));
    dst = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nnb + 1));
    if (!nodes || !src || !dst || !imap_init(&m, nx + nnb))
      s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  if (s == PD_OK) {
    int64_t nn = 0;
    int ins;
    int64_t *xpos = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nx + 1));
    if (!xpos) s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    for (int64_t i = 0; s == PD_OK && i < nx; i++) {
      xpos[i] = imap_get(&m, x[i], nn, &ins);
      if (ins) nodes[nn++] = x[i];
    }
    int64_t p = 0;
    for (int64_t i = 0; s == PD_OK && i < nx; i++)
      for (int64_t j = 0; j < cnt[i]; j++, p++) {
        src[p] = imap_get(&m, nb[p], nn, &ins);
        if (ins) nodes[nn++] = nb[p];
        dst[p] = xpos[i];
      }
    free(xpos);
    pd_dtype dt = a->x->dtype;
    if (s == PD_OK) s = idx_store(dt, src, nnb, &out[0]);
    if (s == PD_OK) s = idx_store(dt, dst, nnb, &out[1]);
    if (s == PD_OK) s = idx_store(dt, nodes, nn, &out[2]);
  }
  free(m.keys);
  free(m.vals);
  free(x);
  free(nb);
  free(cnt);
  free(nodes);
  free(src);
  free(dst);
  return s;
}

pd_status pd_kernel_graph_reindex_i32(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  return reindex_impl((const pd_graph_reindex_args *)args, out);
}
pd_status pd_kernel_graph_reindex_i64(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  return reindex_impl((const pd_graph_reindex_args *)args, out);
}
