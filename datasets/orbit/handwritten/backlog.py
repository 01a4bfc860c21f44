"""Hand-written issues of the last weeks before the snapshot: a backlog as it arrives.

Most are not triaged yet (no labels, or a group missing), several are unanswered, two wait on
their reporter, and some report a problem the tracker already has in other words: a few closed
by a maintainer as duplicates of the earlier report, a few still open with nobody having noticed.
"""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

from handwritten import comment, md

ISSUES: list[dict[str, Any]] = [
    {
        "id": 131,
        "title": "report.generate is executed a second time by another worker after ~15 minutes",
        "state": "closed",
        "labels": ["comp:core", "type:bug"],
        "author": "nadia-h",
        "created_at": "2026-11-27T21:40:00Z",
        "body": md(
            """
            Our monthly `report.generate` job (a big pandas groupby, 20-25 minutes) gets started a
            second time on a different worker while the first one is still busy. Both write the PDF,
            the customer gets two e-mails.

            ```
            2026-11-26T23:00:01.412Z INFO orbit.worker [w-51a0] started job=report.generate id=01JDQ0ZC attempt=1
            2026-11-26T23:15:02.108Z WARNING orbit.worker [w-51a0] ORB-1101 LeaseExpired job=report.generate id=01JDQ0ZC lease=900s elapsed=901s
            2026-11-26T23:15:02.530Z INFO orbit.worker [w-9c17] started job=report.generate id=01JDQ0ZC attempt=2
            ```

            orbit-scheduler 2.8.3, Redis 7.2, Python 3.12.
            """
        ),
        "comments": [
            comment(
                "mkowalski",
                "2026-11-27T22:28:52Z",
                """
                Duplicate of #41: the groupby holds the GIL for minutes, so the heartbeat
                thread cannot renew the lease and it expires at 900 s; another worker then takes the
                job. Raise `lease.duration` above the job's longest run, or call `ctx.checkpoint()`
                between the steps. Closing here so the discussion stays in #41.
                """,
            ),
            comment("nadia-h", "2026-11-27T23:08:15Z", "Thanks, `lease.duration = 2400` it is for now."),
        ],
    },
    {
        "id": 132,
        "title": "orbit jobs ls --json prints timestamps without a time zone",
        "state": "open",
        "labels": [],
        "author": "lucasbr",
        "created_at": "2026-11-28T00:39:13Z",
        "body": md(
            """
            `orbit jobs ls --json` gives `"enqueued_at": "2026-11-27 14:02:11.318"`: no offset and a
            space instead of `T`. Our `jq` pipeline parses it as local time and is off by one hour.
            The HTTP API returns `2026-11-27T14:02:11.318Z` for the same job.

            orbit-scheduler 2.8.3, Python 3.12.7, macOS 15.1.
            """
        ),
        "comments": [],
    },
    {
        "id": 133,
        "title": "Workers stuck reconnecting forever after we changed the Redis ACL password",
        "state": "closed",
        "labels": ["comp:broker-redis"],
        "author": "petra-novak",
        "created_at": "2026-11-28T02:45:26Z",
        "body": md(
            """
            We changed the password of the `orbit` ACL user in Redis this morning. Every worker has
            been logging this since, about once a second, and none picks up jobs:

            ```
            2026-11-27T07:58:03.221Z ERROR orbit.broker.redis [w-2d08] ORB-1302 BrokerAuthFailed WRONGPASS invalid username-password pair or user is disabled.
            ```

            The new password is in the Kubernetes secret and the pods see it, but the processes
            don't exit, so nothing restarts them. We had to delete the pods by hand.
            2.8.2 workers, Redis 7.4.
            """
        ),
        "comments": [
            comment(
                "dtanaka",
                "2026-11-28T03:36:28Z",
                """
                Duplicate of #82: a worker reads the broker URL once at start and keeps retrying with
                it. The fix planned there is `broker.password_file`, re-read after every ORB-1302, and
                an exit after repeated auth failures so that a supervisor restarts the worker.
                """,
            ),
        ],
    },
    {
        "id": 134,
        "title": "How do I run some jobs only on the workers that have a GPU?",
        "state": "open",
        "labels": [],
        "author": "mei-lin",
        "created_at": "2026-11-28T04:51:39Z",
        "body": md(
            """
            We have 12 CPU workers and 2 with a GPU. `ml.embed` jobs must run on the GPU ones, every
            other job anywhere. Is there a tag or a selector for workers, or do I need a separate
            queue? The docs mention queues but not how a worker picks which ones it reads.
            """
        ),
        "comments": [],
    },
    {
        "id": 135,
        "title": "Schedule fired twice on the night the clocks changed",
        "state": "open",
        "labels": [],
        "author": "hgrimm",
        "created_at": "2026-11-28T07:50:52Z",
        "body": md(
            """
            Our 02:30 backup schedule ran twice on the night of the DST change (the clocks went back
            from 03:00 to 02:00). I would have expected it to run once. Is that a bug?
            """
        ),
        "comments": [],
    },
    {
        "id": 136,
        "title": "API says the token is missing behind our nginx ingress (auth_header=absent)",
        "state": "closed",
        "labels": ["comp:api", "type:bug", "severity:S3"],
        "author": "joao-santos",
        "created_at": "2026-11-28T09:56:05Z",
        "body": md(
            """
            Through the ingress every call fails, directly on the pod it works with the same token:

            ```
            $ curl -sL -H "Authorization: Bearer $TOKEN" http://orbit.apps.internal/orbit/v1/queues
            {"error": {"code": "ORB-1601", "name": "ApiUnauthorized", "message": "missing or invalid token"}}
            ```

            The API log says `ORB-1601 ApiUnauthorized path=/v1/queues auth_header=absent`. The
            ingress is ingress-nginx 1.11 with a rewrite of `/orbit(/|$)(.*)` to `/$2`.
            """
        ),
        "comments": [
            comment(
                "priya-n",
                "2026-11-28T11:04:17Z",
                """
                This is #39; closing as a duplicate so the discussion stays in one place.
                `auth_header=absent` means the header never reached Orbit: `curl -L` follows the
                ingress's redirect from `http` to `https`, and curl drops `Authorization` when it
                follows a redirect. Call the `https` URL directly.
                """,
            ),
            comment("joao-santos", "2026-11-28T11:26:11Z", "That was it, thanks."),
        ],
    },
    {
        "id": 137,
        "title": "Pause a single queue from the CLI",
        "state": "open",
        "labels": [],
        "author": "sre-tobias",
        "created_at": "2026-11-28T12:02:18Z",
        "body": md(
            """
            During an incident with our mail provider I want workers to stop taking `mail` jobs while
            everything else keeps running: something like `orbit queues pause mail` and
            `orbit queues resume mail`. Today we scale the mail workers to zero, which also stops the
            queues they share with others.
            """
        ),
        "comments": [],
    },
    {
        "id": 138,
        "title": "Worker memory keeps climbing after every big export until the pod is OOMKilled",
        "state": "open",
        "labels": [],
        "author": "wen-zhao",
        "created_at": "2026-11-28T15:01:31Z",
        "body": md(
            """
            Our `exports.monthly` jobs read large Parquet files (~400 MB each). After each one the
            worker's memory goes up by a few hundred MB and stays there. After a day the pod reaches
            its limit and Kubernetes kills it (OOMKilled, exit 137); its running jobs come back only
            when their leases run out:

            ```
            2026-11-27T02:11:40.008Z ERROR orbit.worker [w-44c2] ORB-1101 LeaseExpired job=exports.monthly id=01JE4P3Q lease=900s elapsed=1187s
            ```

            orbit-scheduler 2.8.3, Python 3.12.3, `worker.concurrency = 2`. Is the worker leaking?
            """
        ),
        "comments": [],
    },
    {
        "id": 139,
        "title": "ORB-1305 on almost every claim after upgrading the Postgres broker to 2.8.3",
        "state": "open",
        "labels": ["comp:broker-postgres", "type:bug"],
        "author": "carla-dm",
        "created_at": "2026-11-28T17:07:44Z",
        "body": md(
            """
            Since the upgrade from 2.8.1 to 2.8.3 most claims fail and jobs start minutes late:

            ```
            2026-11-27T08:40:12.551Z WARNING orbit.broker.postgres [w-0f3e] ORB-1305 PostgresSerializationFailure could not serialize access due to concurrent update; claim retried attempt=4
            ```

            Nothing else changed. PostgreSQL 16.4 on Cloud SQL.
            """
        ),
        "comments": [
            comment(
                "priya-n",
                "2026-11-29T04:41:49Z",
                """
                Which isolation level does the database default to? Could you run
                `SHOW default_transaction_isolation;` as the orbit user and tell us what it says?
                Claims conflict like this under `serializable`.
                """,
            ),
        ],
    },
    {
        "id": 140,
        "title": "'0 9 * * MON#2' is rejected with CronParseError",
        "state": "closed",
        "labels": ["comp:scheduler", "type:bug", "severity:S3"],
        "author": "dario-m",
        "created_at": "2026-11-28T19:13:57Z",
        "body": md(
            """
            I want a schedule on the second Monday of each month at 09:00. The scheduler exits at
            start:

            ```
            orbit.scheduler.cron.CronParseError: ORB-1401 CronParseError: invalid cron expression '0 9 * * MON#2'
            ```

            crontab.guru shows the expression as valid. orbit-scheduler 2.8.3.
            """
        ),
        "comments": [
            comment(
                "priya-n",
                "2026-11-28T20:40:05Z",
                """
                Duplicate of #43: `#` (the n-th weekday of the month) is a Quartz extension, not
                five-field cron, and Orbit does not support it. Schedule it every Monday between the
                8th and the 14th and check the day in the job, as described in #43.
                """,
            ),
        ],
    },
    {
        "id": 141,
        "title": "Is there a way to see why a job was retried?",
        "state": "open",
        "labels": [],
        "author": "ines-castro",
        "created_at": "2026-11-28T22:12:10Z",
        "body": md(
            """
            `orbit jobs show` says `attempts: 3` for a job that finally succeeded, but not what went
            wrong in attempts 1 and 2. Are the errors of earlier attempts stored anywhere, or only in
            the worker logs?
            """
        ),
        "comments": [],
    },
    {
        "id": 142,
        "title": "CROSSSLOT errors when pointing Orbit at our Redis Cluster",
        "state": "closed",
        "labels": ["comp:broker-redis", "type:feature"],
        "author": "b-hoffmann",
        "created_at": "2026-11-29T00:18:23Z",
        "body": md(
            """
            Our new platform only offers Redis in cluster mode. The worker fails on its first claim:

            ```
            redis.exceptions.ResponseError: CROSSSLOT Keys in request don't hash to the same slot
            ```

            Any plans to support cluster mode? 2.8.3.
            """
        ),
        "comments": [
            comment(
                "dtanaka",
                "2026-11-29T00:55:01Z",
                "Duplicate of #65, where this is tracked. Please add your use case there.",
            ),
        ],
    },
    {
        "id": 143,
        "title": "Worker crashes with KeyError: 'tags' on jobs enqueued by an older client",
        "state": "open",
        "labels": [],
        "author": "kwame-asante",
        "created_at": "2026-11-29T02:24:36Z",
        "body": md(
            """
            After upgrading the workers to 2.8.3 (the producers are still on 2.7.5), some workers
            crash on the first old job they claim:

            ```
            Traceback (most recent call last):
              File "/usr/local/lib/python3.11/site-packages/orbit/worker/runner.py", line 244, in _run_one
                tags = job.meta["tags"]
            KeyError: 'tags'
            ```

            The upgrade notes say mixed versions within a minor series are fine.
            """
        ),
        "comments": [],
    },
    {
        "id": 144,
        "title": "docs: retries example uses retries.max_attempts, the key is retries.max",
        "state": "open",
        "labels": [],
        "author": "zoe-m",
        "created_at": "2026-11-29T04:30:49Z",
        "body": md(
            """
            The example in the retries guide sets `max_attempts = 5` under `[retries]`, which
            `orbit config check` rejects with ORB-1003 (unknown key). The reference page calls it
            `retries.max`. One of the two pages is wrong.
            """
        ),
        "comments": [],
    },
    {
        "id": 145,
        "title": "With pgbouncer in front of Postgres, jobs take up to a minute to start",
        "state": "open",
        "labels": [],
        "author": "oskar-nyberg",
        "created_at": "2026-11-29T07:29:02Z",
        "body": md(
            """
            We put PgBouncer (transaction pooling) between the workers and Postgres last week. Since
            then a freshly enqueued job waits between 20 and 60 seconds before a worker starts it,
            even when all 30 workers are idle. Without PgBouncer it is instant.

            `broker.poll_interval` is the default. orbit-scheduler 2.8.3, PostgreSQL 15.
            """
        ),
        "comments": [],
    },
    {
        "id": 146,
        "title": "orbit config check prints the Postgres DSN, password included",
        "state": "closed",
        "labels": ["comp:core", "type:bug", "severity:S4"],
        "author": "amara-o",
        "created_at": "2026-11-29T09:35:15Z",
        "body": md(
            """
            A wrong database name made `orbit config check` print this in our CI log, which is
            public for the team:

            ```
            Error: ORB-1001 ConfigInvalid: broker.url 'postgresql://orbit:hunter2-prod@db.internal:5432/orbti' cannot be reached
            ```
            """
        ),
        "comments": [
            comment(
                "dtanaka",
                "2026-11-29T10:32:35Z",
                """
                Duplicate of #16: every message that shows a URL must mask its password
                (`orbit:***@`). Please rotate that password; closing here, the fix is tracked in #16.
                """,
            ),
            comment("amara-o", "2026-11-29T10:44:02Z", "Rotated. Missed that one, sorry!"),
        ],
    },
    {
        "id": 147,
        "title": "GET /v1/jobs?state=paused answers 500",
        "state": "open",
        "labels": ["type:bug"],
        "author": "raj-patel-dev",
        "created_at": "2026-11-29T11:41:28Z",
        "body": md(
            """
            ```
            $ curl -s -H "Authorization: Bearer $TOKEN" "https://orbit.internal/v1/jobs?state=paused"
            HTTP/1.1 500 Internal Server Error
            {"error": {"name": "InternalServerError", "message": "internal error"}}
            ```

            and in the API log `ValueError: 'paused' is not a valid JobState`. Other states work.
            orbit-scheduler 2.8.3.
            """
        ),
        "comments": [
            comment(
                "mkowalski",
                "2026-11-29T22:13:56Z",
                """
                `paused` only exists in 3.0. Do you run a 3.0 beta scheduler or client somewhere in the
                same cluster? Jobs written by it would have that state.
                """,
            ),
        ],
    },
    {
        "id": 148,
        "title": "Start the export only after the import job succeeded",
        "state": "closed",
        "labels": ["comp:core", "type:feature", "severity:S4"],
        "author": "fpereira",
        "created_at": "2026-11-29T14:40:41Z",
        "body": md(
            """
            Every night an import job loads data and an export job must run after it, only if it
            succeeded. We enqueue the export from the last line of the import today. Could Orbit
            express "run after job X" itself?
            """
        ),
        "comments": [
            comment(
                "dtanaka",
                "2026-11-29T15:22:21Z",
                "Duplicate of #90, where this is tracked. Please add your use case there.",
            ),
        ],
    },
    {
        "id": 149,
        "title": "Can the lease duration be set per job instead of per worker?",
        "state": "open",
        "labels": [],
        "author": "gkaur",
        "created_at": "2026-11-29T16:46:54Z",
        "body": md(
            """
            Most of our jobs take seconds, two take half an hour. Raising `lease.duration` for all
            of them means a crashed worker's short jobs wait 40 minutes too. Can a job declare its
            own lease?
            """
        ),
        "comments": [],
    },
    {
        "id": 150,
        "title": "Dashboard is empty after logging in",
        "state": "open",
        "labels": [],
        "author": "alexgrant",
        "created_at": "2026-11-29T18:52:07Z",
        "body": md(
            """
            After logging in, the dashboard shows the header and nothing else: no queues, no
            workers. It worked last week.
            """
        ),
        "comments": [],
    },
    {
        "id": 151,
        "title": "Running jobs are not handed back when a pod is terminated; they wait for the lease",
        "state": "open",
        "labels": [],
        "author": "uche-n",
        "created_at": "2026-11-29T21:51:20Z",
        "body": md(
            """
            On every deploy, the jobs that were running on the old pods start again only after
            their 30 minute lease expires. The worker log ends with

            ```
            2026-11-28T10:41:02.377Z INFO orbit.worker [w-7a90] SIGTERM received, draining (shutdown_grace=120s) running=2
            ```

            and nothing after it. Kubernetes 1.31, default pod settings, 2.8.3.
            """
        ),
        "comments": [],
    },
    {
        "id": 152,
        "title": "cron '*/45 * * * *' runs at :00 and :45, not every 45 minutes",
        "state": "closed",
        "labels": ["comp:scheduler", "type:bug", "severity:S3"],
        "author": "lars-e",
        "created_at": "2026-11-29T23:57:33Z",
        "body": md(
            """
            A schedule with `cron = "*/45 * * * *"` fires at 10:00, 10:45, 11:00, 11:45... so twice
            within 15 minutes. I expected a run every 45 minutes.
            """
        ),
        "comments": [
            comment(
                "priya-n",
                "2026-11-30T01:02:31Z",
                """
                Same cause as #72: a step cannot reach past its field, so `*/45` in the minutes means
                minutes 0 and 45 of every hour. Closing as a duplicate of #72, where the better error
                message is tracked; three schedules (`0 0-21/3`, `45 0-21/3`, `30 1-22/3`) give every
                45 minutes.
                """,
            ),
        ],
    },
    {
        "id": 153,
        "title": "orbit jobs retry --all-failed --since 24h",
        "state": "open",
        "labels": ["comp:cli", "type:feature"],
        "author": "vbondarenko",
        "created_at": "2026-11-30T02:03:46Z",
        "body": md(
            """
            After an outage we retry failed jobs one id at a time. A bulk form would help:
            `orbit jobs retry --all-failed --since 24h --name billing.*`, with a dry run first.
            """
        ),
        "comments": [
            comment(
                "mkowalski",
                "2026-11-30T03:40:38Z",
                "Reasonable. `orbit jobs retry` already takes ids; filters like `jobs ls` has would fit there.",
            ),
        ],
    },
    {
        "id": 154,
        "title": "ORB-1501 WorkerHeartbeatLost for healthy workers while Redis runs BGSAVE",
        "state": "open",
        "labels": [],
        "author": "cloudops-jan",
        "created_at": "2026-11-30T04:09:59Z",
        "body": md(
            """
            Every night at 03:00 when Redis runs `BGSAVE` (a 9 GB dataset), the scheduler marks
            workers as lost although they are fine:

            ```
            2026-11-29T03:00:41.904Z WARNING orbit.scheduler [s-01] ORB-1501 WorkerHeartbeatLost worker=w-13bd last_seen=31s
            ```

            Redis latency goes up to ~2 s during the fork. orbit-scheduler 2.8.3, Redis 7.2.
            """
        ),
        "comments": [],
    },
    {
        "id": 155,
        "title": "Recommended way to run Orbit on ECS Fargate?",
        "state": "open",
        "labels": [],
        "author": "sam-oconnell",
        "created_at": "2026-11-30T07:08:12Z",
        "body": md(
            """
            We are moving from EC2 to ECS Fargate. Is there a recommended task layout (one scheduler
            task, workers as a service?) and a stop timeout that works with `shutdown_grace`?
            """
        ),
        "comments": [
            comment(
                "owen-b",
                "2026-11-30T12:23:54Z",
                "We run it like that: scheduler as a service with one task, workers as another. Set `stopTimeout` above `shutdown_grace`.",
            ),
        ],
    },
    {
        "id": 156,
        "title": "orbit status lists workers of a terminated node as busy",
        "state": "closed",
        "labels": ["comp:api", "type:bug", "severity:S3"],
        "author": "yuki-ito",
        "created_at": "2026-11-30T09:14:25Z",
        "body": md(
            """
            A spot instance was reclaimed at 08:10. At 09:30 `orbit status` still shows its 4 workers
            as busy, each holding a job. The scheduler did log `ORB-1501 WorkerHeartbeatLost` for
            them at 08:11.
            """
        ),
        "comments": [
            comment(
                "priya-n",
                "2026-11-30T10:11:41Z",
                """
                Duplicate of #57: the status view derives "busy" from leases, not from heartbeats, so
                a lost worker looks busy until its leases expire. Closing as a duplicate; the fix is
                tracked there.
                """,
            ),
        ],
    },
    {
        "id": 157,
        "title": "3.0.0b2: orbit migrate fails on PostgreSQL 17 with ORB-1702",
        "state": "open",
        "labels": [],
        "author": "elif-yilmaz",
        "created_at": "2026-11-30T11:20:38Z",
        "body": md(
            """
            Trying the beta on a fresh PostgreSQL 17.2 database:

            ```
            $ orbit migrate
            Traceback (most recent call last):
              File "/opt/orbit/lib/python3.13/site-packages/orbit/brokers/postgres_schema.py", line 97, in migrate
                raise SchemaVersionMismatch(found, expected)
            orbit.errors.SchemaVersionMismatch: ORB-1702 SchemaVersionMismatch: found 0, expected 7
            ```

            The database is empty; there is nothing to mismatch.
            """
        ),
        "comments": [],
    },
    {
        "id": 158,
        "title": "What should our producers do when enqueue raises QueueFull?",
        "state": "open",
        "labels": [],
        "author": "mattias-l",
        "created_at": "2026-11-30T14:19:51Z",
        "body": md(
            """
            During a backlog our web app gets `ORB-1306 QueueFull` from `enqueue` and the request
            fails. Should we retry, drop the job, or raise `queue.max_length`? What do other users do?
            """
        ),
        "comments": [],
    },
    {
        "id": 159,
        "title": "Jobs stuck in running forever",
        "state": "open",
        "labels": [],
        "author": "devon-price",
        "created_at": "2026-11-30T16:25:04Z",
        "body": md(
            """
            Some jobs stay in `running` and never finish or fail. Restarting the workers does not
            change it. How can I get them out?
            """
        ),
        "comments": [],
    },
    {
        "id": 160,
        "title": "Webhook when a job ends in RetriesExhausted",
        "state": "open",
        "labels": [],
        "author": "chenwei88",
        "created_at": "2026-11-30T18:31:17Z",
        "body": md(
            """
            We would like Orbit to POST to a URL when a job gives up after its last attempt
            (ORB-1202 RetriesExhausted), with the job's name, id and last error, so our on-call tool
            can open an incident. Polling the API for failed jobs works, but it is a minute late.
            """
        ),
        "comments": [],
    },
]
