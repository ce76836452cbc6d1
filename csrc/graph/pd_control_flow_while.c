/* The executor's while and while_grad. while runs its body's list while the condition holds; when
 * the plan also holds its while_grad (and is_test is false) it records each iteration (Paddle's
 * StepScopes): carried slots at its start, the other slots its lists touch at its end, nested
 * whiles' records. while_grad restores them last to first around the gradient block, then puts
 * back the state the forward loop ended with (so later readers and fetches see it). */
#include <stdlib.h>
#include <string.h>
#include "pd_control_flow.h"

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory in a while loop"); }

struct wh_run;
typedef struct {
  int nv;             /* carried values, then the others */
  pd_value *v;
  int nk;
  struct wh_run *kids; /* the records of nested whiles during this iteration */
} wh_step;

typedef struct wh_run {
  int n, cap;
  wh_step *steps;
  wh_step final;      /* every recorded slot after the loop */
  int has_final;
} wh_run;

typedef struct wh_holder {
  int sub_block, is_test, has_grad;
  int ready;                   /* slot sets known (first recorded run) */
  int n_carry, n_local;
  int *slots;                  /* carried slots, then the others */
  int n_kids;
  struct wh_holder **kids;
  wh_run run;
} wh_holder;

static void run_clear(wh_run *r);

static void step_clear(wh_step *s) {
  for (int i = 0; i < s->nv; i++) pd_value_clear(&s->v[i]);
  free(s->v);
  for (int k = 0; k < s->nk; k++) run_clear(&s->kids[k]);
  free(s->kids);
  memset(s, 0, sizeof *s);
}

static void run_clear(wh_run *r) {
  for (int i = 0; i < r->n; i++) step_clear(&r->steps[i]);
  free(r->steps);
  if (r->has_final) step_clear(&r->final);
  memset(r, 0, sizeof *r);
}

static void holder_free(void *x) {
  wh_holder *h = (wh_holder *)x;
  if (!h) return;
  run_clear(&h->run);
  free(h->slots);
  free(h->kids);
  free(h);
}

/* ---------------------------------------------------------------- what an iteration touches */
static pd_status run_while(pd_exec *r, const pd_instr *in);

typedef struct {
  unsigned char *mark;
  wh_holder **kids;
  int n_kids, cap_kids;
} touched;

static void mark_slot(const pd_plan *p, touched *t, int s) {
  if (s >= 0 && s < p->n_slots && !p->slot_const[s] && !p->slot_persist[s]) t->mark[s] = 1;
}

static pd_status collect(const pd_plan *p, int list, touched *t) {
  const pd_instr_list *l = &p->lists[list];
  for (int i = 0; i < l->n; i++) {
    const pd_instr *in = &l->v[i];
    for (int b = 0; b < in->n_bind; b++)
      for (int k = 0; k < in->bind[b].n; k++) mark_slot(p, t, in->bind[b].slots[k]);
    for (int k = 0; k < in->n_ins; k++) mark_slot(p, t, in->ins[k]);
    for (int k = 0; k < in->n_out; k++) mark_slot(p, t, in->out[k]);
    if (in->special == run_while) {
      if (t->n_kids == t->cap_kids) {
        int nc = t->cap_kids ? t->cap_kids * 2 : 4;
        wh_holder **nk = (wh_holder **)realloc(t->kids, sizeof(wh_holder *) * (size_t)nc);
        if (!nk) return oom();
        t->kids = nk;
        t->cap_kids = nc;
      }
      t->kids[t->n_kids++] = (wh_holder *)in->extra;
    }
    for (int s = 0; s < 2; s++)
      if (in->sub[s] >= 0) PD_TRY(collect(p, in->sub[s], t));
    for (int s = 0; s < in->n_subs; s++) PD_TRY(collect(p, in->subs[s], t));
  }
  return PD_OK;
}

/* carried: the while's outputs (outer variables the body assigns); others: whatever else the
 * body's lists read or write (constants and persistable variables excluded) */
