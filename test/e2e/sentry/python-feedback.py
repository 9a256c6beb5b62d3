"""Sends, with Debian's python3-sentry-sdk (1.9.10): an exception with an attachment (scope.add_attachment), then a
user report about it. That SDK has no feedback API of its own (capture_user_feedback came later), so the report is
an envelope `user_report` item handed to the SDK's own transport, as newer versions send it.

Usage: /usr/bin/python3 python-feedback.py <dsn>
Prints `EVENT <id>`.
"""
import sys

import sentry_sdk
from sentry_sdk.envelope import Envelope, Item, PayloadRef

dsn = sys.argv[1]
sentry_sdk.init(dsn=dsn, release="svc-e2e@1.2.3", environment="e2e")

with sentry_sdk.push_scope() as scope:
    scope.add_attachment(bytes=b"python says hello", filename="py.log", content_type="text/plain")
    try:
        {}["missing"]
    except KeyError:
        event_id = sentry_sdk.capture_exception()
sentry_sdk.flush(5)

envelope = Envelope(headers={"event_id": event_id})
envelope.add_item(
    Item(
        payload=PayloadRef(
            json={"event_id": event_id, "name": "Py User", "email": "py@example.com", "comments": "it crashed"}
        ),
        type="user_report",
    )
)
sentry_sdk.Hub.current.client.transport.capture_envelope(envelope)
sentry_sdk.flush(5)
print("EVENT " + event_id)
