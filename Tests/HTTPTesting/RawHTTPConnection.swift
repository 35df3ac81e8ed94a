import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 client on one TCP connection, for the cases URLSession hides (keep-alive, disconnects).
/// Use it from `BlockingCall.run` so that blocking reads never hold a Swift cooperative thread.
public final class RawHTTPConnection {
    /// One response as read off the wire.
    public struct Response: Sendable {
        /// The status code of the status line.
        public let status: Int
        /// Header lines as sent, names lowercased.
        public let headers: [(String, String)]
        /// The body (`Content-Length` bytes).
        public let body: [UInt8]

        /// The first value of header `name`.
        public func header(_ name: String) -> String? { headers.first { $0.0 == name.lowercased() }?.1 }
    }

    /// A socket call that failed, or a response that could not be read.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String

        /// A failure saying `description`.
        public init(description: String) {
            self.description = description
        }
    }

    private let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to `port` on the loopback address; a read that waits longer than `readTimeoutSeconds` throws.
    public init(port: Int, ipv6: Bool = false, readTimeoutSeconds: Int = 30) throws {
        descriptor = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket() failed: \(errno)") }
        var timeout = timeval(tv_sec: readTimeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port)).bigEndian
            address.sin6_addr = in6addr_loopback
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port)).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard connected == 0 else {
            // No close() here: the initializer has completed, so deinit runs and closes the descriptor. Closing it
            // twice could close a descriptor number the server has reused meanwhile.
            throw Failure(description: "connect() to port \(port) failed: \(errno)")
        }
    }

    deinit { close(descriptor) }

    /// Sends raw bytes.
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send() failed: \(errno)") }
            offset += sent
        }
    }

    /// Sends text as UTF-8.
    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Reads one response; `head` is true for a response to HEAD (no body even with Content-Length).
    public func readResponse(head: Bool = false) throws -> Response {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = buffer.firstRange(of: separator)?.lowerBound
            if headerEnd == nil { try fill() }
        }
        let headText = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
        buffer.removeFirst(headerEnd! + separator.count)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line in \(headText)")
        }
        let headers = lines.map { line -> (String, String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (parts[0].lowercased(), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
        }
        let length = head ? 0 : Int(headers.first { $0.0 == "content-length" }?.1 ?? "0") ?? 0
        while buffer.count < length { try fill() }
        let body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return Response(status: status, headers: headers, body: body)
    }

    /// The status of the next response, or nil when the server closes the connection (or resets it) before
    /// sending a byte: the answer of a server that refuses to parse a request at all.
    public func readStatusOrClose() throws -> Int? {
        let lineEnd: [UInt8] = Array("\r\n".utf8)
        while buffer.firstRange(of: lineEnd) == nil {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let received = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if received > 0 {
                buffer.append(contentsOf: chunk[..<received])
            } else if buffer.isEmpty, received == 0 || errno == ECONNRESET {
                return nil
            } else {
                throw Failure(description: received == 0 ? "connection closed inside the status line" : "recv() failed: \(errno)")
            }
        }
        let line = String(decoding: buffer[..<buffer.firstRange(of: lineEnd)!.lowerBound], as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw Failure(description: "bad status line: \(line)")
        }
        return status
    }

    /// True when the server has closed the connection (reads end of stream or a reset).
    public func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        let received = recv(descriptor, &byte, 1, 0)
        return received == 0 || (received < 0 && errno == ECONNRESET)
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 16384)
        let received = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard received > 0 else {
            throw Failure(description: received == 0 ? "connection closed by server" : "recv() failed: \(errno)")
        }
        buffer.append(contentsOf: chunk[..<received])
    }
}
