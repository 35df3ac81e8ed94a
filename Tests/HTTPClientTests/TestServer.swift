import Collections
import Foundation
import Synchronization

/// A small Python HTTP server for the client's tests, on a free loopback port.
///
/// `/echo` (any path not below) answers JSON with the method, path, lowercased headers, body and the
/// client's port; `/slow?seconds=N` sleeps first; `/status/N` answers status N; `/cache` sets
/// Cache-Control; `/redirect` answers 302; `/big?size=N[&chunked=1]` answers N bytes. The server
/// exits when this process closes its standard input (even if the test process dies). With `tls`, it
/// serves HTTPS with a fresh self-signed certificate.
final class TestServer: Sendable {
    /// The server's port on 127.0.0.1.
    let port: Int
    private let process: Process
    private let input: Pipe

    private init(port: Int, process: Process, input: Pipe) {
        self.port = port
        self.process = process
        self.input = input
    }

    /// The URL of `path` (which starts with `/`) on this server.
    func url(_ path: String, scheme: String = "http") -> String {
        "\(scheme)://127.0.0.1:\(port)\(path)"
    }

    /// Starts a server and waits until it listens; throws when python3 fails to start.
    static func start(tls: Bool = false) async throws -> TestServer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script] + (tls ? ["tls"] : [])
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        // Spawning (Process.run closes every descriptor up to the limit) and reading the port block, so
        // both happen on a thread of their own, not on a cooperative thread.
        let line = try await BlockingCall.run { () throws -> String in
            try process.run()
            var bytes: [UInt8] = []
            let handle = output.fileHandleForReading
            while let byte = try? handle.read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
                bytes.append(first)
            }
            guard !bytes.isEmpty else { throw TestServerError(message: "python3 test server did not start") }
            return String(decoding: bytes, as: UTF8.self)
        }
        guard let port = Int(line) else { throw TestServerError(message: "python3 test server printed \(line)") }
        return TestServer(port: port, process: process, input: input)
    }

    /// Stops the server.
    func stop() {
        try? input.fileHandleForWriting.close()
        process.terminate()
    }

    deinit {
        stop()
    }

    private static let script = #"""
import json, os, sys, threading, time
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
from urllib.parse import urlsplit, parse_qs

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        status, extra, payload, chunked = 200, [], None, False
        if url.path == "/slow":
            time.sleep(float(query.get("seconds", "3")))
        elif url.path.startswith("/status/"):
            status = int(url.path[len("/status/"):])
        elif url.path == "/cache":
            extra.append(("Cache-Control", "public, max-age=300"))
        elif url.path == "/redirect":
            status = 302
            extra.append(("Location", "/echo"))
        elif url.path == "/big":
            payload = b"x" * int(query.get("size", "2000000"))
            chunked = query.get("chunked") == "1"
        if payload is None:
            payload = json.dumps({
                "method": self.command,
                "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body.decode("latin-1"),
                "port": self.client_address[1],
            }).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for name, value in extra:
            self.send_header(name, value)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for start in range(0, len(payload), 65536):
                part = payload[start:start + 65536]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = handle_any

class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address):
        pass  # clients that time out or cancel close their end; that is expected here

def exit_when_parent_goes():
    sys.stdin.read()
    os._exit(0)

server = Server(("127.0.0.1", 0), Handler)
if sys.argv[1:] == ["tls"]:
    import ssl, subprocess, tempfile
    directory = tempfile.mkdtemp()
    key, cert = directory + "/key.pem", directory + "/cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-days", "1", "-keyout", key, "-out", cert], check=True, capture_output=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
threading.Thread(target=exit_when_parent_goes, daemon=True).start()
server.serve_forever()
"""#
}

/// The test server could not be started.
struct TestServerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
