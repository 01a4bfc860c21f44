"""Fitting the model runs BLAS and OpenMP on one thread, in a process that had not loaded scikit-learn yet."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.run import REPO

# Each group's classifier is fitted after scikit-learn, scipy's BLAS and OpenMP are loaded: what
# those libraries run on is seen there. Four threads asked of each, so that a limit that missed
# one shows whatever the machine's core count.
PROBE = """
import json, sys
from pathlib import Path
from threadpoolctl import threadpool_info
import atlas.triage.model as model
from atlas.config import bundled_data_dir
from atlas.triage.project import Project

assert "sklearn" not in sys.modules
seen = []
fit_group = model._fit_group
def spy(*args):
    seen.extend({"library": i["filepath"], "threads": i["num_threads"]} for i in threadpool_info())
    return fit_group(*args)
model._fit_group = spy
fitted = Project.open(bundled_data_dir(), Path(sys.argv[1])).model()
assert fitted.groups, "nothing was fitted"
print(json.dumps(seen))
"""


def test_every_blas_and_openmp_library_fits_on_one_thread(atlas_home: Path) -> None:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "4", "OMP_NUM_THREADS": "4", "MKL_NUM_THREADS": "4"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(atlas_home)], capture_output=True, text=True, cwd=REPO, env=env, timeout=180
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    libraries = {entry["library"] for entry in seen}
    assert any("scipy" in library for library in libraries) and any("gomp" in library for library in libraries), seen
    assert all(entry["threads"] == 1 for entry in seen), seen
