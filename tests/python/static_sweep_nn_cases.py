"""The nn part of the static sweep's table (tests/python/test_static_sweep.py): paddle.nn.functional
(activations, common, conv, pooling, norm, vision), the losses (functional and Layer forms), the
layers (built in both modes from the same seed; the static parameters get the eager values) and
the metrics. Same case format as static_api_cases.py; `layer`: a factory of the Layer to call."""
import numpy as np

import paddle
import paddle.nn as nn
import paddle.nn.functional as F

rng = np.random.default_rng(11)


def r(*shape, dtype="float32", low=-2.0, high=2.0):
    return rng.uniform(low, high, size=shape).astype(dtype)


def ri(*shape, low=0, high=5, dtype="int64"):
    return rng.integers(low, high, size=shape).astype(dtype)


def C(id, fn, *inputs, **opts):
    return dict(id=id, fn=fn, inputs=list(inputs), **opts)


def L(id, make, *inputs, **opts):
    """A layer case: make() builds the layer (in each mode); it is called on the inputs."""
    return dict(id=id, fn=None, layer=make, inputs=list(inputs), **opts)


X = r(4, 6)
IMG = r(2, 3, 6, 6)
SEQ = r(2, 5, 8)
P = r(4, 6, low=0.05, high=0.95)
LBL = ri(4, 1, high=6)

ACTS = ["relu", "relu6", "elu", "selu", "celu", "gelu", "silu", "swish", "mish", "softplus", "softsign",
        "softshrink", "hardshrink", "hardtanh", "hardsigmoid", "hardswish", "leaky_relu", "log_sigmoid",
        "sigmoid", "tanh", "tanhshrink", "thresholded_relu", "softmax", "log_softmax"]
