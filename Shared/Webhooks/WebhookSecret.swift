import Foundation

/// An endpoint's signing secret, as the Standard Webhooks spec writes it: `whsec_` and the base64 of
/// 24 to 64 random bytes. Its description never shows the key.
public struct WebhookSecret: Sendable, Equatable, CustomStringConvertible {
    /// The prefix every secret is written with.
    public static let prefix = "whsec_"
    /// The key lengths taken, in bytes.
    public static let keyLengths = 24...64

    /// The decoded key the signatures are computed with.
    public let key: [UInt8]

    /// Parses `text` (`whsec_<base64>`); throws what is wrong with it, never quoting it.
    public init(_ text: String) throws(WebhookSecretError) {
        guard text.hasPrefix(Self.prefix) else { throw .missingPrefix }
        guard let data = Data(base64Encoded: String(text.dropFirst(Self.prefix.count))) else { throw .notBase64 }
        guard Self.keyLengths.contains(data.count) else { throw .wrongLength(data.count) }
        key = Array(data)
    }

    /// A secret of `key` (tests and the dev tools make their own).
    public init(key: [UInt8]) {
        self.key = key
    }

    /// The secret as it is written (`whsec_...`): for the file that holds it, never for a log.
    public var text: String { Self.prefix + Data(key).base64EncodedString() }

    /// Never the key.
    public var description: String { "WebhookSecret(\(key.count) bytes)" }
}

/// What is wrong with a webhook secret (never the secret itself).
public struct WebhookSecretError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case missingPrefix, notBase64, wrongLength(Int)
    }

    private let code: Code

    /// It does not start with `whsec_`.
    public static let missingPrefix = WebhookSecretError(code: .missingPrefix)
    /// What follows `whsec_` is not base64.
    public static let notBase64 = WebhookSecretError(code: .notBase64)
    /// The key has `count` bytes, not 24 to 64.
    public static func wrongLength(_ count: Int) -> WebhookSecretError { WebhookSecretError(code: .wrongLength(count)) }

    public var description: String {
        switch code {
        case .missingPrefix: "the secret does not start with 'whsec_'"
        case .notBase64: "the secret after 'whsec_' is not base64"
        case .wrongLength(let count): "the secret's key has \(count) bytes; 24 to 64 random bytes are needed"
        }
    }
}
