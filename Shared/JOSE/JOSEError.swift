/// Why a token, key or claim set was refused. Compare with the static members; `code` is a stable machine name.
public struct JOSEError: Error, CustomStringConvertible, Sendable, Equatable {
    private enum Code: String, Sendable {
        case malformed
        case tooLarge
        case unsupportedAlgorithm
        case algorithmNotAllowed
        case algorithmKeyMismatch
        case unsupportedCriticalHeader
        case unsupportedKey
        case unknownKey
        case badSignature
        case expired
        case notYetValid
        case issuedInFuture
        case missingClaim
        case wrongIssuer
        case wrongAudience
        case wrongAuthorizedParty
        case nonceMismatch
        case nonceMissing
        case invalidArgument
    }

    private let _code: Code
    /// The claim named by `missingClaim`, nil otherwise.
    public let claim: String?
    /// A short explanation for logs; never contains token contents. Equality ignores it.
    public let detail: String

    private init(_ code: Code, claim: String? = nil, detail: String = "") {
        self._code = code
        self.claim = claim
        self.detail = detail
    }

    /// The token, header, payload or key set is not well-formed (segments, base64url, JSON, claim types).
    public static let malformed = JOSEError(.malformed)
    /// The token is longer than the allowed maximum.
    public static let tooLarge = JOSEError(.tooLarge)
    /// The header's `alg` is not one this module implements (`none`, HS*, PS*, ES512, ...).
    public static let unsupportedAlgorithm = JOSEError(.unsupportedAlgorithm)
    /// The `alg` is implemented but not allowed by the caller's policy.
    public static let algorithmNotAllowed = JOSEError(.algorithmNotAllowed)
    /// The `alg` does not fit the selected key's type or the key's own `alg`.
    public static let algorithmKeyMismatch = JOSEError(.algorithmKeyMismatch)
    /// The header lists critical extensions (`crit`), none of which this module understands.
    public static let unsupportedCriticalHeader = JOSEError(.unsupportedCriticalHeader)
    /// A JWK is of a type, curve or size this module refuses (oct, P-384, RSA under 2048 bits, ...).
    public static let unsupportedKey = JOSEError(.unsupportedKey)
    /// No usable key matches the token's `kid`.
    public static let unknownKey = JOSEError(.unknownKey)
    /// The signature does not verify.
    public static let badSignature = JOSEError(.badSignature)
    /// `exp` has passed (beyond the leeway).
    public static let expired = JOSEError(.expired)
    /// `nbf` is in the future (beyond the leeway).
    public static let notYetValid = JOSEError(.notYetValid)
    /// `iat` is in the future (beyond the leeway).
    public static let issuedInFuture = JOSEError(.issuedInFuture)
    /// `iss` is not one of the accepted issuers.
    public static let wrongIssuer = JOSEError(.wrongIssuer)
    /// `aud` holds none of the accepted audiences.
    public static let wrongAudience = JOSEError(.wrongAudience)
    /// `azp` is missing where required or not an accepted client ID.
    public static let wrongAuthorizedParty = JOSEError(.wrongAuthorizedParty)
    /// The token's `nonce` does not match the request's.
    public static let nonceMismatch = JOSEError(.nonceMismatch)
    /// A nonce was required and none was given.
    public static let nonceMissing = JOSEError(.nonceMissing)
    /// A caller passed an argument this module cannot use (for example a header that overrides `alg`).
    public static let invalidArgument = JOSEError(.invalidArgument)

    /// A required claim is absent (or empty, for `sub`).
    public static func missingClaim(_ name: String) -> JOSEError { JOSEError(.missingClaim, claim: name) }

    /// The same error with an explanation for logs.
    func with(_ detail: String) -> JOSEError { JOSEError(_code, claim: claim, detail: detail) }

    /// A stable machine name such as `badSignature` or `missingClaim`.
    public var code: String { _code.rawValue }

    /// The code, the claim name if any, and the detail if any.
    public var description: String {
        var text = "JOSEError.\(_code.rawValue)"
        if let claim { text += "(\(claim))" }
        if !detail.isEmpty { text += ": \(detail)" }
        return text
    }

    /// Errors are equal when their codes (and claim names) are; the detail is informative only.
    public static func == (lhs: JOSEError, rhs: JOSEError) -> Bool {
        lhs._code == rhs._code && lhs.claim == rhs.claim
    }
}
