"""paddle.linalg's decompositions and what is built on them (Paddle 2.3 names): qr, svd, eigh,
eigvalsh, eig, eigvals, lu, lu_unpack over the LAPACK ops of ops/linalg.yaml, and pinv,
matrix_rank, lstsq, cond as compositions. eigh/eigvalsh and svd (reduced) have gradients
(PyLayers); backward through qr, full svd, eig and lu raises NotImplementedError."""
import numpy as np

from .._C import _C_ops
from ..autograd.py_layer import PyLayer

__all__ = []
_TENSOR_METHODS = ["qr", "eig", "eigvals", "eigvalsh", "lu", "lu_unpack", "lstsq", "cond"]


def _p():
    import paddle
    return paddle


def _check_float(op, x):
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"[{op}] expected a float32 or float64 tensor, received {x.dtype.name}")


def _mT(x):
    perm = list(range(len(x.shape)))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return _C_ops.transpose(x, perm)


def _needs_grad(*ts):
    p = _p()
    return p.is_grad_enabled() and any(not t.stop_gradient for t in ts)


def _no_grad_layer(op):
    class _NoGrad(PyLayer):
        @staticmethod
        def forward(ctx, x, fn):
            out = fn(x)
            return out

        @staticmethod
        def backward(ctx, *grads):
            raise NotImplementedError(f"[{op}] backward is not implemented for paddle.linalg.{op}")
    _NoGrad.__name__ = f"{op}_no_grad"
    return _NoGrad


_NOGRAD = {}


def _forward_only(op, x, fn):
    """fn(x) when x needs no gradient; else wrapped so that backward raises NotImplementedError."""
    if not _needs_grad(x):
        return fn(x)
    if op not in _NOGRAD:
        _NOGRAD[op] = _no_grad_layer(op)
    return _NOGRAD[op].apply(x, fn)


def qr(x, mode="reduced", name=None):
    _check_float("qr", x)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"[qr] mode must be 'reduced', 'complete' or 'r', received {mode!r}")
    out = _forward_only("qr", x, lambda t: tuple(_C_ops.qr(t, mode)))
    return out[1] if mode == "r" else out


class _Svd(PyLayer):
    @staticmethod
    def forward(ctx, x):
        u, s, vh = _C_ops.svd(x, False)
        ctx.save_for_backward(u, s, vh)
        return u, s, vh

    @staticmethod
    def backward(ctx, gu, gs, gvh):
        # Townsend, "Differentiating the Singular Value Decomposition" (distinct singular values):
        # gA = U [F o (U^T gU - gU^T U) S + diag(gS) + S F o (V^T gV - gV^T V)] V^T
        #      + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T)
        p = _p()
        u, s, vh = ctx.saved_tensor()
        k = s.shape[-1]
        eye = p.eye(k, dtype=s.dtype)
        s2 = s * s
        f = (1.0 - eye) / (p.unsqueeze(s2, [-2]) - p.unsqueeze(s2, [-1]) + eye)
        srow = p.unsqueeze(s, [-2])          # multiplies columns by s
        scol = p.unsqueeze(s, [-1])          # multiplies rows by s
        v = _mT(vh)
        terms = []
        if gs is not None:
            terms.append(p.unsqueeze(gs, [-1]) * eye)
        extra = None
        if gu is not None:
            j = _C_ops.matmul(u, gu, True, False)
            terms.append((f * (j - _mT(j))) * srow)
            proj = gu - _C_ops.matmul(u, j, False, False)           # (I - U U^T) gU
            extra = _C_ops.matmul(proj / srow, vh, False, False)
        if gvh is not None:
            gv = _mT(gvh)
            kk = _C_ops.matmul(v, gv, True, False)
            terms.append(scol * (f * (kk - _mT(kk))))
            proj = gv - _C_ops.matmul(v, kk, False, False)            # (I - V V^T) gV
            e2 = _C_ops.matmul(u / srow, proj, False, True)
            extra = e2 if extra is None else extra + e2
        ga = None
        if terms:
            inner = terms[0]
            for t in terms[1:]:
                inner = inner + t
            ga = _C_ops.matmul(_C_ops.matmul(u, inner, False, False), vh, False, False)
        if extra is not None:
            ga = extra if ga is None else ga + extra
        return ga


