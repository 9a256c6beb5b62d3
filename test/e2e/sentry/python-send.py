"""Sends one exception per user id and one message with Debian's python3-sentry-sdk (1.9.10).

Usage: /usr/bin/python3 python-send.py <dsn> <user ids, comma-separated>
Prints one `SEND {"path": ..., "status": N}` line per request the SDK made to the DSN.
"""
import json
import sys

import sentry_sdk

dsn, users = sys.argv[1], sys.argv[2].split(",")
sends = []

sentry_sdk.init(
    dsn=dsn,
    release="svc-e2e@1.2.3",
    environment="e2e",
    server_name="e2e-host",
    debug=True,
)

# Record what the server answered to each request the SDK's transport makes.
transport = sentry_sdk.Hub.current.client.transport
pool_request = transport._pool.request


def recording_request(method, url, *args, **kwargs):
    try:
        res = pool_request(method, url, *args, **kwargs)
    except Exception as err:
        sends.append({"path": url, "error": repr(err)})
        raise
    sends.append({"path": url, "status": res.status})
    return res


transport._pool.request = recording_request


def divide(a, b):
    return a / b


def checkout():
    return divide(1, 0)


for uid in users:
    with sentry_sdk.push_scope() as scope:
        scope.user = {"id": uid, "email": "user%s@example.com" % uid}
        scope.set_tag("feature", "checkout")
        try:
            checkout()
        except Exception as err:
            sentry_sdk.capture_exception(err)

with sentry_sdk.push_scope() as scope:
    scope.user = {"id": users[0], "email": "user%s@example.com" % users[0]}
    sentry_sdk.capture_message("svc e2e message from sentry-python", level="warning")

sentry_sdk.flush(10)
for s in sends:
    print("SEND " + json.dumps(s))
print("sentry-python", sentry_sdk.VERSION)
