"""paddle.linalg's decompositions and what is built on them (Paddle 2.3 names): qr, svd, eigh,
eigvalsh, eig, eigvals, lu, lu_unpack over the LAPACK ops of ops/linalg.yaml, and pinv,
matrix_rank, lstsq, cond as compositions. Gradients are PyLayers with the standard formulas
(their backward runs paddle ops, so create_graph records it): eigh, svd (full_matrices=True
ignores the gradient of the extra, arbitrary columns), qr (any shape for 'reduced' and 'r';
'complete' where Q is square in the reduced sense, m <= n), eig (distinct eigenvalues; a loss
that depends on the phase of a complex eigenvector gets the phase-invariant part) and lu (square
matrices)."""
import numpy as np

from .. import _C
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


def _check_float_or_complex(op, x):
    if x.dtype.name not in ("float32", "float64", "complex64", "complex128"):
        raise TypeError(f"[{op}] expected a float32, float64, complex64 or complex128 tensor, received "
                        f"{x.dtype.name}")


def _mT(x):
    perm = list(range(len(x.shape)))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return _C_ops.transpose(x, perm)


def _needs_grad(*ts):
    p = _p()
    return p.is_grad_enabled() and any(not t.stop_gradient for t in ts)


def _copyltu(m):
    """The symmetric matrix with m's lower triangle (diagonal included)."""
    low = _C_ops.tril_triu(m, -1, True)
    return low + _mT(low) + _C_ops.tril_triu(_C_ops.tril_triu(m, 0, True), 0, False)


def _qr_backward_square_r(q, r, gq, gr):
    """A = QR with Q [m, k] orthonormal and R [k, k] upper triangular and invertible:
    gA = (gQ + Q copyltu(M)) R^-T with M = R gR^T - gQ^T Q."""
    m = _C_ops.matmul(r, gr, False, True) - _C_ops.matmul(gq, q, True, False)
    b = gq + _C_ops.matmul(q, _copyltu(m), False, False)
    # b R^-T: solve R X^T = b^T
    return _mT(_C_ops.triangular_solve(r, _mT(b), True, False, False))


class _Qr(PyLayer):
    @staticmethod
    def forward(ctx, x, mode):
        q, r = _C_ops.qr(x, mode)
        ctx.save_for_backward(q, r, x)
        ctx.mode = mode
        return q, r

    @staticmethod
    def backward(ctx, gq, gr):
        q, r, x = ctx.saved_tensor()
        m, n = q.shape[-2], r.shape[-1]
        if ctx.mode == "complete" and m > n:
            raise NotImplementedError("[qr] the gradient of mode='complete' is not defined when the matrix has "
                                      "more rows than columns (the extra columns of Q are arbitrary)")
        p = _p()
        if gq is None:
            gq = p.zeros_like(q)
        if gr is None:
            gr = p.zeros_like(r)
        if m >= n:
            return _qr_backward_square_r(q, r, gq, gr)
        # wide: A = [X | Y] = Q [U | V], X = Q U square; gY = Q gV, X gets gQ + Y gV^T
        nd = len(r.shape)
        u = _C_ops.slice(r, [nd - 1], [0], [m])
        gu = _C_ops.slice(gr, [nd - 1], [0], [m])
        gv = _C_ops.slice(gr, [nd - 1], [m], [n])
        y = _C_ops.slice(x, [nd - 1], [m], [n])
        gx = _qr_backward_square_r(q, u, gq + _C_ops.matmul(y, gv, False, True), gu)
        return _C_ops.concat([gx, _C_ops.matmul(q, gv, False, False)], nd - 1)


def qr(x, mode="reduced", name=None):
    """(Q, R) with x = Q R (R only for mode='r'); gradients as described in the module doc."""
    _check_float("qr", x)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"[qr] mode must be 'reduced', 'complete' or 'r', received {mode!r}")
    if _needs_grad(x):
        out = _Qr.apply(x, mode)
    else:
        out = tuple(_C_ops.qr(x, mode))
    return out[1] if mode == "r" else out


