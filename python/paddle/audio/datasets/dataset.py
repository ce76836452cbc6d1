"""AudioClassificationDataset: (feature, label) records from a list of WAV files."""
import paddle

from ..features import MFCC, LogMelSpectrogram, MelSpectrogram, Spectrogram

feat_funcs = {
    'raw': None,
    'melspectrogram': MelSpectrogram,
    'mfcc': MFCC,
    'logmelspectrogram': LogMelSpectrogram,
    'spectrogram': Spectrogram,
}


class AudioClassificationDataset(paddle.io.Dataset):
    """Base class of the audio classification datasets: item i is (feature, label) where the
    feature is the raw waveform (feat_type='raw') or one of the paddle.audio.features layers
    built with **kwargs."""

    def __init__(self, files, labels, feat_type='raw', sample_rate=None, **kwargs):
        super().__init__()
        if feat_type not in feat_funcs:
            raise RuntimeError(f"Unknown feat_type: {feat_type}, it must be one in {list(feat_funcs.keys())}")
        self.files = files
        self.labels = labels
        self.feat_type = feat_type
        self.sample_rate = sample_rate
        self.feat_config = kwargs

    def _get_data(self, input_file):
        raise NotImplementedError

    def _convert_to_record(self, idx):
        file, label = self.files[idx], self.labels[idx]
        waveform, sample_rate = paddle.audio.load(file)
        self.sample_rate = sample_rate
        if len(waveform.shape) == 2:
            waveform = waveform.squeeze(0)  # (1, T) -> (T,), as Paddle
        waveform = paddle.cast(waveform, 'float32')
        feat_func = feat_funcs[self.feat_type]
        if feat_func is None:
            return waveform, label
        if self.feat_type != 'spectrogram':
            extractor = feat_func(sr=self.sample_rate, **self.feat_config)
        else:
            extractor = feat_func(**self.feat_config)
        return extractor(waveform.unsqueeze(0)).squeeze(0), label

    def __getitem__(self, idx):
        return self._convert_to_record(idx)

    def __len__(self):
        return len(self.files)
