/// The verifier's own failures in reaching providers (not the caller's token errors).
struct VerifierError: Error, CustomStringConvertible {
    private enum Code {
        case providerStatus(Int), jwksEmpty, unreadableAnswer(String), providerError(String)
    }

    private let code: Code

    /// A provider endpoint answered with an unexpected HTTP status.
    static func providerStatus(_ status: Int) -> VerifierError { VerifierError(code: .providerStatus(status)) }
    /// The JWKS held no key we can use.
    static let jwksEmpty = VerifierError(code: .jwksEmpty)
    /// A provider's answer could not be read (named by what was expected).
    static func unreadableAnswer(_ what: String) -> VerifierError { VerifierError(code: .unreadableAnswer(what)) }
    /// A provider answered with an OAuth error code (`invalid_client`, ...).
    static func providerError(_ code: String) -> VerifierError { VerifierError(code: .providerError(code)) }

    var description: String {
        switch code {
        case .providerStatus(let status): "the provider answered HTTP \(status)"
        case .jwksEmpty: "the key set holds no usable key"
        case .unreadableAnswer(let what): "the provider's answer is not \(what)"
        case .providerError(let error): "the provider answered \(error)"
        }
    }
}
