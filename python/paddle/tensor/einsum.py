"""paddle.einsum as a composition over existing ops (so it has autograd): the equation is parsed
(explicit or implicit output, '...' broadcast dims), repeated labels within an operand become
diagonals, labels used nowhere else are summed early, and operands are contracted pairwise
left to right as transpose -> reshape -> batched matmul -> reshape."""
from .. import _C
from .._C import _C_ops
from . import static_shape as _ss

Tensor = _C.Tensor


def _err(msg):
    raise ValueError(f"[einsum] {msg}")


def _parse(equation, operands):
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->")
        if "->" in rhs:
            _err(f"equation {equation!r} has more than one '->'")
    else:
        lhs, rhs = eq, None
    terms = lhs.split(",")
    if len(terms) != len(operands):
        _err(f"equation {equation!r} names {len(terms)} operands, received {len(operands)}")
    ell = 0
    labels = []
    for t, x in zip(terms, operands):
        if t.count("...") > 1 or t.replace("...", "").count(".") or not t.replace("...", "").isalpha() and \
                t.replace("...", ""):
            _err(f"bad term {t!r} in {equation!r}")
        n_named = len(t.replace("...", ""))
        if "..." in t:
            e = x.ndim - n_named
            if e < 0:
                _err(f"term {t!r} names more dims than its operand has ({x.ndim})")
            ell = max(ell, e)
        elif n_named != x.ndim:
            _err(f"term {t!r} names {n_named} dims, its operand has {x.ndim}")
    for t, x in zip(terms, operands):
        if "..." in t:
            a, b = t.split("...")
            e = x.ndim - len(a) - len(b)
            labels.append(list(a) + [f".{ell - e + i}" for i in range(e)] + list(b))
        else:
            labels.append(list(t))
    ell_labels = [f".{i}" for i in range(ell)]
    if rhs is None:
        counts = {}
        for ls in labels:
            for c in ls:
                counts[c] = counts.get(c, 0) + 1
        out = ell_labels + sorted(c for c, k in counts.items() if k == 1 and not c.startswith("."))
    else:
        if rhs.count("...") > 1 or not rhs.replace("...", "").isalpha() and rhs.replace("...", ""):
            _err(f"bad output {rhs!r}")
        a, _, b = rhs.partition("...")
        out = list(a) + (ell_labels if "..." in rhs else []) + list(b)
        if len(set(out)) != len(out):
            _err(f"output {rhs!r} repeats a label")
        seen = {c for ls in labels for c in ls}
        for c in out:
            if c not in seen:
                _err(f"output label {c!r} is not in any input")
    return labels, out


def _sum(x, axes):
    from .math_reduce import sum as _s
    return _s(x, axis=axes)


def _single(x, ls, keep):
    """Diagonals for repeated labels, then sums over labels not in keep."""
    while True:
        dup = next((c for c in ls if ls.count(c) > 1), None)
        if dup is None:
            break
        i = ls.index(dup)
        j = ls.index(dup, i + 1)
        if x.shape[i] != x.shape[j] and x.shape[i] >= 0 and x.shape[j] >= 0:
            _err(f"label {dup!r} has sizes {x.shape[i]} and {x.shape[j]}")
        x = _C_ops.diagonal(x, 0, i, j)
        ls = [c for k, c in enumerate(ls) if k not in (i, j)] + [dup]
    drop = [k for k, c in enumerate(ls) if c not in keep]
    if drop:
        if len(drop) == len(ls):
            x = _C_ops.reshape(_sum(x, None), [1])
            return x, []
        x = _sum(x, drop)
        ls = [c for c in ls if c not in set(ls[k] for k in drop)]
    return x, ls


def _permute(x, ls, order):
    perm = [ls.index(c) for c in order]
    if perm != list(range(len(perm))):
        x = _C_ops.transpose(x, perm)
    return x


def _prod(v):
    p = 1
    for s in v:
        p *= s
    return p


