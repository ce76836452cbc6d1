"""Records real PaddlePaddle 2.6.2's answers for the Paddle 2.6 module names added by issue 23
(tests/python/test_api26_modules.py): distribution methods (deterministic ones: log_prob, prob,
cdf, icdf, entropy, mean, variance, kl_divergence), the LinearLR / CosineAnnealingWarmRestarts
sequences, corrcoef, and jacobian / hessian shapes and values. Run with the oracle, from an
empty directory:

    cd "$(mktemp -d)" && /work/oracle/bin/python /path/to/tools/oracle/api26_modules.py OUT.json

(writes tests/python/data/api26_modules_expected.json when OUT.json is that path)."""
import json
import sys


def _v(t):
    import numpy as np
    return np.asarray(t.numpy() if hasattr(t, 'numpy') else t, dtype='float64').ravel().tolist()


def record():
    import numpy as np
    import paddle
    D = paddle.distribution
    T = paddle.to_tensor
    out = {}
    v = T([0.0, 1.0, 1.0, 0.0])
    pb = T([0.2, 0.5, 0.9, 0.7])
    b, b2 = D.Bernoulli(pb), D.Bernoulli(T([0.4, 0.3, 0.6, 0.1]))
    out['bernoulli'] = {'log_prob': _v(b.log_prob(v)), 'prob': _v(b.prob(v)),
                        'cdf': _v(b.cdf(T([-0.5, 0.0, 0.5, 1.0]))), 'entropy': _v(b.entropy()),
                        'mean': _v(b.mean), 'variance': _v(b.variance),
                        'kl': _v(D.kl_divergence(b, b2))}
    x = T([-1.5, 0.3, 2.0])
    c, c2 = D.Cauchy(T([0.0, 1.0, -1.0]), T([1.0, 2.0, 0.5])), D.Cauchy(0.5, 1.5)
    out['cauchy'] = {'log_prob': _v(c.log_prob(x)), 'prob': _v(c.prob(x)), 'cdf': _v(c.cdf(x)),
                     'entropy': _v(c.entropy()), 'kl': _v(c.kl_divergence(
                         D.Cauchy(T([0.5, 0.5, 0.5]), T([1.5, 1.5, 1.5])))),
                     'kl_scalar': _v(D.kl_divergence(c2, D.Cauchy(0.0, 1.0)))}
    g, g2 = D.Geometric(T([0.2, 0.5, 0.9])), D.Geometric(T([0.3, 0.4, 0.5]))
    k = T([0.0, 2.0, 5.0])
    out['geometric'] = {'pmf': _v(g.pmf(k)), 'log_pmf': _v(g.log_pmf(k)), 'cdf': _v(g.cdf(k)),
                        'pmf_int': _v(g.pmf(3)), 'entropy': _v(g.entropy()), 'mean': _v(g.mean),
                        'variance': _v(g.variance), 'stddev': _v(g.stddev),
                        'kl': _v(D.kl_divergence(g, g2))}
    gu = D.Gumbel(T([0.0, 1.0, -2.0]), T([1.0, 2.0, 0.5]))
    out['gumbel'] = {'log_prob': _v(gu.log_prob(x)), 'prob': _v(gu.prob(x)), 'cdf': _v(gu.cdf(x)),
                     'entropy': _v(gu.entropy()), 'mean': _v(gu.mean), 'variance': _v(gu.variance),
                     'stddev': _v(gu.stddev)}
    la, la2 = D.Laplace(T([0.0, 1.0, -2.0]), T([1.0, 2.0, 0.5])), D.Laplace(T([0.5, 0.5, 0.5]),
                                                                           T([1.0, 3.0, 2.0]))
    out['laplace'] = {'log_prob': _v(la.log_prob(x)), 'prob': _v(la.prob(x)), 'cdf': _v(la.cdf(x)),
                      'icdf': _v(la.icdf(T([0.1, 0.5, 0.8]))), 'entropy': _v(la.entropy()),
                      'mean': _v(la.mean), 'variance': _v(la.variance), 'stddev': _v(la.stddev),
                      'kl': _v(D.kl_divergence(la, la2))}
    ln, ln2 = D.LogNormal(T([0.0, 1.0, -0.5]), T([1.0, 0.5, 2.0])), D.LogNormal(T([0.2, 0.2, 0.2]),
                                                                               T([1.0, 1.0, 1.5]))
    px = T([0.5, 1.0, 3.0])
    out['lognormal'] = {'log_prob': _v(ln.log_prob(px)), 'probs': _v(ln.probs(px)),
                        'entropy': _v(ln.entropy()), 'mean': _v(ln.mean),
                        'variance': _v(ln.variance), 'kl': _v(D.kl_divergence(ln, ln2))}
    L = paddle.optimizer.lr
    seqs = {}
    for name, sch in [('linear', L.LinearLR(0.5, 4)),
                      ('linear2', L.LinearLR(0.2, 5, start_factor=0.1, end_factor=0.8)),
                      ('warm', L.CosineAnnealingWarmRestarts(0.5, 3)),
                      ('warm2', L.CosineAnnealingWarmRestarts(0.5, 2, T_mult=2, eta_min=0.01))]:
        r = []
        for _ in range(14):
            r.append(sch())
            sch.step()
        seqs[name] = r
    w = L.CosineAnnealingWarmRestarts(0.5, 2, T_mult=2, eta_min=0.01)
    seqs['warm2_epochs'] = []
    for e in [5, 1, 9, 2.5]:
        w.step(e)
        seqs['warm2_epochs'].append(w())
    out['lr'] = seqs
    m = np.array([[1.0, 2.0, 4.0, 7.0], [3.0, 1.0, 0.0, 2.0], [0.5, 0.1, 0.9, 0.3]])
    out['corrcoef'] = {'rows': _v(paddle.linalg.corrcoef(T(m))),
                       'cols': _v(T(m).corrcoef(rowvar=False)),
                       'vec': _v(paddle.linalg.corrcoef(T([1.0, 2.0, 4.0])))}
    A = T([[1.0, -2.0, 0.5], [0.3, 0.0, 2.0]])
    M3 = T([[2.0, 1.0, 0.0], [0.5, -1.0, 3.0], [0.0, 1.5, 1.0]])
    W = T([[1.0, 0.5, -1.0], [2.0, 0.0, 0.3]])
    M2 = T([[1.0, 2.0], [-0.5, 3.0]])
    xx = T([1.0, 2.0, 3.0], stop_gradient=False)
    yy = paddle.matmul(A, xx * xx) + paddle.sin(xx[:2] * 0 + xx.sum())
    J = paddle.autograd.jacobian(yy, xx)
    xb = T([[1.0, 2.0], [0.5, -1.0], [3.0, 0.2]], stop_gradient=False)
    yb = paddle.matmul(xb * xb, W) + paddle.sin(xb.sum(1, keepdim=True) * 0.1)
    Jb = paddle.autograd.jacobian(yb, xb, batch_axis=0)
    s = paddle.matmul(xx, paddle.matmul(M3, xx)) + paddle.sin(xx).sum() + (xx ** 3).sum()
    H = paddle.autograd.hessian(s, xx)
    sb = (paddle.matmul(xb, M2) * xb).sum(1) + (xb ** 3).sum(1)
    Hb = paddle.autograd.hessian(sb, xb, batch_axis=0)
    out['jac'] = {'J': _v(J[:]), 'J_shape': J.shape, 'J_row1': _v(J[1]), 'J_col': _v(J[:, 2]),
                  'Jb': _v(Jb[:]), 'Jb_shape': Jb.shape, 'Jb_idx': _v(Jb[:, 1]),
                  'H': _v(H[:]), 'H_shape': H.shape, 'Hb': _v(Hb[:]), 'Hb_shape': Hb.shape}
    return out


if __name__ == '__main__':
    res = record()
    with open(sys.argv[1], 'w') as f:
        json.dump(res, f, indent=0, sort_keys=True)
