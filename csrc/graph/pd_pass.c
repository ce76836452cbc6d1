/* The analysis pass registry (pd_pass.h), the helpers pass files share, the clean-up passes
 * (is_test, dropout at inference, identity scales) and the final sweep that drops persistables
 * no op reads any more (from the block and the scope). With a debug directory, the program is
 * written after each pass as NN_<pass>.pdmodel and NN_<pass>.txt. */
#include "pd_pass.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "pd_program_io.h"

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory in an analysis pass"); }

/* ---------------------------------------------------------------- helpers */
/* does any op of a sub-block (BLOCK/BLOCKS attribute) of op read or write name */
static int sub_uses(const pd_program *p, const pd_opdesc *op, const char *name, int depth) {
  if (depth > 64) return 1;
  for (int a = 0; a < op->n_attrs; a++) {
    const pd_attr *at = &op->attrs[a];
    int64_t n = at->type == PD_AT_BLOCK ? 1 : at->type == PD_AT_BLOCKS ? at->n : 0;
    for (int64_t j = 0; j < n; j++) {
      int64_t bi = at->type == PD_AT_BLOCK ? at->i : at->ints[j];
      if (bi < 0 || bi >= p->n_blocks) continue;
      const pd_block *b = p->blocks[bi];
      for (int i = 0; i < b->n_ops; i++) {
        const pd_opdesc *o = b->ops[i];
        if (pd_opdesc_reads(o, name) || sub_uses(p, o, name, depth + 1)) return 1;
        for (int s = 0; s < o->n_out; s++)
          for (int k = 0; k < o->out[s].n; k++)
            if (!strcmp(o->out[s].args[k], name)) return 1;
      }
    }
  }
  return 0;
}

int pd_pass_readers(const pd_block *b, const char *name, int *first) {
  int n = 0;
  if (first) *first = -1;
  for (int i = 0; i < b->n_ops; i++) {
    const pd_opdesc *op = b->ops[i];
    if (pd_opdesc_reads(op, name) || sub_uses(b->prog, op, name, 0)) {
      if (!n && first) *first = i;
      n++;
    }
  }
  return n;
}

int pd_pass_writer(const pd_block *b, const char *name, int before) {
  int w = -1;
  for (int i = 0; i < before && i < b->n_ops; i++) {
    const pd_opdesc *op = b->ops[i];
    for (int s = 0; s < op->n_out; s++)
      for (int k = 0; k < op->out[s].n; k++)
        if (!strcmp(op->out[s].args[k], name)) w = i;
  }
  return w;
}

int pd_pass_is_protected(const pd_pass_ctx *c, const char *name) {
  for (int i = 0; i < c->n_feed; i++)
    if (!strcmp(c->feed_names[i], name)) return 1;
  for (int i = 0; i < c->n_fetch; i++)
    if (!strcmp(c->fetch_names[i], name)) return 1;
  const pd_var *v = pd_block_find_var(c->prog->blocks[0], name);
  return v && v->persistable;
}

static pd_status set_arg(char **slot, const char *v) {
  size_t n = strlen(v) + 1;
  char *d = (char *)malloc(n);
  if (!d) return oom();
  memcpy(d, v, n);
  free(*slot);
  *slot = d;
  return PD_OK;
}

static pd_status replace_in_block(pd_program *p, pd_block *b, int start, const char *from, const char *to, int depth) {
  if (depth > 64) return PD_OK;
  for (int i = start; i < b->n_ops; i++) {
    pd_opdesc *op = b->ops[i];
    for (int s = 0; s < op->n_in; s++)
      for (int k = 0; k < op->in[s].n; k++)
        if (!strcmp(op->in[s].args[k], from)) PD_TRY(set_arg(&op->in[s].args[k], to));
    for (int a = 0; a < op->n_attrs; a++) {
      pd_attr *at = &op->attrs[a];
      if (at->type == PD_AT_VAR && at->s && !strcmp(at->s, from)) PD_TRY(set_arg(&at->s, to));
      for (int64_t j = 0; at->type == PD_AT_VARS && j < at->n; j++)
        if (!strcmp(at->strings[j], from)) PD_TRY(set_arg(&at->strings[j], to));
      int64_t n = at->type == PD_AT_BLOCK ? 1 : at->type == PD_AT_BLOCKS ? at->n : 0;
      for (int64_t j = 0; j < n; j++) {
        int64_t bi = at->type == PD_AT_BLOCK ? at->i : at->ints[j];
        if (bi > 0 && bi < p->n_blocks) PD_TRY(replace_in_block(p, p->blocks[bi], 0, from, to, depth + 1));
      }
    }
  }
  return PD_OK;
}

