"""paddle.optimizer.lr: learning-rate schedulers (Paddle 2.3's formulas; OneCycleLR and CyclicLR
as Paddle 2.4 added them). A scheduler's step() advances last_epoch and recomputes last_lr;
calling the scheduler returns last_lr. An optimizer built with a scheduler reads it each step."""
import math
import numbers
import warnings

__all__ = ["LRScheduler", "NoamDecay", "PiecewiseDecay", "NaturalExpDecay", "InverseTimeDecay",
           "PolynomialDecay", "LinearWarmup", "ExponentialDecay", "MultiStepDecay", "StepDecay",
           "LambdaDecay", "ReduceOnPlateau", "CosineAnnealingDecay", "MultiplicativeDecay",
           "OneCycleLR", "CyclicLR", "LinearLR", "CosineAnnealingWarmRestarts"]


def _is_number(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _float(name, v, cls):
    if not _is_number(v):
        raise TypeError(f"{cls}: {name} must be a float or int, received {type(v).__name__}")
    return float(v)


class LRScheduler:
    """Base class: subclasses implement get_lr() from self.base_lr and self.last_epoch."""

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        if not _is_number(learning_rate):
            raise TypeError("The type of learning rate must be float, but received "
                            f"{type(learning_rate).__name__}")
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = last_epoch
        self.verbose = verbose
        self._var_name = None
        self.step()

    def __call__(self):
        return self.last_lr

    def step(self, epoch=None):
        """Advances to epoch (default: the next one) and updates last_lr."""
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = epoch
            if hasattr(self, "_get_closed_form_lr"):
                self.last_lr = self._get_closed_form_lr()
            else:
                self.last_lr = self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.")

    def get_lr(self):
        raise NotImplementedError(f"{type(self).__name__} must implement get_lr()")

    def state_keys(self):
        self.keys = ["last_epoch", "last_lr"]

    def state_dict(self):
        """The scheduler's state (last_epoch, last_lr and subclass counters)."""
        self.state_keys()
        out = {}
        for k in self.keys:
            if k not in self.__dict__:
                continue
            v = self.__dict__[k]
            if hasattr(v, "numpy") and hasattr(v, "shape"):
                v = v.numpy()
            out[k] = v
        return out

    def set_state_dict(self, state_dict):
        """Restores a state from state_dict()."""
        self.state_keys()
        for k in self.keys:
            if k in state_dict:
                self.__dict__[k] = state_dict[k]
            else:
                raise RuntimeError(f"Please check whether state_dict is correct for optimizer. "
                                   f"Can't find [ {k} ] in state_dict")
        if len(state_dict) > len(self.keys):
            warnings.warn("There are some unused values in state_dict. Maybe the optimizer have "
                          "different 'LearningRateDecay' when invoking state_dict and set_dict")

    set_dict = set_state_dict
    _state_keys = state_keys


class NoamDecay(LRScheduler):
    """lr = learning_rate * d_model^-0.5 * min(epoch^-0.5, warmup_steps^-1.5 * epoch)."""

    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        self.d_model = _float("d_model", d_model, "NoamDecay")
        self.warmup_steps = _float("warmup_steps", warmup_steps, "NoamDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        a = 1 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * (self.d_model ** -0.5) * min(a, b)


class PiecewiseDecay(LRScheduler):
    """values[i] while epoch < boundaries[i]; values[-1] after the last boundary."""

    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        boundaries, values = list(boundaries), list(values)
        if len(values) != len(boundaries) + 1:
            raise ValueError(f"PiecewiseDecay: len(values) must be len(boundaries) + 1, received "
                             f"{len(values)} values and {len(boundaries)} boundaries")
        self.boundaries = boundaries
        self.values = [float(v) for v in values]
        super().__init__(last_epoch=last_epoch, verbose=verbose)

    def get_lr(self):
        for i, b in enumerate(self.boundaries):
            if self.last_epoch < b:
                return self.values[i]
        return self.values[-1]


class NaturalExpDecay(LRScheduler):
    """lr = learning_rate * exp(-gamma * epoch)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _float("gamma", gamma, "NaturalExpDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """lr = learning_rate / (1 + gamma * epoch)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _float("gamma", gamma, "InverseTimeDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """(lr - end_lr) * (1 - epoch/decay_steps)^power + end_lr; with cycle the decay steps grow
    to the next multiple of decay_steps, else epoch stops at decay_steps."""

    def __init__(self, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False,
                 last_epoch=-1, verbose=False):
        if isinstance(decay_steps, bool) or not isinstance(decay_steps, int) or decay_steps <= 0:
            raise ValueError(f"PolynomialDecay: decay_steps must be a positive int, received {decay_steps!r}")
        self.decay_steps = decay_steps
        self.end_lr = _float("end_lr", end_lr, "PolynomialDecay")
        self.power = _float("power", power, "PolynomialDecay")
        self.cycle = bool(cycle)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            div = math.ceil(float(epoch) / float(steps))
            if epoch == 0:
                div = 1
            steps = steps * div
        else:
            epoch = min(epoch, steps)
        return (self.base_lr - self.end_lr) * ((1 - float(epoch) / float(steps)) ** self.power) + self.end_lr


class LinearWarmup(LRScheduler):
    """Linear from start_lr to end_lr over warmup_steps, then learning_rate (a float, or a
    scheduler stepped with epoch - warmup_steps)."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1, verbose=False):
        if not (_is_number(learning_rate) or isinstance(learning_rate, LRScheduler)):
            raise TypeError("LinearWarmup: learning_rate must be a float or an LRScheduler, "
                            f"received {type(learning_rate).__name__}")
        self.learning_rate = learning_rate
        if isinstance(warmup_steps, bool) or not isinstance(warmup_steps, int) or warmup_steps <= 0:
            # Paddle 2.6 asserts this (AssertionError, its text kept for code that matches it)
            raise AssertionError(f"LinearWarmup: 'warmup_steps' must be a positive integer, received "
                                 f"{warmup_steps!r}")
        self.warmup_steps = warmup_steps
        self.start_lr = _float("start_lr", start_lr, "LinearWarmup")
        self.end_lr = _float("end_lr", end_lr, "LinearWarmup")
        if self.end_lr <= self.start_lr:
            raise ValueError(f"LinearWarmup: end_lr {end_lr} must be greater than start_lr {start_lr}")
        super().__init__(start_lr, last_epoch, verbose)

    def state_dict(self):
        d = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            d["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return d

    def set_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        inner = state_dict.pop("LinearWarmup_LR", None)
        super().set_state_dict(state_dict)
        if inner is not None and isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.set_state_dict(inner)

    set_dict = set_state_dict

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * float(self.last_epoch) / float(self.warmup_steps) + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return float(self.learning_rate)


class ExponentialDecay(LRScheduler):
    """lr = learning_rate * gamma^epoch."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _float("gamma", gamma, "ExponentialDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * (self.gamma ** self.last_epoch)


class MultiStepDecay(LRScheduler):
    """lr = learning_rate * gamma^(number of milestones passed)."""

    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        if not isinstance(milestones, (tuple, list)):
            raise TypeError("The type of 'milestones' in 'MultiStepDecay' must be 'tuple, list', "
                            f"but received {type(milestones)}.")
        if not all(milestones[i] < milestones[i + 1] for i in range(len(milestones) - 1)):
            raise ValueError("The elements of milestones must be incremented")
        if _float("gamma", gamma, "MultiStepDecay") >= 1.0:
            raise ValueError("gamma should be < 1.0.")
        self.milestones = list(milestones)
        self.gamma = float(gamma)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        for i, m in enumerate(self.milestones):
            if self.last_epoch < m:
                return self.base_lr * (self.gamma ** i)
        return self.base_lr * (self.gamma ** len(self.milestones))


class StepDecay(LRScheduler):
    """lr = learning_rate * gamma^(epoch // step_size)."""

    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        if isinstance(step_size, bool) or not isinstance(step_size, int):
            raise TypeError("The type of 'step_size' must be 'int', but received "
                            f"{type(step_size)}.")
        if step_size <= 0:
            raise ValueError(f"StepDecay: step_size must be > 0, received {step_size}")
        if _float("gamma", gamma, "StepDecay") >= 1.0:
            raise ValueError("gamma should be < 1.0.")
        self.step_size = step_size
        self.gamma = float(gamma)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * (self.gamma ** (self.last_epoch // self.step_size))


class LambdaDecay(LRScheduler):
    """lr = learning_rate * lr_lambda(epoch)."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError("The type of 'lr_lambda' in 'LambdaDecay' must be 'function', but "
                            f"received {type(lr_lambda)}.")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """lr = learning_rate * prod(lr_lambda(e) for e in 1..epoch)."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError("The type of 'lr_lambda' in 'MultiplicativeDecay' must be 'function', "
                            f"but received {type(lr_lambda)}.")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        lr = self.base_lr
        for e in range(1, self.last_epoch + 1):
            lr = lr * self.lr_lambda(e)
        return lr


class ReduceOnPlateau(LRScheduler):
    """Multiplies the lr by factor when the metric passed to step(metrics) has not improved for
    more than patience epochs (then waits cooldown epochs); never below min_lr."""

    def __init__(self, learning_rate, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        mode = mode.lower() if isinstance(mode, str) else mode
        if mode not in ("min", "max"):
            raise ValueError("mode: " + str(mode) + " is unknown!")
        self.mode = mode
        if _float("factor", factor, "ReduceOnPlateau") >= 1.0:
            raise ValueError("new_lr = origin_lr * gamma and gamma should be < 1.0.")
        self.factor = float(factor)
        threshold_mode = threshold_mode.lower() if isinstance(threshold_mode, str) else threshold_mode
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode: " + str(threshold_mode) + " is unknown!")
        self.threshold_mode = threshold_mode
        if not _is_number(learning_rate):
            raise TypeError("The type of 'learning_rate' in 'ReduceOnPlateau' must be 'float', "
                            f"but received {type(learning_rate)}.")
        self.patience = patience
        self.threshold = threshold
        self.cooldown = cooldown
        self.min_lr = min_lr
        self.epsilon = epsilon
        self.cooldown_counter = 0
        self.best = None
        self.num_bad_epochs = 0
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = 0
        self.verbose = verbose
        self._var_name = None

    def state_keys(self):
        self.keys = ["cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"]

    def step(self, metrics, epoch=None):
        """Call with the monitored metric (a float, or a Tensor / ndarray of one element)."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if hasattr(metrics, "shape") and hasattr(metrics, "numpy"):
            if int(metrics.size) != 1:
                raise ValueError("the metrics passed to ReduceOnPlateau.step must have 1 element, "
                                 f"received shape {list(metrics.shape)}")
            current = float(metrics.numpy().reshape(-1)[0])
        elif hasattr(metrics, "shape"):
            import numpy as np
            a = np.asarray(metrics)
            if a.size != 1:
                raise ValueError("the metrics passed to ReduceOnPlateau.step must have 1 element")
            current = float(a.reshape(-1)[0])
        elif _is_number(metrics):
            current = float(metrics)
        else:
            raise TypeError("metrics must be 'int', 'float', 'np.float', 'numpy.ndarray' or "
                            f"'paddle.Tensor', but receive {type(metrics)}")
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
        else:
            if self.best is None or self._is_better(current, self.best):
                self.best = current
                self.num_bad_epochs = 0
            else:
                self.num_bad_epochs += 1
            if self.num_bad_epochs > self.patience:
                self.cooldown_counter = self.cooldown
                self.num_bad_epochs = 0
                new_lr = max(self.last_lr * self.factor, self.min_lr)
                if self.last_lr - new_lr > self.epsilon:
                    self.last_lr = new_lr
                    if self.verbose:
                        print(f"Epoch {self.last_epoch}: ReduceOnPlateau set learning rate to {self.last_lr}.")

    def _is_better(self, current, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return current < best - best * self.threshold
        if self.mode == "min":
            return current < best - self.threshold
        if self.threshold_mode == "rel":
            return current > best + best * self.threshold
        return current > best + self.threshold


class CosineAnnealingDecay(LRScheduler):
    """Cosine annealing from learning_rate to eta_min over T_max epochs (recursive form)."""

    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        if isinstance(T_max, bool) or not isinstance(T_max, int):
            raise TypeError("The type of 'T_max' in 'CosineAnnealingDecay' must be 'int', but "
                            f"received {type(T_max)}.")
        if T_max <= 0:
            raise ValueError(f"CosineAnnealingDecay: T_max must be > 0, received {T_max}")
        self.T_max = T_max
        self.eta_min = _float("eta_min", eta_min, "CosineAnnealingDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch == 0:
            return self.base_lr
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
        return ((1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (self.last_lr - self.eta_min) + self.eta_min)

    def _get_closed_form_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class OneCycleLR(LRScheduler):
    """The one-cycle policy: warm up from max_learning_rate/divide_factor to max_learning_rate
    over phase_pct of total_steps, then anneal to end_learning_rate (three_phase: back to the
    initial lr first). anneal_strategy: 'cos' or 'linear'."""

    def __init__(self, max_learning_rate, total_steps, divide_factor=25.0, end_learning_rate=0.0001,
                 phase_pct=0.3, anneal_strategy="cos", three_phase=False, last_epoch=-1, verbose=False):
        max_lr = _float("max_learning_rate", max_learning_rate, "OneCycleLR")
        if max_lr < 0:
            raise ValueError("'max_learning_rate' must be a positive integer or float.")
        end_lr = _float("end_learning_rate", end_learning_rate, "OneCycleLR")
        if end_lr < 0:
            raise ValueError("'end_learning_rate' must be a positive integer or float.")
        if isinstance(total_steps, bool) or not isinstance(total_steps, int):
            raise TypeError("'total_step' must be a positive integer.")
        if total_steps <= 0:
            raise ValueError("'total_step' must be a positive integer.")
        self.total_steps = total_steps
        if _float("phase_pct", phase_pct, "OneCycleLR") < 0 or phase_pct > 1:
            raise ValueError(f"'phase_pct' must be between 0 and 1, but received {phase_pct}")
        divide_factor = _float("divide_factor", divide_factor, "OneCycleLR")
        initial_lr = max_lr / divide_factor
        if three_phase:
            if phase_pct >= 0.5:
                raise ValueError("When three_phase is True, 'phase_pct' must be less than 0.5")
            self._start_steps = [0, float(phase_pct * total_steps) - 1,
                                 float(2 * phase_pct * total_steps) - 2, total_steps - 1]
            self._steps_size = [self._start_steps[1] - self._start_steps[0],
                                self._start_steps[2] - self._start_steps[1],
                                self._start_steps[3] - self._start_steps[2],
                                self._start_steps[3] - self._start_steps[2]]
            self._lr_config = [initial_lr, max_lr, initial_lr, end_lr]
        else:
            self._start_steps = [0, float(phase_pct * total_steps) - 1, total_steps - 1]
            self._steps_size = [self._start_steps[1] - self._start_steps[0],
                                self._start_steps[2] - self._start_steps[1],
                                self._start_steps[2] - self._start_steps[1]]
            self._lr_config = [initial_lr, max_lr, end_lr]
        if anneal_strategy == "cos":
            self.anneal_func = self._cos_annealing
        elif anneal_strategy == "linear":
            self.anneal_func = self._linear_annealing
        else:
            raise ValueError(f"'anneal_strategy' must by one of 'cos' or 'linear', but received {anneal_strategy}")
        super().__init__(initial_lr, last_epoch, verbose)

    @staticmethod
    def _cos_annealing(start_lr, end_lr, pct):
        return end_lr + (start_lr - end_lr) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _linear_annealing(start_lr, end_lr, pct):
        return (end_lr - start_lr) * pct + start_lr

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. However the number of total steps is "
                             f"{self.total_steps}")
        for i, (end_step, size) in enumerate(zip(self._start_steps[1:], self._steps_size)):
            if step <= end_step or i == len(self._lr_config) - 2:
                pct = (step - self._start_steps[i]) / size if size else 1.0
                return self.anneal_func(self._lr_config[i], self._lr_config[i + 1], pct)
        return self._lr_config[-1]


class CyclicLR(LRScheduler):
    """Cycles the lr between base_learning_rate and max_learning_rate (step_size_up steps up,
    step_size_down down); mode 'triangular', 'triangular2' (amplitude halves each cycle) or
    'exp_range' (amplitude * exp_gamma^iteration), or a custom scale_fn."""

    def __init__(self, base_learning_rate, max_learning_rate, step_size_up, step_size_down=None,
                 mode="triangular", exp_gamma=1.0, scale_fn=None, scale_mode="cycle",
                 last_epoch=-1, verbose=False):
        max_lr = _float("max_learning_rate", max_learning_rate, "CyclicLR")
        base_lr = _float("base_learning_rate", base_learning_rate, "CyclicLR")
        if max_lr < 0 or base_lr < 0:
            raise ValueError("CyclicLR: learning rates must be >= 0")
        if isinstance(step_size_up, bool) or not isinstance(step_size_up, int) or step_size_up <= 0:
            raise ValueError(f"'step_size_up' must be a positive integer, but received {step_size_up!r}")
        if step_size_down is not None and (isinstance(step_size_down, bool) or not isinstance(step_size_down, int)
                                           or step_size_down <= 0):
            raise ValueError(f"'step_size_down' must be a positive integer, but received {step_size_down!r}")
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("'mode' is invalid and 'scale_fn' is not specified, make sure one of "
                             "'mode' or 'scale_fn' is valid")
        if scale_mode not in ("cycle", "iterations"):
            raise ValueError("'scale_mode' must be one of 'cycle' or 'iterations")
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.max_lr = max_lr
        self.amplitude = max_lr - base_lr
        self.mode = mode
        self.gamma = float(exp_gamma)
        if scale_fn is None:
            if mode == "triangular":
                self.scale_fn, self.scale_mode = (lambda x: 1.0), "cycle"
            elif mode == "triangular2":
                self.scale_fn, self.scale_mode = (lambda x: 1 / (2.0 ** (x - 1))), "cycle"
            else:
                self.scale_fn, self.scale_mode = (lambda x: self.gamma ** x), "iterations"
        else:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        super().__init__(base_lr, last_epoch, verbose)

    def get_lr(self):
        it = self.last_epoch
        cycle = 1 + it // self.cycle_size
        pct = 1.0 + it / self.cycle_size - cycle
        if pct <= self.step_up_pct:
            scale = pct / self.step_up_pct
        else:
            scale = (1 - pct) / (1 - self.step_up_pct)
        x = cycle if self.scale_mode == "cycle" else it
        return self.base_lr + self.amplitude * scale * self.scale_fn(x)


class LinearLR(LRScheduler):
    """Paddle 2.6: the learning rate scaled by a factor moving linearly from start_factor to
    end_factor over total_steps epochs, then kept (recursive form, as Paddle computes it)."""

    def __init__(self, learning_rate, total_steps, start_factor=1.0 / 3, end_factor=1.0,
                 last_epoch=-1, verbose=False):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("`start_factor` must be greater than 0 and less or equal to 1, "
                             f"but got {start_factor}")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("`end_factor` must be greater than 0 and less than 1, "
                             f"but got {end_factor}")
        if total_steps <= 0:
            raise ValueError(f"`total_steps` must be greater than 0, but got {total_steps}")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_steps = total_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        delta = self.end_factor - self.start_factor
        denom = self.total_steps * self.start_factor + (self.last_epoch - 1) * delta
        return self.last_lr * (1.0 + delta / denom)


class CosineAnnealingWarmRestarts(LRScheduler):
    """Paddle 2.6 (SGDR): cosine annealing from learning_rate to eta_min over T_i epochs, restarting
    with T_i multiplied by T_mult after each period (T_0 for the first)."""

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (
            1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def step(self, epoch=None):
        """Advances to epoch (default: the next one), restarting the cosine when a period ends."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur - self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.")
