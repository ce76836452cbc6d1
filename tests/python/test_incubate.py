"""paddle.incubate against numpy references, finite differences and (optimizers) numbers real
Paddle 2.6.2 printed (tools/oracle/incubate_optimizers.py)."""
import numpy as np
import pytest

import paddle
import paddle.incubate as I

RNG = np.random.default_rng(0)


def np_segment(x, ids, kind):
    n = int(ids.max()) + 1 if len(ids) else 0
    out = np.zeros((n,) + x.shape[1:], dtype=np.float64)
    for s in range(n):
        rows = x[ids == s].astype(np.float64)
        if len(rows):
            out[s] = {'sum': rows.sum(0), 'mean': rows.mean(0), 'max': rows.max(0),
                      'min': rows.min(0)}[kind]
    return out


def np_send_recv(x, src, dst, kind, rows):
    out = np.zeros((rows,) + x.shape[1:], dtype=np.float64)
    for r in range(rows):
        vals = x[src[dst == r]].astype(np.float64)
        if len(vals):
            out[r] = {'sum': vals.sum(0), 'mean': vals.mean(0), 'max': vals.max(0),
                      'min': vals.min(0)}[kind]
    return out


def fd_grad(f, x0, h=1e-6):
    g = np.zeros_like(x0)
    for i in range(x0.size):
        e = np.zeros_like(x0)
        e.flat[i] = h
        g.flat[i] = (f(x0 + e) - f(x0 - e)) / (2 * h)
    return g


SEG_FNS = {'sum': I.segment_sum, 'mean': I.segment_mean, 'max': I.segment_max, 'min': I.segment_min}


def test_names():
    for n in ['segment_sum', 'segment_mean', 'segment_max', 'segment_min', 'graph_send_recv',
              'graph_khop_sampler', 'graph_sample_neighbors', 'graph_reindex', 'softmax_mask_fuse',
              'softmax_mask_fuse_upper_triangle', 'LookAhead', 'ModelAverage']:
        assert n in I.__all__ and hasattr(I, n)
    assert hasattr(I.autograd, 'jvp')


@pytest.mark.parametrize("kind", ['sum', 'mean', 'max', 'min'])
@pytest.mark.parametrize("dtype", ['float32', 'float64', 'int32', 'int64'])
def test_segment_values(kind, dtype):
    ids = np.array([0, 0, 1, 3, 3, 3, 5])  # segments 2 and 4 empty
    x = (RNG.standard_normal((7, 2, 3)) * 10).astype(dtype)
    for idt in ('int32', 'int64'):
        out = SEG_FNS[kind](paddle.to_tensor(x), paddle.to_tensor(ids.astype(idt)))
        assert out.dtype == paddle.to_tensor(x).dtype and out.shape == [6, 2, 3]
        ref = np_segment(x, ids, kind)
        if dtype.startswith('int') and kind == 'mean':
            np.testing.assert_allclose(out.numpy(), ref, atol=1)  # integer mean truncates
        else:
            np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind", ['sum', 'mean', 'max', 'min'])
def test_segment_gradients(kind):
    ids = paddle.to_tensor(np.array([0, 0, 0, 2, 2]))
    x0 = RNG.standard_normal((5, 3))
    x = paddle.to_tensor(x0, stop_gradient=False)
    w = RNG.standard_normal((3, 3))
    (SEG_FNS[kind](x, ids) * paddle.to_tensor(w)).sum().backward()
    num = fd_grad(lambda v: (np_segment(v, ids.numpy(), kind) * w).sum(), x0)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-6, atol=1e-8)


def test_segment_max_ties_and_errors():
    # ties: every element equal to the max gets the gradient (Paddle's rule)
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 3.0], [3.0, 1.0], [0.0, 5.0]], stop_gradient=False)
    I.segment_max(x, paddle.to_tensor([0, 0, 0, 2])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0], [1, 1], [1, 0], [1, 1]])
    with pytest.raises(ValueError, match="sorted"):
        I.segment_sum(paddle.ones([3, 2]), paddle.to_tensor([1, 0, 2]))
    with pytest.raises(ValueError, match="length"):
        I.segment_sum(paddle.ones([3, 2]), paddle.to_tensor([0, 1]))
    with pytest.raises(TypeError):
        I.segment_sum(paddle.ones([2, 2]), paddle.to_tensor([0.0, 1.0]))


