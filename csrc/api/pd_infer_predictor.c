/* PD_Predictor: a loaded model (shared with clones, read-only), this predictor's executor (plan
 * cache + memory plan), a local scope under the model's (private copies of the persistables an op
 * writes; run-time child scopes) and the inputs/outputs the tensor handles see. Run binds the
 * inputs as feeds, runs the plan on the configured thread count and keeps the fetched values.
 * A GPU predictor (EnableUseGpu) has its persistables on the device (moved at load), its executor
 * set to the GPU (feeds copied in at Run) and its outputs on the device (CopyToCpu copies back). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pd_infer_internal.h"
#include "../core/pd_alloc.h"
#include "../core/pd_pool.h"
#include "../core/pd_device.h"
#include "../kernels/cpu/conv_dnnl.h"
#ifdef _OPENMP
#include <omp.h>
#endif

#define CHECK_PRED(ret)                                                                       \
  do {                                                                                        \
    pd_api_clear();                                                                           \
    if (!p || !p->io) {                                                                       \
      pd_api_failf(PD_ERR_INVALID_ARGUMENT, "%s: the predictor is NULL", __func__);           \
      return ret;                                                                             \
    }                                                                                         \
  } while (0)

void pd_infer_io_release(pd_infer_io *io) {
  if (!io || atomic_fetch_sub_explicit(&io->ref, 1, memory_order_acq_rel) != 1) return;
  for (int i = 0; io->in && i < io->m->n_in; i++) {
    pd_tensor_release(io->in[i].t);
    pd_lod_clear(&io->in[i].lod);
  }
  for (int i = 0; io->out && i < io->m->n_out; i++) pd_value_clear(&io->out[i]);
  free(io->in);
  free(io->out);
  pd_infer_model_release(io->m);
  free(io);
}

static void pred_free(PD_Predictor *p) {
  if (!p) return;
  for (int t = 0; t < PD_DP_MAX - 1; t++) pred_free(p->dp_twin[t]);
  pd_executor_free(p->exe);
  pd_scope_release(p->local);
  pd_infer_io_release(p->io);
  pd_infer_mbatch_free(p);
  free(p->mb_kind);
  free(p);
}

/* a predictor over model m (takes a reference to m) */
static pd_status pred_new(pd_infer_model *m, PD_Predictor **out) {
  *out = NULL;
  PD_Predictor *p = (PD_Predictor *)calloc(1, sizeof *p);
  pd_infer_io *io = (pd_infer_io *)calloc(1, sizeof *io);
  if (!p || !io) {
    free(p);
    free(io);
    pd_infer_model_release(m);
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory creating a predictor");
  }
  atomic_init(&io->ref, 1);
  io->m = m;
  p->io = io;
  io->in = (pd_infer_input *)calloc((size_t)(m->n_in ? m->n_in : 1), sizeof(pd_infer_input));
  io->out = (pd_value *)calloc((size_t)(m->n_out ? m->n_out : 1), sizeof(pd_value));
  pd_status s = io->in && io->out ? PD_OK : pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int i = 0; io->in && i < m->n_in; i++) io->in[i].ndim = -1;
  if (s == PD_OK) s = pd_executor_new(&p->exe);
  if (s == PD_OK) s = pd_scope_new(m->scope, &p->local);
  if (s == PD_OK) pd_executor_set_memplan(p->exe, m->memory_optim);
  /* outputs may stay blocked: the output handles reorder them into the caller's buffer
   * (PADDLE_C_INFER_FETCH=plain: converted by the executor, as before) */
  const char *fe = getenv("PADDLE_C_INFER_FETCH");
  if (s == PD_OK) pd_executor_set_layout(p->exe, m->layout ? (fe && !strcmp(fe, "plain") ? 1 : 2) : 0);
  if (s == PD_OK && m->dev >= 0) s = pd_executor_set_device(p->exe, m->dev); /* EnableUseGpu */
  /* private copies of the persistables an op writes (the shared values stay read-only) */
  for (int i = 0; s == PD_OK && i < m->n_written; i++) {
    const pd_value *src = pd_scope_find_local(m->scope, m->written[i]);
    if (!src || src->kind != PD_VAL_TENSOR || !src->t) continue;
    pd_tensor *c;
    pd_value *dst;
    s = pd_tensor_clone(src->t, &c);
    if (s == PD_OK && (s = pd_scope_var(p->local, m->written[i], &dst)) == PD_OK) pd_value_set(dst, c);
    else if (s == PD_OK) pd_tensor_release(c);
  }
  /* compile now (one compilation at a time: it reads the shared program) */
  if (s == PD_OK) {
    pthread_mutex_lock(&m->mu);
    s = pd_executor_prepare(p->exe, m->prog, 0, m->n_in, (const char *const *)m->in_names, m->n_out,
                            (const char *const *)m->out_names);
    pthread_mutex_unlock(&m->mu);
  }
  if (s == PD_OK) {
    p->mb_kind = (unsigned char *)calloc((size_t)(m->n_out ? m->n_out : 1), 1);
    s = p->mb_kind ? PD_OK : pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    int cut = 0;
    if (s == PD_OK) p->mb = pd_infer_mbatch_analyse(m, p->mb_kind, &cut, &p->dp_ok);
    if (s == PD_OK && p->mb > 0 && cut > 0) {
      pthread_mutex_lock(&m->mu);
      s = pd_infer_mbatch_split(p, cut);
      pthread_mutex_unlock(&m->mu);
    }
  }
  if (s != PD_OK) {
    pred_free(p);
    return s;
  }
  *out = p;
  return PD_OK;
}

