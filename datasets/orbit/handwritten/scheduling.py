"""Hand-written issues about the scheduler: replicas, misfires, time zones, failover, 3.0 config."""

# ruff: noqa: E501

from __future__ import annotations

from typing import Any

from handwritten import comment, md

ISSUES: list[dict[str, Any]] = [
    {
        "id": 23,
        "title": "Two scheduler replicas enqueue every cron job twice",
        "state": "closed",
        "labels": ["comp:scheduler", "type:bug", "severity:S1"],
        "author": "raj-patel-dev",
        "created_at": "2025-05-04T09:51:37Z",
        "body": md(
            """
            For availability we run `orbit scheduler` as a Deployment with `replicas: 2`. Since then every
            scheduled job runs twice, a few milliseconds apart:

            ```
            2025-05-04T06:00:00.012Z INFO orbit.scheduler [s-7a10] enqueued job=reports.daily_digest id=01HX0M4A9QZ1 cron="0 6 * * *"
            2025-05-04T06:00:00.019Z INFO orbit.scheduler [s-c3e2] enqueued job=reports.daily_digest id=01HX0M4A9T7B cron="0 6 * * *"
            ```

            Customers got two daily digests. Is running two schedulers not supported? The deployment docs
            don't say. orbit-scheduler 2.6.4, Redis 7.2.4.
            """
        ),
        "comments": [
            comment(
                "mkowalski",
                "2025-05-04T11:20:45Z",
                """
                In 2.6 it is not: each scheduler enqueues every fire time on its own. Run exactly one
                scheduler for now (`replicas: 1`, with a `Recreate` strategy so a rollout never has two).

                Leader election is done on main and ships in 2.7.0: the leader holds a lock in the broker
                (a Redis key with a 15 s expiry, an advisory lock on Postgres) and the standby takes over
                when it lapses. Fire times that pass during the handover are covered by
                `scheduler.misfire_grace`.
                """,
            ),
            comment(
                "raj-patel-dev",
                "2025-05-04T12:02:18Z",
                "Back to one replica. Would the digest job have been safe with an idempotency key of some sort?",
            ),
            comment(
                "priya-n",
                "2025-05-05T08:14:51Z",
                """
                Today you'd have to deduplicate inside the job (e.g. key on the fire time,
                `ctx.scheduled_for`, in your own table). An enqueue-side idempotency key has come up
                before; if you need it, a feature request with your use case would help.
                """,
            ),
            comment(
                "mkowalski",
                "2025-05-19T16:30:00Z",
                "2.7.0 is out with leader election; `orbit scheduler status` shows the leader. Closing.",
            ),
        ],
    },
    {
        "id": 36,
        "title": 'Daily job skipped after a scheduler restart with catchup = "none"',
        "state": "closed",
        "labels": ["comp:scheduler", "type:question"],
        "author": "ines-castro",
        "created_at": "2025-07-12T16:25:03Z",
        "body": md(
            """
            We deployed a new scheduler image at 01:59. The rollout took about 3 minutes, and the
            `backups.snapshot` job scheduled for 02:00 never ran that night:

            ```
            2025-07-12T02:02:41.305Z WARNING orbit.scheduler [s-90b4] ORB-1403 MissedSchedule schedule=nightly-snapshot due=2025-07-12T02:00:00Z late=161s misfire_grace=60s
            ```

            ```toml
            [scheduler]
            timezone = "UTC"
            catchup = "none"
            misfire_grace = 60
            ```

            I expected a restart to be harmless. What's the right configuration so a deploy never drops
            a nightly job, without flooding the queue after a long outage?
            """
        ),
        "comments": [
            comment(
                "dtanaka",
                "2025-07-12T18:40:29Z",
                """
                Working as configured: a fire time that is found more than `misfire_grace` seconds late is
                "missed" (ORB-1403), and with `catchup = "none"` missed runs are dropped.

                For your case: `catchup = "latest"` runs the most recent missed fire time of each schedule
                once, whatever the outage length, so a deploy never drops the nightly job and a long outage
                never floods the queue. Also run two schedulers (leader election since 2.7) so a rollout
                has a standby ready.
                """,
            ),
            comment(
                "ines-castro",
                "2025-07-13T07:55:42Z",
                "`latest` it is. Maybe the configuration page could say what the three values mean in one table?",
            ),
            comment(
                "dtanaka",
                "2025-07-14T09:10:13Z",
                "Done, the scheduling page now has a table of the catch-up policies with examples. Closing.",
            ),
        ],
    },
    {
        "id": 69,
        "title": "*/30 schedules fire at :15 and :45 with scheduler.timezone = Asia/Kathmandu",
        "state": "closed",
        "labels": ["comp:scheduler", "type:bug", "severity:S3"],
        "author": "uche-n",
        "created_at": "2026-01-05T05:12:44Z",
        "body": md(
            """
            Our Nepal team's jobs are configured in local time (UTC+05:45):

            ```toml
            [scheduler]
            timezone = "Asia/Kathmandu"

            [[scheduler.schedules]]
            name = "ktm-sync"
            cron = "*/30 * * * *"
            job = "crm.sync_contacts"
            ```

            They fire at 10:15, 10:45, 11:15 local time instead of 10:00, 10:30, 11:00. Hour-based
            schedules (`0 9 * * *`) are fine. Same with `Asia/Kolkata` (+05:30) and `*/20`.

            orbit-scheduler 2.7.5, Python 3.12.7.
            """
        ),
        "comments": [
            comment(
                "priya-n",
                "2026-01-05T08:31:20Z",
                """
                Nice find. As an optimisation, expressions with only a minute step are evaluated in UTC
                (they don't care about DST), which is only correct for zones whose offset is a whole
                number of hours... or, for `*/30`, of half hours, which is why Kolkata with `*/30` works
                and Kathmandu does not.
                """,
            ),
            comment(
                "uche-n",
                "2026-01-05T09:02:11Z",
                "Kolkata with `*/20` is off too (fires at :10, :30, :50). Workaround for now: list minutes explicitly in UTC.",
            ),
            comment(
                "priya-n",
                "2026-01-19T12:00:00Z",
                """
                Fixed in 2.8.0: every expression is evaluated in the schedule's time zone; the fast path is
                only used when the zone's offset is a whole number of hours. Test cases for +05:45, +05:30,
                -03:30 and +12:45.
                """,
            ),
        ],
    },
    {
        "id": 95,
        "title": "Scheduler failover reports ORB-1403 for runs well within misfire_grace",
        "state": "open",
        "labels": ["comp:scheduler", "type:bug", "severity:S2"],
        "author": "lars-e",
        "created_at": "2026-05-24T13:47:20Z",
        "body": md(
            """
            Two schedulers (leader + standby) on Postgres 16.4. When we kill the leader pod, the standby
            takes over after ~15 s as documented, but every schedule that was due during the handover is
            reported as missed and dropped, although `misfire_grace = 60`:

            ```
            2026-05-24T13:00:00.004Z INFO orbit.scheduler [s-4b19] leader since 2026-05-20T08:12:44Z
            2026-05-24T13:00:02.310Z INFO orbit.scheduler [s-d8e1] standby: leader lock held by s-4b19
            2026-05-24T13:00:17.520Z INFO orbit.scheduler [s-d8e1] acquired leader lock
            2026-05-24T13:00:17.544Z WARNING orbit.scheduler [s-d8e1] ORB-1403 MissedSchedule schedule=orders-export due=2026-05-24T13:00:05Z late=12s misfire_grace=60s
            2026-05-24T13:00:17.546Z WARNING orbit.scheduler [s-d8e1] ORB-1403 MissedSchedule schedule=cache-warmup due=2026-05-24T13:00:10Z late=7s misfire_grace=60s
            ```

            12 s late with a 60 s grace should be enqueued, not missed. `catchup = "none"`.
            orbit-scheduler 2.8.1.
            """
        ),
        "comments": [
            comment(
                "mkowalski",
                "2026-05-25T08:12:03Z",
                """
                Reproduced with a 2-scheduler compose file. The new leader starts from "now" and treats
                everything between the last tick it *saw* and now as history to apply the catch-up policy
                to, without checking `misfire_grace` first. With `catchup = "latest"` you'd get one run,
                with "none" none. The misfire check should come first.
                """,
            ),
            comment(
                "lars-e",
                "2026-05-25T09:30:44Z",
                "Makes sense. We'll switch to `latest` meanwhile; we only lose the jobs between handover and now.",
            ),
            comment(
                "dtanaka",
                "2026-06-02T14:05:12Z",
                """
                There is a second issue: the new leader should read the last fire time the *old* leader
                recorded (it is in the broker), not its own last tick. Otherwise a standby that was down
                for an hour treats that hour as missed too. I have a branch; needs a test with a frozen
                clock.
                """,
            ),
        ],
    },
    {
        "id": 121,
        "title": "3.0.0b1: scheduler exits with ORB-1003 for scheduler.catch_up_missed left in orbit.toml",
        "state": "open",
        "labels": ["comp:core", "type:bug", "severity:S3"],
        "author": "mattias-l",
        "created_at": "2026-10-10T10:18:29Z",
        "body": md(
            """
            Trying the beta in staging:

            ```
            $ orbit scheduler
            2026-10-10T09:58:01.114Z CRITICAL orbit.config [s-2f07] ORB-1003 UnknownConfigKey scheduler.catch_up_missed (orbit.toml:14)
            $ echo $?
            3
            ```

            I know unknown keys are errors in 3.0, but `catch_up_missed` isn't unknown: it was a real key
            that 3.0 removed. The message should say "removed in 3.0, use scheduler.catchup" instead of
            making me search the changelog. Our config has been carried over since 2.5.

            orbit-scheduler 3.0.0b1, Python 3.12.7.
            """
        ),
        "comments": [
            comment(
                "priya-n",
                "2026-10-10T12:40:55Z",
                """
                Agreed. We'll keep a table of removed and renamed keys and give them their own message:
                `ORB-1003 UnknownConfigKey scheduler.catch_up_missed: removed in 3.0, use scheduler.catchup
                ("all" replaces true)`. Still exit 3, but with the fix in the message.
                """,
            ),
            comment(
                "mattias-l",
                "2026-10-11T07:21:32Z",
                "Perfect. `orbit config check --strict` on 2.8.3 should print the same hint, so people can fix it before upgrading.",
            ),
            comment(
                "dtanaka",
                "2026-10-12T09:05:40Z",
                "Good point; the same table will feed the 2.8 check. Targeting 3.0.0b2 and 2.8.4.",
            ),
        ],
    },
]
