"""A fake APNs provider API for Stratus's tests: HTTP/2 over TLS on loopback, scripted answers.

It makes a test CA and a server certificate for 127.0.0.1 signed by it, and an APNs signing key
(PKCS #8 P-256, like Apple's AuthKey_KEYID.p8), and writes them into --dir with ready.json (the
ports). Every push is checked as APNs checks it -- the provider token's ES256 signature with the
key's public half, its kid, iss and iat, the path, apns-topic, apns-push-type, apns-priority and
the JSON payload -- and recorded. Tests script answers per device token and read the pushes
through a plain HTTP/1.1 control port:

  POST /script  {"token": T, "responses": [{"status": 410, "reason": "Unregistered"}, ...]}
                a response may also say "delay_ms", "stall" (never answer), "body" (raw text),
                "body_size" (that many bytes), "expire_jwt" (403 ExpiredProviderToken, and that
                token stays expired), "timestamp"
  GET  /pushes?min=N&timeout_ms=M&since=K   waits until N pushes arrived (or the time passed), returns
                those from the K-th on (all by default)
  POST /reset   forgets pushes and scripts
"""

import argparse
import asyncio
import base64
import datetime
import json
import os
import ssl
import sys
import time
import urllib.parse

import h2.config
import h2.connection
import h2.events
import h2.exceptions
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import NameOID


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def write_private(path, data):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def make_tls_material(directory):
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Stratus fake APNs test CA")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    server_key = ec.generate_private_key(ec.SECP256R1())
    import ipaddress
    server = (
        x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name).public_key(server_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    ca_path = os.path.join(directory, "ca.pem")
    with open(ca_path, "wb") as handle:
        handle.write(ca.public_bytes(serialization.Encoding.PEM))
    cert_path = os.path.join(directory, "server.pem")
    key_path = os.path.join(directory, "server-key.pem")
    with open(cert_path, "wb") as handle:
        handle.write(server.public_bytes(serialization.Encoding.PEM))
    write_private(key_path, server_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert_path, key_path)
    context.set_alpn_protocols(["h2"])
    return ca_path, context


class World:
    def __init__(self, key_id, team_id, topic, public_key):
        self.key_id, self.team_id, self.topic, self.public_key = key_id, team_id, topic, public_key
        self.pushes = []
        self.scripts = {}
        self.expired = set()
        self.changed = asyncio.Condition()
        self.connections = 0

    def check_jwt(self, authorization):
        problems = []
        if not authorization.startswith("bearer "):
            return None, ["authorization is not 'bearer <jwt>'"]
        token = authorization[len("bearer "):]
        parts = token.split(".")
        if len(parts) != 3:
            return token, ["the provider token is not three dot-separated parts"]
        try:
            header = json.loads(b64url_decode(parts[0]))
            claims = json.loads(b64url_decode(parts[1]))
            signature = b64url_decode(parts[2])
        except Exception as error:  # noqa: BLE001 -- any garbage is a problem to report
            return token, [f"the provider token does not decode: {error}"]
        if header.get("alg") != "ES256":
            problems.append(f"alg is {header.get('alg')!r}, not ES256")
        if header.get("kid") != self.key_id:
            problems.append(f"kid is {header.get('kid')!r}, not {self.key_id!r}")
        if claims.get("iss") != self.team_id:
            problems.append(f"iss is {claims.get('iss')!r}, not {self.team_id!r}")
        iat = claims.get("iat")
        if not isinstance(iat, int) or not (time.time() - 3600 <= iat <= time.time() + 60):
            problems.append(f"iat {iat!r} is not within the last hour")
        if len(signature) != 64:
            problems.append(f"the signature is {len(signature)} bytes, not r||s (64)")
        else:
            der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
            try:
                self.public_key.verify(der, (parts[0] + "." + parts[1]).encode(), ec.ECDSA(hashes.SHA256()))
            except InvalidSignature:
                problems.append("the ES256 signature does not verify with the key's public half")
        return token, problems

    def check_request(self, headers, path, body):
        problems = []
        if headers.get(":method") != "POST":
            problems.append(f"method is {headers.get(':method')!r}, not POST")
        if not path.startswith("/3/device/") or len(path) <= len("/3/device/"):
            problems.append(f"path {path!r} is not /3/device/<token>")
        if headers.get("apns-topic") != self.topic:
            problems.append(f"apns-topic is {headers.get('apns-topic')!r}, not {self.topic!r}")
        push_type = headers.get("apns-push-type")
        priority = headers.get("apns-priority")
        if push_type not in ("background", "alert"):
            problems.append(f"apns-push-type is {push_type!r}")
        if push_type == "background" and priority != "5":
            problems.append(f"a background push has apns-priority {priority!r}, not 5")
        payload = None
        if len(body) > 4096:
            problems.append(f"the payload is {len(body)} bytes, over 4096")
        try:
            payload = json.loads(body)
        except Exception:  # noqa: BLE001
            problems.append("the payload is not JSON")
        if isinstance(payload, dict) and push_type == "background":
            aps = payload.get("aps", {})
            if aps.get("content-available") != 1 or any(key in aps for key in ("alert", "badge", "sound")):
                problems.append(f"a background push has aps {aps!r}")
        return payload, problems

    async def record(self, event):
        async with self.changed:
            self.pushes.append(event)
            self.changed.notify_all()


class Connection:
    def __init__(self, world, reader, writer):
        self.world, self.reader, self.writer = world, reader, writer
        self.conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.streams = {}
        self.window_open = asyncio.Event()
        self.number = world.connections

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.writer.write(data)

    async def run(self):
        self.conn.initiate_connection()
        self.flush()
        try:
            while True:
                data = await self.reader.read(65536)
                if not data:
                    break
                try:
                    events = self.conn.receive_data(data)
                except h2.exceptions.ProtocolError:
                    break
                for event in events:
                    self.handle(event)
                self.flush()
                await self.writer.drain()
        except (ConnectionError, ssl.SSLError):
            pass
        finally:
            self.writer.close()

    def handle(self, event):
        if isinstance(event, h2.events.RequestReceived):
            self.streams[event.stream_id] = {"headers": dict(event.headers), "body": bytearray()}
        elif isinstance(event, h2.events.DataReceived):
            stream = self.streams.get(event.stream_id)
            if stream is not None:
                stream["body"] += event.data
            self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.StreamEnded):
            stream = self.streams.pop(event.stream_id, None)
            if stream is not None:
                # Received when the stream ended, before this fake's own checks (ECDSA, JSON) ran.
                received_ns = time.time_ns()
                asyncio.ensure_future(self.answer(event.stream_id, stream["headers"], bytes(stream["body"]), received_ns))
        elif isinstance(event, (h2.events.WindowUpdated, h2.events.StreamReset)):
            self.window_open.set()

    async def answer(self, stream_id, headers, body, received_ns):
        world = self.world
        path = headers.get(":path", "")
        token = path[len("/3/device/"):] if path.startswith("/3/device/") else ""
        jwt, problems = world.check_jwt(headers.get("authorization", ""))
        payload, request_problems = world.check_request(headers, path, body)
        script = world.scripts.get(token) or []
        action = script.pop(0) if script else {}
        status, reason = 200, None
        if problems:
            status, reason = 403, "InvalidProviderToken"
        elif jwt in world.expired:
            status, reason = 403, "ExpiredProviderToken"
        elif action.get("expire_jwt"):
            world.expired.add(jwt)
            status, reason = 403, "ExpiredProviderToken"
        elif "status" in action:
            status, reason = action["status"], action.get("reason")
        await world.record({
            "token": token, "path": path, "headers": {k: v for k, v in headers.items() if not k.startswith(":")},
            "method": headers.get(":method"), "payload": payload, "jwt": jwt, "problems": problems + request_problems,
            "status": status, "received_ns": received_ns, "connection": self.number, "stream": stream_id,
        })
        if action.get("stall"):
            return
        if action.get("delay_ms"):
            await asyncio.sleep(action["delay_ms"] / 1000)
        if "body" in action:
            response = action["body"].encode()
        elif "body_size" in action:
            response = b"x" * int(action["body_size"])
        elif reason:
            error = {"reason": reason}
            if status == 410:
                error["timestamp"] = action.get("timestamp", int(time.time() * 1000))
            response = json.dumps(error).encode()
        else:
            response = b""
        try:
            self.conn.send_headers(stream_id, [(":status", str(status)), ("apns-id", f"00000000-0000-0000-0000-{stream_id:012d}")],
                                   end_stream=not response)
            self.flush()
            await self.send_body(stream_id, response)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError, ConnectionError):
            pass

    async def send_body(self, stream_id, data):
        while data:
            window = min(self.conn.local_flow_control_window(stream_id), self.conn.max_outbound_frame_size)
            if window <= 0:
                self.window_open.clear()
                await asyncio.wait_for(self.window_open.wait(), timeout=30)
                continue
            chunk, data = data[:window], data[window:]
            self.conn.send_data(stream_id, chunk, end_stream=not data)
            self.flush()
            await self.writer.drain()


