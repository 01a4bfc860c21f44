"""Report templates for `generate_issues.py`: one function per kind of report a tracker receives.

Each template draws its concrete details (versions, job names, numbers, log lines) from the
issue's own seeded generator and returns a `Draft`: title, Markdown body, labels and a comment
thread whose speakers are roles ("reporter", "maintainer", "maintainer2", "other").
"""

# ruff: noqa: E501

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from textwrap import dedent
from typing import TypeVar

T = TypeVar("T")

PYTHONS = ("3.10.14", "3.11.9", "3.11.7", "3.12.4", "3.12.7", "3.13.0")
SYSTEMS = (
    "Ubuntu 22.04",
    "Ubuntu 24.04",
    "Debian 12 (python:3.12-slim image)",
    "Alpine 3.19",
    "RHEL 9.3",
    "macOS 14.5 (dev laptop)",
    "Amazon Linux 2023",
    "Kubernetes 1.29 on GKE",
    "Kubernetes 1.30 on EKS",
)
REDIS = ("6.2.14", "7.0.15", "7.2.4", "7.2.5", "7.4.0", "Valkey 7.2.6", "AWS ElastiCache 7.1", "Azure Cache 6.0")
POSTGRES = ("13.14", "14.11", "15.6", "16.2", "16.4", "17.0", "AWS RDS 15.5", "Cloud SQL 16")
JOBS = (
    "billing.invoice_run",
    "reports.daily_digest",
    "etl.load_orders",
    "media.transcode",
    "search.reindex",
    "crm.sync_contacts",
    "ml.retrain_ranker",
    "backups.snapshot",
    "emails.send_batch",
    "thumbnails.resize",
    "exports.csv_bulk",
    "ledger.reconcile",
    "cache.warmup",
    "webhooks.deliver",
    "feeds.refresh",
)


class NotApplicable(Exception):
    """The template's story does not fit this issue's Orbit version."""


@dataclass
class Draft:
    title: str
    body: str
    labels: list[str]
    thread: list[tuple[str, str]] = field(default_factory=list)
    closes: bool = False
    last_resolves: bool = False
    """The last comment announces the fix; an issue that stays open has not reached it yet."""


@dataclass
class Ctx:
    """The seeded generator and the facts of one issue that every template may use."""

    rng: random.Random
    created: datetime
    version: str
    author: str
    maintainer: str

    def __post_init__(self) -> None:
        self.python = self.pick(PYTHONS)
        self.system = self.pick(SYSTEMS)
        self.redis = self.pick(REDIS)
        self.postgres = self.pick(POSTGRES)
        self.job = self.pick(JOBS)
        self.worker = self.wid()
        # Logs are pasted from some time before the report, not to the second of it.
        self.log_offset = timedelta(seconds=self.rng.randrange(5, 3000))

    def require(self, since: str = "0", before: str = "99") -> None:
        """Refuse versions where the story could not have happened (a feature not yet shipped)."""
        if not _key(since) <= _key(self.version) < _key(before):
            raise NotApplicable(f"{self.version} outside [{since}, {before})")

    @property
    def redis_name(self) -> str:
        return f"Redis {self.redis}" if self.redis[0].isdigit() else self.redis

    @property
    def postgres_name(self) -> str:
        return f"Postgres {self.postgres}" if self.postgres[0].isdigit() else self.postgres

    def pick(self, options: Sequence[T]) -> T:
        return self.rng.choice(options)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def wid(self) -> str:
        return f"w-{self.rng.getrandbits(16):04x}"

    def jid(self) -> str:
        alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
        return "01J" + "".join(self.rng.choice(alphabet) for _ in range(9))

    @property
    def fix(self) -> str:
        """The patch release after the reporter's version."""
        major, minor, patch = self.version.split(".")
        return f"{major}.{minor}.{int(patch) + 1}"

    def stamp(self, minutes_before: float) -> str:
        at = self.created - self.log_offset - timedelta(minutes=minutes_before)
        return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.rng.randrange(1000):03d}Z"

    def log(self, minutes_before: float, level: str, logger: str, message: str, worker: str | None = None) -> str:
        return f"{self.stamp(minutes_before)} {level} {logger} [{worker or self.worker}] {message}"

    def env(self) -> str:
        return f"orbit-scheduler {self.version}, Python {self.python}, {self.system}"


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def md(text: str) -> str:
    return dedent(text).strip("\n")


Template = Callable[[Ctx], Draft]
TEMPLATES: list[Template] = []


def template(fn: Template) -> Template:
    TEMPLATES.append(fn)
    return fn


@template
def lease_expired_long_job(c: Ctx) -> Draft:
    c.require(since="2.7.0")
    duration = c.pick((600, 900, 900, 1200, 1800))
    usual = duration // 60 - c.rng.randrange(2, 6)
    elapsed = duration + c.rng.randrange(3, 25) * 60 + c.rng.randrange(60)
    other, job_id = c.wid(), c.jid()
    start = elapsed / 60 + 30
    logs = "\n".join(
        (
            c.log(start, "INFO", "orbit.worker", f"started job={c.job} id={job_id} attempt=1 lease={duration}s"),
            c.log(
                start - duration / 60 - 0.02,
                "INFO",
                "orbit.worker",
                f"started job={c.job} id={job_id} attempt=2 lease={duration}s",
                other,
            ),
            c.log(
                30,
                "ERROR",
                "orbit.worker",
                f"ORB-1101 LeaseExpired job={c.job} id={job_id} lease={duration}s elapsed={elapsed}s",
            ),
        )
    )
    minutes = elapsed // 60
    body = md(
        f"""
        `{c.job}` normally takes ~{usual} minutes, but on heavy days it takes {minutes}+ and then it
        runs on two workers at once. The second worker starts it exactly when the first one's lease
        runs out.

        ```
        {{logs}}
        ```

        ```toml
        [lease]
        duration = {duration}
        renew_interval = {c.pick((300, 300, 120))}
        ```

        {c.env()}, {c.pick((c.redis_name, c.postgres_name))} broker.
        Is the worker supposed to keep renewing while the job runs? The job is plain synchronous Python,
        mostly waiting on a {c.pick(("database", "S3 upload", "remote API", "pandas merge"))}.
        """
    ).replace("{logs}", logs)
    thread = [
        (
            "maintainer",
            md(
                """
                Yes, the heartbeat thread renews the lease every `lease.renew_interval` while the job
                runs. If the job holds the GIL for longer than `duration - renew_interval` (a long C call
                that does not release it), renewals are late and the lease expires (ORB-1101). Do you see
                `ORB-1102 LeaseRenewFailed` or `heartbeat late` warnings before the expiry?
                """
            ),
        ),
        (
            "reporter",
            c.pick(
                (
                    "Found `heartbeat late by 410s` right before it. The merge step is one big numpy call.",
                    "No warnings at all, renewals stop silently after the second one.",
                    "There's `ORB-1102 LeaseRenewFailed reason=connection reset` about 20 s before the expiry.",
                )
            ),
        ),
        (
            "maintainer2",
            md(
                """
                Until renewals survive this, raise `lease.duration` above your worst-case runtime (e.g.
                `ORBIT_LEASE_DURATION=3600`) and make the job idempotent so a duplicate run is harmless.
                Same root cause as the nightly-rebuild report (#41), tracking there.
                """
            ),
        ),
    ]
    return Draft(
        title=c.pick(
            (
                f"{c.job} runs twice when it takes longer than lease.duration",
                f"Job picked up by a second worker after {duration} s although the first is still running",
                f"LeaseExpired (ORB-1101) on long {c.job} runs, duplicate execution",
            )
        ),
        body=body,
        labels=["comp:core", "type:bug", c.pick(("severity:S2", "severity:S3"))],
        thread=thread,
        closes=c.chance(0.5),
    )


@template
def redis_connection_reset(c: Ctx) -> Draft:
    idle = c.pick((("an AWS NLB", 350), ("an Azure Load Balancer", 240), ("HAProxy", 300), ("Envoy", 3600)))
    proxy, timeout = idle
    trace = md(
        f"""
        Traceback (most recent call last):
          File "/usr/local/lib/python{c.python[:4]}/site-packages/orbit/worker/runner.py", line 212, in _claim_loop
            batch = self.broker.claim(self.queues, count=self.concurrency, block_ms=5000)
          File "/usr/local/lib/python{c.python[:4]}/site-packages/orbit/brokers/redis.py", line 341, in claim
            reply = self._client.xreadgroup(self.group, self.consumer, streams, count=count, block=block_ms)
          File "/usr/local/lib/python{c.python[:4]}/site-packages/redis/connection.py", line 524, in read_response
            raise ConnectionError("Connection reset by peer")
        redis.exceptions.ConnectionError: Connection reset by peer
        """
    )
    body = md(
        f"""
        Workers behind {proxy} log `ORB-1303 RedisConnectionReset` roughly every {timeout // 60 or 1}
        minutes when the queue is quiet, and every now and then a job that was claimed right before the
        reset is only picked up again after the lease runs out ({c.pick((900, 900, 1800))} s later).

        ```
        {{log}}
        ```

        ```
        {{trace}}
        ```

        {c.env()}; {c.redis_name}, `url = "redis://orbit-redis.internal:6379/0"`.
        The proxy's idle timeout is {timeout} s.
        """
    )
    body = body.replace(
        "{log}",
        c.log(4, "WARNING", "orbit.broker.redis", f"ORB-1303 RedisConnectionReset op=XREADGROUP after={timeout}s idle"),
    ).replace("{trace}", trace)
    thread = [
        (
            "maintainer",
            md(
                f"""
                The blocking XREADGROUP keeps the connection idle from the proxy's point of view, so it
                closes it after {timeout} s. We retry the read, but a claim whose reply was lost in the
                reset stays pending until the lease expires. Can you set `broker.keepalive = true` (TCP
                keepalives, off by default) or lower `broker.block_ms`, and check the proxy again?
                """
            ),
        ),
        ("reporter", f"With `keepalive = true` the resets are gone on {proxy}."),
        (
            "maintainer",
            f"Good. The lost-claim part is a bug regardless: after a reconnect the worker now re-delivers "
            f"its pending claims at once instead of waiting for the lease. Fixed in {c.fix}.",
        ),
    ]
    return Draft(
        title=c.pick(
            (
                f"ORB-1303 RedisConnectionReset every few minutes behind {proxy}",
                "Redis broker: claimed job lost until lease expiry after a connection reset",
                f"Workers idle on XREADGROUP get disconnected by {proxy}",
            )
        ),
        body=body,
        labels=["comp:broker-redis", "type:bug", c.pick(("severity:S2", "severity:S3"))],
        thread=thread,
        closes=c.chance(0.75),
        last_resolves=True,
    )