pd_status pd_pass_replace_reads(pd_block *b, int start, const char *from, const char *to) {
  pd_program_touch(b->prog);
  return replace_in_block(b->prog, b, start, from, to, 0);
}

pd_status pd_pass_remove_op(pd_pass_ctx *c, pd_block *b, int i) {
  (void)c;
  return pd_block_remove_ops(b, i, i + 1);
}

pd_tensor *pd_pass_param(const pd_pass_ctx *c, const char *name) {
  const pd_var *v = pd_block_find_var(c->prog->blocks[0], name);
  if (!v || !v->persistable) return NULL;
  pd_value *val = pd_scope_find_local(c->scope, name);
  if (!val || val->kind != PD_VAL_TENSOR || !val->t || val->t->dtype != PD_FLOAT32 || !val->t->storage) return NULL;
  return val->t;
}

pd_status pd_pass_new_param(pd_pass_ctx *c, pd_block *b, const char *base, pd_tensor *t, char *name_out, size_t cap) {
  char nm[512];
  for (int k = 0;; k++) {
    snprintf(nm, sizeof nm, "%s@pass_%d", base, k);
    if (!pd_block_find_var_recursive(b, nm) && !pd_scope_find_local(c->scope, nm)) break;
  }
  pd_var *v;
  pd_status s = pd_block_var(b, nm, &v);
  if (s != PD_OK) {
    pd_tensor_release(t);
    return s;
  }
  v->dtype = (int)t->dtype;
  v->persistable = 1;
  s = pd_var_set_shape(v, t->ndim, t->shape);
  pd_value *val = NULL;
  if (s == PD_OK) s = pd_scope_var(c->scope, nm, &val);
  if (s != PD_OK) {
    pd_tensor_release(t);
    return s;
  }
  pd_value_set(val, t);
  snprintf(name_out, cap, "%s", nm);
  return PD_OK;
}

const char *pd_pass_in(const pd_opdesc *op, const char *slot) {
  const pd_opslot *s = pd_opdesc_slot(op, 0, slot);
  return s && s->n == 1 ? s->args[0] : NULL;
}
const char *pd_pass_out(const pd_opdesc *op, const char *slot) {
  const pd_opslot *s = pd_opdesc_slot(op, 1, slot);
  return s && s->n == 1 ? s->args[0] : NULL;
}
int64_t pd_pass_attr_int(const pd_opdesc *op, const char *name, int64_t dflt) {
  const pd_attr *a = pd_opdesc_attr(op, name);
  int64_t v = dflt;
  if (a && pd_attr_as_int(op, a, &v) != PD_OK) {
    pd_clear_error();
    v = dflt;
  }
  return v;
}
double pd_pass_attr_float(const pd_opdesc *op, const char *name, double dflt) {
  const pd_attr *a = pd_opdesc_attr(op, name);
  double v = dflt;
  if (a && pd_attr_as_double(op, a, &v) != PD_OK) {
    pd_clear_error();
    v = dflt;
  }
  return v;
}
const char *pd_pass_attr_str(const pd_opdesc *op, const char *name, const char *dflt) {
  const pd_attr *a = pd_opdesc_attr(op, name);
  return a && a->type == PD_AT_STRING && a->s ? a->s : dflt;
}

/* Removes op i (out = f(in) with f the identity): later readers of out read in instead; when out
 * must keep its name (fetched), in's producer writes out directly. Returns 0 if it must stay. */
