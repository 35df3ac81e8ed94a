#if canImport(Security)
import Security
#endif

/// A Keychain call failed with `status`.
public struct KeychainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status the Keychain answered.
    public let status: KeychainStatus

    /// Wraps a status.
    public init(status: KeychainStatus) {
        self.status = status
    }

    /// The `OSStatus` itself.
    public var osStatus: Int32 { status.rawValue }

    /// Whether it passes: the device is locked (`errSecInteractionNotAllowed`), and the same call works
    /// after it is unlocked. The user stays signed in meanwhile.
    public var isTransient: Bool { status == .interactionNotAllowed }

    public var description: String {
        #if canImport(Security)
        if let text = SecCopyErrorMessageString(status.rawValue, nil) as String? { return "Keychain error \(status.rawValue): \(text)" }
        #endif
        return "Keychain error \(status.rawValue)"
    }
}
