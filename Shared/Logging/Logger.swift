import Foundation
import JSON
import Synchronization

/// A structured logger: one JSON object a line (or a readable text line) on standard error.
///
/// Metadata keys are dotted (`request.id`, `nats.subject`). Never pass a token, a secret or a
/// provider payload as a message or a metadata value. A line written while a request is handled
/// (``RequestID/current`` is set) carries that request's ID as `request.id`.
public struct Logger: Sendable {
    /// How severe a log line is; lines below the logger's level are dropped.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical

        /// The level's name as written in logs and in `LOG_LEVEL`.
        public var name: String { String(describing: self) }

        /// Reads a level from its name (`LOG_LEVEL`), or nil when the name is unknown.
        public init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
            self = level
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// How a line is written: JSON for production, text for a person at a terminal.
    public enum Format: String, Sendable {
        case json, text
    }

    /// Where lines go.
    public let sink: LogSink
    /// The component that logs (`gateway`, `nats`).
    public let label: String
    /// Lines below this level are dropped.
    public var level: Level
    /// The line format.
    public var format: Format
    /// Metadata attached to every line of this logger.
    public var metadata: [String: String]

    /// Creates a logger that writes to `sink` (standard error by default).
    public init(label: String, level: Level = .info, format: Format = .json,
                metadata: [String: String] = [:], sink: LogSink = .standardError) {
        self.label = label
        self.level = level
        self.format = format
        self.metadata = metadata
        self.sink = sink
    }

    /// A copy of this logger with more metadata on every line.
    public func with(_ extra: [String: String]) -> Logger {
        var copy = self
        copy.metadata.merge(extra) { _, new in new }
        return copy
    }

    /// A copy of this logger with another label and the same settings.
    public func named(_ label: String) -> Logger {
        Logger(label: label, level: level, format: format, metadata: metadata, sink: sink)
    }

    /// Logs `message` at `level` with `extra` metadata when the level is enabled.
    public func log(_ level: Level, _ message: @autoclosure () -> String, _ extra: [String: String] = [:]) {
        guard level >= self.level else { return }
        var fields = metadata
        fields.merge(extra) { _, new in new }
        if fields[RequestID.metadataKey] == nil, let id = RequestID.current {
            fields[RequestID.metadataKey] = id.value
        }
        sink.write(render(level: level, message: message(), fields: fields))
    }

    /// Logs at trace level.
    public func trace(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.trace, message(), extra) }
    /// Logs at debug level.
    public func debug(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.debug, message(), extra) }
    /// Logs at info level: normal work.
    public func info(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.info, message(), extra) }
    /// Logs at notice level: normal but significant.
    public func notice(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.notice, message(), extra) }
    /// Logs at warning level: something to look at.
    public func warning(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.warning, message(), extra) }
    /// Logs at error level: something failed.
    public func error(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.error, message(), extra) }
    /// Logs at critical level: the process cannot go on.
    public func critical(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.critical, message(), extra) }

    /// A value as the text format writes it: as it is when it is printable ASCII without spaces, quotes or
    /// `=`, else quoted and escaped as a JSON string, so a value from outside (a provider's error text)
    /// cannot end the line or pose as another field.
    static func textValue(_ value: String) -> String {
        let plain = !value.isEmpty && value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "=") }
        return plain ? value : MessageCoding.quoted(value)
    }

    /// A message as the text format writes it: as it is, unless a control character would break the line.
    static func textMessage(_ message: String) -> String {
        message.utf8.contains { $0 < 0x20 || $0 == 0x7F } ? MessageCoding.quoted(message) : message
    }

    private func render(level: Level, message: String, fields: [String: String]) -> String {
        let time = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
        switch format {
        case .json:
            var line = "{\"time\":\"\(time)\",\"level\":\"\(level.name)\",\"logger\":\(MessageCoding.quoted(label))"
                + ",\"message\":\(MessageCoding.quoted(message))"
            for key in fields.keys.sorted() {
                line += ",\(MessageCoding.quoted(key)):\(MessageCoding.quoted(fields[key]!))"
            }
            return line + "}\n"
        case .text:
            let extra = fields.keys.sorted().map { "\($0)=\(Self.textValue(fields[$0]!))" }.joined(separator: " ")
            return "\(time) \(level.name.uppercased()) [\(label)] \(Self.textMessage(message))\(extra.isEmpty ? "" : " " + extra)\n"
        }
    }
}

/// Where log lines are written. Each line is written with one `write` call, so lines of
/// concurrent writers never interleave.
public final class LogSink: Sendable {
    private let descriptor: Int32?
    private let capture: Bool
    private let captured = Mutex<[String]>([])

    private init(descriptor: Int32?, capture: Bool) {
        self.descriptor = descriptor
        self.capture = capture
    }

    /// Standard error, the default.
    public static let standardError = LogSink(descriptor: 2, capture: false)

    /// A sink that keeps lines in memory, for tests that check what was (or was not) logged.
    public static func capturing() -> LogSink { LogSink(descriptor: nil, capture: true) }

    /// The lines a capturing sink has kept.
    public var lines: [String] { captured.withLock { $0 } }

    func write(_ line: String) {
        if capture {
            captured.withLock { $0.append(line) }
        }
        if let descriptor {
            var bytes = Array(line.utf8)
            bytes.withUnsafeMutableBytes { buffer in
                _ = Foundation.write(descriptor, buffer.baseAddress, buffer.count)
            }
        }
    }
}
