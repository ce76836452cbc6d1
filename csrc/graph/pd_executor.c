/* The executor (pd_executor.h). Compiling: every op of the block goes through its converter
 * with a capture tracer installed, so each of our ops the converter runs becomes an instruction
 * (op id, a deep copy of its args, which slots feed its tensor arguments, which slots take its
 * outputs); the converter's outputs are bound to the op's output variables by aliasing the
 * temporary slots (that capture is pd_exec_capture.c's). Special ops (feed, fetch, control flow
 * ...) are handled here. Running: slots
 * of persistable variables point into the scope, the others into the plan's frame; each
 * instruction fills a work copy of its args with the slots' tensors and calls pd_op_exec. */
#include "../core/pd_prof.h"
#include "../core/pd_device.h"
#include "pd_executor.h"
#include <stdlib.h>
#include <string.h>
#include "pd_exec_internal.h"
#include "../ops/generated/pd_ops_gen.h"

pd_exec_callback_fn pd_exec_callback = NULL;

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory compiling a program"); }

/* ---------------------------------------------------------------- slots */
static char *dupstr(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = (char *)malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static uint32_t hstr(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

static pd_status grow_slots(pd_plan *p) {
  int nc = p->cap_slots ? p->cap_slots * 2 : 64;
  char **nn = (char **)realloc(p->slot_name, sizeof(char *) * (size_t)nc);
  if (!nn) return oom();
  p->slot_name = nn;
  unsigned char *np = (unsigned char *)realloc(p->slot_persist, (size_t)nc);
  if (!np) return oom();
  p->slot_persist = np;
  pd_tensor **nm = (pd_tensor **)realloc(p->slot_meta, sizeof(pd_tensor *) * (size_t)nc);
  if (!nm) return oom();
  p->slot_meta = nm;
  int *na = (int *)realloc(p->alias, sizeof(int) * (size_t)nc);
  if (!na) return oom();
  p->alias = na;
  pd_tensor **nc_ = (pd_tensor **)realloc(p->slot_const, sizeof(pd_tensor *) * (size_t)nc);
  if (!nc_) return oom();
  p->slot_const = nc_;
  p->cap_slots = nc;
  return PD_OK;
}

static pd_status name_rehash(pd_plan *p) {
  int cap = p->hcap ? p->hcap * 2 : 128;
  int *h = (int *)calloc((size_t)cap, sizeof(int));
  if (!h) return oom();
  for (int s = 0; s < p->n_slots; s++) {
    if (!p->slot_name[s]) continue;
    uint32_t k = hstr(p->slot_name[s]) & (uint32_t)(cap - 1);
    while (h[k]) k = (k + 1) & (uint32_t)(cap - 1);
    h[k] = s + 1;
  }
  free(p->hash);
  p->hash = h;
  p->hcap = cap;
  return PD_OK;
}

int pd_plan_find_slot(const pd_plan *p, const char *name) {
  if (!p->hcap) return -1;
  uint32_t k = hstr(name) & (uint32_t)(p->hcap - 1);
  while (p->hash[k]) {
    int s = p->hash[k] - 1;
    if (strcmp(p->slot_name[s], name) == 0) return s;
    k = (k + 1) & (uint32_t)(p->hcap - 1);
  }
  return -1;
}

/* a new slot with a private var (aux = slot) and a meta tensor bound to it */
pd_status pd_plan_new_slot(pd_plan *p, const char *name, const pd_var *desc, const pd_tensor *like, int *out) {
  if (p->n_slots == p->cap_slots) PD_TRY(grow_slots(p));
  int s = p->n_slots;
  pd_var *v;
  PD_TRY(pd_var_new_detached(name ? name : "@tmp", &v));
  if (desc) {
    v->dtype = desc->dtype;
    v->ndim = desc->ndim;
    memcpy(v->dims, desc->dims, sizeof v->dims);
    v->persistable = desc->persistable;
  } else if (like) {
    v->dtype = like->dtype;
    v->ndim = like->ndim;
    for (int d = 0; d < like->ndim; d++) v->dims[d] = like->shape[d];
  }
  v->aux = s;
  pd_tensor *t;
  pd_status st = pd_var_tensor_new(v, &t);
  pd_var_release(v);
  PD_TRY(st);
  p->slot_name[s] = name ? dupstr(name) : NULL;
  if (name && !p->slot_name[s]) {
    pd_tensor_release(t);
    return oom();
  }
  p->slot_persist[s] = desc && desc->persistable;
  p->slot_meta[s] = t;
  p->alias[s] = -1;
  p->slot_const[s] = NULL;
  p->n_slots++;
  if (name) {
    if (p->n_slots * 2 > p->hcap) {
      PD_TRY(name_rehash(p));
    } else {
      uint32_t k = hstr(name) & (uint32_t)(p->hcap - 1);
      while (p->hash[k]) k = (k + 1) & (uint32_t)(p->hcap - 1);
      p->hash[k] = s + 1;
    }
  }
  *out = s;
  return PD_OK;
}

/* the slot of a program variable (created from its desc on first use) */
pd_status pd_plan_slot(pd_plan *p, const pd_block *b, const char *name, int *out) {
  int s = pd_plan_find_slot(p, name);
  if (s >= 0) {
    *out = s;
    return PD_OK;
  }
  const pd_var *v = pd_block_find_var_recursive(b, name);
  if (!v)
    return pd_set_error(PD_ERR_NOT_FOUND, "the program uses variable %s, which block %d does not "
                        "declare", name, b->idx);
  return pd_plan_new_slot(p, name, v, NULL, out);
}

pd_status pd_plan_temp_slot(pd_plan *p, int *out) { return pd_plan_new_slot(p, NULL, NULL, NULL, out); }

/* ---------------------------------------------------------------- instruction lists */
pd_status pd_plan_new_list(pd_plan *p, int *out) {
  pd_instr_list *nl = (pd_instr_list *)realloc(p->lists, sizeof(pd_instr_list) * (size_t)(p->n_lists + 1));
  if (!nl) return oom();
  p->lists = nl;
  memset(&p->lists[p->n_lists], 0, sizeof(pd_instr_list));
  *out = p->n_lists++;
  return PD_OK;
}

pd_status pd_plan_add_instr(pd_plan *p, int list, pd_instr **out) {
  pd_instr_list *l = &p->lists[list];
  if (l->n == l->cap) {
    int nc = l->cap ? l->cap * 2 : 32;
    pd_instr *nv = (pd_instr *)realloc(l->v, sizeof(pd_instr) * (size_t)nc);
    if (!nv) return oom();
    l->v = nv;
    l->cap = nc;
  }
  pd_instr *in = &l->v[l->n++];
  memset(in, 0, sizeof *in);
  in->op = -1;
  in->sub[0] = in->sub[1] = -1;
  in->lod_src = -1;
  *out = in;
  return PD_OK;
}

void pd_instr_free(pd_instr *in) {
  free(in->args);
  for (int i = 0; i < in->n_bind; i++) free(in->bind[i].slots);
  free(in->bind);
  free(in->out);
  free(in->list_buf);
  free(in->release);
  free(in->ins);
  free(in->subs);
  free(in->lod_out);
  if (in->extra_free) in->extra_free(in->extra);
}

/* ---------------------------------------------------------------- aliases */
/* the slot a (chain of) alias(es) ends at: a temporary that became a variable */
int pd_plan_resolve_alias(const pd_plan *p, int s) {
  int guard = 0;
  while (s >= 0 && p->alias[s] >= 0 && guard++ < p->n_slots) s = p->alias[s];
  return s;
}

/* ---------------------------------------------------------------- specials */
static pd_status run_share(pd_exec *r, const pd_instr *in) {
  pd_value *src = r->bound[in->out[1]], *dst = r->bound[in->out[0]];
  if (src == dst) return PD_OK;
  return pd_value_copy(dst, src);
}

pd_status pd_plan_emit_share(pd_plan *p, int list, const pd_opdesc *op, int src, int dst) {
  pd_instr *in;
  PD_TRY(pd_plan_add_instr(p, list, &in));
  in->special = run_share;
  in->desc = op;
  in->out = (int *)malloc(sizeof(int) * 2);
  if (!in->out) return oom();
  in->out[0] = dst;
  in->out[1] = src;
  in->n_out = 1;
  in->ins = (int *)malloc(sizeof(int));
  if (!in->ins) return oom();
  in->ins[0] = src;
  in->n_ins = 1;
  return PD_OK;
}


/* last uses: a slot that is not persistable, not a constant and not fetched is released after
 * the last top-level instruction that reads it (control-flow instructions read everything
 * their sub-lists read) */
static void list_reads(const pd_plan *p, int list, int *last, int at) {
  const pd_instr_list *l = &p->lists[list];
  for (int i = 0; i < l->n; i++) {
    const pd_instr *in = &l->v[i];
    int pos = at >= 0 ? at : i;
    for (int b = 0; b < in->n_bind; b++)
      for (int k = 0; k < in->bind[b].n; k++)
        if (in->bind[b].slots[k] >= 0) last[in->bind[b].slots[k]] = pos;
    for (int k = 0; k < in->n_ins; k++)
      if (in->ins[k] >= 0) last[in->ins[k]] = pos;
    for (int k = 0; k < in->n_out; k++)
      if (in->out[k] >= 0 && last[in->out[k]] < pos) last[in->out[k]] = pos;
    for (int s = 0; s < 2; s++)
      if (in->sub[s] >= 0) list_reads(p, in->sub[s], last, pos);
    for (int s = 0; s < in->n_subs; s++) list_reads(p, in->subs[s], last, pos);
  }
}

static void resolve_list(pd_plan *p, int list) {
  pd_instr_list *l = &p->lists[list];
  for (int i = 0; i < l->n; i++) {
    pd_instr *in = &l->v[i];
    for (int b = 0; b < in->n_bind; b++)
      for (int k = 0; k < in->bind[b].n; k++) in->bind[b].slots[k] = pd_plan_resolve_alias(p, in->bind[b].slots[k]);
    for (int k = 0; k < in->n_out + (in->special == run_share); k++) in->out[k] = pd_plan_resolve_alias(p, in->out[k]);
    for (int k = 0; k < in->n_ins; k++) in->ins[k] = pd_plan_resolve_alias(p, in->ins[k]);
  }
}

static pd_status finish_plan(pd_plan *p) {
  for (int l = 0; l < p->n_lists; l++) resolve_list(p, l);
  for (int i = 0; i < p->n_fetch; i++) p->fetch_slots[i] = pd_plan_resolve_alias(p, p->fetch_slots[i]);
  for (int i = 0; i < p->n_feed; i++)
    if (p->feed_slots[i] >= 0) p->feed_slots[i] = pd_plan_resolve_alias(p, p->feed_slots[i]);
  const char *env = getenv("PADDLE_C_EXEC_PASSES");
  if (!env || strcmp(env, "0") != 0) {
    PD_TRY(pd_plan_fold_constants(p));
    PD_TRY(pd_plan_dce(p));
  }
  int *last = (int *)malloc(sizeof(int) * (size_t)(p->n_slots ? p->n_slots : 1));
  if (!last) return oom();
  for (int s = 0; s < p->n_slots; s++) last[s] = -1;
  list_reads(p, 0, last, -1);
  for (int i = 0; i < p->n_fetch; i++)
    if (p->fetch_slots[i] >= 0) last[p->fetch_slots[i]] = -1; /* kept to the end */
  pd_instr_list *l = &p->lists[0];
  int *cnt = (int *)calloc((size_t)(l->n ? l->n : 1), sizeof(int));
  if (!cnt) {
    free(last);
    return oom();
  }
  for (int s = 0; s < p->n_slots; s++)
    if (last[s] >= 0 && !p->slot_persist[s] && !p->slot_const[s] && p->alias[s] < 0) cnt[last[s]]++;
  for (int i = 0; i < l->n; i++) {
    if (!cnt[i]) continue;
    l->v[i].release = (int *)malloc(sizeof(int) * (size_t)cnt[i]);
    if (!l->v[i].release) {
      free(cnt);
      free(last);
      return oom();
    }
  }
  for (int s = 0; s < p->n_slots; s++)
    if (last[s] >= 0 && !p->slot_persist[s] && !p->slot_const[s] && p->alias[s] < 0) {
      pd_instr *in = &l->v[last[s]];
      in->release[in->n_release++] = s;
    }
  free(cnt);
  free(last);
  size_t work = 8;
  for (int li = 0; li < p->n_lists; li++)
    for (int i = 0; i < p->lists[li].n; i++)
      if (p->lists[li].v[i].op >= 0 && pd_op_defs[p->lists[li].v[i].op].args_size > work)
        work = pd_op_defs[p->lists[li].v[i].op].args_size;
  p->work = malloc(work);
  p->frame = (pd_value *)calloc((size_t)(p->n_slots ? p->n_slots : 1), sizeof(pd_value));
  p->bound = (pd_value **)calloc((size_t)(p->n_slots ? p->n_slots : 1), sizeof(pd_value *));
  if (!p->work || !p->frame || !p->bound) return oom();
  return PD_OK;
}

static void plan_free(pd_plan *p) {
  if (!p) return;
  pd_memplan_free(p);
  for (int l = 0; l < p->n_lists; l++) {
    for (int i = 0; i < p->lists[l].n; i++) pd_instr_free(&p->lists[l].v[i]);
    free(p->lists[l].v);
  }
  free(p->lists);
  for (int s = 0; s < p->n_slots; s++) {
    free(p->slot_name[s]);
    pd_tensor_release(p->slot_meta[s]);
    pd_tensor_release(p->slot_const[s]);
    if (p->frame) pd_value_clear(&p->frame[s]);
  }
  free(p->slot_name);
  pd_plan_layout_free(p);
  free(p->slot_persist);
  free(p->slot_meta);
  free(p->slot_const);
  free(p->alias);
  free(p->hash);
  free(p->frame);
  free(p->bound);
  free(p->work);
  for (int i = 0; i < p->n_feed; i++) free(p->feed_names[i]);
  free(p->feed_names);
  free(p->feed_slots);
  for (int i = 0; i < p->n_fetch; i++) free(p->fetch_names[i]);
  free(p->fetch_names);
  free(p->fetch_slots);
  pd_program_release(p->prog);
  free(p);
}

static pd_status plan_build(pd_program *prog, int block, int n_feed, const pd_feed *feeds, int n_fetch,
                            const char *const *fetch_names, pd_plan **out) {
  PD_TRY(pd_program_validate(prog));
  if (block < 0 || block >= prog->n_blocks)
    return pd_set_error(PD_ERR_OUT_OF_RANGE, "block %d out of range [0, %d)", block, prog->n_blocks);
  char missing[1024];
  int nm = pd_program_unsupported_ops(prog, missing, sizeof missing);
  if (nm)
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "the program uses %d op type%s that Paddle-C does not support: %s "
                        "(a custom operator? load its library first: paddle.utils.cpp_extension.load_op_library, "
                        "or PD_LoadCustomOpLibrary in C)", nm, nm > 1 ? "s" : "", missing);
  pd_plan *p = (pd_plan *)calloc(1, sizeof *p);
  if (!p) return oom();
  p->dev = PD_CPU;
  pd_program_retain(prog);
  p->prog = prog;
  p->rev = prog->rev;
  p->block = block;
  pd_status s = PD_OK;
  p->feed_names = (char **)calloc((size_t)(n_feed ? n_feed : 1), sizeof(char *));
  p->feed_slots = (int *)calloc((size_t)(n_feed ? n_feed : 1), sizeof(int));
  p->fetch_names = (char **)calloc((size_t)(n_fetch ? n_fetch : 1), sizeof(char *));
  p->fetch_slots = (int *)calloc((size_t)(n_fetch ? n_fetch : 1), sizeof(int));
  if (!p->feed_names || !p->feed_slots || !p->fetch_names || !p->fetch_slots) s = oom();
  for (int i = 0; s == PD_OK && i < n_feed; i++) {
    p->feed_names[i] = dupstr(feeds[i].name);
    p->n_feed++;
    if (!p->feed_names[i]) s = oom();
  }
  for (int i = 0; s == PD_OK && i < n_fetch; i++) {
    p->fetch_names[i] = dupstr(fetch_names[i]);
    p->n_fetch++;
    if (!p->fetch_names[i]) s = oom();
  }
  /* fed variables get their slots first (a feed replaces whatever the program would compute) */
  const pd_block *b = prog->blocks[block];
  for (int i = 0; s == PD_OK && i < n_feed; i++) {
    p->feed_slots[i] = -1;
    if (pd_block_find_var_recursive(b, feeds[i].name)) s = pd_plan_slot(p, b, feeds[i].name, &p->feed_slots[i]);
  }
  int list;
  if (s == PD_OK) s = pd_plan_compile_block(p, block, &list);
  for (int i = 0; s == PD_OK && i < n_fetch; i++) {
    p->fetch_slots[i] = pd_plan_find_slot(p, fetch_names[i]);
    if (p->fetch_slots[i] < 0) {
      if (!pd_block_find_var_recursive(b, fetch_names[i]))
        s = pd_set_error(PD_ERR_NOT_FOUND, "fetch: the program has no variable named %s", fetch_names[i]);
      else
        s = pd_plan_slot(p, b, fetch_names[i], &p->fetch_slots[i]);
    }
  }
  if (s == PD_OK) s = finish_plan(p);
  if (s != PD_OK) {
    plan_free(p);
    return s;
  }
  *out = p;
  return PD_OK;
}

/* ---------------------------------------------------------------- running */
static const char *slot_label(const pd_plan *p, int s) {
  return s >= 0 && p->slot_name[s] ? p->slot_name[s] : "(temporary)";
}

pd_status pd_exec_list(pd_exec *r, int list) {
  pd_plan *p = r->p;
  const pd_instr_list *l = &p->lists[list];
  for (int i = 0; i < l->n; i++) {
    const pd_instr *in = &l->v[i];
    pd_status s;
    if (in->special) {
      if (__builtin_expect(pd_prof_on != 0, 0)) { /* feed/fetch, control flow: their own events */
        int h = pd_prof_begin(PD_PROF_OPERATOR, pd_prof_now_ns());
        s = in->special(r, in);
        pd_prof_end(h, in->desc && in->desc->type ? in->desc->type : "executor_special", NULL);
      } else {
        s = in->special(r, in);
      }
      if (s != PD_OK) return s;
    } else {
      const pd_op_def *d = &pd_op_defs[in->op];
      int lay = list == 0 && p->layout_on, elem_layout = 0;
      if (lay && (s = pd_exec_layout_pre(r, i, in, &elem_layout)) != PD_OK) return s;
      memcpy(p->work, in->args, d->args_size);
      s = PD_OK;
      pd_tensor *lodt[8];
      int n_lodt = 0;
      for (int b = 0; b < in->n_bind; b++) {
        const pd_binding *bd = &in->bind[b];
        pd_tensor *t = NULL;
        if (bd->lod_of) {
          s = n_lodt < 8 ? pd_exec_lod_tensor(bd->slots[0] >= 0 ? r->bound[bd->slots[0]] : NULL, bd->lod_level, in, &t)
                         : pd_set_error(PD_ERR_FATAL, "executor: too many LoD arguments");
          if (s != PD_OK) {
            for (int q = 0; q < n_lodt; q++) pd_tensor_release(lodt[q]);
            return s;
          }
          lodt[n_lodt++] = t;
          *(pd_tensor **)((char *)p->work + bd->offset) = t;
          continue;
        }
        for (int k = 0; k < bd->n; k++) {
          int slot = bd->slots[k];
          t = slot >= 0 ? r->bound[slot]->t : NULL;
          if (!t && slot >= 0 && r->bound[slot]->kind == PD_VAL_EMPTY && !(bd->optional && 0))
            return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[%s] its input %s has no value: it is "
                                "neither fed nor computed before (nor initialized in the scope)",
                                in->desc ? in->desc->type : d->name, slot_label(p, slot));
          if (bd->is_list) in->list_buf[bd->list_off + k] = t;
        }
        char *f = (char *)p->work + bd->offset;
        if (bd->is_list) ((pd_tensor_list *)f)->data = in->list_buf + bd->list_off;
        else *(pd_tensor **)f = t;
      }
      /* LoD: the first input's, kept before the outputs replace any value */
      const pd_value *fv = in->n_bind && !in->bind[0].lod_of && in->bind[0].n && in->bind[0].slots[0] >= 0
                               ? r->bound[in->bind[0].slots[0]] : NULL;
      pd_lod first;
      memset(&first, 0, sizeof first);
      int64_t first_rows = fv && fv->t && fv->t->ndim ? fv->t->shape[0] : -2;
      const pd_value *seq = in->lod_src >= 0 && in->bind[in->lod_src].slots[0] >= 0 ? r->bound[in->bind[in->lod_src].slots[0]] : NULL;
      int flow = (fv && fv->lod.n) || seq || in->lod_out;
      if (fv && fv->lod.n) s = pd_lod_copy(&first, &fv->lod);
      if (s == PD_OK && lay && elem_layout > 0) s = pd_exec_layout_bind(r, in);
      pd_tensor *buf[4], **o = buf;
      int n = -4;
      pd_tensor *const *pre = pd_memplan_pre(p, list, i);
      int n_pre = pre ? in->n_out : 0;
      if (lay && pre)
        for (int k = 0; k < in->n_out; k++)
          if (pre[k]) pre[k]->layout = 0; /* a planned buffer's tag is this run's to set */
      pd_tensor *ipre[1] = {NULL};
      if (!pre && list == 0 && (ipre[0] = pd_exec_residual_inplace(p, in)) != NULL) /* keeps its layout tag */
        pre = ipre, n_pre = 1;
      if (s == PD_OK && lay && elem_layout < 0) {
        s = elem_layout == -2 ? pd_exec_layout_concat(p->work, pre, o, &n) : pd_exec_layout_chanmul(pre, o, &n);
      } else if (s == PD_OK && p->dev >= 0) { /* ops without tensor inputs create on the plan's GPU */
        int prev = pd_device_swap_current(p->dev);
        s = pd_op_exec_into(in->op, p->work, pre, n_pre, &o, &n);
        pd_device_swap_current(prev);
      } else if (s == PD_OK) {
        s = pd_op_exec_into(in->op, p->work, pre, n_pre, &o, &n);
      }
      if (lay) pd_exec_layout_done();
      for (int q = 0; q < n_lodt; q++) pd_tensor_release(lodt[q]);
      if (s != PD_OK) {
        pd_lod_clear(&first);
        return s;
      }
      pd_memplan_record(p, list, i, in, o, n);
      if (lay && (s = pd_exec_layout_post(r, i, in, elem_layout, o, n)) != PD_OK) {
        for (int k = 0; k < n; k++) pd_tensor_release(o[k]);
        if (o != buf) free(o);
        pd_lod_clear(&first);
        return s;
      }
      for (int k = 0; k < n; k++) {
        if (k < in->n_out && in->out[k] >= 0) {
          if (flow) pd_tensor_retain(o[k]); /* lod_flow reads the outputs */
          pd_value_set(r->bound[in->out[k]], o[k]);
        } else if (!flow) {
          pd_tensor_release(o[k]);
        }
      }
      if (flow) {
        s = pd_exec_lod_flow(r, in, o, n, &first, first_rows, seq);
        pd_lod_clear(&first);
        for (int k = 0; k < n; k++) pd_tensor_release(o[k]);
      }
      if (o != buf) free(o);
      if (s != PD_OK) return s;
    }
    for (int k = 0; k < in->n_release; k++) pd_value_clear(r->bound[in->release[k]]);
  }
  return PD_OK;
}