pd_status pd_pass_drop_identity(pd_pass_ctx *c, pd_block *b, int i, const char *in, const char *out, int *done) {
  *done = 0;
  char *si = NULL, *so = NULL;
  size_t li = strlen(in) + 1, lo = strlen(out) + 1;
  si = (char *)malloc(li);
  so = (char *)malloc(lo);
  if (!si || !so) {
    free(si);
    free(so);
    return oom();
  }
  memcpy(si, in, li);
  memcpy(so, out, lo);
  pd_status s = PD_OK;
  if (!pd_pass_is_protected(c, so) && pd_pass_writer(b, so, b->n_ops) == i) {
    s = pd_pass_replace_reads(b, i + 1, so, si);
    if (s == PD_OK) s = pd_pass_remove_op(c, b, i);
    *done = s == PD_OK;
  } else {
    int w = pd_pass_writer(b, si, i);
    if (w >= 0 && !pd_pass_is_protected(c, si) && pd_pass_readers(b, si, NULL) == 1 &&
        pd_pass_writer(b, so, b->n_ops) == i) {
      pd_opdesc *wop = b->ops[w];
      for (int sl = 0; sl < wop->n_out && s == PD_OK; sl++)
        for (int k = 0; k < wop->out[sl].n && s == PD_OK; k++)
          if (!strcmp(wop->out[sl].args[k], si)) s = set_arg(&wop->out[sl].args[k], so);
      if (s == PD_OK) s = pd_pass_remove_op(c, b, i);
      *done = s == PD_OK;
    }
  }
  free(si);
  free(so);
  return s;
}

/* ---------------------------------------------------------------- clean-up passes */
static pd_status pass_is_test(pd_pass_ctx *c) {
  for (int bi = 0; bi < c->prog->n_blocks; bi++) {
    pd_block *b = c->prog->blocks[bi];
    for (int i = 0; i < b->n_ops; i++) {
      pd_opdesc *op = b->ops[i];
      pd_attr *a = pd_opdesc_attr(op, "is_test");
      if (!a || (a->type != PD_AT_BOOLEAN && a->type != PD_AT_INT) || a->i) continue;
      a->i = 1;
      c->n_rewrites++;
    }
  }
  pd_program_touch(c->prog);
  return PD_OK;
}

/* dropout at inference: downgrade_in_infer scales by 1 - p, upscale_in_train is the identity */
static pd_status pass_dropout(pd_pass_ctx *c) {
  pd_block *b = c->prog->blocks[0];
  for (int i = 0; i < b->n_ops; i++) {
    pd_opdesc *op = b->ops[i];
    if (strcmp(op->type, "dropout") != 0 || !pd_pass_attr_int(op, "is_test", 0)) continue;
    const char *x = pd_pass_in(op, "X"), *o = pd_pass_out(op, "Out");
    if (!x || !o) continue;
    const char *impl = pd_pass_attr_str(op, "dropout_implementation", "downgrade_in_infer");
    double p = pd_pass_attr_float(op, "dropout_prob", 0.5);
    if (!strcmp(impl, "upscale_in_train") || p == 0.0) {
      int done;
      PD_TRY(pd_pass_drop_identity(c, b, i, x, o, &done));
      if (done) {
        c->n_rewrites++;
        i--;
      }
      continue;
    }
    /* scale(x, 1 - p) in its place: Paddle's scale op, Out only */
    PD_TRY(pd_opdesc_set_type(op, "scale"));
    PD_TRY(pd_opdesc_remove_slot(op, 1, "Mask"));
    PD_TRY(pd_opdesc_remove_slot(op, 0, "Seed"));
    while (op->n_attrs) {
      char an[256];
      snprintf(an, sizeof an, "%s", op->attrs[0].name);
      PD_TRY(pd_opdesc_remove_attr(op, an));
    }
    PD_TRY(pd_opdesc_set_attr_float(op, "scale", PD_AT_FLOAT, 1.0 - p));
    PD_TRY(pd_opdesc_set_attr_float(op, "bias", PD_AT_FLOAT, 0.0));
    PD_TRY(pd_opdesc_set_attr_int(op, "bias_after_scale", PD_AT_BOOLEAN, 1));
    c->n_rewrites++;
  }
  return PD_OK;
}