@template
def cron_parse_error(c: Ctx) -> Draft:
    expr, why = c.pick(
        (
            ("0 0 L * *", "`L` (last day of month) is supported by Quartz and by our old cron setup"),
            ("*/90 * * * *", "I wanted every 90 minutes"),
            ("0 9 * * mon-fri", "lower-case day names work in Vixie cron"),
            ("@weekly", "the docs mention `@daily` and `@hourly` but not `@weekly`"),
            ("0 0 29 2 *", "it is valid, it just only fires in leap years"),
            ("30 2 * * 1#1", "first Monday of the month, `#` syntax"),
        )
    )
    name = c.pick(("month-end-close", "partner-sync", "weekly-cleanup", "leap-report", "digest-mail"))
    trace = md(
        f"""
        Traceback (most recent call last):
          File "/srv/app/.venv/bin/orbit", line 8, in <module>
            sys.exit(main())
          File "/srv/app/.venv/lib/python{c.python[:4]}/site-packages/orbit/cli/main.py", line 61, in main
            return app(prog_name="orbit")
          File "/srv/app/.venv/lib/python{c.python[:4]}/site-packages/orbit/scheduler/loop.py", line 88, in load_schedules
            entry.cron = CronExpression.parse(spec["cron"], tz=self.timezone)
          File "/srv/app/.venv/lib/python{c.python[:4]}/site-packages/orbit/scheduler/cron.py", line 143, in parse
            raise CronParseError(f"ORB-1401 CronParseError: {{field}} field {{value!r}} is not valid")
        orbit.errors.CronParseError: ORB-1401 CronParseError: schedule '{name}': cannot parse '{expr}'
        """
    )
    body = md(
        f"""
        The scheduler refuses to start with this schedule:

        ```toml
        [[scheduler.schedules]]
        name = "{name}"
        cron = "{expr}"
        job = "{c.job}"
        ```

        ```
        {{trace}}
        ```

        {why}. {c.env()}.

        Two things: (1) is this expression meant to be supported, and (2) one bad schedule takes the
        whole scheduler down, so none of our other 30 schedules run either. Could it skip just that one?
        """
    ).replace("{trace}", trace)
    supported = expr in ("0 9 * * mon-fri", "0 0 29 2 *", "@weekly")
    answer = (
        f"`{expr}` should parse; that is a bug in the field parser. Fixed in {c.fix}, with a test."
        if supported
        else f"`{expr}` is not standard five-field cron and Orbit does not support it; the error is right, "
        "but it should name the field. We'll improve the message."
    )
    thread = [
        ("maintainer", answer),
        (
            "maintainer2",
            "On (2): that is deliberate. The scheduler refuses to start (exit 3) so that no schedule is "
            "silently dropped; a skipped billing schedule is worse than a loud crash. Run "
            "`orbit config check` in CI to catch this before a deploy.",
        ),
        ("reporter", "Fair, adding `orbit config check` to the pipeline."),
    ]
    return Draft(
        title=c.pick(
            (
                f"CronParseError for '{expr}'",
                f"Scheduler crashes on start: ORB-1401 for schedule {name}",
                f"'{expr}' rejected by the cron parser",
            )
        ),
        body=body,
        labels=["comp:scheduler", "type:bug", c.pick(("severity:S3", "severity:S2"))],
        thread=thread,
        closes=supported,
    )


@template
def dst_transition(c: Ctx) -> Draft:
    c.require(since="2.7.0", before="2.8.0")
    tz, day, direction = c.pick(
        (
            ("Europe/Berlin", "last Sunday of March", "forward"),
            ("America/New_York", "second Sunday of March", "forward"),
            ("Europe/London", "last Sunday of October", "back"),
            ("America/Chicago", "first Sunday of November", "back"),
            ("Australia/Sydney", "first Sunday of April", "back"),
        )
    )
    hour = c.pick(("2:30", "2:15", "1:30"))
    h, m = hour.split(":")
    what = "did not run at all" if direction == "forward" else "ran twice, an hour apart"
    body = md(
        f"""
        With `scheduler.timezone = "{tz}"` and a schedule at `{m} {h} * * *`, the job {what} on the
        {day}, when clocks went {direction}.

        ```
        {{log}}
        ```

        {c.env()}. `scheduler.catchup = "{c.pick(("none", "latest"))}"`, `misfire_grace = 60`.
        What is the intended behaviour? For us, exactly one run per calendar day would be right.
        """
    )
    msg = (
        f"ORB-1403 MissedSchedule schedule=daily-{c.job.split('.')[0]} due={hour} local time does not exist"
        if direction == "forward"
        else f"fired schedule=daily-{c.job.split('.')[0]} due={hour} fold=1"
    )
    body = body.replace(
        "{log}", c.log(60 * 24 * 3, "WARNING" if direction == "forward" else "INFO", "orbit.scheduler", msg, "s-01")
    )
    thread = [
        (
            "maintainer",
            md(
                """
                The scheduler computes fire times in local time and converts to UTC. For a local time that
                does not exist (spring forward) we skip, and for one that occurs twice (fall back) we fire
                for both folds. Neither is what most people want. The plan: spring-forward fires at the
                first valid instant after the gap, fall-back fires only on the first fold.
                """
            ),
        ),
        ("other", "+1, we hit the same with Europe/Madrid. We moved our schedules to UTC as a workaround."),
        ("maintainer2", f"Implemented as described, with a note in the scheduling docs. Fixed in {c.fix}."),
    ]
    return Draft(
        title=c.pick(
            (
                f"Daily job {what} on DST change ({tz})",
                f"scheduler.timezone = {tz}: schedule at {hour} misbehaves when clocks go {direction}",
            )
        ),
        body=body,
        labels=["comp:scheduler", "type:bug", "severity:S3"],
        thread=thread,
        closes=c.chance(0.8),
        last_resolves=True,
    )


@template
def worker_shutdown_timeout(c: Ctx) -> Draft:
    grace = c.pick((30, 60, 90, 120))
    k8s = c.pick((30, 25, 20)) if grace == 30 else c.pick((30, 45, 60))
    job_id = c.jid()
    body = md(
        f"""
        During rolling deploys on Kubernetes, jobs that are running when a worker pod stops are only
        re-run after their lease expires ({c.pick((15, 20, 30))} minutes later). Our pods have
        `terminationGracePeriodSeconds: {k8s}` and the worker has `worker.shutdown_grace = {grace}`.

        Last lines of a stopped pod:

        ```
        {{log1}}
        {{log2}}
        ```

        and then nothing: no ORB-1503 ShutdownTimeout, no "released lease" line. The jobs are
        `{c.job}` and take 2-4 minutes, so they cannot finish within the grace period anyway.

        {c.env()}.
        """
    )
    body = body.replace(
        "{log1}", c.log(10, "INFO", "orbit.worker", f"SIGTERM received, draining (shutdown_grace={grace}s) running=3")
    ).replace("{log2}", c.log(9.8, "INFO", "orbit.worker", f"finished job={c.job} id={job_id} status=ok"))
    thread = [
        (
            "maintainer",
            md(
                f"""
                Kubernetes sends SIGKILL {k8s} s after SIGTERM. The worker only releases the leases of
                unfinished jobs when `shutdown_grace` ({grace} s) ends, logging ORB-1503, so it is killed
                before it gets there and the leases simply run out. Set `terminationGracePeriodSeconds` to
                `shutdown_grace` plus 10-15 s (the deployment docs have an example).
                """
            ),
        ),
        (
            "reporter",
            f"Set it to {grace + 15}: now we see ORB-1503 with `released=2` and the jobs restart within seconds.",
        ),
        (
            "maintainer2",
            "The worker could also log a warning at start-up when it detects a Kubernetes pod whose grace "
            "period is shorter than `shutdown_grace`. Closing this one as answered.",
        ),
    ]
    return Draft(
        title=c.pick(
            (
                "Jobs stopped during a rolling deploy only re-run after the lease expires",
                f"No ORB-1503 on shutdown with shutdown_grace={grace} on Kubernetes, leases not released",
                f"Worker pods killed before releasing leases (terminationGracePeriodSeconds={k8s})",
            )
        ),
        body=body,
        labels=["comp:worker", c.pick(("type:bug", "type:question")), "severity:S3"],
        thread=thread,
        closes=c.chance(0.7),
        last_resolves=True,
    )