def svd(x, full_matrices=False, name=None):
    """Returns (U, S, VH) with x = U diag(S) VH. Gradients for full_matrices=False (distinct
    singular values); backward through full_matrices=True raises NotImplementedError."""
    _check_float("svd", x)
    if not full_matrices and _needs_grad(x):
        return _Svd.apply(x)
    return _forward_only("svd", x, lambda t: tuple(_C_ops.svd(t, bool(full_matrices))))


class _Eigh(PyLayer):
    @staticmethod
    def forward(ctx, x, uplo):
        w, v = _C_ops.eigh(x, uplo)
        ctx.save_for_backward(w, v)
        return w, v

    @staticmethod
    def backward(ctx, gw, gv):
        # gA = V (diag(gw) + F o (V^T gV)) V^T, F_ij = 1 / (w_j - w_i) off the diagonal
        p = _p()
        w, v = ctx.saved_tensor()
        inner = None
        if gw is not None:
            inner = p.unsqueeze(gw, [-1]) * p.eye(w.shape[-1], dtype=w.dtype)
        if gv is not None:
            diff = p.unsqueeze(w, [-2]) - p.unsqueeze(w, [-1])
            eye = p.eye(w.shape[-1], dtype=w.dtype)
            f = (1.0 - eye) / (diff + eye)
            t = f * _C_ops.matmul(v, gv, True, False)
            inner = t if inner is None else inner + t
        if inner is None:
            return p.zeros_like(v)
        return _C_ops.matmul(_C_ops.matmul(v, inner, False, False), v, False, True)


def eigh(x, UPLO="L", name=None):
    """Eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices."""
    _check_float("eigh", x)
    if UPLO not in ("L", "U"):
        raise ValueError(f"[eigh] UPLO must be 'L' or 'U', received {UPLO!r}")
    if _needs_grad(x):
        return _Eigh.apply(x, UPLO)
    return tuple(_C_ops.eigh(x, UPLO))


def eigvalsh(x, UPLO="L", name=None):
    return eigh(x, UPLO)[0]


def eig(x, name=None):
    """Eigenvalues and eigenvectors of general real matrices (complex results)."""
    _check_float("eig", x)
    return _forward_only("eig", x, lambda t: tuple(_C_ops.eig(t)))


def eigvals(x, name=None):
    return eig(x)[0]


def lu(x, pivot=True, get_infos=False, name=None):
    """LU factorization with partial pivoting: (LU, Pivots[, Infos]); pivots are 1-based int32."""
    _check_float("lu", x)
    if not pivot:
        raise NotImplementedError("[lu] pivot=False is not supported on CPU (as in Paddle)")
    lu_, piv, infos = _forward_only("lu", x, lambda t: tuple(_C_ops.lu(t, True)))
    return (lu_, piv, infos) if get_infos else (lu_, piv)


def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """(P, L, U) from lu's (LU, Pivots): A = P @ L @ U."""
    p = _p()
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    L = U = P = None
    if unpack_ludata:
        L = _C_ops.tril_triu(x, -1, True)
        L = _C_ops.slice(L, [len(x.shape) - 1], [0], [k]) + p.eye(m, k, dtype=x.dtype)
        U = _C_ops.slice(_C_ops.tril_triu(x, 0, False), [len(x.shape) - 2], [0], [k])
    if unpack_pivots:
        piv = y.numpy().astype(np.int64) - 1
        batch = piv.shape[:-1]
        perm = np.tile(np.arange(m), batch + (1,))
        flat_p, flat_perm = piv.reshape(-1, piv.shape[-1]), perm.reshape(-1, m)
        for b in range(flat_p.shape[0]):
            for i, j in enumerate(flat_p[b]):
                flat_perm[b, i], flat_perm[b, j] = flat_perm[b, j], flat_perm[b, i]
        # A = P L U with P[perm[i], i] = 1
        pm = np.zeros(batch + (m, m), dtype=x.dtype.name)
        fp = pm.reshape(-1, m, m)
        for b in range(fp.shape[0]):
            fp[b, flat_perm[b], np.arange(m)] = 1
        P = p.to_tensor(pm)
    return P, L, U


