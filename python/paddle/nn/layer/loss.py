"""Loss layers of paddle.nn (Paddle 2.3 signatures): Layer wrappers that hold the options and
call paddle.nn.functional's losses (the reduction string is checked at construction)."""
from .. import functional as F
from ..functional.loss import _check_reduction
from .layers import Layer


class CrossEntropyLoss(Layer):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False, axis=-1,
                 use_softmax=True, label_smoothing=0.0, name=None):
        super().__init__()
        _check_reduction("CrossEntropyLoss", reduction)
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction
        self.soft_label, self.axis, self.use_softmax = soft_label, axis, use_softmax
        self.label_smoothing, self.name = label_smoothing, name

    def forward(self, input, label):
        return F.cross_entropy(input, label, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, soft_label=self.soft_label, axis=self.axis,
                               use_softmax=self.use_softmax, label_smoothing=self.label_smoothing)


class NLLLoss(Layer):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None):
        super().__init__()
        _check_reduction("NLLLoss", reduction)
        self._weight, self._ignore_index, self._reduction, self._name = weight, ignore_index, reduction, name

    def forward(self, input, label):
        return F.nll_loss(input, label, self._weight, self._ignore_index, self._reduction)


class _Reduced(Layer):
    _fn = None

    def __init__(self, reduction="mean", name=None):
        super().__init__()
        _check_reduction(type(self).__name__, reduction)
        self.reduction, self.name = reduction, name

    def forward(self, input, label):
        return type(self)._fn(input, label, self.reduction)


class MSELoss(_Reduced):
    _fn = staticmethod(F.mse_loss)


class L1Loss(_Reduced):
    _fn = staticmethod(F.l1_loss)


class SmoothL1Loss(Layer):
    def __init__(self, reduction="mean", delta=1.0, name=None):
        super().__init__()
        _check_reduction("SmoothL1Loss", reduction)
        self.reduction, self.delta, self.name = reduction, delta, name

    def forward(self, input, label):
        return F.smooth_l1_loss(input, label, self.reduction, self.delta)


class BCELoss(Layer):
    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__()
        _check_reduction("BCELoss", reduction)
        self.weight, self.reduction, self.name = weight, reduction, name

    def forward(self, input, label):
        return F.binary_cross_entropy(input, label, self.weight, self.reduction)


class BCEWithLogitsLoss(Layer):
    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        super().__init__()
        _check_reduction("BCEWithLogitsLoss", reduction)
        self.weight, self.reduction, self.pos_weight, self.name = weight, reduction, pos_weight, name

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, self.weight, self.reduction, self.pos_weight)


class KLDivLoss(Layer):
    def __init__(self, reduction="mean"):
        super().__init__()
        _check_reduction("KLDivLoss", reduction, ("none", "mean", "sum", "batchmean"))
        self.reduction = reduction

    def forward(self, input, label):
        return F.kl_div(input, label, self.reduction)


class MarginRankingLoss(Layer):
    def __init__(self, margin=0.0, reduction="mean", name=None):
        super().__init__()
        _check_reduction("MarginRankingLoss", reduction)
        self.margin, self.reduction, self.name = margin, reduction, name

    def forward(self, input, other, label):
        return F.margin_ranking_loss(input, other, label, self.margin, self.reduction)


class HingeEmbeddingLoss(Layer):
    def __init__(self, margin=1.0, reduction="mean", name=None):
        super().__init__()
        _check_reduction("HingeEmbeddingLoss", reduction)
        self.margin, self.reduction, self.name = margin, reduction, name

    def forward(self, input, label):
        return F.hinge_embedding_loss(input, label, self.margin, self.reduction)


class CTCLoss(Layer):
    def __init__(self, blank=0, reduction="mean"):
        super().__init__()
        _check_reduction("CTCLoss", reduction)
        self.blank, self.reduction = blank, reduction

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank, self.reduction, norm_by_times)


class HSigmoidLoss(Layer):
    """Hierarchical sigmoid loss layer: weight [C, feature_size] and bias [C, 1] with
    C = num_classes - 1 for the default tree, num_classes for a custom one (is_custom)."""

    def __init__(self, feature_size, num_classes, weight_attr=None, bias_attr=None, is_custom=False,
                 is_sparse=False, name=None):
        super().__init__()
        if num_classes < 2 and not is_custom:
            raise ValueError("num_classes must not be less than 2 with default tree")
        if not is_custom and is_sparse:
            print("Sparse mode should not be used without custom tree")
            is_sparse = False
        self._feature_size, self._num_classes = feature_size, num_classes
        self._is_custom, self._is_sparse = is_custom, is_sparse
        self._weight_attr, self._bias_attr, self._name = weight_attr, bias_attr, name
        C = num_classes if is_custom else num_classes - 1
        self.weight = self.create_parameter([C, feature_size], attr=weight_attr, is_bias=False)
        self.bias = self.create_parameter([C, 1], attr=bias_attr, is_bias=True)

    def forward(self, input, label, path_table=None, path_code=None):
        return F.hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias, path_table=path_table,
                               path_code=path_code, is_sparse=self._is_sparse, name=self._name)


__all__ = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "BCELoss", "BCEWithLogitsLoss",
           "KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "CTCLoss", "HSigmoidLoss"]
