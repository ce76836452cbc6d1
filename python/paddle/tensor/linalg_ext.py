"""paddle.linalg's matrix functions (Paddle 2.3 names and signatures) and their Tensor methods:
inv, det, slogdet, solve, cholesky, triangular_solve over the LAPACK ops of ops/linalg.yaml,
and compositions of ops (cholesky_solve, matrix_power, multi_dot, cov), so autograd follows."""
from .._C import _C_ops

__all__ = []  # top-level paddle names come from the other families; paddle.linalg re-exports these
_TENSOR_METHODS = ["inverse", "cholesky", "cholesky_solve", "cov", "corrcoef", "householder_product",
                   "pca_lowrank", "matrix_power", "multi_dot",
                   "solve", "triangular_solve"]


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


def inv(x, name=None):
    _check_float("inverse", x)
    return _C_ops.inverse(x)


def inverse(x, name=None):
    return inv(x)


def det(x, name=None):
    _check_float("determinant", x)
    return _C_ops.determinant(x)


def slogdet(x, name=None):
    """Returns one tensor [2, *batch]: the signs and the logs of |det| (Paddle 2.3's layout)."""
    _check_float("slogdeterminant", x)
    return _C_ops.slogdeterminant(x)


def _broadcast_batch(op, x, y):
    """x [..., n, n], y [..., n, k]: broadcasts the batch dims of both."""
    p = _p()
    xs, ys = list(x.shape), list(y.shape)
    if len(xs) < 2 or len(ys) < 2:
        raise ValueError(f"[{op}] expected x and y to be at least 2-D, received x: {xs}, y: {ys}")
    try:
        b = p.broadcast_shape(xs[:-2], ys[:-2]) if (xs[:-2] or ys[:-2]) else []
    except ValueError:
        raise ValueError(f"[{op}] batch dims of x {xs} and y {ys} do not broadcast") from None
    b = list(b)
    if xs[:-2] != b:
        x = p.expand(x, b + xs[-2:])
    if ys[:-2] != b:
        y = p.expand(y, b + ys[-2:])
    return x, y


def solve(x, y, name=None):
    """Solves x @ out = y; y is [..., n, k] or a vector [n] (batch dims broadcast)."""
    _check_float("solve", x)
    vec = len(y.shape) == 1
    if vec:
        y = _C_ops.unsqueeze(y, [-1])
    x, y = _broadcast_batch("solve", x, y)
    out = _C_ops.solve(x, y)
    return _C_ops.squeeze(out, [-1]) if vec else out


def cholesky(x, upper=False, name=None):
    _check_float("cholesky", x)
    return _C_ops.cholesky(x, bool(upper))


def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None):
    _check_float("triangular_solve", x)
    x, y = _broadcast_batch("triangular_solve", x, y)
    return _C_ops.triangular_solve(x, y, bool(upper), bool(transpose), bool(unitriangular))


def cholesky_solve(x, y, upper=False, name=None):
    """Solves A @ out = x given y, the Cholesky factor of A (lower, or upper when upper=True)."""
    _check_float("cholesky_solve", y)
    y, x = _broadcast_batch("cholesky_solve", y, x)
    if upper:  # A = U^T U
        z = _C_ops.triangular_solve(y, x, True, True, False)
        return _C_ops.triangular_solve(y, z, True, False, False)
    z = _C_ops.triangular_solve(y, x, False, False, False)  # A = L L^T
    return _C_ops.triangular_solve(y, z, False, True, False)


def matrix_power(x, n, name=None):
    """x^n for square matrices (batched); n < 0 uses the inverse, n == 0 gives identities."""
    p = _p()
    s = list(x.shape)
    if len(s) < 2 or s[-1] != s[-2]:
        raise ValueError(f"[matrix_power] expected square matrices [..., n, n], received {s}")
    n = int(n)
    if n == 0:  # identities, still connected to x (a zero gradient, as Paddle), also for inf / nan in x
        eye = p.expand(p.eye(s[-1], dtype=x.dtype), s)
        return p.where(p.full(s, True, "bool"), eye, x)
    if n < 0:
        x = inv(x)
        n = -n
    result, base = None, x
    while n:
        if n & 1:
            result = base if result is None else _C_ops.matmul(result, base, False, False)
        n >>= 1
        if n:
            base = _C_ops.matmul(base, base, False, False)
    return result