@pytest.mark.parametrize("kind", ['sum', 'mean', 'max', 'min'])
def test_graph_send_recv(kind):
    x0 = RNG.standard_normal((5, 3))
    # for max/min every (src, dst) pair once: a repeated edge ties with itself (tested below)
    src = np.array([0, 1, 2, 0, 4, 4, 3]) if kind in ('sum', 'mean') else np.array([0, 1, 2, 3, 4, 4, 3])
    dst = np.array([1, 1, 0, 1, 3, 0, 3])
    for idt in ('int32', 'int64'):
        s, d = paddle.to_tensor(src.astype(idt)), paddle.to_tensor(dst.astype(idt))
        out = I.graph_send_recv(paddle.to_tensor(x0), s, d, kind)
        np.testing.assert_allclose(out.numpy(), np_send_recv(x0, src, dst, kind, 5), rtol=1e-12)
        out = I.graph_send_recv(paddle.to_tensor(x0.astype('float32')), s, d, kind, out_size=7)
        assert out.shape == [7, 3]
        np.testing.assert_allclose(out.numpy(), np_send_recv(x0, src, dst, kind, 7), rtol=1e-5)
    xi = (x0 * 10).astype('int64')
    np.testing.assert_array_equal(
        I.graph_send_recv(paddle.to_tensor(xi), paddle.to_tensor(src), paddle.to_tensor(dst),
                          'sum' if kind == 'mean' else kind).numpy(),
        np_send_recv(xi, src, dst, 'sum' if kind == 'mean' else kind, 5))
    x = paddle.to_tensor(x0, stop_gradient=False)
    w = RNG.standard_normal((4, 3))
    (I.graph_send_recv(x, paddle.to_tensor(src), paddle.to_tensor(dst), kind, out_size=4)
     * paddle.to_tensor(w)).sum().backward()
    num = fd_grad(lambda v: (np_send_recv(v, src, dst, kind, 4) * w).sum(), x0)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-6, atol=1e-8)


def test_graph_send_recv_paddle_tie_rule():
    # real Paddle 2.6.2: a repeated edge whose value is the max/min passes the gradient once per edge
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 3.0], [3.0, 1.0]], stop_gradient=False)
    src, dst = paddle.to_tensor([0, 1, 2, 0]), paddle.to_tensor([1, 1, 0, 1])
    w = paddle.arange(6, dtype='float32').reshape([3, 2])
    expect = {'max': [[0, 0], [2, 3], [0, 1]], 'min': [[4, 6], [0, 0], [0, 1]]}
    for kind, g in expect.items():
        x.clear_grad()
        (I.graph_send_recv(x, src, dst, kind) * w).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), g)


def test_graph_send_recv_errors():
    x = paddle.ones([3, 2])
    with pytest.raises(ValueError):
        I.graph_send_recv(x, paddle.to_tensor([0]), paddle.to_tensor([0]), 'prod')
    with pytest.raises(IndexError):
        I.graph_send_recv(x, paddle.to_tensor([3]), paddle.to_tensor([0]))
    with pytest.raises(IndexError):
        I.graph_send_recv(x, paddle.to_tensor([0]), paddle.to_tensor([5]))
    with pytest.raises(ValueError):
        I.graph_send_recv(x, paddle.to_tensor([0, 1]), paddle.to_tensor([0]))


def random_csc(n, p, rng):
    adj = [[int(u) for u in np.nonzero(rng.random(n) < p)[0]] for _ in range(n)]
    colptr = np.cumsum([0] + [len(a) for a in adj])
    row = np.array([u for a in adj for u in a], dtype=np.int64)
    return adj, row, colptr.astype(np.int64)