static pd_status check_feed(const pd_var *v, const pd_tensor *t, const char *name) {
  if (!v || v->type != PD_VT_LOD_TENSOR) return PD_OK;
  char a[160], b[160];
  if (pd_dtype_is_valid(v->dtype) && v->dtype != (int)t->dtype)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "feed: the data fed to variable %s has dtype %s, but "
                        "the program expects %s", name, pd_dtype_name(t->dtype), pd_dtype_name((pd_dtype)v->dtype));
  if (!v->need_check_feed) return PD_OK;
  int ok = v->ndim == t->ndim;
  for (int d = 0; ok && d < v->ndim; d++) ok = v->dims[d] < 0 || v->dims[d] == t->shape[d];
  if (!ok)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "feed: the data fed to variable %s has shape %s, but "
                        "the program expects %s (-1: any size)", name, pd_shape_str(t->ndim, t->shape, b, sizeof b),
                        pd_shape_str(v->ndim, v->dims, a, sizeof a));
  return PD_OK;
}

/* a scope value elsewhere than the plan's device moves there: to a GPU plan's device from the host
 * (set from numpy, loaded, a CPU run's), to a CPU plan's host from a GPU run's; the scope keeps the
 * moved copy (its LoD stays) */
static pd_status value_to_device(pd_value *v, int dev) {
  if (v->kind == PD_VAL_TENSOR && v->t && v->t->storage && pd_tensor_device(v->t) != dev) {
    pd_tensor *g;
    PD_TRY(pd_tensor_to_device(v->t, dev, 0, &g));
    pd_tensor *old = v->t;
    v->t = g;
    pd_tensor_release(old);
  }
  for (int i = 0; v->kind == PD_VAL_ARRAY && i < v->n_arr; i++) {
    if (!v->arr[i] || !v->arr[i]->storage || pd_tensor_device(v->arr[i]) == dev) continue;
    pd_tensor *g;
    PD_TRY(pd_tensor_to_device(v->arr[i], dev, 0, &g));
    pd_tensor_release(v->arr[i]);
    v->arr[i] = g;
  }
  return PD_OK;
}

