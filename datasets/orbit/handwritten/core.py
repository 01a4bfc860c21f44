"""Hand-written issues about Orbit's core: leases, retries, idempotency, the worker's heartbeat."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

from handwritten import comment, md

ISSUES: list[dict[str, Any]] = [
    {
        "id": 3,
        "title": 'retries.backoff = "fixed" retries immediately instead of after base_delay',
        "state": "closed",
        "labels": ["comp:core", "type:bug", "severity:S2"],
        "author": "tomasz-w",
        "created_at": "2025-01-17T14:03:52Z",
        "body": md(
            """
            With a fixed backoff, failed jobs are retried right away, three times within the same
            second, instead of waiting `base_delay` between attempts.

            ```toml
            [retries]
            max_attempts = 3
            backoff = "fixed"
            base_delay = 30
            ```

            ```
            2025-01-17T13:40:02.114Z WARNING orbit.worker [w-2c0d] job=webhooks.deliver id=01HHZ3Q8X4M1 failed attempt=1/3 error=HTTP 503
            2025-01-17T13:40:02.131Z WARNING orbit.worker [w-2c0d] job=webhooks.deliver id=01HHZ3Q8X4M1 failed attempt=2/3 error=HTTP 503
            2025-01-17T13:40:02.150Z ERROR orbit.worker [w-2c0d] ORB-1202 RetriesExhausted job=webhooks.deliver id=01HHZ3Q8X4M1 attempts=3
            ```

            With `backoff = "exponential"` the delays are right (30 s, 60 s).
            orbit-scheduler 2.6.0, Python 3.11.7, Redis 7.2.3, Ubuntu 22.04.
            """
        ),
        "comments": [
            comment(
                "dtanaka",
                "2025-01-17T16:20:09Z",
                """
                Reproduced. `orbit/retries.py` computes the fixed delay as `base_delay * 0 ** attempt`
                (a leftover from when fixed was written as a degenerate exponential), which is 30 s for
                attempt 0 and 0 afterwards... and attempt numbering starts at 1. So every fixed delay is 0.
                """,
            ),
            comment(
                "tomasz-w",
                "2025-01-18T09:11:47Z",
                """
                Ouch. Is there a workaround until the fix? We can't switch to exponential, the partner
                throttles us on bursts anyway.
                """,
            ),
            comment(
                "dtanaka",
                "2025-01-18T10:02:31Z",
                """
                Raise inside the job with `orbit.RetryAfter(seconds=30)`: an explicit delay from the job
                wins over the policy.
                """,
            ),
            comment(
                "mkowalski",
                "2025-02-10T12:00:00Z",
                """
                Fixed in 2.6.1 (fixed backoff now waits `base_delay` before every retry), with a test over
                both policies and a changelog entry.
                """,
            ),
        ],
    },
    {
        "id": 12,
        "title": "ctx.checkpoint() raises KeyError after a Redis failover; lease never renewed again",
        "state": "closed",
        "labels": ["comp:worker", "type:bug", "severity:S1"],
        "author": "cloudops-jan",
        "created_at": "2025-03-06T07:48:15Z",
        "body": md(
            """
            After our Redis Sentinel failover at 03:12 last night, long jobs stopped renewing their
            leases. Every job longer than 15 minutes ran twice from then on (lease expired, re-delivered),
            and our invoice run sent duplicate emails.

            Our jobs call `ctx.checkpoint()` every few thousand rows to renew the lease. After the failover
            it raises, and since we wrapped it in a broad `except` (a checkpoint failure should not kill
            the run), nobody noticed:

            ```
            Traceback (most recent call last):
              File "/srv/billing/jobs/invoices.py", line 88, in run
                ctx.checkpoint()
              File "/opt/orbit/lib/python3.11/site-packages/orbit/worker/context.py", line 64, in checkpoint
                self._lease.renew(self.job_id, self._tokens[self.job_id])
            KeyError: '01HR5T0MZ9KQ'
            ```

            ```
            2025-03-06T03:12:09.551Z WARNING orbit.broker.redis [w-8a31] ORB-1303 RedisConnectionReset op=EVALSHA retrying in 1s
            2025-03-06T03:28:40.002Z ERROR orbit.worker [w-8a31] ORB-1101 LeaseExpired job=billing.invoice_run id=01HR5T1B7QAW lease=900s elapsed=961s
            ```

            orbit-scheduler 2.6.1, Python 3.11.8, redis-py 5.0.1, Redis 7.2.4 with Sentinel (3 nodes).
            """
        ),
        "comments": [
            comment(
                "priya-n",
                "2025-03-06T09:15:33Z",
                """
                Thanks for the traceback. On reconnect the worker rebuilds its broker state and clears the
                token map, so every running job loses its lease token; `checkpoint()` then fails with a
                bare KeyError instead of re-fetching the token or saying what happened.

                Fixes: keep tokens across reconnects, and make a failed renewal raise a proper
                ORB-1102 LeaseRenewFailed with the job id, so it is not caught as "some error".
                """,
            ),
            comment(
                "cloudops-jan",
                "2025-03-06T10:02:12Z",
                "Both sound right. Marking S1 on our side, we had to refund ~300 duplicate invoices.",
            ),
            comment(
                "mkowalski",
                "2025-03-17T18:44:06Z",
                """
                Released 2.6.2 with both fixes. Longer term, 2.7 moves renewals to a heartbeat thread in the
                worker, so jobs will no longer need to call `ctx.checkpoint()` to keep their lease.

                Sorry about the invoices. Please make the invoice job idempotent too: at-least-once
                delivery means a second run can happen for other reasons.
                """,
            ),
            comment(
                "cloudops-jan",
                "2025-03-19T08:30:00Z",
                "Upgraded all workers to 2.6.2 and forced a failover in staging: renewals continue. Closing.",
            ),
        ],
    },
    {
        "id": 27,
        "title": "Deduplicate enqueues: an idempotency key for jobs",
        "state": "closed",
        "labels": ["comp:core", "type:feature", "severity:S3"],
        "author": "fpereira",
        "created_at": "2025-05-25T19:22:04Z",
        "body": md(
            """
            Our checkout service enqueues `payments.capture` from an HTTP handler. When the handler times
            out and the client retries, we get two capture jobs for the same order, and both run. Last
            week a worker was also OOM-killed by Kubernetes mid-capture and the job ran again on another
            worker; the provider rejected the second capture, luckily.

            Could Orbit guarantee that a job runs at most once? Or, if not, at least refuse a second
            enqueue of the same logical job? (The scheduler double-enqueue in #23 would have been caught
            by the same thing.)

            ```python
            client.enqueue("payments.capture", payload={"order": 4411})   # called twice on retry
            ```

            orbit-scheduler 2.7.0, Postgres 16.2 broker.
            """
        ),
        "comments": [
            comment(
                "priya-n",
                "2025-05-26T08:05:41Z",
                """
                At most once: no, and we won't promise it. Orbit delivers at least once; a worker that dies
                after starting a job leaves a lease that expires, and the job runs again. Side effects need
                idempotency in the job itself (pass the order id to the provider's idempotency header, or
                record "captured" in your database in the same transaction).

                The second part is reasonable though: an `idempotency_key` on enqueue, so a second enqueue
                with the same key while the first job is unfinished returns the existing job instead of
                creating one.
                """,
            ),
            comment(
                "fpereira",
                "2025-05-26T09:40:18Z",
                "The enqueue key would cover our handler retries. Happy to test it.",
            ),
            comment(
                "mkowalski",
                "2025-09-02T13:12:55Z",
                """
                Design settled: `job.idempotency_key` (client argument and schedule option), checked
                against jobs that are not finished, a duplicate logs ORB-1204 DuplicateJobId at INFO and
                returns the existing id. Needs a schema change on Postgres, so it goes into 2.8.
                """,
            ),
            comment(
                "priya-n",
                "2026-01-19T10:00:00Z",
                "Shipped in 2.8.0. Closing; thanks @fpereira for testing the branch.",
            ),
        ],
    },
    {
        "id": 45,
        "title": "Lease renewal extends the lease by renew_interval instead of lease.duration",
        "state": "closed",
        "labels": ["comp:core", "type:bug", "severity:S2"],
        "author": "hgrimm",
        "created_at": "2025-08-29T11:30:27Z",
        "body": md(
            """
            Possibly related to #41. Watching the lease ZSET while a long job runs:

            ```
            $ redis-cli ZSCORE orbit:leases 01J6C2W1TR4N   # right after start
            "1756467900"                                  # start + 900 s
            $ redis-cli ZSCORE orbit:leases 01J6C2W1TR4N   # after the first renewal (t = 300 s)
            "1756467900"                                  # renew time + 300 s = unchanged
            ```

            So each renewal sets the deadline to `now + renew_interval`, not `now + duration`. With the
            defaults (300/900) that leaves the lease only 300 s ahead after the first renewal, and one late
            heartbeat is enough to lose it.

            `orbit/lease.py`:
            ```python
            def renew(self, job_id: str, token: str) -> float:
                deadline = self.clock() + self.config.renew_interval   # <- should be duration?
                ...
            ```

            orbit-scheduler 2.7.2, Redis 7.2.5, Python 3.12.4.
            """
        ),
        "comments": [
            comment(
                "dtanaka",
                "2025-08-29T13:02:44Z",
                """
                Yes, that is a bug, introduced in 2.7.0 when renewals moved into `Lease.renew()`. The
                Postgres broker has the same line. It makes #41 more likely but is not its cause (there the
                renewals stopped entirely).
                """,
            ),
            comment(
                "hgrimm",
                "2025-08-29T15:20:10Z",
                "PR is up with a test that fails on 2.7.2: renew at t=300 must give a deadline of t=1200.",
            ),
            comment(
                "priya-n",
                "2025-10-06T09:00:00Z",
                "Merged, thanks @hgrimm. Fixed in 2.7.3 for both brokers.",
            ),
        ],
    },
    {
        "id": 50,
        "title": "Tracking: lease renewals that survive a busy worker (3.0)",
        "state": "open",
        "labels": ["comp:core", "type:feature", "severity:S2"],
        "author": "dtanaka",
        "created_at": "2025-09-25T09:14:00Z",
        "body": md(
            """
            Umbrella issue for the 3.0 lease work, collecting what #41, #12 and #45 taught us.

            **Problem.** Renewals run on a thread in the worker process. Anything that starves that thread
            (a C extension holding the GIL, a blocking call under gevent, a frozen process) silently stops
            renewals, and the lease expires while the job is still running: ORB-1101 LeaseExpired and a
            second execution.

            **Plan.**
            - [ ] A renewer subprocess per worker, talking to the broker on its own connection, fed job ids
                  over a pipe. It renews as long as the job's process is alive.
            - [ ] Detect a worker clock that disagrees with the broker's: expiry is computed on the
                  broker's clock, but the heartbeat schedules renewals on the worker's own clock.
            - [ ] When a renewal fails (ORB-1102), signal the job (`orbit.current_job().lease_lost` event)
                  so it can stop instead of finishing work it no longer owns.
            - [x] Renew to `now + duration` (#45, merged, ships in 2.7.3).
            - [ ] Docs: the safety margin between `lease.duration` and `lease.renew_interval`.

            Not planned: exactly-once execution. Jobs must stay idempotent.
            """
        ),
        "comments": [
            comment(
                "mkowalski",
                "2025-09-25T10:30:11Z",
                """
                +1 to the subprocess. One concern: containers with a hard process limit (some PaaS) will
                now see two processes per worker. We should keep the thread renewer as a fallback
                (`lease.renewer = "thread" | "process"`).
                """,
            ),
            comment(
                "priya-n",
                "2025-09-26T08:44:29Z",
                """
                Agree on keeping the thread mode. For the lease-lost signal: a cooperative event is fine,
                but for jobs that never check it we should still refuse to ack the result (already the
                case) and log clearly that the result was discarded.
                """,
            ),
            comment(
                "jlaurent",
                "2025-10-02T12:15:40Z",
                "From the #41 side: the lease-lost event would let our rebuild stop early. Happy to test betas.",
            ),
            comment(
                "dtanaka",
                "2026-09-14T10:00:00Z",
                """
                Status: the clock-skew check shipped in 2.8.0 (ORB-1104 LeaseClockSkew, `lease.max_clock_skew`).
                The renewer subprocess is in 3.0.0b1 (`lease.renewer = "process"` is the default on Linux).
                The lease-lost event is still open.
                """,
            ),
        ],
    },
    {
        "id": 99,
        "title": "API token shows up in access logs when passed as ?token= query parameter",
        "state": "closed",
        "labels": ["comp:api", "type:bug", "severity:S1"],
        "author": "sara-ahmadi",
        "created_at": "2026-06-14T21:05:33Z",
        "body": md(
            """
            The dashboard's "export CSV" link calls `GET /v1/jobs/export?token=<api token>`, so the full API
            token lands in every proxy and load balancer access log on the way:

            ```
            10.2.0.14 - - [14/Jun/2026:20:51:12 +0000] "GET /v1/jobs/export?state=failed&token=orb_live_3kq9... HTTP/1.1" 200 48213
            ```

            Anyone with log access can then enqueue jobs. The API also accepts `?token=` on every endpoint,
            not just the export.

            orbit-scheduler 2.8.1, `orbit api` behind nginx 1.25.
            """
        ),
        "comments": [
            comment(
                "mkowalski",
                "2026-06-15T07:40:20Z",
                """
                Thanks for reporting. Confirmed; the query parameter was added for the export link only and
                leaked into the shared auth path. Next release: the API stops accepting `?token=` (requests
                with it get 401 ORB-1601 ApiUnauthorized and a message saying why), and the export link
                uses a short-lived signed URL instead.
                """,
            ),
            comment(
                "sara-ahmadi",
                "2026-06-15T08:12:03Z",
                "Great. Until then we are stripping the parameter in nginx and rotated our tokens.",
            ),
            comment(
                "priya-n",
                "2026-07-06T09:00:00Z",
                """
                Fixed in 2.8.2. Upgrading notes mention it as a breaking change for anyone who scripted
                `?token=`: use the `Authorization: Bearer` header.
                """,
            ),
        ],
    },
]