PD_Predictor *PD_PredictorCreate(PD_Config *c) {
  pd_api_clear();
  if (!c) {
    pd_api_failf(PD_ERR_INVALID_ARGUMENT, "PD_PredictorCreate: the config is NULL");
    return NULL;
  }
  if (!c->valid) {
    pd_api_failf(PD_ERR_INVALID_ARGUMENT, "PD_PredictorCreate: the config was set invalid (PD_ConfigSetInvalid)");
    return NULL;
  }
  pd_infer_model *m;
  pd_status s = pd_infer_model_load(c, &m);
  if (s != PD_OK) {
    pd_api_fail(s);
    return NULL;
  }
  PD_Predictor *p;
  s = pred_new(m, &p);
  if (s != PD_OK) {
    pd_api_fail(s);
    return NULL;
  }
  return p;
}

PD_Predictor *PD_PredictorClone(PD_Predictor *p) {
  CHECK_PRED(NULL);
  pd_infer_model *m = p->io->m;
  atomic_fetch_add_explicit(&m->ref, 1, memory_order_relaxed);
  PD_Predictor *q;
  pd_status s = pred_new(m, &q);
  if (s != PD_OK) {
    pd_api_fail(s);
    return NULL;
  }
  return q;
}

void PD_PredictorDestroy(PD_Predictor *p) {
  /* a destroy cannot fail: it leaves the thread's error as it was */
  pred_free(p);
}

PD_OneDimArrayCstr *PD_PredictorGetInputNames(PD_Predictor *p) {
  CHECK_PRED(NULL);
  PD_OneDimArrayCstr *a = pd_api_cstr_array(p->io->m->n_in, p->io->m->in_names);
  if (!a) pd_api_failf(PD_ERR_RESOURCE_EXHAUSTED, "%s: out of memory", __func__);
  return a;
}
PD_OneDimArrayCstr *PD_PredictorGetOutputNames(PD_Predictor *p) {
  CHECK_PRED(NULL);
  PD_OneDimArrayCstr *a = pd_api_cstr_array(p->io->m->n_out, p->io->m->out_names);
  if (!a) pd_api_failf(PD_ERR_RESOURCE_EXHAUSTED, "%s: out of memory", __func__);
  return a;
}
size_t PD_PredictorGetInputNum(PD_Predictor *p) {
  CHECK_PRED(0);
  return (size_t)p->io->m->n_in;
}
size_t PD_PredictorGetOutputNum(PD_Predictor *p) {
  CHECK_PRED(0);
  return (size_t)p->io->m->n_out;
}