@template
def serialization_error(c: Ctx) -> Draft:
    kind, value = c.pick(
        (
            ("datetime", "datetime.now(tz=UTC)"),
            ("Decimal", "Decimal('19.99')"),
            ("UUID", "uuid4()"),
            ("set", "{'a', 'b'}"),
            ("bytes", "b'\\x89PNG...'"),
        )
    )
    phrase = "bytes" if kind == "bytes" else f"a {kind}"
    body = md(
        f"""
        Enqueueing from application code fails when the payload contains a `{kind}`:

        ```python
        from orbit import Client

        client = Client.from_config("orbit.toml")
        client.enqueue("{c.job}", payload={{"run_at": {value}, "tenant": 42}})
        ```

        ```
        Traceback (most recent call last):
          File "/app/tasks/schedule.py", line 31, in trigger
            client.enqueue("{c.job}", payload=payload)
          File "/app/.venv/lib/python{c.python[:4]}/site-packages/orbit/client.py", line 97, in enqueue
            data = serialization.dumps(payload)
          File "/app/.venv/lib/python{c.python[:4]}/site-packages/orbit/serialization.py", line 44, in dumps
            raise SerializationError(f"ORB-1205 SerializationError: {{exc}}") from exc
        orbit.errors.SerializationError: ORB-1205 SerializationError: Object of type {kind} is not JSON serializable
        ```

        {c.env()}. Is there a hook to register an encoder, or should we convert before enqueueing?
        """
    )
    thread = [
        (
            "maintainer",
            md(
                f"""
                Payloads are JSON on purpose (any worker, any language version can read them). Convert
                before enqueueing: `{kind}` -> {"an ISO-8601 string" if kind == "datetime" else "a string or a list"}.
                We could accept an `encoder=` on the client, but the worker side would need the matching
                decoder, which is where people get hurt.
                """
            ),
        ),
        ("reporter", "Fair enough, converting on our side. Maybe the error could say which key failed?"),
        ("maintainer", f"Good idea: the message now includes the key path (`payload.run_at`). Lands in {c.fix}."),
    ]
    return Draft(
        title=c.pick(
            (
                f"ORB-1205 SerializationError when the payload contains {phrase}",
                f"Cannot enqueue payloads containing {phrase}",
            )
        ),
        body=body,
        labels=["comp:core", "type:question"],
        thread=thread,
        closes=c.chance(0.7),
        last_resolves=True,
    )


@template
def lease_clock_skew(c: Ctx) -> Draft:
    c.require(since="2.8.0")
    skew = c.pick((-7.9, 12.5, -31.0, 95.3, 6.4))
    where = c.pick(("VMs on an on-prem vSphere cluster", "Raspberry Pi 4 edge nodes", "hosts resumed from suspend"))
    body = md(
        f"""
        Since upgrading to {c.version}, two of our workers log this every few minutes:

        ```
        {{log}}
        ```

        and the same two are the only ones with ORB-1101 LeaseExpired on long jobs. The hosts are
        {where}; chrony turned out not to be running on them. Fixing NTP fixed it, but:

        1. Why does the worker's clock matter if, as the docs say, expiry is computed on the broker?
        2. Shouldn't a skewed worker stop claiming jobs instead of only warning?

        {c.env()}.
        """
    ).replace(
        "{log}",
        c.log(
            15, "WARNING", "orbit.worker", f"ORB-1104 LeaseClockSkew skew={skew}s max=5s broker=redis://cache-1:6379/0"
        ),
    )
    thread = [
        (
            "maintainer",
            md(
                """
                (1) Expiry is on the broker's clock, but the heartbeat decides *when* to renew on the
                worker's clock. With a large skew the worker believes it has more time than it has, so
                renewals arrive late and the lease runs out. `lease.max_clock_skew` (5 s) is the threshold
                for the warning.

                (2) We discussed it for 2.8 and chose a warning: refusing work on a skew of 6 s would take
                whole fleets down during an NTP hiccup. 3.0 schedules renewals from the broker's time.
                """
            ),
        ),
        ("reporter", "Makes sense. We now alert on ORB-1104 in our log pipeline."),
        ("maintainer2", "Closing as answered; the leases page now explains (1) in a paragraph."),
    ]
    return Draft(
        title=c.pick(
            (
                "ORB-1104 LeaseClockSkew: why does the worker's clock matter?",
                f"LeaseClockSkew warnings and ORB-1101 on {where.split(' (')[0]}",
            )
        ),
        body=body,
        labels=["comp:core", "type:question"],
        thread=thread,
        closes=c.chance(0.7),
        last_resolves=True,
    )


@template
def lease_stolen(c: Ctx) -> Draft:
    job_id = c.jid()
    body = md(
        f"""
        After we started building worker VMs from one golden image, pairs of workers fight over jobs,
        without any ORB-1101 before it:

        ```
        {{log1}}
        {{log2}}
        ```

        Both lines come from different hosts but show the same worker id `{c.worker}`. Our image has
        this in `/etc/orbit/orbit.toml`, baked in by Packer:

        ```toml
        [worker]
        id = "{c.worker}"
        concurrency = {c.pick((2, 4, 8))}
        ```

        {c.env()}, broker {c.pick((c.redis_name, c.postgres_name))}.
        """
    )
    body = body.replace(
        "{log1}", c.log(40, "INFO", "orbit.worker", f"started job={c.job} id={job_id} attempt=1")
    ).replace(
        "{log2}",
        c.log(
            25,
            "ERROR",
            "orbit.worker",
            f"ORB-1103 LeaseStolen job={c.job} id={job_id} owner={c.worker} token=4 expected_token=3",
        ),
    )
    thread = [
        (
            "maintainer",
            md(
                """
                That's it: `worker.id` copied across hosts. Two workers with one id renew each other's
                leases with the wrong token, hence ORB-1103 without an expiry first. Remove `id` from the
                file and each worker generates a unique one.
                """
            ),
        ),
        ("reporter", "Removed it from the image, no more LeaseStolen. Could Orbit detect a duplicate id at start?"),
        (
            "maintainer",
            f"Yes: a worker now refuses to start when a live worker with the same id is registered. In {c.fix}.",
        ),
    ]
    return Draft(
        title=c.pick(
            (
                "ORB-1103 LeaseStolen between workers built from one image",
                f"Two workers with worker.id = {c.worker} steal each other's leases",
            )
        ),
        body=body,
        labels=["comp:worker", "type:bug", "severity:S2"],
        thread=thread,
        closes=c.chance(0.7),
        last_resolves=True,
    )


@template
def redis_auth(c: Ctx) -> Draft:
    setup = c.pick(
        (
            (
                "an ACL user `orbit` with `~orbit:* +@stream +@sortedset`",
                "NOPERM this user has no permissions to run the 'evalsha' command",
            ),
            ("`rediss://` with a private CA", "certificate verify failed: unable to get local issuer certificate"),
            ("a password containing `@` and `/`", "WRONGPASS invalid username-password pair"),
        )
    )
    what, detail = setup
    body = md(
        f"""
        We are moving to {what} and the worker exits right away:

        ```
        {{log}}
        ```

        Broker: {c.redis_name}, {c.env()}.

        ```toml
        [broker]
        url = "{c.pick(("rediss", "redis"))}://orbit:${{REDIS_PASSWORD}}@cache.internal:6380/1"
        ```

        What does Orbit need on the Redis side?
        """
    ).replace("{log}", c.log(2, "ERROR", "orbit.broker.redis", f"ORB-1302 BrokerAuthFailed {detail}"))
    answers = {
        "evalsha": "Orbit uses a few Lua scripts for atomic claim/renew, so the ACL needs `+@scripting` "
        "(or at least `+evalsha +script|load`) besides streams and sorted sets. The brokers page lists the "
        "minimal ACL.",
        "certificate": "Pass the CA with `?ssl_ca_certs=/etc/ssl/private-ca.pem` on the URL; Orbit hands "
        "query parameters to redis-py.",
        "WRONGPASS": "Characters like `@` and `/` must be percent-encoded in a URL (`%40`, `%2F`). Or use "
        "`ORBIT_BROKER_PASSWORD` so the URL does not carry the password at all.",
    }
    key = next(k for k in answers if k in detail)
    thread = [
        ("maintainer", answers[key]),
        ("reporter", "That was it, thanks. Closing."),
    ]
    return Draft(
        title=c.pick(
            (
                {
                    "evalsha": "ORB-1302 BrokerAuthFailed with a restricted Redis ACL user",
                    "certificate": "ORB-1302 BrokerAuthFailed with rediss:// and a private CA",
                    "WRONGPASS": "WRONGPASS (ORB-1302) with a password containing @ and /",
                }[key],
                f"Worker cannot authenticate to {c.redis_name} after moving to ACLs/TLS",
            )
        ),
        body=body,
        labels=["comp:broker-redis", "type:question"],
        thread=thread,
        closes=True,
    )


@template
def postgres_serialization_failure(c: Ctx) -> Draft:
    rate = c.pick((3, 8, 15, 40))
    body = md(
        f"""
        Our DBA set `default_transaction_isolation = 'serializable'` on the cluster. Since then
        about {rate}% of claims fail:

        ```
        {{log}}
        ```

        ```
        Traceback (most recent call last):
          File "/opt/orbit/lib/python{c.python[:4]}/site-packages/orbit/brokers/postgres.py", line 233, in claim
            cur.execute(CLAIM_SQL, (queue, self.worker_id, lease_until, batch))
          File "/opt/orbit/lib/python{c.python[:4]}/site-packages/psycopg/cursor.py", line 732, in execute
            raise ex.with_traceback(None)
        psycopg.errors.SerializationFailure: could not serialize access due to read/write dependencies among transactions
        ```

        {c.postgres_name}, {c.env()}, {c.pick((12, 24, 40))} workers.
        """
    ).replace(
        "{log}",
        c.log(
            7, "WARNING", "orbit.broker.postgres", "ORB-1305 PostgresSerializationFailure query=claim_next retry=1/3"
        ),
    )
    thread = [
        (
            "maintainer",
            md(
                """
                The claim query is designed for READ COMMITTED: `FOR UPDATE SKIP LOCKED` gives each worker a
                different row without serialization. Under SERIALIZABLE, concurrent claims conflict by
                design. Orbit retries them (that is the `retry=1/3`), so jobs are not lost, but it is wasted
                work. The broker should set its own isolation level per session instead of inheriting the
                database default.
                """
            ),
        ),
        ("reporter", "Our DBA agrees if it is only Orbit's sessions. Can Orbit set it itself?"),
        (
            "maintainer2",
            "For now: `ALTER ROLE orbit SET default_transaction_isolation = 'read committed'` scopes it to "
            "Orbit's role, and the brokers page says so under caveats. Setting it per session in the broker "
            "is on the list.",
        ),
    ]
    return Draft(
        title=c.pick(
            (
                "ORB-1305 on most claims when the database default isolation is serializable",
                "Postgres broker should not inherit default_transaction_isolation",
            )
        ),
        body=body,
        labels=["comp:broker-postgres", "type:bug", "severity:S3"],
        thread=thread,
        closes=c.chance(0.6),
        last_resolves=True,
    )