async def control(world, reader, writer):
    try:
        request_line = (await reader.readline()).decode()
        method, target, _ = request_line.split(" ", 2)
        length = 0
        while True:
            line = (await reader.readline()).decode().strip()
            if not line:
                break
            name, _, value = line.partition(":")
            if name.lower() == "content-length":
                length = int(value.strip())
        body = json.loads(await reader.readexactly(length)) if length else {}
        url = urllib.parse.urlparse(target)
        query = dict(urllib.parse.parse_qsl(url.query))
        if method == "POST" and url.path == "/script":
            world.scripts.setdefault(body["token"], []).extend(body["responses"])
            answer = {}
        elif method == "GET" and url.path == "/pushes":
            minimum, deadline = int(query.get("min", "0")), time.monotonic() + int(query.get("timeout_ms", "0")) / 1000
            async with world.changed:
                while len(world.pushes) < minimum and time.monotonic() < deadline:
                    try:
                        await asyncio.wait_for(world.changed.wait(), timeout=max(0.001, deadline - time.monotonic()))
                    except asyncio.TimeoutError:
                        break
            answer = {"pushes": world.pushes[int(query.get("since", "0")):], "connections": world.connections}
        elif method == "POST" and url.path == "/reset":
            world.pushes, world.scripts = [], {}
            answer = {}
        else:
            answer = {"error": f"unknown {method} {url.path}"}
        data = json.dumps(answer).encode()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "
                     + str(len(data)).encode() + b"\r\n\r\n" + data)
        await writer.drain()
    except Exception as error:  # noqa: BLE001 -- a bad control request must not stop the server
        print(f"fake-apns: control request failed: {error}", file=sys.stderr)
    finally:
        writer.close()