def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """Pseudo-inverse through the SVD (eigh when hermitian); singular values <= rcond * max are dropped."""
    p = _p()
    _check_float("pinv", x)
    if hermitian:
        w, v = eigh(x)
        s = p.abs(w)
        u, vt = v * p.unsqueeze(p.sign(w) + (w == 0).astype(x.dtype), [-2]), _mT(v)
    else:
        u, s, vt = svd(x, False)
    cut = p.max(s, axis=-1, keepdim=True) * float(rcond)
    keep = (s > cut).astype(x.dtype)
    sinv = keep / (s + (1.0 - keep))
    return _C_ops.matmul(_mT(vt) * p.unsqueeze(sinv, [-2]), u, False, True)


def matrix_rank(x, tol=None, hermitian=False, name=None):
    p = _p()
    _check_float("matrix_rank", x)
    if hermitian:
        s = p.abs(eigvalsh(x))
    else:
        s = svd(x, False)[1]
    smax = p.max(s, axis=-1, keepdim=True)
    if tol is None:
        eps = float(np.finfo(x.dtype.name).eps)
        thr = smax * (max(x.shape[-2], x.shape[-1]) * eps)
    elif isinstance(tol, (int, float)):
        thr = p.full_like(smax, float(tol))
    else:
        thr = p.unsqueeze(p.cast(tol, x.dtype), [-1])
    return p.sum((s > thr).astype("int64"), axis=-1)


def lstsq(x, y, rcond=None, driver=None, name=None):
    """Least squares x @ sol ~= y through the SVD: (solution, residuals, rank, singular_values)."""
    p = _p()
    _check_float("lstsq", x)
    m, n = x.shape[-2], x.shape[-1]
    if rcond is None:
        rcond = float(np.finfo(x.dtype.name).eps) * max(m, n)
    u, s, vt = svd(x, False)
    cut = p.max(s, axis=-1, keepdim=True) * float(rcond)
    keep = (s > cut).astype(x.dtype)
    sinv = keep / (s + (1.0 - keep))
    sol = _C_ops.matmul(_mT(vt) * p.unsqueeze(sinv, [-2]), _C_ops.matmul(u, y, True, False), False, False)
    rank = p.sum(keep.astype("int64"), axis=-1)
    if m > n and bool((rank == n).all()):
        r = _C_ops.matmul(x, sol, False, False) - y
        residuals = p.sum(r * r, axis=-2)
    else:
        residuals = p.zeros([0], dtype=x.dtype)
    return sol, residuals, rank, s


def cond(x, p=None, name=None):
    """Condition number: p in None/2/-2 through singular values, else norm(x) * norm(inv(x))."""
    pd = _p()
    _check_float("cond", x)
    if p is None or p in (2, -2):
        s = svd(x, False)[1]
        mx, mn = pd.max(s, axis=-1), pd.min(s, axis=-1)
        return mn / mx if p == -2 else mx / mn
    from .linalg_ext import inv
    xi = inv(x)
    if p in ("fro", "nuc"):
        if p == "fro":
            f = lambda t: pd.sqrt(pd.sum(t * t, axis=[-2, -1]))  # noqa: E731
        else:
            f = lambda t: pd.sum(svd(t, False)[1], axis=-1)  # noqa: E731
        return f(x) * f(xi)
    if p in (1, -1, np.inf, -np.inf, float("inf"), float("-inf")):
        ax = -2 if p in (1, -1) else -1
        red = pd.max if p > 0 else pd.min
        f = lambda t: red(pd.sum(pd.abs(t), axis=ax), axis=-1)  # noqa: E731
        return f(x) * f(xi)
    raise ValueError(f"[cond] p must be None, 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, received {p!r}")
