"""Reports about leases and worker processes: double runs, stolen leases, heartbeats, shutdown, memory."""

from __future__ import annotations

from issue_templates.base import Ctx, Draft, md, template


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