/* scale(x, 1, 0) (save_inference_model's scale per fetch target) */
static pd_status pass_identity_scale(pd_pass_ctx *c) {
  pd_block *b = c->prog->blocks[0];
  for (int i = 0; i < b->n_ops; i++) {
    pd_opdesc *op = b->ops[i];
    if (strcmp(op->type, "scale") != 0 || pd_opdesc_slot(op, 0, "ScaleTensor")) continue;
    if (pd_pass_attr_float(op, "scale", 1.0) != 1.0 || pd_pass_attr_float(op, "bias", 0.0) != 0.0) continue;
    const char *x = pd_pass_in(op, "X"), *o = pd_pass_out(op, "Out");
    if (!x || !o) continue;
    int done;
    PD_TRY(pd_pass_drop_identity(c, b, i, x, o, &done));
    if (done) {
      c->n_rewrites++;
      i--;
    }
  }
  return PD_OK;
}

/* ---------------------------------------------------------------- shape_op_cancel_pass */
/* an int-list attribute (ints/longs) into v (at most cap), its length or -1 */
static int int_list(const pd_opdesc *op, const char *name, int64_t *v, int cap) {
  const pd_attr *a = pd_opdesc_attr(op, name);
  if (!a || (a->type != PD_AT_INTS && a->type != PD_AT_LONGS) || a->n > cap) return -1;
  for (int64_t k = 0; k < a->n; k++) v[k] = a->ints[k];
  return (int)a->n;
}

static int unread_extra_outputs(const pd_block *b, const pd_opdesc *op, const char *main_slot) {
  for (int s = 0; s < op->n_out; s++) {
    if (!strcmp(op->out[s].name, main_slot)) continue;
    for (int k = 0; k < op->out[s].n; k++)
      if (pd_pass_readers(b, op->out[s].args[k], NULL)) return 0;
  }
  return 1;
}

static int has_input(const pd_opdesc *op, const char *slot) {
  const pd_opslot *s = pd_opdesc_slot(op, 0, slot);
  return s && s->n > 0;
}

/* Ops that do nothing, or pairs that undo each other, in block 0 (XShape outputs unread):
 * transpose2 with the identity permutation; transpose2 -> transpose2 with the inverse
 * permutation (the middle value read by nothing else); flatten_contiguous_range with
 * start_axis == stop_axis; reshape2 -> reshape2 where the second's shape has no 0 (copy) entry
 * and no shape tensors (the first reshape is skipped). */
