"""Errors raised on either side of a request, carrying an `ErrorCode` across NATS."""

from __future__ import annotations

from baton_contracts.base import ErrorBody, ErrorCode, ErrorDetail


class ContractError(Exception):
    """Base of every error the contracts package raises."""


class UnknownMessageType(ContractError):
    """Bytes named a `type` no registered model has."""


class MalformedMessage(ContractError):
    """Bytes were not JSON, or did not validate against their model."""


class RemoteError(ContractError):
    """The owner answered a request with a typed error."""

    def __init__(self, body: ErrorBody) -> None:
        super().__init__(f"{body.code.value}: {body.message}")
        self.body = body

    @property
    def code(self) -> ErrorCode:
        """The typed error code."""
        return self.body.code

    @classmethod
    def of(
        cls, code: ErrorCode, message: str, details: list[ErrorDetail] | None = None
    ) -> RemoteError:
        """Build one without spelling out the body."""
        return cls(ErrorBody(code=code, message=message, details=details or []))