static pd_status plan_run_body(pd_plan *p, pd_scope *scope, int n_feed, const pd_feed *feeds, pd_fetch *fetched);

static pd_status plan_run(pd_plan *p, pd_scope *scope, int n_feed, const pd_feed *feeds, pd_fetch *fetched) {
  if (!pd_cuda) return plan_run_body(p, scope, n_feed, feeds, fetched);
  /* with the backend loaded, what the executor itself allocates (LoD offsets, array lengths,
   * specials' values it writes on the host) is host memory whatever paddle.set_device says;
   * op instructions create on the plan's device (pd_exec_list) */
  pd_status s = p->dev >= 0 ? pd_device_activate(p->dev) : PD_OK;
  if (s != PD_OK) return s;
  int prev = pd_device_swap_current(PD_CPU);
  s = plan_run_body(p, scope, n_feed, feeds, fetched);
  pd_device_swap_current(prev);
  return s;
}

static pd_status plan_run_body(pd_plan *p, pd_scope *scope, int n_feed, const pd_feed *feeds, pd_fetch *fetched) {
  pd_exec r = {p, scope, p->bound};
  pd_status s = PD_OK;
  for (int i = 0; s == PD_OK && i < p->n_slots; i++) {
    if (p->slot_const[i]) {
      pd_tensor_retain(p->slot_const[i]);
      pd_value_set(&p->frame[i], p->slot_const[i]);
      p->bound[i] = &p->frame[i];
    } else if (p->slot_persist[i]) {
      pd_value *v = pd_scope_find(scope, p->slot_name[i]);
      if (!v) s = pd_scope_var(scope, p->slot_name[i], &v);
      if (s == PD_OK && pd_cuda) s = value_to_device(v, p->dev); /* no backend: all on the host */
      p->bound[i] = v;
    } else {
      p->bound[i] = &p->frame[i];
    }
  }
  const pd_block *b = p->prog->blocks[p->block];
  for (int i = 0; s == PD_OK && i < n_feed; i++) {
    int slot = p->feed_slots[i];
    if (slot < 0) continue;
    if (!feeds[i].t) {
      s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "feed: no data for variable %s", feeds[i].name);
      break;
    }
    s = check_feed(pd_block_find_var_recursive(b, feeds[i].name), feeds[i].t, feeds[i].name);
    if (s != PD_OK) break;
    pd_tensor *ft = feeds[i].t;
    if (p->dev >= 0 && ft->storage) { /* a GPU plan's feeds are copied to the device */
      s = pd_tensor_to_device(ft, p->dev, 0, &ft);
      if (s != PD_OK) break;
    } else {
      pd_tensor_retain(ft);
      if (ft->layout && (s = pd_exec_layout_feed(p, slot, &ft)) != PD_OK) {
        pd_tensor_release(ft);
        break;
      }
    }
    pd_value_set(p->bound[slot], ft);
    if (feeds[i].lod && feeds[i].lod->n) {
      s = pd_lod_check(feeds[i].lod, feeds[i].t->ndim ? feeds[i].t->shape[0] : 1, feeds[i].name);
      if (s == PD_OK) s = pd_lod_copy(&p->bound[slot]->lod, feeds[i].lod);
    }
  }
  if (s == PD_OK) s = pd_memplan_begin(p, n_feed, feeds);
  if (s == PD_OK) s = pd_exec_list(&r, 0);
  pd_memplan_end(p, s);
  for (int i = 0; s == PD_OK && i < p->n_fetch; i++) {
    int slot = p->fetch_slots[i];
    pd_value *v = slot >= 0 ? p->bound[slot] : NULL;
    if (!v || v->kind == PD_VAL_EMPTY)
      s = pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "fetch: variable %s has no value after the run (it "
                       "is neither computed by the program nor fed)", p->fetch_names[i]);
    else
      s = pd_value_copy(&fetched[i].v, v);
  }
  for (int i = 0; i < p->n_slots; i++) {
    if (p->bound[i] == &p->frame[i]) pd_value_clear(&p->frame[i]);
    p->bound[i] = NULL;
  }
  return s;
}