static pd_status pass_shape_cancel(pd_pass_ctx *c) {
  pd_block *b = c->prog->blocks[0];
  for (int i = 0; i < b->n_ops; i++) {
    pd_opdesc *op = b->ops[i];
    const char *x = pd_pass_in(op, "X"), *o = pd_pass_out(op, "Out");
    if (!x || !o || !unread_extra_outputs(b, op, "Out")) continue;
    int done = 0;
    if (!strcmp(op->type, "transpose2")) {
      int64_t p1[PD_MAX_DIMS], p2[PD_MAX_DIMS];
      int n1 = int_list(op, "axis", p1, PD_MAX_DIMS), ident = n1 >= 0;
      for (int k = 0; k < n1 && ident; k++) ident = p1[k] == k;
      if (ident) {
        PD_TRY(pd_pass_drop_identity(c, b, i, x, o, &done));
      } else if (n1 > 0 && !pd_pass_is_protected(c, o)) {
        int j;
        if (pd_pass_readers(b, o, &j) != 1 || strcmp(b->ops[j]->type, "transpose2")) continue;
        pd_opdesc *op2 = b->ops[j];
        const char *x2 = pd_pass_in(op2, "X"), *o2 = pd_pass_out(op2, "Out");
        int n2 = int_list(op2, "axis", p2, PD_MAX_DIMS), inverse = n2 == n1 && x2 && o2 && !strcmp(x2, o);
        for (int k = 0; k < n1 && inverse; k++) inverse = p2[k] >= 0 && p2[k] < n1 && p1[p2[k]] == k;
        if (!inverse || !unread_extra_outputs(b, op2, "Out") || pd_pass_writer(b, x, j) != pd_pass_writer(b, x, i))
          continue;
        /* y = x: the second becomes the identity from x, then the first has no reader */
        PD_TRY(pd_pass_drop_identity(c, b, j, x, o2, &done));
        if (done && pd_pass_readers(b, o, NULL) == 0) {
          PD_TRY(pd_pass_remove_op(c, b, i));
          c->n_rewrites++;
        }
      }
    } else if (!strcmp(op->type, "flatten_contiguous_range")) {
      if (pd_pass_attr_int(op, "start_axis", 1) == pd_pass_attr_int(op, "stop_axis", 1))
        PD_TRY(pd_pass_drop_identity(c, b, i, x, o, &done));
    } else if (!strcmp(op->type, "reshape2") && !pd_pass_is_protected(c, o)) {
      int j;
      if (pd_pass_readers(b, o, &j) != 1 || strcmp(b->ops[j]->type, "reshape2")) continue;
      pd_opdesc *op2 = b->ops[j];
      const char *x2 = pd_pass_in(op2, "X");
      int64_t sh[PD_MAX_DIMS];
      int n = int_list(op2, "shape", sh, PD_MAX_DIMS), ok = n > 0 && x2 && !strcmp(x2, o);
      for (int k = 0; k < n && ok; k++) ok = sh[k] != 0;
      if (!ok || has_input(op2, "Shape") || has_input(op2, "ShapeTensor")) continue;
      if (pd_pass_writer(b, x, j) != pd_pass_writer(b, x, i)) continue;
      const char *args[1] = {x};
      char *xc = (char *)malloc(strlen(x) + 1);
      if (!xc) return oom();
      strcpy(xc, x);
      args[0] = xc;
      pd_status st = pd_opdesc_set_slot(op2, 0, "X", 1, args);
      free(xc);
      PD_TRY(st);
      PD_TRY(pd_pass_remove_op(c, b, i));
      done = 1;
    }
    if (done) {
      c->n_rewrites++;
      i = -1; /* indices moved: start over (programs are small) */
    }
  }
  pd_program_touch(c->prog);
  return PD_OK;
}

/* drops persistables no op names any more, from the program and the scope */
static pd_status sweep_unused(pd_pass_ctx *c) {
  pd_program *p = c->prog;
  pd_block *b = p->blocks[0];
  unsigned char *keep = (unsigned char *)malloc((size_t)(b->n_vars ? b->n_vars : 1));
  if (!keep) return oom();
  int dropped = 0;
  for (int i = 0; i < b->n_vars; i++) {
    const pd_var *v = b->vars[i];
    keep[i] = 1;
    if (!v->persistable || v->type != PD_VT_LOD_TENSOR) continue;
    int used = 0;
    for (int bi = 0; bi < p->n_blocks && !used; bi++)
      for (int k = 0; k < p->blocks[bi]->n_ops && !used; k++) {
        const pd_opdesc *op = p->blocks[bi]->ops[k];
        used = pd_opdesc_reads(op, v->name);
        for (int s = 0; s < op->n_out && !used; s++)
          for (int j = 0; j < op->out[s].n && !used; j++) used = !strcmp(op->out[s].args[j], v->name);
      }
    if (used) continue;
    keep[i] = 0;
    pd_scope_erase(c->scope, v->name);
    dropped++;
  }
  pd_status s = dropped ? pd_block_retain_vars(b, keep) : PD_OK;
  free(keep);
  return s;
}

/* ---------------------------------------------------------------- registry */
typedef struct {
  const char *name;
  pd_pass_fn fn;
} pass_entry;

