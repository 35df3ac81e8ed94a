import Foundation

/// The ID of one API request, which follows it from the gateway through every service it calls, so
/// that a search for one ID finds the request in every service's log.
///
/// The gateway takes the client's `X-Request-Id` when it is sane, else makes one; it travels to the
/// services as the NATS header ``header``. While a request is handled its ID is ``current`` (a task
/// local): every ``Logger`` line written then carries it as `request.id`, and every service call made
/// then sends it on.
public struct RequestID: Sendable, Hashable, CustomStringConvertible {
    /// The ID as written in logs and headers.
    public let value: String

    /// The header that carries the ID, in HTTP and in NATS.
    public static let header = "X-Request-Id"
    /// The log metadata key of the ID.
    public static let metadataKey = "request.id"
    /// The longest ID accepted, in bytes.
    public static let maxLength = 128

    /// The ID of the request the current task works for, if any.
    @TaskLocal public static var current: RequestID?

    /// `value` when it is a sane ID: 1 to 128 bytes of printable ASCII without spaces. Anything else
    /// (a line break, a quote-laden essay, bytes beyond ASCII) could forge or garble log lines: nil.
    public init?(validating value: String) {
        guard !value.isEmpty, value.utf8.count <= Self.maxLength,
              value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        self.value = value
    }

    private init(generated value: String) {
        self.value = value
    }

    /// A new random ID (a lowercase version 4 UUID), from the system's secure generator: one `getrandom`
    /// call, where Foundation's `UUID()` opens, reads and closes `/dev/urandom` for every one.
    public static func generate() -> RequestID {
        var generator = SystemRandomNumberGenerator()
        var bytes = (generator.next() as UInt64, generator.next() as UInt64)
        let uuid = withUnsafeMutableBytes(of: &bytes) { raw -> uuid_t in
            raw[6] = raw[6] & 0x0F | 0x40
            raw[8] = raw[8] & 0x3F | 0x80
            return raw.load(as: uuid_t.self)
        }
        return RequestID(generated: UUID(uuid: uuid).uuidString.lowercased())
    }

    /// The ID in `header` when it is sane, else a new one.
    public static func from(_ header: String?) -> RequestID {
        header.flatMap(RequestID.init(validating:)) ?? generate()
    }

    /// The ID itself.
    public var description: String { value }
}

extension Logger {
    /// A copy of this logger whose lines carry `id` as `request.id`.
    public func with(_ id: RequestID) -> Logger {
        with([RequestID.metadataKey: id.value])
    }
}