@template
def migration_pending(c: Ctx) -> Draft:
    c.require(before="2.8.2")  # later reporters are past the last schema change of 2.x
    target, old, new = ("2.7.0", 7, 9) if c.version < "2.7" else ("2.8.0", 9, 10)
    pending = c.chance(0.5)
    if pending:
        log = c.log(
            3, "CRITICAL", "orbit.worker", f"ORB-1701 MigrationPending schema={old} required={new} run `orbit migrate`"
        )
        story = "and the old pods keep running fine"
    else:
        log = c.log(
            3, "CRITICAL", "orbit.worker", f"ORB-1702 SchemaVersionMismatch schema={new} code_expects={old}", c.wid()
        )
        story = "after someone ran `orbit migrate` from the new image, the *old* pods started failing"
    code = "ORB-1701 MigrationPending" if pending else "ORB-1702 SchemaVersionMismatch"
    body = md(
        f"""
        We upgrade workers with a rolling deploy (helm, `maxUnavailable: 1`). Upgrading to {target}
        {"the new pods crash-loop" if pending else "went wrong halfway"}:

        ```
        {{log}}
        ```

        {story}. What is the supported order for upgrading workers and running migrations on Postgres
        ({c.postgres})?
        """
    ).replace("{log}", log)
    thread = [
        (
            "maintainer",
            md(
                """
                The order is in the upgrading guide: drain the workers that run the old version, run
                `orbit migrate` once (a Kubernetes Job or a helm pre-upgrade hook), then start the new
                workers. Old and new workers cannot share a schema during the rollout.
                """
            ),
        ),
        ("reporter", "We missed that page. A pre-upgrade hook in the chart would save people from this."),
        ("maintainer2", "We'll ship the hook in the example chart; closing as answered."),
    ]
    return Draft(
        title=c.pick(
            (f"{code} during rolling upgrade to {target}", f"Upgrade to {target}: pods crash with {code.split()[1]}")
        ),
        body=body,
        labels=["comp:broker-postgres", "type:question"],
        thread=thread,
        closes=True,
    )


@template
def unknown_timezone(c: Ctx) -> Draft:
    tz = c.pick(("US/Pacific", "Asia/Kolkata", "Europe/Kyiv", "America/Sao_Paulo", "CET"))
    body = md(
        f"""
        ```
        {{log}}
        ```

        `scheduler.timezone = "{tz}"` works on my laptop but not in our image ({c.pick(("python:3.12-alpine", "gcr.io/distroless/python3", "debian:12-slim"))}).
        {c.env()}.
        """
    ).replace("{log}", c.log(1, "ERROR", "orbit.scheduler", f"ORB-1404 UnknownTimezone timezone={tz!r}", "s-01"))
    thread = [
        (
            "maintainer",
            "Slim images ship without the system tz database. Install `tzdata` (the PyPI package works "
            "everywhere: `pip install tzdata`), and zoneinfo will find it.",
        ),
        ("reporter", "Adding `tzdata` to requirements fixed it."),
        (
            "maintainer2",
            "We now depend on `tzdata` on all platforms and the error suggests it. Closing.",
        ),
    ]
    return Draft(
        title=f"ORB-1404 UnknownTimezone for {tz} in a slim container image",
        body=body,
        labels=["comp:scheduler", "type:question"],
        thread=thread,
        closes=c.chance(0.8),
        last_resolves=True,
    )


@template
def schedule_drift(c: Ctx) -> Draft:
    drift = c.pick((4, 9, 17, 38))
    count = c.pick((800, 1500, 2400, 5000))
    body = md(
        f"""
        With {count} schedules (mostly `* * * * *` per tenant) the scheduler falls behind during the
        first seconds of every minute and warns:

        ```
        {{log}}
        ```

        `scheduler.tick_interval = 1`, scheduler on {c.pick(("2 vCPU", "1 vCPU", "4 vCPU"))},
        broker {c.pick((c.redis_name, c.postgres_name))}. {c.env()}.
        CPU of the scheduler process sits at 100% for ~{drift} s each minute.
        """
    ).replace(
        "{log}",
        c.log(2, "WARNING", "orbit.scheduler", f"ORB-1402 ScheduleDrift behind={drift}.4s due={count} tick=1s", "s-01"),
    )
    thread = [
        (
            "maintainer",
            md(
                f"""
                Every schedule due in the same tick is enqueued one round-trip at a time. {count} enqueues
                at ~{max(1, drift * 1000 // count)} ms each explains the drift. Batching the enqueues of one
                tick into a pipeline (Redis) / one multi-row INSERT (Postgres) should bring it well under a
                second.
                """
            ),
        ),
        ("reporter", "Happy to test a branch."),
        ("maintainer", f"Batching merged; on a copy of your schedule set the tick now takes ~300 ms. In {c.fix}."),
    ]
    return Draft(
        title=c.pick(
            (
                f"ScheduleDrift (ORB-1402) with {count} per-minute schedules",
                "Scheduler falls behind at the top of every minute",
            )
        ),
        body=body,
        labels=["comp:scheduler", "type:bug", "severity:S3"],
        thread=thread,
        closes=c.chance(0.6),
        last_resolves=True,
    )


@template
def catchup_flood(c: Ctx) -> Draft:
    c.require(since="2.7.0")
    hours = c.pick((3, 6, 14, 30))
    body = md(
        f"""
        Our scheduler was down for {hours} hours ({c.pick(("a bad deploy", "a node drain that nobody noticed", "a broken secret"))}).
        When it came back with `scheduler.catchup = "all"`, it enqueued every missed run of every
        schedule at once and the queue hit its limit:

        ```
        {{log}}
        ```

        We do want missed runs for some schedules (billing) but not for others (cache warm-up every
        minute). Is there a per-schedule catch-up setting?
        """
    ).replace(
        "{log}",
        c.log(5, "ERROR", "orbit.scheduler", "ORB-1306 QueueFull queue=default depth=100000 max=100000", "s-01"),
    )
    thread = [
        (
            "maintainer",
            md(
                """
                Not yet: `scheduler.catchup` is global ("none", "latest" or "all"). For minute-level
                schedules "latest" is almost always what you want. A per-schedule `catchup` key is a
                reasonable feature; the scheduler already has the information.
                """
            ),
        ),
        ("other", "+1 for per-schedule catch-up. We run two schedulers just to get two policies."),
    ]
    return Draft(
        title=c.pick(("Per-schedule catch-up policy", 'catchup = "all" floods the queue after downtime (ORB-1306)')),
        body=body,
        labels=["comp:scheduler", "type:feature", "severity:S4"],
        thread=thread,
        closes=False,
    )


@template
def heartbeat_lost(c: Ctx) -> Draft:
    c.require(since="2.7.0")
    short, runtime = c.pick(
        (
            ("gevent", "gevent (monkey-patched)"),
            ("eventlet", "eventlet (monkey-patched)"),
            ("gevent", "gunicorn's gevent worker class"),
            ("eventlet", "eventlet.monkey_patch() in our entry point"),
        )
    )
    body = md(
        f"""
        Workers running {c.job} under {runtime} get marked dead by the scheduler while they are clearly
        alive, and their jobs run a second time once the leases expire:

        ```
        {{log}}
        ```

        {c.env()}. `worker.concurrency = {c.pick((4, 8, 16))}`.
        """
    ).replace(
        "{log}",
        c.log(9, "WARNING", "orbit.scheduler", f"ORB-1501 WorkerHeartbeatLost worker={c.worker} last_seen=74s", "s-01"),
    )
    thread = [
        (
            "maintainer",
            f"The heartbeat is a real OS thread. Under {runtime} it can be blocked: monkey-patched threading "
            "turns it into a green thread, and a blocking call starves it. Which version of the patching "
            "library, and do you patch before importing orbit?",
        ),
        ("reporter", f"We patch first thing in the entry point, {short} {c.pick(('24.2.1', '0.36.1', '23.9.1'))}."),
        (
            "maintainer2",
            "Then the heartbeat is a greenlet and any blocking C call stops it. We now create the heartbeat "
            "with the original `threading` module even when it is patched. Please retry on main.",
        ),
        ("reporter", "No more ORB-1501 on main after two days of load. Thanks!"),
    ]
    return Draft(
        title=c.pick(
            (
                f"ORB-1501 WorkerHeartbeatLost with {short}",
                f"Live workers running {c.job} reported dead under {short}, jobs re-run",
            )
        ),
        body=body,
        labels=["comp:worker", "type:bug", "severity:S2"],
        thread=thread,
        closes=c.chance(0.7),
        last_resolves=True,
    )