static PD_IOInfos *infos(PD_Predictor *p, int outputs) {
  const pd_infer_model *m = p->io->m;
  int n = outputs ? m->n_out : m->n_in;
  char **names = outputs ? m->out_names : m->in_names;
  PD_IOInfos *r = (PD_IOInfos *)calloc(1, sizeof *r);
  if (!r || !(r->io_info = (PD_IOInfo **)calloc((size_t)(n ? n : 1), sizeof(PD_IOInfo *)))) {
    free(r);
    pd_api_failf(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    const pd_var *v = pd_block_find_var(m->prog->blocks[0], names[i]);
    PD_IOInfo *io = (PD_IOInfo *)calloc(1, sizeof *io);
    if (io) r->io_info[r->size++] = io;
    if (!io || !(io->name = pd_api_cstr(names[i])) ||
        !(io->shape = (PD_OneDimArrayInt64 *)calloc(1, sizeof(PD_OneDimArrayInt64)))) {
      PD_IOInfosDestroy(r);
      pd_api_failf(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
      return NULL;
    }
    int nd = v && v->ndim > 0 ? v->ndim : 0;
    io->shape->data = (int64_t *)calloc((size_t)(nd ? nd : 1), sizeof(int64_t));
    if (!io->shape->data) {
      PD_IOInfosDestroy(r);
      pd_api_failf(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
      return NULL;
    }
    io->shape->size = (size_t)nd;
    for (int d = 0; d < nd; d++) io->shape->data[d] = v->dims[d];
    io->dtype = v ? pd_api_dtype_out(v->dtype) : PD_DATA_UNK;
  }
  return r;
}
PD_IOInfos *PD_PredictorGetInputInfos(PD_Predictor *p) {
  CHECK_PRED(NULL);
  return infos(p, 0);
}
PD_IOInfos *PD_PredictorGetOutputInfos(PD_Predictor *p) {
  CHECK_PRED(NULL);
  return infos(p, 1);
}

static PD_Tensor *handle(PD_Predictor *p, const char *name, int is_input) {
  const pd_infer_model *m = p->io->m;
  if (!name) {
    pd_api_failf(PD_ERR_INVALID_ARGUMENT, "the %s name is NULL", is_input ? "input" : "output");
    return NULL;
  }
  int n = is_input ? m->n_in : m->n_out;
  char **names = is_input ? m->in_names : m->out_names;
  for (int i = 0; i < n; i++) {
    if (strcmp(names[i], name) != 0) continue;
    PD_Tensor *t = (PD_Tensor *)calloc(1, sizeof *t);
    if (!t) {
      pd_api_failf(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
      return NULL;
    }
    t->io = p->io;
    atomic_fetch_add_explicit(&p->io->ref, 1, memory_order_relaxed);
    t->is_input = is_input;
    t->idx = i;
    return t;
  }
  char list[1024];
  size_t k = 0;
  list[0] = 0;
  for (int i = 0; i < n && k < sizeof list; i++)
    k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", names[i]);
  pd_api_failf(PD_ERR_NOT_FOUND, "the model has no %s named '%s' (its %ss: %s)", is_input ? "input" : "output", name,
               is_input ? "input" : "output", list);
  return NULL;
}
PD_Tensor *PD_PredictorGetInputHandle(PD_Predictor *p, const char *name) {
  CHECK_PRED(NULL);
  return handle(p, name, 1);
}
PD_Tensor *PD_PredictorGetOutputHandle(PD_Predictor *p, const char *name) {
  CHECK_PRED(NULL);
  return handle(p, name, 0);
}

/* runs p on its inputs with nth threads into p->io->out (the inputs are all set) */
static pd_status pred_run(PD_Predictor *p, int nth) {
  pd_infer_io *io = p->io;
  pd_infer_model *m = io->m;
  pd_feed *feeds = (pd_feed *)calloc((size_t)(m->n_in ? m->n_in : 1), sizeof(pd_feed));
  pd_fetch *fetched = (pd_fetch *)calloc((size_t)(m->n_out ? m->n_out : 1), sizeof(pd_fetch));
  if (!feeds || !fetched) {
    free(feeds);
    free(fetched);
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "PD_PredictorRun: out of memory");
  }
  for (int i = 0; i < m->n_in; i++) {
    feeds[i].name = m->in_names[i];
    feeds[i].t = io->in[i].t;
    feeds[i].lod = io->in[i].lod.n ? &io->in[i].lod : NULL;
  }
  for (int i = 0; i < m->n_out; i++) pd_value_clear(&io->out[i]);
  const int prev = pd_pool_local_begin(nth);
  const int bf16_prev = pd_conv_bf16_infer;
  pd_conv_bf16_infer = m->bf16; /* EnableMkldnnBfloat16: the convolutions in bfloat16 */
  pd_conv_wstore *ws_prev = pd_conv_wstore_cur;
  pd_conv_wstore_cur = m->wstore; /* one copy of each filter's reorders for all plans, clones and parts */
  pd_status s = PD_OK;
  /* micro-batches (they set io->out themselves), else the whole batch */
  const int chunked = p->mb > 0 && pd_infer_mbatch_run(p, p->mb, &s);
  if (!chunked)
    s = pd_executor_run(p->exe, m->prog, 0, p->local, m->n_in, feeds, m->n_out, (const char *const *)m->out_names,
                        fetched);
  pd_conv_bf16_infer = bf16_prev;
  pd_conv_wstore_cur = ws_prev;
  pd_pool_local_end(prev);
  if (m->wstore && pd_infer_trace_on()) {
    int64_t taken = 0;
    const int64_t b = pd_conv_wstore_bytes(m->wstore, &taken);
    fprintf(stderr, "[wstore] %lld bytes, %lld taken\n", (long long)b, (long long)taken);
  }
  if (s == PD_OK && !chunked)
    for (int i = 0; i < m->n_out; i++) io->out[i] = fetched[i].v; /* moved */
  free(feeds);
  free(fetched);
  return s;
}

/* Whether a batch size splits is measured, per predictor and batch size (up to DP_SIZES sizes, the
 * oldest replaced): 3 runs split then 3 whole, the first of each untimed, and the faster of the best
 * times is kept from then on (not measured again: split and whole runs may differ in the last bits
 * where a kernel's choice depends on the batch or the thread count, ~1e-6 of the output's scale, so
 * after its first six runs of a size a predictor gives the same bits every run). Splitting costs the
 * outputs' join (a copy, blocked ones made plain first, into fresh memory): a conv-bn-relu network
 * whose 16 outputs hold 25 MB took 2.7x the CPU time split. */
static uint64_t dp_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static dp_rec *dp_find(PD_Predictor *p, int64_t n) {
  for (int i = 0; i < DP_SIZES; i++)
    if (p->dp_rec[i].n == n) return &p->dp_rec[i];
  dp_rec *r = &p->dp_rec[p->dp_next];
  p->dp_next = (p->dp_next + 1) % DP_SIZES;
  memset(r, 0, sizeof *r);
  r->n = n;
  r->pick = -1;
  return r;
}

static int dp_want(dp_rec *r) {
  if (r->pick >= 0) return r->pick;
  if (r->runs[1] < 3) return 1;
  if (r->runs[0] < 3) return 0;
  r->pick = r->best[1] < r->best[0];
  return r->pick;
}

static void dp_note(dp_rec *r, int split, uint64_t ns) {
  if (r->pick >= 0) return;
  if (r->runs[split]++ == 0) return; /* the first of each: warm-up (a clone made, caches) */
  if (!r->best[split] || ns < r->best[split]) r->best[split] = ns;
}

/* PADDLE_C_INFER_DP=0: batches on all threads together, never split across them (A/B); read per run */
static int dp_off_env(void) {
  const char *e = getenv("PADDLE_C_INFER_DP");
  return e && !strcmp(e, "0");
}

/* A batch of N >= 2 samples on nth >= 2 threads, where each sample is computed on its own (the
 * micro-batch analysis): nth near-equal parts, part 0 on p and part t on the clone dp_twin[t - 1]
 * (made on first use: its own executor, memory plan and weight cache), all at once, each on one
 * thread, then each output joined along dim 0 into p's outputs. Each core then works on its own
 * samples and the layers' activations never cross between the cores: the two vCPUs of these
 * machines sit on one core complex or two, and on two a batch's layers split across the threads
 * read half of every input from the far L3 (docs/performance_log.md "Two core complexes").
 * The caller has checked the batch (N = pd_infer_split_batch >= 2: no LoD, blocked or strided input)
 * and the predictor (nth >= 2, dp_ok: not a GPU one). Returns 1 (*err the status) or 0 where it does
 * not apply (the caller runs the whole batch): the pool held by another thread's kernel call,
 * PADDLE_C_INFER_DP=0, more than 64 inputs, or outputs it cannot join (the predictor then stops
 * splitting). The thread governor is not asked: with a busy neighbour on one core the part there
 * takes twice as long, about what the whole batch on one thread (the governor's answer) takes. */
static int dp_run(PD_Predictor *p, int nth, int64_t N, pd_status *err) {
  pd_infer_io *io = p->io;
  pd_infer_model *m = io->m;
#ifdef _OPENMP
  if (dp_off_env() || m->n_in > 64) return 0;
  if (nth > PD_DP_MAX) nth = PD_DP_MAX;
  if (nth > N) nth = (int)N;
  for (int t = 1; t < nth; t++)
    if (!p->dp_twin[t - 1]) {
      atomic_fetch_add_explicit(&m->ref, 1, memory_order_relaxed);
      if (pred_new(m, &p->dp_twin[t - 1]) != PD_OK) return 0; /* no memory for a clone: the whole batch */
    }
  /* hold the pool: where another thread's kernel call holds it (a clone in another thread), the
   * batch stays whole (and runs beside it on one thread, as such calls do) */
  if (!pd_pool_hold_try()) return 0;
  if (pd_infer_trace_on()) fprintf(stderr, "[dp] %lld samples in %d parts\n", (long long)N, nth);
  PD_Predictor *q[PD_DP_MAX];
  pd_tensor *saved[64];
  int64_t part_n[PD_DP_MAX];
  pd_status st[PD_DP_MAX];
  char msg[PD_DP_MAX][256];
  pd_status s = PD_OK;
  int64_t start = 0;
  for (int t = 0; t < nth; t++) {
    q[t] = t ? p->dp_twin[t - 1] : p;
    part_n[t] = N / nth + (t < N % nth ? 1 : 0);
    st[t] = PD_OK;
    msg[t][0] = 0;
  }
  for (int i = 0; i < m->n_in; i++) saved[i] = io->in[i].t;
  for (int t = 0; t < nth; t++) {
    for (int i = 0; i < m->n_in; i++) {
      pd_tensor *u = saved[i], *v = NULL;
      int64_t shape[PD_MAX_DIMS];
      memcpy(shape, u->shape, sizeof shape);
      shape[0] = part_n[t];
      if (s == PD_OK) s = pd_tensor_view(u, u->ndim, shape, u->strides, u->offset + start * u->strides[0], &v);
      pd_infer_input *in = &q[t]->io->in[i];
      if (t) pd_tensor_release(in->t);
      in->t = v; /* p's own inputs are restored from saved below */
    }
    start += part_n[t];
  }
  if (s == PD_OK) {
#pragma omp parallel num_threads(nth)
    {
      const int nt = omp_get_num_threads();
      for (int t = omp_get_thread_num(); t < nth; t += nt) {
        st[t] = pred_run(q[t], 1);
        if (st[t] != PD_OK) snprintf(msg[t], sizeof msg[t], "%s", pd_last_error());
      }
    }
  }
  pd_pool_hold_release();
  for (int t = 0; t < nth; t++)
    if (s == PD_OK && st[t] != PD_OK) s = pd_set_error(st[t], "%s", msg[t]);
  for (int i = 0; i < m->n_in; i++) {
    pd_tensor_release(io->in[i].t);
    io->in[i].t = saved[i];
    for (int t = 1; t < nth; t++) {
      pd_tensor_release(q[t]->io->in[i].t);
      q[t]->io->in[i].t = NULL;
    }
  }
  /* each output: the parts' values in order, joined into p's */
  for (int o = 0; o < m->n_out; o++) {
    pd_value parts[PD_DP_MAX], joined;
    memset(&joined, 0, sizeof joined);
    for (int t = 0; t < nth; t++) {
      parts[t] = q[t]->io->out[o]; /* moved */
      memset(&q[t]->io->out[o], 0, sizeof(pd_value));
    }
    if (s == PD_OK) {
      pd_status js = pd_infer_mbatch_join(parts, nth, p->mb_kind[o] == 1, part_n, &joined);
      if (js == (pd_status)-1) {
        p->dp_ok = 0; /* not joinable: whole batches from now on (this run again, whole) */
        for (int t = 0; t < nth; t++) pd_value_clear(&parts[t]);
        for (int oo = 0; oo < o; oo++) pd_value_clear(&io->out[oo]);
        return 0;
      }
      s = js;
    }
    for (int t = 0; t < nth; t++) pd_value_clear(&parts[t]);
    io->out[o] = joined;
  }
  *err = s;
  return 1;
#else
  (void)p, (void)nth, (void)N, (void)err;
  return 0;
#endif
}

PD_Bool PD_PredictorRun(PD_Predictor *p) {
  CHECK_PRED(FALSE);
  pd_infer_io *io = p->io;
  pd_infer_model *m = io->m;
  for (int i = 0; i < m->n_in; i++)
    if (!io->in[i].t)
      return (PD_Bool)pd_api_failf(PD_ERR_PRECONDITION_NOT_MET, "PD_PredictorRun: input '%s' has no data: set it "
                                   "with PD_TensorReshape + PD_TensorCopyFromCpu* (or MutableData / "
                                   "ShareExternalData) on its input handle first", m->in_names[i]);
  const int nth = pd_pool_clamp(m->threads);
  pd_status s = PD_OK;
  /* a batch that may split across the threads (dp_run): samples computed on their own (dp_ok: never
   * on a GPU predictor), inputs of one splittable batch of two or more */
  /* FLAGS_cpu_deterministic: always whole (the choice is timed, so it may differ between processes) */
  const int64_t N = nth >= 2 && p->dp_ok && !pd_pool_deterministic() ? pd_infer_split_batch(io) : -1;
  dp_rec *r = N >= 2 ? dp_find(p, N) : NULL;
  const uint64_t t0 = r ? dp_now_ns() : 0;
  const int split = r && dp_want(r) && dp_run(p, nth, N, &s);
  if (!split) s = pred_run(p, nth);
  if (r && s == PD_OK) dp_note(r, split, dp_now_ns() - t0);
  if (s != PD_OK) return (PD_Bool)pd_api_fail(s);
  return TRUE;
}

/* frees the memory plans' workspaces of p's executors and of its split's clones; the bytes freed */
static int64_t shrink_all(PD_Predictor *p) {
  if (!p) return 0;
  int64_t n = pd_executor_shrink(p->exe);
  if (p->mb_fexe) n += pd_executor_shrink(p->mb_fexe);
  if (p->mb_texe) n += pd_executor_shrink(p->mb_texe);
  for (int t = 0; t < PD_DP_MAX - 1; t++) n += shrink_all(p->dp_twin[t]);
  return n;
}

PD_Bool PD_PredictorClearIntermediateTensor(PD_Predictor *p) {
  CHECK_PRED(FALSE);
  shrink_all(p);
  return TRUE;
}

uint64_t PD_PredictorTryShrinkMemory(PD_Predictor *p) {
  CHECK_PRED(0);
  pd_alloc_stats a, b;
  pd_alloc_get_stats(&a);
  int64_t n = shrink_all(p);
  pd_alloc_empty_cache();
  pd_alloc_get_stats(&b);
  n += a.cached_bytes - b.cached_bytes;
  int dev = p->io->m->dev;
  pd_cuda_mem_stats ga, gb;
  if (dev >= 0 && pd_cuda && pd_cuda->rt->mem_stats(dev, &ga) == 0) { /* a GPU predictor: the device cache too */
    pd_cuda->rt->empty_cache();
    if (pd_cuda->rt->mem_stats(dev, &gb) == 0 && ga.reserved > gb.reserved) n += (int64_t)(ga.reserved - gb.reserved);
  }
  return n > 0 ? (uint64_t)n : 0;
}
