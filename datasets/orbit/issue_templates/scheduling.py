"""Reports about the scheduler: cron parsing, daylight saving, time zones, drift, catch-up."""

# ruff: noqa: E501

from __future__ import annotations

from issue_templates.base import Ctx, Draft, md, template


@template
def cron_parse_error(c: Ctx) -> Draft:
    expr, why, fixed_in = c.pick(
        (
            ("0 0 L * *", "`L` (last day of month) is supported by Quartz and by our old cron setup", ""),
            ("*/90 * * * *", "I wanted every 90 minutes", ""),
            ("0 9 * * mon-fri", "lower-case day names work in Vixie cron", "2.6.4"),
            ("@weekly", "the docs list `@weekly` next to `@daily` and `@hourly`", "2.7.1"),
            ("0 0 29 2 *", "it is valid, it just only fires in leap years", "2.8.0"),
            ("30 2 * * 1#1", "first Monday of the month, `#` syntax", ""),
        )
    )
    if fixed_in:
        c.require(before=fixed_in)  # a parser bug is reported until the release that fixes it
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
    if fixed_in:
        answer = f"`{expr}` should parse; that is a bug in the field parser. Fixed in {fixed_in}, with a test."
    elif expr.startswith("*/90"):
        answer = (
            "A step cannot reach past its field: minutes only go to 59, so no cron can say every 90 "
            "minutes in one line. Two schedules do it: `0 0-21/3 * * *` and `30 1-22/3 * * *`. The error "
            "should say that, though; we'll improve the message."
        )
    else:
        answer = (
            f"`{expr}` is a Quartz extension, not five-field cron, and Orbit does not support it (see "
            "scheduling.md); the error is right, but it should name the field. We'll improve the message."
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
        closes=bool(fixed_in),
        story=expr,
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