@template
def payload_too_large(c: Ctx) -> Draft:
    size_kb = c.pick((700, 1800, 4096, 12000))
    what = c.pick(("a list of customer ids", "a rendered HTML report", "an embedded CSV", "a batch of events"))
    body = md(
        f"""
        ```
        {{log}}
        ```

        We pass {what} as the payload of `{c.job}`, about {size_kb} KB on big days. We can raise
        `broker.max_payload_kb`, but should we? What is the recommended pattern for big inputs?
        {c.env()}.
        """
    ).replace(
        "{log}",
        c.log(
            0.5, "ERROR", "orbit.client", f"ORB-1203 PayloadTooLarge job={c.job} size={size_kb * 1024} max={512 * 1024}"
        ),
    )
    thread = [
        (
            "maintainer",
            md(
                """
                You can raise it, but the payload is stored in the broker, copied on every retry and held
                in memory by every worker that claims it. Past a few hundred KB, put the data in object
                storage or a table and pass a reference (a key and a checksum) in the payload; the job
                fetches it.
                """
            ),
        ),
        ("reporter", "Makes sense, we switched to S3 keys."),
    ]
    return Draft(
        title=c.pick(
            (
                f"ORB-1203 PayloadTooLarge when passing {what} to {c.job}",
                f"{size_kb} KB payload rejected with PayloadTooLarge: raise max_payload_kb?",
            )
        ),
        body=body,
        labels=["comp:core", "type:question"],
        thread=thread,
        closes=True,
    )


@template
def duplicate_job_id(c: Ctx) -> Draft:
    c.require(since="2.8.0")
    body = md(
        f"""
        We enqueue with an idempotency key so retries of our HTTP handler don't create duplicates:

        ```python
        client.enqueue("{c.job}", payload=order, idempotency_key=f"order-{{order['id']}}")
        ```

        That works while the first job is pending: the second enqueue logs ORB-1204 and returns the same
        id. But when the handler retries *after* the first job finished (our handler's retry budget is
        10 minutes), a second job is created and runs again:

        ```
        {{log1}}
        {{log2}}
        ```

        Is the key only checked against unfinished jobs? {c.env()}, broker
        {c.pick((c.redis_name, c.postgres_name))}.
        """
    )
    key = f"order-{c.rng.randrange(10000, 99999)}"
    body = body.replace(
        "{log1}",
        c.log(
            12, "INFO", "orbit.client", f"ORB-1204 DuplicateJobId job={c.job} idempotency_key={key} existing={c.jid()}"
        ),
    ).replace("{log2}", c.log(2, "INFO", "orbit.client", f"enqueued job={c.job} idempotency_key={key} id={c.jid()}"))
    thread = [
        (
            "maintainer",
            md(
                """
                Yes, by design: the key deduplicates against jobs that exist and are not finished. Keeping
                every key forever would grow without bound. For "at most once per order" the check has to
                live in your data (a unique constraint on the order's side effect), which you need anyway
                because delivery is at least once.
                """
            ),
        ),
        ("reporter", "OK. A retention window for keys (say 24 h) would cover our case, though."),
        ("maintainer2", "That's a reasonable feature; the docs now state the current rule explicitly."),
    ]
    return Draft(
        title=c.pick(
            (
                "idempotency_key does not deduplicate against finished jobs",
                f"Second {c.job} job created although the idempotency_key was used before",
            )
        ),
        body=body,
        labels=["comp:core", "type:question"],
        thread=thread,
        closes=c.chance(0.6),
        last_resolves=True,
    )


@template
def timeout_and_retries(c: Ctx) -> Draft:
    timeout = c.pick((60, 120, 300, 600))
    attempts = c.pick((3, 5))
    body = md(
        f"""
        `{c.job}` has `timeout = {timeout}` and our config has:

        ```toml
        [retries]
        max_attempts = {attempts}
        backoff = "{c.pick(("exponential", "fixed"))}"
        base_delay = {c.pick((10, 30))}
        ```

        When the job times out we see:

        ```
        {{log1}}
        {{log2}}
        ```

        Is a timeout counted as an attempt? And is there a way to not retry on timeout but still retry on
        exceptions? A timed-out {c.job} usually means the upstream is down, and retrying makes it worse.
        {c.env()}.
        """
    )
    body = body.replace(
        "{log1}",
        c.log(
            40, "WARNING", "orbit.worker", f"ORB-1201 JobTimeout job={c.job} timeout={timeout}s attempt=1/{attempts}"
        ),
    )
    body = body.replace(
        "{log2}", c.log(3, "ERROR", "orbit.worker", f"ORB-1202 RetriesExhausted job={c.job} attempts={attempts}")
    )
    thread = [
        (
            "maintainer",
            "Yes, a timeout is an attempt like any failure. There is no per-error retry policy yet; the "
            "usual workaround is to catch the upstream failure in the job and raise "
            "`orbit.NoRetry(...)`, which fails the job without further attempts.",
        ),
        ("reporter", "`NoRetry` covers it for exceptions, but a timeout never reaches our code."),
        (
            "maintainer2",
            "True. Proposal: `retries.retry_on_timeout = true|false` (default true). Keeping this open as a "
            "feature request.",
        ),
    ]
    return Draft(
        title=c.pick(
            ("Option to not retry after ORB-1201 JobTimeout", "Are timeouts counted against retries.max_attempts?")
        ),
        body=body,
        labels=["comp:core", c.pick(("type:question", "type:feature"))],
        thread=thread,
        closes=False,
    )


@template
def api_unauthorized(c: Ctx) -> Draft:
    proxy = c.pick(("nginx 1.25", "Traefik 3.0", "an AWS ALB", "Caddy 2.7"))
    body = md(
        f"""
        `orbit api` behind {proxy} rejects every request with 401, while the same token works against
        port 7070 directly:

        ```
        $ curl -H "Authorization: Bearer $ORBIT_API_TOKEN" https://orbit.example.internal/orbit/v1/jobs
        {{"error": {{"code": "ORB-1601", "name": "ApiUnauthorized", "message": "missing or invalid token"}}}}
        ```

        ```
        {{log}}
        ```

        {c.env()}.
        """
    ).replace(
        "{log}", c.log(1, "WARNING", "orbit.api", "ORB-1601 ApiUnauthorized path=/jobs auth_header=absent", "api-1")
    )
    thread = [
        (
            "maintainer",
            f"`auth_header=absent` means the header never reached Orbit. Some setups of {proxy} drop "
            "`Authorization` on redirects (http -> https) or when forwarding to a different host. Does "
            "`curl -v` show a 301 first?",
        ),
        ("reporter", "Yes! A redirect from /orbit to /orbit/ dropped it. Calling the full path directly works."),
        ("maintainer", "Good. We now also accept the token in `X-Orbit-Token`, which proxies leave alone."),
    ]
    return Draft(
        title=c.pick(
            (f"ORB-1601 ApiUnauthorized behind {proxy}", "API returns 401 with a valid token through a reverse proxy")
        ),
        body=body,
        labels=["comp:api", "type:bug", "severity:S3"],
        thread=thread,
        closes=c.chance(0.7),
        last_resolves=True,
    )


@template
def api_rate_limited(c: Ctx) -> Draft:
    c.require(since="2.8.0")
    tabs = c.pick((15, 30, 60))
    body = md(
        f"""
        Our Grafana dashboard polls `GET /v1/queues` every 5 s from ~{tabs} browser tabs sharing one
        read-only token, and the API starts answering 429:

        ```
        HTTP/1.1 429 Too Many Requests
        Retry-After: 7
        {{"error": {{"code": "ORB-1602", "name": "ApiRateLimited", "message": "rate limit 600/min exceeded for token dashboard"}}}}
        ```

        Can the limit be raised for one token only? The tokens that enqueue should keep the default.
        {c.env()}.
        """
    )
    thread = [
        (
            "maintainer",
            "Yes: `api.rate_limit` (600 requests per minute) is the default, and a token entry in "
            "`api.tokens_file` can set its own `rate_limit`. Give the dashboard token 3000.",
        ),
        ("other", "Caching the queue stats server-side for a second would also fix most dashboard cases."),
        ("maintainer2", "Agreed, a 1 s cache on the stats endpoints is cheap. Keeping this open for that."),
    ]
    return Draft(
        title=c.pick(
            (
                f"ORB-1602 ApiRateLimited from a dashboard with {tabs} tabs",
                "Raise the API rate limit for a read-only dashboard token",
            )
        ),
        body=body,
        labels=["comp:api", c.pick(("type:question", "type:feature")), "severity:S4"],
        thread=thread,
        closes=False,
    )


@template
def cli_unknown_command(c: Ctx) -> Draft:
    typo, meant = c.pick(
        (
            ("orbit jobs rm", "orbit jobs cancel"),
            ("orbit migrations", "orbit migrate"),
            ("orbit schedules ls", "orbit schedule ls"),
            ("orbit lease ls", "orbit leases ls"),
            ("orbit db upgrade", "orbit migrate"),
        )
    )
    body = md(
        f"""
        ```
        $ {typo} default
        Error: ORB-1801 UnknownCommand: '{typo.split()[-1]}'
        ```

        It took me a while to find that the right spelling is `{meant}`. Could the CLI suggest the closest
        command or option, like git does ("did you mean ...?")?

        {c.env()}.
        """
    )
    thread = [
        ("maintainer", "Yes, easy win: difflib against the known commands/options. PR welcome!"),
        ("reporter", "I'll send one."),
        ("maintainer2", f"Merged, thanks! Suggestions ship in {c.fix}."),
    ]
    return Draft(
        title=c.pick(("CLI: suggest the closest command on ORB-1801", f"'{typo}' gives UnknownCommand without a hint")),
        body=body,
        labels=["comp:cli", "type:feature", "severity:S4"],
        thread=thread,
        closes=c.chance(0.7),
        last_resolves=True,
    )


