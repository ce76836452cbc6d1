/* Plan passes run once when a plan is built (pd_executor.c, after converters and aliasing):
 * dead-code elimination (instructions whose results nobody reads) and constant folding
 * (instructions whose inputs are all constants run once at build time; their results become
 * constant slots). Both work on the top-level instruction list; control-flow instructions and
 * everything they read are kept as they are. */
#include <stdlib.h>
#include <string.h>
#include "pd_exec_internal.h"
#include "../ops/generated/pd_ops_gen.h"

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory optimizing a plan"); }

static void mark_reads(const pd_plan *p, const pd_instr *in, unsigned char *live) {
  for (int b = 0; b < in->n_bind; b++)
    for (int k = 0; k < in->bind[b].n; k++)
      if (in->bind[b].slots[k] >= 0) live[in->bind[b].slots[k]] = 1;
  for (int k = 0; k < in->n_ins; k++)
    if (in->ins[k] >= 0) live[in->ins[k]] = 1;
  int subs[2] = {in->sub[0], in->sub[1]};
  for (int s = 0; s < 2; s++)
    if (subs[s] >= 0)
      for (int i = 0; i < p->lists[subs[s]].n; i++) mark_reads(p, &p->lists[subs[s]].v[i], live);
  for (int s = 0; s < in->n_subs; s++)
    for (int i = 0; i < p->lists[in->subs[s]].n; i++) mark_reads(p, &p->lists[in->subs[s]].v[i], live);
}

static int has_effect(const pd_plan *p, const pd_instr *in) {
  if (in->special || in->op < 0) return 1;
  unsigned f = pd_op_defs[in->op].flags;
  if (f & (PD_OP_INPLACE | PD_OP_RANDOM)) return 1;
  for (int k = 0; k < in->n_out; k++)
    if (in->out[k] >= 0 && p->slot_persist[in->out[k]]) return 1;
  return 0;
}

pd_status pd_plan_dce(pd_plan *p) {
  pd_instr_list *l = &p->lists[0];
  unsigned char *live = (unsigned char *)calloc((size_t)(p->n_slots ? p->n_slots : 1), 1);
  unsigned char *keep = (unsigned char *)calloc((size_t)(l->n ? l->n : 1), 1);
  if (!live || !keep) {
    free(live);
    free(keep);
    return oom();
  }
  for (int s = 0; s < p->n_slots; s++) live[s] = p->slot_persist[s];
  for (int i = 0; i < p->n_fetch; i++)
    if (p->fetch_slots[i] >= 0) live[p->fetch_slots[i]] = 1;
  for (int i = l->n - 1; i >= 0; i--) {
    const pd_instr *in = &l->v[i];
    int need = has_effect(p, in);
    for (int k = 0; !need && k < in->n_out; k++) need = in->out[k] >= 0 && live[in->out[k]];
    if (!need) continue;
    keep[i] = 1;
    mark_reads(p, in, live);
  }
  int w = 0;
  for (int i = 0; i < l->n; i++) {
    if (keep[i]) l->v[w++] = l->v[i];
    else pd_instr_free(&l->v[i]);
  }
  l->n = w;
  free(live);
  free(keep);
  return PD_OK;
}

/* slots whose memory an in-place instruction writes (arg 0), followed back through view ops
 * and shares: folding them into constants would let a run change the constant */
static void mark_written(const pd_plan *p, unsigned char *written) {
  const pd_instr_list *l = &p->lists[0];
  for (int li = 0; li < p->n_lists; li++)
    for (int i = 0; i < p->lists[li].n; i++) {
      const pd_instr *in = &p->lists[li].v[i];
      if (in->op >= 0 && (pd_op_defs[in->op].flags & PD_OP_INPLACE) && in->n_bind && in->bind[0].slots[0] >= 0)
        written[in->bind[0].slots[0]] = 1;
      if (in->special) /* specials may write their inputs (tensor arrays ...) */
        for (int k = 0; k < in->n_ins; k++)
          if (in->ins[k] >= 0) written[in->ins[k]] = 1;
    }
  for (int changed = 1; changed;) {
    changed = 0;
    for (int i = l->n - 1; i >= 0; i--) {
      const pd_instr *in = &l->v[i];
      int view = in->op >= 0 && (pd_op_defs[in->op].flags & PD_OP_VIEW);
      if (!view) continue;
      int hit = 0;
      for (int k = 0; k < in->n_out; k++) hit |= in->out[k] >= 0 && written[in->out[k]];
      if (!hit) continue;
      for (int b = 0; b < in->n_bind; b++)
        for (int k = 0; k < in->bind[b].n; k++)
          if (in->bind[b].slots[k] >= 0 && !written[in->bind[b].slots[k]]) {
            written[in->bind[b].slots[k]] = 1;
            changed = 1;
          }
    }
  }
}

