#!/usr/bin/env python3
"""A real SMTP server for marketalertd's email tests (aiosmtpd), on 127.0.0.1 only.

It writes its port to <dir>/port once listening, and one JSON line per event to <dir>/events.jsonl:
  {"event": "data", "n": 1}                           the end of a DATA section arrived (n counts them)
  {"event": "accepted", "n": 1, "tls": true, "auth": "user", "mail_from": "...", "rcpt_tos": [...],
   "data_b64": "..."}                                 a message was accepted (250)
  {"event": "refused", "n": 1, "code": 451}           a message was refused as scripted

Behaviour, chosen by flags:
  --replies 451,250   the reply code to each DATA in turn (the last one repeats); default 250
  <dir>/refuse        while this file exists, every DATA is refused with the code it holds (the test's switch)
  --slow-first N --slow-seconds S   hold the answer to the first N DATAs for S seconds, then refuse them (451)
  --cert C --key K    with --starttls: offer STARTTLS; with --implicit-tls: TLS from the first byte (smtps)
  --auth USER:PASS    offer AUTH PLAIN and LOGIN (also without TLS: the server is on loopback) and require it
  --auth-only LOGIN   offer only this mechanism
  --refuse-rcpt ADDR  answer RCPT TO:<ADDR> with 550 (repeatable)
"""
import argparse
import asyncio
import base64
import json
import os
import ssl
import sys
import warnings

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def main():
    warnings.filterwarnings("ignore")  # aiosmtpd warns about AUTH without TLS: this server is on loopback
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--replies", default="250")
    parser.add_argument("--slow-first", type=int, default=0)
    parser.add_argument("--slow-seconds", type=float, default=0)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--starttls", action="store_true")
    parser.add_argument("--implicit-tls", action="store_true")
    parser.add_argument("--auth")
    parser.add_argument("--auth-only")
    parser.add_argument("--refuse-rcpt", action="append", default=[])
    args = parser.parse_args()
    replies = [int(code) for code in args.replies.split(",")]
    events_path = os.path.join(args.dir, "events.jsonl")
    state = {"n": 0}

    def record(event):
        with open(events_path, "a", encoding="utf-8") as events:
            events.write(json.dumps(event) + "\n")
            events.flush()

    class Handler:
        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            if address in args.refuse_rcpt:
                record({"event": "rcpt_refused", "n": state["n"], "code": 550})
                return "550 5.1.1 no such user"
            envelope.rcpt_tos.append(address)
            return "250 2.1.5 OK"

        async def handle_DATA(self, server, session, envelope):
            state["n"] += 1
            n = state["n"]
            record({"event": "data", "n": n})
            if n <= args.slow_first:
                await asyncio.sleep(args.slow_seconds)
                record({"event": "refused", "n": n, "code": 451})
                return "451 4.3.0 too slow, try again"
            code = replies[min(n, len(replies)) - 1]
            refuse_file = os.path.join(args.dir, "refuse")
            if os.path.exists(refuse_file):  # the test's switch: refuse with this code while the file exists
                with open(refuse_file) as switch:
                    code = int(switch.read().strip() or "451")
            if code != 250:
                record({"event": "refused", "n": n, "code": code})
                return f"{code} {'4.3.0' if code < 500 else '5.7.1'} scripted refusal"
            tls = bool(session.ssl) or server.transport.get_extra_info("ssl_object") is not None
            record({
                "event": "accepted", "n": n, "tls": tls, "auth": getattr(session, "test_user", None),
                "mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos,
                "data_b64": base64.b64encode(envelope.original_content or envelope.content).decode("ascii"),
            })
            return "250 2.0.0 accepted"

    context = None
    if args.cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)

    authenticator = None
    if args.auth:
        user, password = args.auth.split(":", 1)

        def authenticator(server, session, envelope, mechanism, auth_data):
            ok = isinstance(auth_data, LoginPassword) and auth_data.login == user.encode() and auth_data.password == password.encode()
            if ok:
                session.test_user = user
            return AuthResult(success=ok, handled=False)

    def factory():
        return SMTP(
            Handler(), hostname="smtp-test.invalid", decode_data=False,
            tls_context=context if args.starttls else None, require_starttls=False,
            authenticator=authenticator, auth_required=bool(args.auth), auth_require_tls=False,
            auth_exclude_mechanism=[m for m in ("PLAIN", "LOGIN") if args.auth_only and m != args.auth_only.upper()],
        )

    async def serve():
        loop = asyncio.get_running_loop()
        server = await loop.create_server(factory, "127.0.0.1", 0, ssl=context if args.implicit_tls else None)
        port = server.sockets[0].getsockname()[1]
        with open(os.path.join(args.dir, "port.tmp"), "w") as out:
            out.write(str(port))
        os.rename(os.path.join(args.dir, "port.tmp"), os.path.join(args.dir, "port"))
        parent = os.getppid()

        async def exit_with_parent():  # a test that dies never leaves this server behind
            while os.getppid() == parent:
                await asyncio.sleep(0.5)
            os._exit(0)

        watcher = asyncio.ensure_future(exit_with_parent())
        async with server:
            await server.serve_forever()
        watcher.cancel()

    asyncio.run(serve())


if __name__ == "__main__":
    sys.exit(main())