/* ---------------------------------------------------------------- the executor and its cache */
#define PD_PLAN_CACHE 16

struct pd_executor {
  pd_plan *plans[PD_PLAN_CACHE];
  uint64_t used[PD_PLAN_CACHE];
  uint64_t tick;
  int no_memplan;
  int layout;
  int dev; /* PD_CPU or a GPU */
};

void pd_executor_set_memplan(pd_executor *e, int on) { e->no_memplan = !on; }
void pd_executor_set_layout(pd_executor *e, int on) { e->layout = on; }

pd_status pd_executor_set_device(pd_executor *e, int dev) {
  if (dev < PD_CPU) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "executor: device %d is not a place", dev);
  if (dev >= 0) {
    pd_status s = pd_cuda_load();
    if (s != PD_OK)
      return pd_set_error(PD_ERR_UNAVAILABLE, "executor: cannot run on GPU %d: %s", dev, pd_cuda_unavailable_reason());
    int n = pd_cuda_device_count();
    if (dev >= n)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "executor: GPU %d does not exist (%d GPU%s found)", dev, n,
                          n == 1 ? "" : "s");
  }
  if (dev != e->dev) pd_executor_clear(e);
  e->dev = dev;
  return PD_OK;
}

int pd_executor_device(const pd_executor *e) { return e->dev; }

