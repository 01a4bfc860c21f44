"""Fitting the model runs BLAS and OpenMP on one thread, in a process that had not loaded scikit-learn yet
(and a model of no issues loads none of it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support.run import REPO

# Each group's classifier is fitted after scikit-learn, scipy's BLAS and OpenMP are loaded: what
# those libraries run on is seen there. Four threads asked of each, so that a limit that missed
# one shows whatever the machine's core count. A few issues are enough: the libraries, not the
# fit, are the point.
PROBE = """
import json, sys
from threadpoolctl import threadpool_info
import atlas.triage.model as model
from atlas.triage.corpus import Issue
from atlas.triage.groups import LabelGroup

assert not model.fit([], [LabelGroup("type", ("type:bug", "type:question"), True)]).groups
assert "sklearn" not in sys.modules, "nothing to learn from, and scikit-learn was loaded for it"
seen = []
fit_group = model._fit_group
def spy(*args):
    seen.extend({"api": i["user_api"], "threads": i["num_threads"], "path": i["filepath"]} for i in threadpool_info())
    return fit_group(*args)
model._fit_group = spy
texts = {"type:bug": "the worker crashes with a lease error", "type:question": "how do I set the lease, why"}
issues = [
    Issue(n, text, text, "open", "someone", f"2026-01-0{n}T00:00:00Z", (label,))
    for n, (label, text) in enumerate(sorted(texts.items()) * 3, start=1)
]
fitted = model.fit(issues, [LabelGroup("type", tuple(texts), True)])
assert fitted.groups, "nothing was fitted"
print(json.dumps(seen))
"""


def test_every_blas_and_openmp_library_fits_on_one_thread() -> None:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "4", "OMP_NUM_THREADS": "4", "MKL_NUM_THREADS": "4"}
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=REPO, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    # OpenMP comes with scikit-learn: seen at all, it was loaded after the fit began.
    assert {"blas", "openmp"} <= {entry["api"] for entry in seen}, seen
    assert all(entry["threads"] == 1 for entry in seen), seen