def _svd_backward(u, s, vh, gu, gs, gvh):
    """Townsend, "Differentiating the Singular Value Decomposition" (distinct singular values):
    gA = U [F o (U^T gU - gU^T U) S + diag(gS) + S F o (V^T gV - gV^T V)] V^T
         + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T)"""
    p = _p()
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


class _Svd(PyLayer):
    @staticmethod
    def forward(ctx, x, full):
        u, s, vh = _C_ops.svd(x, full)
        ctx.save_for_backward(u, s, vh)
        return u, s, vh

    @staticmethod
    def backward(ctx, gu, gs, gvh):
        u, s, vh = ctx.saved_tensor()
        k = s.shape[-1]
        nd = len(u.shape)
        if u.shape[-1] != k:  # full_matrices: only the first k columns of U are determined
            u = _C_ops.slice(u, [nd - 1], [0], [k])
            gu = None if gu is None else _C_ops.slice(gu, [nd - 1], [0], [k])
        if vh.shape[-2] != k:
            vh = _C_ops.slice(vh, [nd - 2], [0], [k])
            gvh = None if gvh is None else _C_ops.slice(gvh, [nd - 2], [0], [k])
        ga = _svd_backward(u, s, vh, gu, gs, gvh)
        return ga if ga is not None else _p().zeros([*u.shape[:-1], vh.shape[-1]], dtype=u.dtype)


def svd(x, full_matrices=False, name=None):
    """Returns (U, S, VH) with x = U diag(S) VH. Gradients assume distinct singular values; with
    full_matrices=True the gradients of U's columns and VH's rows past min(m, n), which are an
    arbitrary basis, are ignored."""
    _check_float("svd", x)
    if _needs_grad(x):
        return _Svd.apply(x, bool(full_matrices))
    return tuple(_C_ops.svd(x, bool(full_matrices)))


class _Eigh(PyLayer):
    @staticmethod
    def forward(ctx, x, uplo):
        w, v = _C_ops.eigh(x, uplo)
        ctx.save_for_backward(w, v)
        return w, v

    @staticmethod
    def backward(ctx, gw, gv):
        # gA = V (diag(gw) + F o (V^H gV)) V^H, F_ij = 1 / (w_j - w_i) off the diagonal (V^T for
        # real V; w is real also for complex Hermitian input)
        p = _p()
        w, v = ctx.saved_tensor()
        cplx = v.dtype.name in ("complex64", "complex128")
        inner = None
        if gw is not None:
            inner = p.unsqueeze(gw, [-1]) * p.eye(w.shape[-1], dtype=w.dtype)
            if cplx:
                inner = _C_ops.complex(inner, p.zeros_like(inner))
        if gv is not None:
            diff = p.unsqueeze(w, [-2]) - p.unsqueeze(w, [-1])
            eye = p.eye(w.shape[-1], dtype=w.dtype)
            f = (1.0 - eye) / (diff + eye)
            vh = _mH(v) if cplx else _mT(v)
            if cplx:
                f = _C_ops.complex(f, p.zeros_like(f))
            t = f * _C_ops.matmul(vh, gv, False, False)
            inner = t if inner is None else inner + t
        if inner is None:
            return p.zeros_like(v)
        vh = _mH(v) if cplx else _mT(v)
        return _C_ops.matmul(_C_ops.matmul(v, inner, False, False), vh, False, False)


def eigh(x, UPLO="L", name=None):
    """Eigenvalues (ascending) and eigenvectors (columns) of symmetric (complex: Hermitian) matrices."""
    _check_float_or_complex("eigh", x)
    if UPLO not in ("L", "U"):
        raise ValueError(f"[eigh] UPLO must be 'L' or 'U', received {UPLO!r}")
    if _needs_grad(x):
        return _Eigh.apply(x, UPLO)
    return tuple(_C_ops.eigh(x, UPLO))


