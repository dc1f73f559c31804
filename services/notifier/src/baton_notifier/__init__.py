"""Baton's notifier: the HTTP gateway that forwards to owners over NATS."""
