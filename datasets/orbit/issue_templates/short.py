"""Short reports: everyday questions and small bugs, each case its own story with its own answer."""

# ruff: noqa: E501

from __future__ import annotations

from dataclasses import dataclass

from issue_templates.base import Ctx, Draft, md, template


@dataclass(frozen=True)
class Case:
    story: str
    comp: str
    title: str
    body: str
    answer: str
    follow_up: str
    since: str = "0"


QUESTIONS = (
    Case(
        "fan-out",
        "comp:core",
        "Can a job enqueue other jobs?",
        "`{job}` splits its input into ~{n} chunks and we'd like one job per chunk. Is enqueueing from inside a job supported, and what happens to the children if the parent is retried?",
        "Yes, enqueue with the client from inside the job. On a retry the parent runs again and would enqueue the children again, so derive each child's job id from the parent's id and the chunk number: the second enqueue of the same id is then a no-op.",
        "Deriving the ids works nicely, thanks.",
    ),
    Case(
        "concurrency-model",
        "comp:worker",
        "worker.concurrency: threads or processes?",
        "We run `{job}` (mostly CPU-bound) with `worker.concurrency = {n}` on a {n}-core VM and only one core is busy. Are the slots threads?",
        "Threads: `worker.concurrency` job threads share one process and the GIL, which suits I/O-bound jobs. For CPU-bound work run several worker processes per host (one per core, `concurrency = 1` or 2) instead of one with many slots.",
        "Switched to {n} processes with concurrency 1: all cores busy now.",
    ),
    Case(
        "every-90-minutes",
        "comp:scheduler",
        "How to schedule a job every 90 minutes?",
        "`*/90 * * * *` is rejected (minutes only go to 59). What's the idiomatic way to run `{job}` every 90 minutes?",
        "Cron cannot express it in one line. Two schedules do: `0 0-23/3 * * *` and `30 1-23/3 * * *` fire at 00:00, 01:30, 03:00, 04:30 and so on. `orbit schedule explain` shows the result before you deploy it.",
        "Two schedules it is, `schedule explain` confirmed the times.",
    ),
    Case(
        "redis-to-postgres",
        "comp:broker-postgres",
        "Moving a live deployment from Redis to Postgres",
        "We'd like to move from {redis} to Postgres (we already run {postgres}). Is there a migration tool for jobs in flight?",
        "No tool: jobs are not moved between brokers. Run `orbit migrate` against Postgres, point producers and the scheduler at Postgres, keep the Redis workers running until their queues are empty, then stop them. Nothing is lost as long as the Redis workers drain first.",
        "Did exactly that over a weekend, no lost jobs.",
    ),
    Case(
        "lease-vs-runtime",
        "comp:core",
        "What lease.duration for jobs that take two hours?",
        "Our `{job}` jobs take up to two hours. Should `lease.duration` be 7200 or more?",
        "No: the lease is renewed while the job runs, so it only needs to outlive a gap in renewals, not the job. Keep the default 900 s; it is also how long a job waits before it is retried after its worker dies, so a long lease makes recovery slow. Bound the runtime with the job's `timeout` instead.",
        "That clears up a misunderstanding in our team, thanks.",
        since="2.7.0",
    ),
    Case(
        "token-per-queue",
        "comp:api",
        "Can an API token be limited to one queue?",
        "We want a partner's token to enqueue only into `partner-{n}`. Scopes seem to be per operation only.",
        "Right, scopes are `read`, `enqueue`, `manage` and `admin`; nothing per queue yet. A queue allow-list per token in the tokens file is a reasonable addition; until then an API gateway rule on the request body can enforce it.",
        "We'll use the gateway rule for now. +1 for the allow-list.",
        since="2.8.0",
    ),
    Case(
        "health-check",
        "comp:cli",
        "Liveness probe for workers?",
        "What should a Kubernetes liveness probe for `orbit worker` run? `orbit status` talks to the broker and fails when Redis blips, which restarts every pod at once.",
        "`orbit worker ping --local`: it asks the worker on this host and exits 0 when it answers within 5 s, without touching the broker. Keep `orbit status` for dashboards.",
        "Switched the probe, no more mass restarts.",
    ),
    Case(
        "redis-persistence",
        "comp:broker-redis",
        "Does the Redis broker need persistence enabled?",
        "Our {redis} runs with persistence off (it's a cache cluster). Is that OK for Orbit?",
        "Not for a broker: on a restart every queued job and lease is gone. Use AOF with `appendfsync everysec` (at most a second of enqueues lost) on a Redis that is not shared with a cache, and `maxmemory-policy noeviction`.",
        "We'll give Orbit its own Redis with AOF.",
    ),
    Case(
        "code-reload",
        "comp:worker",
        "How do workers pick up new job code?",
        "After deploying a new version of `{job}`, some runs still use the old code for a while. Do workers reload modules?",
        "No, a worker imports job modules once. Deploy new code by restarting workers: SIGTERM, they stop claiming, finish within `worker.shutdown_grace`, and the new ones start with the new code. Running jobs finish on the old code.",
        "Makes sense, we restart on deploy now.",
    ),
)