def _real_embed(x):
    """[[Re x, -Im x], [Im x, Re x]]: a real matrix whose products, (conjugate) transposes and
    pseudo-inverses are the embeddings of x's, and whose eigen/singular values are x's, each twice."""
    nd = len(x.shape)
    xr, xi = _C_ops.real(x), _C_ops.imag(x)
    top = _C_ops.concat([xr, _C_ops.scale(xi, -1.0, 0.0, True)], nd - 1)
    return _C_ops.concat([top, _C_ops.concat([xi, xr], nd - 1)], nd - 2)


def _unembed(m, n):
    """The complex [..., n, k] matrix whose embedding is m ([..., 2n, 2k])."""
    nd = len(m.shape)
    k = m.shape[-1] // 2
    left = _C_ops.slice(m, [nd - 1], [0], [k])
    return _C_ops.complex(_C_ops.slice(left, [nd - 2], [0], [n]), _C_ops.slice(left, [nd - 2], [n], [2 * n]))


def eigvalsh(x, UPLO="L", name=None):
    """The eigenvalues (ascending, real) of symmetric or complex Hermitian matrices."""
    return eigh(x, UPLO)[0]


def _csolve(a, b):
    """Solves a @ z = b for complex a [..., n, n], b [..., n, k] through the real block system
    [[Re a, -Im a], [Im a, Re a]] [Re z; Im z] = [Re b; Im b] (differentiable)."""
    nd = len(a.shape)
    ar, ai = _C_ops.real(a), _C_ops.imag(a)
    top = _C_ops.concat([ar, _C_ops.scale(ai, -1.0, 0.0, True)], nd - 1)
    bot = _C_ops.concat([ai, ar], nd - 1)
    big = _C_ops.concat([top, bot], nd - 2)
    rhs = _C_ops.concat([_C_ops.real(b), _C_ops.imag(b)], nd - 2)
    z = _C_ops.solve(big, rhs)
    n = a.shape[-1]
    return _C_ops.complex(_C_ops.slice(z, [nd - 2], [0], [n]), _C_ops.slice(z, [nd - 2], [n], [2 * n]))


def _mH(x):
    return _C_ops.conj(_mT(x))


class _Eig(PyLayer):
    @staticmethod
    def forward(ctx, x):
        w, v = _C_ops.eig(x)
        ctx.save_for_backward(w, v)
        ctx.cplx_in = x.dtype.name in ("complex64", "complex128")
        return w, v

    @staticmethod
    def backward(ctx, gw, gv):
        # gA = Re[ V^-H (diag(gw) + (V^H gV - V^H V diag(Re diag(V^H gV))) / conj(E)) V^H ],
        # E_ij = w_j - w_i off the diagonal (distinct eigenvalues; LAPACK's unit-norm vectors)
        p = _p()
        w, v = ctx.saved_tensor()
        n = w.shape[-1]
        eye = p.eye(n, dtype=w.dtype)
        inner = None
        if gv is not None:
            vhgv = _C_ops.matmul(_mH(v), gv, False, False)
            d = _C_ops.real(_C_ops.diagonal(vhgv, 0, -2, -1))
            dc = _C_ops.complex(d, p.zeros_like(d))
            vhgv = vhgv - _C_ops.matmul(_mH(v), v * p.unsqueeze(dc, [-2]), False, False)
            wc = _C_ops.conj(w)
            e = p.unsqueeze(wc, [-2]) - p.unsqueeze(wc, [-1]) + eye
            inner = (vhgv / e) * (1.0 - eye)
        if gw is not None:
            dg = p.unsqueeze(gw, [-1]) * eye
            inner = dg if inner is None else inner + dg
        if inner is None:
            if ctx.cplx_in:
                return p.zeros_like(v)
            return p.zeros([*v.shape], dtype="float64" if w.dtype.name == "complex128" else "float32")
        ga = _csolve(_mH(v), _C_ops.matmul(inner, _mH(v), False, False))
        return ga if ctx.cplx_in else _C_ops.real(ga)


def eig(x, name=None):
    """Eigenvalues and eigenvectors of general real or complex matrices (complex results, in the
    order LAPACK's geev gives them, as Paddle)."""
    _check_float_or_complex("eig", x)
    if _needs_grad(x):
        return _Eig.apply(x)
    return tuple(_C_ops.eig(x))