def test_graph_sample_neighbors():
    rng = np.random.default_rng(1)
    adj, row, colptr = random_csc(30, 0.3, rng)
    nodes = np.array([0, 5, 7, 29, 5])
    eids = np.arange(len(row), dtype=np.int64) * 10
    R, C, N = paddle.to_tensor(row), paddle.to_tensor(colptr), paddle.to_tensor(nodes)
    nb, cnt = I.graph_sample_neighbors(R, C, N)
    np.testing.assert_array_equal(nb.numpy(), np.concatenate([adj[v] for v in nodes]))
    np.testing.assert_array_equal(cnt.numpy(), [len(adj[v]) for v in nodes])
    assert cnt.dtype == paddle.int32
    paddle.seed(5)
    nb, cnt, oe = I.graph_sample_neighbors(R, C, N, eids=paddle.to_tensor(eids), sample_size=3,
                                           return_eids=True)
    nb, cnt, oe = nb.numpy(), cnt.numpy(), oe.numpy()
    pos = 0
    for v, c in zip(nodes, cnt):
        assert c == min(3, len(adj[v]))
        got = nb[pos:pos + c]
        assert len(set(got.tolist())) == c and set(got.tolist()) <= set(adj[v])
        np.testing.assert_array_equal(row[oe[pos:pos + c] // 10], got)
        pos += c
    assert pos == len(nb)
    paddle.seed(5)
    again = I.graph_sample_neighbors(R, C, N, eids=paddle.to_tensor(eids), sample_size=3,
                                     return_eids=True)
    np.testing.assert_array_equal(again[0].numpy(), nb)
    # int32 graphs
    nb32, _ = I.graph_sample_neighbors(paddle.to_tensor(row.astype('int32')),
                                       paddle.to_tensor(colptr.astype('int32')),
                                       paddle.to_tensor(nodes.astype('int32')))
    assert nb32.dtype == paddle.int32
    with pytest.raises(IndexError):
        I.graph_sample_neighbors(R, C, paddle.to_tensor([30]))
    with pytest.raises(ValueError):
        I.graph_sample_neighbors(R, C, N, return_eids=True)


def np_reindex(x, nb, cnt):
    ids = {}
    nodes = []
    for v in list(x) + list(nb):
        if v not in ids:
            ids[v] = len(nodes)
            nodes.append(v)
    return ([ids[v] for v in nb], np.repeat([ids[v] for v in x], cnt), nodes)


def test_graph_reindex():
    rng = np.random.default_rng(2)
    x = np.array([10, 3, 7, 42])
    cnt = np.array([3, 0, 4, 2])
    nb = rng.integers(0, 50, cnt.sum())
    for dt in ('int32', 'int64'):
        src, dst, nodes = I.graph_reindex(paddle.to_tensor(x.astype(dt)), paddle.to_tensor(nb.astype(dt)),
                                          paddle.to_tensor(cnt.astype('int32')))
        rs, rd, rn = np_reindex(x, nb, cnt)
        np.testing.assert_array_equal(src.numpy(), rs)
        np.testing.assert_array_equal(dst.numpy(), rd)
        np.testing.assert_array_equal(nodes.numpy(), rn)
        assert src.dtype == paddle.to_tensor(x.astype(dt)).dtype
    with pytest.raises(ValueError):
        I.graph_reindex(paddle.to_tensor(x), paddle.to_tensor(nb), paddle.to_tensor(np.array([1, 1, 1, 1], 'int32')))


def test_graph_khop_sampler():
    # the graph and output real Paddle 2.6.2 gives (all neighbours sampled)
    row = paddle.to_tensor(np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7], 'int64'))
    colptr = paddle.to_tensor(np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13], 'int64'))
    nodes = paddle.to_tensor(np.array([0, 8, 1, 2], 'int64'))
    src, dst, idx, rn, eids = I.graph_khop_sampler(row, colptr, nodes, [10, 10],
                                                   sorted_eids=paddle.arange(13, dtype='int64'),
                                                   return_eids=True)
    np.testing.assert_array_equal(src.numpy().ravel(), [4, 5, 6, 5, 0, 6, 2, 7])
    np.testing.assert_array_equal(dst.numpy().ravel(), [0, 0, 1, 1, 2, 2, 3, 4])
    assert src.shape == [8, 1] and dst.shape == [8, 1]
    np.testing.assert_array_equal(idx.numpy(), [0, 8, 1, 2, 3, 7, 9, 4])
    np.testing.assert_array_equal(rn.numpy(), [0, 1, 2, 3])
    np.testing.assert_array_equal(eids.numpy(), [0, 1, 11, 12, 2, 3, 4, 5])
    # random sampling: every edge exists in the graph
    rng = np.random.default_rng(3)
    adj, r, c = random_csc(40, 0.25, rng)
    paddle.seed(2)
    src, dst, idx, rn = I.graph_khop_sampler(paddle.to_tensor(r), paddle.to_tensor(c),
                                             paddle.to_tensor(np.array([1, 2, 3])), [2, 3])
    idx = idx.numpy()
    assert idx[:3].tolist() == [1, 2, 3] and len(set(idx.tolist())) == len(idx)
    for s_, d_ in zip(src.numpy().ravel(), dst.numpy().ravel()):
        assert idx[s_] in adj[idx[d_]]


