"""A Python program gated with clients/python/tether_gate.py, as a user would write it (tests/gate-clients.int.test.ts).

Env: TETHER_URL, TETHER_TOKEN, GATE_TOOL, GATE_ARGS (JSON keyword arguments of issue_credit), GATE_SCHEMA (JSON).
Prints one JSON line per event: pending (with the gate id), ran (the arguments the function got), then result or refused.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))

from tether_gate import GateRefused, TetherGate, requires_approval  # noqa: E402


def emit(event: str, **fields):
    print(json.dumps({"event": event, **fields}), flush=True)


gate = TetherGate()  # TETHER_URL, TETHER_TOKEN


@requires_approval(
    gate,
    tool=os.environ["GATE_TOOL"],
    description=lambda args: f"Credit {args['amount_cents']} cents to {args['account']}",
    schema=json.loads(os.environ.get("GATE_SCHEMA", "null")),
    timeout=60,
    on_pending=lambda created: emit("pending", gateId=created["gateId"], created=created["created"]),
)
def issue_credit(account: str, amount_cents: int, note: str = "") -> dict:
    emit("ran", args={"account": account, "amount_cents": amount_cents, "note": note})
    return {"creditId": f"cr_{account}", "amountCents": amount_cents}


try:
    emit("result", result=issue_credit(**json.loads(os.environ["GATE_ARGS"])))
except GateRefused as refused:
    emit("refused", status=refused.status, reason=refused.reason, gateId=refused.gate_id)