static pd_status holder_prepare(const pd_plan *p, const pd_instr *in, wh_holder *h) {
  touched t = {(unsigned char *)calloc((size_t)(p->n_slots ? p->n_slots : 1), 1), NULL, 0, 0};
  if (!t.mark) return oom();
  pd_status s = collect(p, in->sub[0], &t);
  int n = 0;
  for (int i = 0; i < p->n_slots; i++) n += t.mark[i];
  for (int k = 0; k < in->n_out; k++)
    if (in->out[k] >= 0 && !t.mark[in->out[k]] && !p->slot_const[in->out[k]] && !p->slot_persist[in->out[k]]) {
      t.mark[in->out[k]] = 1;
      n++;
    }
  if (s == PD_OK && !(h->slots = (int *)malloc(sizeof(int) * (size_t)(n ? n : 1)))) s = oom();
  if (s == PD_OK) {
    int c = 0;
    for (int k = 0; k < in->n_out; k++) {
      int o = in->out[k];
      if (o >= 0 && t.mark[o] == 1) {
        h->slots[c++] = o;
        t.mark[o] = 2;
      }
    }
    h->n_carry = c;
    for (int i = 0; i < p->n_slots; i++)
      if (t.mark[i] == 1) h->slots[c++] = i;
    h->n_local = c - h->n_carry;
    h->kids = t.kids;
    h->n_kids = t.n_kids;
    t.kids = NULL;
    h->ready = 1;
  }
  free(t.mark);
  free(t.kids);
  return s;
}

static pd_status save(pd_exec *r, const wh_holder *h, wh_step *st, int from, int to) {
  for (int i = from; i < to; i++) PD_TRY(pd_value_copy(&st->v[i], r->bound[h->slots[i]]));
  return PD_OK;
}

static pd_status restore(pd_exec *r, const wh_holder *h, const wh_step *st) {
  for (int i = 0; i < st->nv; i++) PD_TRY(pd_value_copy(r->bound[h->slots[i]], &st->v[i]));
  return PD_OK;
}

/* ---------------------------------------------------------------- while */
static pd_status run_while(pd_exec *r, const pd_instr *in) {
  wh_holder *h = (wh_holder *)in->extra;
  run_clear(&h->run);
  int record = h->has_grad && !h->is_test;
  if (record && !h->ready) PD_TRY(holder_prepare(r->p, in, h));
  int nv = h->n_carry + h->n_local;
  for (;;) {
    int go;
    PD_TRY(pd_cf_truth(in, in->ins[0] >= 0 ? r->bound[in->ins[0]] : NULL, 1, &go));
    if (!go) break;
    wh_step *st = NULL;
    if (record) {
      if (h->run.n == h->run.cap) {
        int nc = h->run.cap ? h->run.cap * 2 : 8;
        wh_step *ns = (wh_step *)realloc(h->run.steps, sizeof(wh_step) * (size_t)nc);
        if (!ns) return oom();
        h->run.steps = ns;
        h->run.cap = nc;
      }
      st = &h->run.steps[h->run.n++];
      memset(st, 0, sizeof *st);
      st->v = (pd_value *)calloc((size_t)(nv ? nv : 1), sizeof(pd_value));
      st->kids = (wh_run *)calloc((size_t)(h->n_kids ? h->n_kids : 1), sizeof(wh_run));
      if (!st->v || !st->kids) return oom();
      st->nv = nv;
      st->nk = h->n_kids;
      PD_TRY(save(r, h, st, 0, h->n_carry));
    }
    PD_TRY(pd_exec_list(r, in->sub[0]));
    if (record) {
      PD_TRY(save(r, h, st, h->n_carry, nv));
      for (int k = 0; k < h->n_kids; k++) {
        st->kids[k] = h->kids[k]->run; /* the nested loop's records move into this iteration's */
        memset(&h->kids[k]->run, 0, sizeof(wh_run));
      }
    }
  }
  if (record) {
    wh_step *f = &h->run.final;
    f->v = (pd_value *)calloc((size_t)(nv ? nv : 1), sizeof(pd_value));
    if (!f->v) return oom();
    f->nv = nv;
    h->run.has_final = 1;
    PD_TRY(save(r, h, f, 0, nv));
  }
  return PD_OK;
}

