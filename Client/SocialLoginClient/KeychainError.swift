#if canImport(Security)
import Security

/// A Keychain call failed with `status` (an `OSStatus` from `SecItem*`).
public struct KeychainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `OSStatus` the Keychain returned.
    public let status: OSStatus

    /// Wraps a status.
    public init(status: OSStatus) {
        self.status = status
    }

    public var description: String {
        let text = SecCopyErrorMessageString(status, nil) as String?
        return "Keychain error \(status)" + (text.map { ": \($0)" } ?? "")
    }
}
#endif
