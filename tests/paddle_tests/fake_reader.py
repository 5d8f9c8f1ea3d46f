"""Port of Paddle's test helper fake_reader.py (test/legacy_test): fake_imdb_reader, IMDB-like
samples (random word ids of random lengths, a random label), with np.random.randint for the
removed np.random.random_integers (same inclusive bounds)."""
import numpy


def fake_imdb_reader(word_dict_size, sample_num, lower_seq_len=100, upper_seq_len=200,
                     class_dim=2):
    def __reader__():
        for _ in range(sample_num):
            length = numpy.random.randint(low=lower_seq_len, high=upper_seq_len + 1,
                                          size=[1])[0]
            ids = numpy.random.randint(low=0, high=word_dict_size,
                                       size=[length]).astype('int64')
            label = numpy.random.randint(low=0, high=class_dim, size=[1]).astype('int64')[0]
            yield ids, label

    return __reader__
