"""Hand-written issues about the Redis and Postgres brokers."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

from handwritten import comment, md

ISSUES: list[dict[str, Any]] = [
    {
        "id": 8,
        "title": "Redis broker ignores key_prefix for the lease ZSET: two deployments steal each other's jobs",
        "state": "closed",
        "labels": ["comp:broker-redis", "type:bug", "severity:S2"],
        "author": "oskar-nyberg",
        "created_at": "2025-02-12T10:27:45Z",
        "body": md(
            """
            We run staging and QA Orbit deployments against one Redis (DB 0) and separate them with
            `key_prefix`:

            ```toml
            # staging
            [broker]
            url = "redis://shared-redis:6379/0"
            key_prefix = "orbit-staging"

            # qa
            [broker]
            url = "redis://shared-redis:6379/0"
            key_prefix = "orbit-qa"
            ```

            Streams are prefixed correctly, but the lease sorted set is always `orbit:leases`:

            ```
            $ redis-cli --scan --pattern '*leases*'
            orbit:leases
            ```

            So the staging reaper sees QA's expired leases and re-queues them into... nothing it knows, and
            QA workers log:

            ```
            2025-02-12T09:58:31.220Z ERROR orbit.worker [w-5c02] ORB-1103 LeaseStolen job=emails.send_batch id=01HKX2V0P7DE owner=w-91aa token=3 expected_token=2
            ```

            orbit-scheduler 2.6.1, Redis 7.2.4, Python 3.10.12.
            """
        ),
        "comments": [
            comment(
                "mkowalski",
                "2025-02-12T12:03:19Z",
                """
                Confirmed: `orbit/brokers/redis.py` builds the lease key from a module constant instead of
                the configured prefix. Streams, groups and the scheduler keys are fine. Until the fix, use
                separate Redis databases (`/1`, `/2`) per deployment; that is the safer setup anyway.
                """,
            ),
            comment(
                "oskar-nyberg",
                "2025-02-12T13:10:51Z",
                "Moved QA to DB 1, the LeaseStolen errors stopped. Will there be a migration for existing leases?",
            ),
            comment(
                "mkowalski",
                "2025-02-13T08:40:10Z",
                """
                No migration needed: on start-up the worker moves entries of its own jobs from
                `orbit:leases` to `<prefix>:leases`. Drain the queues first if you can, to be safe.
                """,
            ),
            comment(
                "priya-n",
                "2025-03-17T09:00:00Z",
                "Fixed in 2.6.2, with a test that runs two prefixes against one Redis.",
            ),
        ],
    },
    {
        "id": 19,
        "title": "Postgres broker: ORB-1304 PostgresLockTimeout storms when the reaper and claims collide",
        "state": "closed",
        "labels": ["comp:broker-postgres", "type:bug", "severity:S2"],
        "author": "elif-yilmaz",
        "created_at": "2025-04-12T15:44:09Z",
        "body": md(
            """
            Every 60 s (the reaper interval) our workers log a burst of lock timeouts and job throughput
            drops to zero for a few seconds:

            ```
            2025-04-12T15:31:00.412Z WARNING orbit.broker.postgres [w-4e19] ORB-1304 PostgresLockTimeout query=claim_next lock_timeout=5000ms
            2025-04-12T15:31:00.415Z WARNING orbit.broker.postgres [w-a0c2] ORB-1304 PostgresLockTimeout query=renew lock_timeout=5000ms
            2025-04-12T15:31:05.009Z INFO orbit.broker.postgres [reaper] requeued expired=0 scanned=184211
            ```

            ```
            Traceback (most recent call last):
              File "/srv/orbit/lib/python3.12/site-packages/orbit/brokers/postgres.py", line 281, in renew
                cur.execute(RENEW_SQL, (deadline, job_id, token))
              File "/srv/orbit/lib/python3.12/site-packages/psycopg/cursor.py", line 732, in execute
                raise ex.with_traceback(None)
            psycopg.errors.LockNotAvailable: canceling statement due to lock timeout
            ```

            `orbit_jobs` has ~180k rows (we keep finished jobs for 7 days). Postgres 15.6,
            orbit-scheduler 2.6.2, 16 workers.
            """
        ),
        "comments": [
            comment(
                "dtanaka",
                "2025-04-12T17:20:33Z",
                """
                The reaper does `UPDATE orbit_jobs SET state = 'ready' WHERE state = 'running' AND
                lease_until < now()` without SKIP LOCKED, over the whole table. With no index on
                `(state, lease_until)` it scans 180k rows and locks every running row it checks, so claims
                and renewals wait behind it. A failed renewal is the dangerous part: it can lose a lease.
                """,
            ),
            comment(
                "elif-yilmaz",
                "2025-04-13T08:02:11Z",
                """
                Adding `CREATE INDEX CONCURRENTLY orbit_jobs_running_lease ON orbit_jobs (lease_until) WHERE
                state = 'running'` by hand made the bursts disappear. Should that be a migration?
                """,
            ),
            comment(
                "dtanaka",
                "2025-04-14T10:40:00Z",
                """
                Yes: the next release adds that partial index in a migration (schema 6 -> 7), and the
                reaper now selects expired rows with `FOR UPDATE SKIP LOCKED` in batches of 500. Run
                `orbit migrate` after upgrading (workers refuse to start with ORB-1701 MigrationPending
                until you do).
                """,
            ),
            comment(
                "priya-n",
                "2025-04-22T09:00:00Z",
                "Released in 2.6.4. @elif-yilmaz you can drop your hand-made index before migrating, or keep it: the migration uses IF NOT EXISTS with the same name.",
            ),
        ],
    },
    {
        "id": 33,
        "title": "Redis memory keeps growing: orbit:stream:* never trimmed",
        "state": "closed",
        "labels": ["comp:broker-redis", "type:bug", "severity:S2"],
        "author": "mei-lin",
        "created_at": "2025-06-26T06:58:30Z",
        "body": md(
            """
            Redis memory grew from 300 MB to 9 GB in three weeks and ElastiCache started evicting (with
            `maxmemory-policy allkeys-lru` it evicted our lease ZSET once, which was fun).

            ```
            $ redis-cli XLEN orbit:stream:default
            (integer) 41873320
            $ redis-cli XINFO GROUPS orbit:stream:default
            1) name: orbit-workers  consumers: 12  pending: 3  last-delivered-id: 1750918123001-0
            ```

            All entries are acknowledged (pending: 3), but nothing ever deletes them.
            orbit-scheduler 2.7.0, AWS ElastiCache 7.1, 12 workers.
            """
        ),
        "comments": [
            comment(
                "mkowalski",
                "2025-06-26T08:31:07Z",
                """
                Confirmed: 2.6 trimmed on XACK with `XTRIM MINID`, and 2.7's new ack path lost that call.
                Workaround: a cron running `XTRIM orbit:stream:default MINID <oldest pending id>`. Do not use
                MAXLEN with a small number, it can drop unacknowledged entries.

                Also: run the broker Redis with `maxmemory-policy noeviction`. Evicting Orbit's keys loses
                jobs and leases; it is better that an enqueue fails loudly with Redis's OOM error.
                """,
            ),
            comment(
                "mei-lin",
                "2025-06-26T10:15:42Z",
                "Switched to noeviction and trimmed by hand: back to 280 MB.",
            ),
            comment(
                "priya-n",
                "2025-07-02T09:00:00Z",
                "Fixed in 2.7.1: the worker trims after acks (at most once per second per queue), and there's a regression test that counts XLEN after 10k jobs.",
            ),
        ],
    },
    {
        "id": 61,
        "title": "orbit_jobs table bloat on Postgres: autovacuum can't keep up at 400 jobs/s",
        "state": "closed",
        "labels": ["comp:broker-postgres", "type:question"],
        "author": "joao-santos",
        "created_at": "2025-11-23T20:12:51Z",
        "body": md(
            """
            At ~400 jobs/s the `orbit_jobs` table is 38 GB for ~2M live rows, claim latency goes from 2 ms
            to 80 ms over a day, and every few hours we see ORB-1304 PostgresLockTimeout on claims.
            `pg_stat_user_tables` shows n_dead_tup in the tens of millions.

            Settings are the RDS defaults (autovacuum_vacuum_scale_factor 0.1). Postgres 15.5,
            orbit-scheduler 2.7.4, 48 workers. What do other people with this volume do?
            """
        ),
        "comments": [
            comment(
                "priya-n",
                "2025-11-24T08:50:14Z",
                """
                Every job is an INSERT plus two or three UPDATEs (claim, renewals, finish), so the table
                churns like a queue table does. What works:

                ```sql
                ALTER TABLE orbit_jobs SET (
                  autovacuum_vacuum_scale_factor = 0.01,
                  autovacuum_vacuum_cost_limit = 2000,
                  fillfactor = 70
                );
                ```

                `fillfactor` leaves room for HOT updates. And keep finished jobs out of the hot table:
                run `orbit jobs prune --older-than 1d` (or less) from a schedule instead of keeping 7 days.
                """,
            ),
            comment(
                "joao-santos",
                "2025-11-26T11:33:02Z",
                """
                With those settings plus pruning at 12h, the table is stable at 1.2 GB and claim latency
                stays at 2-3 ms. One `VACUUM FULL` in a maintenance window (workers stopped!) to get the
                space back.
                """,
            ),
            comment(
                "mkowalski",
                "2025-11-26T12:00:41Z",
                "Great result, thanks for reporting back. We'll put these numbers in the Postgres tuning part of the brokers page.",
            ),
        ],
    },
    {
        "id": 82,
        "title": "Workers keep the old Redis password after rotation (ORB-1302 loop, never exit)",
        "state": "open",
        "labels": ["comp:broker-redis", "type:feature", "severity:S3"],
        "author": "sre-tobias",
        "created_at": "2026-03-15T17:40:26Z",
        "body": md(
            """
            We rotate the Redis password monthly with Vault. The secret is a file mounted into the pod;
            our entrypoint reads it into `ORBIT_BROKER_URL` before starting `orbit worker`. After
            rotation, workers keep reconnecting with the old password forever:

            ```
            2026-03-15T17:02:11.088Z ERROR orbit.broker.redis [w-66b1] ORB-1302 BrokerAuthFailed WRONGPASS invalid username-password pair
            2026-03-15T17:02:12.093Z ERROR orbit.broker.redis [w-66b1] ORB-1302 BrokerAuthFailed WRONGPASS invalid username-password pair
            ```

            They never exit, so Kubernetes never restarts them; they just stop working, and the leases of
            their running jobs expire.

            Two asks: exit after repeated auth failures, and ideally a way to read the password from a
            file that Orbit re-reads when authentication fails.

            orbit-scheduler 2.8.0, Redis 7.2.4.
            """
        ),
        "comments": [
            comment(
                "dtanaka",
                "2026-03-16T09:12:48Z",
                """
                The first is arguably a bug: a worker that cannot authenticate should exit non-zero after a
                while so a supervisor can act. The second is a feature (`broker.password_file`, re-read on
                every ORB-1302 before retrying). Both are small.
                """,
            ),
            comment(
                "sre-tobias",
                "2026-03-16T10:01:30Z",
                "Both would work for us. Re-reading on failure is the nicer one (no restarts during business hours).",
            ),
            comment(
                "mkowalski",
                "2026-04-13T15:27:09Z",
                """
                The exit part shipped in 2.8.1 (ten ORB-1302s in a row -> exit status 4, like a broker that is unreachable at start-up). Leaving this open for
                the password file, which should work the same way for the Postgres broker.
                """,
            ),
        ],
    },
    {
        "id": 114,
        "title": "3.0.0b1 and 2.8 workers on the same Postgres database: ORB-1702 SchemaVersionMismatch",
        "state": "open",
        "labels": ["comp:broker-postgres", "type:question"],
        "author": "petra-novak",
        "created_at": "2026-09-03T12:09:14Z",
        "body": md(
            """
            We wanted to canary 3.0.0b1 with two workers next to our 2.8.2 fleet. After `orbit migrate` from
            the 3.0 image, all 2.8 workers stopped:

            ```
            2026-09-03T11:48:20.551Z ERROR orbit.broker.postgres [w-19f4] ORB-1702 SchemaVersionMismatch schema=12 code_expects=10 (database is newer than this worker)
            ```

            Rolled back with a restore. Is mixing 2.8 and 3.0 workers supported at all? If not, what's
            the recommended way to try the beta on real traffic?
            """
        ),
        "comments": [
            comment(
                "priya-n",
                "2026-09-03T14:22:51Z",
                """
                Not supported: 3.0's migrations take the schema to version 12 (lease columns move out of
                `orbit_jobs`), and 2.8 cannot read the new layout. The check that stopped your workers is doing its job.

                To try the beta on real traffic, give it its own database (or schema, with
                `?options=-csearch_path=orbit3` on the URL) and route a queue to it from the producer.
            """,
            ),
            comment(
                "petra-novak",
                "2026-09-04T07:55:03Z",
                "A separate schema works well, thanks. Could `orbit migrate` warn when older workers are connected?",
            ),
            comment(
                "dtanaka",
                "2026-09-04T09:18:36Z",
                """
                Good idea: workers register in `orbit_workers` with their version, so migrate can list the
                ones still alive and ask for `--force`. Adding it to 3.0.0b2.
                """,
            ),
        ],
    },
]