async def watch_parent(parent):
    """Exits once the process that started us is gone, so a crashed test leaves no server behind."""
    while True:
        try:
            os.kill(parent, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:
            pass
        await asyncio.sleep(1)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--key-id", default="FAKEKEY001")
    parser.add_argument("--team-id", default="FAKETEAM01")
    parser.add_argument("--topic", default="com.example.Tests")
    parser.add_argument("--parent", type=int, default=0, help="exit when this process is gone (default: the parent)")
    arguments = parser.parse_args()
    ca_path, context = make_tls_material(arguments.dir)
    signing_key = ec.generate_private_key(ec.SECP256R1())
    key_path = os.path.join(arguments.dir, f"AuthKey_{arguments.key_id}.p8")
    write_private(key_path, signing_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    world = World(arguments.key_id, arguments.team_id, arguments.topic, signing_key.public_key())

    async def serve(reader, writer):
        world.connections += 1
        await Connection(world, reader, writer).run()

    server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=context)
    control_server = await asyncio.start_server(lambda r, w: control(world, r, w), "127.0.0.1", 0)
    ready = {
        "port": server.sockets[0].getsockname()[1], "control_port": control_server.sockets[0].getsockname()[1],
        "ca": ca_path, "key": key_path, "key_id": arguments.key_id, "team_id": arguments.team_id, "topic": arguments.topic,
    }
    with open(os.path.join(arguments.dir, "ready.json.tmp"), "w") as handle:
        json.dump(ready, handle)
    os.rename(os.path.join(arguments.dir, "ready.json.tmp"), os.path.join(arguments.dir, "ready.json"))
    asyncio.ensure_future(watch_parent(arguments.parent or os.getppid()))
    async with server, control_server:
        await asyncio.gather(server.serve_forever(), control_server.serve_forever())


if __name__ == "__main__":
    asyncio.run(main())
