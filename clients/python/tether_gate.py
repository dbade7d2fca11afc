"""tether_gate: ask a person in Tether before your Python code acts.

One file, standard library only (Python >= 3.11): copy it next to your code. It speaks Tether's open-gate
HTTP API (docs/gates-api.md); the guide is docs/gates.md.

    from tether_gate import TetherGate, GateRefused, requires_approval

    gate = TetherGate("https://tether.example.com", os.environ["TETHER_TOKEN"])  # a token with gates:request

    @requires_approval(gate, tool="payments.refund", description=lambda a: f"Refund order {a['order_id']}")
    def refund(order_id: str, amount_cents: int) -> dict:
        return payments.refund(order_id, amount_cents)   # runs only once a person approved, with their edits

    try:
        receipt = refund("ord_42", 5000)   # blocks until decided; the outcome is reported to Tether
    except GateRefused as refused:
        print(refused.status, refused.reason)  # rejected / redirected / expired (or still pending at the timeout)

Run as a script it gates one action from the command line and prints the approved arguments as JSON:

    TETHER_URL=… TETHER_TOKEN=… python3 tether_gate.py --tool payments.refund --args '{"order_id": "ord_42"}'
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
import os
import socket
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Callable

__all__ = ["TetherGate", "TetherError", "GateRefused", "GateTimeout", "requires_approval"]

log = logging.getLogger("tether_gate")

APPROVED = ("approved", "edited")
MAX_POLL_SECONDS = 60
TRANSIENT_STATUSES = (0, 429, 502, 503, 504)


class TetherError(Exception):
    """An error answer of Tether's API ({"error": {"code", "message", "fieldErrors"}}), or no answer (status 0)."""

    def __init__(self, code: str, status: int, message: str, field_errors: dict[str, list[str]] | None = None):
        super().__init__(f"{status} {code}: {message}" if status else f"{code}: {message}")
        self.code = code
        self.status = status
        self.message = message
        self.field_errors = field_errors or {}

    @property
    def is_transient(self) -> bool:
        """Worth asking again: no answer, rate limited, or a server or proxy failure."""
        return self.status in TRANSIENT_STATUSES


class GateRefused(Exception):
    """The gated call did not run: the gate was rejected, redirected or expired (or see the subclasses)."""

    def __init__(self, gate: dict[str, Any], message: str | None = None, status: str | None = None):
        self.gate = gate
        self.gate_id: str = gate["gateId"]
        self.status: str = status or gate["status"]
        self.reason: str | None = gate.get("reason")
        super().__init__(message or f"gate {self.gate_id} was {self.status}" + (f": {self.reason}" if self.reason else ""))


class GateTimeout(GateRefused):
    """No one decided within the timeout; the gate is still pending in Tether (the call did not run)."""


