"""A question as maintainers type it, made readable for the planner's rules.

Markdown and typographic variants become plain text (`**#41**`, `№41`, `ORB‑1101` with a
non-breaking hyphen, curly quotes, `[brokers](brokers.md)`); common shorthand is spelled out
(`iss`, `lbl`, `cmp`, `n`, `w/`, `pls`); and a word the planner does not know that is one or two
edits from one it does (`shwo`, `confg`, `brokrs`, `expalin`) is corrected with rapidfuzz.
Words that occur in the dataset itself are never corrected: they are already real words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from atlas.offline.reading.lazy import lazy

PLANNER_WORDS = frozenset(
    re.findall(
        r"\S+",
        """
        show issue issues ticket tickets label labels compare explain search find open closed comment reply
        docs doc documentation error errors code codes section page guide bug bugs severity please check read
        pull tag mark summary summarise summarize details mean meaning question questions feature features
        config configuration broker brokers lease leases scheduling scheduler deployment upgrading upgrade
        troubleshooting workers worker postgres redis core retries memory logging
        oldest newest latest earliest least most recently updated active commented longest last list this month week
        similar duplicate duplicates related suggest triage count inbox with without year years about
        """,
    )
)
"""The words the planner's rules are written with: what a typo is corrected towards."""

SHORTHAND = {
    "iss": "issue",
    "isu": "issue",
    "lbl": "label",
    "cmp": "compare",
    "chk": "check",
    "err": "error",
    "u": "you",
    "pls": "please",
    "hw": "how",
    "plz": "please",
    "w/o": "without",
    "w/": "with",
    "w": "with",
    "n": "and",
    "thx": "thanks",
    "wat": "what",
    "wut": "what",
    "ur": "your",
    "abt": "about",
    "yr": "year",
    "yrs": "years",
    "wk": "week",
    "wks": "weeks",
    "mth": "month",
    "mths": "months",
    "bc": "because",
    "kindly": "please",
}
# Contractions typed without their mark (`whos`, `dont`); `its`, `lets`, `wont`, `well` and `ill` are words too.
SHORTHAND.update(
    {
        bare: bare[: -len(end)] + mark
        for mark, end, words in (
            ("'s", "s", "whos whats wheres hows theres thats"),
            ("n't", "nt", "dont doesnt didnt isnt arent wasnt werent havent hasnt cant couldnt shouldnt wouldnt"),
            ("'re", "re", "youre theyre"),
        )
        for bare in words.split()
    }
)
_SHORTHAND_RE = lazy(r"(?<![\w/#:.-])(" + "|".join(re.escape(k) for k in SHORTHAND) + r")(?![\w/:-])", re.I)
_WORD_RE = lazy(r"(?<![\w:#.-])[A-Za-z]{3,}(?![\w:-])")
_LINK_RE = lazy(r"\[([^\]\n]+)\]\([^)\s]+\)")
_EMPHASIS_RE = lazy(r"(\*\*|__|(?<!\w)_(?=\S)|(?<=\S)_(?!\w))")
_LINE_MARK_RE = lazy(r"^\s*(?:#{1,6}\s+|[*+-]\s+|>\s?|\d+[.)]\s+)", re.MULTILINE)
_TYPOGRAPHY = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def plain(text: str) -> str:
    """Markdown marks and typographic variants out; the words, numbers and code spans kept."""
    text = text.translate(_TYPOGRAPHY).replace("№", "#").replace("\u00a0", " ")
    text = _LINK_RE.sub(r"\1", text)
    text = re.sub(r"`(#?\d+)`", r"\1", text)  # `#87` in a code span is still an issue
    text = re.sub(r"\b(issue|ticket|bug)(\d)", r"\1 \2", text, flags=re.IGNORECASE)
    text = _LINE_MARK_RE.sub(" ", text)
    text = _EMPHASIS_RE.sub("", text)
    stripped = text.strip()
    if len(stripped) > 2 and stripped[0] == stripped[-1] and stripped[0] in "`\"'" and stripped.count(stripped[0]) == 2:
        text = stripped[1:-1]  # the whole question quoted or in a code span
    return " ".join(text.split(" ")).strip()


def spelled_out(text: str) -> str:
    """Shorthand replaced by the words it stands for (`r` only as `are`, after a question word: `R` is a language)."""
    text = _SHORTHAND_RE.sub(lambda match: SHORTHAND[match.group(1).lower()], text)
    return _ARE_RE.sub(r"\1 are", text)


