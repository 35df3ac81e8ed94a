/// The verifier's own failures in reaching providers (not the caller's token errors).
struct VerifierError: Error, CustomStringConvertible {
    private enum Code {
        case jwksStatus(Int), jwksEmpty
    }

    private let code: Code

    /// The JWKS endpoint answered with a status other than 200.
    static func jwksStatus(_ status: Int) -> VerifierError { VerifierError(code: .jwksStatus(status)) }
    /// The JWKS held no key we can use.
    static let jwksEmpty = VerifierError(code: .jwksEmpty)

    var description: String {
        switch code {
        case .jwksStatus(let status): "the key set endpoint answered \(status)"
        case .jwksEmpty: "the key set holds no usable key"
        }
    }
}