def np_softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_softmax_mask_fuse():
    x0 = RNG.standard_normal((2, 3, 4, 5))
    m0 = np.where(RNG.random((2, 1, 4, 5)) < 0.3, -10000.0, 0.0)
    for dt, tol in (('float64', 1e-12), ('float32', 1e-6), ('float16', 2e-3)):
        out = I.softmax_mask_fuse(paddle.to_tensor(x0.astype(dt)), paddle.to_tensor(m0.astype(dt)))
        assert out.dtype == paddle.to_tensor(x0.astype(dt)).dtype
        np.testing.assert_allclose(out.numpy().astype(np.float64), np_softmax(x0 + m0), atol=tol)
    x = paddle.to_tensor(x0, stop_gradient=False)
    w = RNG.standard_normal(x0.shape)
    (I.softmax_mask_fuse(x, paddle.to_tensor(m0)) * paddle.to_tensor(w)).sum().backward()
    num = fd_grad(lambda v: (np_softmax(v + m0) * w).sum(), x0)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-5, atol=1e-8)
    with pytest.raises(ValueError):
        I.softmax_mask_fuse(paddle.to_tensor(x0), paddle.to_tensor(x0))


def test_softmax_mask_fuse_upper_triangle():
    x0 = RNG.standard_normal((2, 2, 5, 5))
    mask = np.triu(np.ones((5, 5)), 1) > 0
    ref = np_softmax(np.where(mask, -np.inf, x0))
    out = I.softmax_mask_fuse_upper_triangle(paddle.to_tensor(x0))
    np.testing.assert_allclose(out.numpy(), ref, atol=1e-12)
    x = paddle.to_tensor(x0, stop_gradient=False)
    w = RNG.standard_normal(x0.shape)
    (I.softmax_mask_fuse_upper_triangle(x) * paddle.to_tensor(w)).sum().backward()
    num = fd_grad(lambda v: (np_softmax(np.where(mask, -np.inf, v)) * w).sum(), x0)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-5, atol=1e-8)
    with pytest.raises(ValueError):
        I.softmax_mask_fuse_upper_triangle(paddle.ones([2, 2, 3, 4]))


# columns 2 (ModelAverage.apply average) and 4 (LookAhead weights) printed by
# tools/oracle/incubate_optimizers.py under real Paddle 2.6.2
ORACLE_AVG = [[0.875, 1.0], [0.820312, 0.75], [0.770182, 0.583333], [0.628052, 0.1875],
              [0.589671, 0.145833], [0.554452, 0.117188], [0.451467, 0.036458]]
ORACLE_LOOKAHEAD = [[0.875, 1.0], [0.820312, 0.75], [0.717773, 0.375], [0.724182, 0.46875],
                    [0.633659, 0.234375], [0.639317, 0.292969], [0.559402, 0.146484]]


def _linear():
    lin = paddle.nn.Linear(2, 1, bias_attr=False)
    lin.weight.set_value(np.array([[1.0], [2.0]], 'float32'))
    return lin


