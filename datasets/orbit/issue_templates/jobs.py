"""Reports about jobs and their configuration: payloads, idempotency, retries, dead jobs, settings, wishes."""

# ruff: noqa: E501

from __future__ import annotations

from issue_templates.base import Ctx, Draft, md, template


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
    backoff = c.pick(("exponential", "fixed"))
    base_delay = c.pick((10, 30))
    # The first timeout is logged after one attempt; the last after every retry and its delay.
    delays = [base_delay * (2 ** (n - 2) if backoff == "exponential" else 1) for n in range(2, attempts + 1)]
    retrying_min = ((attempts - 1) * timeout + sum(delays)) / 60
    body = md(
        f"""
        `{c.job}` has `timeout = {timeout}` and our config has:

        ```toml
        [retries]
        max_attempts = {attempts}
        backoff = "{backoff}"
        base_delay = {base_delay}
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
            3 + retrying_min,
            "WARNING",
            "orbit.worker",
            f"ORB-1201 JobTimeout job={c.job} timeout={timeout}s attempt=1/{attempts}",
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
        story=case,
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
    answered = c.chance(0.4)
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
        (
            "maintainer2",
            "`enqueue(..., block_for=30)` is a reasonable addition. "
            + (
                "Opened a feature request for it; closing this one as answered."
                if answered
                else "Keeping it open as a feature."
            ),
        ),
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
        closes=answered,
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
        story=title,
    )
