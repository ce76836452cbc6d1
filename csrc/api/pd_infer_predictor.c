/* PD_Predictor: a loaded model (shared with clones, read-only), this predictor's executor (plan
 * cache + memory plan), a local scope under the model's (private copies of the persistables an op
 * writes; run-time child scopes) and the inputs/outputs the tensor handles see. Run binds the
 * inputs as feeds, runs the plan on the configured thread count and keeps the fetched values.
 * A GPU predictor (EnableUseGpu) has its persistables on the device (moved at load), its executor
 * set to the GPU (feeds copied in at Run) and its outputs on the device (CopyToCpu copies back). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_infer_internal.h"
#include "../core/pd_alloc.h"
#include "../core/pd_pool.h"
#include "../core/pd_device.h"
#include "../kernels/cpu/conv_dnnl.h"

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
    if (s == PD_OK) p->mb = pd_infer_mbatch_analyse(m, p->mb_kind, &cut);
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

PD_Bool PD_PredictorRun(PD_Predictor *p) {
  CHECK_PRED(FALSE);
  pd_infer_io *io = p->io;
  pd_infer_model *m = io->m;
  pd_feed *feeds = (pd_feed *)calloc((size_t)(m->n_in ? m->n_in : 1), sizeof(pd_feed));
  pd_fetch *fetched = (pd_fetch *)calloc((size_t)(m->n_out ? m->n_out : 1), sizeof(pd_fetch));
  if (!feeds || !fetched) {
    free(feeds);
    free(fetched);
    return (PD_Bool)pd_api_failf(PD_ERR_RESOURCE_EXHAUSTED, "PD_PredictorRun: out of memory");
  }
  for (int i = 0; i < m->n_in; i++) {
    if (!io->in[i].t) {
      free(feeds);
      free(fetched);
      return (PD_Bool)pd_api_failf(PD_ERR_PRECONDITION_NOT_MET, "PD_PredictorRun: input '%s' has no data: set it "
                                   "with PD_TensorReshape + PD_TensorCopyFromCpu* (or MutableData / "
                                   "ShareExternalData) on its input handle first", m->in_names[i]);
    }
    feeds[i].name = m->in_names[i];
    feeds[i].t = io->in[i].t;
    feeds[i].lod = io->in[i].lod.n ? &io->in[i].lod : NULL;
  }
  for (int i = 0; i < m->n_out; i++) pd_value_clear(&io->out[i]);
  const int prev = pd_pool_local_begin(pd_pool_clamp(m->threads));
  const int bf16_prev = pd_conv_bf16_infer;
  pd_conv_bf16_infer = m->bf16; /* EnableMkldnnBfloat16: the convolutions in bfloat16 */
  pd_status s = PD_OK;
  /* micro-batches (they set io->out themselves), else the whole batch */
  const int chunked = p->mb > 0 && pd_infer_mbatch_run(p, p->mb, &s);
  if (!chunked)
    s = pd_executor_run(p->exe, m->prog, 0, p->local, m->n_in, feeds, m->n_out, (const char *const *)m->out_names,
                        fetched);
  pd_conv_bf16_infer = bf16_prev;
  pd_pool_local_end(prev);
  if (s == PD_OK && !chunked)
    for (int i = 0; i < m->n_out; i++) io->out[i] = fetched[i].v; /* moved */
  free(feeds);
  free(fetched);
  if (s != PD_OK) return (PD_Bool)pd_api_fail(s);
  return TRUE;
}

PD_Bool PD_PredictorClearIntermediateTensor(PD_Predictor *p) {
  CHECK_PRED(FALSE);
  pd_executor_shrink(p->exe);
  return TRUE;
}

uint64_t PD_PredictorTryShrinkMemory(PD_Predictor *p) {
  CHECK_PRED(0);
  pd_alloc_stats a, b;
  pd_alloc_get_stats(&a);
  int64_t n = pd_executor_shrink(p->exe);
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
