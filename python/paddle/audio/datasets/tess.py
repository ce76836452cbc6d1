"""TESS: Toronto emotional speech set (2800 WAV files, 7 emotions), split into n_folds folds.

Paddle downloads the archive into DATA_HOME; Paddle-C has no network access, so the data must be
extracted under DATA_HOME (TESS_Toronto_emotional_speech_set/), or archive={'url': <local path
or file:// URL of the zip>, 'md5': <md5 or None>} given; otherwise a RuntimeError names the URL."""
import collections
import os

from ._common import data_home, fetch_archive
from .dataset import AudioClassificationDataset


class TESS(AudioClassificationDataset):
    """TESS(mode='train', n_folds=5, split=1, feat_type='raw', archive=None, **kwargs): file i
    (in os.walk order) is in fold i % n_folds + 1; mode 'train' holds the folds other than split."""

    archive = {
        'url': 'https://bj.bcebos.com/paddleaudio/datasets/TESS_Toronto_emotional_speech_set.zip',
        'md5': '1465311b24d1de704c4c63e4ccc470c7',
    }
    label_list = ['angry', 'disgust', 'fear', 'happy', 'neutral', 'ps', 'sad']
    meta_info = collections.namedtuple('META_INFO', ('speaker', 'word', 'emotion'))
    audio_path = 'TESS_Toronto_emotional_speech_set'

    def __init__(self, mode='train', n_folds=5, split=1, feat_type='raw', archive=None, **kwargs):
        assert isinstance(n_folds, int) and n_folds >= 1, \
            f'the n_folds should be integer and n_folds >= 1, but got {n_folds}'
        assert split in range(1, n_folds + 1), \
            f'The selected split should be integer and should be 1 <= split <= {n_folds}, but got {split}'
        if archive is not None:
            self.archive = archive
        files, labels = self._get_data(mode, n_folds, split)
        super().__init__(files=files, labels=labels, feat_type=feat_type, **kwargs)

    def _get_meta_info(self, files):
        return [self.meta_info(*os.path.basename(f)[:-4].split('_')) for f in files]

    def _get_data(self, mode, n_folds, split):
        home = data_home()
        if not os.path.isdir(os.path.join(home, self.audio_path)):
            fetch_archive(self.archive, home)
        wav_files = []
        for root, _, names in os.walk(os.path.join(home, self.audio_path)):
            wav_files.extend(os.path.join(root, n) for n in names if n.endswith('.wav'))
        files, labels = [], []
        for idx, sample in enumerate(self._get_meta_info(wav_files)):
            target = self.label_list.index(sample[2])
            fold = idx % n_folds + 1
            if (mode == 'train') == (fold != split):
                files.append(wav_files[idx])
                labels.append(target)
        return files, labels
