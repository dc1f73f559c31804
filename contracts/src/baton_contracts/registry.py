"""The one registry of wire messages: decode bytes to the right model, find streams by subject."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import ValidationError

from baton_contracts.base import Delivery, Kind, Message
from baton_contracts.errors import MalformedMessage, UnknownMessageType
from baton_contracts.streams import Retention, StreamSpec, stream_name


def subject_matches(pattern: str, subject: str) -> bool:
    """NATS wildcard matching: `*` is one token, `>` the rest (one or more tokens)."""
    p_tokens, s_tokens = pattern.split("."), subject.split(".")
    for i, token in enumerate(p_tokens):
        if token == ">":
            return len(s_tokens) > i
        if i >= len(s_tokens) or (token != "*" and token != s_tokens[i]):
            return False
    return len(p_tokens) == len(s_tokens)


class Registry:
    """Message models by `type`; each is declared once and decoded from here."""

    def __init__(self, models: Iterable[type[Message]] = ()) -> None:
        self._by_type: dict[str, type[Message]] = {}
        for model in models:
            self.register(model)

    def register(self, model: type[Message]) -> type[Message]:
        """Add a model; a `type` string may belong to one model only."""
        type_name = message_type(model)
        if type_name in self._by_type and self._by_type[type_name] is not model:
            raise ValueError(f"message type {type_name!r} is declared twice")
        self._by_type[type_name] = model
        return model

    def __iter__(self) -> Iterator[type[Message]]:
        return iter(self._by_type.values())

    def model_for(self, type_name: str) -> type[Message]:
        """The model registered for a `type` string."""
        try:
            return self._by_type[type_name]
        except KeyError:
            raise UnknownMessageType(f"unknown message type {type_name!r}") from None

    def decode(self, data: bytes | str) -> Message:
        """Bytes on the wire -> the right model, or a clear error naming what is wrong."""
        try:
            raw: Any = json.loads(data)
        except ValueError as exc:
            raise MalformedMessage(f"message is not JSON: {exc}") from None
        if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
            raise MalformedMessage("message has no string field 'type'")
        model = self.model_for(raw["type"])
        try:
            return model.model_validate(raw)
        except ValidationError as exc:
            raise MalformedMessage(f"{raw['type']}: {exc}") from None

    def streams(self) -> list[StreamSpec]:
        """One stream per owner and kind for every stream-delivered message, subjects explicit."""
        grouped: dict[tuple[str, Kind], list[str]] = {}
        for model in self:
            if model.delivery is Delivery.STREAM:
                key = (model.subject.owner, model.subject.kind)
                grouped.setdefault(key, []).extend(
                    (model.subject.pattern, *model.subject.legacy_patterns)
                )
        return [
            StreamSpec(
                name=stream_name(owner, kind.value),
                subjects=tuple(sorted(set(subjects))),
                retention=Retention.WORK_QUEUE if kind is Kind.CMD else Retention.LIMITS,
            )
            for (owner, kind), subjects in sorted(grouped.items())
        ]

    def streams_for(self, subject: str) -> list[StreamSpec]:
        """Every stream that would capture a concrete subject (the contract is: exactly one)."""
        return [s for s in self.streams() if any(subject_matches(p, subject) for p in s.subjects)]


def message_type(model: type[Message]) -> str:
    """The `type` literal a model declares as its default."""
    default = model.model_fields["type"].default
    if not isinstance(default, str) or not default:
        raise ValueError(f"{model.__name__} must give 'type' a non-empty string default")
    return default