int64_t pd_executor_shrink(pd_executor *e) {
  int64_t n = 0;
  for (int i = 0; i < PD_PLAN_CACHE; i++) {
    pd_plan *p = e->plans[i];
    if (!p) continue;
    n += pd_memplan_workspace_bytes(p);
    pd_memplan_free(p);
  }
  return n;
}

pd_status pd_executor_new(pd_executor **out) {
  pd_executor *e = (pd_executor *)calloc(1, sizeof *e);
  if (!e) return oom();
  e->dev = PD_CPU;
  pd_program_init();
  *out = e;
  return PD_OK;
}

void pd_executor_clear(pd_executor *e) {
  for (int i = 0; i < PD_PLAN_CACHE; i++) {
    plan_free(e->plans[i]);
    e->plans[i] = NULL;
  }
}

int pd_executor_plan_stats(pd_executor *e, pd_plan_stats *out, int cap) {
  int n = 0;
  for (int i = 0; i < PD_PLAN_CACHE; i++) {
    const pd_plan *p = e->plans[i];
    if (!p || n >= cap) continue;
    pd_plan_stats *st = &out[n++];
    st->n_instr = p->n_lists ? p->lists[0].n : 0;
    st->n_slots = p->n_slots;
    st->n_consts = 0;
    for (int s = 0; s < p->n_slots; s++) st->n_consts += p->slot_const[s] != NULL;
    st->workspace_bytes = pd_memplan_workspace_bytes(p);
  }
  return n;
}

