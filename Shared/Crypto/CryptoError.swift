/// An error from the OpenSSL wrapper: a stable code plus, where OpenSSL gave one, its reason text.
public struct CryptoError: Error, CustomStringConvertible, Sendable, Equatable {
    private enum Code: String, Sendable {
        case invalidKey
        case unsupportedKey
        case invalidPEM
        case keyGenerationFailed
        case keyExportFailed
        case algorithmKeyMismatch
        case signingFailed
        case invalidKeyLength
        case encryptionFailed
        case authenticationFailed
    }

    private let code: Code
    /// What OpenSSL or the wrapper said about the failure; never contains key material.
    public let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// Key material was rejected (wrong length, not on the curve, not a valid RSA key).
    public static let invalidKey = CryptoError(.invalidKey, "")
    /// The key is of a type or size this module does not handle (only RSA, P-256 and Ed25519).
    public static let unsupportedKey = CryptoError(.unsupportedKey, "")
    /// The PEM text could not be parsed as a key or certificate.
    public static let invalidPEM = CryptoError(.invalidPEM, "")
    /// OpenSSL could not generate a key.
    public static let keyGenerationFailed = CryptoError(.keyGenerationFailed, "")
    /// OpenSSL could not serialise a key.
    public static let keyExportFailed = CryptoError(.keyExportFailed, "")
    /// The signature algorithm does not fit the key's type.
    public static let algorithmKeyMismatch = CryptoError(.algorithmKeyMismatch, "")
    /// OpenSSL failed to produce a signature.
    public static let signingFailed = CryptoError(.signingFailed, "")
    /// A symmetric key did not have the required length.
    public static let invalidKeyLength = CryptoError(.invalidKeyLength, "")
    /// Encryption failed inside OpenSSL.
    public static let encryptionFailed = CryptoError(.encryptionFailed, "")
    /// Sealed data was truncated, tampered with or opened with the wrong key.
    public static let authenticationFailed = CryptoError(.authenticationFailed, "")

    /// The same error with a detail added (typically the OpenSSL reason), which equality ignores.
    func with(_ detail: String) -> CryptoError { CryptoError(code, detail) }

    /// The same error carrying the reason at the top of this thread's OpenSSL error queue, which is then cleared.
    func withOpenSSLReason() -> CryptoError { with(OpenSSLErrors.drain()) }

    /// A stable machine-readable name for the error, for example `invalidKey`.
    public var name: String { code.rawValue }

    /// The error's name followed by its detail, if any.
    public var description: String { detail.isEmpty ? "CryptoError.\(code.rawValue)" : "CryptoError.\(code.rawValue): \(detail)" }

    /// Two errors are equal when their codes are; the detail text is informative only.
    public static func == (lhs: CryptoError, rhs: CryptoError) -> Bool { lhs.code == rhs.code }
}