BUGS = (
    Case(
        "limit-zero",
        "comp:api",
        "GET /v1/jobs?limit=0 returns every job",
        "```\n$ curl -s 'https://orbit.internal/v1/jobs?limit=0' -H \"Authorization: Bearer $TOKEN\" | jq length\n{big}\n```\n\nWe use `limit=0` to get only the `total` header. Instead it returns all jobs and took the API process to 2 GB.",
        'Confirmed: 0 is treated as "no limit". It should return an empty list with the total; the maximum page size should apply to everything else.',
        "Fixed in {fix}: `limit=0` returns no items, and limits above 1000 are refused with ORB-1603.",
    ),
    Case(
        "history-running",
        "comp:cli",
        "orbit jobs show --history fails for a running job",
        '```\n$ orbit jobs show {jid} --history\nTraceback (most recent call last):\n  File "/usr/local/lib/python3.12/site-packages/orbit/cli/jobs.py", line 141, in show\n    duration = attempt["finished_at"] - attempt["started_at"]\nKeyError: \'finished_at\'\n```\n\nWorks once the job has finished.',
        "The history view assumes every attempt has finished. A running attempt should show its elapsed time instead.",
        "Fixed in {fix}: running attempts show `running for 3m12s`, and the CLI never prints a traceback for this again.",
    ),
    Case(
        "trigger-queue",
        "comp:scheduler",
        "orbit schedule trigger ignores the schedule's queue",
        'Our `{job}` schedule has `queue = "reports"`. `orbit schedule trigger` enqueues it into `default`, where no worker for it listens, so it sits there until someone notices.',
        "Confirmed: `trigger` builds the job from the job name only and drops the schedule's options (queue, priority, timeout).",
        "Fixed in {fix}: a triggered run is enqueued exactly as the schedule would enqueue it.",
    ),
    Case(
        "queues-spaces",
        "comp:worker",
        "--queues 'default, reports' silently ignores reports",
        "```\n$ orbit worker --queues 'default, reports'\n... INFO orbit.worker [{wid}] ready concurrency=4 queues=default,' reports'\n```\n\nThe space makes the second queue name ` reports`, which never has jobs. No warning.",
        "Queue names can't contain spaces anyway, so we'll strip them; and a worker should warn when it listens on a queue nobody has ever enqueued to.",
        "Fixed in {fix}: names are stripped and invalid ones refused with ORB-1001.",
    ),
    Case(
        "password-in-error",
        "comp:core",
        "ORB-1001 ConfigInvalid prints the broker password",
        "A typo in the port made the worker print the whole URL, password included, into our central logs:\n\n```\nError: ORB-1001 ConfigInvalid: broker.url 'redis://orbit:S3cr3t-{n}@redis:63 79/0' is not a valid URL\n```",
        "Thanks, that's a leak. Every message that shows a URL must mask its password (`orbit:***@`).",
        "Fixed in {fix}; we also masked URLs in `orbit config show`. Please rotate that password.",
    ),
    Case(
        "prefix-colon",
        "comp:broker-redis",
        "key_prefix containing ':' breaks the reaper",
        'With `key_prefix = "team:orbit"` expired leases are never reclaimed. The reaper\'s `SCAN MATCH` pattern treats the colon as a separator, and the jobs only run again when someone restarts the workers.',
        "Confirmed, the pattern is built by splitting the prefix. It should use the prefix as given.",
        "Fixed in {fix}, with a test using `team:orbit` as the prefix.",
    ),
)


def _fill(text: str, c: Ctx) -> str:
    return text.format(
        job=c.job,
        n=c.pick((4, 8, 12, 16)),
        redis=c.redis_name,
        postgres=c.postgres_name,
        jid=c.jid(),
        wid=c.worker,
        big=c.pick(("184233", "911402", "2301877")),
        fix=c.fix,
    )


@template
def everyday_question(c: Ctx) -> Draft:
    case = c.pick(QUESTIONS)
    c.require(since=case.since)
    return Draft(
        title=case.title,
        body=md(_fill(case.body, c)) + f"\n\n{c.env()}.",
        labels=[case.comp, "type:question"],
        thread=[("maintainer", _fill(case.answer, c)), ("reporter", _fill(case.follow_up, c))],
        closes=c.chance(0.8),
        story=case.story,
    )


@template
def small_bug(c: Ctx) -> Draft:
    case = c.pick(BUGS)
    c.require(since=case.since)
    return Draft(
        title=case.title,
        body=_fill(case.body, c) + f"\n\n{c.env()}.",
        labels=[case.comp, "type:bug", c.pick(("severity:S3", "severity:S4"))],
        thread=[("maintainer", _fill(case.answer, c)), ("maintainer2", _fill(case.follow_up, c))],
        closes=c.chance(0.75),
        last_resolves=True,
        story=case.story,
    )