void pd_executor_free(pd_executor *e) {
  if (!e) return;
  pd_executor_clear(e);
  free(e);
}

static int plan_matches(const pd_plan *p, const pd_program *prog, int block, int n_feed, const pd_feed *feeds,
                        int n_fetch, const char *const *fetch_names) {
  if (p->prog != prog || p->rev != prog->rev || p->block != block || p->n_feed != n_feed || p->n_fetch != n_fetch)
    return 0;
  for (int i = 0; i < n_feed; i++)
    if (strcmp(p->feed_names[i], feeds[i].name) != 0) return 0;
  for (int i = 0; i < n_fetch; i++)
    if (strcmp(p->fetch_names[i], fetch_names[i]) != 0) return 0;
  return 1;
}

static pd_status find_or_build(pd_executor *e, pd_program *prog, int block, int n_feed, const pd_feed *feeds,
                               int n_fetch, const char *const *fetch_names, pd_plan **out) {
  pd_plan *p = NULL;
  int slot = -1;
  for (int i = 0; i < PD_PLAN_CACHE; i++)
    if (e->plans[i] && plan_matches(e->plans[i], prog, block, n_feed, feeds, n_fetch, fetch_names)) {
      p = e->plans[i];
      slot = i;
      break;
    }
  if (!p) {
    PD_TRY(plan_build(prog, block, n_feed, feeds, n_fetch, fetch_names, &p));
    p->dev = e->dev;
    /* a GPU plan's constants (embedded by converters, folded) live on its device */
    for (int i = 0; p->dev >= 0 && i < p->n_slots; i++) {
      pd_tensor *c = p->slot_const[i], *g;
      if (!c || !c->storage || pd_tensor_device(c) == p->dev) continue;
      pd_status cs = pd_tensor_to_device(c, p->dev, 0, &g);
      if (cs != PD_OK) {
        plan_free(p);
        return cs;
      }
      pd_tensor_release(c);
      p->slot_const[i] = g;
    }
    if (e->layout && p->dev < 0) { /* oneDNN's blocked layouts are host memory */
      pd_status ls = pd_plan_layout_build(p, (e->layout & 2) != 0, (e->layout & 4) != 0);
      if (ls != PD_OK) {
        plan_free(p);
        return ls;
      }
    }
    slot = 0;
    for (int i = 0; i < PD_PLAN_CACHE; i++) {
      if (!e->plans[i]) {
        slot = i;
        break;
      }
      if (e->used[i] < e->used[slot]) slot = i;
    }
    plan_free(e->plans[slot]);
    e->plans[slot] = p;
  }
  p->no_memplan = e->no_memplan || p->dev >= 0; /* the memory plan's buffers are host memory */
  e->used[slot] = ++e->tick;
  *out = p;
  return PD_OK;
}

