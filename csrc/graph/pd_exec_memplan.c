/* The executor's memory plan: one workspace, an offset per temporary. The first run with a given
 * feed signature (the feeds' dtypes and shapes) records how many bytes each top-level instruction
 * output takes and which outputs share storage with an input (views); the next run with the same
 * signature lays every plannable temporary into one workspace by liveness (first fit over
 * [producer, last reader] intervals, a view's readers extending its source's interval) and from
 * then on kernels write into those buffers: a run allocates only what it hands out (fetched
 * values are never planned: the caller owns them); a planned tensor is reused only when nobody
 * outside the plan holds it (refcounts); a shape that differs from the profile just allocates as
 * usual. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "pd_exec_internal.h"
#include "../ops/generated/pd_ops_gen.h"
#include "../core/pd_alloc.h"

typedef struct {
  atomic_long ref;
  void *mem;
} workspace;

struct pd_memplan {
  int state;                 /* 0 idle, 1 profiling this run, 2 profiled, 3 planned */
  int n_sig;
  int64_t *sig;              /* feed signature: per feed dtype, ndim, dims */
  int n_instr;
  int64_t *bytes;            /* per (instr, out) in list 0, flattened by out_off: -1 not plannable */
  pd_meta *meta;             /* per (instr, out): dtype and shape the profile run produced */
  int *out_off;              /* per instr: index of its first out in bytes/pre */
  int *alias;                /* union-find over slots: outputs sharing storage with an input */
  pd_tensor **pre;           /* per (instr, out): the planned tensor (plan holds one reference) */
  workspace *ws;
  int64_t ws_bytes;
  int64_t ws_max; /* the largest workspace this plan built so far */
};

static void ws_release(void *ctx, void *data) {
  (void)data;
  workspace *w = (workspace *)ctx;
  if (atomic_fetch_sub_explicit(&w->ref, 1, memory_order_acq_rel) == 1) {
    free(w->mem);
    free(w);
  }
}

static void drop_layout(pd_memplan *m) {
  if (m->pre) {
    int total = m->n_instr ? m->out_off[m->n_instr] : 0;
    for (int k = 0; k < total; k++) pd_tensor_release(m->pre[k]);
    free(m->pre);
    m->pre = NULL;
  }
  if (m->ws) ws_release(m->ws, NULL);
  m->ws = NULL;
  m->ws_bytes = 0;
}

void pd_memplan_free(pd_plan *p) {
  pd_memplan *m = p->mem;
  if (!m) return;
  drop_layout(m);
  free(m->sig);
  free(m->bytes);
  free(m->meta);
  free(m->out_off);
  free(m->alias);
  free(m);
  p->mem = NULL;
}

static int find(int *par, int x) {
  while (par[x] != x) {
    par[x] = par[par[x]];
    x = par[x];
  }
  return x;
}

static void unite(int *par, int a, int b) {
  if (a < 0 || b < 0) return;
  a = find(par, a);
  b = find(par, b);
  if (a != b) par[a < b ? b : a] = a < b ? a : b;
}

static int64_t *signature(int n_feed, const pd_feed *feeds, int *n) {
  int k = 0;
  for (int i = 0; i < n_feed; i++) k += 2 + (feeds[i].t ? feeds[i].t->ndim : 0);
  int64_t *s = (int64_t *)malloc(sizeof(int64_t) * (size_t)(k ? k : 1));
  if (!s) return NULL;
  int j = 0;
  for (int i = 0; i < n_feed; i++) {
    const pd_tensor *t = feeds[i].t;
    s[j++] = t ? (int64_t)t->dtype : -1;
    s[j++] = t ? t->ndim : -1;
    for (int d = 0; t && d < t->ndim; d++) s[j++] = t->shape[d];
  }
  *n = k;
  return s;
}