static const pass_entry k_passes[] = {
    {"is_test_pass", pass_is_test},
    {"simplify_with_basic_ops_pass", pass_dropout},
    {"identity_scale_op_clean_pass", pass_identity_scale},
    {"conv_bn_fuse_pass", pd_pass_conv_bn},
    {"se_residual_fold_pass", pd_pass_se_residual},
    {"conv_transpose_eltwiseadd_bn_fuse_pass", pd_pass_conv_transpose_bn},
    {"shape_op_cancel_pass", pass_shape_cancel},
    {"scale_fold_pass", pd_pass_scale_fold},
    {"conv_bias_mkldnn_fuse_pass", pd_pass_conv_bias},
    {"conv_elementwise_add_mkldnn_fuse_pass", pd_pass_conv_residual},
    {"conv_activation_mkldnn_fuse_pass", pd_pass_conv_act},
    {"conv_to_fused_pass", pd_pass_conv_to_fused},
    {"fc_fuse_pass", pd_pass_fc},
    {"elementwise_act_onednn_fuse_pass", pd_pass_elementwise_act},
};
#define N_PASSES ((int)(sizeof k_passes / sizeof k_passes[0]))

const char *const *pd_pass_default_list(int *n) {
  static const char *names[N_PASSES];
  for (int i = 0; i < N_PASSES; i++) names[i] = k_passes[i].name;
  *n = N_PASSES;
  return names;
}

int pd_pass_known(const char *name) {
  for (int i = 0; i < N_PASSES; i++)
    if (!strcmp(k_passes[i].name, name)) return 1;
  return 0;
}

static pd_status mkdirs(const char *dir) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", dir);
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      mkdir(tmp, 0755);
      *p = '/';
    }
  if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
    return pd_set_error(PD_ERR_EXTERNAL, "IR debug: cannot make the directory %s: %s", dir, strerror(errno));
  return PD_OK;
}

static pd_status dump(pd_pass_ctx *c, const char *name) {
  PD_TRY(mkdirs(c->debug_dir));
  char path[4096];
  uint8_t *buf;
  size_t len;
  PD_TRY(pd_program_serialize(c->prog, &buf, &len));
  snprintf(path, sizeof path, "%s/%02d_%s.pdmodel", c->debug_dir, c->step, name);
  FILE *f = fopen(path, "wb");
  pd_status s = PD_OK;
  if (!f || fwrite(buf, 1, len, f) != len) s = pd_set_error(PD_ERR_EXTERNAL, "IR debug: cannot write %s", path);
  if (f) fclose(f);
  free(buf);
  PD_TRY(s);
  char *txt = pd_program_to_string(c->prog);
  if (!txt) return oom();
  snprintf(path, sizeof path, "%s/%02d_%s.txt", c->debug_dir, c->step, name);
  f = fopen(path, "w");
  if (!f || fputs(txt, f) < 0) s = pd_set_error(PD_ERR_EXTERNAL, "IR debug: cannot write %s", path);
  if (f) fclose(f);
  free(txt);
  return s;
}

pd_status pd_pass_run(pd_pass_ctx *c, const char *name) {
  for (int i = 0; i < N_PASSES; i++) {
    if (strcmp(k_passes[i].name, name) != 0) continue;
    c->n_rewrites = 0;
    pd_status s = k_passes[i].fn(c);
    if (s != PD_OK) {
      char m[1024];
      snprintf(m, sizeof m, "%s", pd_last_error());
      return pd_set_error(s, "analysis pass %s: %s", name, m);
    }
    if (c->debug_dir) PD_TRY(dump(c, name));
    c->step++;
    return PD_OK;
  }
  return pd_set_error(PD_ERR_NOT_FOUND, "Paddle-C has no analysis pass named %s", name);
}

pd_status pd_pass_run_list(pd_pass_ctx *c, int n, const char *const *names) {
  if (c->debug_dir) {
    c->step = 0;
    PD_TRY(dump(c, "origin"));
    c->step = 1;
  }
  for (int i = 0; i < n; i++) PD_TRY(pd_pass_run(c, names[i]));
  PD_TRY(sweep_unused(c));
  pd_program_touch(c->prog);
  return PD_OK;
}