_PREAMBLE_RE = lazy(
    r"^\s*(?:(?:hi|hello|hey|morning|good\s+morning)(?:\s+(?:there|atlas|team|all))?\s*[,!.:-]+\s*"
    r"|(?:hi|hello|hey)\s+(?=(?:a\s+)?quick\b)|please\s*,\s*"
    r"|(?:i\s+am|i'm|im)\s+(?:a\s+|an\s+|the\s+)?(?:new\s+|first[- ]time\s+)?(?:contributor|maintainer|user|developer"
    r"|dev|triager|reviewer|release\s+manager|volunteer|student|beginner|newbie|newcomer|researcher|engineer)"
    r"(?:\s+and\s+(?:would\s+like|want|wanna|i'?d\s+like|hope)\s+to\s+(?:help|contribute)(?:\s+out)?)?\s*[,.:;!-]+\s*"
    r"|(?:i'?d\s+like|i\s+would\s+like|i\s+want|i\s+wanna)\s+to\s+(?:contribute|help)(?:\s+out)?\s*[,.:;!-]+\s*"
    r"|(?:i\s+am|i'm|im)\s+new(?:\s+here|\s+to\s+(?:the|this)\s+(?:[\w-]+\s+)?(?:project|repo(?:sitory)?|codebase|library))?"
    r"(?:\s+and\s+(?:would\s+like|want|wanna|i'?d\s+like|hope)\s+to\s+(?:help|contribute)(?:\s+out)?)?\s*[,.:;!-]+\s*"
    r"|(?:(?:i(?:\s+(?:want|would\s+like|need)|'d\s+like|d\s+like)\s+(?:to\s+)?|i\s+wanna\s+)(?:know|see|find\s+out)"
    r"|(?:please\s+)?(?:(?:can|could)\s+(?:you|u)\s+)?(?:please\s+)?(?:tell\s+me|point\s+out|let\s+me\s+know)"
    r"|(?:is\s+it|would\s+it\s+be)\s+possible\s+(?:for\s+me\s+)?to\s+(?:have|get|see)"
    r"|please\s+tell\s+me)\s+(?=(?:which|what|who|whether|if|how|where|when|all|any|the|a|an|some)\b)"
    r"|[\w-]+(?:\s+[\w-]+)?\s+here\s*[,.:;!()-]+\s*"  # `new contributor here :)`
    r"|(?:i\s+want(?:\s+to)?\s+ask|(?:a\s+)?quick\s+(?:question|q|one)|(?:i\s+have\s+a\s+)?question)\s*[,.:;!-]+\s*"
    r"|(?:(?:a\s+)?quick\s+[a-z]+(?:\s+check)?\s+)?(?:for|before|ahead\s+of|after)\s+(?:(?:the|our|my|this|next"
    r"|tomorrow'?s|today'?s)\s+[a-z-]+(?:\s+[a-z-]+){0,2}|(?:[a-z-]+\s+)?(?:standup|stand-up|meeting|sync|release|review"
    r"|retro|planning|call))\s*:\s*"
    r"|(?:[a-z-]+\s+)?(?:review|report|audit|meeting|sync|standup|stand-up|retro|planning|changelog|release\s+notes"
    r"|checklist|status|recap|digest)"
    r"\s*:\s*)+",
    re.I,
)
"""What is said before the request: a greeting, who the person is (`I am new contributor,`, `release manager here:`,
`I'm new to the project and would like to help -`), that a question follows (`i want ask:`, `I want to know which …`),
what it is for (`For the quarterly report:`, `quick one before standup:`, `security review:`).
Never a login: `I'm lhoestq` says whose issues `my issues` are."""


_PURPOSE_RE = lazy(
    r"^\s*(?:ok(?:ay)?[,\s]+)?(?:so\s+)?(?:(?:for|before|ahead\s+of)\s+(?:the\s+|our\s+|my\s+|this\s+|tomorrow'?s\s+)?"
    r"[\w-]+(?:\s+[\w-]+){0,3}?\s*,?\s+)?(?:i|we|(?P<who>(?:my|our|the)\s+[\w-]+))"
    r"(?:'d\s+like|'m\s+needing|\s+(?:need|want|would\s+like|am\s+needing|(?(who)(?:needs|wants|asked\s+for)|(?!))))\s+"
    r"(?:(?:(?:a\s+few|some|a\s+couple\s+of)\s+)?(?:numbers|figures|stats|things|answers|facts)\s*:\s*"
    r"|(?:an?|some)\s+[a-z'-]+(?:\s+[a-z'-]+){0,8}?\s*:\s*"  # `I need a one-paragraph status for my weekly update:`
    r"|to\s+(?:know|see|get|have)\s+(?=(?:every|all|the|a|an|some|how|which|what|who)\b)"
    r"|(?:both\s+)?(?=(?:every|all|the\s+list|a\s+list|the\s+\d+|\d+|(?:the\s+)?(?:open|closed|new|newest|latest|oldest)"
    r"|the\s+(?:number|count|total)\s+of|a\s+count\s+of)\b))",
    re.I,
)
"""`For the release notes I need every closed issue …`, `ok so before the sync tomorrow I need a few numbers: …`, `my
manager wants numbers: …`: what the person is doing and that they (or whom they ask for) need something, before what
they need."""
_DOING_BEFORE_RE = lazy(
    r"^\s*(?:(?:i'?m|i\s+am|we'?re|we\s+are)\s+)?(?:trying\s+to|going\s+to|about\s+to|planning\s+to|working\s+on"
    r"|preparing|putting\s+together|deciding|cutting|shipping|tagging|getting\s+ready|wrapping\s+up|finishing"
    r"|(?:just\s+)?back\s+from)\b"
    r"[^,;:?!.\d#]*?(?:[,;:]|\s+[-–—]+)\s*(?:so\s+|and\s+)?"
    # `prepping the quarterly report: …`: an activity said first, alone, up to a colon or a dash
    r"|^\s*(?!(?:looking|searching|asking|needing|wanting|getting|finding|listing|showing|counting|comparing|checking)\b)"
    r"[a-z]+ing\s+(?:the|a|an|our|my|this|next|for)\b[^,;:?!.\d#]*?(?::|\s+[-–—]+)\s*",
    re.I,
)
"""`I'm trying to decide what to prioritise for the next release, so …`, `cutting a release tomorrow - …`: what the
person is doing, said first (never an issue it names: `I'm working on #41, show me similar ones`)."""
_DOING_AFTER_RE = lazy(
    r"[\s,;-]+(?:(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:putting\s+together|preparing|writing|drafting|working\s+on|doing"
    r"|compiling|making|updating)\b[^?!.]*|for\s+(?:the|our|my)\s+(?:changelog|release\s+notes?|weekly\s+report|report"
    r"|meeting|sync|standup|stand-up|review)\b|so\s+(?:that\s+)?(?:i|we)\s+(?:can|could)\s+[^?!.]*)\s*[.!?]*$",
    re.I,
)
"""`…, I'm putting together the changelog`, `… so I can see what has been waiting longest?`: what the person is
doing, or will do with the answer, said after the request."""