def multi_dot(x, name=None):
    """Chained matmul of a list of tensors (first/last may be 1-D), left to right."""
    if not isinstance(x, (list, tuple)) or len(x) < 2:
        raise ValueError("[multi_dot] expected a list of at least two tensors")
    for i, t in enumerate(x):
        d = len(t.shape)
        if d != 2 and not (d == 1 and i in (0, len(x) - 1)):
            raise ValueError(f"[multi_dot] tensor {i} must be 2-D (1-D allowed first/last), received {list(t.shape)}")
    out = x[0]
    for t in x[1:]:
        out = _C_ops.matmul(out, t, False, False)
    return out


def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):
    """Covariance of the variables in x's rows (columns when rowvar=False), numpy.cov's rules."""
    p = _p()
    if len(x.shape) > 2:
        raise ValueError(f"[cov] expected x with at most 2 dims, received {list(x.shape)}")
    if len(x.shape) < 2:
        x = p.reshape(x, [1, -1])
    if not rowvar and x.shape[0] != 1:
        x = p.t(x)
    nobs = x.shape[1]
    w = None
    if fweights is not None:
        w = p.cast(fweights, x.dtype)
    if aweights is not None:
        aw = p.cast(aweights, x.dtype)
        w = aw if w is None else w * aw
    if w is None:
        avg = p.mean(x, axis=1)
        fact = nobs - int(bool(ddof))
        xm = x - p.unsqueeze(avg, [1])
        c = _C_ops.matmul(xm, xm, False, True) / float(fact)
    else:
        wsum = p.sum(w)
        avg = p.sum(x * w, axis=1) / wsum
        if not ddof:
            fact = wsum
        elif aweights is None:
            fact = wsum - 1.0
        else:
            fact = wsum - p.sum(w * p.cast(aweights, x.dtype)) / wsum
        xm = x - p.unsqueeze(avg, [1])
        c = _C_ops.matmul(xm * w, xm, False, True) / fact
    return c


def corrcoef(x, rowvar=True, name=None):
    """Pearson correlation coefficients of the variables in x's rows (columns when rowvar=False),
    numpy.corrcoef's rules (Paddle 2.6): cov / outer(std, std), clipped to [-1, 1]. A single
    variable gives c / c (1, or nan for a zero or non-finite variance) with no dims."""
    p = _p()
    if len(x.shape) > 2 or len(x.shape) < 1:
        raise ValueError("Input(x) only support N-D (1<=N<=2) tensor in corrcoef, but received "
                         f"length of Input(input) is {len(x.shape)}.")
    if str(x.dtype).replace('paddle.', '') not in ('float32', 'float64'):
        raise TypeError(f"The data type of 'x' in corrcoef must be float32 or float64, but "
                        f"received {str(x.dtype).replace('paddle.', '')}.")
    c = cov(x, rowvar)
    if c.shape == [1, 1] and (len(x.shape) == 1 or x.shape[0 if rowvar else 1] == 1):
        c = p.reshape(c, [])
        return c / c
    std = p.sqrt(p.diag(c))
    c = c / p.unsqueeze(std, [1])
    c = c / p.unsqueeze(std, [0])
    return p.clip(c, -1, 1)