pd_status pd_cf_compile_while(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op) {
  int sub, sub_block;
  PD_TRY(pd_cf_compile_sub(p, op, "sub_block", &sub, &sub_block));
  int *cond = NULL, *xs = NULL, *outs = NULL, *all = NULL, nc = 0, nx = 0, no = 0;
  wh_holder *h = (wh_holder *)calloc(1, sizeof *h);
  pd_status s = h ? PD_OK : oom();
  if (s == PD_OK) s = pd_cf_slots(p, b, op, 0, "Condition", &cond, &nc);
  if (s == PD_OK) s = pd_cf_slots(p, b, op, 0, "X", &xs, &nx);
  if (s == PD_OK) s = pd_cf_slots(p, b, op, 1, "Out", &outs, &no);
  if (s == PD_OK && (nc != 1 || cond[0] < 0))
    s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[while] needs one Condition input");
  if (s == PD_OK && !(all = (int *)malloc(sizeof(int) * (size_t)(nx + 1)))) s = oom();
  pd_instr *in;
  if (s == PD_OK) {
    all[0] = cond[0];
    memcpy(all + 1, xs, sizeof(int) * (size_t)nx);
    s = pd_cf_add(p, list, op, run_while, all, nx + 1, outs, no, &in);
  }
  if (s == PD_OK) {
    const pd_attr *t = pd_opdesc_attr(op, "is_test");
    h->sub_block = sub_block;
    h->is_test = t && t->i;
    in->sub[0] = sub;
    in->extra = h;
    in->extra_free = holder_free;
    h = NULL;
  }
  holder_free(h);
  free(cond);
  free(xs);
  free(outs);
  free(all);
  return s;
}

/* ---------------------------------------------------------------- while_grad */
static pd_status run_while_grad(pd_exec *r, const pd_instr *in) {
  wh_holder *h = (wh_holder *)in->extra;
  if (h->is_test)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[while_grad] the while loop ran with is_test=True, "
                        "so it kept no step values for its gradient");
  pd_status s = PD_OK;
  for (int t = h->run.n - 1; s == PD_OK && t >= 0; t--) {
    wh_step *st = &h->run.steps[t];
    s = restore(r, h, st);
    for (int k = 0; s == PD_OK && k < st->nk && k < h->n_kids; k++) {
      run_clear(&h->kids[k]->run);
      h->kids[k]->run = st->kids[k];
      memset(&st->kids[k], 0, sizeof(wh_run));
    }
    if (s == PD_OK) s = pd_exec_list(r, in->sub[0]);
  }
  if (s == PD_OK && h->run.has_final) s = restore(r, h, &h->run.final);
  run_clear(&h->run);
  return s;
}

/* the forward loop of a gradient block: the while whose body is the block's forward block */
static wh_holder *find_forward(const pd_plan *p, int fwd_block) {
  for (int l = 0; l < p->n_lists; l++)
    for (int i = 0; i < p->lists[l].n; i++) {
      const pd_instr *in = &p->lists[l].v[i];
      if (in->special == run_while && ((wh_holder *)in->extra)->sub_block == fwd_block) return (wh_holder *)in->extra;
    }
  return NULL;
}

pd_status pd_cf_compile_while_grad(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op) {
  int sub, gblock;
  PD_TRY(pd_cf_compile_sub(p, op, "sub_block", &sub, &gblock));
  int fwd = p->prog->blocks[gblock]->forward_block_idx;
  wh_holder *h = find_forward(p, fwd);
  if (!h)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[while_grad] its gradient block %d belongs to block %d, "
                        "but no while op running block %d comes before it", gblock, fwd, fwd);
  h->has_grad = 1;
  int *xs = NULL, *gx = NULL, nx = 0, ng = 0;
  pd_status s = pd_cf_slots(p, b, op, 0, "X", &xs, &nx);
  if (s == PD_OK) s = pd_cf_slots(p, b, op, 1, "X@GRAD", &gx, &ng);
  pd_instr *in;
  if (s == PD_OK) s = pd_cf_add(p, list, op, run_while_grad, xs, nx, gx, ng, &in);
  if (s == PD_OK) {
    in->sub[0] = sub;
    in->extra = h; /* owned by the forward while */
  }
  free(xs);
  free(gx);
  return s;
}
