"""`atlas models`: the models the server lists (`GET /models`), as a table or as JSON lines."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from atlas.foundation.errors import ModelError, ModelNotFoundError
from atlas.foundation.sanitize import clean_line
from atlas.ui.json_out import print_json
from atlas.ui.render import data_table, local_time, make_console

MAX_MODELS = 10_000
"""A listing longer than this is cut: no real server serves more, and a hostile one could."""


def listed_models() -> tuple[str, list[dict[str, Any]]]:
    """The base URL and its models as `{"id", "owned_by", "created"}`, through the openai SDK."""
    import openai

    from atlas.foundation.url_safety import redact_url, url_secrets
    from atlas.llm.openai_client import Wire, client_endpoint, model_timeout

    key, real_url = client_endpoint()
    base_url = redact_url(real_url)  # what is shown; only the client gets the credentials
    timeout_s = model_timeout()
    wire = Wire("", base_url, "models", timeout_s, max_retries=2, hidden=tuple(url_secrets(real_url)))
    client = openai.OpenAI(api_key=key, base_url=real_url, timeout=timeout_s, max_retries=2)
    try:
        page = client.models.list()
        models = [_model_row(model) for _, model in zip(range(MAX_MODELS), page, strict=False)]
    except openai.NotFoundError:
        raise ModelNotFoundError(
            f"{base_url} does not list its models (404 on /models): name one with --model or ATLAS_MODEL"
        ) from None
    except openai.OpenAIError as exc:
        raise wire.translate(exc) from None
    except (ValueError, TypeError, AttributeError) as exc:
        raise ModelError(f"{base_url} answered /models with something that is not a model list ({exc})") from None
    finally:
        client.close()
    return base_url, [row for row in models if row["id"]]


def _model_row(model: Any) -> dict[str, Any]:
    """Only well-typed fields: the listing comes from outside."""
    ident, owner = getattr(model, "id", None), getattr(model, "owned_by", None)
    created = getattr(model, "created", None)
    return {
        "id": ident if isinstance(ident, str) else "",
        "owned_by": owner if isinstance(owner, str) else None,
        "created": created if isinstance(created, int) and not isinstance(created, bool) else None,
    }


def show_models(*, as_json: bool) -> None:
    base_url, models = listed_models()
    if as_json:
        # ASCII JSON: every control character a server sent arrives escaped and inert.
        for row in models:
            print_json(row)
        return
    console = make_console(for_tables=True)
    if not models:
        console.print(Text(clean_line(f"{base_url} lists no models.")))
        return
    rows = [(row["id"], row["owned_by"] or "", local_time(row["created"]) if row["created"] else "") for row in models]
    console.print(data_table(("model", "owned by", "created"), rows))