@template
def config_errors(c: Ctx) -> Draft:
    case = c.pick(("typo_env", "toml_type", "url_missing"))
    if case == "typo_env":
        body = md(
            f"""
            I set `ORBIT_WORKER_CONCURENCY=16` (typo, one R) and the worker ran with concurrency 4 for a
            week. There is an ORB-1003 UnknownConfigKey warning, but it is one line among ~200 at start-up
            and nobody saw it:

            ```
            {{log}}
            ```

            Could unknown keys be fatal, at least optionally? {c.env()}.
            """
        ).replace(
            "{log}",
            c.log(
                60 * 24 * 7,
                "WARNING",
                "orbit.config",
                "ORB-1003 UnknownConfigKey ORBIT_WORKER_CONCURENCY (did you mean worker.concurrency?)",
            ),
        )
        title = "Misspelled ORBIT_ variable only produces a warning (ORB-1003)"
        answer = (
            "In 3.0 unknown keys are errors (exit 3). For 2.x, `orbit config check --strict` exits non-zero "
            "on ORB-1003; running it in CI or as an init container catches typos before they ship."
        )
    elif case == "toml_type":
        body = md(
            f"""
            ```
            $ orbit worker
            Error: ORB-1001 ConfigInvalid: lease.duration: expected an integer number of seconds, got '15m'
            ```

            ```toml
            [lease]
            duration = "15m"
            ```

            Could durations accept units (`"15m"`, `"1h"`)? Every other tool we run does. {c.env()}.
            """
        )
        title = "Accept durations with units in orbit.toml (ORB-1001 for '15m')"
        answer = "Reasonable. We'd accept both integers (seconds) and strings with s/m/h units, everywhere a duration appears."
    else:
        body = md(
            f"""
            In docker-compose the worker exits with:

            ```
            Error: ORB-1002 BrokerUrlMissing: set broker.url in orbit.toml or ORBIT_BROKER_URL
            ```

            but `ORBIT_BROKER_URL` *is* set in the compose file (`environment: - ORBIT_BROKER_URL=${{REDIS_URL}}`).
            {c.env()}.
            """
        )
        title = "ORB-1002 BrokerUrlMissing although ORBIT_BROKER_URL is set"
        answer = (
            "If `REDIS_URL` is not defined where you run `docker compose up`, compose substitutes an empty "
            'string and Orbit sees `ORBIT_BROKER_URL=` (empty). We\'ll say "set but empty" in the message.'
        )
    thread = [("maintainer", answer), ("reporter", "Thanks, that would have saved me an hour.")]
    return Draft(
        title=title,
        body=body,
        labels=["comp:core", "type:feature" if case == "toml_type" else "type:bug", "severity:S4"],
        thread=thread,
        closes=case == "url_missing",
        last_resolves=True,
    )


@template
def docs_gap(c: Ctx) -> Draft:
    page, title, gap = c.pick(
        (
            (
                "leases",
                "Docs: what margin between lease.renew_interval and lease.duration is safe?",
                "how `lease.renew_interval` relates to `lease.duration`: how much margin is enough",
            ),
            (
                "brokers",
                "Docs: mention that LISTEN/NOTIFY does not work through PgBouncer transaction pooling",
                "that LISTEN/NOTIFY does not work through PgBouncer in transaction pooling mode",
            ),
            (
                "deployment",
                "Docs: Kubernetes example for terminationGracePeriodSeconds vs worker.shutdown_grace",
                "how `terminationGracePeriodSeconds` should relate to `worker.shutdown_grace`",
            ),
            (
                "upgrading",
                "Docs: say that workers must be drained before orbit migrate",
                "that workers of the old version must be drained before `orbit migrate` on Postgres",
            ),
            (
                "configuration",
                "Docs: how do ORBIT_<SECTION>_<KEY> variables map to nested keys?",
                "how `ORBIT_<SECTION>_<KEY>` environment variables map to keys with underscores",
            ),
            (
                "scheduling",
                "Docs: misfire_grace and catchup together are confusing",
                "what `scheduler.misfire_grace` does together with `scheduler.catchup`",
            ),
            (
                "troubleshooting",
                "Docs: troubleshooting entry for ORB-1501 WorkerHeartbeatLost",
                "what to do about ORB-1501 WorkerHeartbeatLost when the worker is clearly alive",
            ),
        )
    )
    body = md(
        f"""
        The {page} page does not explain {gap}. {
            c.pick(
                (
                    "I had to read the source to find out.",
                    "We learned it the hard way in production.",
                    "Two people on our team read the page and came to different conclusions.",
                )
            )
        } A short paragraph, and maybe an example, would help the next person.
        """
    )
    thread = [
        ("maintainer", "Good catch, thanks. Would you like to write it? The docs are Markdown in `docs/`."),
        ("reporter", c.pick(("Sure, PR coming.", "I'd rather not, not sure I understood all of it.", "Opened a PR."))),
        ("maintainer2", f"Merged, the {page} page is updated."),
    ]
    return Draft(title=title, body=body, labels=["comp:docs", "type:docs"], thread=thread, closes=True)


@template
def worker_oom(c: Ctx) -> Draft:
    c.require(since="2.8.0")
    limit = c.pick((512, 1024, 2048))
    concurrency = c.pick((4, 8))
    pod = c.pick((2, 3, 4))
    body = md(
        f"""
        We set `worker.max_memory_mb = {limit}` expecting a big `{c.job}` job to be killed on its own,
        but the whole pod is OOM-killed by Kubernetes instead (`OOMKilled`, exit code 137), which takes
        down the other jobs too. Sometimes we do see the expected line:

        ```
        {{log}}
        ```

        Pod memory limit is {pod} GiB, `worker.concurrency = {concurrency}`. {c.env()}.
        """
    ).replace(
        "{log}",
        c.log(
            6,
            "ERROR",
            "orbit.worker",
            f"ORB-1502 WorkerOOMKilled job={c.job} id={c.jid()} rss={limit + c.rng.randrange(5, 300)}mb max={limit}mb",
        ),
    )
    thread = [
        (
            "maintainer",
            f"`max_memory_mb` is per job child process, so the worker can use up to {limit} MB x "
            f"{concurrency} = {limit * concurrency // 1024} GiB plus its own memory. With a {pod} GiB pod limit "
            "the kernel gets there first. Either lower the concurrency or raise the pod limit above "
            "`max_memory_mb * concurrency` plus ~300 MB.",
        ),
        ("reporter", f"Lowered concurrency to {max(1, pod * 1024 // limit - 1)}: only ORB-1502 now, no pod kills."),
    ]
    return Draft(
        title=c.pick(
            (
                "Pod OOMKilled although worker.max_memory_mb is set",
                f"max_memory_mb={limit} does not prevent container OOM kills with concurrency {concurrency}",
            )
        ),
        body=body,
        labels=["comp:worker", "type:question"],
        thread=thread,
        closes=True,
    )


@template
def feature_request(c: Ctx) -> Draft:
    comp, title, text, reply = c.pick(
        (
            (
                "comp:worker",
                "Per-worker Prometheus metrics endpoint",
                "The API's `/v1/metrics` shows the broker side (queue depth, jobs per state). We'd like "
                "each worker to expose its own: jobs started/succeeded/failed per job name, renewal "
                "latency, time spent claiming.",
                "We'd take this behind a `worker.metrics_port` setting. The counters already exist internally.",
            ),
            (
                "comp:core",
                "Limit concurrency per job name across all workers",
                "`reports.render` hammers a licence server that allows 5 concurrent sessions. We want at "
                "most 5 of those jobs running cluster-wide, whatever `worker.concurrency` says.",
                "A per-name semaphore in the broker (a counter next to the leases) would do it. Needs care "
                "so an expired lease also releases its slot.",
            ),
            (
                "comp:scheduler",
                "Spread schedules that fire on the same minute (jitter)",
                "We have 400 tenants with `0 * * * *`; all 400 jobs land at :00 and the queue spikes. A "
                "per-schedule `jitter = 300` that delays each fire by a stable random offset would "
                "flatten it.",
                "Stable per schedule name (hash-based) is the right call, so runs stay evenly spaced.",
            ),
            (
                "comp:core",
                "Job dependencies (run B after A succeeds)",
                "A small DAG: `enqueue(B, after=[job_a_id])`. We fake it now by enqueueing B at the end of A.",
                "We keep saying no to a workflow engine inside Orbit, but `after=` for a single parent is "
                "small enough to consider.",
            ),
            (
                "comp:worker",
                "OpenTelemetry tracing across enqueue and execution",
                "Propagate the trace context in the job envelope so the worker span is a child of the span "
                "that enqueued it.",
                "The envelope has a `meta` dict already; putting `traceparent` there is straightforward.",
            ),
            (
                "comp:api",
                "Webhook when a job fails permanently",
                "POST to a configured URL on ORB-1202 RetriesExhausted, with the job id, name and last error.",
                "Sounds useful. Retrying webhook delivery is itself a job, which is a nice property.",
            ),
            (
                "comp:broker-redis",
                "Support Redis Cluster",
                "We only run Redis Cluster in production. Orbit's keys would need hash tags so a queue's "
                "stream and lease ZSET land on the same slot.",
                "It is a key layout change, so it belongs in 3.0, together with the other layout changes.",
            ),
            (
                "comp:cli",
                "orbit jobs tail: follow job events live",
                "Like `kubectl logs -f` for jobs: print started/finished/failed events as they happen, "
                "filtered by queue or job name.",
                "The API could stream events (server-sent events) and the CLI would be a thin client.",
            ),
        )
    )
    body = md(
        f"""
        {text}

        Running {c.version} in production.
        """
    )
    thread = [
        ("maintainer", reply),
        (
            "other",
            c.pick(
                (
                    "+1, we need this too.",
                    "Would love this.",
                    "We built an in-house version of this, happy to share notes.",
                )
            ),
        ),
    ]
    if c.chance(0.3):
        thread.append(("maintainer2", f"Landed on main, will ship with {c.fix}."))
    return Draft(
        title=title,
        body=body,
        labels=[comp, "type:feature", "severity:S4"],
        thread=thread,
        closes=len(thread) == 3,
    )


