"""ExponentialFamily: entropy through the Bregman divergence of the log normalizer."""
import paddle

from . import distribution


class ExponentialFamily(distribution.Distribution):
    """Base of exponential-family distributions p(x) = h(x) exp(<t(x), theta> - F(theta)).

    Subclasses give ``_natural_parameters``, ``_log_normalizer`` and ``_mean_carrier_measure``;
    entropy is -E[log h] + F(theta) - <theta, grad F(theta)>.
    """

    @property
    def _natural_parameters(self):
        raise NotImplementedError

    def _log_normalizer(self):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        entropy_value = -self._mean_carrier_measure
        params = []
        for p in self._natural_parameters:
            p = p.detach()
            p.stop_gradient = False
            params.append(p)
        log_norm = self._log_normalizer(*params)
        if paddle.in_dynamic_mode():
            grads = paddle.grad(log_norm.sum(), params, create_graph=True)
        else:
            grads = paddle.static.gradients(log_norm.sum(), params)
        entropy_value = entropy_value + log_norm
        for p, g in zip(params, grads):
            entropy_value = entropy_value - p * g
        return entropy_value