/* called before a run: picks profiling or planned mode for this feed signature */
pd_status pd_memplan_begin(pd_plan *p, int n_feed, const pd_feed *feeds) {
  const char *env = getenv("PADDLE_C_MEMPLAN");
  if ((env && strcmp(env, "0") == 0) || p->no_memplan) return PD_OK;
  pd_memplan *m = p->mem;
  if (!m) {
    m = p->mem = (pd_memplan *)calloc(1, sizeof *m);
    if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  int n;
  int64_t *sig = signature(n_feed, feeds, &n);
  if (!sig) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  int same = m->sig && n == m->n_sig && memcmp(sig, m->sig, sizeof(int64_t) * (size_t)n) == 0;
  if (same && m->state >= 2) {
    free(sig);
    return m->state == 2 ? pd_memplan_build(p) : PD_OK;
  }
  drop_layout(m);
  free(m->sig);
  m->sig = sig;
  m->n_sig = n;
  pd_instr_list *l = &p->lists[0];
  free(m->out_off);
  free(m->bytes);
  free(m->meta);
  free(m->alias);
  m->meta = NULL;
  m->n_instr = l->n;
  m->out_off = (int *)malloc(sizeof(int) * (size_t)(l->n + 1));
  m->alias = (int *)malloc(sizeof(int) * (size_t)(p->n_slots ? p->n_slots : 1));
  if (!m->out_off || !m->alias) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  int off = 0;
  for (int i = 0; i < l->n; i++) {
    m->out_off[i] = off;
    off += l->v[i].n_out;
  }
  m->out_off[l->n] = off;
  m->bytes = (int64_t *)malloc(sizeof(int64_t) * (size_t)(off ? off : 1));
  m->meta = (pd_meta *)malloc(sizeof(pd_meta) * (size_t)(off ? off : 1));
  if (!m->bytes || !m->meta) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int k = 0; k < off; k++) m->bytes[k] = -1;
  for (int s = 0; s < p->n_slots; s++) m->alias[s] = s;
  m->state = 1;
  return PD_OK;
}

/* the slot a fused_conv2d reads as its residual, or -1: none, or it reads that value as another input
 * too (writing over the residual would overwrite what it reads). alias: the plan's union-find over
 * slots (outputs sharing an input's storage), or NULL where slots share nothing */
static int residual_slot(const pd_instr *in, int *alias) {
  int rs = -1;
  for (int b = 0; b < in->n_bind; b++)
    if (in->bind[b].offset == offsetof(pd_fused_conv2d_args, residual_data) && !in->bind[b].lod_of && in->bind[b].n == 1)
      rs = in->bind[b].slots[0];
  for (int b = 0; rs >= 0 && b < in->n_bind; b++)
    if (in->bind[b].offset != offsetof(pd_fused_conv2d_args, residual_data))
      for (int k = 0; k < in->bind[b].n; k++) {
        const int sl = in->bind[b].slots[k];
        if (sl >= 0 && (alias ? find(alias, sl) == find(alias, rs) : sl == rs)) return -1;
      }
  return rs;
}

pd_tensor *const *pd_memplan_pre(pd_plan *p, int list, int instr) {
  pd_memplan *m = p->mem;
  if (!m || m->state != 3 || list != 0 || instr >= m->n_instr) return NULL;
  pd_tensor **pre = m->pre + m->out_off[instr];
  /* a planned tensor someone else still holds is not handed out again */
  for (int k = 0; k < m->out_off[instr + 1] - m->out_off[instr]; k++) {
    pd_tensor *t = pre[k];
    if (t && (atomic_load(&t->refcount) != 1 || atomic_load(&t->storage->refcount) != 1)) return NULL;
  }
  return pre;
}

/* The plan's in-place residual (below, pd_memplan_build) for an executor without a plan (Paddle's
 * default Config: EnableMemoryOptim off): the output takes the residual's tensor where it is free to,
 * instead of a fresh buffer the kernel copies the residual into (ResNet-50 b1, 2 threads: 16 such
 * copies of 0.4-3.2 MB per run, ~3% of its time) */
pd_tensor *pd_exec_residual_inplace(const pd_plan *p, const pd_instr *in) {
  if (!p->no_memplan || p->dev >= 0 || in->special || in->op != PD_OP_FUSED_CONV2D || in->n_out < 1 || in->out[0] < 0)
    return NULL;
  const char *e = getenv("PADDLE_C_INPLACE_RESIDUAL");
  if (e && !strcmp(e, "0")) return NULL;
  const int rs = residual_slot(in, NULL);
  if (rs < 0 || rs == in->out[0] || p->slot_persist[rs]) return NULL;
  int dies = 0;
  for (int k = 0; k < in->n_release; k++) dies |= in->release[k] == rs;
  if (!dies) return NULL;
  const pd_value *v = p->bound[rs];
  pd_tensor *t = v && v->kind == PD_VAL_TENSOR && !v->lod.n ? v->t : NULL;
  if (!t || !t->storage || t->storage->deleter || atomic_load(&t->refcount) != 1 ||
      atomic_load(&t->storage->refcount) != 1)
    return NULL;
  return t;
}