@template
def postgres_pool(c: Ctx) -> Draft:
    processes = c.pick((12, 20, 32))
    pool = c.pick((10, 10, 16))
    body = md(
        f"""
        With {processes} worker processes against {c.postgres_name} we run out of connections
        (`max_connections = 200`) and workers start failing with:

        ```
        {{log}}
        ```

        `broker.pool_size = {pool}`, `worker.concurrency = 4`. How many connections does each worker
        open, and what should `pool_size` be?
        """
    ).replace(
        "{log}",
        c.log(
            12, "ERROR", "orbit.broker.postgres", "ORB-1301 BrokerUnavailable FATAL: sorry, too many clients already"
        ),
    )
    thread = [
        (
            "maintainer",
            md(
                f"""
                Up to `pool_size` per process, plus one dedicated LISTEN connection: {processes} x
                ({pool} + 1) = {processes * (pool + 1)} at peak. The pool must exceed `worker.concurrency`
                (renewals need a connection while jobs run), so with concurrency 4 a pool of 6 is plenty.
                Or put PgBouncer in front for the pool and keep LISTEN direct with `broker.listen_url`.
                """
            ),
        ),
        ("reporter", f"pool_size = 6 brings us to {processes * 7} connections at peak. Fine now."),
    ]
    return Draft(
        title=c.pick(
            (
                f"How many Postgres connections do {processes} workers need?",
                "ORB-1301 'too many clients' after scaling workers",
            )
        ),
        body=body,
        labels=["comp:broker-postgres", "type:question"],
        thread=thread,
        closes=True,
    )


@template
def queue_full(c: Ctx) -> Draft:
    limit = c.pick((10_000, 50_000, 100_000))
    broker = c.pick((c.redis_name, c.postgres_name))
    body = md(
        f"""
        During a backlog (a downstream API was down for an hour) our producers started crashing:

        ```
        {{log}}
        ```

        We set `broker.max_queue_length = {limit}` months ago to protect the broker and forgot about it.
        What is the intended way for producers to handle this: retry, drop, or block? The Python
        client raises `orbit.errors.QueueFull` straight out of `enqueue()`.

        {c.env()}, broker {broker}.
        """
    ).replace(
        "{log}", c.log(20, "ERROR", "orbit.client", f"ORB-1306 QueueFull queue=default length={limit} max={limit}")
    )
    thread = [
        (
            "maintainer",
            md(
                """
                It is backpressure on purpose: the queue is full, so the enqueue is refused rather than
                growing without bound. What to do depends on the producer: an HTTP handler should answer
                503 with Retry-After; a batch producer should sleep and retry with backoff. Raising the
                limit only moves the problem if the consumers are down.
                """
            ),
        ),
        ("reporter", "We'll catch QueueFull and return 503. A `block=True` option on enqueue would be nice too."),
        ("maintainer2", "`enqueue(..., block_for=30)` is a reasonable addition. Keeping it open as a feature."),
    ]
    return Draft(
        title=c.pick(
            (
                f"ORB-1306 QueueFull crashes producers during a backlog ({broker.split()[0]})",
                "How should producers handle QueueFull from enqueue()?",
            )
        ),
        body=body,
        labels=[
            c.pick(("comp:core", "comp:broker-redis" if broker.startswith("Redis") else "comp:broker-postgres")),
            "type:question",
        ],
        thread=thread,
        closes=c.chance(0.4),
    )


@template
def api_validation(c: Ctx) -> Draft:
    field_name, value, why = c.pick(
        (
            ("run_at", '"2026-03-01T09:00:00"', "run_at must include a UTC offset"),
            ("delay", "-5", "delay must be >= 0"),
            ("queue", '"Reports"', "queue names are lower-case letters, digits, '-' and '_'"),
            ("args", '"--full"', "args must be an object"),
        )
    )
    body = md(
        f"""
        Enqueueing through the API from our Go service fails:

        ```
        $ curl -s -X POST https://orbit.internal/v1/jobs -H "Authorization: Bearer $TOKEN" \\
            -d '{{"job": "{c.job}", "{field_name}": {value}}}'
        {{"error": {{"code": "ORB-1603", "name": "ApiValidationError", "message": "invalid request"}}}}
        ```

        It took a while to figure out that the problem was `{field_name}`. Could the error say which
        field failed and why? {c.env()}.
        """
    )
    thread = [
        (
            "maintainer",
            f'Agreed, "invalid request" is useless. The validator knows the field and the reason '
            f'(here: {why}); the response should carry both, e.g. `"details": [{{"field": '
            f'"{field_name}", "reason": ...}}]`.',
        ),
        ("reporter", "That would be perfect for our client's error messages."),
        ("maintainer2", f"Done: ORB-1603 responses now list each failing field with a reason. In {c.fix}."),
    ]
    return Draft(
        title=c.pick(
            (
                f"ORB-1603 ApiValidationError does not say that {field_name} is the problem",
                "API validation errors should name the failing field",
            )
        ),
        body=body,
        labels=["comp:api", "type:bug", "severity:S4"],
        thread=thread,
        closes=c.chance(0.7),
        last_resolves=True,
    )


@template
def jobs_ls_slow(c: Ctx) -> Draft:
    rows = c.pick(("8M", "14M", "30M"))
    seconds = c.pick((18, 40, 95))
    body = md(
        f"""
        `orbit jobs ls --state failed --name {c.job}` takes {seconds} s on our Postgres broker
        ({c.postgres}, `orbit_jobs` has {rows} rows because we keep 30 days). During that time the API's
        `/v1/jobs` with the same filter is just as slow and our dashboard times out.

        `EXPLAIN` shows a sequential scan:

        ```
        Seq Scan on orbit_jobs  (cost=0.00..912733.12 rows=1184 width=412)
          Filter: ((state = 'failed'::text) AND (name = '{c.job}'::text))
        ```

        {c.env()}.
        """
    )
    thread = [
        (
            "maintainer",
            "The indexes cover what workers need (ready jobs by queue, running jobs by lease), not "
            "listing finished jobs by name. An index on `(name, state, finished_at)` fixes this query; "
            "we'll add it in a migration. Meanwhile: prune more aggressively (`orbit jobs prune`).",
        ),
        ("reporter", "Created the index by hand: 40 ms. Looking forward to the migration."),
        ("maintainer2", f"Migration added (online, `CREATE INDEX CONCURRENTLY`). In {c.fix}."),
    ]
    return Draft(
        title=c.pick(
            (
                f"orbit jobs ls --name takes {seconds} s with {rows} rows in orbit_jobs",
                "Listing failed jobs by name does a sequential scan on Postgres",
            )
        ),
        body=body,
        labels=[c.pick(("comp:cli", "comp:broker-postgres")), "type:bug", "severity:S3"],
        thread=thread,
        closes=c.chance(0.6),
        last_resolves=True,
    )


@template
def dead_jobs_question(c: Ctx) -> Draft:
    count = c.pick((12, 140, 2300))
    body = md(
        f"""
        After an outage of our {c.pick(("payment provider", "SMTP relay", "search cluster"))}, {count}
        `{c.job}` jobs ended with:

        ```
        {{log}}
        ```

        Where do these jobs go? Are they deleted, and can we re-run them once the dependency is back
        without re-creating them by hand? {c.env()}.
        """
    ).replace(
        "{log}", c.log(90, "ERROR", "orbit.worker", f"ORB-1202 RetriesExhausted job={c.job} id={c.jid()} attempts=3")
    )
    thread = [
        (
            "maintainer",
            md(
                f"""
                They stay in the broker in state `dead` until pruned. List them with
                `orbit jobs ls --state dead --name {c.job}` and requeue one with `orbit jobs retry ID`
                (a new attempt 1). For many at once, a shell loop over `orbit jobs ls --state dead --json`
                works today.
                """
            ),
        ),
        ("reporter", "The loop worked for all of them. A `retry --all --name` would be handy."),
        ("other", "+1 for bulk retry, we have the same loop in a runbook."),
    ]
    return Draft(
        title=c.pick(
            (
                f"Re-running {count} jobs that hit ORB-1202 RetriesExhausted",
                "Where do jobs go after RetriesExhausted, and how to retry them in bulk?",
            )
        ),
        body=body,
        labels=["comp:core", "type:question"],
        thread=thread,
        closes=c.chance(0.6),
    )


@template
def compose_startup(c: Ctx) -> Draft:
    broker = c.pick(("redis", "postgres"))
    body = md(
        f"""
        With docker compose, `worker` starts before `{broker}` accepts connections and exits:

        ```
        {{log}}
        orbit-worker-1 exited with code 4
        ```

        `depends_on: [{broker}]` is set. Shouldn't the worker wait and retry at start-up like it does
        after a connection drop?
        {c.env()}.
        """
    ).replace(
        "{log}",
        c.log(
            1,
            "CRITICAL",
            f"orbit.broker.{broker}",
            f"ORB-1301 BrokerUnavailable connection refused host={broker} port={6379 if broker == 'redis' else 5432}",
        ),
    )
    thread = [
        (
            "maintainer",
            md(
                f"""
                At start-up we fail fast on purpose (exit status 4), so a wrong URL is visible at once
                instead of a worker that retries silently forever. `depends_on` only waits for the
                container to start, not for {broker} to be ready: add a healthcheck to the {broker}
                service and `depends_on: {{{broker}: {{condition: service_healthy}}}}`, or
                `restart: on-failure`.
                """
            ),
        ),
        ("reporter", "The healthcheck condition did it, thanks."),
    ]
    return Draft(
        title=c.pick(
            (
                f"Worker exits with ORB-1301 when {broker} starts slower in docker compose",
                "orbit worker should wait for the broker at start-up",
            )
        ),
        body=body,
        labels=["comp:worker", "type:question"],
        thread=thread,
        closes=True,
    )


