"""Input refused before anything is played, printed as the one line a user acts on.

The ``inspect`` command is a click program: an exception raised while Inspect resolves the models
or builds the task reaches click, which prints a ``ClickException`` as ``Error: <message>`` and
exits 1, and lets any other exception through to Python's traceback (120 to 400 lines above the
line that says what to fix). So every refusal the project raises there (a task parameter, a
``--model-role`` binding, a ``wolfbot/`` policy, a lessons folder) is a :class:`Refusal`, and also
the built-in exception a Python caller of ``inspect_ai.eval`` would catch (``ValueError``,
``PermissionError``).

The traceback is shown above the line when a debug flag asks for it: Inspect's
``--traceback-locals`` (``INSPECT_TRACEBACK_LOCALS=1``) or ``--log-level debug``
(``INSPECT_LOG_LEVEL=debug``; ``trace`` too).
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
import re
import sys
import traceback
from typing import IO, Any

import click


def traceback_asked() -> bool:
    """Whether the eval was started with a flag that asks for tracebacks (see the module's docstring)."""
    return os.environ.get("INSPECT_TRACEBACK_LOCALS") == "1" or logging.getLogger().isEnabledFor(logging.DEBUG)


class Refusal(click.ClickException):
    """One line naming what to fix. Put it before a built-in exception class (``class X(Refusal, ValueError)``):
    click's ``__init__`` hands the message on to that class, so ``str()``, ``args`` and ``except ValueError``
    work as for the built-in one."""

    def show(self, file: IO[Any] | None = None) -> None:
        if traceback_asked():
            traceback.print_exception(self, file=file or sys.stderr)
        super().show(file)


class ValueRefused(Refusal, ValueError):
    """A value that cannot be used: a task parameter, a model name, a ``--model-role`` binding."""


def one_line(err: BaseException, limit: int = 400) -> str:
    """An exception's message folded into one line: its lines joined, Inspect's ``ERROR:`` heading and rich
    style tags (``[bold]...[/bold]``, as Inspect's missing-API-key message has) dropped, cut at ``limit``.
    The line that names what to fix (the variable, the path) is often not the first."""
    text = str(err)
    for name in set(re.findall(r"\[/([a-z][a-z ]*)\]", text)):
        text = text.replace(f"[{name}]", "").replace(f"[/{name}]", "")
    parts = [line.strip() for line in text.splitlines() if line.strip()]
    if parts:
        parts[0] = parts[0].removeprefix("ERROR:").strip()
    joined = ": ".join(p.rstrip(":") for p in parts if p) or "no message"
    return joined if len(joined) <= limit else joined[:limit].rsplit(" ", 1)[0] + " …"


#: Inspect's message for a provider whose package is missing: "<feature> requires optional dependencies.
#: Install with: pip install <packages>".
_MISSING_PACKAGE = re.compile(r"^(?P<feature>.+?) requires optional dependencies\. "
                              r"Install with: pip install (?P<packages>.+)$")


def extra_of(package: str, distribution: str = "wolf-eval") -> str | None:
    """The extra of this project that installs ``package`` (the smallest, so ``openai`` and not ``test``), read
    from the installed distribution's metadata, so pyproject.toml stays the one home of the extras."""
    try:
        requires = importlib.metadata.requires(distribution) or []
    except importlib.metadata.PackageNotFoundError:
        return None
    extras: dict[str, list[str]] = {}
    for line in requires:
        name = re.split(r"[\s<>=!~;\[]", line, maxsplit=1)[0].lower()
        if m := re.search(r"""extra\s*==\s*["']([^"']+)["']""", line):
            extras.setdefault(m[1], []).append(name)
    having = [e for e, names in extras.items() if package.lower() in names]
    return min(having, key=lambda e: len(extras[e])) if having else None


def missing_provider(err: BaseException) -> str | None:
    """One line naming the extra to install when ``err`` is Inspect's refusal of a model whose provider package
    is not installed (``--model openai/gpt-4.1`` without ``openai``); None for any other error."""
    m = _MISSING_PACKAGE.match(one_line(err))
    if m is None:
        return None
    packages = m["packages"].split()
    extras = [e for e in (extra_of(p) for p in packages) if e]
    if not extras:
        return None
    named = " ".join(f"'.[{e}]'" for e in dict.fromkeys(extras))
    return (f"{m['feature']} needs the {', '.join(packages)} package, which is not installed: run pip install -e "
            f"{named} in the wolf-eval clone")


__all__ = ["Refusal", "ValueRefused", "extra_of", "missing_provider", "one_line", "traceback_asked"]
