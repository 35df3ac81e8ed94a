import Foundation
import Synchronization

/// A small file a service reads at start and then follows (the admins' tokens, the webhook endpoints): read
/// again on each ``reload()`` (the path opened anew each time, through any symbolic link, so a Kubernetes
/// Secret, whose `..data` link the kubelet swaps, and a file replaced by rename are both seen) and taken when
/// its contents changed. A bad file at start is thrown; a file that becomes unreadable or bad later is reported
/// once per version, and its owner's ``FailurePolicy`` says what stays in force meanwhile. What is wrong is
/// told without the file's text (it holds secrets).
public final class FollowedFile<Value: Sendable>: Sendable {
    /// What stays in force while the file cannot be used.
    public enum FailurePolicy: Sendable {
        /// The last good value (a webhook endpoint keeps its deliveries).
        case keepLast
        /// This value (fail closed: the admins' tokens file leaves no admin).
        case replace(with: Value)
    }

    /// What a ``reload()`` found.
    public enum Change: Sendable {
        /// The same contents as last time (or the same failure).
        case unchanged
        /// New contents, taken.
        case changed(Value)
        /// The file cannot be read or used now (told once per version); the failure policy applied.
        case failed(any Error)
    }

    /// The path followed.
    public let path: String
    private let maxSize: Int
    private let onFailure: FailurePolicy
    private let parse: @Sendable (String) throws -> Value
    /// The value in force, and the contents it was read from (nil: the file could not be read).
    private let state: Mutex<(value: Value, contents: Data?)>

    /// Reads the file at `path` (at most `maxSize` bytes of UTF-8) with `parse`; throws what is wrong.
    public init(path: String, maxSize: Int = 1_048_576, onFailure: FailurePolicy,
                parse: @escaping @Sendable (String) throws -> Value) throws {
        self.path = path
        self.maxSize = maxSize
        self.onFailure = onFailure
        self.parse = parse
        let contents = try Self.contents(path, maxSize: maxSize)
        state = Mutex((try parse(Self.text(contents)), contents))
    }

    /// The value in force.
    public var value: Value {
        state.withLock { $0.value }
    }

    /// Reads the file again, and takes it when its contents changed.
    public func reload() -> Change {
        let contents: Data?
        let parsed: Result<Value, any Error>
        do {
            let read = try Self.contents(path, maxSize: maxSize)
            contents = read
            guard read != state.withLock({ $0.contents }) else { return .unchanged }
            parsed = Result { try parse(try Self.text(read)) }
        } catch {
            contents = nil
            guard state.withLock({ $0.contents }) != nil else { return .unchanged }
            parsed = .failure(error)
        }
        switch parsed {
        case .success(let value):
            state.withLock { $0 = (value, contents) }
            return .changed(value)
        case .failure(let error):
            state.withLock { state in
                if case .replace(let value) = onFailure { state.value = value }
                state.contents = contents
            }
            return .failed(error)
        }
    }

    private static func contents(_ path: String, maxSize: Int) throws -> Data {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw FollowedFileError("cannot be read") }
        defer { try? handle.close() }
        let data = try handle.read(upToCount: maxSize + 1) ?? Data()
        guard data.count <= maxSize else { throw FollowedFileError("is larger than \(maxSize) bytes") }
        return data
    }

    private static func text(_ data: Data) throws -> String {
        guard let text = String(data: data, encoding: .utf8) else { throw FollowedFileError("is not UTF-8 text") }
        return text
    }
}

/// A followed file that cannot be read at all.
public struct FollowedFileError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
