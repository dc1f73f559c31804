"""Argument parsing for skills: positionals and `--options`, every problem naming its argument.

Like argparse, without its habit of exiting the process. Problems come back all at once, each
as `skillArgs[i]: ...` (or `skillArgs: missing <name>`), so a definition validator can report
them with the step's path in front. `--` ends the options: what follows is text even when it
starts with `--`. With `static` (create time), values still holding a `{{...}}` template are
not converted, and an unknown `--word` is an error; at run time an unknown `--word` is text,
since rendered data may start with dashes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from baton_workflow.service.step_ports import is_templated


class ArgumentProblems(ValueError):
    """The arguments do not fit the skill; `problems` lists each one."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass(frozen=True)
class Positional:
    """A positional argument; `many` takes every remaining one (it must come last)."""

    name: str
    many: bool = False
    optional: bool = False

    def usage(self) -> str:
        """`<name>`, `<name>...`, `[<name>]`."""
        text = f"<{self.name}>" + ("..." if self.many else "")
        return f"[{text}]" if self.optional else text


@dataclass(frozen=True)
class Option:
    """A `--name VALUE` (or `--name=VALUE`) option, or a `--name` flag (`kind="flag"`)."""

    name: str
    kind: Literal["str", "int", "flag"] = "str"
    default: Any = None
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    @property
    def key(self) -> str:
        """The parsed value's key: `--ignore-case` -> `ignore_case`."""
        return self.name.lstrip("-").replace("-", "_")

    def usage(self) -> str:
        """`[--name]` or `[--name VALUE]`."""
        if self.kind == "flag":
            return f"[{self.name}]"
        return f"[{self.name} {'|'.join(self.choices) or self.key.upper()}]"

    def convert(self, raw: str) -> tuple[Any, str | None]:
        """The typed value, or a problem saying what was expected."""
        if self.choices and raw not in self.choices:
            return raw, f"{self.name} must be one of {', '.join(self.choices)}, got {raw!r}"
        if self.kind != "int":
            return raw, None
        try:
            number = int(raw)
        except ValueError:
            return raw, f"{self.name} expects a whole number, got {raw!r}"
        low = self.minimum if self.minimum is not None else number
        high = self.maximum if self.maximum is not None else number
        if not low <= number <= high:
            return number, f"{self.name} must be between {low} and {high}, got {number}"
        return number, None


@dataclass(frozen=True)
class ParsedArgs:
    """Parsed values by key, and where each given value sits in `skillArgs`."""

    values: Mapping[str, Any]
    positions: Mapping[str, int] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def where(self, key: str) -> str:
        """`skillArgs[i]` for the argument behind `key`, or `skillArgs` when it was not given."""
        index = self.positions.get(key)
        return "skillArgs" if index is None else f"skillArgs[{index}]"


@dataclass(frozen=True)
class ArgSpec:
    """The arguments a skill takes."""

    positionals: tuple[Positional, ...] = ()
    options: tuple[Option, ...] = ()

    def usage(self, name: str) -> str:
        """A one-line usage: `regex-extract <text> <pattern> [--all]`."""
        parts = [p.usage() for p in self.positionals] + [o.usage() for o in self.options]
        return " ".join([name, *parts])

    def parse(self, name: str, args: Sequence[str], *, static: bool = False) -> ParsedArgs:
        """Parse `args`; raises `ArgumentProblems` listing every problem."""
        parsed, problems = self.read(name, args, static=static)
        if problems:
            raise ArgumentProblems(problems)
        return parsed

    def read(
        self, name: str, args: Sequence[str], *, static: bool = False
    ) -> tuple[ParsedArgs, list[str]]:
        """What parses, and every problem; a value with a problem keeps its default."""
        values: dict[str, Any] = {o.key: o.default for o in self.options}
        positions: dict[str, int] = {}
        problems: list[str] = []
        texts: list[tuple[int, str]] = []
        for index, arg, option, raw in self._scan(args, static, problems):
            if option is None:
                texts.append((index, arg))
            elif option.kind == "flag":
                values[option.key] = True
            elif raw is not None:
                positions[option.key] = index
                values[option.key] = raw
                if not (static and is_templated(raw)):
                    converted, problem = option.convert(raw)
                    values[option.key] = option.default if problem else converted
                    problems += [f"skillArgs[{index}]: {problem}"] if problem else []
        problems += self._place(name, texts, values, positions)
        return ParsedArgs(values, positions), problems

    def _scan(
        self, args: Sequence[str], static: bool, problems: list[str]
    ) -> Iterator[tuple[int, str, Option | None, str | None]]:
        """Each argument as (index, text, its option or None, the option's value)."""
        by_name = {o.name: o for o in self.options}
        index, options_ended = 0, False
        while index < len(args):
            arg = args[index]
            flag, eq, inline = arg.partition("=")
            option = None if options_ended else by_name.get(flag)
            if arg == "--" and not options_ended:
                options_ended = True
            elif option is None:
                if static and not options_ended and _looks_like_option(arg):
                    known = ", ".join(by_name) or "none"
                    problems.append(
                        f"skillArgs[{index}]: unknown option {flag}; known options: {known} "
                        "(put -- before text that starts with --)"
                    )
                else:
                    yield index, arg, None, None
            elif option.kind == "flag":
                if eq:
                    problems.append(f"skillArgs[{index}]: {flag} takes no value")
                yield index, arg, option, None
            elif eq:
                yield index, arg, option, inline
            elif index + 1 < len(args):
                index += 1
                yield index, args[index], option, args[index]
            else:
                problems.append(f"skillArgs[{index}]: {flag} needs a value")
            index += 1

    def _place(
        self,
        name: str,
        texts: list[tuple[int, str]],
        values: dict[str, Any],
        positions: dict[str, int],
    ) -> list[str]:
        """Hand the positional texts out in order; missing and extra ones are problems."""
        problems: list[str] = []
        rest = list(texts)
        for spec in self.positionals:
            taken, rest = (rest, []) if spec.many else (rest[:1], rest[1:])
            if taken:
                positions[spec.name] = taken[0][0]
            elif not spec.optional:
                problems.append(f"skillArgs: missing {spec.usage()} (usage: {self.usage(name)})")
            texts_only = [text for _, text in taken]
            values[spec.name] = texts_only if spec.many else (texts_only[0] if taken else None)
        problems += [
            f"skillArgs[{index}]: unexpected argument {_quote(text)} (usage: {self.usage(name)})"
            for index, text in rest
        ]
        return problems


def _looks_like_option(arg: str) -> bool:
    return arg.startswith("--") and len(arg) > 2 and not is_templated(arg) and " " not in arg


def _quote(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")
