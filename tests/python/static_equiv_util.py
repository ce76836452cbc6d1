"""Helpers for the static-vs-eager training tests: train a model eagerly and as a static program
(built from the same Layer code, started from the eager model's initial weights) and return both
runs' losses and final state, so tests can compare them bit for bit."""
import os

import numpy as np

import paddle


class one_thread:
    """Both runs on one thread: the thread governor (csrc/core/pd_pool.c) picks thread counts from
    timings, and a reduction split another way sums in another order (a 1-ulp loss difference
    between two otherwise identical runs under load)."""

    def __enter__(self):
        self.n = paddle._C.get_num_threads()
        paddle._C.set_num_threads(1)

    def __exit__(self, *exc):
        paddle._C.set_num_threads(self.n)


def _train_eager(build, make_opt, loss_fn, batches, seed=0, after_step=None):
    """(initial state as numpy by state_dict order, losses, final state)."""
    paddle.disable_static()
    paddle.seed(seed)
    net = build()
    init = [v.numpy().copy() for v in net.state_dict().values()]
    opt = make_opt(net.parameters())
    losses = []
    for xs in batches:
        ts = [paddle.to_tensor(a) for a in xs]
        loss = loss_fn(net, *ts)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(loss.numpy().copy())
        if after_step is not None:
            after_step(opt)
    final = [v.numpy().copy() for v in net.state_dict().values()]
    return init, losses, final, opt


def _train_static(build, make_opt, loss_fn, specs, batches, init, after_step=None):
    """specs: [(name, shape, dtype)] of the inputs. Returns (losses, final state, optimizer,
    main program, scope)."""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        scope = paddle.static.Scope()
        with paddle.static.program_guard(main, startup), paddle.static.scope_guard(scope):
            xs = [paddle.static.data(n, s, d) for n, s, d in specs]
            net = build()
            loss = loss_fn(net, *xs)
            opt = make_opt(None)
            opt.minimize(loss)
            exe = paddle.static.Executor(paddle.CPUPlace())
            exe.run(startup)
            state = list(net.state_dict().values())
            assert len(state) == len(init)
            for v, a in zip(state, init):
                v.set_value(a)
            losses = []
            for b in batches:
                out = exe.run(main, feed={n: a for (n, _, _), a in zip(specs, b)}, fetch_list=[loss])
                losses.append(out[0])
                if after_step is not None:
                    after_step(opt)
            final = [np.array(scope.find_var(v.name).get_tensor()) for v in state]
        return losses, final, opt, main, scope
    finally:
        paddle.disable_static()


def train_eager(*args, **kwargs):
    """Trains eagerly (on one thread); returns (initial state, losses, final state, optimizer)."""
    with one_thread():
        return _train_eager(*args, **kwargs)


def train_static(*args, **kwargs):
    """The same as a static program (on one thread); see _train_static."""
    with one_thread():
        return _train_static(*args, **kwargs)


def assert_same(a_list, b_list, what):
    assert len(a_list) == len(b_list), what
    for i, (a, b) in enumerate(zip(a_list, b_list)):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype, f"{what}[{i}]: {a.shape} {a.dtype} vs {b.shape} {b.dtype}"
        if not np.array_equal(a, b, equal_nan=True):
            d = np.abs(a.astype("float64") - b.astype("float64")).max()
            if os.environ.get("PADDLE_C_SANITIZED") == "1" and np.allclose(a, b, rtol=1e-4, atol=1e-5):
                # an ASan/UBSan build contracts a*b+c into FMAs differently per function, and its
                # slow kernels make the thread governor pick other thread counts (other summation
                # orders) between the two runs: 7e-9 .. 1.5e-6 seen
                continue
            raise AssertionError(f"{what}[{i}] differs (max abs diff {d})")