pd_status pd_executor_prepare(pd_executor *e, pd_program *prog, int block, int n_feed,
                              const char *const *feed_names, int n_fetch, const char *const *fetch_names) {
  pd_feed *feeds = (pd_feed *)calloc((size_t)(n_feed ? n_feed : 1), sizeof(pd_feed));
  if (!feeds) return oom();
  for (int i = 0; i < n_feed; i++) feeds[i].name = feed_names[i];
  pd_plan *p;
  pd_status s = find_or_build(e, prog, block, n_feed, feeds, n_fetch, fetch_names, &p);
  free(feeds);
  return s;
}

pd_status pd_executor_run(pd_executor *e, pd_program *prog, int block, pd_scope *scope, int n_feed,
                          const pd_feed *feeds, int n_fetch, const char *const *fetch_names,
                          pd_fetch *fetched) {
  for (int i = 0; i < n_fetch; i++) memset(&fetched[i], 0, sizeof fetched[i]);
  pd_plan *p;
  PD_TRY(find_or_build(e, prog, block, n_feed, feeds, n_fetch, fetch_names, &p));
  pd_status s = plan_run(p, scope, n_feed, feeds, fetched);
  if (s != PD_OK)
    for (int i = 0; i < n_fetch; i++) pd_value_clear(&fetched[i].v);
  return s;
}
