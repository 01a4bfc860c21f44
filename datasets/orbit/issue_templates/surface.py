"""Reports about what operators touch: the HTTP API, the CLI, the dashboard and the docs."""

# ruff: noqa: E501

from __future__ import annotations

from issue_templates.base import Ctx, Draft, md, template


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
        "{log}", c.log(1, "WARNING", "orbit.api", "ORB-1601 ApiUnauthorized path=/v1/jobs auth_header=absent", "api-1")
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
                "Docs: say which workers survive orbit migrate during a rolling upgrade",
                "that old workers keep running after `orbit migrate` on Postgres but cannot start again "
                "(ORB-1702), so a rollback after the migration is not possible",
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
    declined = "I'd rather not, not sure I understood all of it."
    reply = c.pick(("Sure, PR coming.", declined, "Opened a PR."))
    thread = [
        ("maintainer", "Good catch, thanks. Would you like to write it? The docs are Markdown in `docs/`."),
        ("reporter", reply),
        (
            "maintainer2",
            f"No problem, I wrote it: the {page} page is updated." if reply == declined else "Merged, thanks!",
        ),
    ]
    return Draft(title=title, body=body, labels=["comp:docs", "type:docs"], thread=thread, closes=True, story=page)


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
