"""Skills for `skill` steps: offline text skills, `web-search`, and plug-in modules.

A skill is an `ArgSpec` (what `skillArgs` it takes), an optional check of concrete values and
one async function over a `SkillCall`. Text skills run in a worker thread, so a long one never
stalls the event loop and its timeout still fails the step (regex-extract's match, which
could backtrack for ever, also gives up at it: `text_skills`). No skill starts a process.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from baton_workflow.adapters.httpx_fetch import HttpRequest, HttpxFetcher
from baton_workflow.adapters.skill_args import (
    ArgSpec,
    Option,
    ParsedArgs,
    Positional,
)
from baton_workflow.adapters.text_skills import TEXT_SKILLS
from baton_workflow.adapters.tools import StepToolsConfig, backstop, load_plugins
from baton_workflow.service.step_ports import (
    SkillResult,
    StepActionFailed,
    StepTimedOut,
    UnknownSkill,
)

logger = logging.getLogger(__name__)

SEARCH_URL_ENV = "BATON_WORKFLOW_SEARCH_URL"


@dataclass(frozen=True)
class SkillCall:
    """One run of a skill: its parsed arguments, the raw ones, and the time it has."""

    args: ParsedArgs
    raw: tuple[str, ...]
    timeout: float


SkillFunction = Callable[[SkillCall], Awaitable[SkillResult]]
ValueCheck = Callable[[ParsedArgs, bool], list[str]]


@dataclass(frozen=True)
class Skill:
    """A named skill; `check_values(args, static)` reports bad concrete values."""

    name: str
    spec: ArgSpec
    run: SkillFunction
    description: str = ""
    check_values: ValueCheck | None = None

    def problems(self, args: Sequence[str], *, static: bool) -> tuple[ParsedArgs, list[str]]:
        """The parsed arguments and every problem: arguments first, then their values."""
        parsed, found = self.spec.read(self.name, args, static=static)
        if self.check_values is not None:
            found += self.check_values(parsed, static)
        return parsed, found


class SkillRegistry:
    """Skills by name; a second skill with a taken name is refused."""

    def __init__(self, config: StepToolsConfig | None = None) -> None:
        self.config = config or StepToolsConfig()
        self.http = self.config.fetcher()
        self._skills: dict[str, Skill] = {}

    def add(self, skill: Skill) -> Skill:
        """Register `skill`; raises `ValueError` when its name is taken."""
        if skill.name in self._skills:
            raise ValueError(f"skill {skill.name!r} is already registered")
        self._skills[skill.name] = skill
        return skill

    def names(self) -> list[str]:
        """Every skill name, sorted."""
        return sorted(self._skills)

    def get(self, name: str) -> Skill:
        """The skill called `name`; raises `UnknownSkill` listing the known ones."""
        skill = self._skills.get(name)
        if skill is None:
            raise UnknownSkill(name, self.names())
        return skill

    def usage(self, name: str) -> str:
        """One line: the skill's name and arguments."""
        return self.get(name).spec.usage(name)

    def check(self, name: str, args: Sequence[str]) -> list[str]:
        """Problems with a step's static `skillArgs` (templated values are checked at run time)."""
        try:
            skill = self.get(name)
        except UnknownSkill as exc:
            return [f"skill: {exc.message}"]
        return skill.problems(args, static=True)[1]

    async def run(self, name: str, args: Sequence[str], *, timeout: float) -> SkillResult:
        """Run a skill on rendered arguments within `timeout`; failures are `StepActionFailed`."""
        skill = self.get(name)
        parsed, problems = skill.problems(args, static=False)
        if problems:
            raise StepActionFailed("; ".join(problems))
        try:
            async with asyncio.timeout(backstop(timeout)):
                return await skill.run(SkillCall(parsed, tuple(args), timeout))
        except StepActionFailed:
            raise
        except TimeoutError:
            raise StepTimedOut(f"{name}: no result within {timeout:g}s") from None
        except Exception as exc:
            logger.exception("skill %s failed", name)
            raise StepActionFailed(f"{name} failed: {type(exc).__name__}: {exc}") from exc


def build_skills(config: StepToolsConfig | None = None) -> SkillRegistry:
    """The shipped skills plus those of `config.skill_modules` (`register_skills(registry)`)."""
    registry = SkillRegistry(config)
    for skill in TEXT_SKILLS:
        registry.add(
            Skill(skill.name, skill.spec, _in_thread(skill.run), skill.description, skill.check)
        )
    registry.add(web_search_skill(registry.http, registry.config.search_url))
    load_plugins(
        registry, registry.config.skill_modules, "register_skills", "BATON_WORKFLOW_SKILL_MODULES"
    )
    return registry


def _in_thread(run: Callable[[ParsedArgs, float], SkillResult]) -> SkillFunction:
    async def offloaded(call: SkillCall) -> SkillResult:
        return await asyncio.to_thread(run, call.args, call.timeout)

    return offloaded


def web_search_skill(http: HttpxFetcher, search_url: str | None) -> Skill:
    """`web-search <query> [--depth N]`: the first N results of a SearxNG-style JSON endpoint."""

    async def web_search(call: SkillCall) -> SkillResult:
        if not search_url:
            raise StepActionFailed(f"web-search is not configured: set {SEARCH_URL_ENV}")
        query, depth = call.args["query"], call.args["depth"]
        response = await http.fetch(
            HttpRequest(
                "GET",
                search_url,
                headers={"Accept": "application/json"},
                params={"q": query, "format": "json"},
            ),
            call.timeout,
        )
        results = _search_results(response.text, response.url)[:depth]
        lines = [
            f"{n}. {hit['title']}\n   {hit['url']}"
            + (f"\n   {hit['snippet']}" if hit["snippet"] else "")
            for n, hit in enumerate(results, start=1)
        ]
        return SkillResult(output="\n\n".join(lines), data={"query": query, "results": results})

    spec = ArgSpec(
        positionals=(Positional("query"),),
        options=(Option("--depth", kind="int", default=5, minimum=1, maximum=50),),
    )
    return Skill("web-search", spec, web_search, "Search the web through a configured endpoint")


def _search_results(text: str, url: str) -> list[dict[str, str]]:
    """`results[*].{title,url,content}` of a SearxNG answer, as title/url/snippet."""
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise StepActionFailed(f"search answer from {url} is not JSON: {exc}") from None
    hits = document.get("results") if isinstance(document, dict) else None
    if not isinstance(hits, list):
        raise StepActionFailed(f'search answer from {url} has no "results" list')
    return [
        {
            "title": str(hit.get("title") or ""),
            "url": str(hit.get("url") or ""),
            "snippet": re.sub(r"\s+", " ", str(hit.get("content") or "")).strip(),
        }
        for hit in hits
        if isinstance(hit, dict)
    ]