class TetherGate:
    """A client of Tether's open gates. url and token default to $TETHER_URL and $TETHER_TOKEN."""

    def __init__(self, url: str | None = None, token: str | None = None, *, request_timeout: float = 30.0):
        url = url or os.environ.get("TETHER_URL")
        token = token or os.environ.get("TETHER_TOKEN")
        if not url or not token:
            raise ValueError("TetherGate needs a url and a token (or TETHER_URL and TETHER_TOKEN)")
        self.url = url.rstrip("/")
        self.token = token
        self.request_timeout = request_timeout

    # -- the three calls of the API -------------------------------------------------------------------------

    def request_approval(
        self,
        tool: str,
        args: dict[str, Any],
        *,
        idempotency_key: str,
        schema: dict[str, Any] | None = None,
        description: str | None = None,
        evidence: list[dict[str, Any]] | None = None,
        impact: str | None = None,
        uncertainty: str | None = None,
        queue: str | None = None,
        approvals: int | None = None,
        expires_in: int | str | None = None,
        on_expiry: str | None = None,
        callback_url: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Opens a gate (a decision packet in Tether's inbox): {gateId, status, statusUrl, created, callbackSecret?}.

        The same idempotency_key returns the same gate (created False), so a retry does not ask twice.
        """
        action: dict[str, Any] = {"tool": tool, "args": args}
        if schema is not None:
            action["schema"] = schema
        optional = {
            "description": description, "evidence": evidence, "impact": impact, "uncertainty": uncertainty,
            "queue": queue, "approvals": approvals, "expiresIn": expires_in, "onExpiry": on_expiry,
            "callbackUrl": callback_url, "metadata": metadata,
        }
        body = {"action": action, "idempotencyKey": idempotency_key, **{k: v for k, v in optional.items() if v is not None}}
        return self._call("POST", "/api/gates", body)

    def get_gate(self, gate_id: str, wait: int = 0) -> dict[str, Any]:
        """The gate now, or as soon as it is decided within `wait` seconds (0..60)."""
        wait = max(0, min(MAX_POLL_SECONDS, int(wait)))
        query = f"?wait={wait}" if wait else ""
        return self._call("GET", f"/api/gates/{urllib.parse.quote(gate_id, safe='')}{query}", timeout=self.request_timeout + wait)

    def wait_for_decision(self, gate_id: str, timeout: float | None = None, poll_seconds: int = 30) -> dict[str, Any]:
        """Long-polls until the gate is decided and returns it; after `timeout` seconds, returns it still pending.

        A dropped connection, a 429 or a 502-504 is asked again (backing off), so a long wait survives a hiccup.
        """
        poll_seconds = max(1, min(MAX_POLL_SECONDS, int(poll_seconds)))
        deadline = None if timeout is None else time.monotonic() + timeout
        backoff = 0.5
        while True:
            left = float("inf") if deadline is None else deadline - time.monotonic()
            wait = int(max(0, min(poll_seconds, left)))
            try:
                gate = self.get_gate(gate_id, wait)
            except TetherError as error:
                if not error.is_transient or (deadline is not None and time.monotonic() + backoff >= deadline):
                    raise
                time.sleep(backoff)
                backoff = min(backoff * 2, 15.0)
                continue
            backoff = 0.5
            # wait 0 was the last look before the deadline
            if gate["status"] != "pending" or wait == 0 or (deadline is not None and time.monotonic() >= deadline):
                return gate

    def report_outcome(self, gate_id: str, status: str, receipt: str | dict[str, Any] | None = None, detail: str | None = None) -> dict[str, Any]:
        """Says what became of the approved action: "happened" (with a receipt), "failed" or "not_done". Once per gate."""
        body: dict[str, Any] = {"status": status}
        if receipt is not None:
            body["receipt"] = receipt
        if detail is not None:
            body["detail"] = detail
        return self._call("POST", f"/api/gates/{urllib.parse.quote(gate_id, safe='')}/outcome", body)

    # -- HTTP ------------------------------------------------------------------------------------------------

    def _call(self, method: str, path: str, body: Any = None, timeout: float | None = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"authorization": f"Bearer {self.token}", "accept": "application/json", "user-agent": "tether-gate-python/1"}
        if data is not None:
            headers["content-type"] = "application/json"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout or self.request_timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            raise _api_error(error) from None
        except (urllib.error.URLError, socket.timeout, ConnectionError) as error:
            reason = getattr(error, "reason", error)
            raise TetherError("NETWORK_ERROR", 0, f"cannot reach Tether at {self.url}: {reason}") from error


def _api_error(error: urllib.error.HTTPError) -> TetherError:
    try:
        payload = json.loads(error.read().decode("utf-8"))["error"]
        return TetherError(payload.get("code", f"HTTP_{error.code}"), error.code, payload.get("message", ""), payload.get("fieldErrors"))
    except (ValueError, KeyError, TypeError, AttributeError):
        return TetherError(f"HTTP_{error.code}", error.code, str(error.reason))


# The outcome report's limits (docs/gates-api.md): text up to 2000 characters, an object receipt up to 8 KB.
MAX_TEXT = 2000
MAX_RECEIPT_JSON = 8 * 1024


def _clip(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _receipt(result: Any) -> str | dict[str, Any] | None:
    """The outcome's receipt: the function's result if it is a dict or a string, else wrapped (or its repr); too large, a clipped preview."""
    if result is None:
        return None
    if isinstance(result, str):
        return _clip(result)
    receipt = result if isinstance(result, dict) else {"result": result}
    try:
        text = json.dumps(receipt)
    except (TypeError, ValueError):
        return {"repr": _clip(repr(result))}
    return receipt if len(text) <= MAX_RECEIPT_JSON else {"truncated": True, "preview": _clip(text)}


def requires_approval(
    gate: TetherGate,
    tool: str,
    *,
    description: str | Callable[[dict[str, Any]], str] | None = None,
    impact: str | Callable[[dict[str, Any]], str] | None = None,
    evidence: list[dict[str, Any]] | Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None,
    schema: dict[str, Any] | None = None,
    queue: str | None = None,
    approvals: int | None = None,
    expires_in: int | str | None = None,
    on_expiry: str | None = None,
    metadata: dict[str, Any] | None = None,
    idempotency_key: Callable[[dict[str, Any]], str] | None = None,
    timeout: float | None = None,
    poll_seconds: int = 30,
    on_pending: Callable[[dict[str, Any]], None] | None = None,
    on_decision: Callable[[dict[str, Any]], None] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Gates every call of the decorated function: Tether is asked first, the call waits for a person, and the
    function runs with the approved arguments (a reviewer may have edited them), called by keyword. Its result
    is reported as the outcome's receipt ("happened"); an exception is reported as "failed" and raised again.

    Rejected, redirected or expired → GateRefused (the function does not run); no decision within `timeout`
    seconds → GateTimeout. The arguments, bound to the function's parameters by name (defaults included),
    are the action's args and must be JSON. Each call opens its own gate unless `idempotency_key(args)` says
    otherwise (give one to make a retried call find its earlier gate).
    """

    def resolve(value: Any, args: dict[str, Any]) -> Any:
        return value(args) if callable(value) else value

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(fn)
        kinds = {p.kind for p in signature.parameters.values()}
        if inspect.Parameter.POSITIONAL_ONLY in kinds or inspect.Parameter.VAR_POSITIONAL in kinds:
            raise TypeError(f"@requires_approval({tool!r}): {fn.__name__} must take its arguments by name (no positional-only or *args)")
        var_keyword = next((p.name for p in signature.parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD), None)

        @functools.wraps(fn)
        def gated(*call_args: Any, **call_kwargs: Any) -> Any:
            bound = signature.bind(*call_args, **call_kwargs)
            bound.apply_defaults()
            args = dict(bound.arguments)
            if var_keyword:
                args.update(args.pop(var_keyword))
            key = idempotency_key(args) if idempotency_key else f"{tool}:{uuid.uuid4()}"
            created = gate.request_approval(
                tool, args, idempotency_key=key, schema=schema, description=resolve(description, args),
                impact=resolve(impact, args), evidence=resolve(evidence, args), queue=queue, approvals=approvals,
                expires_in=expires_in, on_expiry=on_expiry, metadata=metadata,
            )
            (on_pending or (lambda g: log.info("gate %s awaits a decision on %s", g["gateId"], tool)))(created)
            decided = gate.wait_for_decision(created["gateId"], timeout=timeout, poll_seconds=poll_seconds)
            if on_decision:
                on_decision(decided)
            if decided["status"] == "pending":
                raise GateTimeout(decided, f"no decision on gate {decided['gateId']} within {timeout} s; it is still pending in Tether")
            if decided.get("outcome"):
                raise GateRefused(decided, f"gate {decided['gateId']} was already acted on (outcome {decided['outcome']['status']}); not running it again", status="already_reported")
            if decided["status"] not in APPROVED:
                raise GateRefused(decided)
            approved = decided["approvedArgs"] or {}
            try:
                signature.bind(**approved)
            except TypeError as error:
                _report_quietly(gate, decided, "not_done", detail=_clip(f"the approved arguments do not fit {fn.__name__}: {error}"))
                raise GateRefused(decided, f"the approved arguments of gate {decided['gateId']} do not fit {fn.__name__}: {error}", status="not_done") from None
            try:
                result = fn(**approved)
            except Exception as error:
                _report_quietly(gate, decided, "failed", detail=_clip(f"{type(error).__name__}: {error}"))
                raise
            _report_quietly(gate, decided, "happened", receipt=_receipt(result))
            return result

        return gated

    return decorate


def _report_quietly(gate: TetherGate, decided: dict[str, Any], status: str, **fields: Any) -> None:
    """The action already ran (or failed): a failed report must not hide that from the caller, only be logged."""
    try:
        gate.report_outcome(decided["gateId"], status, **fields)
    except TetherError as error:
        log.warning("reporting the outcome of gate %s failed: %s", decided["gateId"], error)


def _main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="tether_gate.py",
        description="Ask a person in Tether to approve one action; print the approved (possibly edited) arguments as JSON. "
        "Exit 0 approved, 3 rejected/redirected/expired/undecided, 2 on error.",
    )
    parser.add_argument("--tool", required=True, help='the action\'s name, e.g. "payments.refund"')
    parser.add_argument("--args", required=True, help="its arguments, a JSON object")
    parser.add_argument("--description")
    parser.add_argument("--queue")
    parser.add_argument("--schema", help="JSON Schema of the arguments (the reviewer's edit form)")
    parser.add_argument("--key", help="idempotency key (a new one per run by default)")
    parser.add_argument("--timeout", type=float, help="seconds to wait for a decision (no limit by default)")
    parser.add_argument("--url", help="defaults to $TETHER_URL")
    parser.add_argument("--token", help="defaults to $TETHER_TOKEN")
    options = parser.parse_args(argv)

    def say(message: str) -> None:
        print(f"tether_gate: {message}", file=sys.stderr, flush=True)

    try:
        args = json.loads(options.args)
        schema = json.loads(options.schema) if options.schema else None
        if not isinstance(args, dict):
            raise ValueError("--args must be a JSON object")
        gate = TetherGate(options.url, options.token)
    except ValueError as error:
        say(str(error))
        return 2

    @requires_approval(
        gate, tool=options.tool, description=options.description, queue=options.queue, schema=schema,
        idempotency_key=(lambda _args: options.key) if options.key else None, timeout=options.timeout,
        on_pending=lambda g: say(f"gate {g['gateId']} is waiting for a decision ({gate.url}{g['statusUrl']})"),
        on_decision=lambda g: say(f"gate {g['gateId']} {g['status']}" + (f" by {g['decidedBy']}" if g.get("decidedBy") else "")),
    )
    def hand_over(**approved: Any) -> dict[str, Any]:
        print(json.dumps(approved, sort_keys=True), flush=True)
        return {"printedTo": "stdout", "args": approved}

    try:
        hand_over(**args)
        return 0
    except GateRefused as refused:
        say(str(refused))
        return 3
    except TetherError as error:
        say(str(error) + (f" {json.dumps(error.field_errors)}" if error.field_errors else ""))
        return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