CASES = [C(f"F.{a}", (lambda a: lambda x: getattr(F, a)(x))(a), X, grad=True) for a in ACTS]
CASES += [
    C("F.gelu approximate", lambda x: F.gelu(x, True), X, grad=True),
    C("F.leaky_relu 0.2", lambda x: F.leaky_relu(x, 0.2), X, grad=True),
    C("F.softmax axis0", lambda x: F.softmax(x, 0), X, grad=True),
    C("F.prelu", lambda x, w: F.prelu(x, w), IMG, r(3), grad=True),
    C("F.rrelu eval", lambda x: F.rrelu(x, training=False), X),
    C("F.maxout", lambda x: F.maxout(x, 2, 1), r(2, 4, 3, 3)),
    C("F.glu", lambda x: F.glu(x, -1), X, grad=True),
    C("F.gumbel_softmax", lambda x: F.gumbel_softmax(x, 0.5), X, seed=3),
    # common
    C("F.linear", lambda x, w, b: F.linear(x, w, b), X, r(6, 3), r(3), grad=True),
    C("F.bilinear", lambda a, b, w: F.bilinear(a, b, w), r(4, 3), r(4, 5), r(2, 3, 5), grad=True),
    C("F.dropout eval", lambda x: F.dropout(x, 0.3, training=False), X),
    C("F.dropout train", lambda x: F.dropout(x, 0.3), X, seed=4, grad=True),
    C("F.dropout axis", lambda x: F.dropout(x, 0.5, axis=1), X, seed=4),
    C("F.dropout2d", lambda x: F.dropout2d(x, 0.5), IMG, seed=4),
    C("F.alpha_dropout", lambda x: F.alpha_dropout(x, 0.4), X, seed=4),
    C("F.embedding", lambda i, w: F.embedding(i, w), ri(4, 3, high=7), r(7, 5), grad=True),
    C("F.embedding padding", lambda i, w: F.embedding(i, w, padding_idx=0), ri(4, 3, high=7), r(7, 5), grad=True),
    C("F.one_hot", lambda i: F.one_hot(i, 6), ri(4, high=6)),
    C("F.pad constant", lambda x: F.pad(x, [1, 2, 0, 1], value=0.5), IMG, grad=True),
    C("F.pad reflect", lambda x: F.pad(x, [1, 1, 2, 2], mode="reflect"), IMG, grad=True),
    C("F.pad replicate", lambda x: F.pad(x, [1, 0, 0, 1], mode="replicate"), IMG),
    C("F.pad circular", lambda x: F.pad(x, [1, 1, 1, 1], mode="circular"), IMG),
    C("F.zeropad2d", lambda x: F.zeropad2d(x, [1, 1, 1, 1]), IMG),
    C("F.interpolate nearest", lambda x: F.interpolate(x, scale_factor=2), IMG, grad=True),
    C("F.interpolate bilinear", lambda x: F.interpolate(x, size=[9, 7], mode="bilinear"), IMG, grad=True),
    C("F.upsample", lambda x: F.upsample(x, scale_factor=2, mode="nearest"), IMG),
    C("F.unfold", lambda x: F.unfold(x, 3), IMG, grad=True),
    C("F.fold", lambda x: F.fold(x, [4, 4], 2), r(2, 12, 9)),
    C("F.cosine_similarity", lambda a, b: F.cosine_similarity(a, b), X, r(4, 6), grad=True),
    C("F.pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), r(2, 8, 3, 3)),
    C("F.pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), r(2, 2, 4, 4)),
    C("F.channel_shuffle", lambda x: F.channel_shuffle(x, 2), r(2, 4, 3, 3)),
    C("F.label_smooth", lambda x: F.label_smooth(x, epsilon=0.1), P),
    C("F.normalize", lambda x: F.normalize(x, axis=1), X, grad=True),
    C("F.pairwise_distance", lambda a, b: F.pairwise_distance(a, b), X, r(4, 6)),
    C("F.sequence_mask", lambda x: F.sequence_mask(x, 6), ri(4, low=1, high=6)),
    C("F.diag_embed", lambda x: F.diag_embed(x), X),
    C("F.affine_grid", lambda t: F.affine_grid(t, [2, 3, 4, 5]), r(2, 2, 3)),
    C("F.grid_sample", lambda x, g: F.grid_sample(x, g), IMG, r(2, 4, 4, 2, low=-1, high=1), grad=True),
    C("F.temporal_shift", lambda x: F.temporal_shift(x, 2), r(4, 4, 3, 3)),
    # conv
    C("F.conv1d", lambda x, w: F.conv1d(x, w, padding=1), r(2, 3, 8), r(4, 3, 3), grad=True),
    C("F.conv2d", lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), IMG, r(4, 3, 3, 3), r(4), grad=True),
    C("F.conv2d groups", lambda x, w: F.conv2d(x, w, groups=3), IMG, r(6, 1, 3, 3), grad=True),
    C("F.conv2d NHWC", lambda x, w: F.conv2d(x, w, data_format="NHWC"), r(2, 6, 6, 3), r(4, 3, 3, 3)),
    C("F.conv3d", lambda x, w: F.conv3d(x, w), r(2, 2, 4, 4, 4), r(3, 2, 2, 2, 2), grad=True),
    C("F.conv1d_transpose", lambda x, w: F.conv1d_transpose(x, w, stride=2), r(2, 3, 5), r(3, 2, 3)),
    C("F.conv2d_transpose", lambda x, w: F.conv2d_transpose(x, w, stride=2, padding=1), IMG, r(3, 4, 3, 3),
      grad=True),
    C("F.conv3d_transpose", lambda x, w: F.conv3d_transpose(x, w), r(2, 2, 3, 3, 3), r(2, 3, 2, 2, 2)),
    # pooling
    C("F.avg_pool1d", lambda x: F.avg_pool1d(x, 2), r(2, 3, 8), grad=True),
    C("F.max_pool1d", lambda x: F.max_pool1d(x, 2), r(2, 3, 8), grad=True),
    C("F.avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1), IMG, grad=True),
    C("F.avg_pool2d ceil", lambda x: F.avg_pool2d(x, 4, 3, ceil_mode=True, exclusive=False), IMG),
    C("F.max_pool2d", lambda x: F.max_pool2d(x, 2), IMG, grad=True),
    C("F.max_pool2d mask", lambda x: F.max_pool2d(x, 2, return_mask=True), IMG),
    C("F.avg_pool3d", lambda x: F.avg_pool3d(x, 2), r(2, 2, 4, 4, 4)),
    C("F.max_pool3d", lambda x: F.max_pool3d(x, 2), r(2, 2, 4, 4, 4)),
    C("F.adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 3), r(2, 3, 8)),
    C("F.adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, [2, 3]), IMG, grad=True),
    C("F.adaptive_avg_pool2d 1", lambda x: F.adaptive_avg_pool2d(x, 1), IMG, grad=True),
    C("F.adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, 3), IMG),
    C("F.adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, 2), r(2, 2, 4, 4, 4)),
    C("F.max_unpool2d", lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_mask=True), 2), IMG),
    # norm
    C("F.batch_norm eval", lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b), IMG, r(3), r(3, low=0.5, high=1.5),
      r(3), r(3), grad=True),
    C("F.layer_norm", lambda x, w, b: F.layer_norm(x, 8, w, b), SEQ, r(8), r(8), grad=True),
    C("F.instance_norm", lambda x: F.instance_norm(x), IMG, grad=True),
    C("F.local_response_norm", lambda x: F.local_response_norm(x, 3), IMG),
    # losses
    C("F.cross_entropy", lambda x, y: F.cross_entropy(x, y), X, LBL, grad=True),
    C("F.cross_entropy none", lambda x, y: F.cross_entropy(x, y, reduction="none"), X, LBL, grad=True),
    C("F.cross_entropy soft", lambda x, y: F.cross_entropy(x, y, soft_label=True), X, P / P.sum(1, keepdims=True),
      grad=True),
    C("F.cross_entropy weight", lambda x, y, w: F.cross_entropy(x, y, weight=w), X, LBL, r(6, low=0.5), grad=True),
    C("F.cross_entropy ignore", lambda x, y: F.cross_entropy(x, y, ignore_index=2), X, LBL, grad=True),
    C("F.cross_entropy no softmax", lambda x, y: F.cross_entropy(x, y, use_softmax=False), P, LBL),
    C("F.softmax_with_cross_entropy", lambda x, y: F.softmax_with_cross_entropy(x, y), X, LBL, grad=True),
    C("F.mse_loss", lambda a, b: F.mse_loss(a, b), X, r(4, 6), grad=True),
    C("F.l1_loss", lambda a, b: F.l1_loss(a, b, "sum"), X, r(4, 6), grad=True),
    C("F.smooth_l1_loss", lambda a, b: F.smooth_l1_loss(a, b), X, r(4, 6), grad=True),
    C("F.nll_loss", lambda x, y: F.nll_loss(F.log_softmax(x), y), X, LBL.reshape(-1), grad=True),
    C("F.binary_cross_entropy", lambda p, y: F.binary_cross_entropy(p, y), P, rng.integers(0, 2, (4, 6)).astype("float32"),
      grad=True),
    C("F.binary_cross_entropy_with_logits", lambda x, y: F.binary_cross_entropy_with_logits(x, y), X,
      rng.integers(0, 2, (4, 6)).astype("float32"), grad=True),
    C("F.kl_div", lambda x, y: F.kl_div(x, y, "batchmean"), np.log(P), P, grad=True),
    C("F.margin_ranking_loss", lambda a, b, y: F.margin_ranking_loss(a, b, y, 0.1), X, r(4, 6),
      np.sign(r(4, 6)), grad=True),
    C("F.hinge_embedding_loss", lambda x, y: F.hinge_embedding_loss(x, y), X, np.sign(r(4, 6))),
    C("F.log_loss", lambda p, y: F.log_loss(p, y), r(4, 1, low=0.1, high=0.9), rng.integers(0, 2, (4, 1)).astype("float32")),
    C("F.square_error_cost", lambda a, b: F.square_error_cost(a, b), X, r(4, 6)),
    C("F.sigmoid_focal_loss", lambda x, y: F.sigmoid_focal_loss(x, y), X, rng.integers(0, 2, (4, 6)).astype("float32")),
    C("F.dice_loss", lambda p, y: F.dice_loss(p, y), r(4, 6, low=0.05, high=0.95), LBL),
    C("F.npair_loss", lambda a, p, y: F.npair_loss(a, p, y), r(4, 3), r(4, 3), ri(4, high=3).astype("float32")),
    C("F.ctc_loss", lambda lp, lab, il, ll: F.ctc_loss(lp, lab, il, ll), r(6, 2, 5), ri(2, 3, low=1, high=5).astype("int32"),
      np.array([6, 5], "int64"), np.array([3, 2], "int64"), known=True),
    # losses as layers
    L("nn.CrossEntropyLoss", lambda: nn.CrossEntropyLoss(), X, LBL, grad=True),
    L("nn.MSELoss", lambda: nn.MSELoss(), X, r(4, 6), grad=True),
    L("nn.L1Loss", lambda: nn.L1Loss(), X, r(4, 6)),
    L("nn.BCELoss", lambda: nn.BCELoss(), P, rng.integers(0, 2, (4, 6)).astype("float32")),
    L("nn.BCEWithLogitsLoss", lambda: nn.BCEWithLogitsLoss(), X, rng.integers(0, 2, (4, 6)).astype("float32")),
    L("nn.NLLLoss", lambda: nn.NLLLoss(), X, LBL.reshape(-1)),
    L("nn.SmoothL1Loss", lambda: nn.SmoothL1Loss(), X, r(4, 6)),
    L("nn.KLDivLoss", lambda: nn.KLDivLoss(), np.log(P), P),
    L("nn.MarginRankingLoss", lambda: nn.MarginRankingLoss(), X, r(4, 6), np.sign(r(4, 6))),
    # layers
    L("nn.Linear", lambda: nn.Linear(6, 3), X, grad=True),
    L("nn.Bilinear", lambda: nn.Bilinear(3, 5, 2), r(4, 3), r(4, 5), grad=True),
    L("nn.Conv2D", lambda: nn.Conv2D(3, 4, 3, padding=1), IMG, grad=True),
    L("nn.Conv2DTranspose", lambda: nn.Conv2DTranspose(3, 2, 3, stride=2), IMG, grad=True),
    L("nn.Conv1D", lambda: nn.Conv1D(3, 4, 3), r(2, 3, 8), grad=True),
    L("nn.BatchNorm1D", lambda: nn.BatchNorm1D(6), X, grad=True),
    L("nn.BatchNorm2D", lambda: nn.BatchNorm2D(3), IMG, grad=True),
    L("nn.BatchNorm2D eval", lambda: _eval(nn.BatchNorm2D(3)), IMG),
    L("nn.LayerNorm", lambda: nn.LayerNorm(8), SEQ, grad=True),
    L("nn.GroupNorm", lambda: nn.GroupNorm(3, 3), IMG, grad=True),
    L("nn.InstanceNorm2D", lambda: nn.InstanceNorm2D(3), IMG, grad=True),
    L("nn.LocalResponseNorm", lambda: nn.LocalResponseNorm(3), IMG),
    L("nn.Embedding", lambda: nn.Embedding(7, 4), ri(4, 3, high=7), grad=True),
    L("nn.Embedding sparse", lambda: nn.Embedding(7, 4, sparse=True), ri(4, 3, high=7), grad=True),
    L("nn.Embedding padding_idx", lambda: nn.Embedding(7, 4, padding_idx=2), ri(4, 3, high=7), grad=True),
    C("F.sequence_mask no maxlen", lambda x: F.sequence_mask(x), ri(4, low=1, high=6),
      skip="the output width is the lengths' maximum, a value: a program needs maxlen (ValueError)"),
    L("nn.PReLU", lambda: nn.PReLU(3), IMG, grad=True),
    L("nn.Dropout", lambda: nn.Dropout(0.3), X, seed=9),
    L("nn.Flatten", lambda: nn.Flatten(), IMG),
    L("nn.Upsample", lambda: nn.Upsample(scale_factor=2, mode="bilinear"), IMG),
    L("nn.PixelShuffle", lambda: nn.PixelShuffle(2), r(2, 8, 3, 3)),
    L("nn.MaxPool2D", lambda: nn.MaxPool2D(2, 2), IMG),
    L("nn.AvgPool2D", lambda: nn.AvgPool2D(2, 2), IMG),
    L("nn.AdaptiveAvgPool2D", lambda: nn.AdaptiveAvgPool2D(1), IMG),
    L("nn.Softmax", lambda: nn.Softmax(), X),
    L("nn.Identity", lambda: nn.Identity(), X),
    L("nn.Sequential", lambda: nn.Sequential(nn.Linear(6, 5), nn.Tanh(), nn.Linear(5, 2)), X, grad=True),
    L("nn.LSTM", lambda: nn.LSTM(8, 6), SEQ, grad=True),
    L("nn.LSTM bidirect 2 layers", lambda: nn.LSTM(8, 6, 2, direction="bidirect"), SEQ, grad=True),
    L("nn.GRU", lambda: nn.GRU(8, 6), SEQ, grad=True),
    L("nn.SimpleRNN time_major", lambda: nn.SimpleRNN(8, 6, time_major=True), SEQ, grad=True),
    L("nn.LSTM sequence_length", lambda: _SeqLen(nn.LSTM(8, 6)), SEQ, np.array([5, 3], "int64"), grad=True),
    L("nn.RNN(LSTMCell)", lambda: nn.RNN(nn.LSTMCell(8, 6)), SEQ, grad=True),
    L("nn.RNN(GRUCell) sequence_length", lambda: _SeqLen(nn.RNN(_UserCell(8, 6))), SEQ, np.array([5, 2], "int64"),
      grad=True),
    L("nn.BiRNN", lambda: nn.BiRNN(nn.GRUCell(8, 4), nn.GRUCell(8, 4)), SEQ, grad=True),
    L("nn.MultiHeadAttention", lambda: nn.MultiHeadAttention(8, 2), SEQ, SEQ, SEQ, grad=True),
    L("nn.TransformerEncoderLayer", lambda: _eval(nn.TransformerEncoderLayer(8, 2, 16)), SEQ, grad=True),
    L("nn.TransformerDecoderLayer", lambda: _eval(nn.TransformerDecoderLayer(8, 2, 16)), SEQ, r(2, 4, 8), grad=True),
    L("nn.Transformer", lambda: _eval(nn.Transformer(8, 2, 1, 1, 16)), SEQ, r(2, 4, 8)),
    # metrics
    C("metric.accuracy", lambda x, y: paddle.metric.accuracy(x, y), X, LBL),
    C("metric.accuracy k=2", lambda x, y: paddle.metric.accuracy(x, y, k=2), X, LBL),
    C("metric.Accuracy.compute", lambda x, y: paddle.metric.Accuracy(topk=(1, 2)).compute(x, y), X, LBL),
]


def _eval(layer):
    layer.eval()
    return layer


class _UserCell(nn.GRUCell):
    """A user cell (its own forward): runs step by step, masked by sequence_length."""

    def forward(self, inputs, states=None):
        return super().forward(inputs, states)


class _SeqLen(nn.Layer):
    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x, lens):
        return self.rnn(x, sequence_length=lens)


NN_CASES = CASES