def householder_product(x, tau, name=None):
    """The first n columns of H_1 H_2 ... H_k, H_i = I_m - tau_i w_i w_i^H, where w_i is 0 above
    row i, 1 at row i and x[i+1:, i] below (LAPACK's orgqr / ungqr; Paddle 2.6). x: [*, m, n],
    tau: [*, k]; composed of matmuls, so gradients flow to x and tau."""
    p = _p()
    allowed = ('float32', 'float64', 'complex64', 'complex128')
    for what, t in (('x', x), ('tau', tau)):
        dt = str(t.dtype).replace('paddle.', '')
        if dt not in allowed:
            raise TypeError(f"The data type of '{what}' in householder_product must be one of "
                            f"{list(allowed)}, but received {dt}.")
    assert x.dtype == tau.dtype, "The input x must have the same dtype with input tau.\n"
    assert len(x.shape) >= 2 and len(tau.shape) >= 1 and len(x.shape) == len(tau.shape) + 1, (
        "The input x must have more than 2 dimensions, and input tau must have more than 1 "
        "dimension,and the dimension of x is 1 larger than the dimension of tau\n")
    assert x.shape[-2] >= x.shape[-1], \
        "The rows of input x must be greater than or equal to the columns of input x.\n"
    assert x.shape[-1] >= tau.shape[-1], "The last dim of x must be greater than tau.\n"
    for i in range(len(x.shape) - 2):
        assert x.shape[i] == tau.shape[i], \
            "The input x must have the same batch dimensions with input tau.\n"
    m, n = x.shape[-2], x.shape[-1]
    k = tau.shape[-1]
    batch = list(x.shape[:-2])
    cplx = str(x.dtype).replace('paddle.', '').startswith('complex')
    q = p.expand(p.eye(m, dtype=x.dtype), batch + [m, m])
    for i in range(min(k, n)):
        one = p.ones(batch + [1], dtype=x.dtype)
        w = p.concat([one, x[..., i + 1:, i]], axis=-1) if i + 1 < m else one
        wc = p.conj(w) if cplx else w
        qi = q[..., :, i:]
        upd = qi - p.matmul(p.matmul(qi, p.unsqueeze(w, [-1])), p.unsqueeze(wc, [-2])) \
            * p.unsqueeze(tau[..., i:i + 1], [-1])  # [*, 1, 1] at both API levels
        q = p.concat([q[..., :, :i], upd], axis=-1) if i > 0 else upd
    return q[..., :, :n]


def _mT(p, t):
    perm = list(range(len(t.shape)))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return p.transpose(t, perm)


def _approx_basis(p, a, q, niter):
    """An orthonormal basis of a's range from a Gaussian sketch plus niter power iterations
    (Halko, Martinsson and Tropp, 2011, algorithm 4.4)."""
    r = p.randn(list(a.shape[:-2]) + [a.shape[-1], q], dtype=a.dtype)
    qb, _ = p.linalg.qr(p.matmul(a, r))
    at = _mT(p, a)
    for _ in range(niter):
        qb, _ = p.linalg.qr(p.matmul(at, qb))
        qb, _ = p.linalg.qr(p.matmul(a, qb))
    return qb


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """(U, S, V) of a rank-q approximation of x's (column-centred when center) SVD by randomized
    subspace iteration (Paddle 2.6): x - mean ~= U diag(S) V^T; the sketch draws from paddle.randn
    (paddle.seed). x: [*, m, n] real; q defaults to min(6, m, n)."""
    p = _p()
    if not isinstance(x, p.Tensor):
        raise ValueError(f'Input must be tensor, but got {type(x)}')
    if len(x.shape) < 2:
        raise ValueError(f"pca_lowrank: x must have at least 2 dims, received {list(x.shape)}")
    m, n = x.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (0 <= q <= min(m, n)):
        raise ValueError(f'q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}')
    if not niter >= 0:
        raise ValueError(f'niter(={niter}) must be non-negative integer')
    a = x - x.mean(axis=-2, keepdim=True) if center else x
    if m < n or n > q:
        qb = _approx_basis(p, _mT(p, a), q, niter)  # basis of a^T's range: [*, n, q]
        u, s, vh = p.linalg.svd(p.matmul(a, qb), full_matrices=False)
        v = p.matmul(qb, _mT(p, vh))
    else:
        qb = _approx_basis(p, a, q, niter)  # [*, m, q]
        u, s, vh = p.linalg.svd(p.matmul(_mT(p, qb), a), full_matrices=False)
        v = _mT(p, vh)
        u = p.matmul(qb, u)
    return u, s, v
