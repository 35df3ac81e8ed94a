/// The issuer's own failures (as opposed to the caller's, which are `ServiceFailure`s).
struct IssuerError: Error, CustomStringConvertible {
    private enum Code {
        case noSigningKey, unsupportedSigningKey, unexpectedStatus(String)
    }

    private let code: Code

    /// No key is active: the key set has not loaded.
    static let noSigningKey = IssuerError(code: .noSigningKey)
    /// `SIGNING_KEY_FILE` holds a key that is neither P-256 nor Ed25519.
    static let unsupportedSigningKey = IssuerError(code: .unsupportedSigningKey)
    /// The database answered a status the issuer does not know.
    static func unexpectedStatus(_ status: String) -> IssuerError { IssuerError(code: .unexpectedStatus(status)) }

    var description: String {
        switch code {
        case .noSigningKey: "no active signing key"
        case .unsupportedSigningKey: "the signing key must be a P-256 or Ed25519 private key"
        case .unexpectedStatus(let status): "unexpected rotation status '\(status)'"
        }
    }
}
