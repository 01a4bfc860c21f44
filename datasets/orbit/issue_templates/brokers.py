"""Reports about the Redis and Postgres brokers: connections, auth, isolation, migrations, pools, NOTIFY."""

# ruff: noqa: E501

from __future__ import annotations

from issue_templates.base import Ctx, Draft, md, template


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
        "(or at least `+evalsha +script|load`) besides streams and sorted sets. The ORB-1302 entry in "
        "error-codes.md lists the minimal ACL.",
        "certificate": "Pass the CA with `?ssl_ca_certs=/etc/ssl/private-ca.pem` on the URL; Orbit hands "
        "query parameters to redis-py.",
        "WRONGPASS": "Characters like `@` and `/` must be percent-encoded in a URL (`%40`, `%2F`), also when "
        "the URL comes from `ORBIT_BROKER_URL`.",
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
        story=key,
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
    # The reporter upgrades to the current release, whose minor version brought a migration (2.7:
    # schema 7 -> 9, 2.8: 9 -> 10); later reporters are past the last schema change of 2.x.
    c.require(since="2.7.0", before="2.8.2")
    target = c.version
    old, new = (7, 9) if target.startswith("2.7.") else (9, 10)
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
                The order is in the upgrading guide: run `orbit migrate` once with the **new** release
                before any new worker starts (a Kubernetes Job or a helm pre-upgrade hook), then roll the
                workers. Migrations within 2.x are additive: old workers that are already running keep
                working against the new schema, but an old process that starts after the migration
                refuses it (ORB-1702), and there are no down-migrations, so finish the rollout rather
                than rolling back.
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
def jobs_ls_slow(c: Ctx) -> Draft:
    rows = c.pick(("8M", "14M", "30M"))
    seconds = c.pick((18, 40, 95))
    body = md(
        f"""
        `orbit jobs ls --state failed --name {c.job}` takes {seconds} s on our Postgres broker
        ({c.postgres_name}, `orbit_jobs` has {rows} rows because we keep 30 days). During that time the API's
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