pd_status pd_plan_fold_constants(pd_plan *p) {
  pd_instr_list *l = &p->lists[0];
  unsigned char *written = (unsigned char *)calloc((size_t)(p->n_slots ? p->n_slots : 1), 1);
  unsigned char *fetched = (unsigned char *)calloc((size_t)(p->n_slots ? p->n_slots : 1), 1);
  if (!written || !fetched) {
    free(written);
    free(fetched);
    return oom();
  }
  mark_written(p, written);
  for (int i = 0; i < p->n_fetch; i++)
    if (p->fetch_slots[i] >= 0) fetched[p->fetch_slots[i]] = 1;
  for (int i = 0; i < p->n_feed; i++)
    if (p->feed_slots[i] >= 0) written[p->feed_slots[i]] = 1; /* a feed replaces it */
  pd_status s = PD_OK;
  int w = 0;
  size_t wsz = 8;
  for (int i = 0; i < l->n; i++)
    if (l->v[i].op >= 0 && pd_op_defs[l->v[i].op].args_size > wsz) wsz = pd_op_defs[l->v[i].op].args_size;
  void *work = malloc(wsz);
  if (!work) s = oom();
  for (int i = 0; s == PD_OK && i < l->n; i++) {
    pd_instr *in = &l->v[i];
    /* (kernels taking a value's LoD or setting one are left to run: constants carry no LoD) */
    int fold = !in->special && in->op >= 0 && !has_effect(p, in) && in->n_out > 0 && in->lod_src < 0 && !in->lod_out;
    for (int b = 0; fold && b < in->n_bind; b++)
      for (int k = 0; fold && k < in->bind[b].n; k++) {
        int sl = in->bind[b].slots[k];
        if (sl >= 0 && !p->slot_const[sl]) fold = 0;
      }
    for (int k = 0; fold && k < in->n_out; k++) {
      int o = in->out[k];
      fold = o >= 0 && !written[o] && !fetched[o] && !p->slot_const[o] && !p->slot_persist[o];
      /* one writer per slot: a slot written again later (loop bodies, shares) stays computed */
      for (int j = i + 1; fold && j < l->n; j++)
        for (int q = 0; q < l->v[j].n_out; q++)
          if (l->v[j].out[q] == o) fold = 0;
    }
    if (fold) {
      const pd_op_def *d = &pd_op_defs[in->op];
      memcpy(work, in->args, d->args_size);
      for (int b = 0; b < in->n_bind; b++) {
        const pd_binding *bd = &in->bind[b];
        char *f = (char *)work + bd->offset;
        for (int k = 0; k < bd->n; k++) {
          pd_tensor *t = bd->slots[k] >= 0 ? p->slot_const[bd->slots[k]] : NULL;
          if (bd->is_list) in->list_buf[bd->list_off + k] = t;
          else *(pd_tensor **)f = t;
        }
        if (bd->is_list) ((pd_tensor_list *)f)->data = in->list_buf + bd->list_off;
      }
      pd_tensor *buf[4], **o = buf;
      int n = -4;
      if (pd_op_exec(in->op, work, &o, &n) == PD_OK && n == in->n_out) {
        for (int k = 0; k < n; k++) p->slot_const[in->out[k]] = o[k];
        if (o != buf) free(o);
        pd_instr_free(in);
        continue;
      }
      /* it fails at build time: leave it to fail (or not) at run time, with the run's message */
      pd_clear_error();
      for (int k = 0; k < n; k++) pd_tensor_release(o[k]);
      if (o != buf) free(o);
    }
    l->v[w++] = *in;
  }
  if (s == PD_OK) l->n = w;
  free(work);
  free(written);
  free(fetched);
  return s;
}
