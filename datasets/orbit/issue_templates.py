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


@dataclass
class Draft:
    title: str
    body: str
    labels: list[str]
    thread: list[tuple[str, str]] = field(default_factory=list)
    closes: bool = False


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
        at = self.created - timedelta(minutes=minutes_before)
        return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.rng.randrange(1000):03d}Z"

    def log(self, minutes_before: float, level: str, logger: str, message: str, worker: str | None = None) -> str:
        return f"{self.stamp(minutes_before)} {level:<5} {logger} [{worker or self.worker}] {message}"

    def env(self) -> str:
        return f"orbit-scheduler {self.version}, Python {self.python}, {self.system}"


def md(text: str) -> str:
    return dedent(text).strip("\n")


Template = Callable[[Ctx], Draft]
TEMPLATES: list[Template] = []


def template(fn: Template) -> Template:
    TEMPLATES.append(fn)
    return fn


@template
def lease_expired_long_job(c: Ctx) -> Draft:
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

        {c.env()}, {c.pick(("Redis " + c.redis, "Postgres " + c.postgres))} broker.
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
                `ORBIT_LEASE_DURATION=3600`) and give the job an `idempotency_key` so a duplicate run is
                harmless. Same root cause as the nightly-rebuild report, tracking there.
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

        {c.env()}; broker {c.redis}, `url = "redis://orbit-redis.internal:6379/0"`.
        The proxy's idle timeout is {timeout} s.
        """
    )
    body = body.replace(
        "{log}",
        c.log(4, "WARN", "orbit.broker.redis", f"ORB-1303 RedisConnectionReset op=XREADGROUP after={timeout}s idle"),
    ).replace("{trace}", trace)
    thread = [
        (
            "maintainer",
            md(
                f"""
                The blocking XREADGROUP keeps the connection idle from the proxy's point of view, so it
                closes it after {timeout} s. We retry the read, but a claim whose reply was lost in the
                reset stays pending until the lease expires. Can you enable TCP keepalive on the client
                side (`socket_keepalive=true` in the broker URL query) and check the proxy again?
                """
            ),
        ),
        ("reporter", f"With `?socket_keepalive=true&health_check_interval=30` the resets are gone on {proxy}."),
        (
            "maintainer",
            f"Shipping keepalive and a health check by default, and re-delivering pending claims right after "
            f"a reconnect instead of waiting for the lease. Fixed in {c.fix}.",
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
        closes=True,
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
        whole scheduler down, so none of our other 30 schedules run either.
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
            "On (2): agreed. A schedule that fails to parse should be logged with ORB-1401 and skipped, not "
            "abort the scheduler. Splitting that into its own change.",
        ),
        ("reporter", "Thanks! Skipping the broken one with a loud error is exactly what we'd want."),
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
        "{log}", c.log(60 * 24 * 3, "WARN" if direction == "forward" else "INFO", "orbit.scheduler", msg, "s-01")
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
        closes=True,
    )


@template
def worker_shutdown_timeout(c: Ctx) -> Draft:
    grace = c.pick((30, 30, 60, 120))
    k8s = c.pick((30, 25, 45))
    body = md(
        f"""
        During rolling deploys on Kubernetes, workers are killed mid-job and the jobs are only re-run
        after the lease expires. Our pods have `terminationGracePeriodSeconds: {k8s}` and the worker has
        `worker.shutdown_grace = {grace}`.

        ```
        {{log1}}
        {{log2}}
        ```

        What should happen to the jobs that are still running when the grace period ends? They are
        `{c.job}` jobs that take 2-4 minutes, so they cannot finish in time anyway.

        {c.env()}.
        """
    )
    body = body.replace(
        "{log1}", c.log(10, "INFO", "orbit.worker", f"SIGTERM received, draining (shutdown_grace={grace}s)")
    )
    body = body.replace(
        "{log2}",
        c.log(10 - grace / 60, "ERROR", "orbit.worker", f"ORB-1503 ShutdownTimeout running=3 grace={grace}s"),
    )
    thread = [
        (
            "maintainer",
            md(
                f"""
                Two things interact here. Kubernetes sends SIGKILL after {k8s} s, so with
                `shutdown_grace = {grace}` the worker {"never reaches" if grace >= k8s else "barely reaches"}
                its own timeout. Set `terminationGracePeriodSeconds` a bit above `shutdown_grace`.

                For jobs that cannot finish, the worker should release their leases when the grace ends so
                another worker picks them up at once instead of after `lease.duration`. That part is a
                real gap; the 3.0 worker does it.
                """
            ),
        ),
        ("reporter", "Makes sense. Would you take a backport of the lease release to 2.x?"),
        (
            "maintainer2",
            f"Yes, backported: on ORB-1503 the worker now releases the leases of unfinished jobs. In {c.fix}.",
        ),
    ]
    return Draft(
        title=c.pick(
            (
                "Jobs killed during rolling deploy only re-run after the lease expires",
                f"ORB-1503 ShutdownTimeout with shutdown_grace={grace} on Kubernetes",
                "Worker should release leases of unfinished jobs on shutdown",
            )
        ),
        body=body,
        labels=["comp:worker", c.pick(("type:bug", "type:feature")), "severity:S3"],
        thread=thread,
        closes=c.chance(0.7),
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
                f"ORB-1205 SerializationError when the payload contains a {kind}",
                f"Cannot enqueue payloads with {kind} values",
            )
        ),
        body=body,
        labels=["comp:core", "type:question"],
        thread=thread,
        closes=True,
    )


@template
def lease_clock_skew(c: Ctx) -> Draft:
    skew = c.pick((4.2, 7.9, 12.5, 31.0, 95.3))
    body = md(
        f"""
        Some workers refuse to take jobs and log this in a loop:

        ```
        {{log}}
        ```

        The hosts are {c.pick(("VMs on an on-prem vSphere cluster", "Raspberry Pi 4 edge nodes", "spot instances"))}
        and it turns out chrony was not running on two of them. Fixing NTP fixed it, but a couple of
        questions:

        1. What is the tolerated skew? It is not in the leases docs.
        2. Could the worker use the broker's clock (`TIME` in Redis / `now()` in Postgres) instead of its own?

        {c.env()}.
        """
    ).replace(
        "{log}",
        c.log(15, "ERROR", "orbit.lease", f"ORB-1104 LeaseClockSkew local_vs_broker={skew}s tolerance=5s"),
    )
    thread = [
        (
            "maintainer",
            md(
                """
                Tolerance is 5 s: lease deadlines are absolute timestamps, so a worker whose clock is off
                by more than that could renew too late or consider a live lease expired. We check the
                broker's clock at start-up and on every renewal and refuse to work with ORB-1104 rather
                than risk double execution.

                (2) is the plan for 3.0: deadlines computed from the broker's clock only.
                """
            ),
        ),
        ("reporter", "Thanks, that explains it. A line about the 5 s tolerance in the leases page would help."),
        ("maintainer2", "Added to the leases docs."),
    ]
    return Draft(
        title=c.pick(
            ("ORB-1104 LeaseClockSkew: what skew is tolerated?", "Workers stop claiming jobs with LeaseClockSkew")
        ),
        body=body,
        labels=["comp:core", "type:question"],
        thread=thread,
        closes=True,
    )


@template
def lease_stolen(c: Ctx) -> Draft:
    job_id = c.jid()
    body = md(
        f"""
        After we started cloning worker VMs from one image, we see pairs of workers fighting over jobs:

        ```
        {{log1}}
        {{log2}}
        ```

        Both lines come from different hosts but show the same worker id `{c.worker}`. Is the worker id
        derived from the hostname? Our clones all boot as `orbit-worker` until cloud-init renames them.

        {c.env()}, broker {c.pick(("Redis " + c.redis, "Postgres " + c.postgres))}.
        """
    )
    body = body.replace(
        "{log1}", c.log(40, "INFO", "orbit.worker", f"started job={c.job} id={job_id} attempt=1")
    ).replace(
        "{log2}",
        c.log(25, "ERROR", "orbit.lease", f"ORB-1103 LeaseStolen id={job_id} owner={c.worker} expected_token=7f3e"),
    )
    thread = [
        (
            "maintainer",
            md(
                """
                Yes: the default worker id is `hostname:pid`, and with identical hostnames and pid 1 in
                containers two workers get the same id. A renewal then looks like it comes from the owner
                while the token differs, hence ORB-1103. Set `worker.id` explicitly or make the hostname
                unique; we'll add a random suffix to the default id.
                """
            ),
        ),
        ("reporter", "Setting `ORBIT_WORKER_ID=$(hostname)-$(uuidgen | cut -c1-8)` fixed it."),
        ("maintainer", f"Default id now includes a random suffix. Fixed in {c.fix}."),
    ]
    return Draft(
        title=c.pick(
            (
                "ORB-1103 LeaseStolen between cloned worker VMs",
                "Two workers with the same worker id steal each other's leases",
            )
        ),
        body=body,
        labels=["comp:worker", "type:bug", "severity:S2"],
        thread=thread,
        closes=True,
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

        Broker {c.redis}, {c.env()}.

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
                f"ORB-1302 BrokerAuthFailed with {what.strip('`')}",
                "Worker cannot authenticate to Redis after moving to ACLs/TLS",
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

        Postgres {c.postgres}, {c.env()}, {c.pick((12, 24, 40))} workers.
        """
    ).replace(
        "{log}",
        c.log(7, "WARN", "orbit.broker.postgres", "ORB-1305 PostgresSerializationFailure query=claim_next retry=1/3"),
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
        ("reporter", "Our DBA agrees if it is only Orbit's sessions. A connection option would be perfect."),
        (
            "maintainer2",
            f"The broker now runs `SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED` on connect. In {c.fix}.",
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
        closes=True,
    )


@template
def migration_pending(c: Ctx) -> Draft:
    target = c.pick(("2.7.0", "2.8.0", "2.8.1"))
    code = c.pick(("ORB-1701 MigrationPending", "ORB-1702 SchemaVersionMismatch"))
    detail = (
        "schema=6 required=8 run `orbit migrate`"
        if code.startswith("ORB-1701")
        else "schema=9 code_expects=8 (database is newer than this worker)"
    )
    body = md(
        f"""
        We upgrade workers with a rolling deploy (helm, `maxUnavailable: 1`). Upgrading to {target}, the
        new pods crash-loop with:

        ```
        {{log}}
        ```

        {"and the old pods keep running fine" if code.startswith("ORB-1701") else "after someone ran `orbit migrate` from the new image, the *old* pods started failing"}.
        What is the supported order for upgrading workers and running migrations on Postgres
        ({c.postgres})?
        """
    ).replace("{log}", c.log(3, "ERROR", "orbit.broker.postgres", f"{code} {detail}"))
    thread = [
        (
            "maintainer",
            md(
                """
                The order is in the upgrading guide: stop or drain workers that run the old version, run
                `orbit migrate` once (a Kubernetes Job or a helm pre-upgrade hook), then start the new
                workers. Migrations are not backwards compatible within a minor release jump, so old and
                new workers cannot share a schema during the rollout.
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
        closes=True,
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
        broker {c.pick(("Redis " + c.redis, "Postgres " + c.postgres))}. {c.env()}.
        CPU of the scheduler process sits at 100% for ~{drift} s each minute.
        """
    ).replace(
        "{log}",
        c.log(2, "WARN", "orbit.scheduler", f"ORB-1402 ScheduleDrift behind={drift}.4s due={count} tick=1s", "s-01"),
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
    )


@template
def catchup_flood(c: Ctx) -> Draft:
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
        alive, and their jobs are handed to other workers:

        ```
        {{log}}
        ```

        {c.env()}. `worker.concurrency = {c.pick((4, 8, 16))}`.
        """
    ).replace(
        "{log}",
        c.log(9, "WARN", "orbit.scheduler", f"ORB-1501 WorkerHeartbeatLost worker={c.worker} last_seen=74s", "s-01"),
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
        closes=True,
    )


@template
def payload_too_large(c: Ctx) -> Draft:
    size = c.pick((52, 64, 120, 300))
    body = md(
        f"""
        ```
        {{log}}
        ```

        We pass {c.pick(("a list of customer ids", "a rendered HTML report", "an embedded CSV", "a batch of events"))}
        as the payload of `{c.job}`, about {size} MB. What is the limit, can it be raised, and what is the
        recommended pattern for big inputs?
        """
    ).replace(
        "{log}",
        c.log(0.5, "ERROR", "orbit.client", f"ORB-1203 PayloadTooLarge size={size * 1024 * 1024} limit=50331648"),
    )
    thread = [
        (
            "maintainer",
            md(
                """
                48 MB, and raising it is not a good idea: the payload is stored in the broker and copied
                on every retry. Put the data in object storage or a table and pass a reference (a key and
                a checksum) in the payload. The worker fetches it.
                """
            ),
        ),
        ("reporter", "Makes sense, we switched to S3 keys."),
    ]
    return Draft(
        title=c.pick(
            ("ORB-1203 PayloadTooLarge: what is the limit?", f"{size} MB payload rejected with PayloadTooLarge")
        ),
        body=body,
        labels=["comp:core", "type:question"],
        thread=thread,
        closes=True,
    )


@template
def duplicate_job_id(c: Ctx) -> Draft:
    body = md(
        f"""
        We enqueue with an explicit job id so retries of our HTTP handler don't create duplicates:

        ```python
        client.enqueue("{c.job}", payload=order, job_id=f"order-{{order['id']}}")
        ```

        When the handler retries after a timeout, the second enqueue raises
        `orbit.errors.DuplicateJobId: ORB-1204 DuplicateJobId job_id='order-88123'` and our handler
        returns a 500, although the job exists and will run. Should a duplicate id be an error at all?
        Ideally it would return the existing job.

        {c.env()}, broker {c.pick(("Redis " + c.redis, "Postgres " + c.postgres))}.
        """
    )
    thread = [
        (
            "maintainer",
            md(
                """
                For `job_id` it is deliberate: two different payloads with the same id are a bug we want
                to surface. What you want is `idempotency_key`: a second enqueue with the same key and the
                same payload returns the first job instead of raising. Different payload, same key is
                still ORB-1204.
                """
            ),
        ),
        ("reporter", "Didn't know about `idempotency_key`, it does exactly that. Thanks!"),
        ("maintainer2", "Let's mention it in the error message. Closing as answered."),
    ]
    return Draft(
        title=c.pick(
            ("Retrying an enqueue raises ORB-1204 DuplicateJobId", "DuplicateJobId should return the existing job")
        ),
        body=body,
        labels=["comp:core", "type:question"],
        thread=thread,
        closes=True,
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
        c.log(40, "WARN", "orbit.worker", f"ORB-1201 JobTimeout job={c.job} timeout={timeout}s attempt=1/{attempts}"),
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
        $ curl -H "Authorization: Bearer $ORBIT_API_TOKEN" https://orbit.example.internal/api/jobs
        {{"error": {{"code": "ORB-1601", "name": "ApiUnauthorized", "message": "missing or invalid token"}}}}
        ```

        ```
        {{log}}
        ```

        {c.env()}.
        """
    ).replace("{log}", c.log(1, "WARN", "orbit.api", "ORB-1601 ApiUnauthorized path=/jobs auth_header=absent", "api-1"))
    thread = [
        (
            "maintainer",
            f"`auth_header=absent` means the header never reached Orbit. Some setups of {proxy} drop "
            "`Authorization` on redirects (http -> https) or when forwarding to a different host. Does "
            "`curl -v` show a 301 first?",
        ),
        ("reporter", "Yes! A redirect from /api to /api/ dropped it. Calling `/api/jobs/` directly works."),
        ("maintainer", "Good. We now also accept the token in `X-Orbit-Token`, which proxies leave alone."),
    ]
    return Draft(
        title=c.pick(
            (f"ORB-1601 ApiUnauthorized behind {proxy}", "API returns 401 with a valid token through a reverse proxy")
        ),
        body=body,
        labels=["comp:api", "type:bug", "severity:S3"],
        thread=thread,
        closes=True,
    )


@template
def api_rate_limited(c: Ctx) -> Draft:
    rps = c.pick((5, 10, 20))
    body = md(
        f"""
        Our Grafana dashboard polls `GET /queues/stats` every 5 s from ~{rps * 3} browser tabs and
        the API starts answering 429:

        ```
        HTTP/1.1 429 Too Many Requests
        Retry-After: 7
        {{"error": {{"code": "ORB-1602", "name": "ApiRateLimited", "message": "token rate limit {rps}/s exceeded"}}}}
        ```

        Can the limit be configured per token? Read-only dashboard tokens could have a higher limit
        than tokens that enqueue.
        """
    )
    thread = [
        (
            "maintainer",
            "The limit is `api.rate_limit` (requests per second per token) and applies to all tokens. "
            "Per-token limits need a token model we don't have yet (tokens are just strings in "
            "`[api] tokens`).",
        ),
        ("other", "Caching `/queues/stats` for a second server-side would fix most dashboard cases."),
        ("maintainer2", "Agreed, a 1 s cache on stats endpoints is cheap. Tracking both ideas here."),
    ]
    return Draft(
        title=c.pick(("Per-token API rate limits", "ORB-1602 ApiRateLimited from dashboards polling /queues/stats")),
        body=body,
        labels=["comp:api", "type:feature", "severity:S4"],
        thread=thread,
        closes=False,
    )


@template
def cli_unknown_command(c: Ctx) -> Draft:
    typo, meant = c.pick(
        (
            ("orbit worker --queue", "orbit worker --queues"),
            ("orbit jobs rm", "orbit jobs delete"),
            ("orbit migrations", "orbit migrate"),
            ("orbit schedule ls", "orbit schedules list"),
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
    )


@template
def config_errors(c: Ctx) -> Draft:
    case = c.pick(("typo_env", "toml_type", "url_missing"))
    if case == "typo_env":
        body = md(
            f"""
            I set `ORBIT_WORKER_CONCURENCY=16` (typo, one R) and the worker silently ran with concurrency 4.
            A misspelled key in `orbit.toml` fails with ORB-1003 UnknownConfigKey, but the environment
            variable is ignored. Can env vars under the `ORBIT_` prefix be checked the same way?

            {c.env()}.
            """
        )
        title = "Misspelled ORBIT_ env var is silently ignored (no ORB-1003)"
        answer = (
            "Agreed it should warn. Erroring would break people who have unrelated `ORBIT_*` variables "
            "(there is at least one other tool using the prefix), so: a warning with ORB-1003 and the "
            "closest known key."
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
    )


@template
def docs_gap(c: Ctx) -> Draft:
    page, gap = c.pick(
        (
            ("leases", "how `lease.renew_interval` relates to `lease.duration` (what margin is safe?)"),
            ("brokers", "that LISTEN/NOTIFY does not work through PgBouncer in transaction pooling mode"),
            ("deployment", "a Kubernetes example with `terminationGracePeriodSeconds` and `worker.shutdown_grace`"),
            ("upgrading", "that workers must be drained before `orbit migrate` on Postgres"),
            ("configuration", "the `ORBIT_<SECTION>_<KEY>` environment variables for nested keys"),
            ("scheduling", "what `scheduler.misfire_grace` does together with `scheduler.catchup`"),
            ("troubleshooting", "what to do about ORB-1501 WorkerHeartbeatLost"),
        )
    )
    body = md(
        f"""
        The {page} page does not explain {gap}. I had to read the source to find out. A short paragraph
        (and maybe an example) would help the next person.
        """
    )
    thread = [
        ("maintainer", "Good catch, thanks. Would you like to write it? The docs live in `docs/` as Markdown."),
        ("reporter", c.pick(("Sure, PR coming.", "I'd rather not, not sure I understood all of it.", "Opened a PR."))),
        ("maintainer2", "Merged, the page is updated."),
    ]
    return Draft(
        title=c.pick(
            (f"Docs: {page} page should explain {gap.split(' (')[0]}", f"{page}.md is missing {gap.split(' (')[0]}")
        ),
        body=body,
        labels=["comp:docs", "type:docs"],
        thread=thread,
        closes=c.chance(0.6),
    )


@template
def worker_oom(c: Ctx) -> Draft:
    limit = c.pick((512, 1024, 2048, 4096))
    body = md(
        f"""
        `worker.max_memory_mb = {limit}` kills the worker process as a whole when it is exceeded, which
        takes down the other {c.pick((3, 7, 15))} jobs running on it:

        ```
        {{log}}
        ```

        Would it be possible to enforce the limit per job (each job in its own subprocess) rather than per
        worker? Our `{c.job}` jobs vary a lot in size and one big one kills the small ones with it.
        {c.env()}.
        """
    ).replace(
        "{log}",
        c.log(
            6,
            "ERROR",
            "orbit.worker",
            f"ORB-1502 WorkerOOMKilled rss_mb={limit + c.rng.randrange(5, 300)} max_memory_mb={limit}",
        ),
    )
    thread = [
        (
            "maintainer",
            'Per-job isolation is on the 3.0 roadmap (`worker.pool = "process"`). In 2.x the practical '
            "answer is separate queues: route the big jobs to workers with `concurrency = 1`.",
        ),
        ("reporter", "We'll do the separate queue for now. Looking forward to 3.0."),
    ]
    return Draft(
        title=c.pick(
            (
                "Enforce max_memory_mb per job instead of per worker",
                "ORB-1502 WorkerOOMKilled takes down all running jobs",
            )
        ),
        body=body,
        labels=["comp:worker", "type:feature", "severity:S3"],
        thread=thread,
        closes=False,
    )


@template
def feature_request(c: Ctx) -> Draft:
    comp, title, text, reply = c.pick(
        (
            (
                "comp:worker",
                "Expose Prometheus metrics from workers",
                "A `/metrics` endpoint on each worker with jobs started/succeeded/failed per job name, lease "
                "renewals, and claim latency. Today we scrape the API, which only sees the broker side.",
                "We'd take this behind `worker.metrics_port`. The counters already exist internally.",
            ),
            (
                "comp:core",
                "Job priorities within a queue",
                "We have one `default` queue and would like urgent jobs to jump ahead without a separate queue "
                "and separate workers. Something like `client.enqueue(..., priority=10)`.",
                "On Postgres this is an ORDER BY away; on Redis streams it is hard (streams are FIFO). Likely "
                "Postgres-only first.",
            ),
            (
                "comp:scheduler",
                "Pause and resume a single schedule",
                "During incidents we want to pause `billing.invoice_run` without editing orbit.toml and "
                "restarting the scheduler. `orbit schedules pause NAME` / `resume NAME`?",
                "Yes. The paused state would live in the broker so all schedulers agree.",
            ),
            (
                "comp:core",
                "Job dependencies (run B after A succeeds)",
                "A small DAG: `enqueue(B, after=[job_a_id])`. We fake it now by enqueueing B at the end of A.",
                "We keep saying no to a workflow engine inside Orbit, but `after=` for a single parent is small "
                "enough to consider.",
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
                "Hash tags per queue (`{orbit:default}`) would make it work. It is a key layout change, so 3.0.",
            ),
            (
                "comp:cli",
                "orbit jobs list --json",
                "For scripting, a JSON output of `orbit jobs list` (one object per line) instead of the table.",
                "Yes please. `--json` for every list command, same fields as the API.",
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
    workers = c.pick((30, 60, 120))
    body = md(
        f"""
        With {workers} worker processes against Postgres {c.postgres} we run out of connections
        (`max_connections = 100`) and workers start failing with:

        ```
        {{log}}
        ```

        How many connections does each worker open? Is there a pool size setting?
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
                """
                Two per worker process: one for claims and renewals, one dedicated to LISTEN. With
                PgBouncer you can pool the first but not the LISTEN connection (LISTEN needs session
                pooling). So either raise `max_connections`, or put PgBouncer in front and accept that
                workers fall back to polling every `broker.poll_interval`.
                """
            ),
        ),
        ("reporter", "Understood. We raised max_connections to 300; fine for our instance size."),
    ]
    return Draft(
        title=c.pick(
            ("How many Postgres connections does a worker use?", "ORB-1301 'too many clients' with many workers")
        ),
        body=body,
        labels=["comp:broker-postgres", "type:question"],
        thread=thread,
        closes=True,
    )