def eigvals(x, name=None):
    """Eigenvalues of general real or complex matrices, in Paddle's order: its eigvals kernel hands
    the row-major matrix to LAPACK's geev as column-major, i.e. takes the eigenvalues of x^T
    (the same values; the order can differ from eig's). Not differentiable, as in Paddle."""
    _check_float_or_complex("eigvals", x)
    nd = len(x.shape)
    if nd < 2 or x.shape[-1] != x.shape[-2]:
        return _C_ops.eig(x)[0]  # raises eig's error for x itself
    perm = list(range(nd - 2)) + [nd - 1, nd - 2]
    return _C_ops.eig(_C_ops.transpose(x.detach() if not _C._is_variable(x) else x, perm))[0]


class _Lu(PyLayer):
    @staticmethod
    def forward(ctx, x):
        lu_, piv, infos = _C_ops.lu(x, True)
        ctx.save_for_backward(lu_, piv)
        ctx.mark_non_differentiable(piv, infos)
        return lu_, piv, infos

    @staticmethod
    def backward(ctx, glu, gpiv=None, ginfos=None):
        # A = P L U: gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T, gL/gU the strictly
        # lower / upper (with diagonal) parts of the packed gradient
        lu_, piv = ctx.saved_tensor()
        m, n = lu_.shape[-2], lu_.shape[-1]
        if m != n:
            raise NotImplementedError(f"[lu] the gradient is implemented for square matrices, received "
                                      f"{m} x {n}")
        p = _p()
        if glu is None:
            return p.zeros_like(lu_)
        low = _C_ops.tril_triu(lu_, -1, True) + p.eye(n, dtype=lu_.dtype)
        up = _C_ops.tril_triu(lu_, 0, False)
        gl = _C_ops.tril_triu(glu, -1, True)
        gu = _C_ops.tril_triu(glu, 0, False)
        mid = _C_ops.tril_triu(_C_ops.matmul(low, gl, True, False), -1, True) + \
            _C_ops.tril_triu(_C_ops.matmul(gu, up, False, True), 0, False)
        y = _mT(_C_ops.triangular_solve(up, _mT(mid), True, False, False))       # mid U^-T
        z = _C_ops.triangular_solve(low, y, False, True, True)                   # L^-T y
        perm, _, _ = lu_unpack(lu_, piv, unpack_ludata=False)
        return _C_ops.matmul(perm, z, False, False)


def lu(x, pivot=True, get_infos=False, name=None):
    """LU factorization with partial pivoting: (LU, Pivots[, Infos]); pivots are 1-based int32.
    Differentiable for square matrices."""
    _check_float("lu", x)
    if not pivot:
        raise NotImplementedError("[lu] pivot=False is not supported on CPU (as in Paddle)")
    if _needs_grad(x):
        lu_, piv, infos = _Lu.apply(x)
    else:
        lu_, piv, infos = tuple(_C_ops.lu(x, True))
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
    if x.dtype.name in ("complex64", "complex128"):  # through the real embedding (see _real_embed)
        return _unembed(pinv(_real_embed(x), rcond, hermitian), x.shape[-1])
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
    """Number of singular values (|eigenvalues| when hermitian) above tol (default: the largest
    times max(m, n) * eps). int64 at the default API level (Paddle 2.3's kernel and documentation);
    int32 with FLAGS_set_to_1d off, as Paddle 2.6."""
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
    r = p.sum((s > thr).astype("int64"), axis=-1)
    return r if _C.set_to_1d() else r.astype("int32")


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
    # a static program cannot test the rank: residuals are computed (valid for full rank)
    if m > n and (_C._is_variable(rank) or bool((rank == n).all())):
        r = _C_ops.matmul(x, sol, False, False) - y
        residuals = p.sum(r * r, axis=-2)
    else:
        residuals = p.zeros([0], dtype=x.dtype)
    return sol, residuals, rank.astype("int32"), s  # Paddle's rank is int32


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
