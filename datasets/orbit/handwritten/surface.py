"""Hand-written issues about what operators touch: the HTTP API, the CLI, the docs, the 3.0 beta."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

from handwritten import comment, md

ISSUES: list[dict[str, Any]] = [
    {
        "id": 54,
        "title": "POST /v1/jobs accepts payloads over max_payload_kb; the job then fails in the worker",
        "state": "closed",
        "labels": ["comp:api", "type:bug", "severity:S3"],
        "author": "gkaur",
        "created_at": "2025-10-17T12:36:58Z",
        "body": md(
            """
            Enqueueing through the Python client rejects a 900 KB payload with ORB-1203 PayloadTooLarge
            (limit 512 KB), as documented. Enqueueing the same payload through the HTTP API succeeds:

            ```
            $ curl -s -X POST https://orbit.internal/v1/jobs \\
                -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \\
                -d @big-job.json
            {"id": "01JA7R5WQ2KD", "state": "ready"}
            ```

            and then the job fails on the worker, three times, before giving up:

            ```
            2025-10-17T12:20:14.902Z ERROR orbit.worker [w-3c88] job=feeds.refresh id=01JA7R5WQ2KD failed attempt=1/3 error="ORB-1205 SerializationError: payload truncated at 524288 bytes"
            2025-10-17T12:21:05.117Z ERROR orbit.worker [w-3c88] ORB-1202 RetriesExhausted job=feeds.refresh id=01JA7R5WQ2KD attempts=3
            ```

            Expected: the API answers 413 with ORB-1203, like the client. orbit-scheduler 2.7.3.
            """
        ),
        "comments": [
            comment(
                "mkowalski",
                "2025-10-17T14:05:37Z",
                """
                Confirmed. The API writes the job through a lower-level broker call than the client and
                skips the size check; the Redis broker then truncates at the limit on read. Two bugs: the
                missing check, and a truncation that should have been an error.
                """,
            ),
            comment(
                "gkaur",
                "2025-10-18T08:12:00Z",
                "Should the response be 413 or 422? Our gateway treats 413 specially (it logs the body size).",
            ),
            comment(
                "mkowalski",
                "2025-10-18T09:40:26Z",
                '413 Payload Too Large with `{"error": {"code": "ORB-1203", ...}}`; 422 stays for ORB-1603 validation errors.',
            ),
            comment(
                "priya-n",
                "2025-11-03T09:00:00Z",
                "Fixed in 2.7.4: the API checks the size before writing, and the broker refuses to store (never truncates) an oversized payload.",
            ),
        ],
    },
    {
        "id": 78,
        "title": "orbit worker exits 0 when the broker is unreachable at start-up, so systemd doesn't restart it",
        "state": "closed",
        "labels": ["comp:cli", "type:bug", "severity:S2"],
        "author": "b-hoffmann",
        "created_at": "2026-02-22T07:03:11Z",
        "body": md(
            """
            Our workers run under systemd with `Restart=on-failure`. After a host reboot, Postgres came
            up a few seconds after the workers, and every worker stopped for good:

            ```
            Feb 22 06:41:02 worker-3 orbit[811]: 2026-02-22T06:41:02.552Z CRITICAL orbit.broker.postgres [w-6f02] ORB-1301 BrokerUnavailable connection refused host=db-1 port=5432
            Feb 22 06:41:02 worker-3 systemd[1]: orbit-worker.service: Deactivated successfully.
            ```

            `systemctl show -p ExecMainStatus orbit-worker` says 0. A failure to connect should not be a
            success. orbit-scheduler 2.8.0, Debian 12, Postgres 16.2.
            """
        ),
        "comments": [
            comment(
                "dtanaka",
                "2026-02-22T09:15:49Z",
                """
                Regression from the 2.8 CLI rework: the start-up error is printed by the top-level handler,
                which then returns normally. Exit statuses should be: 3 for configuration errors, 4 for a
                broker that is unreachable or refuses the credentials, 5 for migrations.
                """,
            ),
            comment(
                "b-hoffmann",
                "2026-02-22T10:40:03Z",
                "Meanwhile `Restart=always` with `RestartSec=5` works around it.",
            ),
            comment(
                "dtanaka",
                "2026-04-13T11:30:00Z",
                "Fixed in 2.8.1, and the exit codes are now documented in the CLI reference. Closing.",
            ),
        ],
    },
    {
        "id": 107,
        "title": "Docs: Kubernetes example sets terminationGracePeriodSeconds equal to shutdown_grace",
        "state": "closed",
        "labels": ["comp:docs", "type:docs"],
        "author": "carla-dm",
        "created_at": "2026-07-27T15:11:46Z",
        "body": md(
            """
            The deployment page's worker manifest has

            ```yaml
            terminationGracePeriodSeconds: 30
            ```

            next to `ORBIT_WORKER_SHUTDOWN_GRACE=30`. With both at 30 s, Kubernetes sends SIGKILL at the
            exact moment the worker would start releasing the leases of unfinished jobs (ORB-1503), so
            the release usually doesn't happen and those jobs wait for their full lease (15 min) before
            running again. We copied the example and spent a day on it.
            """
        ),
        "comments": [
            comment(
                "priya-n",
                "2026-07-27T16:40:10Z",
                """
                Right, the grace period must be longer than `shutdown_grace`, with room for the release
                itself. I'll change the example to 45 s and add a sentence on why.
                """,
            ),
            comment(
                "priya-n",
                "2026-07-28T09:02:33Z",
                "Updated the deployment page (example and a warning box). Thanks @carla-dm.",
            ),
        ],
    },
    {
        "id": 127,
        "title": "orbit worker --concurrency is ignored when ORBIT_WORKER_CONCURRENCY is set",
        "state": "open",
        "labels": ["comp:cli", "type:bug", "severity:S3"],
        "author": "yuki-ito",
        "created_at": "2026-11-11T10:45:07Z",
        "body": md(
            """
            The configuration page says command-line flags have the highest priority. But:

            ```
            $ export ORBIT_WORKER_CONCURRENCY=4
            $ orbit worker --concurrency 16 --queues reports
            2026-11-11T10:31:44.019Z INFO orbit.worker [w-e01a] ready concurrency=4 queues=reports
            $ orbit config show --effective | grep concurrency
            worker.concurrency = 4    (environment: ORBIT_WORKER_CONCURRENCY)
            ```

            Without the variable, `--concurrency 16` works. Same with `--log-level` vs
            `ORBIT_LOGGING_LEVEL`. orbit-scheduler 2.8.3, Python 3.12.7.
            """
        ),
        "comments": [
            comment(
                "mkowalski",
                "2026-11-11T13:20:38Z",
                """
                Confirmed, and it's a 2.8.3 regression: the settings loader now applies environment
                variables after the CLI overrides instead of before. The tests only covered flag vs file.
                """,
            ),
            comment(
                "yuki-ito",
                "2026-11-11T14:02:19Z",
                "Happy to add the missing test cases (flag vs env for every flag that exists) if that helps.",
            ),
            comment(
                "mkowalski",
                "2026-11-12T08:15:50Z",
                "Yes please. The fix is a two-line reorder; with your tests it goes into 2.8.4.",
            ),
        ],
    },
    {
        "id": 130,
        "title": "3.0.0b2: worker crashes at start on the free-threaded Python 3.13t build",
        "state": "open",
        "labels": ["comp:worker", "type:bug", "severity:S3"],
        "author": "wen-zhao",
        "created_at": "2026-11-27T19:30:52Z",
        "body": md(
            """
            Trying the beta on `python3.13t` (free-threaded, no GIL) because long CPU-bound jobs starving
            the heartbeat is exactly our problem (#41):

            ```
            $ python3.13t -m orbit worker
            Traceback (most recent call last):
              File "/opt/orbit3/lib/python3.13t/site-packages/orbit/worker/runner.py", line 96, in start
                self._renewer = RenewerProcess.spawn(self.broker_url, self.lease)
              File "/opt/orbit3/lib/python3.13t/site-packages/orbit/lease/renewer.py", line 41, in spawn
                ctx = multiprocessing.get_context("forkserver")
              File "/opt/orbit3/lib/python3.13t/site-packages/orbit/_compat.py", line 22, in _guard_gil
                raise RuntimeError("orbit requires the GIL to be enabled (PYTHON_GIL=1)")
            RuntimeError: orbit requires the GIL to be enabled (PYTHON_GIL=1)
            ```

            With `PYTHON_GIL=1` it starts. Is the guard still needed now that renewals run in a separate
            process? orbit-scheduler 3.0.0b2, Ubuntu 24.04.
            """
        ),
        "comments": [
            comment(
                "dtanaka",
                "2026-11-28T09:44:12Z",
                """
                The guard predates the renewer process; it protects the thread-based renewer and a few
                C extensions we depend on that weren't thread-safe without the GIL. With
                `lease.renewer = "process"` only the second reason remains. I'll check our dependencies'
                free-threading status before b3.
                """,
            ),
        ],
    },
]
