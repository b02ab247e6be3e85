"""Global tensors refuse pickle, copy.copy and copy.deepcopy with a clear TypeError (their
data is spread over the ranks; python/tensor_pickle.c). Every rank raises the same error
without any collective, so no rank can hang on another."""
import copy
import pickle

import pytest

import ctensor
from dist_util import all_placement


def test_global_tensors_refuse_pickle_and_copy():
    g = ctensor.ones(2, 2).to_global(placement=all_placement(), sbp=ctensor.sbp.broadcast)
    for fn in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(TypeError, match="cannot pickle a global tensor"):
            fn(g)