def without_preamble(text: str) -> str:
    """The request without what is said before it (a greeting, who is asking, what they are doing and need) or after
    it (what they are doing); the words as they are otherwise."""
    text = _DOING_BEFORE_RE.sub("", _PREAMBLE_RE.sub("", text, count=1) or text, count=1) or text
    return _DOING_AFTER_RE.sub("", _PURPOSE_RE.sub("", text, count=1)) or text


_ARE_RE = lazy(
    r"\b(what|which|where|who|how|when|why|there|they|many|\w+s)\s+r\b(?![\w/:-])"
    r"(?=\s+(?:open|closed|still|there|the|any|labell?ed|tagged|fixed|new|stale|untriaged|[?.!]|$))",
    re.I,
)
"""`r` as `are` after a question word or a plural, before what they are (`isues r open`): `R` is a language."""


def _inflected(word: str) -> bool:
    """`comments`, `labelled`, `posting`: a planner word with an ending, or `close` without one, is no typo of it."""
    return any(
        (word.endswith(end) and word[: -len(end)] in PLANNER_WORDS) or word + end in PLANNER_WORDS
        for end in ("s", "es", "d", "ed", "led", "ing", "ly")
    )


def corrected(text: str, known: frozenset[str], targets: Iterable[str] = PLANNER_WORDS) -> str:
    """Each unknown word replaced by the planner word it is one edit from (two, for long words)."""
    choices = sorted(set(targets))

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        lower = word.lower()
        if lower in known or lower in PLANNER_WORDS or _inflected(lower):
            return word
        allowed = 1 if len(lower) < 7 else 2
        from rapidfuzz import process  # only a word the planner does not know pays for the library
        from rapidfuzz.distance import OSA

        # A typo keeps the first letter: `shwo` is `show`, but `kind` is not `find`, nor `unlabel` `label`.
        # A word of three letters is never a target (`bug` would tie `bugz` with `bugs` and win by its order).
        same_start = [choice for choice in choices if choice[0] == lower[0] and len(choice) >= 4]
        near = process.extract(lower, same_start, scorer=OSA.distance, score_cutoff=allowed, limit=None)
        near = [hit for hit in near if not _other_word(lower, str(hit[0]))]
        # A tie goes to the word of the same length (`issuse` is `issues` with two letters swapped, not `issue`).
        best = min(near, key=lambda hit: (hit[1], abs(len(hit[0]) - len(lower)), hit[0]), default=None)
        return str(best[0]) if best is not None else word

    return _WORD_RE.sub(fix, text)


_KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_KEYS = {key: (row, col) for row, keys in enumerate(_KEY_ROWS) for col, key in enumerate(keys)}


def _other_word(word: str, target: str) -> bool:
    """Whether the letters of `word` in place of those of `target` are too far on the keyboard to be slips: `care`
    is a word of its own, not `core` mistyped (`a` and `o` are far apart), nor `loading` `logging`; `bugz` is `bugs`
    (`z` is beside `s`). Two letters swapped (`shwo`) are a slip wherever the keys are."""
    if len(word) != len(target):
        return False
    changed = [at for at, (a, b) in enumerate(zip(word, target, strict=True)) if a != b]
    swapped = len(changed) == 2 and changed[1] == changed[0] + 1 and word[changed[0]] == target[changed[1]]
    return not swapped and any(_far(word[at], target[at]) for at in changed)


def _far(typed: str, meant: str) -> bool:
    if typed not in _KEYS or meant not in _KEYS:
        return True
    (row, col), (row_meant, col_meant) = _KEYS[typed], _KEYS[meant]
    return abs(row - row_meant) > 1 or abs(col - col_meant + (row - row_meant) * 0.5) > 1.5