/* profiling: what instruction `instr` of list 0 produced (ins: its input tensors) */
void pd_memplan_record(pd_plan *p, int list, int instr, const pd_instr *in, pd_tensor **outs, int n) {
  pd_memplan *m = p->mem;
  if (!m || m->state != 1 || list != 0 || instr >= m->n_instr) return;
  for (int k = 0; k < n && k < in->n_out; k++) {
    pd_tensor *t = outs[k];
    int slot = in->out[k];
    int shared = 0;
    for (int b = 0; b < in->n_bind; b++)
      for (int j = 0; j < in->bind[b].n; j++) {
        int s2 = in->bind[b].slots[j];
        pd_tensor *x = s2 >= 0 ? p->bound[s2]->t : NULL;
        if (x && t && x->storage == t->storage) {
          shared = 1;
          unite(m->alias, slot, s2);
        }
      }
    if (shared || !t || !t->storage || t->storage->deleter || t->offset || !pd_tensor_is_contiguous(t)) continue;
    m->bytes[m->out_off[instr] + k] = (int64_t)t->storage->nbytes;
    pd_meta_like(&m->meta[m->out_off[instr] + k], t);
  }
}

void pd_memplan_end(pd_plan *p, pd_status s) {
  pd_memplan *m = p->mem;
  if (m && m->state == 1) m->state = s == PD_OK ? 2 : 0;
}

typedef struct {
  int64_t start, end, size, off;
  int idx;  /* into bytes/pre */
  int slot; /* the slot it holds */
  int root; /* -1, or the item (index before sorting) whose buffer it shares in place */
} item;

static int by_size(const void *a, const void *b) {
  const item *x = (const item *)a, *y = (const item *)b;
  if (x->size != y->size) return x->size < y->size ? 1 : -1;
  return x->start < y->start ? -1 : x->start > y->start;
}

static void noop_mark(const pd_plan *p, int list, unsigned char *bad) {
  const pd_instr_list *l = &p->lists[list];
  for (int i = 0; i < l->n; i++) {
    const pd_instr *in = &l->v[i];
    for (int b = 0; b < in->n_bind; b++)
      for (int k = 0; k < in->bind[b].n; k++)
        if (in->bind[b].slots[k] >= 0) bad[in->bind[b].slots[k]] = 1;
    for (int k = 0; k < in->n_out; k++)
      if (in->out[k] >= 0) bad[in->out[k]] = 1;
    for (int k = 0; k < in->n_ins; k++)
      if (in->ins[k] >= 0) bad[in->ins[k]] = 1;
    for (int s = 0; s < 2; s++)
      if (in->sub[s] >= 0) noop_mark(p, in->sub[s], bad);
    for (int s = 0; s < in->n_subs; s++) noop_mark(p, in->subs[s], bad);
  }
}