def test_model_average_and_lookahead_match_paddle():
    lin = _linear()
    sgd = paddle.optimizer.SGD(learning_rate=0.1, parameters=lin.parameters())
    ma = I.ModelAverage(0.5, parameters=lin.parameters(), min_average_window=2, max_average_window=3)
    la_lin = _linear()
    la = I.LookAhead(paddle.optimizer.SGD(learning_rate=0.1, parameters=la_lin.parameters()),
                     alpha=0.5, k=2)
    x = paddle.to_tensor(np.array([[1.0, -1.0], [0.5, 2.0]], 'float32'))
    for i in range(7):
        loss = (lin(x) ** 2).mean()
        loss.backward()
        sgd.step()
        ma.step()
        sgd.clear_grad()
        w = lin.weight.numpy().copy()
        with ma.apply():
            np.testing.assert_allclose(lin.weight.numpy().ravel(), ORACLE_AVG[i], atol=2e-6)
        np.testing.assert_array_equal(lin.weight.numpy(), w)  # restored
        (la_lin(x) ** 2).mean().backward()
        la.step()
        la.clear_grad()
        np.testing.assert_allclose(la_lin.weight.numpy().ravel(), ORACLE_LOOKAHEAD[i], atol=2e-6)
    with ma.apply(need_restore=False):
        pass
    np.testing.assert_allclose(lin.weight.numpy().ravel(), ORACLE_AVG[-1], atol=2e-6)
    ma.restore()
    np.testing.assert_array_equal(lin.weight.numpy(), w)


def test_lookahead_args():
    lin = _linear()
    with pytest.raises(ValueError):
        I.LookAhead(paddle.optimizer.SGD(parameters=lin.parameters()), alpha=1.5)
    with pytest.raises(ValueError):
        I.LookAhead(paddle.optimizer.SGD(parameters=lin.parameters()), k=0)
    with pytest.raises(ValueError):
        I.LookAhead(None)


def test_static_mode_record_run_grad_and_save(tmp_path):
    """The ops record in a program under Paddle's operator names (ops/incubate_compat.yaml), run
    like eager, take static gradients and survive a save/load round trip."""
    xv = RNG.random((5, 3)).astype('float32')
    iv = np.array([0, 0, 1, 3, 3])
    qv = RNG.random((2, 2, 3, 3)).astype('float32')
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data('x', [5, 3], 'float32')
            x.stop_gradient = False
            ids = paddle.static.data('ids', [5], 'int64')
            q = paddle.static.data('q', [2, 2, 3, 3], 'float32')
            s = I.segment_sum(x, ids)
            g = I.graph_send_recv(x, ids, ids, 'mean', out_size=6)
            sm = I.softmax_mask_fuse_upper_triangle(q)
            gx = paddle.static.gradients(paddle.sum(s) + paddle.sum(g), [x])[0]
        types = [op.type for op in main.global_block().ops]
        assert {'segment_pool', 'graph_send_recv', 'fused_softmax_mask_upper_triangle'} <= set(types)
        exe = paddle.static.Executor()
        feed = {'x': xv, 'ids': iv, 'q': qv}
        out = exe.run(main, feed=feed, fetch_list=[s, g, sm, gx])
        path = str(tmp_path / 'm')
        paddle.static.save_inference_model(path, [x, ids, q], [s, g, sm], exe, program=main)
        prog, feeds, fetches = paddle.static.load_inference_model(path, exe)
        out2 = exe.run(prog, feed=feed, fetch_list=fetches)
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(out[0], np_segment(xv, iv, 'sum'), rtol=1e-6)
    np.testing.assert_allclose(out[1], np_send_recv(xv, iv, iv, 'mean', 6), rtol=1e-6)
    mask = np.triu(np.ones((3, 3)), 1) > 0
    np.testing.assert_allclose(out[2], np_softmax(np.where(mask, -np.inf, qv)), rtol=1e-6)
    # d/dx: 1 from segment_sum; 0.5 per edge of the mean from the rows used as sources
    np.testing.assert_allclose(out[3], np.array([[2.0] * 3, [2.0] * 3, [1.0] * 3, [2.0] * 3, [1.0] * 3]))
    for a, b in zip(out2, out[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-6)