@template
def redis_pending_entries(c: Ctx) -> Draft:
    c.require(before="2.8.0")
    pending = c.pick((1200, 8400, 52000))
    body = md(
        f"""
        `XPENDING orbit:stream:default orbit-workers` reports {pending} pending entries, almost all owned
        by consumers that no longer exist (pods from old deployments):

        ```
        $ redis-cli XINFO CONSUMERS orbit:stream:default orbit-workers | grep -A1 name | head
        name
        w-{c.rng.getrandbits(16):04x}
        ```

        The jobs themselves did run again after their leases expired, so nothing is lost, but the PEL
        keeps growing and `XINFO` is getting slow. Is there a cleanup we should run?
        {c.env()}, {c.redis_name}.
        """
    )
    thread = [
        (
            "maintainer",
            md(
                """
                Known gap: the reaper re-queues expired leases, but the stream entries stay pending for
                the dead consumer. Safe cleanup today: `XGROUP DELCONSUMER` for consumers that are not in
                `orbit status`. The proper fix is for the reaper to claim those entries with XAUTOCLAIM,
                which needs Redis 6.2; that is planned for the next minor release.
                """
            ),
        ),
        ("reporter", "DELCONSUMER for the dead ones brought XPENDING down to 3. Thanks."),
    ]
    return Draft(
        title=c.pick(
            (
                f"{pending} pending stream entries owned by dead consumers",
                "Redis PEL keeps growing with consumers from old deployments",
            )
        ),
        body=body,
        labels=["comp:broker-redis", "type:bug", "severity:S4"],
        thread=thread,
        closes=c.chance(0.5),
    )


@template
def cancel_running_job(c: Ctx) -> Draft:
    body = md(
        f"""
        `orbit jobs cancel {c.jid()}` (and `POST /v1/jobs/{{id}}/cancel`) on a *running* `{c.job}` job
        answers "cancel requested", but the job keeps running to the end and is then marked succeeded.
        Cancelling a ready job works. Are running jobs not cancellable?

        {c.env()}.
        """
    )
    thread = [
        (
            "maintainer",
            md(
                """
                Running jobs are asked to stop, not killed: killing Python code mid-way leaves whatever
                it was doing half done. The job has to look at `ctx.cancelled` between steps and return
                early. A job that never checks it runs to the end, as you saw.
                """
            ),
        ),
        ("reporter", 'Makes sense. Could the CLI say "the job will stop when it checks ctx.cancelled"?'),
        ("maintainer2", "Yes, the message now says that, and the job shows `cancel_requested` until it stops."),
    ]
    return Draft(
        title=c.pick(
            (f"Cancelling a running {c.job} job has no effect", "orbit jobs cancel does not stop running jobs")
        ),
        body=body,
        labels=[c.pick(("comp:cli", "comp:api")), "type:question"],
        thread=thread,
        closes=True,
    )


@template
def schedule_explain_timezone(c: Ctx) -> Draft:
    tz = c.pick(("Europe/Madrid", "America/Denver", "Asia/Tokyo", "Australia/Perth"))
    body = md(
        f"""
        ```
        $ orbit schedule explain "0 9 * * 1-5" --timezone {tz} --count 3
        next fire times:
          {c.created.year}-{c.created.month:02d}-{min(c.created.day + 1, 28):02d} 09:00:00+00:00
          ...
        ```

        The times are printed in UTC with `09:00`, i.e. the expression was evaluated in UTC and
        `--timezone` ignored. The scheduler itself uses the zone correctly (our jobs run at 09:00 local).
        {c.env()}.
        """
    )
    thread = [
        ("maintainer", "Confirmed: `explain` builds its own evaluator and drops the zone. Small fix."),
        ("other", "It would also help to print both local and UTC times side by side."),
        ("maintainer2", f"Both done: the zone is honoured and each line shows local and UTC. In {c.fix}."),
    ]
    return Draft(
        title=c.pick(
            (f"orbit schedule explain ignores --timezone {tz}", "schedule explain prints fire times in UTC only")
        ),
        body=body,
        labels=["comp:cli", "type:bug", "severity:S4"],
        thread=thread,
        closes=c.chance(0.7),
        last_resolves=True,
    )


@template
def worker_recycle(c: Ctx) -> Draft:
    lib = c.pick(("an old PDF rendering library", "a vendored image codec", "our ORM's identity map", "lxml"))
    body = md(
        f"""
        `{c.job}` uses {lib} that leaks a few MB per call. Workers grow to several GB over a day and
        get OOM-killed by the kernel, taking running jobs with them. Until the leak is fixed upstream,
        can a worker be told to restart itself after N jobs, like gunicorn's `max_requests`?
        {c.env()}.
        """
    )
    thread = [
        (
            "maintainer",
            "Yes: `worker.max_jobs`. After that many jobs the worker stops claiming, finishes what it runs "
            "and exits 0, so your supervisor starts a fresh one. Pair it with `restart: always` (or a "
            "Deployment, which restarts anyway).",
        ),
        ("reporter", "`max_jobs = 500` keeps them under 1 GB. Didn't know it existed, thanks."),
    ]
    return Draft(
        title=c.pick(
            (
                "Restart workers after N jobs to contain a leaking library",
                f"Worker memory grows all day because of {lib}",
            )
        ),
        body=body,
        labels=["comp:worker", "type:question"],
        thread=thread,
        closes=True,
    )


@template
def notify_trigger_missing(c: Ctx) -> Draft:
    c.require(since="2.8.0")  # the fallback warning exists since 2.8
    body = md(
        f"""
        We moved the Orbit database to a new cluster ({c.postgres_name}) with `pg_dump --section=data` into a
        schema created by hand. Since then every job waits about `poll_interval` before pickup, and the
        workers log at start-up:

        ```
        {{log}}
        ```

        PgBouncer is not involved, the workers connect directly.
        """
    ).replace(
        "{log}",
        c.log(
            60 * 24,
            "WARNING",
            "orbit.broker.postgres",
            "listener: no notification received within 60s of an enqueue, falling back to polling",
        ),
    )
    thread = [
        (
            "maintainer",
            md(
                """
                The NOTIFY comes from a trigger on `orbit_jobs` that `orbit migrate` creates. A schema
                created by hand plus a data-only dump has no trigger. `orbit migrate --status` shows what
                is missing; running `orbit migrate` on the new cluster adds it (it is idempotent).
                """
            ),
        ),
        ("reporter", "`migrate --status` listed the trigger as missing; after `orbit migrate` pickup is instant."),
    ]
    return Draft(
        title=c.pick(
            (
                "Pickup latency equals poll_interval after moving the database",
                "LISTEN/NOTIFY stopped working after a pg_dump restore",
            )
        ),
        body=body,
        labels=["comp:broker-postgres", "type:question"],
        thread=thread,
        closes=True,
    )


@template
def enqueue_run_at(c: Ctx) -> Draft:
    offset = c.pick(("+02:00", "-05:00", "+09:00", "+05:30"))
    body = md(
        f"""
        `orbit enqueue {c.job} --run-at 2026-03-02T08:00:00` runs the job at 08:00 UTC, while our
        servers and `scheduler.timezone` are on UTC{offset}. I expected local time, or at least the
        scheduler's time zone. Which one is it supposed to be?
        {c.env()}.
        """
    )
    thread = [
        (
            "maintainer",
            "A `--run-at` without an offset is read as UTC. Schedules use the scheduler's zone because a "
            "cron line has no other way to say it; a timestamp does. We should warn on a naive timestamp "
            f"though: `--run-at 2026-03-02T08:00:00{offset}` is unambiguous.",
        ),
        ("reporter", "A warning (or refusing naive times outright) would have saved us a missed run."),
        ("maintainer2", "The CLI now refuses a naive `--run-at` and suggests the offset form."),
    ]
    return Draft(
        title=c.pick(
            (
                "orbit enqueue --run-at without an offset is taken as UTC",
                f"--run-at ignores our UTC{offset} scheduler.timezone",
            )
        ),
        body=body,
        labels=["comp:cli", "type:question"],
        thread=thread,
        closes=c.chance(0.7),
        last_resolves=True,
    )


@template
def dashboard_stale_workers(c: Ctx) -> Draft:
    c.require(since="2.7.0")
    minutes = c.pick((20, 45, 90))
    body = md(
        f"""
        After a node failure, the dashboard and `orbit status` kept listing the {c.pick((3, 5, 8))}
        workers of that node as "busy" for {minutes} minutes, although the scheduler had logged

        ```
        {{log}}
        ```

        within a minute. Only when their leases expired did they disappear. Shouldn't a worker the
        scheduler considers dead be shown as dead right away? {c.env()}.
        """
    ).replace(
        "{log}",
        c.log(
            minutes,
            "WARNING",
            "orbit.scheduler",
            f"ORB-1501 WorkerHeartbeatLost worker={c.worker} last_seen=35s",
            "s-01",
        ),
    )
    thread = [
        (
            "maintainer",
            'Agreed. The status view derives "busy" from leases, not from heartbeats. It should show '
            '"lost" as soon as ORB-1501 fires, with the leases still counting down next to it.',
        ),
        ("other", "+1, during incidents this is confusing: the dashboard says all is well."),
        ("maintainer2", f"Status and dashboard now show lost workers immediately. In {c.fix}."),
    ]
    return Draft(
        title=c.pick(
            (
                f"Dashboard shows dead workers as busy for {minutes} minutes",
                "orbit status lists workers as busy after ORB-1501",
            )
        ),
        body=body,
        labels=["comp:api", "type:bug", "severity:S3"],
        thread=thread,
        closes=c.chance(0.6),
        last_resolves=True,
    )