def _contract(a, la, b, lb, keep):
    # sizes: ints, or (a program's unknown dims) int64 tensors holding them at run time
    sa = dict(zip(la, _ss.dims(a)))
    sb = dict(zip(lb, _ss.dims(b)))
    # a shared label of size 1 on one side broadcasts: sum it out of the other side when it is
    # contracted, expand the size-1 side when it is kept
    for c in [c for c in la if c in sb]:
        if isinstance(sa[c], Tensor) or isinstance(sb[c], Tensor):
            continue  # unknown while the program is built: taken as equal
        if sa[c] != sb[c]:
            if sa[c] != 1 and sb[c] != 1:
                _err(f"label {c!r} has sizes {sa[c]} and {sb[c]}")
            if c in keep:
                if sa[c] == 1:
                    shape = [sb[c] if d == c else sa[d] for d in la]
                    a = _C_ops.expand(a, shape)
                    sa[c] = sb[c]
                else:
                    shape = [sa[c] if d == c else sb[d] for d in lb]
                    b = _C_ops.expand(b, shape)
                    sb[c] = sa[c]
            else:
                if sa[c] != 1:
                    a = _C_ops.unsqueeze(_sum(a, [la.index(c)]), [la.index(c)]) if len(la) > 1 else \
                        _C_ops.reshape(_sum(a, None), [1])
                    sa[c] = 1
                else:
                    b = _C_ops.unsqueeze(_sum(b, [lb.index(c)]), [lb.index(c)]) if len(lb) > 1 else \
                        _C_ops.reshape(_sum(b, None), [1])
                    sb[c] = 1
    batch = [c for c in la if c in sb and c in keep]
    contr = [c for c in la if c in sb and c not in keep]
    a_only = [c for c in la if c not in sb]
    b_only = [c for c in lb if c not in sa]
    if not la:
        a = _C_ops.reshape(a, [1])
    if not lb:
        b = _C_ops.reshape(b, [1])
    A = _permute(a, la, batch + a_only + contr) if la else a
    B = _permute(b, lb, batch + contr + b_only) if lb else b
    nb, m = _ss.mul(*[sa[c] for c in batch]), _ss.mul(*[sa[c] for c in a_only])
    k, n = _ss.mul(*[sa[c] for c in contr]), _ss.mul(*[sb[c] for c in b_only])
    A = _ss.reshape_to(A, [nb, m, k])
    B = _ss.reshape_to(B, [nb, k, n])
    out = _C_ops.matmul(A, B, False, False)
    shape = [sa[c] for c in batch] + [sa[c] for c in a_only] + [sb[c] for c in b_only]
    labels = batch + a_only + b_only
    out = _ss.reshape_to(out, shape if shape else [1])
    return out, labels


def einsum(equation, *operands):
    """Einstein summation, e.g. einsum('bij,bjk->bik', x, y); operands may also be one list."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        _err("expected at least one operand")
    for i, x in enumerate(operands):
        if not isinstance(x, Tensor):
            raise TypeError(f"[einsum] expected operand {i} to be a paddle.Tensor, received {type(x).__name__}")
    if not isinstance(equation, str):
        raise TypeError(f"[einsum] expected a str equation, received {type(equation).__name__}")
    labels, out = _parse(equation, operands)
    dt = operands[0].dtype
    ops = []
    for i, (x, ls) in enumerate(zip(operands, labels)):
        if x.dtype != dt:
            raise TypeError(f"[einsum] expected operands of one dtype, operand {i} is {x.dtype.name}, "
                            f"operand 0 is {dt.name}")
        later = set(out).union(*[set(l2) for j, l2 in enumerate(labels) if j != i])
        ops.append(_single(x, list(ls), later))
    cur, cl = ops[0]
    for i in range(1, len(ops)):
        keep = set(out).union(*[set(l2) for _, l2 in ops[i + 1:]])
        cur, cl = _contract(cur, cl, ops[i][0], ops[i][1], keep)
    cur, cl = _single(cur, cl, set(out))
    if not out:
        return _C_ops.reshape(cur, [])  # a scalar: [1] or 0-D by the API level's rule
    return _permute(cur, cl, out)
