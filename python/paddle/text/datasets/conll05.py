"""Conll05st: the CoNLL-2005 SRL test set (conll05st-tests.tar.gz with
conll05st-release/test.wsj/{words,props}/test.wsj.{words,props}.gz) and its dictionaries."""
import gzip
import tarfile

import numpy as np

from paddle.io import Dataset

from ._common import locate, malformed_is_value_error

DATA_URL = 'http://paddlemodels.bj.bcebos.com/conll05st/conll05st-tests.tar.gz'
DATA_MD5 = '387719152ae52d60422c016e92a742fc'
WORDDICT_URL = 'http://paddlemodels.bj.bcebos.com/conll05st%2FwordDict.txt'
WORDDICT_MD5 = 'ea7fb7d4c75cc6254716f0177a506baa'
VERBDICT_URL = 'http://paddlemodels.bj.bcebos.com/conll05st%2FverbDict.txt'
VERBDICT_MD5 = '0d2977293bbb6cbefab5b0f97db1e77c'
TRGDICT_URL = 'http://paddlemodels.bj.bcebos.com/conll05st%2FtargetDict.txt'
TRGDICT_MD5 = 'd8c7f03ceb5fc2e5a0fa7503a4353751'
EMB_URL = 'http://paddlemodels.bj.bcebos.com/conll05st%2Femb'
EMB_MD5 = 'bf436eb0faa1f6f9103017f8be57cdb7'
UNK_IDX = 0
WORDS = 'conll05st-release/test.wsj/words/test.wsj.words.gz'
PROPS = 'conll05st-release/test.wsj/props/test.wsj.props.gz'


def _bracket_to_bio(column):
    """One predicate's column of bracketed args ('(A0*', '*', '*)', '(V*)') -> B-/I-/O tags."""
    tags, cur, inside = [], 'O', False
    for l in column:
        if l == '*' and not inside:
            tags.append('O')
        elif l == '*' and inside:
            tags.append('I-' + cur)
        elif l == '*)':
            tags.append('I-' + cur)
            inside = False
        elif '(' in l and ')' in l:
            cur = l[1:l.find('*')]
            tags.append('B-' + cur)
            inside = False
        elif '(' in l:
            cur = l[1:l.find('*')]
            tags.append('B-' + cur)
            inside = True
        else:
            raise ValueError('Conll05st: unexpected label: %s' % l)
    return tags


class Conll05st(Dataset):
    r"""One item per (sentence, predicate): (word ids, the ids of the two words before, the
    verb, the two after (each repeated per word), predicate ids, the 5-word context mark, BIO
    label ids). Label ids follow Python set iteration order of the target dictionary's tags,
    as in Paddle.

    Args:
        data_file (str): conll05st-tests.tar.gz.
        word_dict_file, verb_dict_file, target_dict_file (str): wordDict.txt, verbDict.txt,
            targetDict.txt (one entry per line).
        emb_file (str): the embedding file (returned by get_embedding, not read).
        download (bool): see UCIHousing.
    """

    @malformed_is_value_error('Conll05st')
    def __init__(self, data_file=None, word_dict_file=None, verb_dict_file=None,
                 target_dict_file=None, emb_file=None, download=True):
        def loc(v, url, md5, what):
            return locate(v, url, md5, 'conll05st', download, what=what, dataset='Conll05st')
        self.data_file = loc(data_file, DATA_URL, DATA_MD5, 'data_file')
        self.word_dict_file = loc(word_dict_file, WORDDICT_URL, WORDDICT_MD5, 'word_dict_file')
        self.verb_dict_file = loc(verb_dict_file, VERBDICT_URL, VERBDICT_MD5, 'verb_dict_file')
        self.target_dict_file = loc(target_dict_file, TRGDICT_URL, TRGDICT_MD5, 'target_dict_file')
        self.emb_file = loc(emb_file, EMB_URL, EMB_MD5, 'emb_file')
        self.word_dict = self._load_dict(self.word_dict_file)
        self.predicate_dict = self._load_dict(self.verb_dict_file)
        self.label_dict = self._load_label_dict(self.target_dict_file)
        self._load_anno()

    def _load_label_dict(self, filename):
        tags = set()
        with open(filename, 'r') as f:
            for line in f:
                line = line.strip()
                if line.startswith('B-') or line.startswith('I-'):
                    tags.add(line[2:])
        d, index = {}, 0
        for tag in tags:
            d['B-' + tag] = index
            d['I-' + tag] = index + 1
            index += 2
        d['O'] = index
        return d

    def _load_dict(self, filename):
        with open(filename, 'r') as f:
            return {line.strip(): i for i, line in enumerate(f)}

    def _load_anno(self):
        self.sentences, self.predicates, self.labels = [], [], []
        with tarfile.open(self.data_file) as tf:
            try:
                wf, pf = tf.extractfile(WORDS), tf.extractfile(PROPS)
            except KeyError as e:
                raise ValueError(f"Conll05st: {self.data_file} lacks {e}") from None
            with gzip.GzipFile(fileobj=wf) as words_file, gzip.GzipFile(fileobj=pf) as props_file:
                sentence, seg = [], []
                for word, label in zip(words_file, props_file):
                    word = word.strip().decode()
                    label = label.strip().decode().split()
                    if label:
                        sentence.append(word)
                        seg.append(label)
                        continue
                    if seg:
                        columns = [[row[i] for row in seg] for i in range(len(seg[0]))]
                        verbs = [x for x in columns[0] if x != '-']
                        for i, col in enumerate(columns[1:]):
                            self.sentences.append(sentence)
                            self.predicates.append(verbs[i])
                            self.labels.append(_bracket_to_bio(col))
                    sentence, seg = [], []

    def __getitem__(self, idx):
        sentence, predicate, labels = self.sentences[idx], self.predicates[idx], self.labels[idx]
        n = len(sentence)
        v = labels.index('B-V')
        mark = [0] * len(labels)
        ctx = {}
        for off, key, pad in ((-2, 'n2', 'bos'), (-1, 'n1', 'bos'), (0, '0', None),
                              (1, 'p1', 'eos'), (2, 'p2', 'eos')):
            j = v + off
            if 0 <= j < len(labels):
                mark[j] = 1
                ctx[key] = sentence[j]
            else:
                ctx[key] = pad
        wd = self.word_dict
        rep = lambda w: [wd.get(w, UNK_IDX)] * n  # noqa: E731
        return (np.array([wd.get(w, UNK_IDX) for w in sentence]), np.array(rep(ctx['n2'])),
                np.array(rep(ctx['n1'])), np.array(rep(ctx['0'])), np.array(rep(ctx['p1'])),
                np.array(rep(ctx['p2'])), np.array([self.predicate_dict.get(predicate)] * n),
                np.array(mark), np.array([self.label_dict.get(w) for w in labels]))

    def __len__(self):
        return len(self.sentences)

    def get_dict(self):
        return self.word_dict, self.predicate_dict, self.label_dict

    def get_embedding(self):
        return self.emb_file
