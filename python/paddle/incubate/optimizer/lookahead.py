"""LookAhead (Zhang et al. 2019): k fast steps of an inner optimizer, then the slow weights move
alpha of the way to the fast ones and the fast weights restart from there."""
import paddle
from paddle.optimizer import Optimizer


class LookAhead(Optimizer):
    r"""Wraps ``inner_optimizer``: each ``step()`` runs it, and every ``k``-th step sets
    ``slow = slow + alpha * (fast - slow)`` and ``fast = slow``; the slow weights start from the
    parameters after the first step (Paddle's rule).

    Args:
        inner_optimizer (Optimizer): the fast optimizer.
        alpha (float): slow-weight step, in [0, 1]. Default 0.5.
        k (int): fast steps per slow step, > 0. Default 5.
        name (str, optional): unused.
    """

    def __init__(self, inner_optimizer, alpha=0.5, k=5, name=None):
        if inner_optimizer is None:
            raise ValueError("inner optimizer can not be None")
        if not 0.0 <= alpha <= 1.0:
            raise ValueError("alpha should be larger or equal to 0.0, and less or equal than 1.0")
        if not (isinstance(k, int) and k > 0):
            raise ValueError("k should be a positive integer")
        self.inner_optimizer = inner_optimizer
        params = list(inner_optimizer._parameter_list)
        super().__init__(learning_rate=alpha, parameters=params, weight_decay=None,
                         grad_clip=None, name=name)
        self.alpha = alpha
        self.k = k
        self.type = "lookahead"
        self._global_step = 0
        self._slow = {}

    def _slow_of(self, p):
        s = self._slow.get(id(p))
        if s is None:
            s = paddle.zeros(p.shape, dtype=p.dtype)
            self._slow[id(p)] = s
        return s

    def _lookahead_update(self, params):
        self._global_step += 1
        sync = self._global_step % self.k == 0
        with paddle.no_grad():
            for p in params:
                slow = self._slow_of(p)
                if self._global_step == 1:
                    slow.set_value(p)
                if sync:
                    new = self.alpha * p + (1.0 - self.alpha) * slow
                    p.set_value(new)
                    slow.set_value(new)

    def _trainable(self):
        return [p for p in self._parameter_list
                if not p.stop_gradient and p.grad is not None]

    def step(self):
        """Runs the inner optimizer's step, then the lookahead update."""
        if not self._dynamic():
            raise NotImplementedError("LookAhead.step runs in dynamic mode only")
        params = self._trainable()
        self.inner_optimizer.step()
        self._lookahead_update(params)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Inner minimize, then the lookahead update; returns the inner result."""
        if not self._dynamic():
            raise NotImplementedError("LookAhead.minimize in static mode is not supported yet")
        params = self._trainable()
        out = self.inner_optimizer.minimize(loss, startup_program=startup_program,
                                            parameters=parameters, no_grad_set=no_grad_set)
        self._lookahead_update(params)
        return out

    def clear_grad(self, set_to_zero=True):
        self.inner_optimizer.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    def state_dict(self):
        sd = self.inner_optimizer.state_dict()
        for p in self._parameter_list:
            if id(p) in self._slow:
                sd[p.name + "_slow"] = self._slow[id(p)]
        sd["lookahead_global_step"] = self._global_step
        return sd

    def set_state_dict(self, state_dict):
        sd = dict(state_dict)
        self._global_step = int(sd.pop("lookahead_global_step", 0))
        for p in self._parameter_list:
            v = sd.pop(p.name + "_slow", None)
            if v is not None:
                self._slow_of(p).set_value(v)
        self.inner_optimizer.set_state_dict(sd)