pd_status pd_memplan_build(pd_plan *p) {
  pd_memplan *m = p->mem;
  pd_instr_list *l = &p->lists[0];
  int total = m->out_off[m->n_instr];
  int ns = p->n_slots ? p->n_slots : 1;
  int64_t *def = (int64_t *)malloc(sizeof(int64_t) * (size_t)ns);
  int64_t *last = (int64_t *)malloc(sizeof(int64_t) * (size_t)ns);
  int *writes = (int *)calloc((size_t)ns, sizeof(int));
  unsigned char *bad = (unsigned char *)calloc((size_t)ns, 1);
  item *it = (item *)malloc(sizeof(item) * (size_t)(total ? total : 1));
  m->pre = (pd_tensor **)calloc((size_t)(total ? total : 1), sizeof(pd_tensor *));
  pd_status st = PD_OK;
  if (!def || !last || !writes || !bad || !it || !m->pre) {
    st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory planning memory");
    goto done;
  }
  for (int s = 0; s < p->n_slots; s++) {
    def[s] = INT64_MAX;
    last[s] = -1;
    if (p->slot_persist[s] || p->slot_const[s]) bad[s] = 1;
  }
  for (int i = 0; i < p->n_feed; i++)
    if (p->feed_slots[i] >= 0) bad[p->feed_slots[i]] = 1;
  for (int i = 0; i < l->n; i++) {
    const pd_instr *in = &l->v[i];
    if (in->special) { /* values that go through specials (control flow, shares) stay unplanned */
      for (int k = 0; k < in->n_out; k++)
        if (in->out[k] >= 0) bad[in->out[k]] = 1;
      for (int k = 0; k < in->n_ins; k++)
        if (in->ins[k] >= 0) bad[in->ins[k]] = 1;
      for (int s = 0; s < 2; s++)
        if (in->sub[s] >= 0) noop_mark(p, in->sub[s], bad);
      for (int s = 0; s < in->n_subs; s++) noop_mark(p, in->subs[s], bad);
    }
    for (int b = 0; b < in->n_bind; b++)
      for (int k = 0; k < in->bind[b].n; k++)
        if (in->bind[b].slots[k] >= 0) last[in->bind[b].slots[k]] = i;
    for (int k = 0; k < in->n_out; k++) {
      int s = in->out[k];
      if (s < 0) continue;
      writes[s]++;
      if (def[s] > i) def[s] = i;
      if (last[s] < i) last[s] = i;
    }
  }
  /* fetched values (and every value sharing their storage) stay out of the workspace: the caller
   * owns them after the run, so each gets its own allocation (the caching allocator serves it).
   * A planned fetch would be a view of the workspace that the plan still holds, and whoever takes
   * it must copy it: the gradients a to_static layer's backward program fetches were copied into
   * .grad once more (~9% of the seed MLP's step), the forward's saved activations into the
   * backward's feeds likewise. */
  for (int i = 0; i < p->n_fetch; i++)
    if (p->fetch_slots[i] >= 0) bad[p->fetch_slots[i]] = 1;
  /* alias groups: the group's interval covers every member; a bad member spoils the group */
  for (int s = 0; s < p->n_slots; s++) {
    int r = find(m->alias, s);
    if (r == s) continue;
    if (def[s] < def[r]) def[r] = def[s];
    if (last[s] > last[r]) last[r] = last[s];
    if (bad[s]) bad[r] = 1;
  }
  int n = 0;
  for (int i = 0; i < l->n; i++) {
    const pd_instr *in = &l->v[i];
    for (int k = 0; k < in->n_out; k++) {
      int idx = m->out_off[i] + k, s = in->out[k];
      if (s < 0 || m->bytes[idx] < 0 || writes[s] != 1 || bad[s]) continue;
      int r = find(m->alias, s);
      if (bad[r] || r != s) continue;
      it[n].start = def[r];
      it[n].end = last[r];
      it[n].size = (m->bytes[idx] + 63) & ~(int64_t)63;
      it[n].idx = idx;
      it[n].slot = s;
      it[n].root = -1;
      n++;
    }
  }
  /* In place: a fused_conv2d whose residual input it reads last writes its output into the
   * residual's own buffer (same size; the kernel's sum post-op then adds it where it lies, with no
   * copy). The output joins the residual's item (chains of residual blocks share one buffer). */
  int n_all = n;
  {
    int *item_of = (int *)malloc(sizeof(int) * (size_t)ns);
    if (!item_of) {
      st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory planning memory");
      goto done;
    }
    for (int s = 0; s < ns; s++) item_of[s] = -1;
    for (int a = 0; a < n; a++) item_of[it[a].slot] = a;
    for (int i = 0; i < l->n; i++) {
      const pd_instr *in = &l->v[i];
      if (in->special || in->op != PD_OP_FUSED_CONV2D || in->n_out < 1 || in->out[0] < 0) continue;
      const int rs = residual_slot(in, m->alias);
      if (rs < 0 || item_of[rs] < 0 || item_of[in->out[0]] < 0) continue;
      /* a residual that is plain when it runs (its slot may not hold a blocked value, or its
       * producer never writes one) into an output that may be blocked: sharing the buffer would
       * make the kernel re-block the residual in place through a scratch copy on every run; apart,
       * it reorders the residual straight into the output */
      if (p->layout_on && p->slot_blk && p->slot_blk[in->out[0]] &&
          (!p->slot_blk[rs] || !pd_plan_layout_writes_blocked(p, def[rs] < INT64_MAX ? (int)def[rs] : -1)))
        continue;
      int ra = item_of[rs], oa = item_of[in->out[0]];
      while (it[ra].root >= 0) ra = it[ra].root;
      if (ra == oa || it[oa].root >= 0 || it[ra].size != it[oa].size || it[ra].end != i || it[oa].start != i) continue;
      it[oa].root = ra;
      it[ra].end = it[oa].end;
    }
    free(item_of);
    /* merged items leave the placement list (kept after it); root becomes the root's bytes index */
    int *ridx = (int *)malloc(sizeof(int) * (size_t)(n ? n : 1));
    item *tail = (item *)malloc(sizeof(item) * (size_t)(n ? n : 1));
    if (!ridx || !tail) {
      free(ridx);
      free(tail);
      st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory planning memory");
      goto done;
    }
    for (int a = 0; a < n; a++) {
      int r = a;
      while (it[r].root >= 0) r = it[r].root;
      ridx[a] = r == a ? -1 : it[r].idx;
    }
    int keep = 0, nt = 0;
    for (int a = 0; a < n; a++) {
      item t = it[a];
      t.root = ridx[a];
      if (t.root >= 0) tail[nt++] = t;
      else it[keep++] = t;
    }
    n = keep;
    for (int a = 0; a < nt; a++) it[n + a] = tail[a];
    free(tail);
    free(ridx);
  }
  qsort(it, (size_t)n, sizeof(item), by_size);
  int64_t top = 0;
  for (int a = 0; a < n; a++) {
    /* lowest offset not overlapping any placed item live at the same time */
    int64_t off = 0;
    for (int moved = 1; moved;) {
      moved = 0;
      for (int b = 0; b < a; b++) {
        if (it[b].end < it[a].start || it[a].end < it[b].start) continue;
        if (off < it[b].off + it[b].size && it[b].off < off + it[a].size) {
          off = it[b].off + it[b].size;
          moved = 1;
        }
      }
    }
    it[a].off = off;
    if (off + it[a].size > top) top = off + it[a].size;
  }
  for (int a = n; a < n_all; a++) /* in-place outputs: their residual's offset */
    for (int b = 0; b < n; b++)
      if (it[b].idx == it[a].root) it[a].off = it[b].off;
  n = n_all;
  if (n) {
    /* The profiling run's temporaries sit in the caching allocator now, freed but resident; the
     * workspace takes their place from here on, so hand them back to the OS first (else the
     * process's peak RSS is both: ppocrv3_det at batch 16 719 -> 593 MB). Only for a workspace of
     * some size that is the largest this plan has built (the peak grows only then; inputs of
     * changing shapes do not empty the cache on every build). */
    if (top >= ((int64_t)4 << 20) && top > m->ws_max) pd_alloc_empty_cache();
    if (top > m->ws_max) m->ws_max = top;
    workspace *w = (workspace *)calloc(1, sizeof *w);
    void *mem = NULL;
    /* huge pages, as the allocator's large blocks: every activation of a run lives here (with 4 KiB
     * pages batch 16 of ppocrv3_det / ppyolo_tiny measured 1-3% slower, and they fault in slower) */
    const size_t al = top >= ((int64_t)4 << 20) ? (size_t)2 << 20 : 64;
    const size_t wsz = ((size_t)top + al - 1) & ~(al - 1);
    if (!w || posix_memalign(&mem, al, wsz) != 0) {
      free(w);
      st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory: workspace of %lld bytes", (long long)top);
      goto done;
    }
#ifdef MADV_HUGEPAGE
    if (al > 64) madvise(mem, wsz, MADV_HUGEPAGE);
#endif
    atomic_init(&w->ref, 1);
    w->mem = mem;
    m->ws = w;
    m->ws_bytes = top;
    for (int a = 0; a < n && st == PD_OK; a++) {
      int idx = it[a].idx;
      const pd_meta *mt = &m->meta[idx];
      pd_storage *sto;
      atomic_fetch_add_explicit(&w->ref, 1, memory_order_relaxed);
      st = pd_storage_wrap((char *)mem + it[a].off, (size_t)m->bytes[idx], ws_release, w, &sto);
      if (st != PD_OK) {
        ws_release(w, NULL);
        break;
      }
      pd_tensor *t;
      int64_t strides[PD_MAX_DIMS];
      pd_contiguous_strides(mt->ndim, mt->shape, strides);
      st = pd_tensor_from_storage(sto, mt->dtype, mt->ndim, mt->shape, strides, 0, &t);
      pd_storage_release(sto);
      if (st == PD_OK) m->pre[idx] = t;
    }
  }
  m->state = st == PD_OK ? 3 : 0;
done:
  free(def);
  free(last);
  free(writes);
  free(bad);
  free(it);
  if (st != PD_OK) drop_layout(m);
  return st;
}

int64_t pd_memplan_workspace_bytes(const pd_plan *p) { return p->mem ? p->mem->ws_bytes : 0; }
